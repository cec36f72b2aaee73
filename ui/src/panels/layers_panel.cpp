#include "terrabit/ui/panels/layers_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QPainter>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "terrabit/ui/document/map_document.h"

namespace terrabit::ui {

namespace {

QIcon swatch(const QColor& colour) {
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setPen(colour.darker(160));
    p.setBrush(colour);
    p.drawRoundedRect(QRectF(0.5, 0.5, 13, 13), 2, 2);
    return QIcon(pm);
}

}  // namespace

LayersPanel::LayersPanel(MapDocument* document, QWidget* parent) : QWidget(parent), mDocument(document) {
    auto* layout = new QVBoxLayout(this);
    mTree = new QTreeWidget(this);
    mTree->setColumnCount(2);
    mTree->setHeaderLabels({tr("Layer"), tr("Coverage")});
    mTree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    mTree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    // The name takes the room; the coverage column is as wide as its figures.
    mTree->header()->setStretchLastSection(false);
    mTree->setRootIsDecorated(true);
    layout->addWidget(mTree, 1);
    auto* form = new QFormLayout;
    mOverlay = new QComboBox(this);
    mOverlay->setToolTip(tr("Draw this layer translucent over the map and the viewport"));
    form->addRow(tr("Overlay"), mOverlay);
    layout->addLayout(form);
    mRemove = new QPushButton(tr("Remove derived layer"), this);
    mRemove->setEnabled(false);
    layout->addWidget(mRemove);

    connect(mTree, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
        if (mRefreshing || column != 0) return;
        mDocument->setLayerVisible(item->data(0, Qt::UserRole).toString(), item->checkState(0) == Qt::Checked);
    });
    connect(mTree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        const auto& rows = mDocument->layerRows();
        const int i = item ? item->data(0, Qt::UserRole + 1).toInt() : -1;
        mRemove->setEnabled(i >= 0 && i < int(rows.size()) && rows[std::size_t(i)].derived &&
                            !rows[std::size_t(i)].fromRules);
    });
    connect(mRemove, &QPushButton::clicked, this, [this] {
        if (auto* item = mTree->currentItem()) mDocument->removeDerivedLayer(item->data(0, Qt::UserRole).toString());
    });
    connect(mOverlay, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (mRefreshing) return;
        mDocument->setOverlay(index <= 0 ? QString() : mOverlay->itemData(index).toString());
    });
    connect(document, &MapDocument::layersChanged, this, &LayersPanel::refresh);
    connect(document, &MapDocument::coverageChanged, this, &LayersPanel::refresh);
    connect(document, &MapDocument::mapLoaded, this, &LayersPanel::refresh);
    refresh();
}

void LayersPanel::fillRow(QTreeWidgetItem* item, const LayerRow& row) const {
    item->setText(0, row.name);
    item->setIcon(0, swatch(row.colour));
    item->setCheckState(0, mDocument->layerVisible(row.name) ? Qt::Checked : Qt::Unchecked);
    item->setText(1, QString("%1 %").arg(row.fraction * 100.0, 0, 'f', 1));
    item->setToolTip(
        1,
        tr("%1 cells, %2 m² of the selected tiles").arg(row.coverage.cells).arg(row.coverage.squareMetres, 0, 'f', 0));
    if (row.derived) item->setToolTip(0, row.expression + (row.fromRules ? tr("\n(from the rules)") : QString()));
}

QTreeWidgetItem* LayersPanel::item(const QString& name) const {
    for (QTreeWidgetItemIterator it(mTree); *it; ++it) {
        if ((*it)->data(0, Qt::UserRole).toString() == name) return *it;
    }
    return nullptr;
}

void LayersPanel::refresh() {
    mRefreshing = true;
    // Visibility and coverage changes arrive from inside the tree's own itemChanged signal: the
    // items must survive them (QTreeWidget touches the item after emitting), so a refresh with
    // the same layers updates the rows in place and only a new set of layers rebuilds the tree.
    const auto& rows = mDocument->layerRows();
    std::vector<QTreeWidgetItem*> existing;
    for (QTreeWidgetItemIterator it(mTree); *it; ++it) {
        if ((*it)->data(0, Qt::UserRole + 1).isValid()) existing.push_back(*it);
    }
    bool same = existing.size() == rows.size() && mOverlay->count() == int(rows.size()) + 1;
    for (std::size_t i = 0; same && i < rows.size(); ++i) {
        same = existing[i]->data(0, Qt::UserRole).toString() == rows[i].name;
    }
    if (same) {
        for (std::size_t i = 0; i < rows.size(); ++i) fillRow(existing[i], rows[i]);
        const int overlay = mOverlay->findData(mDocument->overlay());
        mOverlay->setCurrentIndex(overlay < 0 ? 0 : overlay);
        mRefreshing = false;
        return;
    }
    const QString current = mTree->currentItem() ? mTree->currentItem()->data(0, Qt::UserRole).toString() : QString();
    mTree->clear();
    mOverlay->clear();
    mOverlay->addItem(tr("(none)"));
    std::vector<QTreeWidgetItem*> items(rows.size(), nullptr);
    QTreeWidgetItem* derivedRoot = nullptr;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const LayerRow& row = rows[i];
        QTreeWidgetItem* parent = nullptr;
        if (row.parent >= 0 && std::size_t(row.parent) < items.size()) parent = items[std::size_t(row.parent)];
        if (row.derived) {
            if (!derivedRoot) {
                derivedRoot = new QTreeWidgetItem(mTree, {tr("Derived layers")});
                derivedRoot->setFlags(Qt::ItemIsEnabled);
            }
            parent = derivedRoot;
        }
        auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(mTree);
        item->setData(0, Qt::UserRole, row.name);
        item->setData(0, Qt::UserRole + 1, int(i));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        fillRow(item, row);
        items[i] = item;
        mOverlay->addItem(swatch(row.colour), row.name, row.name);
    }
    mTree->expandAll();
    const int overlay = mOverlay->findData(mDocument->overlay());
    mOverlay->setCurrentIndex(overlay < 0 ? 0 : overlay);
    if (QTreeWidgetItem* again = item(current)) mTree->setCurrentItem(again);
    mRefreshing = false;
}

}  // namespace terrabit::ui
