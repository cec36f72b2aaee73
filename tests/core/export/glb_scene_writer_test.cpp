#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "../support/scratch_dir.h"
#include "export_test_support.h"
#include "gltf_test_support.h"
#include "terrabit/core/export/cell_rects.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/scene_assets.h"
#include "terrabit/core/scene/generated_building_mesh.h"

using namespace terrabit::core;
using terrabit::test::accessorData;
using terrabit::test::addGeneratedBuildings;
using terrabit::test::collectNodes;
using terrabit::test::indexData;
using terrabit::test::loadGlb;
using terrabit::test::makeScene;
using terrabit::test::normalData;
using terrabit::test::rotationData;
using terrabit::test::shippedCatalogue;

namespace {

constexpr const char* kInstancing = "EXT_mesh_gpu_instancing";

/// The nodes under the root in depth-first order that carry the instancing extension.
std::vector<const tinygltf::Node*> instancedNodes(const tinygltf::Model& m) {
    std::vector<int> all;
    collectNodes(m, m.scenes.at(0).nodes.at(0), all);
    std::vector<const tinygltf::Node*> out;
    for (int n : all) {
        if (m.nodes[static_cast<std::size_t>(n)].extensions.count(kInstancing))
            out.push_back(&m.nodes[static_cast<std::size_t>(n)]);
    }
    return out;
}

int attribute(const tinygltf::Node& n, const char* name) {
    return n.extensions.at(kInstancing).Get("attributes").Get(name).GetNumberAsInt();
}

/// The scene's blocks in the file's order: the tiles in quadkey order, each tile's in the scene's.
std::vector<const InstanceBlock*> blocksInFileOrder(const Scene& s) {
    std::vector<const InstanceBlock*> blocks;
    for (const InstanceBlock& b : s.blocks) blocks.push_back(&b);
    std::stable_sort(blocks.begin(), blocks.end(), [](const InstanceBlock* a, const InstanceBlock* b) {
        return a->tile.quadkey() < b->tile.quadkey();
    });
    return blocks;
}

/// The cells [x0, x1) × [y0, y1) of a tile that a quad of four scene points covers.
CellRect quadCells(const Scene& s, const TileId& t, const float* p) {
    double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    for (int k = 0; k < 4; ++k) {
        const Vec2 cell = s.frame.groundToCell({p[3 * k], -double(p[3 * k + 2])});
        x0 = std::min(x0, cell.x - double(t.x) * kTileCells);
        x1 = std::max(x1, cell.x - double(t.x) * kTileCells);
        y0 = std::min(y0, cell.y - double(t.y) * kTileCells);
        y1 = std::max(y1, cell.y - double(t.y) * kTileCells);
    }
    // Float positions a few hundred metres from the origin are within a millimetre: cells
    // (about 0.86 m here) are recovered by rounding.
    return {static_cast<std::uint16_t>(std::lround(x0)), static_cast<std::uint16_t>(std::lround(y0)),
            static_cast<std::uint16_t>(std::lround(x1)), static_cast<std::uint16_t>(std::lround(y1))};
}

struct Primitive {
    std::vector<float> positions;
    std::vector<float> normals;
    std::vector<std::uint32_t> indices;
    std::string material;
};

std::vector<Primitive> tilePrimitives(const tinygltf::Model& m, const TileId& t) {
    std::vector<Primitive> out;
    for (const tinygltf::Node& n : m.nodes) {
        if (n.name != "tile " + t.quadkey()) continue;
        EXPECT_GE(n.mesh, 0);
        for (const tinygltf::Primitive& p : m.meshes.at(static_cast<std::size_t>(n.mesh)).primitives) {
            out.push_back({accessorData<float>(m, p.attributes.at("POSITION")),
                           normalData(m, p.attributes.at("NORMAL")), indexData(m, p.indices),
                           m.materials.at(static_cast<std::size_t>(p.material)).name});
        }
    }
    return out;
}

/// The material of that name; fails the test (and returns nullptr) when there is none.
const tinygltf::Material* materialNamed(const tinygltf::Model& m, const std::string& name) {
    const auto it = std::find_if(m.materials.begin(), m.materials.end(),
                                 [&](const tinygltf::Material& mat) { return mat.name == name; });
    EXPECT_NE(it, m.materials.end()) << "no material " << name;
    return it == m.materials.end() ? nullptr : &*it;
}

/// The cells covered by a primitive of quads (4 vertices each, as the writer lays them out),
/// failing when two quads overlap.
BitTile quadCoverage(const Scene& s, const TileId& t, const Primitive& p) {
    BitTile covered;
    EXPECT_EQ(p.positions.size() % 12, 0u);
    for (std::size_t q = 0; q < p.positions.size() / 12; ++q) {
        const CellRect r = quadCells(s, t, &p.positions[q * 12]);
        const BitTile one = cellsOfRects(std::span<const CellRect>(&r, 1));
        EXPECT_TRUE((covered & one).none()) << "quads overlap in tile " << t.quadkey();
        covered |= one;
    }
    return covered;
}

}  // namespace

TEST(GlbSceneWriter, InstancedNodesHoldEveryInstanceWithItsExactTransform) {
    const auto test = makeScene(shippedCatalogue());
    const Scene& s = test.scene;
    const Result<std::vector<std::uint8_t>> bytes = encodeSceneGlb(s, test.meshes);
    ASSERT_TRUE(bytes.ok()) << bytes.message();
    const tinygltf::Model m = loadGlb(*bytes);

    EXPECT_NE(std::find(m.extensionsUsed.begin(), m.extensionsUsed.end(), kInstancing), m.extensionsUsed.end());
    EXPECT_NE(std::find(m.extensionsRequired.begin(), m.extensionsRequired.end(), kInstancing),
              m.extensionsRequired.end());
    const auto nodes = instancedNodes(m);
    ASSERT_EQ(nodes.size(), s.blocks.size());  // one node per asset per block
    const std::vector<const InstanceBlock*> blocks = blocksInFileOrder(s);
    std::size_t total = 0;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        const tinygltf::Node& n = *nodes[k];
        const InstanceBlock& b = *blocks[k];
        EXPECT_EQ(m.meshes.at(static_cast<std::size_t>(n.mesh)).name, s.assets[static_cast<std::size_t>(b.asset)]);
        EXPECT_TRUE(n.translation.empty() && n.rotation.empty() && n.scale.empty() && n.matrix.empty());
        for (const char* name : {"TRANSLATION", "ROTATION", "SCALE"}) {
            const tinygltf::Accessor& a = m.accessors.at(static_cast<std::size_t>(attribute(n, name)));
            EXPECT_EQ(a.count, b.instances.size()) << name;
            EXPECT_EQ(a.componentType,
                      std::string(name) == "ROTATION" ? TINYGLTF_COMPONENT_TYPE_SHORT : TINYGLTF_COMPONENT_TYPE_FLOAT)
                << name;
            EXPECT_EQ(a.type, std::string(name) == "ROTATION" ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3) << name;
            EXPECT_EQ(m.bufferViews.at(static_cast<std::size_t>(a.bufferView)).target, 0) << name;
        }
        const auto t = accessorData<float>(m, attribute(n, "TRANSLATION"));
        const auto r = rotationData(m, attribute(n, "ROTATION"));
        const auto sc = accessorData<float>(m, attribute(n, "SCALE"));
        for (std::size_t i = 0; i < b.instances.size(); ++i) {
            const Instance& in = b.instances[i];
            EXPECT_EQ(t[3 * i], in.position.x);
            EXPECT_EQ(t[3 * i + 1], in.position.y);
            EXPECT_EQ(t[3 * i + 2], in.position.z);
            // The rotation as normalised shorts: within one step of the float quaternion.
            const std::array<float, 4> q = rotationQuaternion(in);
            for (int c = 0; c < 4; ++c)
                EXPECT_NEAR(r[4 * i + static_cast<std::size_t>(c)], q[static_cast<std::size_t>(c)], 0.5f / 32767.0f);
            EXPECT_EQ(sc[3 * i], in.scale.x);
            EXPECT_EQ(sc[3 * i + 1], in.scale.y);
            EXPECT_EQ(sc[3 * i + 2], in.scale.z);
            // The TRS a viewer composes is the Scene's matrix, up to the shorts' rounding (a
            // matrix term moves by at most 4 × half a step, times the scale).
            const float qx = r[4 * i], qy = r[4 * i + 1], qz = r[4 * i + 2], qw = r[4 * i + 3];
            const float r00 = 1 - 2 * (qy * qy + qz * qz), r20 = 2 * (qx * qz - qw * qy), r02 = 2 * (qx * qz + qw * qy);
            const std::array<float, 16> expected = transformMatrix(in);
            const float step = 2.0f / 32767.0f;
            EXPECT_NEAR(r00 * sc[3 * i], expected[0], step * std::abs(sc[3 * i]) + 1e-6f);
            EXPECT_NEAR(r20 * sc[3 * i], expected[2], step * std::abs(sc[3 * i]) + 1e-6f);
            EXPECT_NEAR(r02 * sc[3 * i + 2], expected[8], step * std::abs(sc[3 * i + 2]) + 1e-6f);
        }
        total += b.instances.size();
        // Source feature ids ride along per instance.
        if (n.extras.Has("sources")) {
            const tinygltf::Value& ids = n.extras.Get("sources");
            ASSERT_EQ(ids.ArrayLen(), b.instances.size());
            for (std::size_t i = 0; i < b.instances.size(); ++i) {
                const std::string expected =
                    b.instances[i].source == Instance::kNoSource ? "" : s.sources[b.instances[i].source];
                EXPECT_EQ(ids.Get(static_cast<int>(i)).Get<std::string>(), expected);
            }
        }
    }
    EXPECT_EQ(total, s.instanceCount());
}

TEST(GlbSceneWriter, PlainNodesHoldEveryInstanceWithoutTheExtension) {
    const auto test = makeScene(shippedCatalogue());
    const Scene& s = test.scene;
    GlbSceneOptions options;
    options.plainNodes = true;
    const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes, options).value());
    EXPECT_TRUE(m.extensionsUsed.empty());
    EXPECT_TRUE(instancedNodes(m).empty());
    const std::vector<const InstanceBlock*> blocks = blocksInFileOrder(s);
    std::size_t k = 0, total = 0;
    for (const tinygltf::Node& group : m.nodes) {
        if (group.name.find(" block ") == std::string::npos) continue;
        const InstanceBlock& b = *blocks.at(k++);
        EXPECT_EQ(group.name, s.assets[static_cast<std::size_t>(b.asset)] + " block " + std::to_string(b.blockX) + "," +
                                  std::to_string(b.blockY));
        ASSERT_EQ(group.children.size(), b.instances.size());
        for (std::size_t i = 0; i < b.instances.size(); ++i) {
            const tinygltf::Node& n = m.nodes.at(static_cast<std::size_t>(group.children[i]));
            const Instance& in = b.instances[i];
            EXPECT_EQ(m.meshes.at(static_cast<std::size_t>(n.mesh)).name, s.assets[static_cast<std::size_t>(b.asset)]);
            ASSERT_EQ(n.translation.size(), 3u);
            EXPECT_EQ(static_cast<float>(n.translation[0]), in.position.x);
            EXPECT_EQ(static_cast<float>(n.translation[2]), in.position.z);
            EXPECT_EQ(static_cast<float>(n.rotation[1]), rotationQuaternion(in)[1]);
            EXPECT_EQ(static_cast<float>(n.rotation[3]), rotationQuaternion(in)[3]);
            EXPECT_EQ(static_cast<float>(n.scale[1]), in.scale.y);
            if (in.source != Instance::kNoSource) {
                EXPECT_EQ(n.extras.Get("source").Get<std::string>(), s.sources[in.source]);
            }
            ++total;
        }
    }
    EXPECT_EQ(k, s.blocks.size());
    EXPECT_EQ(total, s.instanceCount());
}

TEST(GlbSceneWriter, OneMeshPerAssetHoldsTheModelsTriangles) {
    const auto test = makeScene(shippedCatalogue());
    const tinygltf::Model m = loadGlb(encodeSceneGlb(test.scene, test.meshes).value());
    for (std::size_t a = 0; a < test.scene.assets.size(); ++a) {
        int found = 0;
        for (const tinygltf::Mesh& mesh : m.meshes) {
            if (mesh.name != test.scene.assets[a]) continue;
            ++found;
            ASSERT_EQ(mesh.primitives.size(), 1u);
            const tinygltf::Primitive& p = mesh.primitives[0];
            EXPECT_EQ(accessorData<float>(m, p.attributes.at("POSITION")), test.meshes[a].positions);
            // Normals are stored as bytes (KHR_mesh_quantization): within half a step of 1/127.
            const std::vector<float> normals = normalData(m, p.attributes.at("NORMAL"));
            ASSERT_EQ(normals.size(), test.meshes[a].normals.size());
            for (std::size_t i = 0; i < normals.size(); ++i) {
                EXPECT_NEAR(normals[i], test.meshes[a].normals[i], 0.5f / 127.0f + 1e-6f) << i;
            }
            EXPECT_EQ(indexData(m, p.indices), test.meshes[a].indices);
            EXPECT_TRUE(p.attributes.count("COLOR_0"));
        }
        EXPECT_EQ(found, 1) << test.scene.assets[a];
    }
}

TEST(GlbSceneWriter, NodeTransformsOfAMultiNodeModelAreBakedIntoItsMesh) {
    // A model of two nodes — a unit triangle under a matrix node and the same triangle under a
    // translated, rotated, scaled child — written with tinygltf, then exported.
    terrabit::test::TempDir dir;
    tinygltf::Model src;
    src.asset.version = "2.0";
    const std::vector<float> tri{0, 0, 0, 1, 0, 0, 0, 0, -1};
    const std::vector<std::uint16_t> idx{0, 1, 2, 0};  // padded to 4 bytes
    tinygltf::Buffer buf;
    buf.data.resize(tri.size() * 4 + idx.size() * 2);
    std::memcpy(buf.data.data(), tri.data(), tri.size() * 4);
    std::memcpy(buf.data.data() + tri.size() * 4, idx.data(), idx.size() * 2);
    src.buffers.push_back(buf);
    tinygltf::BufferView pv{};
    pv.buffer = 0;
    pv.byteLength = tri.size() * 4;
    pv.target = TINYGLTF_TARGET_ARRAY_BUFFER;
    tinygltf::BufferView iv{};
    iv.buffer = 0;
    iv.byteOffset = tri.size() * 4;
    iv.byteLength = 6;
    iv.target = TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER;
    src.bufferViews = {pv, iv};
    tinygltf::Accessor pa;
    pa.bufferView = 0;
    pa.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
    pa.type = TINYGLTF_TYPE_VEC3;
    pa.count = 3;
    pa.minValues = {0, 0, -1};
    pa.maxValues = {1, 0, 0};
    tinygltf::Accessor ia;
    ia.bufferView = 1;
    ia.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
    ia.type = TINYGLTF_TYPE_SCALAR;
    ia.count = 3;
    src.accessors = {pa, ia};
    tinygltf::Primitive prim;
    prim.attributes["POSITION"] = 0;
    prim.indices = 1;
    tinygltf::Mesh mesh;
    mesh.primitives.push_back(prim);
    src.meshes.push_back(mesh);
    tinygltf::Node parent;
    parent.mesh = 0;
    parent.matrix = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 5, 0, 0, 1};  // scale 2, then x + 5
    parent.children = {1};
    tinygltf::Node child;
    child.mesh = 0;
    child.translation = {0, 1, 0};
    src.nodes = {parent, child};
    tinygltf::Scene sc;
    sc.nodes = {0};
    src.scenes.push_back(sc);
    src.defaultScene = 0;
    tinygltf::TinyGLTF writer;
    ASSERT_TRUE(writer.WriteGltfSceneToFile(&src, (dir / "two.glb").string(), true, true, false, true));

    AssetCatalogue catalogue;
    AssetInfo info;
    info.id = "two_nodes";
    info.file = "two.glb";
    info.path = dir / "two.glb";
    info.category = "building";
    info.footprint = {1, 1};
    info.height = 2;
    ASSERT_TRUE(catalogue.add(info).ok());
    Scene scene;
    scene.frame.origin = {7.4246, 43.7350};
    scene.tiles = {terrabit::test::monacoTile(17)};
    scene.assets = {"two_nodes"};
    InstanceBlock block;
    block.asset = 0;
    block.tile = scene.tiles[0];
    block.instances.resize(1);
    scene.blocks.push_back(block);
    const Result<std::vector<AssetMesh>> meshes = loadSceneAssets(scene, catalogue);
    ASSERT_TRUE(meshes.ok()) << meshes.message();
    const tinygltf::Model m = loadGlb(encodeSceneGlb(scene, *meshes).value());
    std::vector<float> positions;
    for (const tinygltf::Mesh& mm : m.meshes) {
        if (mm.name == "two_nodes") positions = accessorData<float>(m, mm.primitives.at(0).attributes.at("POSITION"));
    }
    // Parent: 2·p + (5, 0, 0). Child: 2·(p + (0, 1, 0)) + (5, 0, 0).
    std::vector<std::array<float, 3>> got;
    for (std::size_t i = 0; i + 2 < positions.size(); i += 3)
        got.push_back({positions[i], positions[i + 1], positions[i + 2]});
    std::sort(got.begin(), got.end());
    std::vector<std::array<float, 3>> expected{{5, 0, 0}, {7, 0, 0}, {5, 0, -2}, {5, 2, 0}, {7, 2, 0}, {5, 2, -2}};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(got, expected);
}

TEST(GlbSceneWriter, GroundCoversEveryCellButSunkenWaterAndSurfacesLieAtTheirElevation) {
    const auto test = makeScene(shippedCatalogue());
    const Scene& s = test.scene;
    const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes).value());
    for (const TileId& t : s.tiles) {
        const std::vector<Primitive> prims = tilePrimitives(m, t);
        ASSERT_EQ(prims.size(), 3u);  // ground, road, water
        BitTile water, road;
        for (const SurfacePatch& p : s.surfaces) {
            if (p.tile == t && p.layer == "water") water = cellsOfRects(p.rects);
            if (p.tile == t && p.layer == "road") road = cellsOfRects(p.rects);
        }
        ASSERT_TRUE(water.any());
        EXPECT_EQ(prims[0].material, "ground");
        EXPECT_EQ(quadCoverage(s, t, prims[0]), ~water);
        EXPECT_EQ(prims[1].material, "road");
        EXPECT_EQ(quadCoverage(s, t, prims[1]), road);
        EXPECT_EQ(prims[2].material, "water");
        EXPECT_EQ(quadCoverage(s, t, prims[2]), water);
        for (std::size_t i = 1; i < prims[0].positions.size(); i += 3) EXPECT_EQ(prims[0].positions[i], 0.0f);
        for (std::size_t i = 1; i < prims[1].positions.size(); i += 3) EXPECT_EQ(prims[1].positions[i], 0.05f);
        for (std::size_t i = 1; i < prims[2].positions.size(); i += 3) EXPECT_EQ(prims[2].positions[i], -0.4f);
        for (const Primitive& p : prims) {
            for (std::size_t i = 0; i < p.normals.size(); i += 3) EXPECT_EQ(p.normals[i + 1], 1.0f);
            // Counter-clockwise seen from above: each triangle's normal points up (+Y).
            for (std::size_t k = 0; k < p.indices.size(); k += 3) {
                const float* a = &p.positions[3 * p.indices[k]];
                const float* b = &p.positions[3 * p.indices[k + 1]];
                const float* c = &p.positions[3 * p.indices[k + 2]];
                const float ny = (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]);
                ASSERT_GT(ny, 0.0f);
            }
        }
    }
    // Materials carry the patches' colours in linear light.
    for (const tinygltf::Material& mat : m.materials) {
        if (mat.name == "water") {
            EXPECT_NEAR(mat.pbrMetallicRoughness.baseColorFactor[2], srgbToLinear(245 / 255.0), 1e-12);
        }
    }
}

TEST(GlbSceneWriter, GeoreferenceAndAttributionTravelInTheFile) {
    const auto test = makeScene(shippedCatalogue());
    const Scene& s = test.scene;
    const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes).value());
    EXPECT_EQ(m.asset.copyright, kOsmAttribution);
    for (const tinygltf::Value* extras :
         {&m.asset.extras, &m.nodes.at(static_cast<std::size_t>(m.scenes[0].nodes[0])).extras}) {
        const tinygltf::Value& geo = extras->Get("terrabit");
        ASSERT_TRUE(geo.IsObject());
        EXPECT_DOUBLE_EQ(geo.Get("originLon").GetNumberAsDouble(), s.frame.origin.lon);
        EXPECT_DOUBLE_EQ(geo.Get("originLat").GetNumberAsDouble(), s.frame.origin.lat);
        EXPECT_EQ(geo.Get("zoom").GetNumberAsInt(), s.frame.zoom);
        EXPECT_EQ(geo.Get("seed").Get<std::string>(), std::to_string(s.seed));
        // The tiles in the file's order: by quadkey.
        std::vector<std::string> quadkeys;
        for (const TileId& t : s.tiles) quadkeys.push_back(t.quadkey());
        std::sort(quadkeys.begin(), quadkeys.end());
        ASSERT_EQ(geo.Get("quadkeys").ArrayLen(), quadkeys.size());
        for (std::size_t i = 0; i < quadkeys.size(); ++i) {
            EXPECT_EQ(geo.Get("quadkeys").Get(static_cast<int>(i)).Get<std::string>(), quadkeys[i]);
        }
    }
}

TEST(GlbSceneWriter, TheSameSceneGivesTheSameBytes) {
    const auto a = makeScene(shippedCatalogue());
    const auto b = makeScene(shippedCatalogue());
    EXPECT_EQ(encodeSceneGlb(a.scene, a.meshes).value(), encodeSceneGlb(b.scene, b.meshes).value());
    GlbSceneOptions plain;
    plain.plainNodes = true;
    EXPECT_EQ(encodeSceneGlb(a.scene, a.meshes, plain).value(), encodeSceneGlb(b.scene, b.meshes, plain).value());
    // …and another seed gives another scene, so the comparison above can fail.
    terrabit::test::SceneSpec other;
    other.seed = 2;
    const auto c = makeScene(shippedCatalogue(), other);
    EXPECT_NE(encodeSceneGlb(a.scene, a.meshes).value(), encodeSceneGlb(c.scene, c.meshes).value());
}

TEST(GlbSceneWriter, WrittenPieceByPieceItIsTheEncodedFileAndASinkErrorStopsIt) {
    const auto a = makeScene(shippedCatalogue());
    for (const bool plainNodes : {false, true}) {
        GlbSceneOptions options;
        options.plainNodes = plainNodes;
        const std::vector<std::uint8_t> encoded = encodeSceneGlb(a.scene, a.meshes, options).value();
        std::vector<std::uint8_t> written;
        std::size_t pieces = 0;
        const GlbSink collect = [&](std::span<const std::uint8_t> bytes) {
            written.insert(written.end(), bytes.begin(), bytes.end());
            ++pieces;
            return Status::success();
        };
        ASSERT_TRUE(writeSceneGlb(a.scene, a.meshes, collect, options).ok());
        EXPECT_EQ(written, encoded) << plainNodes;
        // The file in its parts (header, JSON, binary chunk): a failure at any of them stops the
        // writing there and comes back as the sink said it.
        for (std::size_t failAt = 0; failAt < pieces; ++failAt) {
            std::size_t calls = 0;
            const GlbSink failing = [&](std::span<const std::uint8_t>) -> Status {
                if (calls++ == failAt) return ioError("disk full at piece " + std::to_string(failAt));
                return Status::success();
            };
            const Status s = writeSceneGlb(a.scene, a.meshes, failing, options);
            ASSERT_FALSE(s.ok());
            EXPECT_EQ(s.message(), "disk full at piece " + std::to_string(failAt));
            EXPECT_EQ(calls, failAt + 1);
        }
    }
    // The JSON names the binary chunk's real length (tinygltf was given the model without it).
    const std::vector<std::uint8_t> bytes = encodeSceneGlb(a.scene, a.meshes).value();
    const tinygltf::Model model = loadGlb(bytes);
    const auto u32 = [&](std::size_t at) {
        return std::uint32_t{bytes[at]} | std::uint32_t{bytes[at + 1]} << 8 | std::uint32_t{bytes[at + 2]} << 16 |
               std::uint32_t{bytes[at + 3]} << 24;
    };
    const std::size_t binChunk = 20 + u32(12);
    ASSERT_EQ(model.buffers.size(), 1u);
    EXPECT_GT(model.buffers[0].data.size(), 0u);
    EXPECT_EQ(model.buffers[0].data.size(), u32(binChunk));
    EXPECT_EQ(u32(8), bytes.size());
    EXPECT_EQ(binChunk + 8 + u32(binChunk), bytes.size());
}

TEST(GlbSceneWriter, TileContentHoldsOnlyThatTile) {
    const auto test = makeScene(shippedCatalogue());
    const Scene& s = test.scene;
    const TileId t = s.tiles[1];
    const tinygltf::Model m = loadGlb(encodeTileGlb(s, t, test.meshes).value());
    std::size_t expected = 0, blocks = 0;
    for (const InstanceBlock& b : s.blocks) {
        if (b.tile == t) {
            expected += b.instances.size();
            ++blocks;
        }
    }
    const auto nodes = instancedNodes(m);
    EXPECT_EQ(nodes.size(), blocks);
    std::size_t total = 0;
    for (const tinygltf::Node* n : nodes)
        total += m.accessors.at(static_cast<std::size_t>(attribute(*n, "TRANSLATION"))).count;
    EXPECT_EQ(total, expected);
    int tileNodes = 0;
    for (const tinygltf::Node& n : m.nodes) tileNodes += n.name.starts_with("tile ") ? 1 : 0;
    EXPECT_EQ(tileNodes, 1);
    EXPECT_EQ(m.asset.extras.Get("terrabit").Get("quadkeys").ArrayLen(), 1u);
}

namespace {

// The nodes named "generated buildings <quadkey>", by name.
std::map<std::string, const tinygltf::Node*> generatedNodes(const tinygltf::Model& m) {
    std::map<std::string, const tinygltf::Node*> out;
    for (const tinygltf::Node& n : m.nodes) {
        if (n.name.starts_with("generated buildings ")) out.emplace(n.name, &n);
    }
    return out;
}

}  // namespace

TEST(GlbSceneWriter, EachTilesGeneratedBuildingsAreOneMeshOfTheirTriangles) {
    auto test = makeScene(shippedCatalogue());
    addGeneratedBuildings(test.scene);
    const Scene& s = test.scene;
    for (const bool plainNodes : {false, true}) {
        SCOPED_TRACE(plainNodes);
        GlbSceneOptions options;
        options.plainNodes = plainNodes;
        const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes, options).value());
        const auto nodes = generatedNodes(m);
        ASSERT_EQ(nodes.size(), 2u) << "one per tile with generated buildings";
        for (const TileId& tile : {s.tiles[0], s.tiles[1]}) {
            std::vector<const GeneratedBuilding*> own;
            std::size_t triangles = 0;
            for (const GeneratedBuilding& g : s.generated) {
                if (g.tile != tile) continue;
                own.push_back(&g);
                triangles += generatedBuildingMesh(g).triangleCount();
            }
            const tinygltf::Node& node = *nodes.at("generated buildings " + tile.quadkey());
            const tinygltf::Mesh& mesh = m.meshes.at(static_cast<std::size_t>(node.mesh));
            ASSERT_EQ(mesh.primitives.size(), 1u);
            const tinygltf::Primitive& p = mesh.primitives[0];
            EXPECT_EQ(indexData(m, p.indices).size(), 3 * triangles);
            EXPECT_GT(triangles, 100u) << "walls, windows and roofs, not a bare extrusion";
            EXPECT_TRUE(p.attributes.count("COLOR_0"));
            // The vertices are the shared mesh's, in scene coordinates, bit for bit.
            EXPECT_EQ(accessorData<float>(m, p.attributes.at("POSITION")), generatedBuildingsMesh(own).positions);
            ASSERT_EQ(node.extras.Get("sources").ArrayLen(), own.size());
            for (std::size_t i = 0; i < own.size(); ++i) {
                EXPECT_EQ(node.extras.Get("sources").Get(static_cast<int>(i)).Get<std::string>(),
                          s.sources[own[i]->source]);
            }
            // The tile's node holds it.
            const auto tileNode = std::find_if(m.nodes.begin(), m.nodes.end(), [&](const tinygltf::Node& n) {
                return n.name == "tile " + tile.quadkey();
            });
            ASSERT_NE(tileNode, m.nodes.end());
            const int index = static_cast<int>(&node - m.nodes.data());
            EXPECT_NE(std::find(tileNode->children.begin(), tileNode->children.end(), index), tileNode->children.end());
        }
    }
    // A tile's content (3D Tiles) holds its own generated buildings only; a tile without any, none.
    const tinygltf::Model second = loadGlb(encodeTileGlb(s, s.tiles[1], test.meshes).value());
    const auto own = generatedNodes(second);
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(own.begin()->first, "generated buildings " + s.tiles[1].quadkey());
    EXPECT_TRUE(generatedNodes(loadGlb(encodeTileGlb(s, s.tiles[2], test.meshes).value())).empty());
}

TEST(GlbSceneWriter, AGeneratedBuildingThatCannotBeDrawnIsRefusedSayingWhichAndWhy) {
    auto test = makeScene(shippedCatalogue());
    addGeneratedBuildings(test.scene);
    test.scene.generated[1].outline.resize(2);
    auto bytes = encodeSceneGlb(test.scene, test.meshes);
    ASSERT_FALSE(bytes);
    EXPECT_NE(bytes.message().find("generated building 'way/9001' of tile " + test.scene.tiles[1].quadkey()),
              std::string::npos)
        << bytes.message();
    EXPECT_NE(bytes.message().find("2 points"), std::string::npos) << bytes.message();
    addGeneratedBuildings(test.scene);
    test.scene.generated[1].outline.push_back({0, 0});
    test.scene.generated.back().tile = TileId{17, 1, 1};
    bytes = encodeSceneGlb(test.scene, test.meshes);
    ASSERT_FALSE(bytes);
    EXPECT_NE(bytes.message().find("a tile the scene does not list"), std::string::npos) << bytes.message();
}

TEST(GlbSceneWriter, BadScenesAndMeshListsAreRefusedWithTheirPlace) {
    const auto test = makeScene(shippedCatalogue());
    Scene s = test.scene;
    s.blocks[2].asset = 17;
    const auto bad = encodeSceneGlb(s, test.meshes);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("tile " + s.blocks[2].tile.quadkey()), std::string::npos) << bad.message();
    EXPECT_NE(bad.message().find("asset 17"), std::string::npos) << bad.message();

    s = test.scene;
    s.blocks[0].instances.edit()[0].position.x = std::nanf("");
    EXPECT_NE(encodeSceneGlb(s, test.meshes).message().find("non-finite"), std::string::npos);

    const auto fewer = encodeSceneGlb(test.scene, std::span(test.meshes).first(1));
    ASSERT_FALSE(fewer.ok());
    EXPECT_NE(fewer.message().find("asset meshes"), std::string::npos) << fewer.message();
}

TEST(GlbSceneWriter, TexturedSurfacesCarryOneSharedPictureAndUvsFromTheirPositions) {
    auto test = makeScene(shippedCatalogue());
    Scene& s = test.scene;
    for (SurfacePatch& p : s.surfaces) {
        if (p.layer == "road") p.texture = SurfaceTexture::Asphalt;
    }
    const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes).value());
    // One picture for every tile's roads: a JPEG of the texture in the road's colour.
    ASSERT_EQ(m.images.size(), 1u);
    ASSERT_EQ(m.textures.size(), 1u);
    EXPECT_EQ(m.images[0].mimeType, "image/jpeg");
    EXPECT_EQ(m.images[0].name, "asphalt");
    const tinygltf::BufferView& view = m.bufferViews.at(static_cast<std::size_t>(m.images[0].bufferView));
    const std::vector<std::uint8_t> jpeg(
        m.buffers[0].data.begin() + static_cast<std::ptrdiff_t>(view.byteOffset),
        m.buffers[0].data.begin() + static_cast<std::ptrdiff_t>(view.byteOffset + view.byteLength));
    std::array<std::uint8_t, 3> roadColour{};
    for (const SurfacePatch& p : s.surfaces) {
        if (p.layer == "road") roadColour = p.colour;
    }
    EXPECT_EQ(jpeg, *surfaceTextureJpeg(SurfaceTexture::Asphalt, roadColour).value());
    ASSERT_EQ(m.samplers.size(), 1u);
    EXPECT_EQ(m.samplers[0].wrapS, TINYGLTF_TEXTURE_WRAP_REPEAT);
    EXPECT_EQ(m.samplers[0].wrapT, TINYGLTF_TEXTURE_WRAP_REPEAT);

    const double repeat = surfaceTextureRepeatMetres(SurfaceTexture::Asphalt);
    std::size_t textured = 0;
    for (const tinygltf::Mesh& mesh : m.meshes) {
        for (const tinygltf::Primitive& p : mesh.primitives) {
            if (p.material < 0) continue;
            const tinygltf::Material& mat = m.materials.at(static_cast<std::size_t>(p.material));
            if (mat.name != "road") {
                // Untextured: no coordinates, the colour in the factor.
                EXPECT_EQ(p.attributes.count("TEXCOORD_0"), 0u) << mat.name;
                EXPECT_LT(mat.pbrMetallicRoughness.baseColorTexture.index, 0) << mat.name;
                continue;
            }
            ++textured;
            EXPECT_EQ(mat.pbrMetallicRoughness.baseColorTexture.index, 0);
            EXPECT_EQ(mat.pbrMetallicRoughness.baseColorFactor, (std::vector<double>{1.0, 1.0, 1.0, 1.0}));
            const auto positions = accessorData<float>(m, p.attributes.at("POSITION"));
            const auto uv = accessorData<float>(m, p.attributes.at("TEXCOORD_0"));
            ASSERT_EQ(uv.size() / 2, positions.size() / 3);
            // A texture coordinate is its point's place on the ground in repeats from the
            // scene's origin, so two tiles give a shared corner the same one (no seam).
            for (std::size_t v = 0; v < uv.size() / 2; ++v) {
                EXPECT_EQ(uv[2 * v], static_cast<float>(positions[3 * v] / repeat));
                EXPECT_EQ(uv[2 * v + 1], static_cast<float>(positions[3 * v + 2] / repeat));
            }
        }
    }
    EXPECT_EQ(textured, s.tiles.size());
}

TEST(GlbSceneWriter, RoadsWithRoadCoordinatesRunTheirTextureAlongTheWay) {
    auto test = makeScene(shippedCatalogue());
    Scene& s = test.scene;
    // The first tile's road: two triangles, the first with coordinates along a way, the second
    // with none (NaN: no way reaches it), which takes its scene position as before.
    const std::vector<Vec2> corners{{0, 0}, {0, 128}, {128, 128}, {128, 128}, {256, 128}, {256, 0}};
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<Vec2> roadUv{{10, -2}, {10, 3}, {90, 3}, {nan, nan}, {nan, nan}, {nan, nan}};
    for (SurfacePatch& p : s.surfaces) {
        if (p.layer != "road") continue;
        p.texture = SurfaceTexture::Asphalt;
        if (p.tile != s.tiles[0]) continue;
        p.shape.triangles = corners;
        p.roadUv = roadUv;
    }
    const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes).value());
    const double repeat = surfaceTextureRepeatMetres(SurfaceTexture::Asphalt);
    std::size_t checked = 0;
    for (const tinygltf::Mesh& mesh : m.meshes) {
        if (mesh.name != "ground " + s.tiles[0].quadkey()) continue;
        for (const tinygltf::Primitive& p : mesh.primitives) {
            if (p.material < 0 || m.materials.at(static_cast<std::size_t>(p.material)).name != "road") continue;
            const auto positions = accessorData<float>(m, p.attributes.at("POSITION"));
            const auto uv = accessorData<float>(m, p.attributes.at("TEXCOORD_0"));
            ASSERT_EQ(positions.size() / 3, corners.size()) << "a vertex per corner, flat";
            for (std::size_t v = 0; v < corners.size(); ++v) {
                if (std::isfinite(roadUv[v].x)) {
                    // Along the way and across it, in repeats.
                    EXPECT_FLOAT_EQ(uv[2 * v], static_cast<float>(roadUv[v].x / repeat)) << v;
                    EXPECT_FLOAT_EQ(uv[2 * v + 1], static_cast<float>(roadUv[v].y / repeat)) << v;
                } else {
                    EXPECT_EQ(uv[2 * v], static_cast<float>(positions[3 * v] / repeat)) << v;
                    EXPECT_EQ(uv[2 * v + 1], static_cast<float>(positions[3 * v + 2] / repeat)) << v;
                }
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, corners.size());
    // Coordinates that do not match the triangles are refused, saying where.
    for (SurfacePatch& p : s.surfaces) {
        if (p.tile == s.tiles[0] && p.layer == "road") p.roadUv.pop_back();
    }
    const auto refused = encodeSceneGlb(s, test.meshes);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("road texture coordinates"), std::string::npos) << refused.message();
}

/// Gives the first tile's road a shape (any triangle) and lets `paint` add to it.
template <class Paint>
void paintFirstRoad(Scene& s, Paint paint) {
    for (SurfacePatch& p : s.surfaces) {
        if (p.tile != s.tiles[0] || p.layer != "road") continue;
        p.shape.triangles = {{0, 0}, {0, 256}, {256, 256}};
        paint(p);
    }
}

TEST(GlbSceneWriter, RoadMarkingsArePaintedJustAboveTheirRoad) {
    auto test = makeScene(shippedCatalogue());
    Scene& s = test.scene;
    const TileId t = s.tiles[0];
    paintFirstRoad(s, [](SurfacePatch& p) {
        p.markings = {{10, 10}, {10, 20}, {20, 20}, {30, 30}, {30, 40}, {40, 40}};
    });
    const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes).value());
    std::size_t found = 0;
    for (const Primitive& p : tilePrimitives(m, t)) {
        if (p.material != "marking") continue;
        ++found;
        EXPECT_EQ(p.indices.size(), 6u);
        for (std::size_t i = 1; i < p.positions.size(); i += 3) EXPECT_EQ(p.positions[i], 0.05f + kMarkingLiftMetres);
    }
    EXPECT_EQ(found, 1u);
    // Other tiles have no markings, and no marking material is made for them.
    for (const Primitive& p : tilePrimitives(m, s.tiles[1])) EXPECT_NE(p.material, "marking");
    const tinygltf::Material* paint = materialNamed(m, "marking");
    ASSERT_NE(paint, nullptr);
    EXPECT_NEAR(paint->pbrMetallicRoughness.baseColorFactor[0], srgbToLinear(kMarkingColour[0] / 255.0), 1e-12);
}

TEST(GlbSceneWriter, SidewalksStandOnAKerbWhoseWallsFaceOutward) {
    auto test = makeScene(shippedCatalogue());
    Scene& s = test.scene;
    const TileId t = s.tiles[0];
    // A 10 × 4 cell strip of two triangles (counter-clockwise seen from above), and a strip
    // running off the tile's east edge, where it goes on in the next tile: no wall there.
    paintFirstRoad(s, [](SurfacePatch& p) {
        p.sidewalks = {{10, 10},  {10, 14},  {20, 14},  {10, 10},  {20, 14},  {20, 10},
                       {250, 50}, {250, 54}, {256, 54}, {250, 50}, {256, 54}, {256, 50}};
    });
    const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes).value());
    const float road = 0.05f, kerbTop = road + kKerbHeightMetres;
    const auto scenePoint = [&](double x, double y) {
        return groundToScene(s.frame.cellToGround({double(t.x) * kTileCells + x, double(t.y) * kTileCells + y}), 0);
    };
    const std::array<Vec3f, 2> centres{scenePoint(15, 12), scenePoint(253, 52)};  // the strips' middles
    std::size_t tops = 0, walls = 0;
    for (const Primitive& p : tilePrimitives(m, t)) {
        if (p.material == "sidewalk") {
            ++tops;
            for (std::size_t i = 1; i < p.positions.size(); i += 3) EXPECT_EQ(p.positions[i], kerbTop);
        }
        if (p.material != "kerb") continue;
        ++walls;
        // The first strip's four sides and the second's three (its east end runs on): a quad each.
        EXPECT_EQ(p.indices.size(), 7u * 6u);
        float lo = 1e9f, hi = -1e9f;
        for (std::size_t i = 1; i < p.positions.size(); i += 3)
            lo = std::min(lo, p.positions[i]), hi = std::max(hi, p.positions[i]);
        EXPECT_EQ(lo, road);
        EXPECT_EQ(hi, kerbTop);
        // Every face is vertical, faces away from its strip, and is wound to face that way.
        for (std::size_t k = 0; k + 2 < p.indices.size(); k += 3) {
            const auto at = [&](std::size_t j) {
                const std::size_t v = p.indices[k + j] * 3;
                return std::array<double, 3>{p.positions[v], p.positions[v + 1], p.positions[v + 2]};
            };
            const auto a = at(0), b = at(1), c = at(2);
            const std::array<double, 3> e1{b[0] - a[0], b[1] - a[1], b[2] - a[2]},
                e2{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            const std::array<double, 3> n{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                          e1[0] * e2[1] - e1[1] * e2[0]};
            EXPECT_NEAR(n[1], 0.0, 1e-6) << "vertical";
            const std::size_t v = p.indices[k] * 3;
            EXPECT_GT(n[0] * p.normals[v] + n[2] * p.normals[v + 2], 0.0) << "wound to face its normal";
            EXPECT_EQ(p.normals[v + 1], 0.0f);
            // Outward: from the middle of the strip it stands on, the normal points away.
            const double mx = (a[0] + b[0] + c[0]) / 3.0, mz = (a[2] + b[2] + c[2]) / 3.0;
            const Vec3f centre =
                std::hypot(mx - centres[0].x, mz - centres[0].z) < std::hypot(mx - centres[1].x, mz - centres[1].z)
                    ? centres[0]
                    : centres[1];
            EXPECT_GT((mx - centre.x) * p.normals[v] + (mz - centre.z) * p.normals[v + 2], 0.0) << "outward";
        }
    }
    EXPECT_EQ(tops, 1u);
    EXPECT_EQ(walls, 1u);
    const tinygltf::Material* kerb = materialNamed(m, "kerb");
    ASSERT_NE(kerb, nullptr);
    EXPECT_NEAR(kerb->pbrMetallicRoughness.baseColorFactor[0], srgbToLinear(kKerbColour[0] / 255.0), 1e-12);
}

TEST(GlbSceneWriter, PathsArePavedJustAboveTheirRoad) {
    auto test = makeScene(shippedCatalogue());
    Scene& s = test.scene;
    const TileId t = s.tiles[0];
    paintFirstRoad(s, [](SurfacePatch& p) { p.paving = {{10, 10}, {10, 20}, {20, 20}}; });
    const tinygltf::Model m = loadGlb(encodeSceneGlb(s, test.meshes).value());
    std::size_t found = 0;
    for (const Primitive& p : tilePrimitives(m, t)) {
        if (p.material != "paving") continue;
        ++found;
        for (std::size_t i = 1; i < p.positions.size(); i += 3) EXPECT_EQ(p.positions[i], 0.05f + kPavingLiftMetres);
    }
    EXPECT_EQ(found, 1u);
    const tinygltf::Material* paving = materialNamed(m, "paving");
    ASSERT_NE(paving, nullptr);
    const int texture = paving->pbrMetallicRoughness.baseColorTexture.index;
    ASSERT_GE(texture, 0);
    EXPECT_EQ(m.images.at(static_cast<std::size_t>(m.textures.at(static_cast<std::size_t>(texture)).source)).name,
              "paving");
}

namespace {

using terrabit::test::quadkeyRuns;
using terrabit::test::streamPartOf;

std::vector<std::uint8_t> finished(GlbSceneStream& stream) {
    std::vector<std::uint8_t> out;
    const Status s = stream.finish([&](std::span<const std::uint8_t> bytes) {
        out.insert(out.end(), bytes.begin(), bytes.end());
        return Status::success();
    });
    EXPECT_TRUE(s.ok()) << s.message();
    return out;
}

}  // namespace

TEST(GlbSceneStream, PartsInQuadkeyOrderMakeTheWholeScenesFileHeldInMemoryOrInFiles) {
    terrabit::test::SceneSpec spec;
    spec.tilesWide = 3;
    spec.tilesHigh = 3;
    auto whole = makeScene(shippedCatalogue(), spec);
    addGeneratedBuildings(whole.scene);
    const terrabit::test::ScratchDir scratch;
    for (const bool plainNodes : {false, true}) {
        GlbSceneOptions options;
        options.plainNodes = plainNodes;
        const std::vector<std::uint8_t> expected = encodeSceneGlb(whole.scene, whole.meshes, options).value();
        // The file's tiles are in quadkey order, not the scene's (y, x).
        const tinygltf::Model model = loadGlb(expected);
        std::vector<std::string> order;
        for (const int n : model.nodes.at(0).children) order.push_back(model.nodes.at(std::size_t(n)).name.substr(5));
        ASSERT_EQ(order.size(), 9u);
        EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
        EXPECT_NE(order.front(), "") << "tile nodes are named by quadkey";
        for (const std::size_t size : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{9}}) {
            SCOPED_TRACE("parts of " + std::to_string(size) + " tiles, plain nodes " + std::to_string(plainNodes));
            GlbSceneStream inMemory = GlbSceneStream::open(options).value();
            GlbSceneStream spilled = GlbSceneStream::open(options, scratch.path()).value();
            std::vector<std::uint64_t> memoryHeld, spilledHeld;
            for (const std::vector<TileId>& run : quadkeyRuns(whole.scene, size)) {
                const terrabit::test::TestScene part = streamPartOf(whole, run);
                ASSERT_TRUE(inMemory.add(part.scene, part.meshes).ok());
                ASSERT_TRUE(spilled.add(part.scene, part.meshes).ok());
                memoryHeld.push_back(inMemory.heldBytes());
                spilledHeld.push_back(spilled.heldBytes());
            }
            EXPECT_EQ(finished(inMemory), expected);
            EXPECT_EQ(finished(spilled), expected);
            // In memory the encoded bytes pile up; spilled, only the files' write buffers stay.
            EXPECT_TRUE(std::is_sorted(memoryHeld.begin(), memoryHeld.end()));
            EXPECT_GT(memoryHeld.back(), memoryHeld.front() * (size < 9 ? 1 : 0));
            for (const std::uint64_t held : spilledHeld) EXPECT_EQ(held, spilledHeld.front());
            EXPECT_LE(spilledHeld.front(), std::uint64_t{8} << 20);
        }
    }
    // The spill files are unnamed: nothing is left in the folder.
    EXPECT_TRUE(std::filesystem::is_empty(scratch.path()));
}

TEST(GlbSceneStream, PartsOutOfOrderOrOfAnotherSceneAreRefusedSayingWhich) {
    terrabit::test::SceneSpec spec;
    spec.tilesWide = 2;
    spec.tilesHigh = 1;
    const auto whole = makeScene(shippedCatalogue(), spec);
    const std::vector<std::vector<TileId>> runs = quadkeyRuns(whole.scene, 1);
    ASSERT_EQ(runs.size(), 2u);
    const auto first = streamPartOf(whole, runs[0]), second = streamPartOf(whole, runs[1]);

    GlbSceneStream stream = GlbSceneStream::open().value();
    ASSERT_TRUE(stream.add(second.scene, second.meshes).ok());
    const Status late = stream.add(first.scene, first.meshes);
    ASSERT_FALSE(late.ok());
    EXPECT_NE(late.message().find("quadkey order: tile " + runs[0][0].quadkey() + " comes after tile " +
                                  runs[1][0].quadkey()),
              std::string::npos)
        << late.message();
    // A failed stream is spent.
    EXPECT_FALSE(stream.add(second.scene, second.meshes).ok());
    EXPECT_FALSE(stream.finish([](std::span<const std::uint8_t>) { return Status::success(); }).ok());

    GlbSceneStream mixed = GlbSceneStream::open().value();
    ASSERT_TRUE(mixed.add(first.scene, first.meshes).ok());
    auto reseeded = second;
    reseeded.scene.seed += 1;
    const Status other = mixed.add(reseeded.scene, reseeded.meshes);
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.message().find("share its origin, zoom, seed"), std::string::npos) << other.message();

    const auto unusable = GlbSceneStream::open({}, "/nonexistent/folder");
    ASSERT_FALSE(unusable.ok());
    EXPECT_NE(unusable.message().find("/nonexistent/folder"), std::string::npos) << unusable.message();
}
