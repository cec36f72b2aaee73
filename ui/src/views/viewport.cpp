#include "terrabit/ui/views/viewport.h"

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QTimer>
#include <QWheelEvent>

#include <osgGA/OrbitManipulator>
#include <osgViewer/GraphicsWindow>
#include <osgViewer/Viewer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <span>
#include <unordered_set>

#include "terrabit/render/asset_model.h"
#include "terrabit/render/scene_graph.h"
#include "terrabit/ui/document/bake_batches.h"
#include "terrabit/ui/document/freed_memory.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/views/probe_tool.h"

namespace terrabit::ui {

namespace {

constexpr double kDegrees = 180.0 / std::numbers::pi;
/// The viewport's distance levels (render::DistanceLod), metres from the eye to a tile's centre:
/// prefab buildings as models within about seven zoom-17 tiles, as boxes beyond; plants and
/// props within about two, a quarter of them within four.
constexpr double kFullBuildingsMetres = 1500.0;
constexpr double kFullInstancesMetres = 500.0;
/// The longest the viewport brings tiles into its graph (or re-details them) before it lets the
/// event loop run, milliseconds.
constexpr qint64 kSliceMs = 15;
/// While tiles come in (or are re-detailed), a frame at most this often: on a software renderer
/// a frame of a whole region takes ten times a slice, and a frame after every slice left the
/// loading a tenth of the UI thread (8,541 tiles took almost four minutes to come in).
constexpr qint64 kLoadingFrameMs = 200;
/// The vertical field of view, degrees.
constexpr double kFieldOfViewDegrees = 35.0;
/// The eye moving less than this share of its distance to the target leaves the detail as it is.
constexpr double kDetailMoveShare = 0.05;

/// The scene frame is y-up (x east, z south), but a manipulator keeps the frame's third row as
/// its vertical axis and assumes z: without this, every orbit and every setTransformation()
/// is "fixed" to a z-up horizon and the camera rolls away from the pose it was given.
class YUpFrame : public osgGA::CameraManipulator::CoordinateFrameCallback {
public:
    osg::CoordinateFrame getCoordinateFrame(const osg::Vec3d&) const override {
        // Rows: side (east), front (north, -z), up (+y).
        return osg::CoordinateFrame(1, 0, 0, 0,   //
                                    0, 0, -1, 0,  //
                                    0, 1, 0, 0,   //
                                    0, 0, 0, 1);
    }
};

}  // namespace

Viewport::Viewport(MapDocument* document, ProbeTool* probe, QWidget* parent)
    : QOpenGLWidget(parent),
      mDocument(document),
      mProbe(probe),
      mModelCache(std::make_unique<render::AssetModelCache>()) {
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(240, 200);
    // No alpha in the widget's framebuffer: translucent overlays write alpha below 1, and Qt
    // would then blend the picture with the window behind it (washed-out colours in grabs).
    setTextureFormat(GL_RGB8);
    mHint = new QLabel(this);
    mHint->setAlignment(Qt::AlignCenter);
    mHint->setWordWrap(true);
    mHint->setAttribute(Qt::WA_TransparentForMouseEvents);
    mHint->setStyleSheet("color: #1f3b57; font-size: 14pt;");
    const qreal dpr = devicePixelRatioF();
    mWindow = new osgViewer::GraphicsWindowEmbedded(0, 0, int(width() * dpr), int(height() * dpr));
    mViewer = new osgViewer::Viewer;
    mViewer->setThreadingModel(osgViewer::Viewer::SingleThreaded);
    mViewer->setKeyEventSetsDone(0);  // Escape must not end the viewer inside an application
    // The scene graph brings its own sun on light 0; the viewer's headlight would fight it.
    mViewer->setLightingMode(osg::View::NO_LIGHT);
    osg::Camera* camera = mViewer->getCamera();
    camera->setGraphicsContext(mWindow);
    camera->setViewport(0, 0, int(width() * dpr), int(height() * dpr));
    camera->setClearColor(render::Lighting{}.sky);
    camera->setProjectionMatrixAsPerspective(kFieldOfViewDegrees, double(std::max(1, width())) / std::max(1, height()),
                                             1.0, 50000.0);
    // Instanced and small models must not vanish when far away.
    camera->setCullingMode(camera->getCullingMode() & ~osg::CullSettings::SMALL_FEATURE_CULLING);
    mManipulator = new osgGA::OrbitManipulator;
    mManipulator->setAllowThrow(false);
    mViewer->setCameraManipulator(mManipulator, false);
    // After setCameraManipulator(), which installs the viewer's own (z-up) frame callback.
    mManipulator->setCoordinateFrameCallback(new YUpFrame);
    restyle();

    connect(document, &MapDocument::sceneChanged, this, &Viewport::rebuildScene);
    connect(document, &MapDocument::layersChanged, this, [this] {
        restyle();
        update();
    });
    connect(document, &MapDocument::mapLoaded, this, [this] {
        mHomePending = true;
        updateHint();
    });
    connect(document, &MapDocument::busyChanged, this, &Viewport::updateHint);
    if (probe) {
        connect(probe, &ProbeTool::changed, this, [this] {
            updateMarkers();
            update();
        });
        connect(probe, &ProbeTool::activeChanged, this,
                [this](bool on) { setCursor(on ? Qt::CrossCursor : Qt::ArrowCursor); });
    }
    rebuildScene();
}

Viewport::~Viewport() {
    // The viewer's GL objects die with the context current, or the driver frees the wrong ones.
    makeCurrent();
    mViewer = nullptr;
    mGraph.reset();
    mWindow = nullptr;
    doneCurrent();
}

std::size_t Viewport::modelsShown() const { return mGraph->counts().instances; }

void Viewport::setEveryModel(bool on) {
    if (on == mEveryModel) return;
    mEveryModel = on;
    restyle();
    update();
}

void Viewport::restyle() {
    // The ground paints the visible base layers in the rules' order; a change of visibility
    // needs a new graph (its style is fixed), anything else only an update.
    QStringList visible;
    render::SceneGraphOptions options;
    // Distance levels: full models within a few tiles of the eye, buildings as boxes and plants
    // thinned, then gone, beyond, so a whole-country selection draws like a district (unless
    // every model is asked for, for a close look far off or a picture).
    if (!mEveryModel) options.lod = {kFullBuildingsMetres, kFullInstancesMetres};
    if (const auto* map = mDocument->map()) {
        for (const core::LayerInfo& info : map->rules.layerInfos()) {
            if (!mDocument->layerVisible(QString::fromStdString(info.name))) continue;
            visible << QString::fromStdString(info.name);
            options.style.layers.push_back(info);
        }
    }
    const bool graphHasLevels = mGraph && mGraph->options().lod.buildings > 0.0;
    if (!mGraph || visible != mGroundLayers || graphHasLevels == mEveryModel) {
        mGroundLayers = visible;
        mGraph = std::make_unique<render::SceneGraph>(mDocument->catalogue(), *mModelCache, options);
        mViewer->setSceneData(mGraph->root());
        if (mScene) rebuildScene();  // the new graph fills slice by slice
        updateMarkers();
    }
    updateOverlay();
}

void Viewport::updateOverlay() {
    const QString overlay = mDocument->overlay();
    const auto& rows = mDocument->layerRows();
    const auto& names = mDocument->layers().layerNames();
    const auto found = std::find(names.begin(), names.end(), overlay.toStdString());
    if (!mScene || overlay.isEmpty() || found == names.end()) {
        mGraph->clearHeatOverlay();
        return;
    }
    render::HeatOverlayStyle style;
    const QColor c = rows[std::size_t(found - names.begin())].colour;
    style.colour = {std::uint8_t(c.red()), std::uint8_t(c.green()), std::uint8_t(c.blue())};
    style.opacity = 0.65f;
    if (!mGraph->setHeatOverlay(mDocument->layers(), overlay.toStdString(), style)) mGraph->clearHeatOverlay();
}

void Viewport::rebuildScene() {
    mScene = mDocument->scene();
    updateHint();
    mGraph->setHighlight(nullptr);
    mPending.clear();
    mPendingNext = 0;
    if (mScene) {
        const core::GroundFrame& shown = mGraph->frame();
        if (mGraph->tiles().empty() || shown.origin != mScene->frame.origin || shown.zoom != mScene->frame.zoom) {
            // Another frame: every tile moves. The graph takes the frame now, its tiles slice by slice.
            core::Scene frameOnly;
            frameOnly.frame = mScene->frame;
            frameOnly.seed = mScene->seed;
            (void)mGraph->setScene(frameOnly, &mDocument->layers());
        }
        if (mHomePending && !mScene->tiles.empty()) {
            mHomePending = false;
            const auto& cam = mDocument->project().camera;
            if (cam.distance > 0.0) {
                setCameraState(cam);
            } else {
                home();
            }
        }
        const core::Vec2 target = mScene->frame.lonLatToCell(cameraState().target);
        mPending = nearestFirst(mScene->tiles, target);
        // Tiles the scene no longer holds go too (a tile the scene lacks is removed by updateTiles).
        const std::unordered_set<core::TileId> inScene(mScene->tiles.begin(), mScene->tiles.end());
        for (const core::TileId& t : mGraph->tiles()) {
            if (!inScene.contains(t)) mPending.push_back(t);
        }
        showPendingTiles();
    }
    updateMarkers();
    update();
}

void Viewport::showPendingTiles() {
    if (!mScene || sceneShown()) return;
    // Tiles come in with the detail the eye asks of them: far ones light.
    updateDetailView();
    if (const auto reached = updateSlice(mPending, mPendingNext)) {
        mPendingNext = *reached;
    } else {
        mPending.clear();
        mPendingNext = 0;
    }
    if (sceneShown()) {
        mPending.clear();
        mPendingNext = 0;
        updateOverlay();       // over every tile: once they are all in
        releaseFreedMemory();  // the nodes of the scene shown before
        // The eye may have moved while they came in.
        if (!mDetailQueued) {
            mDetailQueued = true;
            QTimer::singleShot(0, this, &Viewport::refreshDetail);
        }
    } else {
        QTimer::singleShot(0, this, &Viewport::showPendingTiles);
    }
    if (sceneShown() || frameDue()) update();
}

bool Viewport::frameDue() const { return !mSinceFrame.isValid() || mSinceFrame.elapsed() >= kLoadingFrameMs; }

void Viewport::updateHint() {
    // An empty view says what to do rather than showing bare sky.
    const bool empty = !mScene || mScene->tiles.empty();
    mHint->setText(!mDocument->hasMap() ? tr("Open a project or a map (File ▸ Open)")
                   : mDocument->busy()  ? tr("Baking…")
                                        : tr("Select tiles in the map to bake them and see them here"));
    mHint->setVisible(empty);
}

void Viewport::updateMarkers() {
    if (!mGraph) return;
    std::vector<render::ProbeVisual> probes;
    if (mProbe && mScene) {
        if (const auto& last = mProbe->lastProbe()) {
            render::ProbeVisual v;
            const auto& o = last->outline;
            switch (mProbe->shape()) {
                case ProbeShape::Point:
                    v.shape = render::ProbeShape::point(last->centre);
                    break;
                case ProbeShape::Rectangle: {
                    core::Box2 box;
                    for (const core::Vec2& p : o) box.extend(p);
                    v.shape = render::ProbeShape::rectangle(box);
                    break;
                }
                case ProbeShape::Triangle:
                    v.shape = render::ProbeShape::triangle(o[0], o[1], o[2]);
                    break;
                case ProbeShape::Character:
                    v.shape = render::ProbeShape::disk(last->centre, mProbe->footprint().radius);
                    break;
            }
            v.hit = last->blocked;
            probes.push_back(std::move(v));
        }
        if (const auto ch = mProbe->character()) {
            render::ProbeVisual v;
            v.shape = render::ProbeShape::character(*ch, mProbe->footprint());
            v.hit = mProbe->lastMove().blocked();
            probes.push_back(std::move(v));
        }
    }
    mGraph->setProbes(probes);
}

// -- camera -------------------------------------------------------------------------------------------

void Viewport::home() {
    if (!mScene || mScene->tiles.empty()) return;
    core::Box2 box;
    for (const core::TileId& t : mScene->tiles) {
        const core::Box2 b = t.boundsMercator();
        box.extend(mScene->frame.mercatorToGround(b.min));
        box.extend(mScene->frame.mercatorToGround(b.max));
    }
    core::project::Camera c;
    c.target = core::mercatorToLonLat(mScene->frame.groundToMercator(box.centre()));
    c.distance = std::max(box.width(), box.height()) * 1.6 + 50.0;
    c.heading = 20.0;
    c.pitch = 50.0;
    setCameraState(c);
}

void Viewport::flyTo(const core::TileId& tile) {
    if (!mScene) return;
    const core::Box2 b = tile.boundsMercator();
    core::project::Camera c = cameraState();
    c.target = core::mercatorToLonLat(b.centre());
    c.distance = b.width() * mScene->frame.scale() * 1.8;
    c.pitch = std::max(c.pitch, 40.0);
    setCameraState(c);
}

core::project::Camera Viewport::cameraState() const {
    core::project::Camera c;
    if (!mScene) return mDocument->project().camera;
    osg::Vec3d eye, centre, up;
    mManipulator->getTransformation(eye, centre, up);
    const osg::Vec3d d = centre - eye;
    c.distance = d.length();
    if (c.distance <= 0.0) return mDocument->project().camera;
    c.target = core::mercatorToLonLat(mScene->frame.groundToMercator({centre.x(), -centre.z()}));
    c.pitch = std::asin(std::clamp(-d.y() / c.distance, -1.0, 1.0)) * kDegrees;
    c.heading = std::atan2(d.x(), -d.z()) * kDegrees;
    return c;
}

void Viewport::setCameraState(const core::project::Camera& c) {
    if (!mScene) return;
    const core::Vec2 g = mScene->frame.mercatorToGround(core::lonLatToMercator(c.target));
    const osg::Vec3d centre(g.x, 0.0, -g.y);
    const double h = c.heading / kDegrees, p = std::clamp(c.pitch, 5.0, 89.0) / kDegrees;
    const osg::Vec3d dir(std::sin(h) * std::cos(p), -std::sin(p), -std::cos(h) * std::cos(p));
    const double distance = c.distance > 0.0 ? c.distance : 600.0;
    mManipulator->setTransformation(centre - dir * distance, centre, osg::Vec3d(0, 1, 0));
    update();
}

// -- picking ------------------------------------------------------------------------------------------

std::optional<core::Vec2> Viewport::groundAt(QPoint pos) const {
    if (!mScene) return std::nullopt;
    osg::Camera* camera = mViewer->getCamera();
    if (!camera->getViewport()) return std::nullopt;
    const qreal dpr = devicePixelRatioF();
    const double x = pos.x() * dpr, y = (height() - pos.y()) * dpr;
    // The view matrix comes from the manipulator (the camera's is only set at the next frame).
    const osg::Matrixd vpw =
        mManipulator->getInverseMatrix() * camera->getProjectionMatrix() * camera->getViewport()->computeWindowMatrix();
    const osg::Matrixd inverse = osg::Matrixd::inverse(vpw);
    const osg::Vec3d nearP = osg::Vec3d(x, y, 0.0) * inverse, farP = osg::Vec3d(x, y, 1.0) * inverse;
    const osg::Vec3d d = farP - nearP;
    if (std::abs(d.y()) < 1e-12) return std::nullopt;
    const double t = -nearP.y() / d.y();
    if (t < 0.0) return std::nullopt;
    const osg::Vec3d hit = nearP + d * t;
    return core::Vec2{hit.x(), -hit.z()};
}

const core::BuildingRecord* Viewport::buildingAt(core::Vec2 g) const {
    if (!mScene) return nullptr;
    const core::BuildingRecord* best = nullptr;
    double bestArea = 1e300;
    for (const core::BuildingRecord& b : mScene->buildings) {
        const core::OrientedBox& box = b.target;
        const core::Vec2 d = g - box.centre;
        const double c = std::cos(box.angle), s = std::sin(box.angle);
        const double u = d.x * c + d.y * s, v = -d.x * s + d.y * c;
        if (std::abs(u) <= box.halfExtents.x && std::abs(v) <= box.halfExtents.y) {
            const double area = box.halfExtents.x * box.halfExtents.y;
            if (area < bestArea) {
                bestArea = area;
                best = &b;
            }
        }
    }
    return best;
}

QString Viewport::describe(const core::BuildingRecord& b) const {
    const QString source = b.source < mScene->sources.size() ? QString::fromStdString(mScene->sources[b.source]) : "?";
    QString model;
    if (b.asset >= 0 && std::size_t(b.asset) < mScene->assets.size()) {
        model = " " + QString::fromStdString(mScene->assets[std::size_t(b.asset)]);
    }
    return tr("%1: %2%3")
        .arg(source, QString::fromStdString(core::outcomeText(b, mScene->sources, mScene->layerNames)), model);
}

QString Viewport::clickAt(QPoint pos) {
    const auto g = groundAt(pos);
    if (!g) return {};
    if (mProbe && mProbe->active()) {
        const core::Vec2 cell = mScene->frame.groundToCell(*g);
        if (mProbe->walking()) {
            mProbe->placeCharacter(cell);
            return tr("character placed");
        }
        const ProbeOutcome o = mProbe->probe(cell);
        return (o.blocked ? tr("blocked: ") : tr("clear: ")) + o.layers.join(", ");
    }
    const core::BuildingRecord* b = buildingAt(*g);
    mGraph->setHighlight(b);
    update();
    const QString text = b ? describe(*b) : QString();
    emit buildingPicked(text);
    return text;
}

std::optional<ProbeOutcome> Viewport::probeRectangle(QPoint from, QPoint to) {
    if (!mProbe || !mScene) return std::nullopt;
    const auto a = groundAt(from), b = groundAt(to);
    if (!a || !b) return std::nullopt;
    // The probe works in global cells of the project's zoom, as the map view's drag does.
    return mProbe->probe(mScene->frame.groundToCell(*a), mScene->frame.groundToCell(*b));
}

// -- GL and events ----------------------------------------------------------------------------------

void Viewport::initializeGL() {}

void Viewport::resizeGL(int w, int h) {
    const qreal dpr = devicePixelRatioF();
    const int pw = int(w * dpr), ph = int(h * dpr);
    mWindow->resized(0, 0, pw, ph);
    mWindow->getEventQueue()->windowResize(0, 0, pw, ph);
    mViewer->getCamera()->setViewport(0, 0, pw, ph);
    mViewer->getCamera()->setProjectionMatrixAsPerspective(kFieldOfViewDegrees,
                                                           double(std::max(1, pw)) / std::max(1, ph), 1.0, 50000.0);
}

void Viewport::resizeEvent(QResizeEvent* e) {
    QOpenGLWidget::resizeEvent(e);
    mHint->setGeometry(rect().adjusted(24, 24, -24, -24));
}

void Viewport::paintGL() {
    // QOpenGLWidget renders into its own framebuffer object, whose id changes with the size.
    mWindow->setDefaultFboId(defaultFramebufferObject());
    mViewer->frame();
    mSinceFrame.start();
    updateDetailView();
}

std::optional<std::size_t> Viewport::updateSlice(std::span<const core::TileId> tiles, std::size_t from) {
    // The graph stops after the tile during which the slice's time ran out, so a slice ends on
    // time whatever its tiles cost: a dense tile near the eye costs as much as a hundred far ones,
    // and sizing calls by the last one's cost per tile overshot a slice up to 17 times. Each call
    // collects the items of every tile it is given: it is given a few more than the last one took.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kSliceMs);
    while (from < tiles.size() && std::chrono::steady_clock::now() < deadline) {
        const std::size_t n = std::min(2 * mSliceTiles + 4, tiles.size() - from);
        const auto taken = mGraph->updateTilesUntil(*mScene, &mDocument->layers(), tiles.subspan(from, n), deadline);
        if (!taken) {
            emit buildingPicked(tr("cannot show the scene: %1").arg(QString::fromStdString(taken.message())));
            return std::nullopt;
        }
        from += *taken;
        mSliceTiles = *taken;
    }
    return from;
}

render::DetailView Viewport::detailView() const {
    osg::Vec3d eye, centre, up;
    mManipulator->getTransformation(eye, centre, up);
    const osg::Viewport* vp = mViewer->getCamera()->getViewport();
    return {eye, (vp ? vp->height() : height()) / (kFieldOfViewDegrees / kDegrees)};
}

void Viewport::updateDetailView() {
    if (!mGraph) return;
    const render::DetailView view = detailView();
    mGraph->setDetailView(view);
    osg::Vec3d eye, centre, up;
    mManipulator->getTransformation(eye, centre, up);
    const double moved = (view.eye - mDetailEye).length();
    if (mDetailQueued || !mScene || moved <= kDetailMoveShare * std::max((centre - eye).length(), 1.0)) return;
    mDetailQueued = true;
    QTimer::singleShot(0, this, &Viewport::refreshDetail);
}

void Viewport::refreshDetail() {
    mDetailQueued = false;
    // While the scene comes in, its slices carry the detail; the rest waits until it is all in.
    if (!mScene || !sceneShown()) return;
    // The eye as it is now, which the graph then works for.
    const render::DetailView view = detailView();
    mGraph->setDetailView(view);
    mDetailEye = view.eye;
    const std::vector<core::TileId> tiles = mGraph->tilesOutOfDetail();
    if (tiles.empty()) return;
    const auto reached = updateSlice(tiles, 0);
    if (!reached) return;
    if (*reached < tiles.size()) {
        // More next time round: the eye may have moved by then, so the list is made anew.
        mDetailQueued = true;
        QTimer::singleShot(0, this, &Viewport::refreshDetail);
        if (!frameDue()) return;
    }
    update();
}

int Viewport::osgButton(Qt::MouseButton b) const {
    switch (b) {
        case Qt::LeftButton:
            return 1;
        case Qt::MiddleButton:
            return 2;
        case Qt::RightButton:
            return 3;
        default:
            return 0;
    }
}

void Viewport::mousePressEvent(QMouseEvent* e) {
    setFocus();
    mPressPos = e->position().toPoint();
    // A rectangle probe is dragged on the ground; the camera must not orbit meanwhile.
    mProbeDrag = e->button() == Qt::LeftButton && mProbe && mProbe->active() && !mProbe->walking() &&
                 mProbe->shape() == ProbeShape::Rectangle && groundAt(mPressPos).has_value();
    if (mProbeDrag) return;
    const qreal dpr = devicePixelRatioF();
    mWindow->getEventQueue()->mouseButtonPress(float(e->position().x() * dpr), float(e->position().y() * dpr),
                                               osgButton(e->button()));
    update();
}

void Viewport::mouseReleaseEvent(QMouseEvent* e) {
    if (mProbeDrag && e->button() == Qt::LeftButton) {
        mProbeDrag = false;
        const QPoint at = e->position().toPoint();
        // A click (no real drag) probes the rectangle of the probe's size centred there.
        if ((at - mPressPos).manhattanLength() < 4 || !probeRectangle(mPressPos, at)) clickAt(at);
        update();
        return;
    }
    const qreal dpr = devicePixelRatioF();
    mWindow->getEventQueue()->mouseButtonRelease(float(e->position().x() * dpr), float(e->position().y() * dpr),
                                                 osgButton(e->button()));
    if (e->button() == Qt::LeftButton && (e->position().toPoint() - mPressPos).manhattanLength() < 4) {
        clickAt(e->position().toPoint());
    }
    update();
}

void Viewport::mouseMoveEvent(QMouseEvent* e) {
    if (mProbeDrag) return;
    const qreal dpr = devicePixelRatioF();
    mWindow->getEventQueue()->mouseMotion(float(e->position().x() * dpr), float(e->position().y() * dpr));
    update();
}

void Viewport::wheelEvent(QWheelEvent* e) {
    mWindow->getEventQueue()->mouseScroll(e->angleDelta().y() > 0 ? osgGA::GUIEventAdapter::SCROLL_UP
                                                                  : osgGA::GUIEventAdapter::SCROLL_DOWN);
    update();
}

void Viewport::keyPressEvent(QKeyEvent* e) {
    if (mProbe && mProbe->walkKey(e->key())) return;
    if (e->key() == Qt::Key_Home) {
        home();
        return;
    }
    QOpenGLWidget::keyPressEvent(e);
}

void Viewport::keyReleaseEvent(QKeyEvent* e) { QOpenGLWidget::keyReleaseEvent(e); }

}  // namespace terrabit::ui
