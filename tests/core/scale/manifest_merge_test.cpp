// The join of manifests (terrabit::cli::runMerge) on hand-made parts: the merged line arrays hold every
// part's elements in key order, byte for byte, whether the parts' tiles lie apart (their lines
// copied in a few long runs) or interleave element by element (a run per element) — and with
// runs longer than the join's look-ahead, so it gallops and bisects.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "../support/scratch_dir.h"
#include "terrabit/cli/merge_command.h"
#include "terrabit/core/scale/shard_merge.h"
#include "terrabit/core/scale/shard_record.h"

namespace terrabit::test {
namespace {

using namespace core;
namespace fs = std::filesystem;

/// One part: its tiles (row-major order) and the instance and building lines it bakes.
struct Part {
    std::vector<TileId> tiles;
    std::vector<std::string> instances;  ///< in the part's (tile) order
    std::vector<std::string> buildings;  ///< in the part's (source) order
};

TileId tile(std::uint32_t x, std::uint32_t y) { return *TileId::fromZxy(4, x, y); }

/// An instance line of `t`, numbered so that every line differs.
std::string instanceLine(const TileId& t, int n) {
    return R"({"asset":"palm","index":)" + std::to_string(n) + R"(,"tile":")" + t.quadkey() +
           R"(","transform":[1,0,0,0,0,1,0,0,0,0,1,0,)" + std::to_string(n) + ",0,0,1]}";
}

std::string buildingLine(const std::string& source, const TileId& t) {
    return R"({"asset":"villa","outcome":"placed","source":")" + source + R"(","tile":")" + t.quadkey() + "\"}";
}

/// A line array as encodeManifest writes it.
std::string lineArray(const std::vector<std::string>& lines) {
    if (lines.empty()) return "[]";
    std::string text = "[\n";
    for (std::size_t i = 0; i < lines.size(); ++i) text += "    " + lines[i] + (i + 1 < lines.size() ? ",\n" : "\n");
    return text + "  ]";
}

void writePart(const fs::path& folder, int index, int count, const Part& part) {
    fs::create_directories(folder);
    std::ofstream(folder / "manifest.json", std::ios::binary)
        << "{\n"
        << "  \"assets\": [\"palm\",\"villa\"],\n"
        << "  \"buildings\": " << lineArray(part.buildings) << ",\n"
        << "  \"format\": \"terrabit-manifest\",\n"
        << "  \"frame\": {\"zoom\":4},\n"
        << "  \"instanceCount\": " << part.instances.size() << ",\n"
        << "  \"instances\": " << lineArray(part.instances) << ",\n"
        << "  \"rulesSha256\": \"ab\",\n"
        << "  \"seed\": 0,\n"
        << "  \"statistics\": {\"buildingsBlocked\":0,\"buildingsPlaced\":" << part.buildings.size()
        << ",\"buildingsUnmatched\":0,\"instancesPerAsset\":{\"palm\":" << part.instances.size()
        << "},\"vegetationCellsRequested\":0,\"vegetationInstances\":0},\n"
        << "  \"tiles\": [],\n"
        << "  \"version\": 1\n"
        << "}\n";
    scale::ShardRecord record;
    record.shard = scale::ShardSpec{index, count};
    record.tiles = part.tiles;
    record.files = {"manifest.json"};
    ASSERT_TRUE(scale::writeShardRecord(folder, record));
}

/// The text of the line array `key` in a manifest, from its "[" to its "]".
std::string arrayText(const std::string& manifest, const std::string& key) {
    const std::string header = "  \"" + key + "\": ";
    const std::size_t at = manifest.find(header);
    if (at == std::string::npos) return {};
    const std::size_t from = at + header.size();
    if (manifest.compare(from, 2, "[]") == 0) return "[]";
    const std::size_t to = manifest.find("\n  ]", from);
    return to == std::string::npos ? std::string() : manifest.substr(from, to + 4 - from);
}

class ManifestMergeTest : public ::testing::Test {
protected:
    /// Merges `parts` (given in reverse: the join must not depend on the order) and checks the
    /// merged arrays against the expected ones; returns the merge's report line.
    std::string merge(const std::vector<Part>& parts, const std::vector<std::string>& instances,
                      const std::vector<std::string>& buildings) {
        terrabit::cli::MergeCommand command;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            const fs::path folder = mDir / ("part" + std::to_string(k));
            writePart(folder, static_cast<int>(k), static_cast<int>(parts.size()), parts[k]);
            command.shards.insert(command.shards.begin(), folder);
        }
        command.outDir = mDir / "merged";
        std::ostringstream out, err;
        EXPECT_EQ(terrabit::cli::runMerge(command, out, err), 0) << err.str();
        std::ifstream in(command.outDir / "manifest.json", std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        EXPECT_EQ(arrayText(text.str(), "instances"), lineArray(instances));
        EXPECT_EQ(arrayText(text.str(), "buildings"), lineArray(buildings));
        EXPECT_NE(text.str().find("  \"instanceCount\": " + std::to_string(instances.size()) + ",\n"),
                  std::string::npos);
        return out.str();
    }

    const ScratchDir mScratch;
    const fs::path mDir = mScratch.path();
};

/// The runs the merge reports for instances and buildings.
std::pair<int, int> runsOf(const std::string& report) {
    static const std::regex runs(R"(instances in (\d+) runs, \d+ buildings in (\d+) runs)");
    std::smatch m;
    if (!std::regex_search(report, m, runs)) return {-1, -1};
    return {std::stoi(m[1]), std::stoi(m[2])};
}

TEST_F(ManifestMergeTest, PartsWhoseTilesLieApartAreCopiedInOneRunEach) {
    // Part 0 holds rows 0-1, part 1 rows 2-3: in row-major order their tiles never interleave.
    // Thousands of lines a tile make runs far longer than the join's first look-ahead.
    std::vector<Part> parts(2);
    std::vector<std::string> instances;
    int n = 0;
    for (std::uint32_t y = 0; y < 4; ++y) {
        for (std::uint32_t x = 3; x < 6; ++x) {
            Part& p = parts[y / 2];
            p.tiles.push_back(tile(x, y));
            for (int i = 0; i < 1500; ++i) {
                p.instances.push_back(instanceLine(tile(x, y), n++));
                instances.push_back(p.instances.back());
            }
        }
    }
    parts[0].buildings = {buildingLine("r1", tile(3, 0)), buildingLine("r2", tile(4, 1))};
    parts[1].buildings = {buildingLine("r3", tile(3, 2))};
    const std::string report =
        merge(parts, instances, {parts[0].buildings[0], parts[0].buildings[1], parts[1].buildings[0]});
    EXPECT_EQ(runsOf(report), std::make_pair(2, 2)) << report;
}

TEST_F(ManifestMergeTest, PartsThatInterleaveMergeElementByElement) {
    // A checkerboard: each row's tiles alternate between the parts, so every tile is a run,
    // one of a single line and one of hundreds; buildings alternate by source.
    std::vector<Part> parts(2);
    std::vector<std::string> instances, buildings;
    int n = 0;
    for (std::uint32_t y = 0; y < 3; ++y) {
        for (std::uint32_t x = 0; x < 5; ++x) {  // odd: rows end and start on different parts
            Part& p = parts[(x + y) % 2];
            p.tiles.push_back(tile(x, y));
            for (int i = 0, lines = (x + y) % 2 == 0 ? 1 : 700; i < lines; ++i) {
                p.instances.push_back(instanceLine(tile(x, y), n++));
                instances.push_back(p.instances.back());
            }
        }
    }
    for (int b = 0; b < 9; ++b) {
        // Sources sort as text: r10 < r11 < … < r18, alternating parts.
        Part& p = parts[b % 2];
        p.buildings.push_back(buildingLine("r1" + std::to_string(b), p.tiles.front()));
        buildings.push_back(p.buildings.back());
    }
    const std::string report = merge(parts, instances, buildings);
    EXPECT_EQ(runsOf(report), std::make_pair(15, 9)) << report;
}

TEST_F(ManifestMergeTest, APartWithoutLinesAddsNone) {
    std::vector<Part> parts(3);
    parts[0].tiles = {tile(0, 0)};
    parts[0].instances = {instanceLine(tile(0, 0), 0)};
    parts[1].tiles = {tile(1, 0)};  // a tile where nothing was placed
    parts[2].tiles = {tile(2, 0)};
    parts[2].instances = {instanceLine(tile(2, 0), 1)};
    parts[2].buildings = {buildingLine("w5", tile(2, 0))};
    const std::string report = merge(parts, {parts[0].instances[0], parts[2].instances[0]}, parts[2].buildings);
    EXPECT_EQ(runsOf(report), std::make_pair(2, 1)) << report;
}

}  // namespace
}  // namespace terrabit::test
