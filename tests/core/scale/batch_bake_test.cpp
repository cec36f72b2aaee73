// A streamed bake (BakeCommand::batchTiles): the Monaco sample baked a batch of tiles at a time
// writes the same files, byte for byte, as the bake of every tile at once — for any batch size
// and thread count — while holding only a batch and its halo at once.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "../support/monaco_bake.h"
#include "../support/output_files.h"
#include "../support/resources_dir.h"
#include "../support/scratch_dir.h"
#include "terrabit/cli/bake_command.h"
#include "terrabit/cli/merge_command.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/scale/shard_merge.h"
#include "terrabit/core/scale/shard_record.h"

namespace terrabit::test {
namespace {

using namespace core;
namespace fs = std::filesystem;

class BatchBakeTest : public ::testing::Test {
protected:
    /// The harbour bake (support/monaco_bake.h) into
    /// every format a join puts together, streamed `batchTiles` tiles at a time (0: all at once).
    terrabit::cli::BakeCommand command(const fs::path& out, std::size_t batchTiles) const {
        terrabit::cli::BakeCommand c = harbourBake(out);
        c.formats = {ExportFormat::Manifest, ExportFormat::Tiles3d, ExportFormat::Layers, ExportFormat::Collision};
        c.batchTiles = batchTiles;
        return c;
    }

    int bake(terrabit::cli::BakeCommand c, terrabit::cli::BakeFootprint* footprint = nullptr) {
        std::ostringstream out, err;
        c.footprint = footprint;
        const int code = terrabit::cli::runBake(c, out, err);
        mLastOut = out.str();
        mLastErr = err.str();
        return code;
    }

    const ScratchDir mScratch;
    const fs::path mDir = mScratch.path();
    std::string mLastOut, mLastErr;
};

TEST_F(BatchBakeTest, AnyBatchSizeWritesTheFilesOfTheWholeBake) {
    terrabit::cli::BakeFootprint whole;
    ASSERT_EQ(bake(command(mDir / "whole", 0), &whole), 0) << mLastErr;
    EXPECT_EQ(whole.batches, 1u);
    ASSERT_GT(whole.tiles, 7u);
    const std::string wholeSummary = mLastOut;
    // 1: every tile alone; 3 and 7: runs that split the block unevenly; 1000: more than the map.
    for (const std::size_t batch : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{1000}}) {
        SCOPED_TRACE("batch of " + std::to_string(batch));
        const fs::path out = mDir / ("batch" + std::to_string(batch));
        terrabit::cli::BakeFootprint footprint;
        ASSERT_EQ(bake(command(out, batch), &footprint), 0) << mLastErr;
        EXPECT_EQ(footprint.batches, (whole.tiles + batch - 1) / batch);
        EXPECT_LE(footprint.peakSceneTiles, batch);
        expectSameFiles(mDir / "whole", out);
        EXPECT_FALSE(fs::exists(out / ".terrabit-batches")) << "the batches' work folder is left behind";
        // The summary adds up to the whole bake's: buildings, instances, assets, densities.
        for (const std::string key : {"buildings: ", "instances: ", "vegetation: ", "surfaces: "}) {
            const auto line = [&](const std::string& text) {
                const std::size_t at = text.find(key);
                return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
            };
            EXPECT_EQ(line(mLastOut), line(wholeSummary));
        }
    }
}

TEST_F(BatchBakeTest, ManyBatchesAreJoinedInRoundsIntoTheSameFiles) {
    ASSERT_EQ(bake(command(mDir / "whole", 0)), 0) << mLastErr;
    // A tile a batch, joined three at a time: several rounds of groups before the folder.
    terrabit::cli::BakeCommand c = command(mDir / "rounds", 1);
    c.joinMaxOpen = 3;
    terrabit::cli::BakeFootprint footprint;
    ASSERT_EQ(bake(c, &footprint), 0) << mLastErr;
    EXPECT_GT(footprint.batches, 9u);
    expectSameFiles(mDir / "whole", mDir / "rounds");  // and no round's folder is left
}

TEST_F(BatchBakeTest, AnyThreadCountStreamsTheSameFiles) {
    terrabit::cli::BakeCommand c = command(mDir / "one", 4);
    c.threads = 1;
    ASSERT_EQ(bake(c), 0) << mLastErr;
    c.outDir = mDir / "two";
    c.threads = 2;
    ASSERT_EQ(bake(c), 0) << mLastErr;
    expectSameFiles(mDir / "one", mDir / "two");
}

TEST_F(BatchBakeTest, AStreamedBakeHoldsABatchAndItsHaloNotTheMap) {
    // The whole sample at zoom 18, every tile with content: hundreds of tiles, many times the
    // halo a batch bakes around itself.
    terrabit::cli::BakeCommand c = command(mDir / "whole", 0);
    c.selection.bboxLonLat = {};
    c.selection.zoom = 18;
    c.formats = {ExportFormat::Manifest};
    terrabit::cli::BakeFootprint all;
    ASSERT_EQ(bake(c, &all), 0) << mLastErr;
    ASSERT_GT(all.tiles, 400u);
    EXPECT_EQ(all.peakRasterTiles, all.tiles);  // at once, every tile's layers are held

    c.outDir = mDir / "streamed";
    c.batchTiles = 8;
    terrabit::cli::BakeFootprint streamed;
    ASSERT_EQ(bake(c, &streamed), 0) << mLastErr;
    EXPECT_EQ(streamed.tiles, all.tiles);
    EXPECT_GE(streamed.batches, all.tiles / 8);
    EXPECT_LE(streamed.peakSceneTiles, 8u);
    // The halo (the building phases' chain reaches about ten tiles) is most of this map still;
    // the scene, which the manifest is written from, is the batch alone.
    EXPECT_LT(streamed.peakRasterTiles, all.tiles);
    EXPECT_LT(streamed.peakInstances * 4, all.peakInstances)
        << streamed.peakInstances << " of " << all.peakInstances << " instances held at once";
    expectSameFiles(mDir / "whole", mDir / "streamed");
}

TEST_F(BatchBakeTest, StreamedShardsMergeIntoTheWholeBake) {
    ASSERT_EQ(bake(command(mDir / "whole", 0)), 0) << mLastErr;
    terrabit::cli::MergeCommand merge;
    for (int k = 0; k < 2; ++k) {
        terrabit::cli::BakeCommand c = command(mDir / ("shard" + std::to_string(k)), 3);
        c.shard = scale::ShardSpec{k, 2};
        terrabit::cli::BakeFootprint footprint;
        ASSERT_EQ(bake(c, &footprint), 0) << mLastErr;
        EXPECT_GT(footprint.batches, 1u);  // a shard streams its own tiles
        EXPECT_LE(footprint.peakSceneTiles, 3u);
        merge.shards.push_back(c.outDir);
    }
    merge.outDir = mDir / "merged";
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runMerge(merge, out, err), 0) << err.str();
    expectSameFiles(mDir / "whole", mDir / "merged");
}

TEST_F(BatchBakeTest, TheGlbIsWrittenABatchAtATimeAsTheWholeBakeWritesIt) {
    terrabit::cli::BakeCommand c = command(mDir / "whole", 0);
    c.formats = {ExportFormat::Manifest, ExportFormat::Glb, ExportFormat::Tiles3d};
    terrabit::cli::BakeFootprint whole;
    ASSERT_EQ(bake(c, &whole), 0) << mLastErr;
    EXPECT_EQ(whole.peakGlbHeldBytes, 0u);  // not streamed
    for (const bool plainNodes : {false, true}) {
        SCOPED_TRACE(plainNodes ? "plain nodes" : "instanced");
        c.plainNodes = plainNodes;
        c.batchTiles = 0;
        c.outDir = mDir / (plainNodes ? "whole-plain" : "whole");
        if (plainNodes) {
            ASSERT_EQ(bake(c), 0) << mLastErr;
        }
        c.outDir = mDir / (plainNodes ? "batches-plain" : "batches");
        c.batchTiles = 3;
        terrabit::cli::BakeFootprint streamed;
        ASSERT_EQ(bake(c, &streamed), 0) << mLastErr;
        EXPECT_GT(streamed.batches, 2u);
        // A batch's scene at a time, the GLB's encoded data in files but for their buffers.
        EXPECT_LT(streamed.peakInstances * 2, whole.peakInstances);
        EXPECT_GT(streamed.peakGlbHeldBytes, 0u);
        EXPECT_LE(streamed.peakGlbHeldBytes, std::uint64_t{8} << 20);
        EXPECT_NE(mLastOut.find("scene.glb written a batch at a time"), std::string::npos) << mLastOut;
        expectSameFiles(mDir / (plainNodes ? "whole-plain" : "whole"), c.outDir);
    }
    // The GLB alone streams too (its batches have nothing else to join).
    c.plainNodes = false;
    c.formats = {ExportFormat::Glb};
    c.outDir = mDir / "glb-only";
    ASSERT_EQ(bake(c), 0) << mLastErr;
    EXPECT_EQ(readFile(mDir / "glb-only" / "scene.glb"), readFile(mDir / "whole" / "scene.glb"));
    EXPECT_FALSE(fs::exists(mDir / "glb-only" / ".terrabit-batches"));
}

TEST_F(BatchBakeTest, TheCliBatchTilesOptionKeepsTheFiles) {
    const std::string base = std::string(TERRABIT_CLI) + " --quiet bake " + kResources +
                             "/maps/monaco-2022-07-19.osm.pbf --zoom 17 --bbox 7.412,43.728,7.432,43.741 --seed 11 "
                             "--threads 2 --format manifest,3dtiles --out ";
    ASSERT_EQ(std::system((base + (mDir / "zero").string() + " --batch-tiles 0 >/dev/null 2>&1").c_str()), 0);
    ASSERT_EQ(std::system((base + (mDir / "five").string() + " --batch-tiles 5 >/dev/null 2>&1").c_str()), 0);
    expectSameFiles(mDir / "zero", mDir / "five");
}

}  // namespace
}  // namespace terrabit::test
