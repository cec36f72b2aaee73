// terrabit-cli bake: the command logic on the bundled sample (exit codes, messages, the manifest
// written through the export module), and the built executable itself.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "../support/output_files.h"
#include "../support/scratch_dir.h"
#include "placement_test_support.h"
#include "support/resources_dir.h"
#include "terrabit/cli/bake_command.h"
#include "terrabit/core/export/scene_export.h"

namespace terrabit::test {
namespace {

using namespace core;
namespace fs = std::filesystem;

/// Runs a shell command line with bash; returns the exit code (or -1 when it did not exit).
int shell(const std::string& line) {
    const std::string cmd = "bash -c '" + line + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class BakeCommandTest : public ::testing::Test {
protected:
    terrabit::cli::BakeCommand command(const std::string& out) const {
        terrabit::cli::BakeCommand c;
        c.input.file = kResources + "/maps/monaco-2022-07-19.osm.pbf";
        c.input.rules = kResources + "/rules/default.yaml";
        c.catalogue = kResources + "/assets/catalogue.yaml";
        c.selection.zoom = 17;
        // A block of 3 × 3 tiles over the harbour keeps the test quick.
        c.selection.bboxLonLat = Box2{{7.418, 43.731}, {7.428, 43.738}};
        c.outDir = mDir / out;
        c.seed = 7;
        c.threads = 2;
        return c;
    }

    const ScratchDir mScratch;
    const fs::path mDir = mScratch.path();
};

TEST_F(BakeCommandTest, WritesTheManifestAndSaysWhatItPlaced) {
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runBake(command("a"), out, err), 0) << err.str();
    const fs::path manifest = mDir / "a" / "manifest.json";
    ASSERT_TRUE(fs::exists(manifest));
    const auto json = nlohmann::json::parse(readFile(manifest));
    EXPECT_EQ(json["format"], "terrabit-manifest");
    EXPECT_EQ(json["seed"], 7);
    EXPECT_GT(json["statistics"]["buildingsPlaced"].get<int>(), 50);
    EXPECT_EQ(json["instances"].size(), json["instanceCount"].get<std::size_t>());
    EXPECT_FALSE(json["buildings"].empty());
    EXPECT_NE(out.str().find("buildings: "), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("vegetation: "), std::string::npos);
    EXPECT_NE(out.str().find("manifest.json"), std::string::npos);
}

TEST_F(BakeCommandTest, TheSummaryNamesARootFileAndTheFolderOfItsParts) {
    // The osgb writer (render's, here a stand-in) writes scene.osgb and its groups' files in scene/.
    terrabit::cli::BakeCommand c = command("osgb");
    c.formats = {ExportFormat::Osgb};
    c.sceneGraphWriter = [](const Scene&, const ExportOptions&, const AssetCatalogue&, const LayerSource*,
                            const fs::path& file, const ProgressCallback&) -> Result<std::vector<fs::path>> {
        std::ofstream(file, std::ios::binary) << "root";
        fs::create_directories(file.parent_path() / "scene");
        std::ofstream(file.parent_path() / "scene" / "0.osgb", std::ios::binary) << "group 0";
        std::ofstream(file.parent_path() / "scene" / "1.osgb", std::ios::binary) << "group 1";
        return std::vector<fs::path>{"scene.osgb", fs::path("scene") / "0.osgb", fs::path("scene") / "1.osgb"};
    };
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
    const std::string expected =
        (c.outDir / "scene.osgb").string() + " and 2 files in " + (c.outDir / "scene").string() + " (18 bytes)";
    EXPECT_NE(out.str().find(expected), std::string::npos) << out.str();
}

TEST_F(BakeCommandTest, SameSeedWritesTheSameBytesWhateverTheThreadCount) {
    std::ostringstream out, err;
    terrabit::cli::BakeCommand one = command("one");
    one.threads = 1;
    ASSERT_EQ(terrabit::cli::runBake(one, out, err), 0) << err.str();
    ASSERT_EQ(terrabit::cli::runBake(command("two"), out, err), 0) << err.str();
    terrabit::cli::BakeCommand other = command("other");
    other.seed = 8;
    ASSERT_EQ(terrabit::cli::runBake(other, out, err), 0) << err.str();
    const std::string a = readFile(mDir / "one" / "manifest.json");
    EXPECT_EQ(a, readFile(mDir / "two" / "manifest.json"));
    EXPECT_NE(a, readFile(mDir / "other" / "manifest.json"));
}

TEST_F(BakeCommandTest, BadRulesCatalogueOrMapGiveClearErrorsAndExitCodes) {
    std::ostringstream out, err;
    // Rules without a passes section: the user's arguments (2), naming the file.
    const fs::path rules = mDir / "layers_only.yaml";
    std::ofstream(rules) << "layers:\n  - name: building\n    match: [{kind: area, tags: {building: \"*\"}}]\n";
    terrabit::cli::BakeCommand c = command("x");
    c.input.rules = rules;
    EXPECT_EQ(terrabit::cli::runBake(c, out, err), 2);
    EXPECT_NE(err.str().find("layers_only.yaml"), std::string::npos) << err.str();
    EXPECT_NE(err.str().find("no 'passes:' section"), std::string::npos) << err.str();

    err.str("");
    c = command("x");
    c.catalogue = mDir / "missing.yaml";
    EXPECT_EQ(terrabit::cli::runBake(c, out, err), 2);
    EXPECT_NE(err.str().find("missing.yaml"), std::string::npos) << err.str();

    err.str("");
    c = command("x");
    c.input.file = mDir / "nowhere.osm.pbf";
    EXPECT_EQ(terrabit::cli::runBake(c, out, err), 1);
    EXPECT_NE(err.str().find("nowhere.osm.pbf"), std::string::npos) << err.str();
    EXPECT_FALSE(fs::exists(mDir / "x" / "manifest.json"));
}

// Two houses 330 tiles apart each way at zoom 17: a collision grid file of both would declare a
// region of 331 × 331 tiles, beyond what the format holds. Said before anything is baked.
TEST_F(BakeCommandTest, ACollisionGridTooLargeForItsFileIsRefusedBeforeTheBake) {
    const fs::path map = mDir / "apart.geojson";
    const auto house = [](double lon, double lat) {
        const auto p = [](double x, double y) { return "[" + std::to_string(x) + "," + std::to_string(y) + "]"; };
        return R"({"type":"Feature","properties":{"building":"yes"},"geometry":{"type":"Polygon","coordinates":[[)" +
               p(lon, lat) + "," + p(lon + 2e-4, lat) + "," + p(lon + 2e-4, lat + 2e-4) + "," + p(lon, lat + 2e-4) +
               "," + p(lon, lat) + "]]}}";
    };
    std::ofstream(map) << R"({"type":"FeatureCollection","features":[)" << house(7.40, 43.73) << ","
                       << house(8.31, 43.08) << "]}";
    terrabit::cli::BakeCommand c = command("apart");
    c.input.file = map;
    c.selection.bboxLonLat = {};
    c.formats = {ExportFormat::Manifest, ExportFormat::Collision};
    std::ostringstream out, err;
    EXPECT_EQ(terrabit::cli::runBake(c, out, err), 2);
    // The houses' tiles, and the tiles between them, are the region the message names.
    std::smatch m;
    const std::string text = err.str();
    ASSERT_TRUE(std::regex_search(text, m,
                                  std::regex(R"(--format collision: the selection spans (\d+) x (\d+) tiles )"
                                             R"(at zoom 17, more than the 65536 a collision grid file holds)")))
        << text;
    EXPECT_GE(std::stoi(m[1]), 331);  // 0.91 degrees of longitude, 364 tiles a degree at zoom 17
    EXPECT_GE(std::stoi(m[2]), 320);  // 0.65 degrees of latitude at 43 degrees north
    EXPECT_FALSE(fs::exists(mDir / "apart" / "manifest.json"));
    // Without the collision grid, the same map bakes.
    c.formats = {ExportFormat::Manifest};
    err.str("");
    EXPECT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
}

TEST_F(BakeCommandTest, TheExecutableBakesTheBundledSample) {
    const fs::path out = mDir / "cli";
    const std::string cmd = std::string("\"") + TERRABIT_CLI + "\" -q bake \"" + kResources +
                            "/maps/monaco-2022-07-19.osm.pbf\" --zoom 17 --bbox 7.418,43.731,7.428,43.738 --seed 7 "
                            "--threads 2 --out \"" +
                            out.string() + "\" > \"" + (mDir / "stdout.txt").string() + "\" 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << readFile(mDir / "stdout.txt");
    std::ostringstream o, e;
    ASSERT_EQ(terrabit::cli::runBake(command("lib"), o, e), 0) << e.str();
    EXPECT_EQ(readFile(out / "manifest.json"), readFile(mDir / "lib" / "manifest.json"))
        << "the executable and the library bake the same scene";
    const std::string bad = std::string("\"") + TERRABIT_CLI + "\" -q bake \"" + kResources +
                            "/maps/monaco-2022-07-19.osm.pbf\" --format glb,nonsense --out \"" + out.string() +
                            "\" > /dev/null 2>&1";
    EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
}

TEST_F(BakeCommandTest, TheExecutableWritesEveryFormatAndTheSameSeedGivesTheSameBytes) {
    const fs::path out = mDir / "cli";
    const std::string cmd = std::string("\"") + TERRABIT_CLI + "\" -q bake \"" + kResources +
                            "/maps/monaco-2022-07-19.osm.pbf\" --zoom 17 --bbox 7.418,43.731,7.428,43.738 --seed 7 "
                            "--threads 2 --format glb,3dtiles,manifest,layers,collision --out \"" +
                            out.string() + "\" > \"" + (mDir / "stdout.txt").string() + "\" 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << readFile(mDir / "stdout.txt");
    const auto cli = filesUnder(out);
    for (const char* f : {"scene.glb", "3dtiles/tileset.json", "manifest.json", "collision.tbcg"}) {
        ASSERT_TRUE(cli.contains(f)) << f;
        EXPECT_GT(cli.at(f).size(), 1000u) << f;
    }
    std::size_t tileGlbs = 0, geoTiffs = 0, previews = 0;
    for (const auto& [path, bytes] : cli) {
        tileGlbs += path.starts_with("3dtiles/tiles/") && path.ends_with(".glb");
        geoTiffs += path.starts_with("layers/") && path.ends_with(".tif");
        previews += path.starts_with("layers/") && path.ends_with("preview.png");
        EXPECT_FALSE(path.ends_with(".tmp")) << path;
    }
    EXPECT_GE(tileGlbs, 9u);
    EXPECT_GE(previews, 9u);
    EXPECT_GE(geoTiffs, 4 * previews);

    // The library with one thread writes the same files, byte for byte; another seed differs.
    terrabit::cli::BakeCommand c = command("lib");
    c.threads = 1;
    c.formats = {ExportFormat::Glb, ExportFormat::Tiles3d, ExportFormat::Manifest, ExportFormat::Layers,
                 ExportFormat::Collision};
    std::ostringstream o, e;
    ASSERT_EQ(terrabit::cli::runBake(c, o, e), 0) << e.str();
    const auto lib = filesUnder(mDir / "lib");
    ASSERT_EQ(lib.size(), cli.size());
    for (const auto& [path, bytes] : cli) {
        ASSERT_TRUE(lib.contains(path)) << path;
        EXPECT_TRUE(lib.at(path) == bytes) << path << " differs between the two bakes";
    }
    c = command("other");
    c.seed = 8;
    c.formats = {ExportFormat::Glb};
    ASSERT_EQ(terrabit::cli::runBake(c, o, e), 0) << e.str();
    EXPECT_NE(readFile(mDir / "other" / "scene.glb"), cli.at("scene.glb"));
}

TEST_F(BakeCommandTest, PlainNodesWriteAGlbWithoutTheInstancingExtension) {
    terrabit::cli::BakeCommand c = command("plain");
    c.formats = {ExportFormat::Glb};
    c.plainNodes = true;
    std::ostringstream o, e;
    ASSERT_EQ(terrabit::cli::runBake(c, o, e), 0) << e.str();
    terrabit::cli::BakeCommand instanced = command("instanced");
    instanced.formats = {ExportFormat::Glb};
    ASSERT_EQ(terrabit::cli::runBake(instanced, o, e), 0) << e.str();
    EXPECT_EQ(readFile(mDir / "plain" / "scene.glb").find("EXT_mesh_gpu_instancing"), std::string::npos);
    EXPECT_NE(readFile(mDir / "instanced" / "scene.glb").find("EXT_mesh_gpu_instancing"), std::string::npos);
}

/// The built CLI baking the harbour's corner into `out` as `format` while no file may grow past
/// `kib` KiB: the kernel's file size limit fails a write like a full disk does (EFBIG instead of
/// ENOSPC); SIGXFSZ is ignored so the write returns the error instead of killing the process.
/// Returns the exit code, and what it printed in `message`.
int bakeUnderFileLimit(const fs::path& out, const std::string& format, int kib, const fs::path& log,
                       std::string& message) {
    const std::string line = "trap \"\" XFSZ; ulimit -f " + std::to_string(kib) + "; \"" + TERRABIT_CLI +
                             "\" -q bake \"" + kResources +
                             "/maps/monaco-2022-07-19.osm.pbf\" --zoom 17 --bbox 7.418,43.731,7.428,43.738 "
                             "--format " +
                             format + " --out \"" + out.string() + "\" > \"" + log.string() + "\" 2>&1";
    const int code = shell(line);
    message = readFile(log);
    return code;
}

TEST_F(BakeCommandTest, AFullDiskStopsTheExecutableWithAClearMessageAndNoPartialFile) {
    const fs::path out = mDir / "full";
    std::string message;
    EXPECT_EQ(bakeUnderFileLimit(out, "glb", 16, mDir / "stderr.txt", message), 1);
    EXPECT_NE(message.find("error: "), std::string::npos) << message;
    EXPECT_NE(message.find("scene.glb"), std::string::npos) << message;
    EXPECT_NE(message.find("File too large"), std::string::npos) << message;
    EXPECT_TRUE(filesUnder(out).empty()) << "no partial scene.glb and no temporary file";

    // osgb: osgDB itself says only "Failed to compress stream", about a hidden folder.
    const fs::path osgb = mDir / "full-osgb";
    EXPECT_EQ(bakeUnderFileLimit(osgb, "osgb", 64, mDir / "stderr-osgb.txt", message), 1);
    EXPECT_NE(message.find("error: "), std::string::npos) << message;
    EXPECT_NE(message.find((osgb / "scene").string() + "/"), std::string::npos) << message;
    EXPECT_EQ(message.find(".partial"), std::string::npos) << message;
    EXPECT_NE(message.find("File too large"), std::string::npos) << message;
    EXPECT_TRUE(filesUnder(osgb).empty()) << "no partial group file and no temporary file";
}

TEST_F(BakeCommandTest, AnUnwritableFolderAndMissingOrCorruptModelsAreClearErrorsAndLeaveNoFile) {
    std::ostringstream out, err;
    // A folder below a regular file cannot be made, even by root.
    { std::ofstream(mDir / "file") << "x"; }
    terrabit::cli::BakeCommand c = command("unused");
    c.outDir = mDir / "file" / "out";
    c.formats = {ExportFormat::Manifest, ExportFormat::Glb};
    EXPECT_EQ(terrabit::cli::runBake(c, out, err), 1);
    EXPECT_NE(err.str().find((mDir / "file" / "out").string()), std::string::npos) << err.str();
    EXPECT_NE(err.str().find("Not a directory"), std::string::npos) << err.str();

    // The catalogue copied without its models: every model file is missing.
    fs::create_directories(mDir / "assets");
    fs::copy_file(kResources + "/assets/catalogue.yaml", mDir / "assets" / "catalogue.yaml");
    err.str("");
    c = command("missing");
    c.catalogue = mDir / "assets" / "catalogue.yaml";
    c.formats = {ExportFormat::Glb};
    EXPECT_EQ(terrabit::cli::runBake(c, out, err), 2) << "the catalogue is refused before the map is read";
    EXPECT_NE(err.str().find((mDir / "assets" / "models").string()), std::string::npos) << err.str();
    EXPECT_TRUE(filesUnder(mDir / "missing").empty());

    // Models that are not glTF: each file holds a GLB header and garbage.
    fs::create_directories(mDir / "assets" / "models");
    for (const auto& e : fs::directory_iterator(kResources + "/assets/models")) {
        std::ofstream(mDir / "assets" / "models" / e.path().filename(), std::ios::binary)
            << "glTF" << std::string(100, '\x07');
    }
    err.str("");
    c.outDir = mDir / "corrupt";
    EXPECT_EQ(terrabit::cli::runBake(c, out, err), 1);
    EXPECT_NE(err.str().find((mDir / "assets" / "models").string()), std::string::npos) << err.str();
    EXPECT_TRUE(filesUnder(mDir / "corrupt").empty());
}

}  // namespace
}  // namespace terrabit::test
