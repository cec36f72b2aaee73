// MapDocument, the controller behind the window: opening the sample, baking in the background,
// rule edits with undo, derived layers, saving and re-opening, exporting, cancelling, and bad
// input that leaves the open project as it was.

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTimer>

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "terrabit/core/algebra/area_coverage.h"
#include "terrabit/ui/document/freed_memory.h"
#include "terrabit/ui/document/map_document.h"
#include "ui_scene_support.h"
#include "ui_test_support.h"

using namespace terrabit;

namespace {

/// A document with the sample project opened and baked.
class SampleDocument : public testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(doc.openProject(test::samplePath()).ok());
        ASSERT_TRUE(doc.waitIdle());
        ASSERT_TRUE(doc.hasMap()) << doc.lastError().toStdString();
        ASSERT_TRUE(doc.scene()) << doc.lastError().toStdString();
    }
    ui::MapDocument doc{test::resourcesDir()};
};

std::size_t plants(const ui::MapDocument& d) { return d.scene()->statistics.vegetationInstances; }

/// The process's resident memory, bytes (/proc/self/statm).
std::size_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

TEST_F(SampleDocument, OpensTheSampleAndBakesItsSelectedTiles) {
    EXPECT_EQ(doc.selection().size(), 4u);
    EXPECT_EQ(doc.scene()->tiles, doc.selection());
    EXPECT_GT(doc.scene()->statistics.buildingsPlaced, 20u);
    EXPECT_GT(plants(doc), 20u);
    EXPECT_FALSE(doc.modified());
    // Every map tile with content was rasterized, not only the selection: the browser shows them.
    EXPECT_GT(doc.layers().tiles().size(), 100u);
    // The rows' coverage is the layer's share of the selected tiles' cells.
    const int building = doc.layers().layerId("building");
    ASSERT_GE(building, 0);
    std::int64_t cells = 0;
    for (const core::TileId& t : doc.selection()) {
        if (const core::BitTile* bits = doc.layers().tile(t, building)) cells += bits->count();
    }
    const ui::LayerRow& row = doc.layerRows()[std::size_t(building)];
    EXPECT_EQ(row.name, "building");
    EXPECT_EQ(row.coverage.cells, cells);
    EXPECT_DOUBLE_EQ(row.fraction, double(cells) / (65536.0 * 4));
    // The sample's derived layer is there, after the rules' named expressions.
    EXPECT_GE(doc.layers().layerId("quiet_green"), doc.layers().baseCount());
}

TEST_F(SampleDocument, VegetationDensityChangesTheScenePassByPassAndUndoRestoresIt) {
    const std::size_t before = plants(doc);
    const auto original = doc.scene();
    const double fullBakeMs = doc.bakeReport().milliseconds;
    ASSERT_TRUE(doc.editRule({"passes.vegetation.density", "0.3"}).ok());
    EXPECT_TRUE(doc.modified());
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_GT(plants(doc), before * 2) << "0.3 is far more than every class's default density";
    // Only the vegetation pass ran again: buildings and surfaces came from the baker's cache.
    const auto* buildings = doc.bakeReport().pass("buildings");
    const auto* vegetation = doc.bakeReport().pass("vegetation");
    ASSERT_TRUE(buildings && vegetation);
    EXPECT_EQ(buildings->tilesRun, 0u);
    EXPECT_EQ(vegetation->tilesRun, 4u);
    // Figures for the report (not asserted: timings never gate a test).
    std::cout << "[ figures  ] sample bake " << fullBakeMs << " ms, re-bake after a density edit "
              << doc.bakeReport().milliseconds << " ms (" << before << " -> " << plants(doc) << " plants)\n";

    doc.undoStack()->undo();
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_EQ(plants(doc), before);
    test::expectSameScene(*doc.scene(), *original);
    EXPECT_FALSE(doc.modified());
    doc.undoStack()->redo();
    ASSERT_TRUE(doc.waitIdle());
    EXPECT_GT(plants(doc), before * 2);
}

TEST_F(SampleDocument, EditsOfOneParameterMergeIntoOneUndoStep) {
    ASSERT_TRUE(doc.editRule({"passes.vegetation.density", "0.1"}).ok());
    ASSERT_TRUE(doc.editRule({"passes.vegetation.density", "0.2"}).ok());
    ASSERT_TRUE(doc.editRule({"passes.vegetation.density", "0.25"}).ok());
    EXPECT_EQ(doc.undoStack()->count(), 1);
    ASSERT_EQ(doc.project().ruleEdits.size(), 1u);
    EXPECT_EQ(doc.project().ruleEdits[0].value, "0.25");
}

TEST_F(SampleDocument, RefusedEditsSayWhyAndChangeNothing) {
    const auto rulesBefore = core::placement::PlacementRules::describe(doc.placementRules().passes().back());
    auto range = doc.editRule({"passes.vegetation.density", "1.5"});
    ASSERT_FALSE(range.ok());
    EXPECT_NE(range.message().find("0..1"), std::string::npos) << range.message();
    auto expression = doc.editRule({"passes.vegetation.zone", "vegetation - biulding"});
    ASSERT_FALSE(expression.ok());
    EXPECT_NE(expression.message().find("biulding"), std::string::npos) << expression.message();
    EXPECT_EQ(core::placement::PlacementRules::describe(doc.placementRules().passes().back()), rulesBefore);
    EXPECT_EQ(doc.undoStack()->count(), 0);
    EXPECT_FALSE(doc.busy());
}

TEST_F(SampleDocument, SavedProjectReopensToTheSameScene) {
    ASSERT_TRUE(doc.editRule({"passes.vegetation.classes.park.density", "0.2"}).ok());
    ASSERT_TRUE(doc.addDerivedLayer({"near_water", "dilate(water, 3m) - water", "#00bcd4"}).ok());
    ASSERT_TRUE(doc.waitIdle());
    const test::TempDir dir;
    const auto file = dir.path() / "mine.terrabit";
    ASSERT_TRUE(doc.saveProject(file).ok());
    EXPECT_FALSE(doc.modified());
    EXPECT_EQ(doc.projectFile(), file);

    ui::MapDocument again{test::resourcesDir()};
    ASSERT_TRUE(again.openProject(file).ok());
    ASSERT_TRUE(again.waitIdle());
    ASSERT_TRUE(again.scene());
    test::expectSameScene(*again.scene(), *doc.scene());
    EXPECT_EQ(again.project().ruleEdits, doc.project().ruleEdits);
    EXPECT_EQ(again.project().expressions, doc.project().expressions);
    EXPECT_GE(again.layers().layerId("near_water"), 0);
}

TEST_F(SampleDocument, ExportWritesAGlbInTheBackground) {
    const test::TempDir dir;
    QSignalSpy finished(&doc, &ui::MapDocument::exportFinished);
    core::ExportOptions options;
    options.formats = {core::ExportFormat::Glb};
    options.outDir = dir.path() / "out";
    ASSERT_TRUE(doc.startExport(options).ok());
    EXPECT_TRUE(doc.busy()) << "the export runs on the worker, not in startExport";
    ASSERT_TRUE(finished.wait(60000) || !finished.isEmpty());
    EXPECT_TRUE(finished.front()[0].toBool()) << finished.front()[1].toString().toStdString();
    std::ifstream glb(dir.path() / "out" / "scene.glb", std::ios::binary);
    ASSERT_TRUE(glb.good());
    char magic[4] = {};
    glb.read(magic, 4);
    EXPECT_EQ(std::string(magic, 4), "glTF");
    EXPECT_GT(std::filesystem::file_size(dir.path() / "out" / "scene.glb"), 10000u);
}

TEST_F(SampleDocument, ABrokenProjectFileIsRefusedWithItsPosition) {
    const test::TempDir dir;
    const auto file = dir.path() / "broken.terrabit";
    std::ofstream(file) << "{\n  \"format\": \"terrabit-project\",\n  \"version\": 1,\n  \"zoom\": \"high\"\n}\n";
    auto s = doc.openProject(file);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("broken.terrabit:4:11: zoom"), std::string::npos) << s.message();
    EXPECT_EQ(doc.projectFile(), test::samplePath());
    EXPECT_EQ(doc.selection().size(), 4u);
}

TEST_F(SampleDocument, ACorruptMapOrBrokenRulesLeaveTheOpenProjectAsItWas) {
    const auto sceneBefore = doc.scene();
    const test::TempDir dir;
    const auto map = dir.path() / "corrupt.osm.pbf";
    std::ofstream(map, std::ios::binary) << std::string("\x00\x00\x00\x0dnot a pbf at all", 20);
    QSignalSpy failed(&doc, &ui::MapDocument::loadFailed);
    ASSERT_TRUE(doc.openMap(map).ok()) << "the map is read in the background";
    ASSERT_TRUE(doc.waitIdle());
    ASSERT_EQ(failed.size(), 1);
    EXPECT_NE(failed.front()[0].toString().toStdString().find("corrupt.osm.pbf"), std::string::npos)
        << failed.front()[0].toString().toStdString();
    EXPECT_EQ(doc.projectFile(), test::samplePath());
    EXPECT_EQ(doc.scene(), sceneBefore);

    const auto rules = dir.path() / "broken.yaml";
    std::ofstream(rules) << "version: 1\nlayers:\n  - name: water\n    colur: \"#0000ff\"\n";
    core::project::Project p = doc.currentProject();
    p.rulesFile = rules;
    const auto project = dir.path() / "p.terrabit";
    ASSERT_TRUE(core::project::saveProject(p, project).ok());
    ASSERT_TRUE(doc.openProject(project).ok());
    ASSERT_TRUE(doc.waitIdle());
    ASSERT_EQ(failed.size(), 2);
    EXPECT_NE(failed.back()[0].toString().toStdString().find("broken.yaml:4:5"), std::string::npos)
        << failed.back()[0].toString().toStdString();
    EXPECT_EQ(doc.projectFile(), test::samplePath());
    EXPECT_EQ(doc.scene(), sceneBefore);
}

TEST_F(SampleDocument, ADerivedLayerThatDoesNotCompileIsRefused) {
    const std::size_t layers = doc.layerRows().size();
    auto bad = doc.addDerivedLayer({"shady", "vegetation & dilate(biulding, 2)", "#123456"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("biulding"), std::string::npos) << bad.message();
    auto clash = doc.addDerivedLayer({"road", "water", "#123456"});
    ASSERT_FALSE(clash.ok());
    auto name = doc.addDerivedLayer({"Bad Name", "water", "#123456"});
    ASSERT_FALSE(name.ok());
    EXPECT_EQ(doc.layerRows().size(), layers);
    ASSERT_TRUE(doc.addDerivedLayer({"shady", "vegetation & dilate(building, 2)", "#123456"}).ok());
    EXPECT_EQ(doc.layerRows().size(), layers + 1);
    doc.undoStack()->undo();
    EXPECT_EQ(doc.layerRows().size(), layers);
}

TEST_F(SampleDocument, ABigMapLoadsOffTheUiThreadAndCanBeCancelled) {
    // The Monaco region: 24,000 buildings, the largest sample. While it loads, a 10 ms timer on
    // the UI thread must keep ticking; cancelling leaves the sample open.
    core::project::Project p;
    p.map = std::filesystem::path(TERRABIT_TEST_DATA_DIR) / "monaco-region-2016-03-05.osm.pbf";
    const test::TempDir dir;
    const auto file = dir.path() / "region.terrabit";
    ASSERT_TRUE(core::project::saveProject(p, file).ok());

    QElapsedTimer clock;
    qint64 last = 0, longestGap = 0;
    QTimer ticker;
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        longestGap = std::max(longestGap, now - last);
        last = now;
    });
    QSignalSpy progress(&doc, &ui::MapDocument::progress);
    QSignalSpy failed(&doc, &ui::MapDocument::loadFailed);
    clock.start();
    ticker.start();
    ASSERT_TRUE(doc.openProject(file).ok());
    // Let it run until it reports progress, then cancel.
    ASSERT_TRUE(progress.wait(30000));
    EXPECT_TRUE(doc.busy());
    doc.cancel();
    QElapsedTimer waited;
    waited.start();
    while (doc.busy() && waited.elapsed() < 30000) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    ticker.stop();
    ASSERT_FALSE(doc.busy());
    ASSERT_EQ(failed.size(), 1);
    EXPECT_NE(failed.front()[0].toString().toLower().indexOf("cancel"), -1)
        << failed.front()[0].toString().toStdString();
    EXPECT_EQ(doc.projectFile(), test::samplePath());
    EXPECT_LT(longestGap, 500) << "the UI thread was blocked for " << longestGap << " ms";
}

TEST(FreedMemory, WhatTheMiddleOfTheHeapFreedGoesBackToTheSystem) {
    // 256 MiB in pieces below the allocator's mmap threshold, as a scene's blocks and patches
    // are, then all freed but the last, which keeps the heap's top where it was: the freed pages
    // stay resident until they are handed back.
    constexpr std::size_t kPiece = 4096, kPieces = 65536, kTotal = kPiece * kPieces;
    std::vector<std::unique_ptr<char[]>> pieces(kPieces);
    for (auto& p : pieces) {
        p = std::make_unique<char[]>(kPiece);
        std::memset(p.get(), 1, kPiece);
    }
    const std::size_t full = residentBytes();
    for (std::size_t i = 0; i + 1 < kPieces; ++i) pieces[i].reset();
    const std::size_t freed = residentBytes();
    ui::releaseFreedMemoryNow();
    const std::size_t released = residentBytes();
    EXPECT_GT(freed + kTotal / 4, full) << "freeing alone gave the pages back: nothing to hand back";
    EXPECT_LT(released + kTotal / 2, freed) << "resident: " << (full >> 20) << " MiB full, " << (freed >> 20)
                                            << " MiB freed, " << (released >> 20) << " MiB after";
}
