// The OSG viewport inside the main window, in a real GLX context under Xvfb: the scene is drawn,
// clicking a building names its feature, model and outcome, probes work on the ground, the
// scene follows rule edits; and a screenshot of the window with the sample open is written as a
// test artefact (<build>/tests/ui/artefacts/main-window.png).

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QMouseEvent>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <set>

#include "terrabit/render/lighting.h"
#include "terrabit/render/scene_graph.h"
#include "terrabit/ui/document/bake_batches.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/panels/expression_editor.h"
#include "terrabit/ui/panels/expression_panel.h"
#include "terrabit/ui/panels/probe_panel.h"
#include "terrabit/ui/views/map_view.h"
#include "terrabit/ui/views/probe_tool.h"
#include "terrabit/ui/views/viewport.h"
#include "terrabit/ui/window/main_window.h"
#include "ui_stall_watch.h"
#include "ui_test_support.h"
#include "ui_window_support.h"

using namespace terrabit;

namespace {

class GlWindow : public testing::Test {
protected:
    void SetUp() override {
        window = test::makeTestWindow(recovery, true, errors);
        window->resize(1500, 920);
        window->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
        ASSERT_TRUE(window->openFile(test::resourcesDir() / "projects" / "sample.terrabit"));
        ASSERT_TRUE(settle());
        ASSERT_TRUE(window->document()->scene());
        ASSERT_TRUE(window->viewport());
        QTest::qWait(200);
    }
    ui::Viewport* view() { return window->viewport(); }
    ui::MapDocument& doc() { return *window->document(); }
    /// Waits for the bake, then for the viewport to bring its tiles in (slice by slice).
    bool settle() {
        return doc().waitIdle() && QTest::qWaitFor([this] { return view()->sceneShown(); }, 60000);
    }

    /// Widget positions on a grid whose ground point satisfies f.
    std::vector<QPoint> pointsWhere(const std::function<bool(core::Vec2 ground)>& f) {
        std::vector<QPoint> out;
        for (int y = 10; y < view()->height() - 10; y += 7) {
            for (int x = 10; x < view()->width() - 10; x += 7) {
                const auto g = view()->groundAt({x, y});
                if (g && f(*g)) out.push_back({x, y});
            }
        }
        return out;
    }
    bool buildingCellAt(core::Vec2 ground) {
        const core::Vec2 c = doc().scene()->frame.groundToCell(ground);
        const int layer = doc().layers().layerId("building");
        const core::TileId t{doc().project().zoom, std::uint32_t(std::floor(c.x / 256)),
                             std::uint32_t(std::floor(c.y / 256))};
        const core::BitTile* bits = doc().layers().tile(t, layer);
        return bits && bits->test(int(std::floor(c.x)) & 255, int(std::floor(c.y)) & 255);
    }

    /// Is a layer set at a global cell?
    bool setAt(const char* layerName, std::int64_t gx, std::int64_t gy) {
        const core::TileId t{doc().project().zoom, std::uint32_t(gx >> 8), std::uint32_t(gy >> 8)};
        const core::BitTile* bits = doc().layers().tile(t, doc().layers().layerId(layerName));
        return bits && bits->test(int(gx & 255), int(gy & 255));
    }
    /// True when f holds on every cell the rectangle between two cell points touches, grown by
    /// `grow` cells on every side.
    static bool everyCell(core::Vec2 a, core::Vec2 b, int grow,
                          const std::function<bool(std::int64_t, std::int64_t)>& f) {
        const auto x0 = std::int64_t(std::floor(std::min(a.x, b.x))) - grow;
        const auto x1 = std::int64_t(std::floor(std::max(a.x, b.x))) + grow;
        const auto y0 = std::int64_t(std::floor(std::min(a.y, b.y))) - grow;
        const auto y1 = std::int64_t(std::floor(std::max(a.y, b.y))) + grow;
        for (std::int64_t y = y0; y <= y1; ++y) {
            for (std::int64_t x = x0; x <= x1; ++x) {
                if (!f(x, y)) return false;
            }
        }
        return true;
    }
    /// A left-button drag from one widget point to another, through the widget's own events.
    void drag(QPoint from, QPoint to) {
        QTest::mousePress(view(), Qt::LeftButton, Qt::NoModifier, from);
        for (int i = 1; i <= 4; ++i) {
            const QPointF at = QPointF(from) + QPointF(to - from) * (i / 4.0);
            QMouseEvent move(QEvent::MouseMove, at, view()->mapToGlobal(at), Qt::NoButton, Qt::LeftButton,
                             Qt::NoModifier);
            QApplication::sendEvent(view(), &move);
            QTest::qWait(10);
        }
        QTest::mouseRelease(view(), Qt::LeftButton, Qt::NoModifier, to);
        QTest::qWait(30);
    }

    test::TempDir recovery;
    std::unique_ptr<ui::MainWindow> window;
    QStringList errors;
};

}  // namespace

TEST_F(GlWindow, DrawsTheSceneAndWritesAScreenshot) {
    EXPECT_GT(view()->modelsShown(), 100u);
    const QImage frame = view()->grabFramebuffer();
    ASSERT_FALSE(frame.isNull());
    // Sky, ground in several layer colours and lit models: many colours, and most of the frame is
    // not the clear colour.
    std::set<QRgb> colours;
    int skySamples = 0;
    const osg::Vec4 sky = render::Lighting{}.sky;
    const QRgb clear = qRgb(int(sky.r() * 255 + 0.5), int(sky.g() * 255 + 0.5), int(sky.b() * 255 + 0.5));
    for (int y = 0; y < frame.height(); y += 3) {
        for (int x = 0; x < frame.width(); x += 3) {
            const QRgb p = frame.pixel(x, y) | 0xff000000u;
            colours.insert(p);
            if (std::abs(qRed(p) - qRed(clear)) < 4 && std::abs(qGreen(p) - qGreen(clear)) < 4 &&
                std::abs(qBlue(p) - qBlue(clear)) < 4) {
                ++skySamples;
            }
        }
    }
    const int samples = ((frame.width() + 2) / 3) * ((frame.height() + 2) / 3);
    EXPECT_GT(colours.size(), 50u);
    EXPECT_LT(skySamples, samples / 2) << "the scene should fill most of the view";

    // The README's screenshot shows the main workflow: an expression previewed on the selection.
    window->expressionPanel()->editor()->setPlainText("vegetation & ~dilate(road, 2m) & random(0.4)");
    QSignalSpy previewed(window->expressionPanel(), &ui::ExpressionPanel::previewUpdated);
    ASSERT_TRUE(previewed.wait(5000));
    EXPECT_TRUE(previewed.back()[0].toBool());
    QTest::qWait(100);

    const QString dir = TERRABIT_ARTEFACT_DIR;
    QDir().mkpath(dir);
    const QImage shot = window->grab().toImage();
    ASSERT_TRUE(shot.save(dir + "/main-window.png"));
    EXPECT_TRUE(frame.save(dir + "/viewport.png"));
}

TEST_F(GlWindow, ClickingABuildingShowsItsFeatureModelAndOutcome) {
    const auto scene = doc().scene();
    const auto points = pointsWhere([&](core::Vec2 g) {
        const core::BuildingRecord* b = view()->buildingAt(g);
        return b && b->outcome == core::BuildingOutcome::Placed && buildingCellAt(g);
    });
    ASSERT_FALSE(points.empty());
    QSignalSpy picked(view(), &ui::Viewport::buildingPicked);
    QTest::mouseClick(view(), Qt::LeftButton, Qt::NoModifier, points[points.size() / 2]);
    ASSERT_EQ(picked.size(), 1);
    const QString text = picked.front()[0].toString();
    const core::BuildingRecord* b = view()->buildingAt(*view()->groundAt(points[points.size() / 2]));
    ASSERT_TRUE(b);
    EXPECT_TRUE(text.contains(QString::fromStdString(scene->sources[b->source]))) << text.toStdString();
    EXPECT_TRUE(text.contains("placed")) << text.toStdString();
    EXPECT_TRUE(text.contains(QString::fromStdString(scene->assets[std::size_t(b->asset)]))) << text.toStdString();
    // The source id is an OpenStreetMap way or relation.
    EXPECT_TRUE(text.startsWith("w") || text.startsWith("r")) << text.toStdString();
}

TEST_F(GlWindow, ProbesTheGroundUnderAClick) {
    const auto onBuilding = pointsWhere([&](core::Vec2 g) { return buildingCellAt(g); });
    ASSERT_FALSE(onBuilding.empty());
    window->probeTool()->setActive(true);
    QTest::mouseClick(view(), Qt::LeftButton, Qt::NoModifier, onBuilding.front());
    ASSERT_TRUE(window->probeTool()->lastProbe());
    EXPECT_TRUE(window->probeTool()->lastProbe()->blocked);
    EXPECT_TRUE(window->probeTool()->lastProbe()->layers.contains("building"));
}

TEST_F(GlWindow, TheViewportFollowsRuleEditsAndTheCameraIsSaved) {
    const std::size_t before = view()->modelsShown();
    ASSERT_TRUE(doc().editRule({"passes.vegetation.density", "0.3"}).ok());
    ASSERT_TRUE(settle());
    EXPECT_GT(view()->modelsShown(), before);
    // The camera round-trips through the project's form.
    core::project::Camera c;
    c.target = core::mercatorToLonLat(doc().selection()[0].boundsMercator().centre());
    c.distance = 321.0;
    c.heading = 75.0;
    c.pitch = 33.0;
    view()->setCameraState(c);
    const core::project::Camera back = view()->cameraState();
    EXPECT_NEAR(back.distance, 321.0, 1e-6);
    EXPECT_NEAR(back.heading, 75.0, 1e-6);
    EXPECT_NEAR(back.pitch, 33.0, 1e-6);
    EXPECT_NEAR(back.target.lon, c.target.lon, 1e-9);
    EXPECT_NEAR(back.target.lat, c.target.lat, 1e-9);
}

TEST_F(GlWindow, DistanceLevelsAreOnUnlessEveryModelIsAskedForAndTheChoiceIsKept) {
    // By default the graph draws with distance levels: buildings as boxes and plants thinned
    // far off (render::DistanceLod), every block an LOD.
    auto* every = window->findChild<QAction*>("everyModelAction");
    ASSERT_NE(every, nullptr);
    ASSERT_FALSE(every->isChecked());
    EXPECT_GT(view()->graph().options().lod.buildings, 0.0);
    EXPECT_GT(view()->graph().options().lod.instances, 0.0);
    EXPECT_GT(view()->graph().counts().buildingBoxDrawables, 0u);
    const std::size_t models = view()->modelsShown();

    // View ▸ Every model at any distance: a new graph without levels holds the same models.
    every->trigger();
    ASSERT_TRUE(settle());
    EXPECT_TRUE(view()->everyModel());
    EXPECT_EQ(view()->graph().options().lod.buildings, 0.0);
    EXPECT_EQ(view()->graph().options().lod.instances, 0.0);
    EXPECT_EQ(view()->graph().counts().buildingBoxDrawables, 0u);
    EXPECT_EQ(view()->modelsShown(), models);
    EXPECT_TRUE(QSettings().value("view/everyModel").toBool());

    // A new window starts as the last one was left.
    test::TempDir otherRecovery;
    QStringList otherErrors;
    auto second = test::makeTestWindow(otherRecovery, true, otherErrors);
    ASSERT_TRUE(second->viewport());
    EXPECT_TRUE(second->findChild<QAction*>("everyModelAction")->isChecked());
    EXPECT_TRUE(second->viewport()->everyModel());
    second.reset();

    every->trigger();
    ASSERT_TRUE(settle());
    EXPECT_FALSE(view()->everyModel());
    EXPECT_GT(view()->graph().options().lod.buildings, 0.0);
    EXPECT_FALSE(QSettings().value("view/everyModel").toBool());
    EXPECT_TRUE(errors.isEmpty()) << errors.join("\n").toStdString();
}

TEST_F(GlWindow, AnEmptySelectionShowsAHintInsteadOfBareSky) {
    EXPECT_FALSE(view()->hint()->isVisible()) << "the sample's scene is shown";
    doc().setSelection({});
    ASSERT_TRUE(settle());
    QTest::qWait(50);
    EXPECT_TRUE(view()->hint()->isVisible());
    EXPECT_TRUE(view()->hint()->text().contains("Select tiles")) << view()->hint()->text().toStdString();
    EXPECT_EQ(view()->modelsShown(), 0u);
    doc().undoStack()->undo();
    ASSERT_TRUE(settle());
    QTest::qWait(50);
    EXPECT_FALSE(view()->hint()->isVisible());
    EXPECT_GT(view()->modelsShown(), 100u);
}

TEST_F(GlWindow, DraggingOrbitsAboutTheVerticalWithoutRolling) {
    // The scene is y-up: a sideways drag turns the heading and leaves the pitch alone (with OSG's
    // default z-up frame the same drag tipped the camera over).
    const core::project::Camera before = view()->cameraState();
    const QPoint centre(view()->width() / 2, view()->height() / 2);
    QTest::mousePress(view(), Qt::LeftButton, Qt::NoModifier, centre);
    QTest::qWait(30);
    for (int i = 1; i <= 8; ++i) {
        QMouseEvent move(QEvent::MouseMove, QPointF(centre + QPoint(i * 20, 0)), view()->mapToGlobal(QPointF(centre)),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view(), &move);
        QTest::qWait(30);
    }
    QTest::mouseRelease(view(), Qt::LeftButton, Qt::NoModifier, centre + QPoint(160, 0));
    QTest::qWait(30);
    const core::project::Camera after = view()->cameraState();
    EXPECT_GT(std::abs(std::remainder(after.heading - before.heading, 360.0)), 10.0)
        << before.heading << " -> " << after.heading;
    EXPECT_NEAR(after.pitch, before.pitch, 2.0);
    EXPECT_NEAR(after.distance, before.distance, 1e-6 * before.distance);
}

TEST_F(GlWindow, DraggingARectangleProbeOnTheGroundProbesTheRectangle) {
    ui::ProbeTool* probe = window->probeTool();
    probe->setActive(true);
    probe->setShape(ui::ProbeShape::Rectangle);
    const core::GroundFrame frame = doc().scene()->frame;
    const auto cellOf = [&](QPoint p) { return frame.groundToCell(*view()->groundAt(p)); };
    const auto baked = [&](core::Vec2 cell) {
        const core::TileId t{doc().project().zoom, std::uint32_t(std::floor(cell.x / 256)),
                             std::uint32_t(std::floor(cell.y / 256))};
        const auto& tiles = doc().scene()->tiles;
        return std::find(tiles.begin(), tiles.end(), t) != tiles.end();
    };
    // What the probe blocks on by default (the map has no terrain: nothing is steep).
    ASSERT_EQ(probe->blockingExpression(), "building | water | slope(>35deg)");
    const auto building = [&](std::int64_t x, std::int64_t y) { return setAt("building", x, y); };
    const auto open = [&](std::int64_t x, std::int64_t y) { return !setAt("building", x, y) && !setAt("water", x, y); };
    // Drags found from the layers: one whose whole rectangle is building, one whose rectangle
    // and a cell around it hold nothing that blocks. Rectangles at least 3 cells a side.
    std::optional<std::pair<QPoint, QPoint>> overBuilding, overOpen;
    for (int y = 20; y < view()->height() - 40 && !(overBuilding && overOpen); y += 5) {
        for (int x = 20; x < view()->width() - 40 && !(overBuilding && overOpen); x += 5) {
            for (int d : {10, 16, 24}) {
                const QPoint a(x, y), b(x + d, y + d / 2);
                if (!view()->groundAt(a) || !view()->groundAt(b)) continue;
                const core::Vec2 ca = cellOf(a), cb = cellOf(b);
                if (std::abs(cb.x - ca.x) < 3 || std::abs(cb.y - ca.y) < 3) continue;
                // On the baked tiles, where the ground is drawn (the plane goes on to the horizon).
                if (!baked(ca) || !baked(cb)) continue;
                if (!overBuilding && everyCell(ca, cb, 0, building)) overBuilding = std::make_pair(a, b);
                if (!overOpen && everyCell(ca, cb, 1, open)) overOpen = std::make_pair(a, b);
            }
        }
    }
    ASSERT_TRUE(overBuilding) << "no building in view wide enough for a rectangle";
    ASSERT_TRUE(overOpen) << "no open ground in view wide enough for a rectangle";

    const core::project::Camera before = view()->cameraState();
    const auto probedBox = [&] {
        core::Box2 box;
        for (const core::Vec2& p : probe->lastProbe()->outline) box.extend(p);
        return box;
    };
    const auto expectBoxBetween = [&](const std::pair<QPoint, QPoint>& drag) {
        const core::Vec2 a = cellOf(drag.first), b = cellOf(drag.second);
        const core::Box2 box = probedBox();
        EXPECT_NEAR(box.min.x, std::min(a.x, b.x), 1e-6);
        EXPECT_NEAR(box.max.x, std::max(a.x, b.x), 1e-6);
        EXPECT_NEAR(box.min.y, std::min(a.y, b.y), 1e-6);
        EXPECT_NEAR(box.max.y, std::max(a.y, b.y), 1e-6);
    };

    drag(overBuilding->first, overBuilding->second);
    ASSERT_TRUE(probe->lastProbe());
    EXPECT_TRUE(probe->lastProbe()->blocked);
    EXPECT_TRUE(probe->lastProbe()->layers.contains("building")) << probe->lastProbe()->layers.join(",").toStdString();
    expectBoxBetween(*overBuilding);
    // Shown as the map view shows it: the probe panel's verdict and a marker in the scene.
    EXPECT_EQ(window->probePanel()->resultLabel()->text(), "BLOCKED");
    EXPECT_GT(view()->graph().probesGroup()->getNumChildren(), 0u);
    // Kept to look at: the red rectangle on the building.
    QDir().mkpath(TERRABIT_ARTEFACT_DIR);
    EXPECT_TRUE(view()->grabFramebuffer().save(QString(TERRABIT_ARTEFACT_DIR) + "/viewport-rectangle-probe.png"));

    drag(overOpen->first, overOpen->second);
    ASSERT_TRUE(probe->lastProbe());
    EXPECT_FALSE(probe->lastProbe()->blocked);
    EXPECT_FALSE(probe->lastProbe()->layers.contains("building"));
    EXPECT_FALSE(probe->lastProbe()->layers.contains("water"));
    expectBoxBetween(*overOpen);
    EXPECT_EQ(window->probePanel()->resultLabel()->text(), "CLEAR");

    // The drags probed; they did not orbit the camera.
    const core::project::Camera after = view()->cameraState();
    EXPECT_NEAR(after.heading, before.heading, 1e-9);
    EXPECT_NEAR(after.pitch, before.pitch, 1e-9);
    EXPECT_NEAR(after.distance, before.distance, 1e-9);
    // With the probe off, the same drag orbits again.
    probe->setActive(false);
    drag(overOpen->first, overOpen->first + QPoint(120, 0));
    EXPECT_GT(std::abs(std::remainder(view()->cameraState().heading - before.heading, 360.0)), 1.0);
}

TEST(GlRegion, EveryTileOfTheRegionComesIntoTheViewportBatchByBatch) {
    // The whole app, viewport included, on the 1,608 tiles of monaco-region at zoom 17: every
    // batch of the progressive bake reaches the scene graph, and in the end it shows every tile
    // and instance. The times, the UI thread's longest stall and memory are printed as figures
    // (llvmpipe draws every frame in software: its frames, not the app's own work, are the long
    // stalls there).
    const test::TempDir dir, recovery;
    ui::MainWindowOptions options;
    options.resourcesDir = test::resourcesDir();
    options.recoveryDir = recovery.path();
    options.autosaveSeconds = 0;
    ui::MainWindow window(options);
    window.setPrompt([](const QString&, const QString&, QMessageBox::StandardButtons) { return QMessageBox::Discard; });
    window.resize(1500, 920);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_TRUE(window.openFile(test::writeRegionProject(dir.path())));
    ui::MapDocument& doc = *window.document();
    ASSERT_TRUE(doc.waitIdle(300000));
    ui::Viewport* view = window.viewport();
    ASSERT_TRUE(view);

    int batches = 0;
    qint64 firstShownMs = -1;
    QElapsedTimer clock;
    QObject::connect(&doc, &ui::MapDocument::sceneChanged, [&] { ++batches; });
    QTimer poll;
    poll.setInterval(5);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (firstShownMs < 0 && view->graph().counts().tiles > 0) firstShownMs = clock.elapsed();
    });
    test::StallWatch watch;
    test::EventLatencyWatch latency;
    const double rssBefore = test::residentMiB();
    clock.start();
    watch.start();
    latency.start();
    poll.start();
    // Edit ▸ Select all tiles (Ctrl+A needs an active window, which Xvfb without a window
    // manager does not give; the widget tests press the key).
    window.findChild<QAction*>("selectAllTilesAction")->trigger();
    ASSERT_FALSE(doc.sceneComplete());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !doc.busy() && doc.sceneComplete() && view->sceneShown(); }, 900000));
    const qint64 allMs = clock.elapsed();
    watch.stop();
    latency.stop();
    poll.stop();

    const auto scene = doc.scene();
    EXPECT_EQ(scene->tiles.size(), doc.layers().tiles().size());
    EXPECT_EQ(batches, int(ui::batchEnds(scene->tiles.size()).size()));
    const render::GraphCounts counts = view->graph().counts();
    EXPECT_EQ(counts.tiles, scene->tiles.size());
    // Tiles beyond the levels' reach of the eye hold no instanced blocks (render::DetailView):
    // the models held are those of the tiles holding their blocks, a part of the region.
    std::set<core::TileId> holding;
    std::size_t heldInstances = 0;
    for (const core::InstanceBlock& b : scene->blocks) {
        if (!view->graph().blockNode(b.tile, b.blockX, b.blockY, scene->assets[static_cast<std::size_t>(b.asset)]))
            continue;
        holding.insert(b.tile);
        heldInstances += b.instances.size();
    }
    EXPECT_EQ(view->modelsShown(), heldInstances);
    EXPECT_EQ(counts.tilesHoldingBlocks, holding.size());
    EXPECT_LT(holding.size(), scene->tiles.size());
    EXPECT_LT(counts.groundTexels, scene->tiles.size() * 256u * 256u);
    const QString artefacts = TERRABIT_ARTEFACT_DIR;
    QDir().mkpath(artefacts);
    EXPECT_TRUE(window.grab().toImage().save(artefacts + "/region-every-tile.png"));

    // Flying to a tile that holds none of its blocks brings them in as the view settles there,
    // and the tiles left behind let theirs go.
    const auto holds = [&](const core::TileId& t) {
        for (const core::InstanceBlock& b : scene->blocks) {
            if (b.tile == t &&
                view->graph().blockNode(b.tile, b.blockX, b.blockY, scene->assets[static_cast<std::size_t>(b.asset)]))
                return true;
        }
        return false;
    };
    const auto far = std::find_if(scene->blocks.begin(), scene->blocks.end(),
                                  [&](const core::InstanceBlock& b) { return !holds(b.tile); });
    ASSERT_NE(far, scene->blocks.end());
    const core::TileId wasHeld = *holding.begin();
    view->flyTo(far->tile);
    view->update();
    EXPECT_TRUE(QTest::qWaitFor([&] { return holds(far->tile); }, 20000)) << far->tile.quadkey();
    EXPECT_TRUE(QTest::qWaitFor([&] { return view->graph().tilesOutOfDetail().empty(); }, 20000));
    const core::Vec2 a = scene->frame.cellToGround({(far->tile.x + 0.5) * 256.0, (far->tile.y + 0.5) * 256.0});
    const core::Vec2 b = scene->frame.cellToGround({(wasHeld.x + 0.5) * 256.0, (wasHeld.y + 0.5) * 256.0});
    if (std::hypot(a.x - b.x, a.y - b.y) > 4000.0) {
        EXPECT_FALSE(holds(wasHeld)) << wasHeld.quadkey();
    }
    std::cout << "[ figures  ] viewport: " << scene->tiles.size() << " tiles, " << scene->instanceCount()
              << " instances; first tiles in the viewport after " << firstShownMs << " ms, all after " << allMs
              << " ms in " << batches << " batches; longest UI-thread stall " << watch.longestCpuMs()
              << " ms of its CPU (" << watch.longestWallMs() << " ms wall; the longest an event waited "
              << latency.longestMs() << " ms); resident " << test::residentMiB() << " MiB (" << rssBefore
              << " MiB before selecting); " << counts.tilesHoldingBlocks << " tiles hold their blocks ("
              << heldInstances << " instances), ground images " << counts.groundTexels / 1024 << " Ki texels\n";
}
