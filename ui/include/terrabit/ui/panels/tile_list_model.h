#pragma once
/// TileListModel: the selected tiles and their figures as a table for a QTableView — quadkey,
/// coverage of the main layers (a bar in their colours), buildings placed and blocked, trees.
///
/// Built for selections of tens of thousands of tiles: a new selection or a new bake is one
/// model reset or one dataChanged over a column range, never a signal per tile; nothing is
/// formatted until a view asks for a row, and views ask only for the rows they show (the view
/// must not size its columns to their contents, which reads every row). Sorting orders row
/// numbers, not formatted text. rowsFormatted() counts what was formatted, for tests.
///
/// Threading: UI thread only; it reads the document, which the UI thread owns.

#include <QAbstractTableModel>
#include <QFont>

#include <cstddef>
#include <vector>

#include "terrabit/core/tile/tile_id.h"

namespace terrabit::ui {

class MapDocument;

class TileListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TileColumn, CoverageColumn, PlacedColumn, BlockedColumn, TreesColumn, ColumnCount };

    explicit TileListModel(const MapDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    /// Display text, the coverage bar (DecorationRole, and its figures as AccessibleTextRole),
    /// a tooltip with every layer's share, the quadkey's fixed-width font. Ascending numbers
    /// sort as numbers (Qt::UserRole holds the sort key).
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// Orders the rows by a column (a stable sort, so equal figures keep north-to-south order).
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    /// The tile shown in a row (an invalid row gives a default TileId).
    core::TileId tileAt(int row) const;
    /// Distinct rows whose text or bar was formatted since the rows last changed (a new
    /// selection, bake or order): with a lazy view, the rows on screen, whatever the selection.
    std::size_t rowsFormatted() const { return mFormattedCount; }
    /// The quadkey column's font (fixed width).
    const QFont& quadkeyFont() const { return mQuadkeyFont; }
    /// The size of the coverage bar, pixels.
    static QSize barSize();

    /// The document's selection changed: one reset.
    void selectionChanged();
    /// A bake (or a batch of one) finished: the figure columns change, one signal.
    void figuresChanged();
    /// The layers or their colours changed: the coverage column changes, one signal.
    void coverageChanged();

private:
    /// The selection index of a row (rows may be sorted).
    std::size_t slotOf(int row) const { return mOrder[static_cast<std::size_t>(row)]; }
    void noteFormatted(int row) const;
    /// A tile's share covered by each of layerRows(), 0..1.
    std::vector<double> fractions(const core::TileId& tile) const;
    QVariant sortKey(std::size_t slot, int column) const;
    void forgetFormatted();
    /// Columns first..last changed in every row: one dataChanged, and a new order if sorted by one.
    void columnsChanged(int first, int last);

    const MapDocument* mDocument;
    std::vector<std::size_t> mOrder;  ///< row → index into the document's selection
    QFont mQuadkeyFont;
    int mSortColumn = -1;
    Qt::SortOrder mSortOrder = Qt::AscendingOrder;
    // Formatting is a cache-free read of the document; these only count it.
    mutable std::vector<bool> mFormatted;  ///< per selection index
    mutable std::size_t mFormattedCount = 0;
};

}  // namespace terrabit::ui
