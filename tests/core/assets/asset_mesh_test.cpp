// readAssetMesh and the GLB writer: node transforms, primitive modes, colours, OBJ user models,
// and damaged files that must give errors naming the file, never a crash.

#include "terrabit/core/assets/asset_mesh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "asset_test_support.h"
#include "gltf_fixture.h"
#include "terrabit/core/assets/glb_writer.h"
#include "terrabit/core/assets/mesh_builder.h"

namespace terrabit::core {
namespace {

using test::GltfFixture;
using test::ScratchDir;

GlbWriteOptions named(std::string name) {
    GlbWriteOptions options;
    options.name = std::move(name);
    return options;
}

// The geometric normal of triangle t (from its winding), unit length.
std::array<double, 3> faceNormal(const AssetMesh& m, std::size_t t) {
    const std::uint32_t a = m.indices[t * 3], b = m.indices[t * 3 + 1], c = m.indices[t * 3 + 2];
    const double ux = m.positions[b * 3] - m.positions[a * 3], uy = m.positions[b * 3 + 1] - m.positions[a * 3 + 1],
                 uz = m.positions[b * 3 + 2] - m.positions[a * 3 + 2];
    const double vx = m.positions[c * 3] - m.positions[a * 3], vy = m.positions[c * 3 + 1] - m.positions[a * 3 + 1],
                 vz = m.positions[c * 3 + 2] - m.positions[a * 3 + 2];
    double n[3] = {uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx};
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    return {n[0] / len, n[1] / len, n[2] / len};
}

// Every vertex normal of every triangle points the way the triangle's winding says.
void expectNormalsAgreeWithWinding(const AssetMesh& m) {
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        const auto n = faceNormal(m, t);
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t v = m.indices[t * 3 + static_cast<std::size_t>(k)];
            const double d = n[0] * m.normals[v * 3] + n[1] * m.normals[v * 3 + 1] + n[2] * m.normals[v * 3 + 2];
            ASSERT_GT(d, 0.99) << "triangle " << t;
        }
    }
}

TEST(AssetMeshReader, AppliesNestedNodeTranslationRotationAndScale) {
    ScratchDir dir;
    GltfFixture f = test::unitCube();
    // Parent: +90° about Y, then moved 10 m along X. Child: scaled 2 × 3 × 4.
    const double s = std::sin(std::numbers::pi / 4);
    f.nodes = {{{"translation", {10.0, 0.0, 0.0}}, {"rotation", {0.0, s, 0.0, s}}, {"children", {1}}},
               {{"scale", {2.0, 3.0, 4.0}}, {"mesh", 0}}};
    Result<AssetMesh> mesh = readAssetMesh(test::writeGltf(dir.path(), "cube", f));
    ASSERT_TRUE(mesh) << mesh.message();
    EXPECT_EQ(mesh->triangleCount(), 12u);
    // By hand: the child spans x ±1, y ±1.5, z ±2; turning 90° about Y swaps the X and Z
    // extents; the parent's move centres it on x = 10.
    const ModelBounds b = mesh->bounds();
    EXPECT_NEAR(b.min[0], 8.0, 1e-5);
    EXPECT_NEAR(b.max[0], 12.0, 1e-5);
    EXPECT_NEAR(b.min[1], -1.5, 1e-5);
    EXPECT_NEAR(b.max[1], 1.5, 1e-5);
    EXPECT_NEAR(b.min[2], -1.0, 1e-5);
    EXPECT_NEAR(b.max[2], 1.0, 1e-5);
    EXPECT_NEAR(mesh->footprint().width, 4.0, 1e-5);
    EXPECT_NEAR(mesh->footprint().depth, 2.0, 1e-5);
    EXPECT_NEAR(mesh->height(), 3.0, 1e-5);
    expectNormalsAgreeWithWinding(*mesh);
    EXPECT_TRUE(mesh->validate()) << mesh->validate().message();
}

TEST(AssetMeshReader, MirroringMatrixKeepsFrontFacesOutward) {
    ScratchDir dir;
    GltfFixture f = test::unitCube();
    // Column-major matrix: x mirrored, then moved up by 0.5 so the cube stands on the ground.
    f.nodes = {{{"matrix", {-1.0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.5, 0, 1}}, {"mesh", 0}}};
    Result<AssetMesh> mesh = readAssetMesh(test::writeGltf(dir.path(), "mirror", f));
    ASSERT_TRUE(mesh) << mesh.message();
    EXPECT_NEAR(mesh->bounds().min[1], 0.0, 1e-6);
    expectNormalsAgreeWithWinding(*mesh);
    // Outward: each face normal points away from the cube's centre (0, 0.5, 0).
    for (std::size_t t = 0; t < mesh->triangleCount(); ++t) {
        const auto n = faceNormal(*mesh, t);
        const std::uint32_t a = mesh->indices[t * 3];
        const double d = n[0] * mesh->positions[a * 3] + n[1] * (mesh->positions[a * 3 + 1] - 0.5) +
                         n[2] * mesh->positions[a * 3 + 2];
        EXPECT_GT(d, 0.0) << "triangle " << t;
    }
}

TEST(AssetMeshReader, StripsBecomeTrianglesAndMissingNormalsAreFlat) {
    ScratchDir dir;
    GltfFixture f;
    // A 2 × 1 m ground quad as a strip of four corners, seen from above counter-clockwise.
    f.positions = {0, 0, 0, 0, 0, 1, 2, 0, 0, 2, 0, 1};
    f.mode = 5;  // TRIANGLE_STRIP
    f.baseColour = {0.2, 0.4, 0.6, 1.0};
    f.nodes = {{{"mesh", 0}}};
    Result<AssetMesh> mesh = readAssetMesh(test::writeGltf(dir.path(), "strip", f));
    ASSERT_TRUE(mesh) << mesh.message();
    ASSERT_EQ(mesh->triangleCount(), 2u);
    for (std::size_t t = 0; t < 2; ++t) {
        const auto n = faceNormal(*mesh, t);
        EXPECT_NEAR(n[1], 1.0, 1e-9) << "strip triangle " << t << " must keep the strip's winding";
    }
    expectNormalsAgreeWithWinding(*mesh);
    // No COLOR_0: every vertex takes the material's base colour.
    for (std::size_t v = 0; v < mesh->vertexCount(); ++v) {
        EXPECT_FLOAT_EQ(mesh->colours[v * 4], 0.2f);
        EXPECT_FLOAT_EQ(mesh->colours[v * 4 + 1], 0.4f);
        EXPECT_FLOAT_EQ(mesh->colours[v * 4 + 2], 0.6f);
        EXPECT_FLOAT_EQ(mesh->colours[v * 4 + 3], 1.0f);
    }
}

TEST(AssetMeshReader, ReadsObjQuadsWithMaterialColours) {
    ScratchDir dir;
    // A 5 × 2 × 3 m box (x, y, z) standing on the ground, faces as quads, one material.
    test::writeText(dir / "shed.mtl", "newmtl wood\nKd 0.5 0.25 1.0\n");
    test::writeText(dir / "shed.obj",
                    "mtllib shed.mtl\n"
                    "v 0 0 0\nv 5 0 0\nv 5 0 3\nv 0 0 3\nv 0 2 0\nv 5 2 0\nv 5 2 3\nv 0 2 3\n"
                    "usemtl wood\n"
                    "f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 2 6 7 3\nf 3 7 8 4\nf 4 8 5 1\n");
    Result<AssetMesh> mesh = readAssetMesh(dir / "shed.obj");
    ASSERT_TRUE(mesh) << mesh.message();
    EXPECT_EQ(mesh->triangleCount(), 12u);
    EXPECT_NEAR(mesh->footprint().width, 5.0, 1e-6);
    EXPECT_NEAR(mesh->footprint().depth, 3.0, 1e-6);
    EXPECT_NEAR(mesh->height(), 2.0, 1e-6);
    expectNormalsAgreeWithWinding(*mesh);
    // OBJ colours are sRGB; the mesh holds linear light (IEC 61966-2-1 by hand).
    const double r = std::pow((0.5 + 0.055) / 1.055, 2.4);
    const double g = std::pow((0.25 + 0.055) / 1.055, 2.4);
    EXPECT_NEAR(mesh->colours[0], r, 1e-6);
    EXPECT_NEAR(mesh->colours[1], g, 1e-6);
    EXPECT_NEAR(mesh->colours[2], 1.0, 1e-6);
}

TEST(AssetMeshReader, GlbWrittenByTerrabitReadsBackTriangleForTriangle) {
    ScratchDir dir;
    MeshBuilder b;
    b.setColour({200, 30, 40});
    b.addBox({-1, 0, -2}, {1, 3, 2});
    b.setColour({10, 220, 90});
    b.addFrustum(0, 0, 3, 5, 1.0, 0.0, 7, true, false);
    const AssetMesh original = b.take();
    ASSERT_TRUE(writeGlb(original, dir / "m.glb", named("m")));
    Result<AssetMesh> back = readAssetMesh(dir / "m.glb");
    ASSERT_TRUE(back) << back.message();
    ASSERT_EQ(back->triangleCount(), original.triangleCount());
    for (std::size_t t = 0; t < original.triangleCount(); ++t) {
        for (std::size_t k = 0; k < 3; ++k) {
            const std::uint32_t a = original.indices[t * 3 + k];
            const std::uint32_t c = back->indices[t * 3 + k];
            for (std::size_t i = 0; i < 3; ++i) {
                EXPECT_EQ(back->positions[c * 3 + i], original.positions[a * 3 + i]);
                EXPECT_EQ(back->normals[c * 3 + i], original.normals[a * 3 + i]);
            }
            for (std::size_t i = 0; i < 4; ++i)
                EXPECT_NEAR(back->colours[c * 4 + i], original.colours[a * 4 + i], 1.0 / 65535);
        }
    }
}

TEST(FacadeColours, MeanTheWallsAndTheRoofByAreaInLinearLight) {
    // A 4 × 4 × 3 m box: red walls but for one 4 × 3 m side in white, a blue top, a green
    // floor (facing down, never seen from afar).
    MeshBuilder b;
    b.setColour({255, 0, 0});
    b.addWalls(std::vector<Vec3>{{0, 0, 0}, {4, 0, 0}, {4, 0, -4}, {0, 0, -4}}, 0.0, 3.0);
    AssetMesh box = b.take();
    MeshBuilder side, top, floor;
    side.setColour({255, 255, 255});
    side.addQuad({0, 0, 0.01}, {4, 0, 0.01}, {4, 3, 0.01}, {0, 3, 0.01});
    top.setColour({0, 0, 255});
    top.addFlatCap(std::vector<Vec3>{{0, 0, 0}, {4, 0, 0}, {4, 0, -4}, {0, 0, -4}}, 3.0);
    floor.setColour({0, 255, 0});
    floor.addFlatCap(std::vector<Vec3>{{0, 0, 0}, {4, 0, 0}, {4, 0, -4}, {0, 0, -4}}, 0.0, true);
    box.append(side.take());
    box.append(top.take());
    box.append(floor.take());
    const FacadeColours c = facadeColours(box, {});
    // Walls: 4 red sides and one white, equal areas: red 1, green and blue 1/5 in linear light.
    const auto srgb = [](double linear) {
        return static_cast<std::uint8_t>(std::lround(255.0 * linearToSrgb(linear)));
    };
    EXPECT_EQ(c.walls, (Rgb{255, srgb(0.2), srgb(0.2)}));
    EXPECT_EQ(c.roof, (Rgb{0, 0, 255}));
    // A model without a roof takes its walls' colour for it, one without walls its roof's; one
    // without triangles the fallback.
    MeshBuilder wallsOnly;
    wallsOnly.setColour({10, 200, 30});
    wallsOnly.addWalls(std::vector<Vec3>{{0, 0, 0}, {4, 0, 0}, {4, 0, -4}, {0, 0, -4}}, 0.0, 3.0);
    EXPECT_EQ(facadeColours(wallsOnly.take(), {}), (FacadeColours{{10, 200, 30}, {10, 200, 30}}));
    MeshBuilder roofOnly;
    roofOnly.setColour({90, 80, 70});
    roofOnly.addFlatCap(std::vector<Vec3>{{0, 0, 0}, {4, 0, 0}, {4, 0, -4}}, 1.0);
    EXPECT_EQ(facadeColours(roofOnly.take(), {}), (FacadeColours{{90, 80, 70}, {90, 80, 70}}));
    const FacadeColours fallback{{1, 2, 3}, {4, 5, 6}};
    EXPECT_EQ(facadeColours(AssetMesh{}, fallback), fallback);
}

TEST(AssetMeshReader, MissingFileNamesIt) {
    ScratchDir dir;
    Result<AssetMesh> mesh = readAssetMesh(dir / "nowhere.glb");
    ASSERT_FALSE(mesh);
    EXPECT_NE(mesh.message().find("nowhere.glb"), std::string::npos) << mesh.message();
    EXPECT_NE(mesh.message().find("does not exist"), std::string::npos) << mesh.message();
}

TEST(AssetMeshReader, DamagedFilesGiveErrorsThatNameTheFile) {
    ScratchDir dir;
    test::writeText(dir / "empty.glb", "");
    test::writeText(dir / "junk.glb", "glTF\x02\x00\x00\x00 this is not a real container at all");
    test::writeText(dir / "broken.gltf", "{ \"asset\": { \"version\": \"2.0\" }, \"meshes\": [ ");
    test::writeText(dir / "text.glb", "hello");
    test::writeText(dir / "bad.obj", "v 0 0 0\nv 1 0 0\nf 1 2 9\n");
    for (const char* name : {"empty.glb", "junk.glb", "broken.gltf", "text.glb", "bad.obj"}) {
        Result<AssetMesh> mesh = readAssetMesh(dir / name);
        ASSERT_FALSE(mesh) << name;
        EXPECT_NE(mesh.message().find(name), std::string::npos) << mesh.message();
    }
}

TEST(AssetMeshReader, AccessorPastItsBufferIsAnErrorNotARead) {
    ScratchDir dir;
    GltfFixture f = test::unitCube();
    f.nodes = {{{"mesh", 0}}};
    f.positionCountOverride = 1000;  // claims far more vertices than its buffer view holds
    Result<AssetMesh> mesh = readAssetMesh(test::writeGltf(dir.path(), "overrun", f));
    ASSERT_FALSE(mesh);
    EXPECT_NE(mesh.message().find("overrun.gltf"), std::string::npos) << mesh.message();
}

TEST(AssetMeshReader, IndexOutOfRangeIsAnError) {
    ScratchDir dir;
    GltfFixture f = test::unitCube();
    f.nodes = {{{"mesh", 0}}};
    f.indices[5] = 500;
    Result<AssetMesh> mesh = readAssetMesh(test::writeGltf(dir.path(), "badindex", f));
    ASSERT_FALSE(mesh);
    EXPECT_NE(mesh.message().find("index 500"), std::string::npos) << mesh.message();
}

TEST(AssetMeshReader, CyclicNodeHierarchyIsAnErrorNotAnEndlessWalk) {
    ScratchDir dir;
    GltfFixture f = test::unitCube();
    f.nodes = {{{"children", {1}}, {"mesh", 0}}, {{"children", {0}}}};
    Result<AssetMesh> mesh = readAssetMesh(test::writeGltf(dir.path(), "cycle", f));
    ASSERT_FALSE(mesh);
    EXPECT_NE(mesh.message().find("cycle.gltf"), std::string::npos) << mesh.message();
}

TEST(AssetMeshReader, ANodeScaledBeyondFloatRangeIsAnErrorNotAnInfiniteModel) {
    // Found with hand-made edge cases run through the model fuzz target: every coordinate is a
    // float, but a scale of 1e200 takes them beyond float range, and the mesh came back with
    // infinite positions and bounds.
    ScratchDir dir;
    GltfFixture f = test::unitCube();
    f.nodes = {{{"mesh", 0}, {"scale", {1e200, 1.0, 1.0}}}};
    Result<AssetMesh> mesh = readAssetMesh(test::writeGltf(dir.path(), "huge", f));
    ASSERT_FALSE(mesh);
    EXPECT_NE(mesh.message().find("huge.gltf"), std::string::npos) << mesh.message();
    EXPECT_NE(mesh.message().find("not finite"), std::string::npos) << mesh.message();
    // The largest scale that stays within float range still reads.
    f.nodes = {{{"mesh", 0}, {"scale", {1e30, 1.0, 1.0}}}};
    Result<AssetMesh> large = readAssetMesh(test::writeGltf(dir.path(), "large", f));
    ASSERT_TRUE(large) << large.message();
    EXPECT_NEAR(large->footprint().width, 1e30, 1e24);
}

TEST(AssetMeshReader, ModelWithOnlyLinesHasNoTriangles) {
    ScratchDir dir;
    GltfFixture f;
    f.positions = {0, 0, 0, 1, 0, 0};
    f.mode = 1;  // LINES
    f.nodes = {{{"mesh", 0}}};
    Result<AssetMesh> mesh = readAssetMesh(test::writeGltf(dir.path(), "lines", f));
    ASSERT_FALSE(mesh);
    EXPECT_NE(mesh.message().find("no triangles"), std::string::npos) << mesh.message();
}

// Random byte damage anywhere in a valid GLB: the reader must answer with a value (a mesh that
// validates, or an error naming the file) every time.
TEST(AssetMeshReader, SurvivesRandomlyCorruptedGlbFiles) {
    ScratchDir dir;
    MeshBuilder b;
    b.addBox({-1, 0, -1}, {1, 2, 1});
    b.addFrustum(0, 0, 2, 3, 1.2, 0, 6, true, false);
    Result<std::vector<std::uint8_t>> good = encodeGlb(b.take(), named("fuzz"));
    ASSERT_TRUE(good);
    SeededRandom random(12345);
    const std::filesystem::path file = dir / "fuzz.glb";
    int errors = 0;
    for (int round = 0; round < 150; ++round) {
        std::vector<std::uint8_t> bytes = *good;
        const int flips = 1 + static_cast<int>(random.next() % 8);
        for (int i = 0; i < flips; ++i) {
            bytes[random.next() % bytes.size()] = static_cast<std::uint8_t>(random.next());
        }
        if (round % 10 == 0) bytes.resize(random.next() % bytes.size());
        test::writeBytes(file, bytes);
        Result<AssetMesh> mesh = readAssetMesh(file);
        if (mesh) {
            EXPECT_TRUE(mesh->validate()) << "round " << round << ": " << mesh->validate().message();
        } else {
            ++errors;
            EXPECT_NE(mesh.message().find("fuzz.glb"), std::string::npos) << mesh.message();
        }
    }
    EXPECT_GT(errors, 0);
}

TEST(GlbWriter, RefusesInvalidMeshesWithTheirName) {
    AssetMesh bad;
    bad.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    bad.normals = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    bad.colours = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    bad.indices = {0, 1, 7};
    Result<std::vector<std::uint8_t>> bytes = encodeGlb(bad, named("broken"));
    ASSERT_FALSE(bytes);
    EXPECT_NE(bytes.message().find("broken"), std::string::npos);
    EXPECT_NE(bytes.message().find("indices[2]"), std::string::npos) << bytes.message();
    EXPECT_FALSE(encodeGlb(AssetMesh{}, named("empty")));
}

TEST(ColourSpace, SrgbAndLinearAreInverse) {
    for (int i = 0; i <= 255; ++i) {
        const double c = i / 255.0;
        EXPECT_NEAR(linearToSrgb(srgbToLinear(c)), c, 1e-12);
    }
    EXPECT_NEAR(srgbToLinear(0.5), 0.21404114, 1e-7);  // the IEC 61966-2-1 value
}

}  // namespace
}  // namespace terrabit::core
