// Shards of a bake of the Monaco sample, merged, against the bake of every tile on one machine:
// the same files, byte for byte — through the library, the built terrabit-cli (--shard, the
// array-job variables, merge) and, when MPI is built in, mpirun. A failed shard is named and
// can be rerun alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
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

/// Every file a bake wrote, byte for byte, leaving out shard records and work folders.
void expectSameFiles(const fs::path& expected, const fs::path& actual) {
    test::expectSameFiles(expected, actual, [](const std::string& relative) {
        return relative == scale::kShardRecordFile || relative.rfind(".terrabit-shards", 0) == 0;
    });
}

int run(const std::string& commandLine) { return std::system((commandLine + " >/dev/null 2>&1").c_str()); }

/// The osgb group files a bake wrote (scene/<quadkey>.osgb), by name.
std::set<std::string> groupFiles(const fs::path& bake) {
    std::set<std::string> names;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(bake / "scene", ec)) {
        names.insert(e.path().filename().string());
    }
    return names;
}

class ShardBakeTest : public ::testing::Test {
protected:
    /// The harbour bake (support/monaco_bake.h) into 3D Tiles and the manifest.
    terrabit::cli::BakeCommand command(const fs::path& out) const {
        terrabit::cli::BakeCommand c = harbourBake(out);
        c.formats = {ExportFormat::Tiles3d, ExportFormat::Manifest};
        return c;
    }

    int bake(terrabit::cli::BakeCommand c) {
        std::ostringstream out, err;
        const int code = terrabit::cli::runBake(c, out, err);
        mLastErr = err.str();
        return code;
    }

    /// The CLI's arguments for the same bake.
    std::string cliArgs(const fs::path& out) const {
        return std::string(" --quiet bake ") + kResources + "/maps/monaco-2022-07-19.osm.pbf --zoom 17 --bbox " +
               "7.412,43.728,7.432,43.741 --seed 11 --threads 2 --format 3dtiles,manifest,osgb,glb --out " +
               out.string();
    }

    const ScratchDir mScratch;
    const fs::path mDir = mScratch.path();
    std::string mLastErr;
};

TEST_F(ShardBakeTest, TwoShardsMergedEqualTheSingleMachineBake) {
    terrabit::cli::BakeCommand whole = command(mDir / "whole");
    whole.formats.push_back(ExportFormat::Layers);     // per-tile files, copied by merge
    whole.formats.push_back(ExportFormat::Collision);  // joined a tile at a time
    whole.formats.push_back(ExportFormat::Glb);        // encoded from the shards' scene.part
    ASSERT_EQ(bake(whole), 0) << mLastErr;
    for (int k = 0; k < 2; ++k) {
        terrabit::cli::BakeCommand c = whole;
        c.outDir = mDir / ("shard" + std::to_string(k));
        c.shard = scale::ShardSpec{k, 2};
        ASSERT_EQ(bake(c), 0) << mLastErr;
    }
    const auto a = scale::readShardRecord(mDir / "shard0");
    const auto b = scale::readShardRecord(mDir / "shard1");
    ASSERT_TRUE(a && b);
    EXPECT_FALSE(a->tiles.empty());
    EXPECT_FALSE(b->tiles.empty());
    EXPECT_GE(a->bakedTiles, a->tiles.size());

    terrabit::cli::MergeCommand merge;
    merge.shards = {mDir / "shard1", mDir / "shard0"};  // any order
    merge.outDir = mDir / "merged";
    std::vector<std::pair<double, std::string>> told;
    merge.progress = [&](double fraction, std::string_view stage) {
        told.emplace_back(fraction, stage);
        return true;
    };
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runMerge(merge, out, err), 0) << err.str();
    expectSameFiles(mDir / "whole", mDir / "merged");
    // Progress went up to the end, through every output, a step per tile for the big ones.
    ASSERT_FALSE(told.empty());
    EXPECT_TRUE(
        std::is_sorted(told.begin(), told.end(), [](const auto& x, const auto& y) { return x.first < y.first; }));
    EXPECT_EQ(told.back(), (std::pair<double, std::string>{1.0, "joined"}));
    std::map<std::string, int> steps;
    for (const auto& [fraction, stage] : told) ++steps[stage];
    for (const char* stage : {"joining 3dtiles", "joining manifest.json", "joining collision.tbcg", "joining layers",
                              "joining scene.glb"}) {
        EXPECT_GE(steps[stage], 1) << stage;
    }
    EXPECT_GT(steps["joining 3dtiles"], static_cast<int>(a->tiles.size()));
    EXPECT_GT(steps["joining scene.glb"], static_cast<int>(a->tiles.size()));

    // Cancelled halfway through scene.glb: the folder keeps the first merge's files, and no
    // work folder is left.
    const auto before = test::filesUnder(merge.outDir);
    merge.progress = [](double fraction, std::string_view stage) {
        return !(stage == "joining scene.glb" && fraction > 0.9);
    };
    err.str("");
    EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 1) << err.str();  // 130 from the CLI's Ctrl-C
    EXPECT_NE(err.str().find("merge cancelled"), std::string::npos) << err.str();
    EXPECT_TRUE(test::filesUnder(merge.outDir) == before);
}

TEST_F(ShardBakeTest, OneShardOfOneIsTheWholeBakeWithItsRecord) {
    ASSERT_EQ(bake(command(mDir / "whole")), 0) << mLastErr;
    EXPECT_FALSE(fs::exists(mDir / "whole" / scale::kShardRecordFile));  // not a shard
    terrabit::cli::BakeCommand c = command(mDir / "only");
    c.shard = scale::ShardSpec{0, 1};  // an array job of one task
    ASSERT_EQ(bake(c), 0) << mLastErr;
    terrabit::cli::MergeCommand merge;
    merge.shards = {mDir / "only"};
    merge.outDir = mDir / "merged";
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runMerge(merge, out, err), 0) << err.str();
    expectSameFiles(mDir / "whole", mDir / "merged");
}

TEST_F(ShardBakeTest, AShardKeepsTheLevelSourcesItsMergeRebuildsTheCoarseLevelsFrom) {
    terrabit::cli::BakeCommand c = command(mDir / "shard0");
    c.shard = scale::ShardSpec{0, 1};
    c.batchTiles = 4;  // streamed in batches, whose level sources the shard keeps
    ASSERT_EQ(bake(c), 0) << mLastErr;
    const auto record = scale::readShardRecord(mDir / "shard0");
    ASSERT_TRUE(record);
    ASSERT_FALSE(record->tiles.empty());
    for (const TileId& t : record->tiles) {
        EXPECT_TRUE(fs::is_regular_file(mDir / "shard0" / "3dtiles" / "levels" / (t.quadkey() + ".json")))
            << t.quadkey();
    }
    // A shard without them (one baked before the levels existed) is named, with what to do.
    fs::remove(mDir / "shard0" / "3dtiles" / "levels" / (record->tiles.front().quadkey() + ".json"));
    terrabit::cli::MergeCommand merge;
    merge.shards = {mDir / "shard0"};
    merge.outDir = mDir / "merged";
    std::ostringstream out, err;
    EXPECT_NE(terrabit::cli::runMerge(merge, out, err), 0);
    EXPECT_NE(err.str().find(record->tiles.front().quadkey() + ".json"), std::string::npos) << err.str();
    EXPECT_NE(err.str().find("rebake the shard"), std::string::npos) << err.str();
}

TEST_F(ShardBakeTest, AFailedShardIsNamedAndCanBeRerunAlone) {
    ASSERT_EQ(bake(command(mDir / "whole")), 0) << mLastErr;
    terrabit::cli::BakeCommand first = command(mDir / "shard0");
    first.shard = scale::ShardSpec{0, 2};
    ASSERT_EQ(bake(first), 0) << mLastErr;
    // Shard 1 cannot write: its output folder is a file.
    std::ofstream(mDir / "blocked") << "not a folder";
    terrabit::cli::BakeCommand second = command(mDir / "blocked");
    second.shard = scale::ShardSpec{1, 2};
    EXPECT_NE(bake(second), 0);

    terrabit::cli::MergeCommand merge;
    merge.shards = {mDir / "shard0", mDir / "blocked"};
    merge.outDir = mDir / "merged";
    std::ostringstream out, err;
    EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 1);
    EXPECT_NE(err.str().find("blocked is a file, not a shard's output folder"), std::string::npos) << err.str();
    // Given only the good shard, merge names the one to rerun.
    merge.shards = {mDir / "shard0"};
    err.str("");
    EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 1);
    EXPECT_NE(err.str().find("shard 1/2 is missing"), std::string::npos) << err.str();
    EXPECT_FALSE(fs::exists(mDir / "merged" / "manifest.json"));

    second.outDir = mDir / "shard1";
    ASSERT_EQ(bake(second), 0) << mLastErr;
    merge.shards = {mDir / "shard0", mDir / "shard1"};
    err.str("");
    ASSERT_EQ(terrabit::cli::runMerge(merge, out, err), 0) << err.str();
    expectSameFiles(mDir / "whole", mDir / "merged");
}

TEST_F(ShardBakeTest, ShardsOfDifferentBakesDoNotMerge) {
    for (int k = 0; k < 2; ++k) {
        terrabit::cli::BakeCommand c = command(mDir / ("shard" + std::to_string(k)));
        c.shard = scale::ShardSpec{k, 2};
        c.seed = 11 + static_cast<std::uint64_t>(k);  // a different seed for each
        ASSERT_EQ(bake(c), 0) << mLastErr;
    }
    terrabit::cli::MergeCommand merge;
    merge.shards = {mDir / "shard0", mDir / "shard1"};
    merge.outDir = mDir / "merged";
    // What the output folder held before stays as it was: the mismatch shows only while the
    // tilesets are joined, after the checks of the shard records.
    fs::create_directories(merge.outDir / "3dtiles");
    { std::ofstream(merge.outDir / "3dtiles" / "tileset.json") << "an earlier merge"; }
    std::ostringstream out, err;
    EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 1);
    EXPECT_NE(err.str().find("different bake"), std::string::npos) << err.str();
    EXPECT_EQ(test::filesUnder(merge.outDir),
              (std::map<std::string, std::string>{{"3dtiles/tileset.json", "an earlier merge"}}));
    EXPECT_EQ(out.str().find("wrote"), std::string::npos) << out.str();

    // Into one of the shards: refused before anything is read or written.
    merge.outDir = mDir / "shard1";
    const auto shardFiles = test::filesUnder(merge.outDir);
    err.str("");
    EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 2);
    EXPECT_NE(err.str().find("is one of the shards"), std::string::npos) << err.str();
    EXPECT_TRUE(test::filesUnder(merge.outDir) == shardFiles);
    merge.outDir = mDir / "merged";

    // The same seed, but shard 1 without the tileset: merging would lose its tiles.
    terrabit::cli::BakeCommand c = command(mDir / "shard1");
    c.shard = scale::ShardSpec{1, 2};
    c.seed = 11;
    c.formats = {ExportFormat::Manifest};
    fs::remove_all(mDir / "shard1");
    ASSERT_EQ(bake(c), 0) << mLastErr;
    terrabit::cli::BakeCommand c0 = command(mDir / "shard0");
    c0.shard = scale::ShardSpec{0, 2};
    fs::remove_all(mDir / "shard0");
    ASSERT_EQ(bake(c0), 0) << mLastErr;
    err.str("");
    EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 1);
    EXPECT_NE(err.str().find("different --format"), std::string::npos) << err.str();

    // The same bake with a GLB each, one of plain nodes: no file can be encoded from both.
    for (int k = 0; k < 2; ++k) {
        terrabit::cli::BakeCommand g = command(mDir / ("shard" + std::to_string(k)));
        g.shard = scale::ShardSpec{k, 2};
        g.formats = {ExportFormat::Glb};
        g.plainNodes = k == 1;
        fs::remove_all(g.outDir);
        ASSERT_EQ(bake(g), 0) << mLastErr;
    }
    err.str("");
    EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 1);
    EXPECT_NE(err.str().find("different GLB options"), std::string::npos) << err.str();
    EXPECT_FALSE(fs::exists(merge.outDir / "scene.glb"));
}

TEST_F(ShardBakeTest, TheCliShardsByFlagAndByArrayJobVariablesAndMerges) {
    const std::string cli = TERRABIT_CLI;
    ASSERT_EQ(run(cli + cliArgs(mDir / "whole")), 0);
    // Shard 0 streamed a batch of tiles at a time: its scene.part holds a part per batch.
    ASSERT_EQ(run(cli + cliArgs(mDir / "s0") + " --shard 0/2 --batch-tiles 16"), 0);
    // Shard 1 as a Slurm array task would run it (sbatch --array=0-1).
    ASSERT_EQ(run("SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 " + cli + cliArgs(mDir / "s1")), 0);
    const auto record = scale::readShardRecord(mDir / "s1");
    ASSERT_TRUE(record) << record.message();
    EXPECT_EQ(record->shard, (scale::ShardSpec{1, 2}));
    ASSERT_EQ(run(cli + " --quiet merge " + (mDir / "s0").string() + " " + (mDir / "s1").string() + " --out " +
                  (mDir / "merged").string()),
              0);
    expectSameFiles(mDir / "whole", mDir / "merged");
    // The shards kept their share of scene.glb, not a GLB of their tiles alone.
    for (const char* shard : {"s0", "s1"}) {
        EXPECT_TRUE(fs::exists(mDir / shard / kScenePartFile)) << shard;
        EXPECT_FALSE(fs::exists(mDir / shard / "scene.glb")) << shard;
    }
    // The osgb's groups (4 of up to 64 tiles here) were cut between the shards, whole.
    EXPECT_GE(groupFiles(mDir / "s0").size(), 1u);
    EXPECT_GE(groupFiles(mDir / "s1").size(), 1u);
    EXPECT_EQ(groupFiles(mDir / "s0").size() + groupFiles(mDir / "s1").size(), groupFiles(mDir / "whole").size());
    // A missing shard fails the merge.
    EXPECT_NE(run(cli + " --quiet merge " + (mDir / "s0").string() + " --out " + (mDir / "m2").string()), 0);
}

TEST_F(ShardBakeTest, AnOlderShardsGlbIsNamedAndLeftOut) {
    // Shards of a terrabit-cli before scene.part wrote a GLB of their own tiles instead.
    for (int k = 0; k < 2; ++k) {
        terrabit::cli::BakeCommand c = command(mDir / ("s" + std::to_string(k)));
        c.formats.push_back(ExportFormat::Glb);
        c.shard = scale::ShardSpec{k, 2};
        ASSERT_EQ(bake(c), 0) << mLastErr;
        auto record = scale::readShardRecord(c.outDir);
        ASSERT_TRUE(record);
        ASSERT_EQ(std::erase(record->files, std::string(kScenePartFile)), 1u);
        record->files.push_back("scene.glb");
        fs::rename(c.outDir / kScenePartFile, c.outDir / "scene.glb");
        ASSERT_TRUE(scale::writeShardRecord(c.outDir, *record));
    }
    terrabit::cli::MergeCommand merge;
    merge.shards = {mDir / "s0", mDir / "s1"};
    merge.outDir = mDir / "merged";
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runMerge(merge, out, err), 0) << err.str();
    EXPECT_FALSE(fs::exists(merge.outDir / "scene.glb"));
    EXPECT_TRUE(fs::exists(merge.outDir / "manifest.json"));
    for (const char* shard : {"s0", "s1"}) {
        EXPECT_NE(err.str().find((mDir / shard / "scene.glb").string() + " covers the shard's tiles only"),
                  std::string::npos)
            << err.str();
    }
    EXPECT_NE(err.str().find("bake the shards again with this terrabit-cli"), std::string::npos) << err.str();
}

TEST_F(ShardBakeTest, AShardRecordNamingAFileOutsideItsFolderIsRefusedBeforeAnythingIsCopied) {
    // merge reads each file a record names from the shard's folder and writes it at the same
    // path in its output: a damaged or hostile record must not lead either outside.
    for (int k = 0; k < 2; ++k) {
        terrabit::cli::BakeCommand c = command(mDir / ("s" + std::to_string(k)));
        c.formats = {ExportFormat::Layers};
        c.shard = scale::ShardSpec{k, 2};
        ASSERT_EQ(bake(c), 0) << mLastErr;
    }
    std::ofstream(mDir / "outside.txt") << "not the shard's";
    const std::string record = readFile(mDir / "s1" / scale::kShardRecordFile);
    for (const std::string& bad :
         {std::string("layers/../../outside.txt"), std::string("/etc/hostname"), std::string("layers//x.tif"),
          std::string("layers/./x.tif"), std::string(), std::string("layers/x\0.tif", 13)}) {
        auto tampered = scale::decodeShardRecord(record, "s1");
        ASSERT_TRUE(tampered) << tampered.message();
        tampered->files.push_back(bad);
        std::ofstream(mDir / "s1" / scale::kShardRecordFile) << scale::encodeShardRecord(*tampered);

        terrabit::cli::MergeCommand merge;
        merge.shards = {mDir / "s0", mDir / "s1"};
        merge.outDir = mDir / "merged";
        std::ostringstream out, err;
        EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 1) << bad;
        EXPECT_NE(err.str().find("is not a path inside the shard's folder"), std::string::npos) << err.str();
        EXPECT_NE(err.str().find((mDir / "s1" / scale::kShardRecordFile).string()), std::string::npos) << err.str();
        EXPECT_FALSE(fs::exists(merge.outDir / "layers")) << bad;
    }
    EXPECT_EQ(readFile(mDir / "outside.txt"), "not the shard's");
}

TEST_F(ShardBakeTest, ATilesetLeafWhoseContentIsNotABakedTileIsRefused) {
    // merge copies each baked tile's content from the shard's 3dtiles/ to its own at the uri the
    // shard's tileset gives: only tiles/QUADKEY.glb may lead there.
    for (int k = 0; k < 2; ++k) {
        terrabit::cli::BakeCommand c = command(mDir / ("s" + std::to_string(k)));
        c.shard = scale::ShardSpec{k, 2};
        ASSERT_EQ(bake(c), 0) << mLastErr;
    }
    std::ofstream(mDir / "outside.glb") << "not a tile";
    const fs::path tileset = mDir / "s1" / "3dtiles" / "tileset.json";
    const std::string text = readFile(tileset);
    const std::size_t at = text.find("\"tiles/1");
    ASSERT_NE(at, std::string::npos);
    const std::size_t end = text.find('"', at + 1);
    for (const std::string bad : {"../../outside.glb", "/etc/hostname", "tiles/../../../outside.glb", "tiles/x.glb"}) {
        std::ofstream(tileset) << text.substr(0, at + 1) << bad << text.substr(end);
        terrabit::cli::MergeCommand merge;
        merge.shards = {mDir / "s0", mDir / "s1"};
        merge.outDir = mDir / "merged";
        std::ostringstream out, err;
        EXPECT_EQ(terrabit::cli::runMerge(merge, out, err), 1) << bad;
        EXPECT_NE(
            err.str().find(tileset.string() + ": a baked tile's content \"" + bad + "\" is not tiles/QUADKEY.glb"),
            std::string::npos)
            << err.str();
        EXPECT_FALSE(fs::exists(merge.outDir / "3dtiles" / "tileset.json")) << bad;
    }
    EXPECT_EQ(readFile(mDir / "outside.glb"), "not a tile");
}

TEST_F(ShardBakeTest, OsgbShardsJoinUnderOneRootAndAGroupCutBetweenShardsIsRefused) {
    const std::string cli = TERRABIT_CLI;
    ASSERT_EQ(run(cli + cliArgs(mDir / "s0") + " --shard 0/2"), 0);
    ASSERT_EQ(run(cli + cliArgs(mDir / "s1") + " --shard 1/2"), 0);
    std::vector<std::string> all;
    for (const char* shard : {"s0", "s1"}) {
        for (const std::string& f : groupFiles(mDir / shard)) all.push_back(fs::path(f).stem().string());
    }
    std::sort(all.begin(), all.end());
    ASSERT_GE(all.size(), 2u);

    // Without a root writer (no render module) the osgb is left out, and said so.
    terrabit::cli::MergeCommand merge;
    merge.shards = {mDir / "s0", mDir / "s1"};
    merge.outDir = mDir / "plain";
    scale::MergeReport report;
    ASSERT_TRUE(scale::mergeShards(merge, report));
    EXPECT_EQ(report.unjoinable, (std::vector<fs::path>{mDir / "s0" / "scene.osgb", mDir / "s1" / "scene.osgb"}));
    EXPECT_FALSE(fs::exists(mDir / "plain" / "scene.osgb"));
    EXPECT_FALSE(fs::exists(mDir / "plain" / "scene"));

    // With one, every group file is copied and the root is asked for all of them, in order.
    std::vector<std::string> asked;
    merge.sceneGraphRoot = [&](std::span<const std::string> groups, const fs::path& file) {
        asked.assign(groups.begin(), groups.end());
        std::ofstream(file) << "root";
        return Status::success();
    };
    merge.outDir = mDir / "joined";
    report = {};
    ASSERT_TRUE(scale::mergeShards(merge, report));
    EXPECT_TRUE(report.unjoinable.empty());
    EXPECT_EQ(asked, all);
    EXPECT_EQ(groupFiles(mDir / "joined").size(), all.size());
    EXPECT_EQ(readFile(mDir / "joined" / "scene.osgb"), "root");

    // A group in both shards (as shards cut without osgb in mind would write) is refused, by
    // name, and the output folder keeps what it held.
    const std::string moved = *groupFiles(mDir / "s1").begin();
    fs::copy_file(mDir / "s1" / "scene" / moved, mDir / "s0" / "scene" / moved);
    auto record = scale::readShardRecord(mDir / "s0");
    ASSERT_TRUE(record);
    record->files.push_back("scene/" + moved);
    ASSERT_TRUE(scale::writeShardRecord(mDir / "s0", *record));
    report = {};
    const Status refused = scale::mergeShards(merge, report);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("group " + fs::path(moved).stem().string()), std::string::npos)
        << refused.message();
    EXPECT_NE(refused.message().find("s0"), std::string::npos) << refused.message();
    EXPECT_EQ(readFile(mDir / "joined" / "scene.osgb"), "root");
}

#ifdef TERRABIT_MPIRUN
TEST_F(ShardBakeTest, MpirunWithTwoRanksGivesTheSingleMachineBake) {
    const std::string cli = TERRABIT_CLI;
    ASSERT_EQ(run(cli + cliArgs(mDir / "whole")), 0);
    // As root (containers, CI) OpenMPI refuses to start without these.
    const std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                               std::string(TERRABIT_MPIRUN) + " -np 2 --oversubscribe ";
    const fs::path log = mDir / "mpi.log";
    ASSERT_EQ(std::system((mpirun + cli + cliArgs(mDir / "mpi") + " --mpi >" + log.string() + " 2>&1").c_str()), 0)
        << readFile(log);
    EXPECT_FALSE(fs::exists(mDir / "mpi" / ".terrabit-shards"));
    expectSameFiles(mDir / "whole", mDir / "mpi");
    // Rank 0 printed what every rank did: the units handed out add up.
    const std::string printed = readFile(log);
    EXPECT_NE(printed.find("mpi: 2 ranks, 4 units, "), std::string::npos) << printed;
    std::istringstream lines(printed);
    int units = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("  rank ", 0) == 0) units += std::stoi(line.substr(line.find(": ") + 2));
    }
    EXPECT_EQ(units, 4) << printed;
}
#endif

}  // namespace
}  // namespace terrabit::test
