#include "terrabit/ui/expression_panel.h"

#include <QColorDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

#include "terrabit/core/algebra/compose.h"
#include "terrabit/ui/expression_editor.h"
#include "terrabit/ui/map_document.h"

namespace terrabit::ui {

namespace {

QIcon colourIcon(const QColor& c) {
    QPixmap pm(16, 16);
    pm.fill(c);
    return QIcon(pm);
}

}  // namespace

ExpressionPanel::ExpressionPanel(MapDocument* document, QWidget* parent) : QWidget(parent), mDocument(document) {
    auto* layout = new QVBoxLayout(this);
    mEditor = new ExpressionEditor(this);
    mEditor->setPlaceholderText(tr("e.g.  vegetation & ~dilate(road, 2m) & random(0.4)"));
    mEditor->setMinimumHeight(60);
    mEditor->setMaximumHeight(110);
    layout->addWidget(mEditor);
    mStatus = new QLabel(this);
    mStatus->setWordWrap(true);
    mStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(mStatus);
    mImageLabel = new QLabel(this);
    mImageLabel->setMinimumSize(160, 160);
    mImageLabel->setAlignment(Qt::AlignCenter);
    mImageLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    layout->addWidget(mImageLabel, 1);

    auto* row = new QHBoxLayout;
    mName = new QLineEdit(this);
    mName->setPlaceholderText(tr("layer name"));
    mName->setValidator(new QRegularExpressionValidator(QRegularExpression("[a-z_][a-z0-9_]*"), mName));
    mColour = new QToolButton(this);
    mColour->setIcon(colourIcon(mLayerColour));
    mColour->setToolTip(tr("The layer's colour"));
    mSave = new QPushButton(tr("Save as layer"), this);
    row->addWidget(mName, 1);
    row->addWidget(mColour);
    row->addWidget(mSave);
    layout->addLayout(row);

    mDebounce.setSingleShot(true);
    mDebounce.setInterval(kDebounceMs);
    connect(&mDebounce, &QTimer::timeout, this, &ExpressionPanel::updatePreview);
    connect(mEditor, &QPlainTextEdit::textChanged, this, [this] { mDebounce.start(); });
    connect(mSave, &QPushButton::clicked, this, &ExpressionPanel::saveAsLayer);
    connect(mColour, &QToolButton::clicked, this, [this] {
        const QColor c = QColorDialog::getColor(mLayerColour, this, tr("Layer colour"));
        if (c.isValid()) {
            mLayerColour = c;
            mColour->setIcon(colourIcon(c));
        }
    });
    connect(document, &MapDocument::layersChanged, this, [this] {
        refreshNames();
        mDebounce.start();
    });
    connect(document, &MapDocument::selectionChanged, this, [this] { mDebounce.start(); });
    refreshNames();
    updatePreview();
}

QString ExpressionPanel::statusText() const { return mStatus->text(); }

void ExpressionPanel::refreshNames() {
    QStringList names;
    for (const std::string& n : mDocument->layers().layerNames()) names << QString::fromStdString(n);
    mEditor->setLayerNames(names);
}

void ExpressionPanel::updatePreview() {
    mDebounce.stop();
    const std::string text = mEditor->text().toStdString();
    const auto& tiles = mDocument->selection();
    mPreview = QImage();
    mCoverage = {};
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        mEditor->setDiagnostic({});
        mStatus->setText(tr("Type an expression over the layers; the result on the selected tiles shows here."));
        mStatus->setStyleSheet({});
        mImageLabel->clear();
        emit previewUpdated(false);
        return;
    }
    if (!mDocument->hasMap() || tiles.empty()) {
        mStatus->setText(tr("Select tiles in the map to preview the expression."));
        mImageLabel->clear();
        emit previewUpdated(false);
        return;
    }
    core::algebra::ComposeOptions options;
    options.seed = mDocument->project().seed;
    core::algebra::ExpressionDiagnostic diagnostic;
    auto result = core::algebra::compose(mDocument->layers(), tiles, text, options, {}, &diagnostic);
    if (!result) {
        mEditor->setDiagnostic(diagnostic);
        const QString where =
            diagnostic.line > 0 ? tr("line %1, column %2: ").arg(diagnostic.line).arg(diagnostic.column) : QString();
        mStatus->setText(where + QString::fromStdString(diagnostic.line > 0 ? diagnostic.what : result.message()));
        mStatus->setStyleSheet("color: #c62828");
        emit previewUpdated(false);
        return;
    }
    mEditor->setDiagnostic({});
    mCoverage = result->total;
    const double fraction = double(mCoverage.cells) / (65536.0 * double(tiles.size()));
    mStatus->setText(tr("%1 % of %2 tiles · %3 cells · %4 m²")
                         .arg(fraction * 100.0, 0, 'f', 2)
                         .arg(tiles.size())
                         .arg(mCoverage.cells)
                         .arg(mCoverage.squareMetres, 0, 'f', 0));
    mStatus->setStyleSheet({});

    // The selected tiles laid out as on the map, one pixel per cell: the map's buildings and
    // roads faint underneath, the result on top.
    std::uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
    for (const core::TileId& t : tiles) {
        x0 = std::min(x0, t.x);
        y0 = std::min(y0, t.y);
        x1 = std::max(x1, t.x);
        y1 = std::max(y1, t.y);
    }
    const std::uint32_t w = std::min<std::uint32_t>(x1 - x0 + 1, 16), h = std::min<std::uint32_t>(y1 - y0 + 1, 16);
    mPreview = QImage(int(w) * 256, int(h) * 256, QImage::Format_ARGB32_Premultiplied);
    mPreview.fill(QColor(0xf4, 0xf2, 0xee));
    const LayerStack& layers = mDocument->layers();
    const auto& rows = mDocument->layerRows();
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const core::TileId& t = tiles[i];
        if (t.x - x0 >= w || t.y - y0 >= h) continue;
        const int ox = int(t.x - x0) * 256, oy = int(t.y - y0) * 256;
        for (int l = 0; l < layers.baseCount() && l < int(rows.size()); ++l) {
            const core::BitTile* bits = layers.tile(t, l);
            if (!bits || rows[std::size_t(l)].parent >= 0) continue;
            const QColor c = rows[std::size_t(l)].colour;
            const QRgb faint = qRgb((c.red() + 3 * 0xf4) / 4, (c.green() + 3 * 0xf2) / 4, (c.blue() + 3 * 0xee) / 4);
            bits->forEachSetCell(
                [&](int x, int y) { reinterpret_cast<QRgb*>(mPreview.scanLine(oy + y))[ox + x] = faint; });
        }
        const QRgb on = mLayerColour.darker(115).rgb();
        result->masks[i].forEachSetCell(
            [&](int x, int y) { reinterpret_cast<QRgb*>(mPreview.scanLine(oy + y))[ox + x] = on; });
    }
    {
        QPainter p(&mPreview);
        p.setPen(QPen(QColor(30, 136, 229), 2));
        for (const core::TileId& t : tiles) {
            if (t.x - x0 < w && t.y - y0 < h) p.drawRect(int(t.x - x0) * 256, int(t.y - y0) * 256, 255, 255);
        }
    }
    const QSize box = mImageLabel->size().expandedTo(QSize(160, 160));
    mImageLabel->setPixmap(QPixmap::fromImage(mPreview.scaled(box, Qt::KeepAspectRatio, Qt::SmoothTransformation)));
    emit previewUpdated(true);
}

bool ExpressionPanel::saveAsLayer() {
    const QString name = mName->text().trimmed();
    if (name.isEmpty()) {
        mStatus->setText(tr("Give the layer a name first."));
        mStatus->setStyleSheet("color: #c62828");
        return false;
    }
    core::project::DerivedLayer layer;
    layer.name = name.toStdString();
    layer.text = mEditor->text().trimmed().toStdString();
    layer.colour = mLayerColour.name().toStdString();
    if (core::Status s = mDocument->addDerivedLayer(layer); !s) {
        mStatus->setText(QString::fromStdString(s.message()));
        mStatus->setStyleSheet("color: #c62828");
        return false;
    }
    mStatus->setText(tr("Saved as layer '%1'.").arg(name));
    mStatus->setStyleSheet("color: #2e7d32");
    return true;
}

}  // namespace terrabit::ui
