// terrabit-cli bake: the command logic on the bundled sample (exit codes, messages, the manifest
// written through the export module), and the built executable itself.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "placement_test_support.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/io/bake_command.h"

namespace terrabit::test {
namespace {

using namespace core;
namespace fs = std::filesystem;

const std::string kResources = TERRABIT_RESOURCES_DIR;

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class BakeCommandTest : public ::testing::Test {
protected:
    void SetUp() override {
        mDir = fs::temp_directory_path() /
               ("terrabit_bake_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(mDir);
        fs::create_directories(mDir);
    }
    void TearDown() override { fs::remove_all(mDir); }

    io::BakeCommand command(const std::string& out) const {
        io::BakeCommand c;
        c.input.file = kResources + "/maps/monaco-2022-07-19.osm.pbf";
        c.input.rules = kResources + "/rules/default.yaml";
        c.catalogue = kResources + "/assets/catalogue.yaml";
        c.selection.zoom = 17;
        // A block of 3 × 3 tiles over the harbour keeps the test quick.
        c.selection.bboxLonLat = Box2{{7.418, 43.731}, {7.428, 43.738}};
        c.outDir = mDir / out;
        c.seed = 7;
        c.threads = 2;
        c.exporter = exportScene;
        return c;
    }

    fs::path mDir;
};

TEST_F(BakeCommandTest, WritesTheManifestAndSaysWhatItPlaced) {
    std::ostringstream out, err;
    ASSERT_EQ(io::runBake(command("a"), out, err), 0) << err.str();
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

TEST_F(BakeCommandTest, SameSeedWritesTheSameBytesWhateverTheThreadCount) {
    std::ostringstream out, err;
    io::BakeCommand one = command("one");
    one.threads = 1;
    ASSERT_EQ(io::runBake(one, out, err), 0) << err.str();
    ASSERT_EQ(io::runBake(command("two"), out, err), 0) << err.str();
    io::BakeCommand other = command("other");
    other.seed = 8;
    ASSERT_EQ(io::runBake(other, out, err), 0) << err.str();
    const std::string a = readFile(mDir / "one" / "manifest.json");
    EXPECT_EQ(a, readFile(mDir / "two" / "manifest.json"));
    EXPECT_NE(a, readFile(mDir / "other" / "manifest.json"));
}

TEST_F(BakeCommandTest, BadRulesCatalogueOrMapGiveClearErrorsAndExitCodes) {
    std::ostringstream out, err;
    // Rules without a passes section: the user's arguments (2), naming the file.
    const fs::path rules = mDir / "layers_only.yaml";
    std::ofstream(rules) << "layers:\n  - name: building\n    match: [{kind: area, tags: {building: \"*\"}}]\n";
    io::BakeCommand c = command("x");
    c.input.rules = rules;
    EXPECT_EQ(io::runBake(c, out, err), 2);
    EXPECT_NE(err.str().find("layers_only.yaml"), std::string::npos) << err.str();
    EXPECT_NE(err.str().find("no 'passes:' section"), std::string::npos) << err.str();

    err.str("");
    c = command("x");
    c.catalogue = mDir / "missing.yaml";
    EXPECT_EQ(io::runBake(c, out, err), 2);
    EXPECT_NE(err.str().find("missing.yaml"), std::string::npos) << err.str();

    err.str("");
    c = command("x");
    c.input.file = mDir / "nowhere.osm.pbf";
    EXPECT_EQ(io::runBake(c, out, err), 1);
    EXPECT_NE(err.str().find("nowhere.osm.pbf"), std::string::npos) << err.str();
    EXPECT_FALSE(fs::exists(mDir / "x" / "manifest.json"));
}

TEST_F(BakeCommandTest, TheExecutableBakesTheBundledSample) {
    const fs::path out = mDir / "cli";
    const std::string cmd = std::string("\"") + TERRABIT_CLI + "\" -q bake \"" + kResources +
                            "/maps/monaco-2022-07-19.osm.pbf\" --zoom 17 --bbox 7.418,43.731,7.428,43.738 --seed 7 "
                            "--threads 2 --out \"" +
                            out.string() + "\" > \"" + (mDir / "stdout.txt").string() + "\" 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << readFile(mDir / "stdout.txt");
    std::ostringstream o, e;
    ASSERT_EQ(io::runBake(command("lib"), o, e), 0) << e.str();
    EXPECT_EQ(readFile(out / "manifest.json"), readFile(mDir / "lib" / "manifest.json"))
        << "the executable and the library bake the same scene";
    const std::string bad = std::string("\"") + TERRABIT_CLI + "\" -q bake \"" + kResources +
                            "/maps/monaco-2022-07-19.osm.pbf\" --format glb,nonsense --out \"" + out.string() +
                            "\" > /dev/null 2>&1";
    EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
}

}  // namespace
}  // namespace terrabit::test
