#include "terrabit/ui/panels/tile_picker.h"

#include <QFontDatabase>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "terrabit/ui/document/map_document.h"

namespace terrabit::ui {

namespace {

/// The layers whose coverage the list draws, when the rules have them.
const char* const kFigureLayers[] = {"building", "road", "vegetation", "water"};
const QSize kBarSize(60, 12);

/// A tile's coverage as one bar: a segment per layer in its colour, as long as its share of the
/// tile (the layers can overlap, so the bar is clipped at the end).
QIcon coverageBar(const std::vector<std::pair<QColor, double>>& segments) {
    QPixmap pm(kBarSize);
    pm.fill(QColor(0xe9, 0xe6, 0xdf));
    QPainter p(&pm);
    double x = 0.0;
    for (const auto& [colour, fraction] : segments) {
        const double w = fraction * kBarSize.width();
        p.fillRect(QRectF(x, 0, w, kBarSize.height()), colour);
        x += w;
    }
    p.setPen(QColor(0x80, 0x80, 0x80));
    p.drawRect(0, 0, kBarSize.width() - 1, kBarSize.height() - 1);
    return QIcon(pm);
}

}  // namespace

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

    mTable = new QTableWidget(0, 5, this);
    mTable->setHorizontalHeaderLabels({tr("Tile"), tr("Coverage"), tr("Placed"), tr("Blocked"), tr("Trees")});
    mTable->horizontalHeaderItem(1)->setToolTip(
        tr("Share of the tile covered by building, road, vegetation and water, in their colours"));
    mTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    mTable->horizontalHeader()->setStretchLastSection(true);
    mTable->setIconSize(kBarSize);
    mQuadkeyFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mQuadkeyFont.setPointSizeF(font().pointSizeF() * 0.85);
    mTable->verticalHeader()->hide();
    mTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    mTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    mTable->setToolTip(tr("Double-click a tile to go there"));
    layout->addWidget(mTable, 1);

    connect(mZoom, &QSpinBox::valueChanged, this, [this](int z) { mDocument->setZoom(z); });
    connect(mQuadkey, &QLineEdit::returnPressed, this, [this] { goToQuadkey(mQuadkey->text()); });
    connect(go, &QPushButton::clicked, this, [this] { goToQuadkey(mQuadkey->text()); });
    connect(mTable, &QTableWidget::cellDoubleClicked, this, [this](int r, int) {
        if (auto t = core::TileId::fromQuadkey(mTable->item(r, 0)->text().toStdString())) emit goToTile(*t);
    });
    connect(document, &MapDocument::selectionChanged, this, &TilePicker::refresh);
    connect(document, &MapDocument::sceneChanged, this, &TilePicker::refresh);
    connect(document, &MapDocument::layersChanged, this, &TilePicker::refresh);
    connect(document, &MapDocument::mapLoaded, this, [this] {
        const QSignalBlocker block(mZoom);
        mZoom->setValue(mDocument->project().zoom);
        refresh();
    });
    refresh();
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

void TilePicker::refresh() {
    const auto figures = mDocument->tileFigures();
    const auto& rows = mDocument->layerRows();
    mTable->setRowCount(static_cast<int>(figures.size()));
    for (int r = 0; r < static_cast<int>(figures.size()); ++r) {
        const TileFigures& f = figures[static_cast<std::size_t>(r)];
        QStringList parts;
        std::vector<std::pair<QColor, double>> segments;
        QString tip = QString::fromStdString(f.tile.quadkey()) + "\n";
        for (std::size_t l = 0; l < rows.size() && l < f.layerFractions.size(); ++l) {
            const double v = f.layerFractions[l];
            tip += QString("%1: %2 %\n").arg(rows[l].name).arg(v * 100.0, 0, 'f', 1);
            for (const char* name : kFigureLayers) {
                if (rows[l].name != name) continue;
                parts << QString("%1 %2 %").arg(rows[l].name).arg(qRound(v * 100));
                segments.emplace_back(rows[l].colour, v);
            }
        }
        tip += QString("buildings: %1 placed, %2 generated, %3 blocked, %4 with no model that fits\n")
                   .arg(f.buildingsPlaced)
                   .arg(f.buildingsGenerated)
                   .arg(f.buildingsBlocked)
                   .arg(f.buildingsUnmatched);
        auto set = [&](int c, const QString& text) {
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(tip.trimmed());
            mTable->setItem(r, c, item);
        };
        set(0, QString::fromStdString(f.tile.quadkey()));
        // Quadkeys are read digit by digit: a fixed-width face, and narrower so every column fits.
        mTable->item(r, 0)->setFont(mQuadkeyFont);
        set(1, QString());
        mTable->item(r, 1)->setIcon(coverageBar(segments));
        // The figures the bar draws, for screen readers and tests.
        mTable->item(r, 1)->setData(Qt::AccessibleTextRole, parts.join(", "));
        set(2, QString::number(f.buildingsPlaced));
        set(3, QString::number(f.buildingsBlocked));
        set(4, QString::number(f.trees));
    }
    mTable->resizeColumnsToContents();
}

}  // namespace terrabit::ui
