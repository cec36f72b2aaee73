#pragma once
/// TilePicker: the zoom level, a quadkey entry that takes the map there (type
/// `1202230303022112` and press Enter), and the selected tiles with their figures: coverage of
/// the main layers, buildings placed and blocked, trees and other plants.

#include <QWidget>

#include "terrabit/core/tile/tile_id.h"

class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;

namespace terrabit::ui {

class MapDocument;
class TileListModel;

class TilePicker : public QWidget {
    Q_OBJECT
public:
    explicit TilePicker(MapDocument* document, QWidget* parent = nullptr);

    QSpinBox* zoomBox() const { return mZoom; }
    QLineEdit* quadkeyEdit() const { return mQuadkey; }
    QTableView* table() const { return mTable; }
    TileListModel* model() const { return mModel; }
    /// The message under the quadkey entry ("" when the last entry was fine).
    QString message() const;

    /// Goes to a quadkey: emits goToTile() and returns true, or shows why it is not one.
    bool goToQuadkey(const QString& quadkey);

signals:
    /// The user asked to see this tile (quadkey entry or a double-click in the list).
    void goToTile(const terrabit::core::TileId& tile);

private:
    /// Makes the quadkey column as wide as a quadkey at the project's zoom.
    void fitQuadkeyColumn();

    MapDocument* mDocument;
    QSpinBox* mZoom;
    QLineEdit* mQuadkey;
    QLabel* mMessage;
    TileListModel* mModel;
    QTableView* mTable;
};

}  // namespace terrabit::ui
