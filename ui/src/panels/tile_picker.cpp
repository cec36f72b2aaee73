#include "terrabit/ui/panels/tile_picker.h"

#include <QFontMetrics>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/panels/tile_list_model.h"

namespace terrabit::ui {

TilePicker::TilePicker(MapDocument* document, QWidget* parent) : QWidget(parent), mDocument(document) {
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    mZoom = new QSpinBox(this);
    mZoom->setRange(0, 20);
    mZoom->setValue(document->project().zoom);
    mZoom->setToolTip(tr("Tile zoom level: a zoom-17 cell is about 1.19 m × cos(latitude)"));
    mZoom->setKeyboardTracking(false);
    form->addRow(tr("Zoom"), mZoom);
    mQuadkey = new QLineEdit(this);
    mQuadkey->setPlaceholderText(tr("quadkey, e.g. 1202230303022112"));
    mQuadkey->setClearButtonEnabled(true);
    mQuadkey->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-3 ]{0,31}"), mQuadkey));
    auto* go = new QPushButton(tr("Go"), this);
    auto* row = new QHBoxLayout;
    row->addWidget(mQuadkey, 1);
    row->addWidget(go);
    form->addRow(tr("Quadkey"), row);
    layout->addLayout(form);
    mMessage = new QLabel(this);
    mMessage->setWordWrap(true);
    mMessage->setStyleSheet("color: #c62828");
    mMessage->hide();
    layout->addWidget(mMessage);

    mModel = new TileListModel(document, this);
    mTable = new QTableView(this);
    mTable->setModel(mModel);
    // Fixed column widths: sizing to contents would format every row of the selection.
    QHeaderView* header = mTable->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(true);
    const int figureWidth = fontMetrics().horizontalAdvance(tr("Blocked")) + 12;
    for (int c = TileListModel::PlacedColumn; c < TileListModel::ColumnCount; ++c)
        header->resizeSection(c, figureWidth);
    header->resizeSection(TileListModel::CoverageColumn, TileListModel::barSize().width() + 12);
    fitQuadkeyColumn();
    mTable->setIconSize(TileListModel::barSize());
    mTable->verticalHeader()->hide();
    mTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    mTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    mTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    mTable->setWordWrap(false);
    header->setSortIndicator(-1, Qt::AscendingOrder);
    mTable->setSortingEnabled(true);
    mTable->setToolTip(tr("Double-click a tile to go there; click a heading to sort"));
    layout->addWidget(mTable, 1);

    connect(mZoom, &QSpinBox::valueChanged, this, [this](int z) { mDocument->setZoom(z); });
    connect(mQuadkey, &QLineEdit::returnPressed, this, [this] { goToQuadkey(mQuadkey->text()); });
    connect(go, &QPushButton::clicked, this, [this] { goToQuadkey(mQuadkey->text()); });
    connect(mTable, &QTableView::doubleClicked, this,
            [this](const QModelIndex& index) { emit goToTile(mModel->tileAt(index.row())); });
    connect(document, &MapDocument::selectionChanged, mModel, &TileListModel::selectionChanged);
    connect(document, &MapDocument::sceneChanged, mModel, &TileListModel::figuresChanged);
    connect(document, &MapDocument::layersChanged, mModel, &TileListModel::coverageChanged);
    connect(document, &MapDocument::mapLoaded, this, [this] {
        const QSignalBlocker block(mZoom);
        mZoom->setValue(mDocument->project().zoom);
        fitQuadkeyColumn();
        mModel->selectionChanged();
    });
}

void TilePicker::fitQuadkeyColumn() {
    // A quadkey has one digit per zoom level.
    const QFontMetrics metrics(mModel->quadkeyFont());
    const int digits = std::max(1, mDocument->project().zoom);
    mTable->horizontalHeader()->resizeSection(TileListModel::TileColumn,
                                              metrics.horizontalAdvance(QString(digits, '0')) + 10);
}

QString TilePicker::message() const { return mMessage->isVisible() ? mMessage->text() : QString(); }

bool TilePicker::goToQuadkey(const QString& text) {
    const QString key = text.simplified().remove(' ');
    auto tile = core::TileId::fromQuadkey(key.toStdString());
    if (!tile || key.isEmpty()) {
        mMessage->setText(key.isEmpty() ? tr("Type a quadkey: digits 0 to 3, one per zoom level")
                                        : QString::fromStdString(tile.message()));
        mMessage->show();
        return false;
    }
    mMessage->hide();
    emit goToTile(*tile);
    return true;
}

}  // namespace terrabit::ui
