#include "terrabit/ui/views/map_view.h"

#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/views/layer_image.h"
#include "terrabit/ui/views/probe_tool.h"

namespace terrabit::ui {

namespace {

quint64 tileKey(const core::TileId& t) { return (quint64(t.x) << 32) | t.y; }

constexpr double kMinPixelsPerCell = 1.0 / 4096.0;
/// Milliseconds a paint may spend making tile pictures.
constexpr qint64 kImageBudgetMs = 20;
constexpr double kMaxPixelsPerCell = 16.0;
const QColor kBackground(0xe9, 0xe6, 0xdf);
const QColor kSelection(0x1e, 0x88, 0xe5);

}  // namespace

MapView::MapView(MapDocument* document, QWidget* parent) : QWidget(parent), mDocument(document) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 200);
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(document, &MapDocument::mapLoaded, this, [this] {
        invalidateImages();
        mTarget.reset();
        const auto& v = mDocument->project().mapView;
        if (v.metresPerPixel > 0.0) {
            setViewState(v);
        } else {
            // A project opens on its tiles, where the work is; a bare map shows all of itself.
            mFitPending = Fit::Selection;
            fitPending();
        }
    });
    connect(document, &MapDocument::layersChanged, this, [this] {
        invalidateImages();
        update();
    });
    connect(document, &MapDocument::selectionChanged, this, qOverload<>(&QWidget::update));
    connect(document, &MapDocument::sceneChanged, this, qOverload<>(&QWidget::update));
}

void MapView::setProbeTool(ProbeTool* tool) {
    mProbe = tool;
    connect(tool, &ProbeTool::changed, this, qOverload<>(&QWidget::update));
    connect(tool, &ProbeTool::activeChanged, this,
            [this](bool on) { setCursor(on ? Qt::CrossCursor : Qt::ArrowCursor); });
}

// -- coordinates ------------------------------------------------------------------------------------

core::Vec2 MapView::widgetToCell(QPointF p) const {
    return {mCentre.x + (p.x() - width() / 2.0) / mPixelsPerCell,
            mCentre.y + (p.y() - height() / 2.0) / mPixelsPerCell};
}

QPointF MapView::cellToWidget(core::Vec2 c) const {
    return {(c.x - mCentre.x) * mPixelsPerCell + width() / 2.0, (c.y - mCentre.y) * mPixelsPerCell + height() / 2.0};
}

std::optional<core::TileId> MapView::tileAt(QPointF p) const {
    const core::Vec2 c = widgetToCell(p);
    const int zoom = mDocument->project().zoom;
    const double side = std::ldexp(1.0, zoom);
    const double tx = std::floor(c.x / core::kTileCells), ty = std::floor(c.y / core::kTileCells);
    if (tx < 0 || ty < 0 || tx >= side || ty >= side) return std::nullopt;
    return core::TileId{zoom, static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty)};
}

QRectF MapView::tileRect(const core::TileId& t) const {
    // A tile of another zoom covers 2^(zoom - t.zoom) tiles of ours on a side.
    const double scale = std::ldexp(1.0, mDocument->project().zoom - t.zoom) * core::kTileCells;
    const QPointF a = cellToWidget({t.x * scale, t.y * scale});
    const QPointF b = cellToWidget({(t.x + 1.0) * scale, (t.y + 1.0) * scale});
    return QRectF(a, b);
}

double MapView::cellsPerMercatorMetre() const {
    return 1.0 / core::GroundFrame{{}, mDocument->project().zoom}.cellSizeMercator();
}

void MapView::fitMercator(const core::Box2& box) {
    if (box.empty() || width() <= 0 || height() <= 0) return;
    const core::GroundFrame frame{{}, mDocument->project().zoom};
    const core::Vec2 a = frame.mercatorToCell(box.min), b = frame.mercatorToCell(box.max);
    mCentre = {(a.x + b.x) / 2, (a.y + b.y) / 2};
    const double w = std::max(std::abs(b.x - a.x), 1.0), h = std::max(std::abs(b.y - a.y), 1.0);
    mPixelsPerCell = std::clamp(std::min(width() / w, height() / h) * 0.92, kMinPixelsPerCell, kMaxPixelsPerCell);
    emit viewChanged();
    update();
}

void MapView::fitMap() {
    if (!mDocument->hasMap()) return;
    core::Box2 box;
    // The tiles with content: the extent may be much larger (a maritime border).
    for (const core::TileId& t : mDocument->layers().tiles()) {
        const core::Box2 b = t.boundsMercator();
        box.extend(b.min);
        box.extend(b.max);
    }
    if (box.empty()) box = mDocument->extentMercator();
    fitMercator(box);
    mFitPending = width() <= 0 ? Fit::Map : Fit::None;
}

void MapView::fitSelection() {
    const auto& tiles = mDocument->selection();
    if (tiles.empty()) {
        fitMap();
        return;
    }
    core::Box2 box;
    for (const core::TileId& t : tiles) {
        box.extend(t.boundsMercator().min);
        box.extend(t.boundsMercator().max);
    }
    const double grow = tiles.front().boundsMercator().width();
    box.min = box.min - core::Vec2{grow, grow};
    box.max = box.max + core::Vec2{grow, grow};
    fitMercator(box);
    mFitPending = width() <= 0 ? Fit::Selection : Fit::None;
}

void MapView::fitPending() {
    if (!mDocument->hasMap()) return;
    switch (mFitPending) {
        case Fit::Map:
            fitMap();
            break;
        case Fit::Selection:
            fitSelection();
            break;
        case Fit::None:
            break;
    }
}

void MapView::goToTile(const core::TileId& tile) {
    mTarget = tile;
    core::Box2 box = tile.boundsMercator();
    // Keep the neighbours in view so the tile is seen in its context.
    const double grow = box.width() * 0.6;
    box.min = box.min - core::Vec2{grow, grow};
    box.max = box.max + core::Vec2{grow, grow};
    fitMercator(box);
}

core::project::MapView MapView::viewState() const {
    const core::GroundFrame frame{{}, mDocument->project().zoom};
    core::project::MapView v;
    v.centre = frame.cellToLonLat(mCentre);
    v.metresPerPixel = frame.cellSizeMercator() / mPixelsPerCell;
    return v;
}

void MapView::setViewState(const core::project::MapView& v) {
    const core::GroundFrame frame{{}, mDocument->project().zoom};
    mCentre = frame.lonLatToCell(v.centre);
    if (v.metresPerPixel > 0.0) {
        mPixelsPerCell = std::clamp(frame.cellSizeMercator() / v.metresPerPixel, kMinPixelsPerCell, kMaxPixelsPerCell);
    }
    mFitPending = Fit::None;
    emit viewChanged();
    update();
}

void MapView::zoomBy(double factor, QPointF anchor) {
    const core::Vec2 before = widgetToCell(anchor);
    mPixelsPerCell = std::clamp(mPixelsPerCell * factor, kMinPixelsPerCell, kMaxPixelsPerCell);
    const core::Vec2 after = widgetToCell(anchor);
    // Keep the cell under the pointer where it was.
    mCentre = mCentre + (before - after);
    emit viewChanged();
    update();
}

void MapView::panPixels(QPointF delta) {
    mCentre = mCentre - core::Vec2{delta.x() / mPixelsPerCell, delta.y() / mPixelsPerCell};
    emit viewChanged();
    update();
}

// -- images -----------------------------------------------------------------------------------------

void MapView::invalidateImages() {
    mImages.clear();
    mOverlayImages.clear();
    mOverlayName = mDocument->overlay();
}

void MapView::useImageSide(double tilePixels) {
    // Images are kept at the next power of two above the size they are drawn at (16..256
    // pixels): zoomed out over a large map, full 256 × 256 images (256 KiB each) of thousands of
    // tiles took most of a gigabyte for pictures a few pixels wide.
    int side = 16;
    while (side < core::kTileCells && side < tilePixels) side *= 2;
    // At most ~64 MiB of images: more than twice what fills a large screen at any side.
    const qsizetype limit = (64 << 20) / (qsizetype(side) * side * 4);
    if (side != mImageSide || mImages.size() > limit || mOverlayImages.size() > limit) {
        mImages.clear();
        mOverlayImages.clear();
        mImageSide = side;
    }
}

qsizetype MapView::imageBytes() const {
    qsizetype bytes = 0;
    for (const QImage& i : mImages) bytes += i.sizeInBytes();
    for (const QImage& i : mOverlayImages) bytes += i.sizeInBytes();
    return bytes;
}

QImage MapView::atImageSide(QImage image) const {
    if (image.isNull() || image.width() <= mImageSide) return image;
    return image.scaled(mImageSide, mImageSide, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
}

bool MapView::hasImages(const core::TileId& tile) const {
    const quint64 key = tileKey(tile);
    return mImages.contains(key) && (mOverlayName.isEmpty() || mOverlayImages.contains(key));
}

const QImage& MapView::tileImage(const core::TileId& tile) {
    const quint64 key = tileKey(tile);
    auto it = mImages.find(key);
    if (it != mImages.end()) return *it;
    return *mImages.insert(key, atImageSide(tileComposite(*mDocument, tile, kBackground)));
}

const QImage* MapView::overlayImage(const core::TileId& tile) {
    if (mOverlayName.isEmpty()) return nullptr;
    const quint64 key = tileKey(tile);
    auto it = mOverlayImages.find(key);
    if (it == mOverlayImages.end()) it = mOverlayImages.insert(key, atImageSide(tileOverlay(*mDocument, tile, 170)));
    return it->isNull() ? nullptr : &*it;
}

// -- painting ---------------------------------------------------------------------------------------

void MapView::paintEvent(QPaintEvent*) {
    fitPending();
    QPainter p(this);
    p.fillRect(rect(), QColor(0xcf, 0xcc, 0xc4));
    if (!mDocument->hasMap()) {
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(rect(), Qt::AlignCenter, tr("No map: open a project or a map file (File ▸ Open)"));
        return;
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform, mPixelsPerCell < 1.0);
    const QRectF view = rect();
    useImageSide(core::kTileCells * mPixelsPerCell);
    // Tile pictures not made yet are made within a time budget per paint; the rest show bare
    // until the next paint, queued at once, so a view of thousands of new tiles never blocks
    // the UI thread for long.
    QElapsedTimer budget;
    budget.start();
    bool missing = false;
    for (const core::TileId& t : mDocument->layers().tiles()) {
        const QRectF r = tileRect(t);
        if (!r.intersects(view)) continue;
        if (budget.elapsed() >= kImageBudgetMs && !hasImages(t)) {
            p.fillRect(r, kBackground);
            missing = true;
            continue;
        }
        p.drawImage(r, tileImage(t));
        if (const QImage* overlay = overlayImage(t)) p.drawImage(r, *overlay);
    }
    if (missing) QTimer::singleShot(0, this, qOverload<>(&QWidget::update));

    // The tile grid at the project's zoom, over what is in view.
    const double tilePixels = core::kTileCells * mPixelsPerCell;
    const int zoom = mDocument->project().zoom;
    if (tilePixels >= 12.0) {
        const core::Vec2 a = widgetToCell({0, 0}), b = widgetToCell({double(width()), double(height())});
        const double side = std::ldexp(1.0, zoom);
        const int tx0 = static_cast<int>(std::max(0.0, std::floor(a.x / 256))),
                  tx1 = static_cast<int>(std::min(side - 1, std::floor(b.x / 256)));
        const int ty0 = static_cast<int>(std::max(0.0, std::floor(a.y / 256))),
                  ty1 = static_cast<int>(std::min(side - 1, std::floor(b.y / 256)));
        p.setPen(QPen(QColor(60, 60, 60, 90), 1));
        for (int tx = tx0; tx <= tx1 + 1; ++tx) {
            const double x = cellToWidget({tx * 256.0, 0}).x();
            p.drawLine(QPointF(x, 0), QPointF(x, height()));
        }
        for (int ty = ty0; ty <= ty1 + 1; ++ty) {
            const double y = cellToWidget({0, ty * 256.0}).y();
            p.drawLine(QPointF(0, y), QPointF(width(), y));
        }
        if (tilePixels >= 48.0) {
            QFont f = font();
            f.setPointSizeF(std::max(6.5, f.pointSizeF() * 0.8));
            p.setFont(f);
            const QFontMetricsF metrics(f);
            for (int ty = ty0; ty <= ty1; ++ty) {
                for (int tx = tx0; tx <= tx1; ++tx) {
                    const core::TileId t{zoom, std::uint32_t(tx), std::uint32_t(ty)};
                    const QRectF r = tileRect(t).adjusted(4, 2, -4, -2);
                    QString q = QString::fromStdString(t.quadkey());
                    // Too narrow for the whole key: its last digits, which tell neighbours apart
                    // (the hover shows the whole key in the status bar).
                    while (q.size() > 1 && metrics.horizontalAdvance(q) > r.width()) q = "…" + q.right(q.size() - 2);
                    const QRectF text = p.boundingRect(r, Qt::AlignLeft | Qt::AlignTop, q);
                    p.fillRect(text.adjusted(-2, 0, 2, 0), QColor(255, 255, 255, 170));
                    p.setPen(QColor(40, 40, 40));
                    p.drawText(r, Qt::AlignLeft | Qt::AlignTop, q);
                }
            }
        }
    }

    // Selected tiles.
    for (const core::TileId& t : mDocument->selection()) {
        const QRectF r = tileRect(t);
        if (!r.intersects(view)) continue;
        p.fillRect(r, QColor(kSelection.red(), kSelection.green(), kSelection.blue(), 45));
        // Outlines only where tiles are large enough to tell apart: zoomed out over thousands
        // of selected tiles they would hide the map under a lattice of borders.
        if (r.width() < 12.0) continue;
        p.setPen(QPen(kSelection, 2));
        p.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (mHover) {
        p.setPen(QPen(QColor(20, 20, 20, 160), 1, Qt::DashLine));
        p.drawRect(tileRect(*mHover));
    }
    if (mTarget) {
        p.setPen(QPen(QColor(0xd8, 0x1b, 0x60), 3));
        p.drawRect(tileRect(*mTarget));
    }
    if (mDrag == Drag::Select && mMoved) {
        p.setPen(QPen(kSelection, 1, Qt::DashLine));
        p.fillRect(QRectF(mPressPos, mLastPos).normalized(), QColor(30, 136, 229, 40));
        p.drawRect(QRectF(mPressPos, mLastPos).normalized());
    }

    // The probe and the character.
    if (mProbe) {
        p.setRenderHint(QPainter::Antialiasing, true);
        if (const auto& last = mProbe->lastProbe()) {
            const QColor c = last->blocked ? QColor(0xe5, 0x39, 0x35) : QColor(0x43, 0xa0, 0x47);
            p.setPen(QPen(c.darker(130), 2));
            p.setBrush(QColor(c.red(), c.green(), c.blue(), 140));
            if (last->outline.size() == 1) {
                p.drawEllipse(cellToWidget(last->outline[0]), 6, 6);
            } else {
                QPolygonF poly;
                for (const core::Vec2& v : last->outline) poly << cellToWidget(v);
                p.drawPolygon(poly);
            }
        }
        if (const auto ch = mProbe->character()) {
            const double r = std::max(3.0, mProbe->footprint().radius * mPixelsPerCell);
            const bool blocked = mProbe->lastMove().blocked();
            p.setPen(QPen(Qt::black, 1.5));
            p.setBrush(blocked ? QColor(0xff, 0x70, 0x43) : QColor(0xff, 0xeb, 0x3b));
            p.drawEllipse(cellToWidget(*ch), r, r);
        }
        p.setBrush(Qt::NoBrush);
    }
    if (hasFocus()) {
        p.setPen(QPen(palette().color(QPalette::Highlight), 1));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

void MapView::resizeEvent(QResizeEvent*) { fitPending(); }

// -- input --------------------------------------------------------------------------------------------

void MapView::mousePressEvent(QMouseEvent* e) {
    setFocus();
    mPressPos = mLastPos = e->position();
    mMoved = false;
    mPressModifiers = e->modifiers();
    if (e->button() == Qt::RightButton || e->button() == Qt::MiddleButton ||
        (e->button() == Qt::LeftButton && mSpaceHeld)) {
        mDrag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
    } else if (e->button() == Qt::LeftButton) {
        mDrag = mProbe && mProbe->active() ? Drag::Probe : Drag::Select;
    }
}

void MapView::mouseMoveEvent(QMouseEvent* e) {
    const QPointF pos = e->position();
    if ((pos - mPressPos).manhattanLength() > 4) mMoved = true;
    if (mDrag == Drag::Pan) panPixels(pos - mLastPos);
    mLastPos = pos;
    if (mDrag == Drag::Select) update();

    const auto tile = tileAt(pos);
    if (tile != mHover) {
        mHover = tile;
        update();
    }
    if (mDocument->hasMap()) {
        const core::LonLat ll = core::GroundFrame{{}, mDocument->project().zoom}.cellToLonLat(widgetToCell(pos));
        emit hovered(ll.lon, ll.lat, tile ? QString::fromStdString(tile->quadkey()) : QString());
    }
}

void MapView::mouseReleaseEvent(QMouseEvent* e) {
    const Drag drag = mDrag;
    mDrag = Drag::None;
    if (drag == Drag::Pan) {
        setCursor(mProbe && mProbe->active() ? Qt::CrossCursor : Qt::ArrowCursor);
        return;
    }
    if (!mDocument->hasMap() || e->button() != Qt::LeftButton) return;
    const bool shift = (mPressModifiers | e->modifiers()) & Qt::ShiftModifier;
    if (drag == Drag::Probe) {
        const core::Vec2 at = widgetToCell(mPressPos);
        if (mProbe->walking()) {
            mProbe->placeCharacter(at);
        } else if (mMoved && mProbe->shape() == ProbeShape::Rectangle) {
            mProbe->probe(at, widgetToCell(e->position()));
        } else {
            mProbe->probe(at);
        }
        return;
    }
    if (drag != Drag::Select) return;
    std::vector<core::TileId> selection = shift ? mDocument->selection() : std::vector<core::TileId>{};
    if (mMoved) {
        const auto a = tileAt(mPressPos), b = tileAt(e->position());
        if (!a || !b) return;
        for (std::uint32_t y = std::min(a->y, b->y); y <= std::max(a->y, b->y); ++y) {
            for (std::uint32_t x = std::min(a->x, b->x); x <= std::max(a->x, b->x); ++x) {
                selection.push_back(core::TileId{a->zoom, x, y});
            }
        }
        // Sorted once rather than searched per tile: a drag over a country is 10^5 tiles.
        std::sort(selection.begin(), selection.end());
        selection.erase(std::unique(selection.begin(), selection.end()), selection.end());
    } else if (const auto t = tileAt(e->position())) {
        const auto it = std::find(selection.begin(), selection.end(), *t);
        if (shift && it != selection.end()) {
            selection.erase(it);
        } else if (it == selection.end()) {
            selection.push_back(*t);
        }
    }
    mDocument->setSelection(std::move(selection));
    update();
}

void MapView::wheelEvent(QWheelEvent* e) {
    const double steps = e->angleDelta().y() / 120.0;
    if (steps != 0.0) zoomBy(std::pow(1.25, steps), e->position());
    e->accept();
}

void MapView::keyPressEvent(QKeyEvent* e) {
    const double step = std::max(width(), height()) * 0.15;
    if (mProbe && mProbe->walkKey(e->key())) return;
    switch (e->key()) {
        case Qt::Key_Left:
            panPixels({step, 0});
            break;
        case Qt::Key_Right:
            panPixels({-step, 0});
            break;
        case Qt::Key_Up:
            panPixels({0, step});
            break;
        case Qt::Key_Down:
            panPixels({0, -step});
            break;
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomBy(1.25, rect().center());
            break;
        case Qt::Key_Minus:
            zoomBy(0.8, rect().center());
            break;
        case Qt::Key_Home:
            fitMap();
            break;
        case Qt::Key_Space:
            mSpaceHeld = true;
            break;
        case Qt::Key_Escape:
            if (mProbe) mProbe->setActive(false);
            break;
        default:
            QWidget::keyPressEvent(e);
            return;
    }
}

void MapView::keyReleaseEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Space && !e->isAutoRepeat()) mSpaceHeld = false;
    QWidget::keyReleaseEvent(e);
}

void MapView::leaveEvent(QEvent*) {
    mHover.reset();
    update();
}

}  // namespace terrabit::ui
