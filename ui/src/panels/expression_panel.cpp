#include "terrabit/ui/panels/expression_panel.h"

#include <QColorDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "terrabit/core/algebra/compose.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/panels/expression_editor.h"
#include "terrabit/ui/panels/layer_name_validator.h"

namespace terrabit::ui {

struct ExpressionPanel::Result {
    std::uint64_t generation = 0;
    bool ok = false;
    std::string message;                             ///< when !ok and the diagnostic has no position
    core::algebra::ExpressionDiagnostic diagnostic;  ///< line 0 when it compiled
    core::algebra::AreaCoverage coverage;
    std::size_t tiles = 0;
    QImage image;  ///< one pixel per cell
    QImage shown;  ///< `image` scaled to the label, made on the worker: smooth scaling of a
                   ///< whole-city picture would stall the UI thread
};

namespace {

QIcon colourIcon(const QColor& c) {
    QPixmap pm(16, 16);
    pm.fill(c);
    return QIcon(pm);
}

/// What a preview evaluation reads, copied on the UI thread.
struct PreviewInput {
    LayerStack layers;  ///< shares the document's bits
    std::vector<core::TileId> tiles;
    std::string text;
    std::uint64_t seed = 0;
    std::vector<std::pair<int, QColor>> background;  ///< base layers drawn faint: layer, colour
    QColor colour;                                   ///< the result's colour
    QSize box;                                       ///< the label's size, pixels
};

/// Runs on the preview worker: compiles and evaluates the expression, then draws the selected
/// tiles laid out as on the map, one pixel per cell, the map's base layers faint underneath
/// and the result on top. Stops early (an empty result) once `latest` moves past `generation`.
std::shared_ptr<ExpressionPanel::Result> evaluatePreview(const PreviewInput& in, std::uint64_t generation,
                                                         const std::atomic<std::uint64_t>& latest) {
    auto out = std::make_shared<ExpressionPanel::Result>();
    out->generation = generation;
    const auto stale = [&] { return latest.load(std::memory_order_relaxed) != generation; };
    core::algebra::ComposeOptions options;
    options.seed = in.seed;
    // One thread: the worker is already off the UI thread, and the cores are the bake's too.
    options.threads = 1;
    auto result = core::algebra::compose(
        in.layers, in.tiles, in.text, options, [&](double, std::string_view) { return !stale(); }, &out->diagnostic);
    if (!result) {
        out->message = result.message();
        return out;
    }
    out->ok = true;
    out->coverage = result->total;
    out->tiles = in.tiles.size();

    std::uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
    for (const core::TileId& t : in.tiles) {
        x0 = std::min(x0, t.x);
        y0 = std::min(y0, t.y);
        x1 = std::max(x1, t.x);
        y1 = std::max(y1, t.y);
    }
    const std::uint32_t w = std::min<std::uint32_t>(x1 - x0 + 1, 16), h = std::min<std::uint32_t>(y1 - y0 + 1, 16);
    QImage image(int(w) * 256, int(h) * 256, QImage::Format_ARGB32_Premultiplied);
    image.fill(QColor(0xf4, 0xf2, 0xee));
    const QRgb on = in.colour.rgb();
    for (std::size_t i = 0; i < in.tiles.size(); ++i) {
        if (stale()) return out;
        const core::TileId& t = in.tiles[i];
        if (t.x - x0 >= w || t.y - y0 >= h) continue;
        const int ox = int(t.x - x0) * 256, oy = int(t.y - y0) * 256;
        for (const auto& [layer, c] : in.background) {
            const core::BitTile* bits = in.layers.tile(t, layer);
            if (!bits) continue;
            const QRgb faint = qRgb((c.red() + 3 * 0xf4) / 4, (c.green() + 3 * 0xf2) / 4, (c.blue() + 3 * 0xee) / 4);
            bits->forEachSetCell(
                [&](int x, int y) { reinterpret_cast<QRgb*>(image.scanLine(oy + y))[ox + x] = faint; });
        }
        result->masks[i].forEachSetCell(
            [&](int x, int y) { reinterpret_cast<QRgb*>(image.scanLine(oy + y))[ox + x] = on; });
    }
    {
        QPainter p(&image);
        p.setPen(QPen(QColor(30, 136, 229), 2));
        for (const core::TileId& t : in.tiles) {
            if (t.x - x0 < w && t.y - y0 < h) p.drawRect(int(t.x - x0) * 256, int(t.y - y0) * 256, 255, 255);
        }
    }
    out->shown = image.scaled(in.box, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    out->image = std::move(image);
    return out;
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
    mName->setValidator(new LayerNameValidator(mName));
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
    connect(mEditor, &QPlainTextEdit::textChanged, this, &ExpressionPanel::supersede);
    mBusyHint.setSingleShot(true);
    mBusyHint.setInterval(150);
    connect(&mBusyHint, &QTimer::timeout, this, [this] {
        mStatus->setText(tr("Evaluating on %n tile(s)…", nullptr, int(mDocument->selection().size())));
        mStatus->setStyleSheet("color: #616161");
    });
    mPool.setMaxThreadCount(1);
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
        supersede();
    });
    connect(document, &MapDocument::selectionChanged, this, &ExpressionPanel::supersede);
    refreshNames();
    updatePreview();
}

ExpressionPanel::~ExpressionPanel() {
    // The worker stops at its next tile; mPool's destructor then waits for it.
    mLatest->store(++mGeneration);
}

QString ExpressionPanel::statusText() const { return mStatus->text(); }

void ExpressionPanel::refreshNames() {
    QStringList names;
    for (const std::string& n : mDocument->layers().layerNames()) names << QString::fromStdString(n);
    mEditor->setLayerNames(names);
}

void ExpressionPanel::supersede() {
    ++mGeneration;
    mLatest->store(mGeneration);
    mDebounce.start();
}

void ExpressionPanel::updatePreview() {
    mDebounce.stop();
    // A direct call is an edit of its own: whatever runs is for an older state.
    const std::uint64_t generation = ++mGeneration;
    mLatest->store(generation);
    const std::string text = mEditor->text().toStdString();
    const auto& tiles = mDocument->selection();
    auto answerNow = [&](const QString& message) {
        mShownGeneration = generation;
        mBusyHint.stop();
        mPreview = QImage();
        mCoverage = {};
        mStatus->setText(message);
        mStatus->setStyleSheet({});
        mImageLabel->clear();
        emit previewUpdated(false);
    };
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        mEditor->setDiagnostic({});
        answerNow(tr("Type an expression over the layers; the result on the selected tiles shows here."));
        return;
    }
    if (!mDocument->hasMap() || tiles.empty()) {
        answerNow(tr("Select tiles in the map to preview the expression."));
        return;
    }

    // Everything the worker reads is copied or shared here: the document may replace its layers
    // (a new map, a saved layer) while the worker runs.
    PreviewInput in;
    in.layers = mDocument->layers();
    in.tiles = tiles;
    in.text = text;
    in.seed = mDocument->project().seed;
    const auto& rows = mDocument->layerRows();
    for (int l = 0; l < in.layers.baseCount() && l < int(rows.size()); ++l) {
        if (rows[std::size_t(l)].parent < 0) in.background.push_back({l, rows[std::size_t(l)].colour});
    }
    in.colour = mLayerColour.darker(115);
    in.box = mImageLabel->size().expandedTo(QSize(160, 160));
    auto* watcher = new QFutureWatcher<std::shared_ptr<Result>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        watcher->deleteLater();
        const std::shared_ptr<Result> r = watcher->result();
        // A stale result (a newer edit came while it ran) is dropped unseen.
        if (r->generation == mGeneration) showResult(*r);
    });
    watcher->setFuture(QtConcurrent::run(&mPool, [in = std::move(in), generation, latest = mLatest] {
        return evaluatePreview(in, generation, *latest);
    }));
    mBusyHint.start();
}

void ExpressionPanel::showResult(const Result& r) {
    mShownGeneration = r.generation;
    mBusyHint.stop();
    mEditor->setDiagnostic(r.diagnostic);
    if (!r.ok) {
        mPreview = QImage();
        mCoverage = {};
        const auto& d = r.diagnostic;
        const QString where = d.line > 0 ? tr("line %1, column %2: ").arg(d.line).arg(d.column) : QString();
        mStatus->setText(where + QString::fromStdString(d.line > 0 ? d.what : r.message));
        mStatus->setStyleSheet("color: #c62828");
        emit previewUpdated(false);
        return;
    }
    mPreview = r.image;
    mCoverage = r.coverage;
    const double fraction = double(mCoverage.cells) / (65536.0 * double(r.tiles));
    mStatus->setText(tr("%1 % of %2 tiles · %3 cells · %4 m²")
                         .arg(fraction * 100.0, 0, 'f', 2)
                         .arg(r.tiles)
                         .arg(mCoverage.cells)
                         .arg(mCoverage.squareMetres, 0, 'f', 0));
    mStatus->setStyleSheet({});
    mImageLabel->setPixmap(QPixmap::fromImage(r.shown));
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
