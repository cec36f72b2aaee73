#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "export_test_support.h"
#include "gltf_test_support.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/tileset_levels.h"
#include "terrabit/core/export/tileset_writer.h"
#include "terrabit/core/scene/generated_building_mesh.h"

using namespace terrabit::core;
using nlohmann::json;
using terrabit::test::accessorData;
using terrabit::test::loadGlb;
using terrabit::test::makeScene;
using terrabit::test::shippedCatalogue;

namespace {

/// A 4 × 4 tile scene with many plants (so the levels thin them) and generated buildings.
terrabit::test::TestScene denseScene() {
    terrabit::test::SceneSpec spec;
    spec.tilesWide = 4;
    spec.tilesHigh = 4;
    spec.treesPerBlock = 60;
    auto test = makeScene(shippedCatalogue(), spec);
    terrabit::test::addGeneratedBuildings(test.scene);
    return test;
}

/// The tileset of a scene and the coarse contents it sent to its sink, by uri.
struct Written {
    json tileset;
    std::map<std::string, std::vector<std::uint8_t>> levels;
};

Written writeTileset(const Scene& scene, std::span<const AssetMesh> meshes) {
    Written w;
    const Result<std::string> text =
        encodeTileset(scene, meshes, "tiles", [&](const std::string& uri, std::span<const std::uint8_t> glb) {
            EXPECT_TRUE(w.levels.emplace(uri, std::vector<std::uint8_t>(glb.begin(), glb.end())).second) << uri;
            return Status::success();
        });
    EXPECT_TRUE(text.ok()) << text.message();
    if (text.ok()) w.tileset = json::parse(*text);
    return w;
}

std::string quadkeyOf(const json& node) {
    const std::string uri = node["content"]["uri"];
    return uri.substr(6, uri.size() - 10);
}

/// The baked tiles' quadkeys under a node.
void leavesUnder(const json& node, std::vector<std::string>& out) {
    if (!node.contains("children")) {
        out.push_back(quadkeyOf(node));
        return;
    }
    for (const json& c : node["children"]) leavesUnder(c, out);
}

void forEachNode(const json& node, const std::function<void(const json&, int)>& f, int depth = 0) {
    f(node, depth);
    if (node.contains("children")) {
        for (const json& c : node["children"]) forEachNode(c, f, depth + 1);
    }
}

/// What one coarse content draws: its buildings' source ids and the feet of its boxes.
struct Drawn {
    std::vector<std::string> buildingIds;
    std::vector<std::array<float, 3>> buildings, plants;
};

Drawn drawnBy(const std::vector<std::uint8_t>& glb) {
    const tinygltf::Model m = loadGlb(glb);
    Drawn d;
    for (const tinygltf::Node& n : m.nodes) {
        if (!n.extensions.count("EXT_mesh_gpu_instancing")) continue;
        const tinygltf::Value& at = n.extensions.at("EXT_mesh_gpu_instancing").Get("attributes");
        const auto t = accessorData<float>(m, at.Get("TRANSLATION").GetNumberAsInt());
        auto& feet = n.name == "buildings" ? d.buildings : d.plants;
        for (std::size_t i = 0; i + 2 < t.size(); i += 3) feet.push_back({t[i], t[i + 1], t[i + 2]});
        if (n.name == "buildings") {
            for (const tinygltf::Value& v : n.extras.Get("sources").Get<tinygltf::Value::Array>()) {
                d.buildingIds.push_back(v.Get<std::string>());
            }
        }
    }
    return d;
}

}  // namespace

TEST(TilesetLevels, InnerTilesDrawCoarseContentAndTheirErrorsGrowTowardsTheRoot) {
    const auto test = denseScene();
    const Written w = writeTileset(test.scene, test.meshes);
    int inner = 0;
    forEachNode(w.tileset["root"], [&](const json& n, int) {
        ASSERT_TRUE(n.contains("content"));
        const double error = n["geometricError"].get<double>();
        if (!n.contains("children")) {
            EXPECT_EQ(error, 0.0);  // the baked tiles, as before
            EXPECT_FALSE(n.contains("refine"));
            return;
        }
        ++inner;
        EXPECT_EQ(n["refine"], "REPLACE");
        EXPECT_GT(error, 0.0);
        for (const json& c : n["children"]) EXPECT_GT(error, c["geometricError"].get<double>());
        const std::string uri = n["content"]["uri"];
        ASSERT_EQ(w.levels.count(uri), 1u) << uri;
        const tinygltf::Model m = loadGlb(w.levels.at(uri));
        EXPECT_EQ(m.asset.copyright, kOsmAttribution);
        EXPECT_GE(m.meshes.size(), 3u);  // ground, building box, plant
    });
    EXPECT_GE(inner, 3);
    EXPECT_EQ(w.levels.size(), static_cast<std::size_t>(inner));
    EXPECT_GT(w.tileset["root"]["geometricError"].get<double>(), 0.0);
    EXPECT_GT(w.tileset["geometricError"].get<double>(), w.tileset["root"]["geometricError"].get<double>());
}

TEST(TilesetLevels, EveryCoarseBuildingAndPlantIsOneOfTheSceneBelowIt) {
    const auto test = denseScene();
    const Scene& s = test.scene;
    const Written w = writeTileset(s, test.meshes);
    // The scene's buildings by tile (placed models and generated ones), and where each tile's
    // plants stand in the root's frame, through the leaf's transform from the tileset.
    std::map<std::string, std::set<std::string>> buildingsOf;
    std::map<std::string, std::vector<std::array<double, 3>>> plantsOf;
    std::map<std::string, std::array<double, 16>> transformOf;
    forEachNode(w.tileset["root"], [&](const json& n, int) {
        if (!n.contains("children")) transformOf[quadkeyOf(n)] = n["transform"].get<std::array<double, 16>>();
    });
    for (const InstanceBlock& b : s.blocks) {
        const std::string qk = b.tile.quadkey();
        const std::array<double, 16>& m = transformOf.at(qk);
        for (const Instance& i : b.instances) {
            if (i.source != Instance::kNoSource) {
                buildingsOf[qk].insert(s.sources[i.source]);
                continue;
            }
            const double x = i.position.x, y = i.position.y, z = i.position.z;
            const double e = m[0] * x - m[4] * z + m[8] * y + m[12], n = m[1] * x - m[5] * z + m[9] * y + m[13],
                         u = m[2] * x - m[6] * z + m[10] * y + m[14];
            plantsOf[qk].push_back({e, u, -n});
        }
    }
    for (const GeneratedBuilding& g : s.generated) buildingsOf[g.tile.quadkey()].insert(s.sources[g.source]);

    std::map<std::string, Drawn> drawn;
    for (const auto& [uri, glb] : w.levels) drawn[uri] = drawnBy(glb);
    std::size_t checkedPlants = 0, checkedBuildings = 0;
    forEachNode(w.tileset["root"], [&](const json& n, int) {
        if (!n.contains("children")) return;
        const Drawn& d = drawn.at(n["content"]["uri"]);
        std::vector<std::string> below;
        leavesUnder(n, below);
        std::set<std::string> ids;
        std::vector<std::array<double, 3>> plants;
        for (const std::string& qk : below) {
            ids.insert(buildingsOf[qk].begin(), buildingsOf[qk].end());
            plants.insert(plants.end(), plantsOf[qk].begin(), plantsOf[qk].end());
        }
        ASSERT_EQ(d.buildingIds.size(), d.buildings.size());
        EXPECT_FALSE(d.buildingIds.empty());
        for (const std::string& id : d.buildingIds) {
            EXPECT_EQ(ids.count(id), 1u) << id << " drawn at " << quadkeyOf(n) << " but not built below it";
            ++checkedBuildings;
        }
        EXPECT_LT(d.plants.size(), plants.size());  // thinned
        for (const auto& p : d.plants) {
            double nearest = 1e9;
            for (const auto& q : plants) {
                nearest = std::min(nearest, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
            }
            EXPECT_LT(nearest, 0.5) << "a plant drawn at " << quadkeyOf(n) << " stands on no plant of the scene";
            ++checkedPlants;
        }
        // Each level draws a subset of what the level below draws (where that is a level too).
        std::set<std::array<float, 3>> childPlants;
        std::set<std::string> childIds;
        bool innerChildren = true;
        for (const json& c : n["children"]) {
            if (!c.contains("children")) {
                innerChildren = false;
                continue;
            }
            const Drawn& cd = drawn.at(c["content"]["uri"]);
            childPlants.insert(cd.plants.begin(), cd.plants.end());
            childIds.insert(cd.buildingIds.begin(), cd.buildingIds.end());
        }
        if (!innerChildren) return;
        for (const auto& p : d.plants) EXPECT_EQ(childPlants.count(p), 1u) << quadkeyOf(n);
        for (const std::string& id : d.buildingIds) EXPECT_EQ(childIds.count(id), 1u) << quadkeyOf(n) << " " << id;
    });
    EXPECT_GT(checkedPlants, 100u);
    EXPECT_GT(checkedBuildings, 10u);
}

TEST(TilesetLevels, CoarsePlantsWearTheirModelsCrownColours) {
    const auto test = denseScene();
    const Written w = writeTileset(test.scene, test.meshes);
    const auto linear = [](Rgb c) {
        return std::vector<double>{srgbToLinear(c.r / 255.0), srgbToLinear(c.g / 255.0), srgbToLinear(c.b / 255.0),
                                   1.0};
    };
    // The crown colours of the scene's plant models.
    std::set<std::vector<double>> crowns;
    for (const InstanceBlock& b : test.scene.blocks) {
        for (const Instance& i : b.instances) {
            if (i.source == Instance::kNoSource) {
                crowns.insert(linear(facadeColours(test.meshes[std::size_t(b.asset)], kLevelPlantColours).roof));
            }
        }
    }
    ASSERT_FALSE(crowns.empty());
    std::size_t nodes = 0;
    for (const auto& [uri, glb] : w.levels) {
        const tinygltf::Model m = loadGlb(glb);
        std::set<std::vector<double>> drawn;
        for (const tinygltf::Node& n : m.nodes) {
            if (n.name != "plants") continue;
            const tinygltf::Mesh& mesh = m.meshes.at(std::size_t(n.mesh));
            ASSERT_EQ(mesh.primitives.size(), 1u);
            const auto colour =
                m.materials.at(std::size_t(mesh.primitives[0].material)).pbrMetallicRoughness.baseColorFactor;
            EXPECT_EQ(crowns.count(colour), 1u) << uri << ": plants in a colour no plant model has";
            EXPECT_TRUE(drawn.insert(colour).second) << uri << ": two nodes for one colour";
            ++nodes;
        }
    }
    EXPECT_GT(nodes, w.levels.size() - 1);
    // Not the stand-in green: the shipped plants have colours of their own.
    EXPECT_EQ(crowns.count(linear(kLevelPlantColours.roof)), 0u);
}

TEST(TilesetLevels, CoarseBuildingsWearTheirModelsWallAndRoofColours) {
    const auto test = denseScene();
    const Scene& s = test.scene;
    const Written w = writeTileset(s, test.meshes);
    // What each building's box should wear: its model's mean wall and roof colours, or the
    // generated building's own.
    std::map<std::string, FacadeColours> expected;
    for (const InstanceBlock& b : s.blocks) {
        for (const Instance& i : b.instances) {
            if (i.source == Instance::kNoSource) continue;
            expected[s.sources[i.source]] = facadeColours(test.meshes[std::size_t(b.asset)], kLevelBuildingColours);
        }
    }
    for (const GeneratedBuilding& g : s.generated) expected[s.sources[g.source]] = generatedBuildingColours(g);
    const auto linear = [](Rgb c) {
        return std::vector<double>{srgbToLinear(c.r / 255.0), srgbToLinear(c.g / 255.0), srgbToLinear(c.b / 255.0),
                                   1.0};
    };
    std::size_t checked = 0;
    std::set<std::vector<double>> walls, roofs;
    for (const auto& [uri, glb] : w.levels) {
        const tinygltf::Model m = loadGlb(glb);
        std::set<std::pair<std::vector<double>, std::vector<double>>> pairs;
        for (const tinygltf::Node& n : m.nodes) {
            if (n.name != "buildings") continue;
            // The box's sides in one material, its top in another.
            const tinygltf::Mesh& mesh = m.meshes.at(std::size_t(n.mesh));
            ASSERT_EQ(mesh.primitives.size(), 2u);
            const auto colourOf = [&](const tinygltf::Primitive& p) {
                return m.materials.at(std::size_t(p.material)).pbrMetallicRoughness.baseColorFactor;
            };
            const auto facing = [&](const tinygltf::Primitive& p) {
                return accessorData<float>(m, p.attributes.at("NORMAL"))[1];
            };
            EXPECT_EQ(facing(mesh.primitives[0]), 0.0f);  // the sides
            EXPECT_EQ(facing(mesh.primitives[1]), 1.0f);  // the top
            const auto side = colourOf(mesh.primitives[0]), top = colourOf(mesh.primitives[1]);
            EXPECT_TRUE(pairs.insert({side, top}).second) << uri << ": two nodes for one pair of colours";
            walls.insert(side);
            roofs.insert(top);
            for (const tinygltf::Value& v : n.extras.Get("sources").Get<tinygltf::Value::Array>()) {
                const FacadeColours& c = expected.at(v.Get<std::string>());
                EXPECT_EQ(side, linear(c.walls)) << v.Get<std::string>();
                EXPECT_EQ(top, linear(c.roof)) << v.Get<std::string>();
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 10u);
    // The shipped models and the generated buildings are not all of one colour.
    EXPECT_GE(walls.size(), 3u);
    EXPECT_GE(roofs.size(), 2u);
}

TEST(TilesetLevels, EachLevelUpDrawsAboutAQuarterOfThePlants) {
    const auto test = denseScene();
    const Written w = writeTileset(test.scene, test.meshes);
    std::size_t scenePlants = 0;
    for (const InstanceBlock& b : test.scene.blocks) {
        for (const Instance& i : b.instances) scenePlants += i.source == Instance::kNoSource ? 1 : 0;
    }
    ASSERT_GT(scenePlants, 2000u);
    forEachNode(w.tileset["root"], [&](const json& n, int) {
        if (!n.contains("children")) return;
        const std::string qk = quadkeyOf(n);
        const int depth = test.scene.frame.zoom - static_cast<int>(qk.size());
        std::vector<std::string> below;
        leavesUnder(n, below);
        std::size_t plantsBelow = 0;
        for (const InstanceBlock& b : test.scene.blocks) {
            if (std::find(below.begin(), below.end(), b.tile.quadkey()) == below.end()) continue;
            for (const Instance& i : b.instances) plantsBelow += i.source == Instance::kNoSource ? 1 : 0;
        }
        const double expected = double(plantsBelow) * std::ldexp(1.0, -2 * depth);
        const double drawn = double(drawnBy(w.levels.at(n["content"]["uri"])).plants.size());
        // Binomial: within five standard deviations (and a few plants).
        EXPECT_NEAR(drawn, expected, 5.0 * std::sqrt(expected) + 3.0) << qk << " depth " << depth;
    });
}

TEST(TilesetLevels, LevelSourcesRoundTripSoAMergedTilesetHasTheSameBytes) {
    const auto test = denseScene();
    const Scene& s = test.scene;
    const Written whole = writeTileset(s, test.meshes);
    Result<std::vector<TilesetLeaf>> leaves = tilesetLeaves(s, test.meshes);
    ASSERT_TRUE(leaves.ok()) << leaves.message();
    // What a merge reads back: each leaf's level source through its file's text, in another order.
    std::vector<TilesetLeaf> readBack;
    for (auto it = leaves->rbegin(); it != leaves->rend(); ++it) {
        const std::string text = encodeLevelSource(it->level);
        Result<LevelSource> decoded = decodeLevelSource(text);
        ASSERT_TRUE(decoded.ok()) << decoded.message();
        EXPECT_EQ(*decoded, it->level) << it->quadkey;
        EXPECT_EQ(encodeLevelSource(*decoded), text);
        EXPECT_EQ(levelSourcePath(it->quadkey), std::filesystem::path("3dtiles/levels/" + it->quadkey + ".json"));
        TilesetLeaf leaf{it->quadkey, it->region, it->transform, std::move(decoded).value()};
        readBack.push_back(std::move(leaf));
    }
    std::map<std::string, std::vector<std::uint8_t>> levels;
    const Result<std::string> merged =
        encodeTilesetLeaves(s.frame, s.seed, s.tiles, std::move(readBack), "tiles", std::nullopt,
                            [&](const std::string& uri, std::span<const std::uint8_t> glb) {
                                levels.emplace(uri, std::vector<std::uint8_t>(glb.begin(), glb.end()));
                                return Status::success();
                            });
    ASSERT_TRUE(merged.ok()) << merged.message();
    EXPECT_EQ(json::parse(*merged), whole.tileset);
    EXPECT_EQ(levels, whole.levels);
    // And the same scene again gives the same bytes.
    const Written again = writeTileset(s, test.meshes);
    EXPECT_EQ(again.levels, whole.levels);
    EXPECT_EQ(again.tileset, whole.tileset);
    EXPECT_FALSE(decodeLevelSource("{\"quadkey\": 3}").ok());
    // A colour beyond 24 bits, or not a number, is an error saying so, not a wrapped colour.
    const auto withBoth = std::find_if(leaves->begin(), leaves->end(), [](const TilesetLeaf& l) {
        return !l.level.buildings.empty() && !l.level.plants.empty();
    });
    ASSERT_NE(withBoth, leaves->end());
    const LevelSource& some = withBoth->level;
    ASSERT_FALSE(some.buildings.empty());
    ASSERT_FALSE(some.plants.empty());
    json bad = json::parse(encodeLevelSource(some));
    bad["buildings"][0][11] = 0x1000000;
    const Result<LevelSource> beyond = decodeLevelSource(bad.dump());
    ASSERT_FALSE(beyond.ok());
    EXPECT_NE(beyond.message().find("colour"), std::string::npos) << beyond.message();
    bad = json::parse(encodeLevelSource(some));
    bad["plants"][0][8] = "green";
    EXPECT_FALSE(decodeLevelSource(bad.dump()).ok());
    // A length given as a float, or beyond ±2^31 cm, is refused with what it is (read as an
    // integer it was undefined behaviour: the level source fuzzer's first find).
    for (const json& v : {json(6.39e23), json(1.5), json(std::int64_t{1} << 40), json(std::uint64_t{1} << 63)}) {
        bad = json::parse(encodeLevelSource(some));
        bad["buildings"][0][0] = v;
        const Result<LevelSource> r = decodeLevelSource(bad.dump());
        ASSERT_FALSE(r.ok()) << v;
        EXPECT_NE(r.message().find("a length"), std::string::npos) << r.message();
    }
    // Beyond 2^24 steps a float holds only some whole numbers: values there still read back as
    // themselves, written and read again (a country's boxes 170 km and more from the root, a
    // yaw the fuzzer made of -3061 rad).
    LevelSource far = some;
    far.buildings.front().x = static_cast<float>(123456789) / 100.0f;
    far.buildings.front().z = static_cast<float>(-2000000001) / 100.0f;
    far.buildings.front().yaw = static_cast<float>(-30611126) / 10000.0f;
    const Result<LevelSource> farBack = decodeLevelSource(encodeLevelSource(far));
    ASSERT_TRUE(farBack.ok()) << farBack.message();
    EXPECT_EQ(farBack->buildings.front().x, far.buildings.front().x);
    EXPECT_EQ(farBack->buildings.front().z, far.buildings.front().z);
    EXPECT_EQ(farBack->buildings.front().yaw, far.buildings.front().yaw);
    EXPECT_EQ(encodeLevelSource(*farBack), encodeLevelSource(far));
    // Older sources without colours read in the colours those bakes drew.
    json old = json::parse(encodeLevelSource(some));
    for (json& b : old["buildings"]) b.erase(b.begin() + 10, b.end());
    for (json& p : old["plants"]) p.erase(p.begin() + 8, p.end());
    const Result<LevelSource> older = decodeLevelSource(old.dump());
    ASSERT_TRUE(older.ok()) << older.message();
    EXPECT_EQ(older->buildings.front().colours, kLevelBuildingColours);
    EXPECT_EQ(older->plants.front().colours, kLevelPlantColours);
}

TEST(TilesetLevels, ATileMostlyUnderWaterIsGlossyWaterFromAfar) {
    // Two of the 16 tiles wholly under a surface: one water, one road.
    auto test = denseScene();
    Scene& s = test.scene;
    const auto cover = [&](std::size_t k, std::string layer, std::array<std::uint8_t, 3> colour) {
        SurfacePatch p;
        p.tile = s.tiles[k];
        p.layer = std::move(layer);
        p.colour = colour;
        p.rects.push_back({0, 0, kTileCells, kTileCells});
        s.surfaces.push_back(std::move(p));
    };
    cover(0, "water", {40, 90, 160});
    cover(5, "road", {95, 95, 95});
    Result<std::vector<TilesetLeaf>> leaves = tilesetLeaves(s, test.meshes);
    ASSERT_TRUE(leaves.ok()) << leaves.message();
    for (const TilesetLeaf& leaf : *leaves) {
        EXPECT_EQ(leaf.level.groundWater, leaf.quadkey == s.tiles[0].quadkey()) << leaf.quadkey;
        // It goes through a part's level source file, and an older file without it reads as land.
        const Result<LevelSource> back = decodeLevelSource(encodeLevelSource(leaf.level));
        ASSERT_TRUE(back.ok());
        EXPECT_EQ(back->groundWater, leaf.level.groundWater);
        json old = json::parse(encodeLevelSource(leaf.level));
        old.erase("groundWater");
        EXPECT_FALSE(decodeLevelSource(old.dump())->groundWater);
    }
    // The coarse contents above draw the water tile's quad glossy and the road's matte.
    const Written w = writeTileset(s, test.meshes);
    std::size_t water = 0, ground = 0;
    for (const auto& [uri, glb] : w.levels) {
        const tinygltf::Model m = loadGlb(glb);
        for (const tinygltf::Material& material : m.materials) {
            if (material.name == "water") {
                EXPECT_DOUBLE_EQ(material.pbrMetallicRoughness.roughnessFactor, kWaterRoughness) << uri;
                ++water;
            } else if (material.name == "ground") {
                EXPECT_DOUBLE_EQ(material.pbrMetallicRoughness.roughnessFactor, kGroundRoughness) << uri;
                ++ground;
            }
        }
    }
    EXPECT_GT(water, 0u);
    EXPECT_GT(ground, water) << "every level has land";
}

TEST(TilesetLevels, ACoarseGroundQuadIsTheMeanColourOfWhatItsTileShows) {
    auto test = denseScene();
    Scene& s = test.scene;
    s.surfaces.clear();
    const auto cover = [&](std::size_t k, std::string layer, std::array<std::uint8_t, 3> colour, CellRect r) {
        SurfacePatch p;
        p.tile = s.tiles[k];
        p.layer = std::move(layer);
        p.colour = colour;
        p.rects.push_back(r);
        s.surfaces.push_back(std::move(p));
    };
    // A quarter of one tile under a road, a quarter of another under water (not enough to be
    // water from afar), the whole of a third under water.
    cover(3, "road", {95, 95, 95}, {0, 0, kTileCells / 2, kTileCells / 2});
    cover(6, "water", {40, 90, 160}, {0, 0, kTileCells, kTileCells / 4});
    cover(9, "water", {40, 90, 160}, {0, 0, kTileCells, kTileCells});
    Result<std::vector<TilesetLeaf>> leaves = tilesetLeaves(s, test.meshes);
    ASSERT_TRUE(leaves.ok()) << leaves.message();
    std::map<std::string, LevelSource> by;
    for (const TilesetLeaf& leaf : *leaves) by[leaf.quadkey] = leaf.level;
    const std::array<std::uint8_t, 3> bare = by.at(s.tiles[0].quadkey()).groundColour;
    const auto quarter = [&](std::array<std::uint8_t, 3> c) {
        std::array<std::uint8_t, 3> out{};
        for (std::size_t i = 0; i < 3; ++i) {
            const double mean = 0.25 * srgbToLinear(c[i] / 255.0) + 0.75 * srgbToLinear(bare[i] / 255.0);
            out[i] = static_cast<std::uint8_t>(std::lround(255.0 * linearToSrgb(mean)));
        }
        return out;
    };
    const LevelSource& road = by.at(s.tiles[3].quadkey());
    EXPECT_EQ(road.groundColour, quarter({95, 95, 95}));
    EXPECT_FALSE(road.groundWater);
    const LevelSource& shore = by.at(s.tiles[6].quadkey());
    EXPECT_EQ(shore.groundColour, quarter({40, 90, 160}));
    EXPECT_FALSE(shore.groundWater);
    const LevelSource& sea = by.at(s.tiles[9].quadkey());
    EXPECT_EQ(sea.groundColour, (std::array<std::uint8_t, 3>{40, 90, 160}));
    EXPECT_TRUE(sea.groundWater);
    EXPECT_NE(road.groundColour, bare);
    EXPECT_NE(shore.groundColour, road.groundColour);

    // The root's content draws every tile's quad in its colour: vertex colours in linear light
    // (normalised bytes) under a white material.
    const Written w = writeTileset(s, test.meshes);
    const tinygltf::Model m = loadGlb(w.levels.at(w.tileset["root"]["content"]["uri"].get<std::string>()));
    std::set<std::array<std::uint8_t, 3>> drawn;
    std::size_t quads = 0;
    for (const tinygltf::Node& n : m.nodes) {
        if (n.name != "ground") continue;
        for (const tinygltf::Primitive& p : m.meshes.at(std::size_t(n.mesh)).primitives) {
            const tinygltf::Accessor& a = m.accessors.at(std::size_t(p.attributes.at("COLOR_0")));
            ASSERT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE);
            ASSERT_TRUE(a.normalized);
            const std::vector<std::uint8_t> rgba = accessorData<std::uint8_t>(m, p.attributes.at("COLOR_0"));
            ASSERT_EQ(rgba.size(), 4 * accessorData<float>(m, p.attributes.at("POSITION")).size() / 3);
            for (std::size_t v = 0; v < rgba.size(); v += 4) {
                std::array<std::uint8_t, 3> srgb{};
                for (std::size_t c = 0; c < 3; ++c) {
                    srgb[c] = static_cast<std::uint8_t>(std::lround(255.0 * linearToSrgb(rgba[v + c] / 255.0)));
                }
                drawn.insert(srgb);
            }
            quads += rgba.size() / 16;
            EXPECT_EQ(m.materials.at(std::size_t(p.material)).pbrMetallicRoughness.baseColorFactor,
                      (std::vector<double>{1.0, 1.0, 1.0, 1.0}));
        }
    }
    EXPECT_EQ(quads, s.tiles.size());
    // Within the rounding of linear bytes: one sRGB step at these colours, two in the darks.
    const auto near = [&](std::array<std::uint8_t, 3> c) {
        for (const auto& d : drawn) {
            bool close = true;
            for (std::size_t i = 0; i < 3; ++i) close = close && std::abs(int(d[i]) - int(c[i])) <= 2;
            if (close) return true;
        }
        return false;
    };
    EXPECT_TRUE(near(road.groundColour));
    EXPECT_TRUE(near(shore.groundColour));
    EXPECT_TRUE(near(bare));
}

TEST(TilesetLevels, AFailingSinkFailsTheTileset) {
    const auto test = denseScene();
    const Result<std::string> text = encodeTileset(
        test.scene, test.meshes, "tiles",
        [](const std::string& uri, std::span<const std::uint8_t>) { return Status(ioError(uri + ": disk full")); });
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.message().find("disk full"), std::string::npos) << text.message();
    EXPECT_EQ(text.error().kind, ErrorKind::Io);
}
