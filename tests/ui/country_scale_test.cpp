// The app on thousands of tiles (issue #20): the tile list formats only the rows on screen,
// selecting every tile is one undoable gesture, a large selection bakes progressively nearest
// the map view's centre first and ends with the scene one whole bake gives, a rule edit restarts
// only what it affects, and the UI thread is never kept busy for more than 50 ms meanwhile.
//
// The large map is the repository's own monaco-region extract at zoom 17 (1,608 tiles with
// content). Counters gate; timings and memory are printed as figures.

#include <gtest/gtest.h>

#include <QAction>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <string>

#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/ui/document/bake_batches.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/panels/tile_list_model.h"
#include "terrabit/ui/panels/tile_picker.h"
#include "terrabit/ui/views/map_view.h"
#include "terrabit/ui/views/probe_tool.h"
#include "terrabit/ui/window/main_window.h"
#include "ui_scene_support.h"
#include "ui_stall_watch.h"
#include "ui_test_support.h"
#include "ui_window_support.h"

using namespace terrabit;

namespace {

constexpr qint64 kMaxUiStallMs = 50;

/// Runs the event loop (never blocking the UI thread as waitIdle does) until the document's
/// whole selection is baked.
bool waitComplete(ui::MapDocument& doc, int timeoutMs) {
    return QTest::qWaitFor([&] { return !doc.busy() && doc.sceneComplete(); }, timeoutMs);
}

/// The main window without its GL viewport, on a project of thousands of tiles.
class RegionWindow : public testing::Test {
protected:
    void SetUp() override {
        window = test::makeTestWindow(recovery, false, errors);
        window->resize(1280, 800);
        window->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
        ASSERT_TRUE(window->openFile(test::writeRegionProject(dir.path())));
        ASSERT_TRUE(doc().waitIdle(300000));
        ASSERT_TRUE(doc().hasMap()) << doc().lastError().toStdString();
        ASSERT_GT(doc().layers().tiles().size(), 1000u) << "a map of thousands of tiles";
        ASSERT_TRUE(doc().selection().empty());
    }
    void TearDown() override {
        if (window) {
            doc().cancel();
            doc().waitIdle();
        }
        window.reset();
    }
    ui::MapDocument& doc() { return *window->document(); }
    ui::MapView* map() { return window->mapView(); }
    ui::TileListModel* rows() { return window->tilePicker()->model(); }
    /// The rows the tile list's view shows.
    int rowsOnScreen() {
        QTableView* table = window->tilePicker()->table();
        const int last = table->rowAt(table->viewport()->height() - 1);
        return (last < 0 ? table->model()->rowCount() - 1 : last) - std::max(0, table->rowAt(0)) + 1;
    }
    /// Ctrl+A in the map view: what a user does.
    void selectAllInMap() {
        map()->setFocus();
        QTest::keyClick(map(), Qt::Key_A, Qt::ControlModifier);
    }

    test::TempDir dir, recovery;
    std::unique_ptr<ui::MainWindow> window;
    QStringList errors;
};

}  // namespace

TEST(BakeBatches, GrowByDoublingFromTheFirstBatchToTheWholeSelection) {
    EXPECT_EQ(ui::batchEnds(1608), (std::vector<std::size_t>{16, 32, 64, 128, 256, 512, 1024, 1608}));
    EXPECT_EQ(ui::batchEnds(16), (std::vector<std::size_t>{16}));
    EXPECT_EQ(ui::batchEnds(3), (std::vector<std::size_t>{3}));
    EXPECT_EQ(ui::batchEnds(17), (std::vector<std::size_t>{16, 17}));  // the first batch stays
    EXPECT_TRUE(ui::batchEnds(0).empty());
    // The last batch grows the one before by at least half: 8,192 then 8,541 would bake and
    // assemble nearly everything twice.
    EXPECT_EQ(ui::batchEnds(8541), (std::vector<std::size_t>{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8541}));
    EXPECT_EQ(ui::batchEnds(40), (std::vector<std::size_t>{16, 40}));
    EXPECT_EQ(ui::batchEnds(48), (std::vector<std::size_t>{16, 32, 48}));
    EXPECT_EQ(ui::batchEnds(1200, 1100), (std::vector<std::size_t>{1100, 1200}));
}

TEST(BakeBatches, NearestFirstOrdersByDistanceFromTheFocusWhateverTheInputOrder) {
    std::vector<core::TileId> tiles;
    for (std::uint32_t y = 10; y < 20; ++y) {
        for (std::uint32_t x = 30; x < 40; ++x) tiles.push_back({17, x, y});
    }
    // The focus in the middle of tile (34, 12).
    const core::Vec2 focus{34.5 * 256, 12.5 * 256};
    const auto order = ui::nearestFirst(tiles, focus);
    ASSERT_EQ(order.size(), tiles.size());
    EXPECT_EQ(order.front(), (core::TileId{17, 34, 12}));
    const auto distance = [&](const core::TileId& t) {
        return std::hypot((t.x + 0.5) * 256 - focus.x, (t.y + 0.5) * 256 - focus.y);
    };
    for (std::size_t i = 1; i < order.size(); ++i) EXPECT_LE(distance(order[i - 1]), distance(order[i]));
    std::reverse(tiles.begin(), tiles.end());
    EXPECT_EQ(ui::nearestFirst(tiles, focus), order) << "ties are broken by position, not input order";
    EXPECT_EQ(std::set<core::TileId>(order.begin(), order.end()), std::set<core::TileId>(tiles.begin(), tiles.end()));
}

TEST_F(RegionWindow, SelectingEveryTileIsOneUndoableGestureThatFormatsOnlyTheRowsOnScreen) {
    selectAllInMap();
    const std::vector<core::TileId>& all = doc().layers().tiles();
    EXPECT_EQ(doc().selection(), core::sortedNorthToSouth(all));
    EXPECT_EQ(doc().undoStack()->undoText(), "Select all tiles");
    // The Edit menu has the same gesture.
    auto* action = window->findChild<QAction*>("selectAllTilesAction");
    ASSERT_TRUE(action);
    EXPECT_EQ(action->shortcut(), QKeySequence(QKeySequence::SelectAll));

    // The list holds every tile and formatted only what its view shows.
    ASSERT_EQ(rows()->rowCount(), int(all.size()));
    window->tilePicker()->table()->viewport()->repaint();
    QTest::qWait(20);
    EXPECT_GT(rows()->rowsFormatted(), 0u) << "the rows on screen were drawn";
    EXPECT_LE(rows()->rowsFormatted(), std::size_t(rowsOnScreen()))
        << "of " << all.size() << " rows, only those on screen are formatted";
    // Sorting a column of thousands of rows reads their figures, not their text.
    rows()->sort(ui::TileListModel::CoverageColumn, Qt::DescendingOrder);
    window->tilePicker()->table()->viewport()->repaint();
    EXPECT_LE(rows()->rowsFormatted(), std::size_t(rowsOnScreen()));
    EXPECT_GE(rows()->index(0, 1).data(Qt::UserRole).toDouble(),
              rows()->index(rows()->rowCount() - 1, 1).data(Qt::UserRole).toDouble());

    doc().undoStack()->undo();
    EXPECT_TRUE(doc().selection().empty());
    EXPECT_EQ(rows()->rowCount(), 0);
    doc().undoStack()->redo();
    EXPECT_EQ(doc().selection().size(), all.size());
}

TEST_F(RegionWindow, EveryTileBakesNearestTheViewFirstWithoutBlockingTheUiThread) {
    // The map view looks at a tile a third of the way down the map: the bake starts there.
    const std::vector<core::TileId> all = core::sortedNorthToSouth(doc().layers().tiles());
    const core::TileId looked = all[all.size() / 3];
    map()->goToTile(looked);
    ASSERT_TRUE(doc().bakeFocus());

    struct Shown {
        qint64 ms;
        std::vector<core::TileId> tiles;
        std::size_t buildingsRun;
    };
    std::vector<Shown> shown;
    QElapsedTimer clock;
    QObject::connect(&doc(), &ui::MapDocument::sceneChanged, [&] {
        const auto* buildings = doc().bakeReport().pass("buildings");
        shown.push_back({clock.elapsed(), doc().scene()->tiles, buildings ? buildings->tilesRun : 0});
    });
    test::StallWatch watch;
    const double rssBefore = test::residentMiB();
    clock.start();
    watch.start();
    selectAllInMap();
    const qint64 selectMs = clock.elapsed();
    ASSERT_TRUE(waitComplete(doc(), 600000)) << doc().lastError().toStdString();
    watch.stop();
    const qint64 allMs = clock.elapsed();

    // One scene per batch, not per tile; each holds the batches before it, nearest first.
    const std::vector<std::size_t> ends = ui::batchEnds(all.size());
    ASSERT_EQ(shown.size(), ends.size());
    const core::GroundFrame frame{{}, doc().project().zoom};
    const std::vector<core::TileId> order = ui::nearestFirst(all, frame.lonLatToCell(*doc().bakeFocus()));
    EXPECT_EQ(order.front(), looked);
    for (std::size_t i = 0; i < ends.size(); ++i) {
        std::vector<core::TileId> expected(order.begin(), order.begin() + std::ptrdiff_t(ends[i]));
        EXPECT_EQ(shown[i].tiles, core::sortedNorthToSouth(expected)) << "batch " << i;
    }
    EXPECT_EQ(doc().scene()->tiles, doc().selection());
    EXPECT_TRUE(doc().sceneComplete());
    // Each batch reuses what the batches before it placed: only the tiles near the edge of the
    // tiles baked so far (whose neighbours came in) are placed again.
    std::size_t buildingsRun = 0;
    for (const Shown& s : shown) buildingsRun += s.buildingsRun;
    EXPECT_GE(buildingsRun, all.size());
    EXPECT_LE(buildingsRun, 2 * all.size());
    // The list read the figures of the rows on screen only, batch after batch.
    window->tilePicker()->table()->viewport()->repaint();
    EXPECT_LE(rows()->rowsFormatted(), std::size_t(rowsOnScreen()));

    EXPECT_GE(watch.ticks(), 10);
    EXPECT_LT(watch.longestCpuMs(), double(kMaxUiStallMs))
        << "the UI thread worked " << watch.longestCpuMs() << " ms without serving its timer";
    std::cout << "[ figures  ] " << all.size() << " tiles: selected in " << selectMs << " ms, first "
              << shown.front().tiles.size() << " tiles shown after " << shown.front().ms << " ms, all after " << allMs
              << " ms in " << shown.size() << " batches; longest UI-thread stall " << watch.longestCpuMs()
              << " ms of its CPU (" << watch.longestWallMs() << " ms wall); resident " << test::residentMiB()
              << " MiB (" << rssBefore << " MiB before selecting)\n";
}

TEST_F(RegionWindow, ARuleEditDuringTheBakeRestartsOnlyWhatItAffectsAndEndsWithTheWholeBake) {
    // A cache budget well under what the region's tiles hold (about 270 MB): the tiles farthest
    // from the focus keep nothing between bakes, and the scene is the same.
    constexpr std::size_t kBudget = std::size_t{64} << 20;
    doc().setCacheBudget(kBudget);
    std::size_t buildingsRun = 0, scenes = 0;
    bool edited = false;
    QObject::connect(&doc(), &ui::MapDocument::sceneChanged, [&] {
        ++scenes;
        if (const auto* b = doc().bakeReport().pass("buildings")) buildingsRun += b->tilesRun;
        // Edited as soon as the first tiles show: the running bake is cancelled and starts again.
        if (!edited) {
            edited = true;
            ASSERT_TRUE(doc().editRule({"passes.vegetation.density", "0.3"}).ok());
        }
    });
    selectAllInMap();
    ASSERT_TRUE(waitComplete(doc(), 600000)) << doc().lastError().toStdString();
    ASSERT_TRUE(edited);
    const std::size_t tiles = doc().selection().size();
    // The restart reused what the first batch placed and went on growing as before.
    EXPECT_LE(buildingsRun, 2 * tiles);
    EXPECT_GT(scenes, 2u);

    // The same scene as one bake of the whole selection with the edited rules.
    auto input = core::pipeline::projectInput(doc().currentProject(), test::resourcesDir() / "rules" / "default.yaml");
    ASSERT_TRUE(input) << input.message();
    input->catalogueFile = test::resourcesDir() / "assets" / "catalogue.yaml";
    auto session = core::pipeline::Session::open(std::move(*input));
    ASSERT_TRUE(session) << session.message();
    ASSERT_TRUE((*session)->select(doc().selection()).ok());
    ASSERT_TRUE((*session)->setRules(doc().placementRules()).ok());
    core::placement::BakeOptions options;
    options.seed = doc().project().seed;
    auto whole = (*session)->bake(options);
    ASSERT_TRUE(whole) << whole.message();
    test::expectSameScene(*doc().scene(), *whole);
    const core::placement::BakeReport complete = doc().bakeReport();
    EXPECT_LE(complete.cachedBytes, kBudget);
    EXPECT_GT(complete.droppedTiles, 0u);
    EXPECT_LT(complete.droppedTiles, tiles);
    EXPECT_EQ(complete.cachedTiles + complete.droppedTiles, tiles);

    // An edit after the whole selection is in: one bake of the tiles shown, in which the
    // vegetation pass alone runs again where the cache kept the tiles' results, and every pass
    // where it dropped them.
    scenes = 0;
    buildingsRun = 0;
    std::size_t vegetationRun = 0;
    QObject::connect(&doc(), &ui::MapDocument::sceneChanged, [&] {
        if (const auto* v = doc().bakeReport().pass("vegetation")) vegetationRun += v->tilesRun;
    });
    ASSERT_TRUE(doc().editRule({"passes.vegetation.density", "0.2"}).ok());
    ASSERT_TRUE(waitComplete(doc(), 600000)) << doc().lastError().toStdString();
    EXPECT_EQ(scenes, 1u);
    EXPECT_EQ(buildingsRun, complete.droppedTiles);
    EXPECT_GT(vegetationRun, complete.droppedTiles);
    EXPECT_LE(vegetationRun, tiles);
}

TEST_F(RegionWindow, TheProbeGridOfEveryTileIsBuiltOffTheUiThreadAndProbesAsABuiltOneDoes) {
    selectAllInMap();
    ASSERT_TRUE(waitComplete(doc(), 600000)) << doc().lastError().toStdString();
    ui::ProbeTool* probe = window->probeTool();
    ASSERT_FALSE(probe->gridReady());  // the selection changed: nothing built yet
    // Turning the tool on builds the grid of every tile and their margin on the worker.
    test::StallWatch watch;
    QElapsedTimer clock;
    clock.start();
    watch.start();
    probe->setActive(true);
    ASSERT_TRUE(QTest::qWaitFor([&] { return probe->gridReady(); }, 60000));
    watch.stop();
    const qint64 builtMs = clock.elapsed();
    EXPECT_LT(watch.longestCpuMs(), double(kMaxUiStallMs))
        << "the UI thread worked " << watch.longestCpuMs() << " ms without serving its timer";
    EXPECT_GE(probe->grid().layerCount(), 2);

    // The worker's grid probes as one built on the spot: a tool that is not active builds its
    // grid when first asked, on the UI thread.
    ui::ProbeTool onTheSpot(&doc());
    ASSERT_FALSE(onTheSpot.gridReady());
    const std::vector<core::TileId> tiles = doc().selection();
    int blocked = 0, clear = 0;
    for (std::size_t i = 0; i < tiles.size(); i += 7) {
        for (const double f : {0.25, 0.5, 0.75}) {
            const core::Vec2 at{(tiles[i].x + f) * core::kTileCells, (tiles[i].y + 0.5) * core::kTileCells};
            const ui::ProbeOutcome a = probe->probe(at), b = onTheSpot.probe(at);
            EXPECT_EQ(a.blocked, b.blocked) << tiles[i].quadkey();
            EXPECT_EQ(a.layers, b.layers) << tiles[i].quadkey();
            (a.blocked ? blocked : clear)++;
        }
    }
    EXPECT_GT(blocked, 0);
    EXPECT_GT(clear, 0);
    std::cout << "[ figures  ] probe grid of " << tiles.size() << " tiles built off the UI thread in " << builtMs
              << " ms; longest UI-thread stall meanwhile " << watch.longestCpuMs() << " ms of its CPU; "
              << blocked + clear << " probes alike (" << blocked << " blocked)\n";
}
