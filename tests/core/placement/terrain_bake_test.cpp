// terrabit-cli bake --dem: the scene's frame (originHeight) in the manifest, the GLB's extras and
// the tileset; buildings' ground ranges and the terrain statistics in the manifest; and the same
// bytes whole, streamed a batch at a time, sharded and merged, and at one or two threads.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/output_files.h"
#include "../support/scratch_dir.h"
#include "support/resources_dir.h"
#include "support/test_dems.h"
#include "terrabit/cli/bake_command.h"
#include "terrabit/core/scale/shard_merge.h"

namespace terrabit::test {
namespace {

using namespace core;
namespace fs = std::filesystem;

/// The JSON chunk of a GLB file.
nlohmann::json glbJson(const std::string& bytes) {
    std::uint32_t length = 0;
    if (bytes.size() < 20) return {};
    std::memcpy(&length, bytes.data() + 12, 4);
    return nlohmann::json::parse(bytes.substr(20, length));
}

class TerrainBakeTest : public ::testing::Test {
protected:
    void SetUp() override {
        const Vec2 centre = lonLatToMercator(core::test::kMonacoCentre);
        // A plane rising 8 m per 100 m east over the harbour.
        mDem = core::test::writeMercatorDem(
            mDir / "plane.tif", [centre](Vec2 m) { return 40.0 + 0.08 * (m.x - centre.x); }, 5.0, 2500.0);
    }

    terrabit::cli::BakeCommand command(const std::string& out) const {
        terrabit::cli::BakeCommand c;
        c.input.file = kResources + "/maps/monaco-2022-07-19.osm.pbf";
        c.input.rules = kResources + "/rules/default.yaml";
        c.catalogue = kResources + "/assets/catalogue.yaml";
        c.selection.zoom = 17;
        // 3 × 3 tiles over the harbour keep the test quick.
        c.selection.bboxLonLat = Box2{{7.418, 43.731}, {7.428, 43.738}};
        c.outDir = mDir / out;
        c.seed = 7;
        c.threads = 2;
        c.dems = {mDem};
        c.batchTiles = 0;
        return c;
    }

    const ScratchDir mScratch;
    const fs::path mDir = mScratch.path();
    fs::path mDem;
};

TEST_F(TerrainBakeTest, BakeWithADemRecordsTheOriginHeightInTheManifestTheGlbAndTheTileset) {
    terrabit::cli::BakeCommand c = command("glb");
    c.formats = {ExportFormat::Manifest, ExportFormat::Glb, ExportFormat::Tiles3d};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
    EXPECT_NE(out.str().find("terrain: origin height "), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("blocked by slope"), std::string::npos) << out.str();

    const auto manifest = nlohmann::json::parse(readFile(mDir / "glb" / "manifest.json"));
    ASSERT_TRUE(manifest["frame"].contains("originHeight")) << manifest["frame"].dump();
    const double originHeight = manifest["frame"]["originHeight"].get<double>();
    EXPECT_TRUE(std::isfinite(originHeight));
    const auto& st = manifest["statistics"];
    ASSERT_TRUE(st.contains("buildingsBlockedBySlope"));
    EXPECT_LT(st["minHeight"].get<double>(), st["maxHeight"].get<double>());
    std::size_t grounded = 0;
    for (const auto& b : manifest["buildings"]) {
        if (b["outcome"] != "placed") continue;
        ASSERT_TRUE(b.contains("ground")) << b.dump();
        const double lo = b["ground"][0].get<double>(), hi = b["ground"][1].get<double>();
        EXPECT_LE(lo, hi);
        // The transform's translation y is the base less the origin height.
        EXPECT_NEAR(b["transform"][13].get<double>() + originHeight, lo, 1e-3) << b.dump();
        ++grounded;
    }
    EXPECT_GT(grounded, 20u);

    const auto glb = glbJson(readFile(mDir / "glb" / "scene.glb"));
    ASSERT_TRUE(glb.contains("asset")) << "not a GLB";
    const auto& extras = glb["asset"]["extras"]["terrabit"];
    ASSERT_TRUE(extras.contains("originHeight")) << extras.dump();
    EXPECT_DOUBLE_EQ(extras["originHeight"].get<double>(), originHeight);
    bool plinths = false;
    for (const auto& m : glb["materials"]) plinths = plinths || m["name"] == "plinth";
    EXPECT_TRUE(plinths) << "the GLB draws the plinths";

    const auto tileset = nlohmann::json::parse(readFile(mDir / "glb" / "3dtiles" / "tileset.json"));
    EXPECT_DOUBLE_EQ(tileset["asset"]["extras"]["terrabit"]["originHeight"].get<double>(), originHeight);
    // The regions carry real heights: everything here stands tens of metres above the datum.
    EXPECT_GT(tileset["root"]["boundingVolume"]["region"][5].get<double>(), originHeight);
}

TEST_F(TerrainBakeTest, WithoutADemNothingOfTerrainIsWritten) {
    terrabit::cli::BakeCommand c = command("flat");
    c.dems.clear();
    c.formats = {ExportFormat::Manifest, ExportFormat::Glb};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
    EXPECT_EQ(out.str().find("terrain:"), std::string::npos);
    const std::string manifest = readFile(mDir / "flat" / "manifest.json");
    EXPECT_EQ(manifest.find("originHeight"), std::string::npos);
    EXPECT_EQ(manifest.find("\"ground\""), std::string::npos);
    EXPECT_EQ(readFile(mDir / "flat" / "scene.glb").find("originHeight"), std::string::npos);
}

TEST_F(TerrainBakeTest, WholeStreamedShardedAndAtOneThreadTheSameBytes) {
    // The collision grid with heights (version 2) too.
    const std::vector<ExportFormat> formats{ExportFormat::Manifest, ExportFormat::Tiles3d, ExportFormat::Collision};
    std::ostringstream out, err;
    terrabit::cli::BakeCommand whole = command("whole");
    whole.formats = formats;
    ASSERT_EQ(terrabit::cli::runBake(whole, out, err), 0) << err.str();
    EXPECT_NE(readFile(mDir / "whole" / "manifest.json").find("originHeight"), std::string::npos);

    terrabit::cli::BakeCommand streamed = command("streamed");
    streamed.formats = formats;
    streamed.batchTiles = 2;
    terrabit::cli::BakeFootprint footprint;
    streamed.footprint = &footprint;
    ASSERT_EQ(terrabit::cli::runBake(streamed, out, err), 0) << err.str();
    EXPECT_GT(footprint.batches, 2u);
    expectSameFiles(mDir / "whole", mDir / "streamed");

    terrabit::cli::BakeCommand one = command("one");
    one.formats = formats;
    one.threads = 1;
    ASSERT_EQ(terrabit::cli::runBake(one, out, err), 0) << err.str();
    expectSameFiles(mDir / "whole", mDir / "one");

    std::vector<fs::path> shards;
    for (int k = 0; k < 2; ++k) {
        terrabit::cli::BakeCommand shard = command("shard" + std::to_string(k));
        shard.formats = formats;
        shard.shard = {k, 2};
        ASSERT_EQ(terrabit::cli::runBake(shard, out, err), 0) << err.str();
        shards.push_back(shard.outDir);
    }
    scale::MergeJob job;
    job.shards = shards;
    job.outDir = mDir / "merged";
    scale::MergeReport report;
    const Status merged = scale::mergeShards(job, report);
    ASSERT_TRUE(merged.ok()) << merged.message();
    expectSameFiles(mDir / "whole", mDir / "merged");
}

// Bad DEM input does not stop the bake: each bad file is left out, named with its problem, and
// the good DEM makes the ground; a DEM far from the map is named as not overlapping it.
TEST_F(TerrainBakeTest, ABadDemBesideAGoodOneIsLeftOutNamedAndTheBakeGoesOn) {
    const fs::path notes = mDir / "notes.txt";
    std::ofstream(notes) << "this is not a raster\n";
    // A DEM 30 km west of the map (UTM 32N, like the others).
    core::test::DemGrid far = core::test::monacoGrid(50.0, 1000.0);
    far.west -= 30000.0;
    core::test::writeDem(mDir / "far.tif", core::test::kUtm32N, far, [](int, int) { return 5.0; });
    terrabit::cli::BakeCommand c = command("mixed");
    c.dems = {mDem, notes, mDir / "far.tif"};
    c.formats = {ExportFormat::Manifest, ExportFormat::Glb};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
    EXPECT_NE(err.str().find(notes.string() + ": not a raster GDAL can read"), std::string::npos) << err.str();
    EXPECT_NE(err.str().find((mDir / "far.tif").string() + ": does not overlap the map"), std::string::npos)
        << err.str();
    EXPECT_EQ(err.str().find(mDem.string() + ": does not overlap"), std::string::npos) << err.str();
    // The terrain scene was written, on the good DEM's heights.
    const auto manifest = nlohmann::json::parse(readFile(mDir / "mixed" / "manifest.json"));
    ASSERT_TRUE(manifest["frame"].contains("originHeight")) << manifest["frame"].dump();
    EXPECT_GT(manifest["statistics"]["maxHeight"].get<double>(), manifest["statistics"]["minHeight"].get<double>());
    EXPECT_TRUE(fs::exists(mDir / "mixed" / "scene.glb"));
}

TEST_F(TerrainBakeTest, OnlyBadDemsBakeTheFlatWorldAndSaySo) {
    const fs::path notes = mDir / "notes.txt";
    std::ofstream(notes) << "this is not a raster\n";
    terrabit::cli::BakeCommand c = command("flat-bad");
    c.dems = {notes};
    c.formats = {ExportFormat::Manifest};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
    EXPECT_NE(err.str().find(notes.string() + ": not a raster"), std::string::npos) << err.str();
    EXPECT_NE(err.str().find("no usable DEM is left; the ground is flat"), std::string::npos) << err.str();
    const std::string manifest = readFile(mDir / "flat-bad" / "manifest.json");
    EXPECT_EQ(manifest.find("originHeight"), std::string::npos);
}

// What was filled is reported: a fine DEM with a nodata hole over the coarser plane; the warning
// names the count and the coarse file, the manifest's terrain statistics hold the scene's count.
TEST_F(TerrainBakeTest, SamplesFilledFromACoarserDemAreNamedInTheWarningsAndTheManifest) {
    const Vec2 centre = core::test::monacoUtm();
    const core::test::DemGrid fine = core::test::monacoGrid(2.0, 2000.0);
    // The hole: 300 m square, 700 m north of Monaco's centre, inside the baked tiles.
    core::test::writeDem(
        mDir / "holey.tif", core::test::kUtm32N, fine,
        [&](int col, int row) {
            const double x = fine.centreX(col) - centre.x, y = fine.centreY(row) - centre.y - 700.0;
            return std::abs(x) < 150.0 && std::abs(y) < 150.0 ? -9999.0 : 40.0;
        },
        -9999.0);
    terrabit::cli::BakeCommand c = command("filled");
    c.dems = {mDem, mDir / "holey.tif"};
    c.formats = {ExportFormat::Manifest};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
    const std::string text = err.str();
    const std::string lead = "terrain: ";
    const std::string filled = " samples filled from a coarser DEM (" + mDem.string() + ": ";
    const std::size_t at = text.find(filled);
    ASSERT_NE(at, std::string::npos) << text;
    const std::size_t lineStart = text.rfind(lead, at);
    ASSERT_NE(lineStart, std::string::npos) << text;
    const std::uint64_t warned = std::stoull(text.substr(lineStart + lead.size(), at - lineStart - lead.size()));
    EXPECT_GT(warned, 10000u) << text;
    EXPECT_EQ(std::stoull(text.substr(at + filled.size())), warned) << "one coarser DEM filled them all";
    const auto manifest = nlohmann::json::parse(readFile(mDir / "filled" / "manifest.json"));
    const auto& st = manifest["statistics"];
    ASSERT_TRUE(st.contains("heightsFilledFromCoarser")) << st.dump();
    const std::uint64_t scene = st["heightsFilledFromCoarser"].get<std::uint64_t>();
    // The scene's tiles hold the hole; the warning counts every tile sampled (their neighbours too).
    EXPECT_GT(scene, 10000u);
    EXPECT_LE(scene, warned);
    EXPECT_EQ(st["heightsAbsurd"].get<std::uint64_t>(), 0u);
}

}  // namespace
}  // namespace terrabit::test
