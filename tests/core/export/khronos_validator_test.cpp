// The exported GLBs against the Khronos glTF validator (npm gltf-validator), installed by
// packaging/install-gltf-validator.sh through the CTest fixture of this folder. A machine where
// npm cannot reach its registry fails these tests with the installer's message; they never skip.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export_test_support.h"
#include "gltf_test_support.h"
#include "support/test_dems.h"
#include "terrabit/cli/bake_command.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/output_file.h"
#include "terrabit/core/export/scene_export.h"

using namespace terrabit::core;
using nlohmann::json;
using terrabit::test::makeScene;
using terrabit::test::shippedCatalogue;
using terrabit::test::TempDir;

namespace {

/// Runs the validator on the files; one report per file. Fails the test when node or the
/// validator cannot run.
std::vector<json> validate(const std::vector<std::filesystem::path>& files) {
    const std::filesystem::path validatorDir = TERRABIT_GLTF_VALIDATOR_DIR;
    const bool installed = std::filesystem::exists(validatorDir / "node_modules" / "gltf-validator" / "package.json");
    EXPECT_TRUE(installed) << "the Khronos glTF validator is not installed in " << validatorDir
                           << ": run packaging/install-gltf-validator.sh " << validatorDir
                           << " (ctest runs it as the fixture export_install_gltf_validator)";
    if (!installed) return {};
    std::string command =
        "node '" + std::string(TERRABIT_EXPORT_TEST_DIR) + "/validate_gltf.js' '" + validatorDir.string() + "'";
    for (const auto& f : files) command += " '" + f.string() + "'";
    command += " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    EXPECT_NE(pipe, nullptr);
    if (!pipe) return {};
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    const int status = ::pclose(pipe);
    EXPECT_EQ(status, 0) << out;
    if (status != 0) return {};
    const json reports = json::parse(out, nullptr, false);
    EXPECT_TRUE(reports.is_array()) << out;
    return reports.is_array() ? reports.get<std::vector<json>>() : std::vector<json>{};
}

std::string describe(const json& report) {
    std::string s;
    for (const json& m : report["messages"]) {
        s += "  " + m["code"].get<std::string>() + " (severity " + std::to_string(m["severity"].get<int>()) + ") " +
             m["pointer"].get<std::string>() + ": " + m["message"].get<std::string>() + "\n";
    }
    return s;
}

}  // namespace

TEST(KhronosValidator, InstancedPlainAndTileContentGlbsHaveNoErrors) {
    const auto test = makeScene(shippedCatalogue());
    TempDir dir;
    GlbSceneOptions plain;
    plain.plainNodes = true;
    ASSERT_TRUE(writeFileAtomically(dir / "instanced.glb", encodeSceneGlb(test.scene, test.meshes).value()).ok());
    ASSERT_TRUE(writeFileAtomically(dir / "plain.glb", encodeSceneGlb(test.scene, test.meshes, plain).value()).ok());
    ASSERT_TRUE(
        writeFileAtomically(dir / "tile.glb", encodeTileGlb(test.scene, test.scene.tiles[0], test.meshes).value())
            .ok());
    const std::vector<json> reports = validate({dir / "instanced.glb", dir / "plain.glb", dir / "tile.glb"});
    ASSERT_EQ(reports.size(), 3u);
    for (const json& r : reports) {
        EXPECT_EQ(r["numErrors"], 0) << r["file"] << "\n" << describe(r);
        // Warnings would be defects too (e.g. non-unit rotations, misaligned accessors).
        EXPECT_EQ(r["numWarnings"], 0) << r["file"] << "\n" << describe(r);
    }
}

TEST(KhronosValidator, GeneratedBuildingsHaveNoErrors) {
    auto test = makeScene(shippedCatalogue());
    terrabit::test::addGeneratedBuildings(test.scene);
    TempDir dir;
    ASSERT_TRUE(writeFileAtomically(dir / "scene.glb", encodeSceneGlb(test.scene, test.meshes).value()).ok());
    ASSERT_TRUE(
        writeFileAtomically(dir / "tile.glb", encodeTileGlb(test.scene, test.scene.tiles[1], test.meshes).value())
            .ok());
    const std::vector<json> reports = validate({dir / "scene.glb", dir / "tile.glb"});
    ASSERT_EQ(reports.size(), 2u);
    for (const json& r : reports) {
        EXPECT_EQ(r["numErrors"], 0) << r["file"] << "\n" << describe(r);
        EXPECT_EQ(r["numWarnings"], 0) << r["file"] << "\n" << describe(r);
    }
}

TEST(KhronosValidator, FlagsAGlbWhoseAccessorBoundsAreWrong) {
    // The same pipeline on a deliberately broken file: the check above can fail.
    const auto test = makeScene(shippedCatalogue());
    tinygltf::Model m = terrabit::test::loadGlb(encodeSceneGlb(test.scene, test.meshes).value());
    for (tinygltf::Accessor& a : m.accessors) {
        if (!a.minValues.empty()) a.minValues[0] -= 1.0;
    }
    TempDir dir;
    tinygltf::TinyGLTF writer;
    ASSERT_TRUE(writer.WriteGltfSceneToFile(&m, (dir / "broken.glb").string(), false, true, false, true));
    const std::vector<json> reports = validate({dir / "broken.glb"});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_GT(reports[0]["numErrors"].get<int>(), 0);
    EXPECT_NE(describe(reports[0]).find("ACCESSOR_MIN_MISMATCH"), std::string::npos) << describe(reports[0]);
}

TEST(KhronosValidator, TheBakedMonacoSampleHasNoErrors) {
    // A real bake (the harbour's 3 × 3 tiles of the bundled sample with the default rules and
    // library), as terrabit-cli bake --format glb,3dtiles writes it, with and without instancing.
    TempDir dir;
    const std::filesystem::path resources = TERRABIT_RESOURCES_DIR;
    std::vector<std::filesystem::path> files;
    for (const bool plainNodes : {false, true}) {
        terrabit::cli::BakeCommand c;
        c.input.file = resources / "maps/monaco-2022-07-19.osm.pbf";
        c.input.rules = resources / "rules/default.yaml";
        c.catalogue = resources / "assets/catalogue.yaml";
        c.selection.zoom = 17;
        c.selection.bboxLonLat = Box2{{7.418, 43.731}, {7.428, 43.738}};
        c.seed = 5;
        c.plainNodes = plainNodes;
        c.outDir = dir / (plainNodes ? "plain" : "instanced");
        c.formats = plainNodes ? std::vector{ExportFormat::Glb} : std::vector{ExportFormat::Glb, ExportFormat::Tiles3d};
        std::ostringstream out, err;
        ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
        files.push_back(c.outDir / "scene.glb");
    }
    for (const auto& e : std::filesystem::directory_iterator(dir / "instanced" / "3dtiles" / "tiles")) {
        files.push_back(e.path());
    }
    ASSERT_GE(files.size(), 2u + 9u);
    const std::vector<json> reports = validate(files);
    ASSERT_EQ(reports.size(), files.size());
    for (const json& r : reports) {
        EXPECT_EQ(r["numErrors"], 0) << r["file"] << "\n" << describe(r);
        EXPECT_EQ(r["numWarnings"], 0) << r["file"] << "\n" << describe(r);
    }
}

TEST(KhronosValidator, TheMonacoSampleBakedOnTerrainHasNoErrors) {
    // The harbour on a cone DEM: the ground meshes, draped road and water surfaces and plinths
    // in the GLB and in the 3D Tiles content.
    TempDir dir;
    const Vec2 centre = lonLatToMercator(terrabit::core::test::kMonacoCentre);
    const auto dem = terrabit::core::test::writeMercatorDem(
        dir / "cone.tif", [&](Vec2 m) { return 300.0 - 0.2 * std::hypot(m.x - centre.x, m.y - centre.y); }, 5.0,
        2500.0);
    const std::filesystem::path resources = TERRABIT_RESOURCES_DIR;
    terrabit::cli::BakeCommand c;
    c.input.file = resources / "maps/monaco-2022-07-19.osm.pbf";
    c.input.rules = resources / "rules/default.yaml";
    c.catalogue = resources / "assets/catalogue.yaml";
    c.selection.zoom = 17;
    c.selection.bboxLonLat = Box2{{7.418, 43.731}, {7.428, 43.738}};
    c.seed = 5;
    c.dems = {dem};
    c.outDir = dir / "terrain";
    c.formats = {ExportFormat::Glb, ExportFormat::Tiles3d};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
    std::vector<std::filesystem::path> files{c.outDir / "scene.glb"};
    for (const auto& e : std::filesystem::directory_iterator(c.outDir / "3dtiles" / "tiles")) files.push_back(e.path());
    ASSERT_GE(files.size(), 1u + 9u);
    // The ground is the mesh: many more than the two triangles of a flat tile.
    const tinygltf::Model m = terrabit::test::loadGlb([&] {
        std::ifstream in(c.outDir / "scene.glb", std::ios::binary);
        return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }());
    std::size_t groundVertices = 0;
    for (const tinygltf::Mesh& mesh : m.meshes) {
        for (const tinygltf::Primitive& p : mesh.primitives) {
            if (m.materials.at(static_cast<std::size_t>(p.material)).name == "ground") {
                groundVertices += m.accessors.at(static_cast<std::size_t>(p.attributes.at("POSITION"))).count;
            }
        }
    }
    EXPECT_GT(groundVertices, 1000u);
    const std::vector<json> reports = validate(files);
    ASSERT_EQ(reports.size(), files.size());
    for (const json& r : reports) {
        EXPECT_EQ(r["numErrors"], 0) << r["file"] << "\n" << describe(r);
        EXPECT_EQ(r["numWarnings"], 0) << r["file"] << "\n" << describe(r);
    }
}
