// The built terrabit-cli executable, run as a user would: from the repository root and from the
// build tree, on the bundled sample and on bad input. Its outputs are opened with GDAL.

#include <gdal_priv.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io_test_support.h"
#include "support/test_dems.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/io/pbf_check.h"
#include "terrabit/core/tile/tile_id.h"

using namespace terrabit::core;
namespace io = terrabit::core::io;

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
    // After the command, as users type it, -q is the same flag.
    const auto after = test::runCli({"rasterize", test::monacoPbf().string(), "--zoom", "17", "--tiles",
                                     harbour.quadkey(), "--out", out.string(), "-q"},
                                    kCliDir);
    ASSERT_EQ(after.exitCode, 0) << after.err;
    EXPECT_EQ(after.err.find("rasterizing"), std::string::npos) << after.err;
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

TEST(Cli, EveryMapCommandAcceptsADem) {
    const auto dir = test::scratchDir("cli-dem");
    const std::filesystem::path dem = test::writeMercatorDem(
        dir / "flat.tif", [](Vec2) { return 120.0; }, 20.0, 3000.0);
    const auto info = test::runCli({"-q", "info", test::monacoPbf().string(), "--dem", dem.string()}, kCliDir);
    ASSERT_EQ(info.exitCode, 0) << info.err;
    EXPECT_NE(info.out.find("over the map: heights 120.0 .. 120.0 m"), std::string::npos) << info.out;
    const auto tiles =
        test::runCli({"-q", "tiles", test::monacoPbf().string(), "--zoom", "15", "--dem", dem.string()}, kCliDir);
    ASSERT_EQ(tiles.exitCode, 0) << tiles.err;
    EXPECT_NE(tiles.err.find("tiles with content at zoom 15"), std::string::npos) << tiles.err;
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

    // Truncated: an error unless --allow-partial (Cli.TruncatedMapFailsUnlessPartialReadsAreAllowed).
    test::copyPrefix(test::monacoPbf(), dir / "cut.osm.pbf", 300000);
    r = test::runCli({"-q", "rasterize", "cut.osm.pbf", "--zoom", "16", "--out", (dir / "o2").string()}, dir);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("cut.osm.pbf: truncated PBF"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o2" / "summary.json"));

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

// Numbers and boxes CLI11 would wrap, saturate or ignore, and a mistyped command: each refused
// with exit 2 and a message naming the option, before the map is read (no output folder).
TEST(Cli, OutOfRangeNumbersBackwardBoxesAndUnknownCommandsAreRefused) {
    const auto dir = test::scratchDir("cli-args");
    const std::string map = test::monacoPbf().string(), out = (dir / "o").string();
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--threads", "100000"}, "--threads"},
        {{"--threads", "-5"}, "--threads"},
        {{"--seed", "-1"}, "--seed: a seed is a whole number"},
        {{"--seed", "99999999999999999999999"}, "--seed: a seed is a whole number"},
        {{"--batch-tiles", "-1"}, "--batch-tiles: give a whole number from 0 up"},
        {{"--max-tiles", "-1"}, "--max-tiles: give a whole number from 1 up"},
        {{"--bbox", "10,43,0,44"}, "--bbox: 10.000000,43.000000,0.000000,44.000000 has its west east of its east"},
        {{"--bbox", "7.4,43.7,7.41,nan"}, "is not a longitude/latitude box"},
        {{"--bbox", "inf,0,0,0"}, "is not a longitude/latitude box"},
        {{"--ground-error", "nan"}, "--ground-error: give a number from 0 to 1000, not 'nan'"},
        {{"--oo", "ZOOM_LEVEL"}, "--open-option: an open option is KEY=VALUE, e.g. ZOOM_LEVEL=13, not 'ZOOM_LEVEL'"},
        {{"--oo", "=13"}, "--open-option: an open option is KEY=VALUE"},
    };
    for (const auto& [args, message] : cases) {
        std::vector<std::string> command{"-q", "bake", map, "--out", out};
        command.insert(command.end(), args.begin(), args.end());
        const auto r = test::runCli(command, dir);
        EXPECT_EQ(r.exitCode, 2) << args.front() << " " << args.back() << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << args.front() << " " << args.back();
    }
    const auto unknown = test::runCli({"-q", "frobnicate", map}, dir);
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.err.find("unknown command 'frobnicate' (the commands: info, tiles, rasterize"), std::string::npos)
        << unknown.err;
    // A tile beside the map is baked (an empty scene) with a warning that says so.
    const auto beside = test::runCli({"bake", map, "--zoom", "16", "--tiles", "0000000000000000", "--out", out}, dir);
    EXPECT_EQ(beside.exitCode, 0) << beside.err;
    EXPECT_NE(beside.err.find("warning: none of the 1 selected tiles holds anything of the map"), std::string::npos)
        << beside.err;
    std::filesystem::remove_all(out);
    // The limits themselves are accepted.
    const auto largest =
        test::runCli({"-q", "tiles", map, "--zoom", "12", "--threads", "1024", "--max-tiles", "1"}, dir);
    EXPECT_EQ(largest.exitCode, 0) << largest.err;
}

// Ctrl-C while a bake writes several formats: it stops as the app's Cancel
// does, with the shell's code for it, and no temporary file or folder is left behind (a format
// that had finished keeps its whole file).
TEST(Cli, AnInterruptedBakeStopsAndLeavesNoTemporaryFiles) {
    const auto dir = test::scratchDir("cli-interrupt");
    const std::filesystem::path out = dir / "out";
    {
        std::ofstream script(dir / "interrupt.sh");
        script << "'" << TERRABIT_CLI << "' -q bake '" << TERRABIT_TEST_DATA_DIR
               << "/monaco-region-2016-03-05.osm.pbf' --batch-tiles 0 --format manifest,glb,collision,osgb --out '"
               << out.string()
               << "' 2>/dev/null &\n"
               // Once it writes (its first file appears), the interrupt.
               << "pid=$!\nfor i in $(seq 600); do [ -n \"$(ls -A '" << out.string()
               << "' 2>/dev/null)\" ] && break; sleep 0.1; done\n"
               << "kill -INT $pid; wait $pid; echo $? >'" << (dir / "rc").string() << "'\n";
    }
    ASSERT_EQ(std::system(("bash '" + (dir / "interrupt.sh").string() + "'").c_str()), 0);
    std::ifstream rc(dir / "rc");
    int code = -1;
    rc >> code;
    EXPECT_EQ(code, 130);
    for (const auto& e : std::filesystem::recursive_directory_iterator(out)) {
        EXPECT_NE(e.path().filename().string().front(), '.') << e.path();  // temporaries are hidden names
    }
}

// Issue #21: a PBF truncated at 50% or 90% baked 10 of 180 tiles and exited 0 behind one warning.
TEST(Cli, TruncatedMapFailsUnlessPartialReadsAreAllowed) {
    const auto dir = test::scratchDir("cli-truncated");
    const std::uintmax_t size = std::filesystem::file_size(test::monacoPbf());
    for (const int percent : {50, 90}) {
        SCOPED_TRACE(percent);
        const std::string file = "cut" + std::to_string(percent) + ".osm.pbf";
        const std::size_t bytes = static_cast<std::size_t>(size * static_cast<unsigned>(percent) / 100);
        test::copyPrefix(test::monacoPbf(), dir / file, bytes);
        const std::string total = io::withCommas(bytes);

        const auto refusedOut = dir / ("refused" + std::to_string(percent));
        auto r = test::runCli({"-q", "rasterize", file, "--zoom", "16", "--out", refusedOut.string()}, dir);
        EXPECT_EQ(r.exitCode, 1) << r.err;
        EXPECT_NE(r.err.find("error: " + file + ": truncated PBF: block "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("; the map is incomplete (--allow-partial reads the "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(" of " + total + " bytes)"), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(refusedOut / "summary.json"));

        // Every map command refuses it the same way.
        const auto bakeOut = dir / ("bake" + std::to_string(percent));
        r = test::runCli({"-q", "bake", file, "--zoom", "16", "--out", bakeOut.string()}, dir);
        EXPECT_EQ(r.exitCode, 1) << r.err;
        EXPECT_NE(r.err.find(file + ": truncated PBF"), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(bakeOut / "manifest.json"));
        r = test::runCli({"-q", "info", file}, dir);
        EXPECT_EQ(r.exitCode, 1) << r.err;
        EXPECT_NE(r.err.find("the map is incomplete"), std::string::npos) << r.err;

        // With --allow-partial: what comes before the cut, and the first warning says how much.
        const auto partialOut = dir / ("partial" + std::to_string(percent));
        r = test::runCli({"-q", "rasterize", file, "--allow-partial", "--zoom", "16", "--out", partialOut.string()},
                         dir);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        const std::string said = "warning: " + file + ": truncated PBF: block ";
        const std::size_t at = r.err.find(said);
        ASSERT_NE(at, std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("warning: "), at) << "not the first warning:\n" << r.err;
        const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
        EXPECT_NE(line.find("; read only what comes before it: the first "), std::string::npos) << line;
        EXPECT_NE(line.find(" of " + total + " bytes ("), std::string::npos) << line;
        EXPECT_NE(line.find(" complete blocks), "), std::string::npos) << line;
        EXPECT_NE(line.find(" features"), std::string::npos) << line;
        ASSERT_TRUE(std::filesystem::exists(partialOut / "summary.json"));
        std::ifstream in(partialOut / "summary.json");
        const nlohmann::json summary = nlohmann::json::parse(in);
        ASSERT_FALSE(summary["warnings"].empty());
        EXPECT_EQ(summary["warnings"][0].get<std::string>(), line.substr(std::string("warning: ").size()));
        EXPECT_GT(summary["tiles"].size(), 0u);

        r = test::runCli({"-q", "info", file, "--allow-partial"}, dir);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
    }
}

TEST(Cli, EveryMapCommandTakesAllowPartial) {
    const auto top = test::runCli({"--help"}, kCliDir);
    std::vector<std::string> commands = {"info", "tiles", "rasterize", "probe", "compose", "bake"};
    if (top.out.find("render") != std::string::npos) commands.push_back("render");
    for (const std::string& c : commands) {
        const auto help = test::runCli({c, "--help"}, kCliDir);
        EXPECT_EQ(help.exitCode, 0) << c;
        EXPECT_NE(help.out.find("--allow-partial"), std::string::npos) << c << ":\n" << help.out;
    }
}

TEST(Cli, EmptyFileAndEmptyFolderSaySo) {
    const auto dir = test::scratchDir("cli-empty");
    test::writeText(dir / "empty.osm.pbf", "");
    std::filesystem::create_directories(dir / "nothing-here");
    auto r = test::runCli({"-q", "info", "empty.osm.pbf"}, dir);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.err, "error: empty.osm.pbf: the file is empty\n");
    r = test::runCli({"-q", "rasterize", "nothing-here", "--out", (dir / "o").string()}, dir);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("error: nothing-here: the folder is empty"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("not a map format"), std::string::npos) << r.err;
}

// Issue #21: `orect 7.42 43.73 1e308 4 45` answered `clear`.
TEST(Cli, ProbesThatCannotBeRepresentedAreErrorsNotClear) {
    const std::string probes =
        "orect 7.42 43.73 1e308 4 45\n"
        "point 7.4245 43.7355\n"
        "disk 7.42 43.73 inf\n"
        "point nan 43.73\n"
        "rect 7.42 43.73 10 5e7\n"
        "disk 7.42 43.73 -1\n"
        "segment 7.42 43.73 1e309 43.74\n"
        "rect 7.4245 43.7355 40000000 40000000\n";
    const auto r = test::runCli({"-q", "probe", test::monacoPbf().string(), "--zoom", "16"}, kCliDir, probes);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    std::istringstream lines(r.out);
    std::vector<std::string> answers;
    for (std::string line; std::getline(lines, line);) answers.push_back(line);
    ASSERT_EQ(answers.size(), 8u) << r.out;
    EXPECT_EQ(answers[0], "error");
    EXPECT_NE(answers[1], "error");
    EXPECT_EQ(answers[2], "error");
    EXPECT_EQ(answers[3], "error");
    EXPECT_EQ(answers[4], "error");
    EXPECT_EQ(answers[5], "error");
    EXPECT_EQ(answers[6], "error");
    EXPECT_NE(answers[7], "error");  // 40,000 km is within the bound, and covers the whole map
    EXPECT_NE(answers[7], "clear");
    for (const char* message : {
             "stdin line 1: a rectangle's width of 1e+308 m is larger than the Earth (the limit is 41,000,000 m)",
             "stdin line 3: 'inf' is not a number",
             "stdin line 4: 'nan' is not a number",
             "stdin line 5: a rectangle's height of 5e+07 m is larger than the Earth (the limit is 41,000,000 m)",
             "stdin line 6: a disk's radius must not be negative",
             "stdin line 7: '1e309' is not a number",
         }) {
        EXPECT_NE(r.err.find(message), std::string::npos) << message << " missing from:\n" << r.err;
    }
}
