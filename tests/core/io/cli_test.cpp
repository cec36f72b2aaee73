// The built terrabit-cli executable, run as a user would: from the repository root and from the
// build tree, on the bundled sample and on bad input. Its outputs are opened with GDAL.

#include <gdal_priv.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io_test_support.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/tile/tile_id.h"

using namespace terrabit::core;

namespace {

const std::filesystem::path kSourceDir = TERRABIT_SOURCE_DIR;
const std::filesystem::path kCliDir = std::filesystem::path(TERRABIT_CLI).parent_path();

/// Opens every file the summary names with GDAL and checks it; returns the tiles checked.
std::size_t checkOutputs(const std::filesystem::path& out) {
    std::ifstream in(out / "summary.json");
    EXPECT_TRUE(in.good());
    const nlohmann::json summary = nlohmann::json::parse(in);
    const std::size_t layers = summary["layers"].size();
    EXPECT_GE(layers, 4u);
    EXPECT_EQ(summary["attribution"], "© OpenStreetMap contributors, ODbL 1.0");
    terrabit::core::io::initGdal();
    for (const auto& t : summary["tiles"]) {
        const auto open = [&](const std::string& rel, const char* driver) {
            GDALDataset* ds = GDALDataset::Open((out / rel).string().c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY,
                                                nullptr, nullptr, nullptr);
            EXPECT_NE(ds, nullptr) << rel;
            if (!ds) return;
            EXPECT_STREQ(ds->GetDriver()->GetDescription(), driver) << rel;
            EXPECT_EQ(ds->GetRasterXSize(), 256) << rel;
            double gt[6];
            if (std::string(driver) == "GTiff") {
                EXPECT_EQ(ds->GetGeoTransform(gt), CE_None) << rel;
            }
            GDALClose(GDALDataset::ToHandle(ds));
        };
        open(t["preview"], "PNG");
        EXPECT_EQ(t["layers"].size(), layers);
        for (const auto& [name, l] : t["layers"].items()) open(l["file"], "GTiff");
    }
    return summary["tiles"].size();
}

}  // namespace

TEST(Cli, RasterizesTheBundledSampleFromTheRepositoryRoot) {
    const auto out = test::scratchDir("cli-monaco");
    const auto r = test::runCli(
        {"rasterize", "resources/maps/monaco-2022-07-19.osm.pbf", "--zoom", "17", "--out", out.string()}, kSourceDir);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("summary.json"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("rasterizing 100%"), std::string::npos) << r.err;
    EXPECT_GT(checkOutputs(out), 150u);
}

TEST(Cli, FindsItsDefaultRulesFromTheBuildTree) {
    const auto out = test::scratchDir("cli-build-tree");
    const TileId harbour = *tileAt(lonLatToMercator({7.4245, 43.7355}), 17);
    const auto r = test::runCli({"-q", "rasterize", test::monacoPbf().string(), "--zoom", "17", "--tiles",
                                 harbour.quadkey(), "--out", out.string()},
                                kCliDir);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err.find("rasterizing"), std::string::npos);  // -q: no progress
    EXPECT_EQ(checkOutputs(out), 1u);
}

TEST(Cli, HelpDocumentsEveryCommandAndOption) {
    const auto top = test::runCli({"--help"}, kCliDir);
    EXPECT_EQ(top.exitCode, 0);
    for (const char* word : {"info", "tiles", "rasterize", "Exit codes", "ODbL"}) {
        EXPECT_NE(top.out.find(word), std::string::npos) << word << " missing from:\n" << top.out;
    }
    const auto rasterize = test::runCli({"rasterize", "--help"}, kCliDir);
    EXPECT_EQ(rasterize.exitCode, 0);
    for (const char* word :
         {"--zoom", "--tiles", "--bbox", "--rules", "--out", "--threads", "--open-option", "summary.json"}) {
        EXPECT_NE(rasterize.out.find(word), std::string::npos) << word << " missing from:\n" << rasterize.out;
    }
}

TEST(Cli, InfoAndTilesPrintWhatTheyPromise) {
    const auto info = test::runCli({"-q", "info", test::monacoPbf().string()}, kCliDir);
    ASSERT_EQ(info.exitCode, 0) << info.err;
    EXPECT_NE(info.out.find("suggested zoom: 17"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("trees"), std::string::npos);
    const auto tiles = test::runCli({"-q", "tiles", test::monacoPbf().string(), "--zoom", "15"}, kCliDir);
    ASSERT_EQ(tiles.exitCode, 0) << tiles.err;
    std::istringstream lines(tiles.out);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
        EXPECT_EQ(line.size(), 15u) << line;
        EXPECT_TRUE(TileId::fromQuadkey(line).ok()) << line;
        ++n;
    }
    EXPECT_GT(n, 4);
}

TEST(Cli, BadInputGivesClearMessagesAndTheRightExitCode) {
    const auto dir = test::scratchDir("cli-bad");
    auto r = test::runCli({"-q", "rasterize", "nowhere.osm.pbf", "--out", (dir / "o1").string()}, dir);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("nowhere.osm.pbf: no such file"), std::string::npos) << r.err;

    // Truncated: what comes before the cut is still rasterized, with a warning.
    test::copyPrefix(test::monacoPbf(), dir / "cut.osm.pbf", 300000);
    r = test::runCli({"-q", "rasterize", "cut.osm.pbf", "--zoom", "16", "--out", (dir / "o2").string()}, dir);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("cut.osm.pbf: truncated PBF"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "o2" / "summary.json"));

    test::copyPrefix(test::monacoPbf(), dir / "stub.osm.pbf", 1000);
    r = test::runCli({"-q", "rasterize", "stub.osm.pbf", "--out", (dir / "o3").string()}, dir);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("stub.osm.pbf"), std::string::npos) << r.err;

    r = test::runCli({"-q", "rasterize", test::monacoPbf().string(), "--zoom", "99", "--out", (dir / "o4").string()},
                     dir);
    EXPECT_EQ(r.exitCode, 2);
    r = test::runCli({"-q", "rasterize", test::monacoPbf().string()}, dir);  // no --out
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
}
