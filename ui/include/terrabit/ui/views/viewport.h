#pragma once
/// Viewport: the baked scene in OpenSceneGraph, hosted in a QOpenGLWidget (an embedded
/// graphics window and a single-threaded viewer; see notes on Qt 6 + OSG). Orbit with the left
/// button, pan with the middle one, zoom with the right one or the wheel; fly to a tile; click a
/// building to see its source feature, the model it got and the outcome. With the probe tool on,
/// a click probes the ground there, and with the rectangle probe a left drag probes the
/// rectangle between the ground points under the press and the release (the camera stays put);
/// in walk mode W/A/S/D move the character.
///
/// The scene is render::SceneGraph's: the ground of the baked tiles in the visible layers'
/// colours, road and water surfaces, every placed model drawn instanced, the overlay layer as a
/// translucent heat map, the picked building highlighted, the probe and the character.
///
/// A new scene (or a batch of a progressive bake) comes into the graph a slice of tiles at a
/// time, nearest the camera's target first, each slice within a few milliseconds of the UI
/// thread, so thousands of tiles never block it; sceneShown() says when the last is in.

#include <QElapsedTimer>
#include <QOpenGLWidget>

class QLabel;

#include <osg/Vec3d>
#include <osg/ref_ptr>

#include <memory>
#include <optional>
#include <span>

#include "terrabit/core/geometry.h"
#include "terrabit/core/project/project.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/ui/views/probe_tool.h"

namespace osgViewer {
class GraphicsWindowEmbedded;
class Viewer;
}  // namespace osgViewer
namespace osgGA {
class OrbitManipulator;
}
namespace terrabit::render {
class AssetModelCache;
class SceneGraph;
struct DetailView;
}  // namespace terrabit::render

namespace terrabit::ui {

class MapDocument;

class Viewport : public QOpenGLWidget {
    Q_OBJECT
public:
    Viewport(MapDocument* document, ProbeTool* probe, QWidget* parent = nullptr);
    ~Viewport() override;

    /// Points the camera at a tile from above at an angle.
    void flyTo(const core::TileId& tile);
    /// Frames the whole scene.
    void home();
    /// The camera as a project stores it, and back.
    core::project::Camera cameraState() const;
    void setCameraState(const core::project::Camera& camera);

    /// The ground point (scene metres east, north of the origin) under a widget position;
    /// nothing when the ray misses the ground or no scene is shown.
    std::optional<core::Vec2> groundAt(QPoint widgetPos) const;
    /// The building whose target box holds a ground point, or nullptr.
    const core::BuildingRecord* buildingAt(core::Vec2 ground) const;
    /// "w123456: placed apartment_block" for a building.
    QString describe(const core::BuildingRecord& building) const;
    /// Picks at a widget position as a click would (probe or building); returns the text shown.
    QString clickAt(QPoint widgetPos);
    /// Probes the rectangle between the ground points under two widget positions, as a drag
    /// with the rectangle probe does; nothing when either misses the ground.
    std::optional<ProbeOutcome> probeRectangle(QPoint from, QPoint to);
    /// Models drawn in the current scene graph (instances).
    std::size_t modelsShown() const;
    /// Whether every model is drawn at any distance; off (the default), the graph draws with
    /// distance levels (render::DistanceLod: buildings as boxes and plants thinned far off).
    bool everyModel() const { return mEveryModel; }
    /// Switches it; the graph is made again (its options are fixed) and fills slice by slice.
    void setEveryModel(bool on);
    /// The scene graph shown (render::SceneGraph).
    const render::SceneGraph& graph() const { return *mGraph; }
    /// True when the graph shows the whole of the document's scene (no slice of tiles waits).
    bool sceneShown() const { return mPendingNext >= mPending.size(); }
    /// The hint shown over an empty view ("select tiles…"); hidden while a scene is shown.
    const QLabel* hint() const { return mHint; }

signals:
    /// A building was clicked: its description (empty when the click hit no building).
    void buildingPicked(const QString& description);

protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void resizeEvent(QResizeEvent* event) override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;

private:
    void rebuildScene();
    /// Brings the next tiles of mPending into the graph for up to kSliceMs, then queues itself.
    void showPendingTiles();
    /// Brings tiles[from..] into the graph (SceneGraph::updateTilesUntil) until a slice of time
    /// has passed: how far it got, or nullopt after an error (reported).
    std::optional<std::size_t> updateSlice(std::span<const core::TileId> tiles, std::size_t from);
    /// Whether a frame is due while tiles come in (kLoadingFrameMs since the last one).
    bool frameDue() const;
    QElapsedTimer mSinceFrame;  ///< since the last frame was drawn
    /// Where the eye is now, and the pixels per radian of the viewport.
    render::DetailView detailView() const;
    /// Tells the graph where the eye is now (SceneGraph::setDetailView), and when it has moved,
    /// queues refreshDetail().
    void updateDetailView();
    /// Gives the tiles whose detail no longer fits the eye (nearer: full; farther: less) the
    /// detail it asks for, for up to a slice of time, then queues itself until none is left.
    void refreshDetail();
    void restyle();
    void updateOverlay();
    void updateMarkers();
    void updateHint();
    int osgButton(Qt::MouseButton b) const;

    MapDocument* mDocument;
    ProbeTool* mProbe;
    osg::ref_ptr<osgViewer::GraphicsWindowEmbedded> mWindow;
    osg::ref_ptr<osgViewer::Viewer> mViewer;
    osg::ref_ptr<osgGA::OrbitManipulator> mManipulator;
    std::unique_ptr<render::AssetModelCache> mModelCache;
    std::unique_ptr<render::SceneGraph> mGraph;
    QStringList mGroundLayers;  ///< the visible layers the graph's ground paints
    bool mEveryModel = false;
    std::shared_ptr<const core::Scene> mScene;
    /// Tiles of mScene (and tiles it no longer has) still to bring into the graph, from mPendingNext.
    std::vector<core::TileId> mPending;
    std::size_t mPendingNext = 0;
    std::size_t mSliceTiles = 4;  ///< tiles the last SceneGraph::updateTilesUntil call took
    QPoint mPressPos;
    /// A left press that drags a rectangle probe rather than orbiting.
    bool mProbeDrag = false;
    QLabel* mHint;
    bool mHomePending = true;
    osg::Vec3d mDetailEye;       ///< the eye refreshDetail() last worked for
    bool mDetailQueued = false;  ///< refreshDetail() is queued
};

}  // namespace terrabit::ui
