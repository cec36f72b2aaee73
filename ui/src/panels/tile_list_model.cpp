#include "terrabit/ui/panels/tile_list_model.h"

#include <QFontDatabase>
#include <QIcon>
#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <numeric>

#include "terrabit/ui/document/map_document.h"

namespace terrabit::ui {

namespace {

/// The layers whose coverage the bar draws, when the rules have them.
const char* const kFigureLayers[] = {"building", "road", "vegetation", "water"};
constexpr QSize kBarSize(60, 12);

bool isFigureLayer(const QString& name) {
    return std::any_of(std::begin(kFigureLayers), std::end(kFigureLayers), [&](const char* n) { return name == n; });
}

/// A tile's coverage as one bar: a segment per layer in its colour, as long as its share of the
/// tile (the layers can overlap, so the bar is clipped at the end).
QPixmap coverageBar(const std::vector<LayerRow>& rows, const std::vector<double>& fractions) {
    QPixmap pm(kBarSize);
    pm.fill(QColor(0xe9, 0xe6, 0xdf));
    QPainter p(&pm);
    double x = 0.0;
    for (std::size_t l = 0; l < rows.size() && l < fractions.size(); ++l) {
        if (!isFigureLayer(rows[l].name)) continue;
        const double w = fractions[l] * kBarSize.width();
        p.fillRect(QRectF(x, 0, w, kBarSize.height()), rows[l].colour);
        x += w;
    }
    p.setPen(QColor(0x80, 0x80, 0x80));
    p.drawRect(0, 0, kBarSize.width() - 1, kBarSize.height() - 1);
    return pm;
}

}  // namespace

TileListModel::TileListModel(const MapDocument* document, QObject* parent)
    : QAbstractTableModel(parent), mDocument(document) {
    mQuadkeyFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    // Quadkeys are read digit by digit: a fixed-width face, and narrower so every column fits.
    mQuadkeyFont.setPointSizeF(mQuadkeyFont.pointSizeF() * 0.85);
    selectionChanged();
}

QSize TileListModel::barSize() { return kBarSize; }

int TileListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(mOrder.size());
}

int TileListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

core::TileId TileListModel::tileAt(int row) const {
    if (row < 0 || row >= rowCount()) return {};
    return mDocument->selection()[slotOf(row)];
}

void TileListModel::noteFormatted(int row) const {
    const std::size_t slot = slotOf(row);
    if (slot < mFormatted.size() && !mFormatted[slot]) {
        mFormatted[slot] = true;
        ++mFormattedCount;
    }
}

void TileListModel::forgetFormatted() {
    mFormatted.assign(mOrder.size(), false);
    mFormattedCount = 0;
}

std::vector<double> TileListModel::fractions(const core::TileId& tile) const {
    const std::size_t n = mDocument->layerRows().size();
    std::vector<double> out(n, 0.0);
    for (std::size_t l = 0; l < n; ++l) {
        const core::BitTile* bits = mDocument->layers().tile(tile, static_cast<int>(l));
        out[l] = bits ? double(bits->count()) / (double(core::kTileCells) * core::kTileCells) : 0.0;
    }
    return out;
}

QVariant TileListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const std::size_t slot = slotOf(index.row());
    const core::TileId tile = mDocument->selection()[slot];
    const int column = index.column();
    if (role == Qt::UserRole) return sortKey(slot, column);
    if (role == Qt::FontRole) return column == TileColumn ? QVariant(mQuadkeyFont) : QVariant();
    if (role == Qt::TextAlignmentRole && column >= PlacedColumn) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    const auto& rows = mDocument->layerRows();
    if (role == Qt::ToolTipRole) {
        noteFormatted(index.row());
        const std::vector<double> f = fractions(tile);
        QString tip = QString::fromStdString(tile.quadkey());
        for (std::size_t l = 0; l < rows.size(); ++l) {
            tip += QString("\n%1: %2 %").arg(rows[l].name).arg(f[l] * 100.0, 0, 'f', 1);
        }
        if (const core::pipeline::TileTally* tally = mDocument->tileTally(tile)) {
            tip += QString("\nbuildings: %1 placed, %2 generated, %3 blocked, %4 with no model that fits")
                       .arg(tally->buildingsPlaced)
                       .arg(tally->buildingsGenerated)
                       .arg(tally->buildingsBlocked)
                       .arg(tally->buildingsUnmatched);
        }
        return tip;
    }
    if (role != Qt::DisplayRole && role != Qt::DecorationRole && role != Qt::AccessibleTextRole) return {};
    noteFormatted(index.row());
    if (column == CoverageColumn) {
        const std::vector<double> f = fractions(tile);
        if (role == Qt::DecorationRole) return QIcon(coverageBar(rows, f));
        if (role == Qt::AccessibleTextRole) {
            // The figures the bar draws, for screen readers and tests.
            QStringList parts;
            for (std::size_t l = 0; l < rows.size(); ++l) {
                if (isFigureLayer(rows[l].name)) parts << QString("%1 %2 %").arg(rows[l].name).arg(qRound(f[l] * 100));
            }
            return parts.join(", ");
        }
        return {};
    }
    if (role == Qt::DecorationRole) return {};
    if (column == TileColumn) return QString::fromStdString(tile.quadkey());
    return sortKey(slot, column);
}

QVariant TileListModel::sortKey(std::size_t slot, int column) const {
    const core::TileId tile = mDocument->selection()[slot];
    const core::pipeline::TileTally* tally = mDocument->tileTally(tile);
    switch (column) {
        case TileColumn:
            return qulonglong(slot);  // the selection's order: north to south
        case CoverageColumn: {
            const std::vector<double> f = fractions(tile);
            double sum = 0.0;
            for (std::size_t l = 0; l < f.size(); ++l) {
                if (isFigureLayer(mDocument->layerRows()[l].name)) sum += f[l];
            }
            return sum;
        }
        case PlacedColumn:
            return tally ? tally->buildingsPlaced : 0;
        case BlockedColumn:
            return tally ? tally->buildingsBlocked : 0;
        case TreesColumn:
            return tally ? tally->trees : 0;
        default:
            return {};
    }
}

QVariant TileListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case TileColumn:
                return tr("Tile");
            case CoverageColumn:
                return tr("Coverage");
            case PlacedColumn:
                return tr("Placed");
            case BlockedColumn:
                return tr("Blocked");
            case TreesColumn:
                return tr("Trees");
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole && section == CoverageColumn) {
        return tr("Share of the tile covered by building, road, vegetation and water, in their colours");
    }
    return {};
}

void TileListModel::sort(int column, Qt::SortOrder order) {
    if (column < 0 || column >= ColumnCount) return;
    mSortColumn = column;
    mSortOrder = order;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    const std::vector<std::size_t> oldOrder = mOrder;
    // Keys read once per tile: the coverage key counts bits, not something to redo per comparison.
    std::vector<double> keys(mOrder.size());
    for (std::size_t s = 0; s < mOrder.size(); ++s) keys[s] = sortKey(s, column).toDouble();
    std::iota(mOrder.begin(), mOrder.end(), std::size_t{0});
    std::stable_sort(mOrder.begin(), mOrder.end(), [&](std::size_t a, std::size_t b) {
        return order == Qt::AscendingOrder ? keys[a] < keys[b] : keys[a] > keys[b];
    });
    std::vector<std::size_t> rowOfSlot(mOrder.size());
    for (std::size_t r = 0; r < mOrder.size(); ++r) rowOfSlot[mOrder[r]] = r;
    // Selected and current rows in views follow their tiles.
    QModelIndexList after;
    for (const QModelIndex& i : before) {
        const std::size_t slot = oldOrder[static_cast<std::size_t>(i.row())];
        after << index(static_cast<int>(rowOfSlot[slot]), i.column());
    }
    changePersistentIndexList(before, after);
    forgetFormatted();
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void TileListModel::selectionChanged() {
    beginResetModel();
    mOrder.resize(mDocument->selection().size());
    std::iota(mOrder.begin(), mOrder.end(), std::size_t{0});
    forgetFormatted();
    endResetModel();
    if (mSortColumn > TileColumn || mSortOrder == Qt::DescendingOrder) sort(mSortColumn, mSortOrder);
}

void TileListModel::figuresChanged() { columnsChanged(PlacedColumn, TreesColumn); }

void TileListModel::coverageChanged() { columnsChanged(CoverageColumn, CoverageColumn); }

void TileListModel::columnsChanged(int first, int last) {
    forgetFormatted();
    if (mOrder.empty()) return;
    emit dataChanged(index(0, first), index(rowCount() - 1, last));
    // Rows sorted by a column that changed are sorted again (one layout change).
    if (mSortColumn >= first && mSortColumn <= last) sort(mSortColumn, mSortOrder);
}

}  // namespace terrabit::ui
