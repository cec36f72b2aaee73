// Terrain in the app: DEMs added to and removed from the project through the document (undoable,
// saved, a bad one refused with its name), the ground height in the status bar and the probe
// dock, and the hillshade under the layers in the map view.

#include <gtest/gtest.h>

#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <fstream>

#include "support/test_dems.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/panels/probe_panel.h"
#include "terrabit/ui/views/layer_image.h"
#include "terrabit/ui/views/map_view.h"
#include "terrabit/ui/views/probe_tool.h"
#include "terrabit/ui/window/main_window.h"
#include "ui_test_support.h"

using namespace terrabit;

namespace {

/// The sample's centre, EPSG:3857 metres, where the test DEMs' planes pass through 100 m.
const core::Vec2 kCentre = core::lonLatToMercator({7.4268, 43.7393});

/// A plane rising 0.1 m per Mercator metre eastwards and southwards: its slopes face the
/// north-west, where the hillshade's light comes from.
double tilted(core::Vec2 m) { return 100.0 + 0.1 * (m.x - kCentre.x) - 0.1 * (m.y - kCentre.y); }

/// The ground a Session of the document's project answers at a cell: the DEM graded by the
/// map's roads, lakes and rivers (core/terrain/ground_grading.h), which is what the document's
/// layers must carry.
double sessionGround(const ui::MapDocument& doc, core::Vec2 cell) {
    auto input = core::pipeline::projectInput(doc.project(), test::resourcesDir() / "rules" / "default.yaml");
    EXPECT_TRUE(input.ok());
    if (!input.ok()) return std::nan("");
    input->passes = core::pipeline::PassNeed::None;
    input->threads = 2;
    auto session = core::pipeline::Session::open(std::move(*input));
    EXPECT_TRUE(session.ok()) << session.message();
    if (!session.ok()) return std::nan("");
    auto h = (*session)->groundHeight(core::GroundFrame{{}, doc.project().zoom}.cellToMercator(cell));
    return h.ok() ? double(*h) : std::nan("");
}

/// The centre of a tile in global cells.
core::Vec2 tileCentreCell(const core::TileId& t) { return {t.x * 256.0 + 128.0, t.y * 256.0 + 128.0}; }

class TerrainDocument : public testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(doc.openProject(test::samplePath()).ok());
        ASSERT_TRUE(doc.waitIdle());
        ASSERT_TRUE(doc.scene()) << doc.lastError().toStdString();
    }
    /// Adds a DEM and waits for the map to reopen on it.
    void addDem(const std::filesystem::path& dem) {
        ASSERT_TRUE(doc.addElevation(dem).ok()) << doc.lastError().toStdString();
        ASSERT_TRUE(doc.waitIdle());
    }
    /// The expected height at a cell of the project's zoom.
    double expected(core::Vec2 cell) const {
        return tilted(core::GroundFrame{{}, doc.project().zoom}.cellToMercator(cell));
    }

    test::TempDir dir;
    ui::MapDocument doc{test::resourcesDir()};
};

}  // namespace

TEST_F(TerrainDocument, AddingADemReopensOnTerrainUndoRemovesItAndTheProjectSavesIt) {
    const std::vector<core::TileId> selection = doc.selection();
    ASSERT_FALSE(doc.hasTerrain());
    const core::Vec2 probe = tileCentreCell(selection[0]);
    EXPECT_TRUE(std::isnan(doc.groundHeight(probe))) << "the flat world has no heights";

    const auto dem = core::test::writeMercatorDem(dir.path() / "tilted.tif", tilted);
    QSignalSpy changed(&doc, &ui::MapDocument::demsChanged);
    addDem(dem);
    EXPECT_EQ(changed.count(), 1);
    EXPECT_EQ(doc.project().dems, std::vector<std::filesystem::path>{dem});
    EXPECT_TRUE(doc.hasTerrain());
    EXPECT_TRUE(doc.modified());
    EXPECT_EQ(doc.undoStack()->count(), 1);
    EXPECT_EQ(doc.selection(), selection) << "reopening on terrain keeps the selection";
    ASSERT_TRUE(doc.scene()) << doc.lastError().toStdString();
    EXPECT_EQ(doc.scene()->tiles, selection) << "and bakes it again";
    const double ground = sessionGround(doc, probe);
    EXPECT_NEAR(doc.groundHeight(probe), ground, 1e-4);
    EXPECT_NEAR(ground, expected(probe), 10.0) << "the DEM's plane, graded by the map";
    // The same DEM twice is refused at once.
    EXPECT_FALSE(doc.addElevation(dem).ok());

    // Saved with the project and read back.
    const auto file = dir.path() / "with-dem.terrabit";
    ASSERT_TRUE(doc.saveProject(file).ok());
    {
        ui::MapDocument again{test::resourcesDir()};
        ASSERT_TRUE(again.openProject(file).ok());
        ASSERT_TRUE(again.waitIdle());
        EXPECT_EQ(again.project().dems, std::vector<std::filesystem::path>{dem});
        EXPECT_TRUE(again.hasTerrain());
        EXPECT_NEAR(again.groundHeight(probe), ground, 1e-4);
    }

    // Undo reopens the flat map, redo the terrain again.
    doc.undoStack()->undo();
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_TRUE(doc.project().dems.empty());
    EXPECT_FALSE(doc.hasTerrain());
    EXPECT_TRUE(std::isnan(doc.groundHeight(probe)));
    EXPECT_TRUE(doc.modified()) << "undone past the save point";
    doc.undoStack()->redo();
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_EQ(doc.project().dems, std::vector<std::filesystem::path>{dem});
    EXPECT_TRUE(doc.hasTerrain());
    EXPECT_FALSE(doc.modified()) << "back at the saved state";

    // Removing it is one more undoable step.
    ASSERT_TRUE(doc.removeElevation(dem).ok());
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_TRUE(doc.project().dems.empty());
    EXPECT_FALSE(doc.hasTerrain());
    EXPECT_EQ(doc.undoStack()->count(), 2);
    EXPECT_FALSE(doc.removeElevation(dem).ok()) << "not in the list any more";
}

TEST_F(TerrainDocument, ABadDemIsRefusedWithItsNameAndLeavesTheProjectAsItWas) {
    const auto bad = dir.path() / "not-a-dem.tif";
    std::ofstream(bad) << "this is not a raster\n";
    const auto scene = doc.scene();
    QSignalSpy failed(&doc, &ui::MapDocument::elevationFailed);
    QSignalSpy loadFailed(&doc, &ui::MapDocument::loadFailed);
    ASSERT_TRUE(doc.addElevation(bad).ok()) << "the DEM is read in the background";
    ASSERT_TRUE(doc.waitIdle());
    ASSERT_EQ(failed.count(), 1);
    EXPECT_EQ(loadFailed.count(), 0) << "a DEM's failure is not a failure to open the project";
    const QString message = failed.front().front().toString();
    EXPECT_TRUE(message.contains("not-a-dem.tif")) << message.toStdString();
    EXPECT_TRUE(doc.project().dems.empty());
    EXPECT_FALSE(doc.hasTerrain());
    EXPECT_TRUE(doc.hasMap());
    EXPECT_EQ(doc.undoStack()->count(), 0);
    EXPECT_FALSE(doc.modified());
    EXPECT_EQ(doc.scene(), scene) << "nothing was baked again";
}

TEST_F(TerrainDocument, HillshadeShadesTheBackgroundWhereThereAreHeightsAndAFlatDemChangesNothing) {
    const core::TileId tile = doc.selection()[0];
    const QColor background(100, 100, 100);
    const QImage flatWorld = ui::tileComposite(doc, tile, background);

    // A flat DEM: every cell gets the same shade, and that is the flat world's background.
    const auto flatDem = core::test::writeMercatorDem(dir.path() / "flat.tif", [](core::Vec2) { return 250.0; });
    addDem(flatDem);
    ASSERT_TRUE(doc.hasTerrain());
    EXPECT_EQ(ui::tileComposite(doc, tile, background), flatWorld);
    doc.undoStack()->undo();
    ASSERT_TRUE(doc.waitIdle());

    // Slopes facing the light: the background is lighter, the layers painted over it unchanged.
    addDem(core::test::writeMercatorDem(dir.path() / "tilted.tif", tilted));
    const QImage shaded = ui::tileComposite(doc, tile, background);
    EXPECT_NE(shaded, flatWorld);
    int background0 = 0, lighter = 0, layerPixels = 0, layersSame = 0;
    for (int y = 0; y < 256; ++y) {
        for (int x = 0; x < 256; ++x) {
            const QRgb before = flatWorld.pixel(x, y), after = shaded.pixel(x, y);
            if (before == background.rgb()) {
                ++background0;
                if (qRed(after) > 100 && qRed(after) == qGreen(after) && qGreen(after) == qBlue(after)) ++lighter;
            } else {
                ++layerPixels;
                if (before == after) ++layersSame;
            }
        }
    }
    ASSERT_GT(background0, 100);
    // Every background cell faces the light but where grading cut a road or a basin into the
    // plane: its 14 % is steeper than roads may climb, so Monaco's dense streets cut into it and
    // their embankments (on background cells) face every way; about a fifth of them here.
    EXPECT_GE(lighter, background0 * 3 / 4) << "the background faces the light";
    EXPECT_LT(lighter, background0) << "the graded roads' embankments are shaded too";
    EXPECT_EQ(layersSame, layerPixels);
}

// The probe stands where the exported collision grid does: on a bridge, on its deck, not in the
// ground under it. On rolling ground (a plane would not do: a deck straight between its ends lies
// on it) Monaco's decks stand clear of the ground under their middles.
TEST_F(TerrainDocument, TheProbeStandsOnBridgeDecksNotOnTheGroundUnderThem) {
    const auto rolling = [](core::Vec2 m) {
        return 100.0 + 12.0 * std::sin((m.x - kCentre.x) / 35.0) * std::sin((m.y - kCentre.y) / 35.0);
    };
    addDem(core::test::writeMercatorDem(dir.path() / "rolling.tif", rolling));
    const std::shared_ptr<const core::Scene> scene = doc.scene();
    ASSERT_TRUE(scene);
    ASSERT_FALSE(scene->bridges.empty()) << "the sample's selection holds bridges";
    // The middle of the deck segment that stands highest above the ground.
    core::Vec2 cell;
    double deck = 0.0, clearance = 0.0;
    for (const core::BridgeDeck& b : scene->bridges) {
        for (std::size_t i = 0; i + 1 < b.centreline.size(); ++i) {
            const core::Vec3f& p = b.centreline[i];
            const core::Vec3f& q = b.centreline[i + 1];
            const core::Vec3f m{(p.x + q.x) / 2, (p.y + q.y) / 2, (p.z + q.z) / 2};
            const core::Vec2 c = scene->frame.groundToCell({m.x, -m.z});
            const double top = double(m.y) + scene->originHeight;
            const double ground = doc.groundHeight(c);
            if (top - ground > clearance) {
                clearance = top - ground;
                cell = c;
                deck = top;
            }
        }
    }
    ASSERT_GT(clearance, 1.0) << "a deck clear of the ground";
    ui::ProbeTool probe(&doc);
    EXPECT_NEAR(probe.probe(cell).groundHeight, deck, 0.05)
        << "the deck's height, " << clearance << " m from the ground under it";
}

TEST(TerrainWindow, TheStatusBarAndTheProbeDockShowTheGroundHeight) {
    test::TempDir recovery, dir;
    ui::MainWindowOptions options;
    options.resourcesDir = test::resourcesDir();
    options.recoveryDir = recovery.path();
    options.viewport = false;
    options.autosaveSeconds = 0;
    ui::MainWindow window(options);
    QStringList errors;
    window.setErrorReporter([&](const QString&, const QString& m) { errors << m; });
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));

    // No map: the elevation entries are off.
    QAction* add = window.findChild<QAction*>("addElevationAction");
    QMenu* remove = window.findChild<QMenu*>("removeElevationMenu");
    ASSERT_TRUE(add && remove);
    EXPECT_FALSE(add->isEnabled());
    EXPECT_EQ(add->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));

    ui::MapDocument& doc = *window.document();
    ASSERT_TRUE(window.openFile(test::samplePath()));
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_TRUE(add->isEnabled());
    EXPECT_FALSE(remove->isEnabled()) << "nothing to remove yet";
    const core::TileId tile = doc.selection()[0];
    window.mapView()->goToTile(tile);
    const QPoint centre = window.mapView()->cellToWidget(tileCentreCell(tile)).toPoint();
    QTest::mouseMove(window.mapView(), centre);
    EXPECT_FALSE(window.coordinatesLabel()->text().contains(" m")) << "no height in the flat world";

    const auto dem = core::test::writeMercatorDem(dir.path() / "tilted.tif", tilted);
    ASSERT_TRUE(doc.addElevation(dem).ok());
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_TRUE(remove->isEnabled());
    EXPECT_TRUE(errors.isEmpty()) << errors.join("; ").toStdString();
    QTest::mouseMove(window.mapView(), centre + QPoint(1, 0));
    QTest::mouseMove(window.mapView(), centre);
    const QString text = window.coordinatesLabel()->text();
    const auto match = QRegularExpression(R"(h (-?\d+\.\d) m)").match(text);
    ASSERT_TRUE(match.hasMatch()) << text.toStdString();
    const core::Vec2 cell = window.mapView()->widgetToCell(centre);
    EXPECT_NEAR(match.captured(1).toDouble(), doc.groundHeight(cell), 0.051) << text.toStdString();
    EXPECT_NEAR(match.captured(1).toDouble(), sessionGround(doc, cell), 0.051);

    // The probe dock: the ground height where the probe is.
    ui::ProbeTool* probe = window.probeTool();
    const ui::ProbeOutcome outcome = probe->probe(tileCentreCell(tile));
    EXPECT_NEAR(outcome.groundHeight, doc.groundHeight(tileCentreCell(tile)), 1e-4);
    const QString shown = window.probePanel()->heightLabel()->text();
    EXPECT_EQ(shown, QString("Ground %1 m").arg(double(outcome.groundHeight), 0, 'f', 1));

    // Removing it through the menu's entry for the DEM makes the world flat again.
    emit remove->aboutToShow();
    ASSERT_EQ(remove->actions().size(), 1);
    remove->actions().front()->trigger();
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_TRUE(doc.project().dems.empty());
    EXPECT_FALSE(remove->isEnabled());
    EXPECT_TRUE(std::isnan(probe->probe(tileCentreCell(tile)).groundHeight));
    EXPECT_TRUE(window.probePanel()->heightLabel()->text().isEmpty());
}
