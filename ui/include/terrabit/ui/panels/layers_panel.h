#pragma once
/// LayersPanel: the base layers (with their classes under them) and the derived layers, each
/// with its colour swatch, a visibility tick and its coverage of the selected tiles; a choice of
/// the layer shown as an overlay in the map and the viewport; removing a derived layer.

#include <QWidget>

class QComboBox;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace terrabit::ui {

class MapDocument;
struct LayerRow;

class LayersPanel : public QWidget {
    Q_OBJECT
public:
    explicit LayersPanel(MapDocument* document, QWidget* parent = nullptr);

    QTreeWidget* tree() const { return mTree; }
    QComboBox* overlayBox() const { return mOverlay; }
    /// The item of a layer, or nullptr.
    QTreeWidgetItem* item(const QString& name) const;

private:
    void refresh();
    /// Swatch, name, visibility tick and coverage of a layer's item.
    void fillRow(QTreeWidgetItem* item, const LayerRow& row) const;

    MapDocument* mDocument;
    QTreeWidget* mTree;
    QComboBox* mOverlay;
    QPushButton* mRemove;
    bool mRefreshing = false;
};

}  // namespace terrabit::ui
