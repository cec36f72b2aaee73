// The scene graph of a hand-made scene: one drawable per asset per block (not per instance),
// one ground quad per tile, one mesh per surface patch; a changed pass or tile swaps only its own
// sub-graphs, and every other node stays the same object; errors leave the graph whole.

#include "terrabit/render/scene_graph.h"
#include "terrabit/core/assets/mesh_builder.h"

#include <gtest/gtest.h>
#include <osg/Geode>
#include <osg/LOD>
#include <osgText/Text>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "instanced_block_p.h"
#include "render_test_support.h"
#include "scene/ground_drape_p.h"
#include "scene_file_p.h"
#include "terrabit/core/export/tileset_levels.h"
#include "terrabit/core/scene/generated_building_mesh.h"
#include "terrabit/core/scene/ground_drape.h"
#include "terrabit/core/terrain/ground_mesh.h"
#include "terrabit/render/instanced_elements.h"
#include "terrabit/render/scene_file.h"
#include "terrabit/render/tile_geometry.h"

namespace terrabit::render {
namespace {

using test::SyntheticSceneSpec;

std::size_t distinctAssetBlocks(const core::Scene& scene) {
    std::set<std::tuple<core::TileId, int, int, int>> keys;
    for (const core::InstanceBlock& b : scene.blocks) keys.insert({b.tile, b.blockX, b.blockY, b.asset});
    return keys.size();
}

TEST(SceneGraph, OneDrawablePerAssetPerBlockWhateverTheInstanceCount) {
    AssetModelCache models;
    for (int trees : {1, 40}) {
        SCOPED_TRACE(trees);
        SyntheticSceneSpec spec;
        spec.treesPerBlock = trees;
        const core::Scene scene = test::syntheticScene(spec);
        SceneGraph graph(test::shippedCatalogue(), models);
        ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
        const GraphCounts c = graph.counts();
        EXPECT_EQ(c.tiles, scene.tiles.size());
        EXPECT_EQ(c.instancedDrawables, distinctAssetBlocks(scene));
        EXPECT_EQ(c.instancedDrawables, scene.blocks.size());
        EXPECT_EQ(c.instances, scene.instanceCount());
        EXPECT_EQ(c.groundDrawables, scene.tiles.size());
        EXPECT_EQ(c.surfaceDrawables, scene.surfaces.size());
        // The graph itself agrees: drawables and instances found by walking it.
        EXPECT_EQ(countDrawables(*graph.tilesGroup()), c.drawables());
        EXPECT_EQ(countInstances(*graph.tilesGroup()),
                  scene.instanceCount() + scene.tiles.size() + scene.surfaces.size());
    }
}

TEST(SceneGraph, OnTerrainEachTileWithPlinthsDrawsThemAsOneMeshAndDropsItWhenTheyGo) {
    AssetModelCache models;
    core::Scene scene = test::syntheticScene();
    scene.terrain = true;
    // Two plinths in the first tile, one in the second.
    for (const auto& [tile, centre] :
         {std::pair{scene.tiles[0], core::Vec2{0.0, 0.0}}, std::pair{scene.tiles[0], core::Vec2{20.0, 5.0}},
          std::pair{scene.tiles[1], core::Vec2{300.0, 5.0}}}) {
        core::Plinth p;
        p.tile = tile;
        p.box.centre = centre;
        p.box.halfExtents = {5.0, 4.0};
        p.bottom = -1.0f;
        p.top = 2.0f;
        scene.plinths.push_back(p);
    }
    SceneGraph graph(test::shippedCatalogue(), models);
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    EXPECT_EQ(graph.counts().plinthDrawables, 2u);
    EXPECT_EQ(countDrawables(*graph.tilesGroup()), graph.counts().drawables());
    // The same plinths again: the mesh is kept; without them it goes.
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    EXPECT_EQ(graph.lastUpdate().added + graph.lastUpdate().replaced + graph.lastUpdate().removed, 0u);
    scene.plinths.clear();
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    EXPECT_EQ(graph.counts().plinthDrawables, 0u);
    EXPECT_EQ(graph.lastUpdate().removed, 2u) << "the two plinth meshes, nothing else";
    EXPECT_EQ(graph.lastUpdate().added + graph.lastUpdate().replaced, 0u);
    EXPECT_EQ(countDrawables(*graph.tilesGroup()), graph.counts().drawables());
}

// The child of a tile's group with this name, or nullptr.
const osg::Node* tileChild(const SceneGraph& graph, const core::TileId& tile, const std::string& name) {
    const osg::Group* tiles = graph.tilesGroup();
    for (unsigned i = 0; i < tiles->getNumChildren(); ++i) {
        const osg::Group* group = tiles->getChild(i)->asGroup();
        if (!group || group->getName() != tile.quadkey()) continue;
        for (unsigned k = 0; k < group->getNumChildren(); ++k) {
            if (group->getChild(k)->getName() == name) return group->getChild(k);
        }
    }
    return nullptr;
}

TEST(SceneGraph, EachTileWithGeneratedBuildingsDrawsThemAsOneMeshOfTheirTriangles) {
    AssetModelCache models;
    core::Scene scene = test::syntheticScene();
    // Two buildings in the first tile (an L and a gabled house), one in the second.
    const auto add = [&](const core::TileId& tile, std::vector<core::Vec2> ring, const char* roof) {
        const core::Vec2 c =
            scene.frame.cellToGround({(tile.x + 0.5) * core::kTileCells, (tile.y + 0.5) * core::kTileCells});
        core::GeneratedBuilding g;
        g.tile = tile;
        for (core::Vec2& p : ring) g.outline.push_back({p.x + c.x, p.y + c.y});
        g.wallHeight = 9.0f;
        g.roofShape = roof;
        scene.generated.push_back(std::move(g));
    };
    add(scene.tiles[0], {{0, 0}, {20, 0}, {20, 8}, {8, 8}, {8, 18}, {0, 18}}, "flat");
    add(scene.tiles[0], {{-30, -30}, {-18, -30}, {-18, -22}, {-30, -22}}, "gabled");
    add(scene.tiles[1], {{0, 0}, {12, 0}, {12, 10}, {0, 10}}, "hipped");
    SceneGraph graph(test::shippedCatalogue(), models);
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    EXPECT_EQ(graph.counts().generatedDrawables, 2u);
    EXPECT_EQ(countDrawables(*graph.tilesGroup()), graph.counts().drawables());
    for (const core::TileId& tile : {scene.tiles[0], scene.tiles[1]}) {
        std::size_t triangles = 0;
        for (const core::GeneratedBuilding& g : scene.generated) {
            if (g.tile == tile) triangles += core::generatedBuildingMesh(g).triangleCount();
        }
        const osg::Node* node = tileChild(graph, tile, "generated buildings " + tile.quadkey());
        ASSERT_NE(node, nullptr) << tile.quadkey();
        const osg::Geometry* geometry = node->asGeode()->getDrawable(0)->asGeometry();
        ASSERT_NE(geometry, nullptr);
        EXPECT_EQ(geometry->getPrimitiveSet(0)->getNumIndices(), 3 * triangles);
        EXPECT_EQ(geometry->getColorArray()->getBinding(), osg::Array::BIND_PER_VERTEX) << "the parts' colours";
    }
    // With distance levels, an eye beyond the buildings' range holds them as blocks (their
    // outlines' prisms; the prefabs beside them are boxes), and close to them again dressed.
    SceneGraphOptions levels;
    levels.lod = {1000.0, 300.0};
    SceneGraph far(test::shippedCatalogue(), models, levels);
    far.setDetailView(DetailView{osg::Vec3d(0.0, 5000.0, 0.0), 1000.0});
    ASSERT_TRUE(far.setScene(scene, nullptr).ok());
    const auto generatedIndices = [&](const SceneGraph& of, const core::TileId& tile) {
        const osg::Node* node = tileChild(of, tile, "generated buildings " + tile.quadkey());
        return node ? node->asGeode()->getDrawable(0)->asGeometry()->getPrimitiveSet(0)->getNumIndices() : 0u;
    };
    std::size_t total = 0;
    for (const core::TileId& tile : {scene.tiles[0], scene.tiles[1]}) {
        std::size_t blocks = 0;
        for (const core::GeneratedBuilding& g : scene.generated) {
            if (g.tile == tile) blocks += core::generatedBuildingMesh(g, core::GeneratedDetail::Block).triangleCount();
        }
        EXPECT_EQ(generatedIndices(far, tile), 3 * blocks) << tile.quadkey();
        total += blocks;
    }
    EXPECT_EQ(far.counts().generatedTriangles, total);
    EXPECT_LT(far.counts().generatedTriangles * 4, graph.counts().generatedTriangles);
    const TilePlacement first = tilePlacement(far.frame(), scene.tiles[0]);
    far.setDetailView(DetailView{first.at(128.0, 128.0) + osg::Vec3d(0.0, 200.0, 0.0), 1000.0});
    const std::vector<core::TileId> nearer = far.tilesOutOfDetail();
    ASSERT_FALSE(nearer.empty());
    ASSERT_TRUE(far.updateTiles(scene, nullptr, nearer).ok());
    EXPECT_EQ(generatedIndices(far, scene.tiles[0]), generatedIndices(graph, scene.tiles[0]));
    // The same buildings again: kept; a changed one: only its tile's mesh is rebuilt; none: gone.
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    EXPECT_EQ(graph.lastUpdate().added + graph.lastUpdate().replaced + graph.lastUpdate().removed, 0u);
    scene.generated[2].wallHeight = 15.0f;
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    EXPECT_EQ(graph.lastUpdate().replaced, 1u);
    EXPECT_EQ(graph.lastUpdate().added + graph.lastUpdate().removed, 0u);
    scene.generated.clear();
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    EXPECT_EQ(graph.counts().generatedDrawables, 0u);
    EXPECT_EQ(graph.lastUpdate().removed, 2u);
    EXPECT_EQ(countDrawables(*graph.tilesGroup()), graph.counts().drawables());
}

TEST(SceneGraph, EachBlockNodeDrawsItsBlocksInstancesOfItsModel) {
    AssetModelCache models;
    const core::Scene scene = test::syntheticScene();
    SceneGraph graph(test::shippedCatalogue(), models);
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    for (const core::InstanceBlock& b : scene.blocks) {
        const std::string& asset = scene.assets[static_cast<std::size_t>(b.asset)];
        osg::Node* node = graph.blockNode(b.tile, b.blockX, b.blockY, asset);
        ASSERT_NE(node, nullptr) << asset;
        const osg::Geometry* g = node->asGeode()->getDrawable(0)->asGeometry();
        const auto* elements = dynamic_cast<const InstancedElements*>(g->getPrimitiveSet(0));
        ASSERT_NE(elements, nullptr);
        EXPECT_EQ(elements->getNumInstances(), static_cast<int>(b.instances.size()));
        const AssetModel model = *models.model(*test::shippedCatalogue().find(asset));
        EXPECT_EQ(g->getVertexArray(), model.geometry()->getVertexArray());
        // Its bound is the block's, so each block culls on its own.
        const osg::BoundingBox box = g->getBoundingBox();
        EXPECT_NEAR(box.xMin(), b.bounds.min.x, 1e-3);
        EXPECT_NEAR(box.zMax(), b.bounds.max.z, 1e-3);
    }
    EXPECT_EQ(graph.blockNode(scene.tiles[0], 7, 0, "house_gabled"), nullptr);
}

TEST(SceneGraph, ChangingOnePassSwapsOnlyItsBlocks) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    const core::LayerStore layers = test::syntheticLayers(test::syntheticTiles(2, 2), 1);
    SyntheticSceneSpec spec;
    const core::Scene before = test::syntheticScene(spec);
    ASSERT_TRUE(graph.setScene(before, &layers).ok());
    EXPECT_EQ(graph.lastUpdate().added, before.blocks.size() + before.tiles.size() + before.surfaces.size());

    // What the untouched passes made, by pointer.
    std::map<std::string, osg::Node*> kept;
    for (const core::InstanceBlock& b : before.blocks) {
        const std::string& asset = before.assets[static_cast<std::size_t>(b.asset)];
        if (asset == "house_gabled")
            kept[asset + b.tile.quadkey() + std::to_string(b.blockX)] =
                graph.blockNode(b.tile, b.blockX, b.blockY, asset);
    }
    std::vector<osg::Node*> grounds, roads, groups;
    for (const core::TileId& t : before.tiles) {
        grounds.push_back(graph.groundNode(t));
        roads.push_back(graph.surfaceNode(t, "road"));
        groups.push_back(graph.tileNode(t));
    }

    // The vegetation pass re-runs with another seed: same blocks, other trees.
    spec.treeSeed = 2;
    const core::Scene after = test::syntheticScene(spec);
    ASSERT_TRUE(graph.setScene(after, &layers).ok());
    std::size_t treeBlocks = 0, houseBlocks = 0;
    for (const core::InstanceBlock& b : after.blocks) {
        const std::string& asset = after.assets[static_cast<std::size_t>(b.asset)];
        osg::Node* now = graph.blockNode(b.tile, b.blockX, b.blockY, asset);
        ASSERT_NE(now, nullptr);
        if (asset == "house_gabled") {
            ++houseBlocks;
            EXPECT_EQ(now, kept[asset + b.tile.quadkey() + std::to_string(b.blockX)]) << "untouched pass kept";
        } else {
            ++treeBlocks;
        }
    }
    for (std::size_t i = 0; i < after.tiles.size(); ++i) {
        EXPECT_EQ(graph.groundNode(after.tiles[i]), grounds[i]);
        EXPECT_EQ(graph.surfaceNode(after.tiles[i], "road"), roads[i]);
        EXPECT_EQ(graph.tileNode(after.tiles[i]), groups[i]);
    }
    EXPECT_EQ(graph.lastUpdate().replaced, treeBlocks);
    EXPECT_EQ(graph.lastUpdate().kept, houseBlocks + 3 * after.tiles.size());  // ground, road, water
    EXPECT_EQ(graph.lastUpdate().added, 0u);
    EXPECT_EQ(graph.lastUpdate().removed, 0u);

    // The same scene again changes nothing at all.
    ASSERT_TRUE(graph.setScene(after, &layers).ok());
    EXPECT_EQ(graph.lastUpdate().replaced + graph.lastUpdate().added + graph.lastUpdate().removed, 0u);
}

TEST(SceneGraph, RemovedPassTakesItsBlocksAwayAndKeepsTheRest) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    SyntheticSceneSpec spec;
    ASSERT_TRUE(graph.setScene(test::syntheticScene(spec), nullptr).ok());
    const core::TileId t = test::syntheticTiles(2, 2)[0];
    osg::Node* house = graph.blockNode(t, 0, 0, "house_gabled");
    ASSERT_NE(house, nullptr);
    spec.treesPerBlock = 0;
    const core::Scene noTrees = test::syntheticScene(spec);
    ASSERT_TRUE(graph.setScene(noTrees, nullptr).ok());
    EXPECT_EQ(graph.counts().instancedDrawables, noTrees.blocks.size());
    EXPECT_EQ(graph.blockNode(t, 0, 1, "broadleaf_oak"), nullptr);
    EXPECT_EQ(graph.blockNode(t, 0, 0, "house_gabled"), house);
    EXPECT_EQ(countDrawables(*graph.tilesGroup()), graph.counts().drawables());
}

TEST(SceneGraph, UpdateTileSwapsOnlyThatTile) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    SyntheticSceneSpec spec;
    const core::Scene before = test::syntheticScene(spec);
    ASSERT_TRUE(graph.setScene(before, nullptr).ok());
    const core::TileId changed = before.tiles[1], other = before.tiles[2];
    osg::Node* otherTree = graph.blockNode(other, 2, 1, "broadleaf_oak");
    osg::Node* changedTree = graph.blockNode(changed, 2, 1, "broadleaf_oak");
    ASSERT_TRUE(otherTree && changedTree);
    spec.treeSeed = 9;  // every tile's trees differ in this scene…
    const core::Scene after = test::syntheticScene(spec);
    ASSERT_TRUE(graph.updateTile(after, nullptr, changed).ok());
    // …but only the named tile is re-read.
    EXPECT_NE(graph.blockNode(changed, 2, 1, "broadleaf_oak"), changedTree);
    EXPECT_EQ(graph.blockNode(other, 2, 1, "broadleaf_oak"), otherTree);
    EXPECT_EQ(graph.lastUpdate().replaced, 8u) << "the changed tile's tree blocks: row 1 of an 8×8 grid";
    EXPECT_EQ(graph.counts().tiles, before.tiles.size());

    // A tile the scene no longer holds is removed by its update.
    core::Scene fewer = after;
    fewer.tiles.erase(fewer.tiles.begin() + 1);
    std::erase_if(fewer.blocks, [&](const core::InstanceBlock& b) { return b.tile == changed; });
    std::erase_if(fewer.surfaces, [&](const core::SurfacePatch& p) { return p.tile == changed; });
    ASSERT_TRUE(graph.updateTile(fewer, nullptr, changed).ok());
    EXPECT_EQ(graph.tileNode(changed), nullptr);
    EXPECT_EQ(graph.counts().tiles, before.tiles.size() - 1);
    EXPECT_EQ(graph.blockNode(other, 2, 1, "broadleaf_oak"), otherTree);

    // Another frame cannot be patched tile by tile.
    core::Scene moved = after;
    moved.frame.origin.lat += 0.01;
    const core::Status s = graph.updateTile(moved, nullptr, other);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(other.quadkey()), std::string::npos) << s.message();
}

TEST(SceneGraph, AnotherFrameRebuildsEverything) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    core::Scene scene = test::syntheticScene();
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    osg::Node* ground = graph.groundNode(scene.tiles[0]);
    scene.frame.origin.lon += 0.001;
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    EXPECT_NE(graph.groundNode(scene.tiles[0]), ground);
    EXPECT_EQ(graph.lastUpdate().kept, 0u);
}

TEST(SceneGraph, ChangedLayersSwapOnlyTheGroundsTheyTouch) {
    AssetModelCache models;
    SceneGraphOptions options;
    options.style.layers = test::syntheticLayerInfos();
    SceneGraph graph(test::shippedCatalogue(), models, options);
    const core::Scene scene = test::syntheticScene();
    const core::LayerStore layers = test::syntheticLayers(scene.tiles, 1);
    ASSERT_TRUE(graph.setScene(scene, &layers).ok());
    std::vector<osg::Node*> grounds;
    for (const core::TileId& t : scene.tiles) grounds.push_back(graph.groundNode(t));
    // New bits in the last tile only.
    core::LayerStore edited(layers.layerNames(), scene.tiles);
    for (std::size_t slot = 0; slot < scene.tiles.size(); ++slot) {
        std::vector<core::BitTile> bits(layers.layerNames().size());
        for (std::size_t l = 0; l < bits.size(); ++l) {
            if (const core::BitTile* b = layers.at(slot, static_cast<int>(l))) bits[l] = *b;
        }
        if (slot + 1 == scene.tiles.size()) bits[3].fillSpan(0, 0, 256);
        edited.store(slot, bits);
    }
    ASSERT_TRUE(graph.setScene(scene, &edited).ok());
    for (std::size_t i = 0; i + 1 < scene.tiles.size(); ++i) EXPECT_EQ(graph.groundNode(scene.tiles[i]), grounds[i]);
    EXPECT_NE(graph.groundNode(scene.tiles.back()), grounds.back());
    EXPECT_EQ(graph.lastUpdate().replaced, 1u);
}

TEST(SceneGraph, TheGroundLeavesUnpaintedWhatSurfacesDrawInTheirRealShape) {
    AssetModelCache models;
    SceneGraphOptions options;
    options.style.layers = test::syntheticLayerInfos();
    core::Scene scene = test::syntheticScene();
    const core::LayerStore layers = test::syntheticLayers(scene.tiles, 1);
    const core::TileId t = scene.tiles[0];
    const int road = layers.layerId("road"), building = layers.layerId("building");
    const core::BitTile& roadBits = *layers.tile(t, road);
    const core::BitTile* buildingBits = layers.tile(t, building);
    // A road cell no later layer paints over.
    int cx = -1, cy = -1;
    for (int y = 0; y < 256 && cx < 0; ++y) {
        for (int x = 0; x < 256 && cx < 0; ++x) {
            if (roadBits.test(x, y) && !(buildingBits && buildingBits->test(x, y))) cx = x, cy = y;
        }
    }
    ASSERT_GE(cx, 0);
    const auto groundTexel = [&](const SceneGraph& graph) {
        const osg::StateSet* state = graph.groundNode(t)->asGeode()->getDrawable(0)->getStateSet();
        const osg::Image* image = state->getTextureAttribute(0, osg::StateAttribute::TEXTURE)->asTexture()->getImage(0);
        const unsigned char* p = image->data(cx, 255 - cy);
        return std::array<int, 3>{p[0], p[1], p[2]};
    };
    const std::array<int, 3> roadColour{95, 95, 95};
    {
        SceneGraph graph(test::shippedCatalogue(), models, options);
        ASSERT_TRUE(graph.setScene(scene, &layers).ok());
        EXPECT_EQ(groundTexel(graph), roadColour) << "cell-drawn roads: their cells are painted on the ground";
    }
    // The roads in a real shape (any triangles will do here): the ground shows what lies under.
    for (core::SurfacePatch& p : scene.surfaces) {
        if (p.layer == "road") p.shape.triangles = {{0, 0}, {0, 256}, {256, 256}};
    }
    SceneGraph graph(test::shippedCatalogue(), models, options);
    ASSERT_TRUE(graph.setScene(scene, &layers).ok());
    EXPECT_NE(groundTexel(graph), roadColour);
    // Water, drawn by cells still, is painted as before.
    const core::BitTile& water = *layers.tile(t, layers.layerId("water"));
    for (int y = 0; y < 256; ++y) {
        for (int x = 0; x < 256; ++x) {
            if (!water.test(x, y) || roadBits.test(x, y) || (buildingBits && buildingBits->test(x, y)) ||
                layers.tile(t, layers.layerId("vegetation"))->test(x, y) || (x >= 200 && y >= 200)) {
                continue;
            }
            cx = x, cy = y;
            EXPECT_EQ(groundTexel(graph), (std::array<int, 3>{59, 131, 189}));
            return;
        }
    }
}

TEST(SceneGraph, ErrorsLeaveTheGraphAsItWas) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    const core::Scene good = test::syntheticScene();
    ASSERT_TRUE(graph.setScene(good, nullptr).ok());
    const GraphCounts before = graph.counts();
    core::Scene bad = good;
    bad.assets[1] = "castle_that_does_not_exist";
    const core::Status s = graph.setScene(bad, nullptr);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("castle_that_does_not_exist"), std::string::npos) << s.message();
    EXPECT_EQ(graph.counts().instancedDrawables, before.instancedDrawables);
    EXPECT_EQ(countDrawables(*graph.tilesGroup()), before.drawables());

    SceneGraphOptions options;
    options.groundExpression = "building & & road";
    SceneGraph expr(test::shippedCatalogue(), models, options);
    const core::LayerStore layers = test::syntheticLayers(good.tiles, 2);
    const core::Status e = expr.setScene(good, &layers);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.message().find("building & & road"), std::string::npos) << e.message();
    EXPECT_EQ(expr.counts().tiles, 0u);
}

TEST(SceneGraph, WaterLiesBelowTheGroundAndShowsThroughIt) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    const core::Scene scene = test::syntheticScene();
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    const core::TileId t = scene.tiles[0];
    const osg::BoundingBox water = graph.surfaceNode(t, "water")->asGeode()->getDrawable(0)->getBoundingBox();
    const osg::BoundingBox road = graph.surfaceNode(t, "road")->asGeode()->getDrawable(0)->getBoundingBox();
    const osg::BoundingBox ground = graph.groundNode(t)->asGeode()->getDrawable(0)->getBoundingBox();
    EXPECT_LT(water.yMax(), ground.yMin());
    EXPECT_GT(road.yMin(), ground.yMax());
    // The ground texture is transparent exactly over the water's cells ([200, 256)²).
    const osg::StateSet* state = graph.groundNode(t)->asGeode()->getDrawable(0)->getStateSet();
    const osg::Image* image = state->getTextureAttribute(0, osg::StateAttribute::TEXTURE)->asTexture()->getImage(0);
    ASSERT_NE(image, nullptr);
    EXPECT_EQ(image->data(210, 255 - 210)[3], 0);
    EXPECT_EQ(image->data(199, 255 - 210)[3], 255);
    EXPECT_EQ(image->data(210, 255 - 199)[3], 255);
}

TEST(SceneGraph, TexturedSurfacesWearTheirSharedTextureRepeatingFromTheOrigin) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    core::Scene scene = test::syntheticScene();
    for (core::SurfacePatch& p : scene.surfaces) {
        if (p.layer == "road") p.texture = core::SurfaceTexture::Asphalt;
    }
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    const double repeat = core::surfaceTextureRepeatMetres(core::SurfaceTexture::Asphalt);
    const osg::Texture* first = nullptr;
    for (const core::TileId& t : scene.tiles) {
        const osg::Geometry* road = graph.surfaceNode(t, "road")->asGeode()->getDrawable(0)->asGeometry();
        const osg::Texture* texture =
            road->getStateSet()->getTextureAttribute(0, osg::StateAttribute::TEXTURE)->asTexture();
        ASSERT_NE(texture, nullptr);
        // One texture object for every tile's roads, repeating, the picture core makes.
        if (!first) first = texture;
        EXPECT_EQ(texture, first);
        EXPECT_EQ(texture->getWrap(osg::Texture::WRAP_S), osg::Texture::REPEAT);
        const osg::Image* image = texture->getImage(0);
        const core::TextureImage picture = core::surfaceTexture(core::SurfaceTexture::Asphalt, {95, 95, 95});
        ASSERT_EQ(image->s(), picture.size);
        EXPECT_TRUE(std::equal(picture.rgb.begin(), picture.rgb.end(), image->data()));
        // Coordinates: the vertex's place on the ground in repeats, white under the texture.
        const auto* vertices = static_cast<const osg::Vec3Array*>(road->getVertexArray());
        const auto* uv = static_cast<const osg::Vec2Array*>(road->getTexCoordArray(0));
        ASSERT_NE(uv, nullptr);
        ASSERT_EQ(uv->size(), vertices->size());
        for (std::size_t i = 0; i < uv->size(); ++i) {
            EXPECT_FLOAT_EQ((*uv)[i].x(), static_cast<float>((*vertices)[i].x() / repeat));
            EXPECT_FLOAT_EQ((*uv)[i].y(), static_cast<float>((*vertices)[i].z() / repeat));
        }
        EXPECT_EQ((*static_cast<const osg::Vec4Array*>(road->getColorArray()))[0], osg::Vec4(1, 1, 1, 1));
        // Water stays its plain colour.
        const osg::Geometry* water = graph.surfaceNode(t, "water")->asGeode()->getDrawable(0)->asGeometry();
        EXPECT_EQ(water->getTexCoordArray(0), nullptr);
        EXPECT_EQ(water->getStateSet()->getTextureAttribute(0, osg::StateAttribute::TEXTURE), nullptr);
    }
    // Switching the texture off rebuilds the roads, plain again.
    for (core::SurfacePatch& p : scene.surfaces) p.texture = core::SurfaceTexture::None;
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    const osg::Geometry* road = graph.surfaceNode(scene.tiles[0], "road")->asGeode()->getDrawable(0)->asGeometry();
    EXPECT_EQ(road->getTexCoordArray(0), nullptr);
}

TEST(SceneGraph, ShapedRoadsRunTheirTextureAlongTheWayAsTheGlbDoes) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    core::Scene scene = test::syntheticScene();
    // The first tile's road in its real shape: one triangle with coordinates along a way, one
    // with none (NaN), which keeps its ground position.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<core::Vec2> roadUv{{10, -2}, {10, 3}, {90, 3}, {nan, nan}, {nan, nan}, {nan, nan}};
    for (core::SurfacePatch& p : scene.surfaces) {
        if (p.layer != "road" || p.tile != scene.tiles[0]) continue;
        p.texture = core::SurfaceTexture::Asphalt;
        p.shape.triangles = {{0, 0}, {0, 128}, {128, 128}, {128, 128}, {256, 128}, {256, 0}};
        p.roadUv = roadUv;
    }
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    const double repeat = core::surfaceTextureRepeatMetres(core::SurfaceTexture::Asphalt);
    const osg::Geometry* road = graph.surfaceNode(scene.tiles[0], "road")->asGeode()->getDrawable(0)->asGeometry();
    const auto* vertices = static_cast<const osg::Vec3Array*>(road->getVertexArray());
    const auto* uv = static_cast<const osg::Vec2Array*>(road->getTexCoordArray(0));
    ASSERT_NE(uv, nullptr);
    ASSERT_EQ(uv->size(), roadUv.size()) << "a vertex per corner, flat";
    // A flat road faces up everywhere: one normal for the mesh, and 16-bit indices.
    const auto* normals = dynamic_cast<const osg::Vec3Array*>(road->getNormalArray());
    ASSERT_NE(normals, nullptr);
    EXPECT_EQ(normals->getBinding(), osg::Array::BIND_OVERALL);
    ASSERT_EQ(normals->size(), 1u);
    EXPECT_EQ((*normals)[0], osg::Vec3(0, 1, 0));
    EXPECT_NE(dynamic_cast<const osg::DrawElementsUShort*>(road->getPrimitiveSet(0)), nullptr);
    for (std::size_t i = 0; i < uv->size(); ++i) {
        if (std::isfinite(roadUv[i].x)) {
            EXPECT_FLOAT_EQ((*uv)[i].x(), static_cast<float>(roadUv[i].x / repeat)) << i;
            EXPECT_FLOAT_EQ((*uv)[i].y(), static_cast<float>(roadUv[i].y / repeat)) << i;
        } else {
            EXPECT_FLOAT_EQ((*uv)[i].x(), static_cast<float>((*vertices)[i].x() / repeat)) << i;
            EXPECT_FLOAT_EQ((*uv)[i].y(), static_cast<float>((*vertices)[i].z() / repeat)) << i;
        }
    }
    // New coordinates rebuild the road.
    for (core::SurfacePatch& p : scene.surfaces) {
        if (p.layer == "road" && p.tile == scene.tiles[0]) p.roadUv.edit()[0].x = 20;
    }
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    road = graph.surfaceNode(scene.tiles[0], "road")->asGeode()->getDrawable(0)->asGeometry();
    EXPECT_FLOAT_EQ((*static_cast<const osg::Vec2Array*>(road->getTexCoordArray(0)))[0].x(),
                    static_cast<float>(20 / repeat));
}

TEST(SceneGraph, ShapedRoadsDrawTheirPaintAndTheirSidewalksOnKerbs) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    core::Scene scene = test::syntheticScene();
    float elevation = 0.0f;
    for (core::SurfacePatch& p : scene.surfaces) {
        if (p.layer != "road" || p.tile != scene.tiles[0]) continue;
        p.shape.triangles = {{0, 0}, {0, 256}, {256, 256}};
        p.markings = {{10, 10}, {10, 20}, {20, 20}};
        p.sidewalks = {{30, 30}, {30, 34}, {40, 34}, {30, 30}, {40, 34}, {40, 30}};
        elevation = p.elevation;
    }
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    const osg::Geode* geode = graph.surfaceNode(scene.tiles[0], "road")->asGeode();
    std::map<std::string, const osg::Geometry*> drawn;
    for (unsigned i = 0; i < geode->getNumDrawables(); ++i) {
        drawn[geode->getDrawable(i)->getName()] = geode->getDrawable(i)->asGeometry();
    }
    ASSERT_TRUE(drawn.count("road") && drawn.count("marking") && drawn.count("sidewalk") && drawn.count("kerb"));
    EXPECT_FALSE(drawn.count("paving")) << "no paving given, none drawn";
    // The sidewalk's top at the kerb's height; the kerb from the road up to it, round all four
    // sides of the strip.
    for (const auto& v : *static_cast<const osg::Vec3Array*>(drawn["sidewalk"]->getVertexArray())) {
        EXPECT_FLOAT_EQ(v.y(), elevation + core::kKerbHeightMetres);
    }
    const auto* kerb = static_cast<const osg::Vec3Array*>(drawn["kerb"]->getVertexArray());
    EXPECT_EQ(kerb->size(), 4u * 4u);
    float lo = 1e9f, hi = -1e9f;
    for (const auto& v : *kerb) lo = std::min(lo, v.y()), hi = std::max(hi, v.y());
    EXPECT_FLOAT_EQ(lo, elevation);
    EXPECT_FLOAT_EQ(hi, elevation + core::kKerbHeightMetres);
}

TEST(SceneGraph, GroundCanShowAnExpressionInsteadOfTheLayers) {
    AssetModelCache models;
    SceneGraphOptions options;
    options.style.layers = test::syntheticLayerInfos();
    options.groundExpression = "road & ~building";
    options.surfaces = false;
    SceneGraph graph(test::shippedCatalogue(), models, options);
    const core::Scene scene = test::syntheticScene();
    const core::LayerStore layers = test::syntheticLayers(scene.tiles, 4);
    ASSERT_TRUE(graph.setScene(scene, &layers).ok());
    const core::TileId t = scene.tiles[0];
    const osg::Image* image = graph.groundNode(t)
                                  ->asGeode()
                                  ->getDrawable(0)
                                  ->getStateSet()
                                  ->getTextureAttribute(0, osg::StateAttribute::TEXTURE)
                                  ->asTexture()
                                  ->getImage(0);
    const core::BitTile* road = layers.tile(t, layers.layerId("road"));
    const core::BitTile* building = layers.tile(t, layers.layerId("building"));
    ASSERT_TRUE(road && building);
    for (int y = 0; y < 256; y += 3) {
        for (int x = 0; x < 256; x += 3) {
            const bool on = road->test(x, y) && !building->test(x, y);
            const core::Rgb expected = on ? options.groundExpressionColour : options.style.bare;
            const unsigned char* p = image->data(x, 255 - y);
            ASSERT_EQ((core::Rgb{p[0], p[1], p[2]}), expected) << x << "," << y;
        }
    }
}

TEST(SceneGraph, OverlaysGridHighlightAndProbesAreAddedAndCleared) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    const core::Scene scene = test::syntheticScene();
    const core::LayerStore layers = test::syntheticLayers(scene.tiles, 5);
    ASSERT_TRUE(graph.setScene(scene, &layers).ok());
    const std::size_t sceneDrawables = countDrawables(*graph.root());

    ASSERT_TRUE(graph.setHeatOverlay(layers, "vegetation", {}).ok());
    EXPECT_EQ(countDrawables(*graph.overlaysGroup()), scene.tiles.size());
    const core::Status bad = graph.setHeatOverlay(layers, "vegetaton", {});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("vegetaton"), std::string::npos);
    EXPECT_EQ(countDrawables(*graph.overlaysGroup()), scene.tiles.size()) << "a bad expression keeps the old overlay";

    graph.setTileGridVisible(true);
    // Lines (one drawable) plus one label per tile, reading its quadkey.
    EXPECT_EQ(countDrawables(*graph.overlaysGroup()), 2 * scene.tiles.size() + 1);
    std::set<std::string> labels;
    struct Labels : osg::NodeVisitor {
        std::set<std::string>* out;
        Labels(std::set<std::string>* o) : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN), out(o) {}
        void apply(osg::Drawable& d) override {
            if (auto* t = dynamic_cast<osgText::Text*>(&d)) out->insert(t->getText().createUTF8EncodedString());
        }
    } visitor(&labels);
    graph.overlaysGroup()->accept(visitor);
    std::set<std::string> quadkeys;
    for (const core::TileId& t : scene.tiles) quadkeys.insert(t.quadkey());
    EXPECT_EQ(labels, quadkeys);
    EXPECT_TRUE(labelFontFile().has_value()) << "fonts-dejavu-core is a declared dependency";

    core::BuildingRecord record;
    record.outcome = core::BuildingOutcome::Placed;
    record.asset = 1;  // house_gabled
    record.target = {{10.0, 20.0}, {6.0, 4.0}, 0.5};
    graph.setHighlight(&record);
    EXPECT_EQ(countDrawables(*graph.overlaysGroup()), 2 * scene.tiles.size() + 1 + 2);
    graph.setHighlight(nullptr);
    graph.clearHeatOverlay();
    graph.setTileGridVisible(false);
    EXPECT_EQ(countDrawables(*graph.overlaysGroup()), 0u);

    ProbeVisual probe;
    probe.shape = ProbeShape::disk({0, 0}, 3);
    graph.setProbes(std::span(&probe, 1));
    EXPECT_EQ(graph.probesGroup()->getNumChildren(), 1u);
    graph.setProbes({});
    EXPECT_EQ(countDrawables(*graph.root()), sceneDrawables);
}

TEST(SceneGraph, BoundsHoldEveryTileAndInstance) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    EXPECT_FALSE(graph.bounds().valid());
    const core::Scene scene = test::syntheticScene();
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    const osg::BoundingBox box = graph.bounds();
    for (const core::InstanceBlock& b : scene.blocks) {
        EXPECT_TRUE(box.contains(osg::Vec3(b.bounds.min.x, b.bounds.min.y, b.bounds.min.z)));
        EXPECT_TRUE(box.contains(osg::Vec3(b.bounds.max.x, b.bounds.max.y, b.bounds.max.z)));
    }
    // Two tiles of ~220 m each way at Monaco's latitude, plus whatever models reach past them.
    const double tileMetres = 256 * scene.frame.metresPerCell();
    EXPECT_GE(box.xMax() - box.xMin(), 2 * tileMetres - 1e-3);
    EXPECT_LT(box.xMax() - box.xMin(), 2 * tileMetres + 20.0);
    EXPECT_GE(box.zMax() - box.zMin(), 2 * tileMetres - 1e-3);
    EXPECT_LT(box.zMax() - box.zMin(), 2 * tileMetres + 20.0);
    EXPECT_GT(box.yMax(), 5.0f) << "houses stand up";
}

/// The synthetic scene on rolling ground: each tile's heights from a function of the global
/// corner, meshed against its neighbours in the scene (as the Session meshes them).
core::Scene terrainScene() {
    core::Scene scene = test::syntheticScene();
    scene.terrain = true;
    scene.originHeight = 50.0;
    std::map<core::TileId, core::terrain::HeightTile> heights;
    std::map<core::TileId, core::terrain::RtinErrors> errors;
    for (const core::TileId& t : scene.tiles) {
        core::terrain::HeightTile& h = heights[t];
        h.reset(t);
        for (int r = 0; r < core::terrain::kHeightSamples; ++r) {
            for (int c = 0; c < core::terrain::kHeightSamples; ++c) {
                // Global corners, counted from the scene's first tile.
                const double gx = (double(t.x) - scene.tiles[0].x) * core::kTileCells + c;
                const double gy = (double(t.y) - scene.tiles[0].y) * core::kTileCells + r;
                h.heights[core::terrain::HeightTile::index(r, c)] =
                    static_cast<float>(60.0 + 12.0 * std::sin(gx / 37.0) + 0.05 * gy + 8.0 * std::cos(gy / 23.0));
            }
        }
        errors[t] = core::terrain::rtinErrors(h);
    }
    const int steps[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
    for (const core::TileId& t : scene.tiles) {
        std::array<const core::terrain::RtinErrors*, 4> e{};
        std::array<const core::terrain::HeightTile*, 4> h{};
        for (int k = 0; k < 4; ++k) {
            const auto n = t.neighbour(steps[k][0], steps[k][1]);
            if (n && heights.count(*n)) {
                e[static_cast<std::size_t>(k)] = &errors[*n];
                h[static_cast<std::size_t>(k)] = &heights[*n];
            }
        }
        core::terrain::GroundMesh mesh = core::terrain::buildGroundMesh(heights[t], errors[t], e);
        mesh.tile = t;
        scene.ground.push_back(core::makeGroundTile(std::move(mesh), heights[t], h, scene.frame.metresPerCell()));
    }
    return scene;
}

const osg::Geometry* geometryOf(osg::Node* node) {
    return node && node->asGeode() ? node->asGeode()->getDrawable(0)->asGeometry() : nullptr;
}

TEST(SceneGraph, OnTerrainTheGroundIsTheMeshTexturedAndCrackFreeAndSurfacesLieOnIt) {
    AssetModelCache models;
    const core::Scene scene = terrainScene();
    const core::LayerStore layers = test::syntheticLayers(scene.tiles, 1);
    SceneGraph graph(test::shippedCatalogue(), models);
    ASSERT_TRUE(graph.setScene(scene, &layers).ok());
    std::size_t edges = 0;
    for (const core::GroundTile& g : scene.ground) {
        const core::TileId t = g.mesh.tile;
        const osg::Geometry* ground = geometryOf(graph.groundNode(t));
        ASSERT_NE(ground, nullptr) << t.quadkey();
        const auto* v = dynamic_cast<const osg::Vec3Array*>(ground->getVertexArray());
        const auto* n = dynamic_cast<const osg::Vec3Array*>(ground->getNormalArray());
        const auto* uv = dynamic_cast<const osg::Vec2Array*>(ground->getTexCoordArray(0));
        ASSERT_TRUE(v && n && uv);
        ASSERT_EQ(v->size(), g.mesh.vertices.size()) << "the mesh, not the flat quad";
        ASSERT_EQ(n->size(), v->size());
        ASSERT_EQ(uv->size(), v->size());
        ASSERT_NE(ground->getStateSet()->getTextureAttribute(0, osg::StateAttribute::TEXTURE), nullptr)
            << "textured with the tile's layers";
        for (std::size_t i = 0; i < v->size(); ++i) {
            const core::terrain::GroundVertex& gv = g.mesh.vertices[i];
            EXPECT_NEAR((*v)[i].y(), gv.height - scene.originHeight, 1e-4);
            EXPECT_NEAR((*n)[i].length(), 1.0f, 1e-5);
            EXPECT_GT((*n)[i].y(), 0.5f);
            EXPECT_FLOAT_EQ((*uv)[i].x(), gv.column / 256.0f);
            EXPECT_FLOAT_EQ((*uv)[i].y(), 1.0f - gv.row / 256.0f);
        }
        // The east and south neighbours' vertices on the shared edge are this tile's, bit for bit.
        for (const auto& [dx, dy] : {std::pair{1, 0}, std::pair{0, 1}}) {
            const auto other = t.neighbour(dx, dy);
            const osg::Geometry* og = other ? geometryOf(graph.groundNode(*other)) : nullptr;
            if (!og) continue;
            const auto* ov = dynamic_cast<const osg::Vec3Array*>(og->getVertexArray());
            const core::Vec3f edge = core::groundVertexPosition(scene, t, 256, 256, 0.0);
            const auto on = [&](const osg::Vec3& p) { return dx ? p.x() == edge.x : p.z() == edge.z; };
            std::set<std::tuple<float, float, float>> mine, theirs;
            for (const osg::Vec3& p : *v) {
                if (on(p)) mine.insert({p.x(), p.y(), p.z()});
            }
            for (const osg::Vec3& p : *ov) {
                if (on(p)) theirs.insert({p.x(), p.y(), p.z()});
            }
            EXPECT_GE(mine.size(), 2u);
            EXPECT_EQ(mine, theirs) << t.quadkey() << " and " << other->quadkey();
            ++edges;
        }
    }
    EXPECT_EQ(edges, 4u);
    // Road and water lie on the mesh at their elevation.
    std::size_t checked = 0;
    for (const core::SurfacePatch& p : scene.surfaces) {
        const osg::Geometry* mesh = geometryOf(graph.surfaceNode(p.tile, p.layer));
        ASSERT_NE(mesh, nullptr) << p.layer;
        const auto* v = dynamic_cast<const osg::Vec3Array*>(mesh->getVertexArray());
        ASSERT_NE(v, nullptr);
        const TilePlacement place = tilePlacement(scene.frame, p.tile);
        const core::GroundTile* g = scene.groundOf(p.tile);
        for (const osg::Vec3& q : *v) {
            // Back to the tile's cells (float positions: clamped onto the tile at its edges).
            const core::Vec2 cell{std::clamp((q.x() - place.northWest.x()) / place.metresPerCell, 0.0, 256.0),
                                  std::clamp((q.z() - place.northWest.z()) / place.metresPerCell, 0.0, 256.0)};
            EXPECT_NEAR(q.y(), core::groundMeshHeight(g->mesh, cell) - scene.originHeight + p.elevation, 0.01)
                << p.layer;
            ++checked;
        }
    }
    EXPECT_GT(checked, 0u);
}

}  // namespace
TEST(SceneGraph, DistanceLevelsDrawBuildingsAsBoxesFarOffAndPlantsOnlyNear) {
    const core::Scene scene = test::syntheticScene();
    AssetModelCache models;
    SceneGraphOptions options;
    options.lod = {1000.0, 300.0};
    SceneGraph graph(test::shippedCatalogue(), models, options);
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());

    // Every block is an LOD of its tile: models within their kind's range, measured to the
    // tile's centre; each tile with buildings has one box mesh, from that range outwards.
    std::set<core::TileId> buildingTiles;
    std::size_t buildingInstances = 0, thinnedBlocks = 0;
    for (const core::InstanceBlock& b : scene.blocks) {
        const std::string& asset = scene.assets[static_cast<std::size_t>(b.asset)];
        const bool building = test::shippedCatalogue().find(asset)->category == "building";
        if (building) {
            buildingTiles.insert(b.tile);
            buildingInstances += b.instances.size();
        }
        const auto* lod = dynamic_cast<const osg::LOD*>(graph.blockNode(b.tile, b.blockX, b.blockY, asset));
        ASSERT_NE(lod, nullptr) << asset;
        EXPECT_EQ(lod->getMinRange(0), 0.0f);
        EXPECT_EQ(lod->getMaxRange(0), building ? 1000.0f : 300.0f) << asset;
        // Plants become their cards, all of them out to twice their range, then those ranked
        // below a quarter out to four times it.
        std::size_t kept = 0;
        for (const core::Instance& i : b.instances)
            kept += core::plantRank(scene.seed, i.position.x, i.position.z) < 0.25f;
        if (building) {
            ASSERT_EQ(lod->getNumChildren(), 1u) << asset;
        } else {
            ASSERT_EQ(lod->getNumChildren(), kept > 0 ? 3u : 2u) << asset;
            const AssetModel model = *models.model(*test::shippedCatalogue().find(asset));
            const AssetModel& cards = model.impostor();
            ASSERT_NE(cards.geometry(), nullptr) << asset;
            EXPECT_LE(cards.triangleCount() * 5, model.triangleCount()) << asset;
            EXPECT_EQ(lod->getMinRange(1), 300.0f);
            EXPECT_EQ(lod->getMaxRange(1), 600.0f);
            const osg::Geometry* all = lod->getChild(1)->asGeode()->getDrawable(0)->asGeometry();
            EXPECT_EQ(all->getPrimitiveSet(0)->getNumInstances(), b.instances.size()) << asset;
            EXPECT_EQ(all->getPrimitiveSet(0)->getNumIndices(), cards.triangleCount() * 3) << asset;
            if (kept > 0) {
                ++thinnedBlocks;
                EXPECT_EQ(lod->getMinRange(2), 600.0f);
                EXPECT_EQ(lod->getMaxRange(2), 1200.0f);
                const osg::Geometry* g = lod->getChild(2)->asGeode()->getDrawable(0)->asGeometry();
                EXPECT_EQ(g->getPrimitiveSet(0)->getNumInstances(), kept) << asset;
                // They draw the first instances of the buffer the models and all cards draw:
                // the kept ones.
                const std::span<const float> t = instanceTransforms(*g);
                ASSERT_EQ(t.size(), kept * detail::kFloatsPerInstance) << asset;
                for (std::size_t k = 0; k < kept; ++k) {
                    const std::array<float, 16> m = instanceMatrix(t, k);
                    EXPECT_LT(core::plantRank(scene.seed, m[12], m[14]), 0.25f) << asset;
                }
                EXPECT_EQ(g->getPrimitiveSet(0)->getNumIndices(), cards.triangleCount() * 3) << asset;
            }
        }
        const TilePlacement tile = tilePlacement(graph.frame(), b.tile);
        EXPECT_EQ(osg::Vec3d(lod->getCenter()), osg::Vec3d(osg::Vec3(tile.at(128.0, 128.0)))) << asset;
    }
    ASSERT_FALSE(buildingTiles.empty());
    EXPECT_GT(thinnedBlocks, 0u);
    const GraphCounts counts = graph.counts();
    EXPECT_EQ(counts.buildingBoxDrawables, buildingTiles.size());

    std::size_t boxTriangles = 0;
    for (const core::TileId& t : buildingTiles) {
        const osg::Group* group = graph.tileNode(t);
        const osg::LOD* boxes = nullptr;
        for (unsigned i = 0; i < group->getNumChildren(); ++i) {
            if (group->getChild(i)->getName() == "building boxes " + t.quadkey())
                boxes = dynamic_cast<const osg::LOD*>(group->getChild(i));
        }
        ASSERT_NE(boxes, nullptr) << t.quadkey();
        EXPECT_EQ(boxes->getMinRange(0), 1000.0f);
        EXPECT_EQ(osg::Vec3d(boxes->getCenter()),
                  osg::Vec3d(osg::Vec3(tilePlacement(graph.frame(), t).at(128.0, 128.0))));
        const osg::Geode* geode = boxes->getChild(0)->asGeode();
        ASSERT_NE(geode, nullptr);
        for (unsigned d = 0; d < geode->getNumDrawables(); ++d) {
            const auto* g = geode->getDrawable(d)->asGeometry();
            for (unsigned p = 0; p < g->getNumPrimitiveSets(); ++p)
                boxTriangles += g->getPrimitiveSet(p)->getNumIndices() / 3;
        }
    }
    EXPECT_EQ(boxTriangles, 12 * buildingInstances);

    // Without levels (pictures, exports) the blocks are the models themselves and no box is made.
    SceneGraph plain(test::shippedCatalogue(), models);
    ASSERT_TRUE(plain.setScene(scene, nullptr).ok());
    EXPECT_EQ(plain.counts().buildingBoxDrawables, 0u);
    const core::InstanceBlock& first = scene.blocks.front();
    EXPECT_EQ(dynamic_cast<const osg::LOD*>(
                  plain.blockNode(first.tile, first.blockX, first.blockY, scene.assets[first.asset])),
              nullptr);
}

/// The side of a tile's ground image, texels.
int groundSideOf(const SceneGraph& graph, const core::TileId& t) {
    const osg::StateSet* state = graph.groundNode(t)->asGeode()->getDrawable(0)->getStateSet();
    return state->getTextureAttribute(0, osg::StateAttribute::TEXTURE)->asTexture()->getImage(0)->s();
}

/// The drawables of a tile's road surface that paint its markings.
std::size_t markingDrawables(const SceneGraph& graph, const core::TileId& tile) {
    const osg::Node* road = graph.surfaceNode(tile, "road");
    const osg::Geode* geode = road ? road->asGeode() : nullptr;
    std::size_t n = 0;
    for (unsigned d = 0; geode && d < geode->getNumDrawables(); ++d) n += geode->getDrawable(d)->getName() == "marking";
    return n;
}

TEST(SceneGraph, FarTilesHoldOnlyWhatTheirLevelsDrawAndGetTheirDetailBackNearer) {
    SyntheticSceneSpec spec;
    spec.cols = 4;
    spec.rows = 3;
    core::Scene scene = test::syntheticScene(spec);
    // The first tile's road in a real shape with a marking down it (a road in its real shape is
    // one quad of two triangles here, its marking a strip along it).
    const auto road = std::find_if(scene.surfaces.begin(), scene.surfaces.end(), [&](const core::SurfacePatch& p) {
        return p.tile == scene.tiles.front() && p.layer == "road";
    });
    ASSERT_NE(road, scene.surfaces.end());
    road->shape.triangles = {{10, 10}, {10, 40}, {200, 40}, {10, 10}, {200, 40}, {200, 10}};
    road->shape.outline = {{10, 10}, {10, 40}, {200, 40}, {200, 10}};
    road->shape.ringEnds = {4};
    road->shape.polygonEnds = {1};
    road->markings = {{10, 24}, {10, 26}, {200, 26}, {10, 24}, {200, 26}, {200, 24}};
    AssetModelCache models;
    SceneGraphOptions options;
    options.lod = {1000.0, 300.0};  // blocks draw out to 1,000 m (buildings) and 1,200 m (cards)
    const double reach = 1200.0;
    SceneGraph full(test::shippedCatalogue(), models, options);
    ASSERT_TRUE(full.setScene(scene, nullptr).ok());
    const GraphCounts all = full.counts();
    ASSERT_GT(all.instancedDrawables, 0u);
    EXPECT_EQ(all.tilesHoldingBlocks, scene.tiles.size());
    EXPECT_EQ(all.groundTexels, scene.tiles.size() * 256u * 256u);

    // From 20 km up no level draws a block, and a tile covers a few dozen pixels: the tiles come
    // in without their blocks and with small ground images, keeping the buildings' boxes.
    SceneGraph graph(test::shippedCatalogue(), models, options);
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    const osg::Vec3d centre = graph.bounds().center();
    DetailView view;
    view.eye = centre + osg::Vec3d(0.0, 20000.0, 0.0);
    view.pixelsPerRadian = 1000.0;
    graph.setDetailView(view);
    std::vector<core::TileId> out = graph.tilesOutOfDetail();
    EXPECT_EQ(out.size(), scene.tiles.size());  // built before the view was set: all in full
    ASSERT_TRUE(graph.updateTiles(scene, nullptr, out).ok());
    EXPECT_TRUE(graph.tilesOutOfDetail().empty());
    GraphCounts far = graph.counts();
    EXPECT_EQ(far.tilesHoldingBlocks, 0u);
    EXPECT_EQ(far.instancedDrawables, 0u);
    EXPECT_EQ(far.instances, 0u);
    EXPECT_EQ(far.buildingBoxDrawables, all.buildingBoxDrawables);
    EXPECT_EQ(far.groundDrawables, all.groundDrawables);
    // The roads stay, without their markings.
    ASSERT_EQ(markingDrawables(full, scene.tiles.front()), 1u);
    EXPECT_EQ(markingDrawables(graph, scene.tiles.front()), 0u);
    EXPECT_NE(graph.surfaceNode(scene.tiles.front(), "road"), nullptr);
    EXPECT_EQ(far.surfaceDrawables + 1, all.surfaceDrawables);
    for (const core::TileId& t : scene.tiles) {
        // Never coarser than the pixels the tile covers across from its nearest point, nor finer
        // than twice them.
        const TilePlacement p = tilePlacement(graph.frame(), t);
        const osg::Vec3d a = p.at(0, 0), b = p.at(256, 256);
        const osg::Vec3d nearest{std::clamp(view.eye.x(), std::min(a.x(), b.x()), std::max(a.x(), b.x())), 0.0,
                                 std::clamp(view.eye.z(), std::min(a.z(), b.z()), std::max(a.z(), b.z()))};
        const double across = (p.at(256, 0) - p.at(0, 0)).length();
        const double pixels = across / (view.eye - nearest).length() * view.pixelsPerRadian;
        const int side = groundSideOf(graph, t);
        EXPECT_EQ(side & (side - 1), 0) << side;
        EXPECT_GE(side, std::max(16.0, pixels)) << t.quadkey();
        EXPECT_LT(side, std::max(32.0, 2.0 * pixels * 1.01)) << t.quadkey();
    }
    EXPECT_LE(far.groundTexels * 16, all.groundTexels);

    // Over one tile, low: that tile first, with its blocks (the same as the full graph's) and
    // its whole ground image; the others stay as they were, the same nodes.
    const core::TileId near = scene.tiles.front();
    const TilePlacement np = tilePlacement(graph.frame(), near);
    const osg::Vec3d nearCentre = np.at(128.0, 128.0);
    std::map<core::TileId, const osg::Node*> grounds;
    for (const core::TileId& t : scene.tiles) grounds[t] = graph.groundNode(t);
    view.eye = nearCentre + osg::Vec3d(0.0, 150.0, 0.0);
    graph.setDetailView(view);
    out = graph.tilesOutOfDetail();
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.front(), near);
    ASSERT_TRUE(graph.updateTiles(scene, nullptr, out).ok());
    EXPECT_TRUE(graph.tilesOutOfDetail().empty());
    EXPECT_EQ(groundSideOf(graph, near), 256);
    EXPECT_EQ(markingDrawables(graph, near), 1u);
    std::size_t nearBlocks = 0;
    for (const core::InstanceBlock& b : scene.blocks) {
        if (b.tile != near) continue;
        const std::string& asset = scene.assets[static_cast<std::size_t>(b.asset)];
        EXPECT_NE(graph.blockNode(near, b.blockX, b.blockY, asset), nullptr) << asset;
        ++nearBlocks;
    }
    ASSERT_GT(nearBlocks, 0u);
    GraphCounts close = graph.counts();
    EXPECT_GE(close.tilesHoldingBlocks, 1u);
    // Tiles within 1.2 × the reach take their blocks; none beyond it.
    for (const core::TileId& t : scene.tiles) {
        const double d = (tilePlacement(graph.frame(), t).at(128.0, 128.0) - view.eye).length();
        bool holds = false;
        for (const core::InstanceBlock& b : scene.blocks) {
            holds = holds || (b.tile == t && graph.blockNode(t, b.blockX, b.blockY, scene.assets[b.asset]));
        }
        EXPECT_EQ(holds, d < 1.2 * reach) << t.quadkey() << " at " << d << " m";
        if (std::find(out.begin(), out.end(), t) == out.end()) {
            EXPECT_EQ(graph.groundNode(t), grounds[t]);
        }
    }

    // A little beyond where blocks come back, the tile keeps them (no rebuilding back and forth
    // on the edge); well beyond, they go.
    view.eye = nearCentre + osg::Vec3d(0.0, 1.3 * reach, 0.0);
    graph.setDetailView(view);
    for (const core::TileId& t : graph.tilesOutOfDetail()) {
        if (t != near) continue;
        // Only its ground may differ (a coarser image): its blocks stay.
        ASSERT_TRUE(graph.updateTiles(scene, nullptr, std::vector<core::TileId>{t}).ok());
    }
    const auto nearBlock = std::find_if(scene.blocks.begin(), scene.blocks.end(),
                                        [&](const core::InstanceBlock& b) { return b.tile == near; });
    EXPECT_NE(graph.blockNode(near, nearBlock->blockX, nearBlock->blockY, scene.assets[nearBlock->asset]), nullptr);
    view.eye = nearCentre + osg::Vec3d(0.0, 1.6 * reach, 0.0);
    graph.setDetailView(view);
    out = graph.tilesOutOfDetail();
    EXPECT_NE(std::find(out.begin(), out.end(), near), out.end());
    ASSERT_TRUE(graph.updateTiles(scene, nullptr, out).ok());
    EXPECT_EQ(graph.counts().tilesHoldingBlocks, 0u);

    // Without a view every tile gets its full detail back: what a graph built in full holds.
    graph.setDetailView(std::nullopt);
    out = graph.tilesOutOfDetail();
    EXPECT_EQ(out.size(), scene.tiles.size());
    ASSERT_TRUE(graph.updateTiles(scene, nullptr, out).ok());
    const GraphCounts back = graph.counts();
    EXPECT_EQ(back.instancedDrawables, all.instancedDrawables);
    EXPECT_EQ(back.instances, all.instances);
    EXPECT_EQ(back.groundTexels, all.groundTexels);
    EXPECT_EQ(back.tilesHoldingBlocks, all.tilesHoldingBlocks);
    EXPECT_EQ(back.drawables(), all.drawables());
}

TEST(SceneGraph, AnUpdateUntilADeadlineTakesTheLeadingTilesInTheOrderGiven) {
    // A viewer's slice ends on time: the graph stops after the tile during which the deadline
    // passed, and the tiles it took are the first of those asked for, in that order (here
    // south-east first, against the graph's own order), each as a whole update would build it.
    SyntheticSceneSpec spec;
    spec.cols = 3;
    spec.rows = 2;
    const core::Scene scene = test::syntheticScene(spec);
    AssetModelCache models;
    SceneGraph full(test::shippedCatalogue(), models);
    ASSERT_TRUE(full.setScene(scene, nullptr).ok());
    SceneGraph graph(test::shippedCatalogue(), models);
    core::Scene frameOnly;
    frameOnly.frame = scene.frame;
    frameOnly.seed = scene.seed;
    ASSERT_TRUE(graph.setScene(frameOnly, nullptr).ok());
    const std::vector<core::TileId> order(scene.tiles.rbegin(), scene.tiles.rend());
    const auto past = std::chrono::steady_clock::now() - std::chrono::seconds(1);

    std::size_t done = 0;
    while (done < order.size()) {
        const auto taken = graph.updateTilesUntil(scene, nullptr, std::span(order).subspan(done), past);
        ASSERT_TRUE(taken.ok()) << taken.message();
        EXPECT_EQ(*taken, 1u);  // late from the start: one tile a call, never none
        done += *taken;
        const std::vector<core::TileId> held = graph.tiles();
        EXPECT_EQ(held.size(), done);
        for (std::size_t i = 0; i < done; ++i) {
            EXPECT_TRUE(std::binary_search(held.begin(), held.end(), order[i])) << order[i].quadkey();
        }
    }
    EXPECT_EQ(graph.counts().drawables(), full.counts().drawables());
    EXPECT_EQ(graph.counts().instances, full.counts().instances);

    // With time to spare, all of them in one call; an error leaves the graph as it was.
    SceneGraph again(test::shippedCatalogue(), models);
    ASSERT_TRUE(again.setScene(frameOnly, nullptr).ok());
    const auto later = std::chrono::steady_clock::now() + std::chrono::hours(1);
    const auto all = again.updateTilesUntil(scene, nullptr, order, later);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(*all, order.size());
    EXPECT_EQ(again.counts().drawables(), full.counts().drawables());
    core::Scene broken = scene;
    broken.assets.push_back("no_such_asset");
    SceneGraph untouched(test::shippedCatalogue(), models);
    ASSERT_TRUE(untouched.setScene(frameOnly, nullptr).ok());
    const auto failed = untouched.updateTilesUntil(broken, nullptr, order, past);
    EXPECT_FALSE(failed.ok());
    EXPECT_NE(failed.message().find("no_such_asset"), std::string::npos) << failed.message();
    EXPECT_TRUE(untouched.tiles().empty());
}

TEST(InstanceBoxes, AFarBoxWearsItsModelsRoofColourOnTopAndItsWallColourOnItsSides) {
    core::InstanceBlock block;
    block.asset = 1;
    core::Instance a;
    a.yaw = 0.3f;
    block.instances = {a};
    core::ModelBounds bounds;
    bounds.extend(-2.0, 0.0, -3.0);
    bounds.extend(2.0, 6.0, 3.0);
    const core::InstanceBlock* blocks[] = {&block};
    const core::ModelBounds models[] = {bounds, bounds};
    const core::FacadeColours colours[] = {core::kStoneFacade, {{200, 100, 50}, {30, 60, 90}}};
    for (const bool coloured : {true, false}) {
        const osg::ref_ptr<osg::Geode> geode =
            coloured ? makeInstanceBoxes(blocks, models, colours) : makeInstanceBoxes(blocks, models);
        ASSERT_TRUE(geode);
        const osg::Geometry* g = geode->getDrawable(0)->asGeometry();
        const auto* n = dynamic_cast<const osg::Vec3bArray*>(g->getNormalArray());
        // Colours as sRGB bytes (AssetModel converts the mesh's linear light).
        const auto* c = dynamic_cast<const osg::Vec4ubArray*>(g->getColorArray());
        ASSERT_NE(n, nullptr);
        ASSERT_NE(c, nullptr);
        ASSERT_EQ(n->size(), 24u);
        std::size_t tops = 0;
        for (std::size_t i = 0; i < n->size(); ++i) {
            const bool top = (*n)[i].y() > 120;
            tops += top ? 1 : 0;
            const core::Rgb want = !coloured ? core::kStoneFacade.walls : top ? colours[1].roof : colours[1].walls;
            EXPECT_NEAR((*c)[i].r(), want.r, 1) << i;
            EXPECT_NEAR((*c)[i].g(), want.g, 1) << i;
            EXPECT_NEAR((*c)[i].b(), want.b, 1) << i;
        }
        EXPECT_EQ(tops, 4u);
    }
    // A model's colours are its mesh's, which the scene graph hands the far boxes.
    core::MeshBuilder builder;
    builder.setColour({10, 20, 30});
    builder.addBox({-1, 0, -1}, {1, 2, 1});
    const core::AssetMesh mesh = builder.take();
    EXPECT_EQ(AssetModel::fromMesh(mesh).facade(), core::facadeColours(mesh, core::kStoneFacade));
    EXPECT_EQ(AssetModel::fromMesh(mesh).facade().walls, (core::Rgb{10, 20, 30}));
    // A mesh drawn once (a tile's generated buildings) never stands as a box: not measured.
    EXPECT_EQ(AssetModel::fromMesh(mesh, AssetModel::Impostor::None).facade(), core::kStoneFacade);
}

TEST(InstanceBoxes, EachInstanceIsItsModelsBoxPlacedAsTheInstanceWithOutwardFaces) {
    core::InstanceBlock block;
    block.asset = 0;
    core::Instance a;
    a.position = {10.0f, 2.0f, -5.0f};
    a.yaw = 0.7f;
    a.scale = {2.0f, 1.5f, 0.5f};
    block.instances = {a, core::Instance{}};
    core::ModelBounds bounds;
    bounds.extend(-1.0, 0.0, -2.0);
    bounds.extend(3.0, 4.0, 2.0);
    const core::InstanceBlock* blocks[] = {&block};
    const core::ModelBounds models[] = {bounds};
    const osg::ref_ptr<osg::Geode> geode = makeInstanceBoxes(blocks, models);
    ASSERT_TRUE(geode);
    const osg::Geometry* g = geode->getDrawable(0)->asGeometry();
    const auto* v = dynamic_cast<const osg::Vec3Array*>(g->getVertexArray());
    // Normals as signed bytes GL normalises (AssetModel).
    const auto* n = dynamic_cast<const osg::Vec3bArray*>(g->getNormalArray());
    ASSERT_NE(v, nullptr);
    ASSERT_NE(n, nullptr);
    ASSERT_EQ(v->size(), 2u * 24u);  // four corners per face, six faces, two instances
    const auto normal = [&](std::size_t i) {
        return osg::Vec3((*n)[i].x() / 127.0f, (*n)[i].y() / 127.0f, (*n)[i].z() / 127.0f);
    };
    std::size_t triangles = 0;
    for (unsigned p = 0; p < g->getNumPrimitiveSets(); ++p) triangles += g->getPrimitiveSet(p)->getNumIndices() / 3;
    EXPECT_EQ(triangles, 24u);
    for (std::size_t k = 0; k < 2; ++k) {
        const core::Instance& in = block.instances[k];
        const std::array<float, 16> m = core::transformMatrix(in);
        // The box's centre, placed: every face's corners lie at the transformed box corners, and
        // its normal points away from that centre.
        const osg::Vec3 mid(m[0] * 1 + m[4] * 2 + m[8] * 0 + m[12], m[1] * 1 + m[5] * 2 + m[9] * 0 + m[13],
                            m[2] * 1 + m[6] * 2 + m[10] * 0 + m[14]);
        for (std::size_t i = 24 * k; i < 24 * k + 24; ++i) {
            EXPECT_NEAR(normal(i).length(), 1.0f, 0.01f);
            EXPECT_GT(((*v)[i] - mid) * normal(i), 0.0f) << "face " << (i - 24 * k) / 4 << " of instance " << k;
        }
        // The corners are the placed model-space box corners.
        std::set<std::tuple<int, int, int>> expected, got;
        for (const double x : {-1.0, 3.0})
            for (const double y : {0.0, 4.0})
                for (const double z : {-2.0, 2.0}) {
                    const auto r = [&](int row) {
                        return std::lround(1000 * (m[row] * x + m[4 + row] * y + m[8 + row] * z + m[12 + row]));
                    };
                    expected.insert({int(r(0)), int(r(1)), int(r(2))});
                }
        for (std::size_t i = 24 * k; i < 24 * k + 24; ++i)
            got.insert({int(std::lround(1000 * (*v)[i].x())), int(std::lround(1000 * (*v)[i].y())),
                        int(std::lround(1000 * (*v)[i].z()))});
        EXPECT_EQ(got, expected);
    }
    // Counter-clockwise seen from outside: each triangle's winding agrees with its normal.
    const auto* idx = g->getPrimitiveSet(0);
    for (unsigned t = 0; t + 2 < idx->getNumIndices(); t += 3) {
        const osg::Vec3 p0 = (*v)[idx->index(t)], p1 = (*v)[idx->index(t + 1)], p2 = (*v)[idx->index(t + 2)];
        EXPECT_GT(((p1 - p0) ^ (p2 - p0)) * normal(idx->index(t)), 0.0f) << "triangle " << t / 3;
    }
}

}  // namespace terrabit::render

namespace terrabit::render {
namespace {

/// The synthetic scene of `cols` × `rows` tiles.
core::Scene syntheticGrid(int cols, int rows) {
    SyntheticSceneSpec spec;
    spec.cols = cols;
    spec.rows = rows;
    return test::syntheticScene(spec);
}

TEST(SceneGraph, TheHeatOverlayIsAsFineAsEachTilesGroundAndLeavesOutTilesWhereItShowsNothing) {
    const core::Scene scene = syntheticGrid(4, 3);
    const core::LayerStore layers = test::syntheticLayers(scene.tiles, 5);
    AssetModelCache models;
    SceneGraph full(test::shippedCatalogue(), models);
    ASSERT_TRUE(full.setScene(scene, &layers).ok());
    ASSERT_TRUE(full.setHeatOverlay(layers, "vegetation", {}).ok());
    std::size_t showing = 0;
    const int vegetation = layers.layerId("vegetation");
    for (const core::TileId& t : scene.tiles) {
        const core::BitTile* bits = layers.tile(t, vegetation);
        showing += bits && bits->any();
    }
    ASSERT_GT(showing, 0u);
    EXPECT_EQ(countDrawables(*full.overlaysGroup()), showing);
    EXPECT_EQ(full.counts().overlayTexels, showing * 256u * 256u);
    // An expression empty everywhere: no quad at all.
    ASSERT_TRUE(full.setHeatOverlay(layers, "vegetation & ~vegetation", {}).ok());
    EXPECT_EQ(countDrawables(*full.overlaysGroup()), 0u);
    EXPECT_EQ(full.counts().overlayTexels, 0u);

    // From 20 km up each picture is its tile's ground image's side; near one tile, that tile's
    // picture is whole again once it is re-detailed.
    SceneGraph graph(test::shippedCatalogue(), models);
    graph.setDetailView(DetailView{osg::Vec3d(0.0, 20000.0, 0.0), 1000.0});
    ASSERT_TRUE(graph.setScene(scene, &layers).ok());
    ASSERT_TRUE(graph.setHeatOverlay(layers, "vegetation", {}).ok());
    std::size_t expected = 0;
    for (const core::TileId& t : scene.tiles) {
        const core::BitTile* bits = layers.tile(t, vegetation);
        if (bits && bits->any()) expected += static_cast<std::size_t>(groundSideOf(graph, t)) * groundSideOf(graph, t);
    }
    EXPECT_EQ(graph.counts().overlayTexels, expected);
    EXPECT_LE(graph.counts().overlayTexels * 16, showing * 256u * 256u);
    const core::TileId near = scene.tiles.front();
    graph.setDetailView(
        DetailView{tilePlacement(graph.frame(), near).at(128.0, 128.0) + osg::Vec3d(0.0, 150.0, 0.0), 1000.0});
    const std::vector<core::TileId> out = graph.tilesOutOfDetail();
    ASSERT_FALSE(out.empty());
    ASSERT_TRUE(graph.updateTiles(scene, &layers, out).ok());
    ASSERT_EQ(groundSideOf(graph, near), 256);
    std::size_t after = 0;
    for (const core::TileId& t : scene.tiles) {
        const core::BitTile* bits = layers.tile(t, vegetation);
        if (bits && bits->any()) after += static_cast<std::size_t>(groundSideOf(graph, t)) * groundSideOf(graph, t);
    }
    EXPECT_EQ(graph.counts().overlayTexels, after);
    EXPECT_GT(after, expected);
    EXPECT_EQ(countDrawables(*graph.overlaysGroup()), showing);
}

TEST(SceneGraph, AScenesItemsInAnyOrderMakeTheSameGraphTileByTile) {
    const core::Scene sorted = syntheticGrid(3, 2);
    ASSERT_TRUE(std::is_sorted(sorted.blocks.begin(), sorted.blocks.end(), [](const auto& a, const auto& b) {
        return core::northToSouth(a.tile, b.tile);
    })) << "the synthetic scene keeps the Scene's order, so the binary search is what runs below";
    core::Scene shuffled = sorted;  // items grouped by tile no more: the graph walks them
    std::reverse(shuffled.blocks.begin(), shuffled.blocks.end());
    std::reverse(shuffled.surfaces.begin(), shuffled.surfaces.end());
    std::reverse(shuffled.tiles.begin(), shuffled.tiles.end());
    AssetModelCache models;
    SceneGraph a(test::shippedCatalogue(), models), b(test::shippedCatalogue(), models);
    // One tile at a time, as the viewport's slices bring them in.
    for (const core::TileId& t : sorted.tiles) {
        ASSERT_TRUE(a.updateTiles(sorted, nullptr, std::vector<core::TileId>{t}).ok());
        ASSERT_TRUE(b.updateTiles(shuffled, nullptr, std::vector<core::TileId>{t}).ok());
        const GraphCounts ca = a.counts(), cb = b.counts();
        EXPECT_EQ(ca.tiles, cb.tiles);
        EXPECT_EQ(ca.instancedDrawables, cb.instancedDrawables) << t.quadkey();
        EXPECT_EQ(ca.instances, cb.instances) << t.quadkey();
        EXPECT_EQ(ca.surfaceDrawables, cb.surfaceDrawables) << t.quadkey();
    }
    SceneGraph whole(test::shippedCatalogue(), models);
    ASSERT_TRUE(whole.setScene(sorted, nullptr).ok());
    EXPECT_EQ(a.counts().instances, whole.counts().instances);
    EXPECT_EQ(a.counts().instancedDrawables, whole.counts().instancedDrawables);
    EXPECT_EQ(countDrawables(*a.tilesGroup()), countDrawables(*whole.tilesGroup()));

    // One graph, one scene reordered in place between calls (its lists keep their addresses and
    // sizes): the graph sees the new order and walks.
    core::Scene inPlace = sorted;
    SceneGraph c(test::shippedCatalogue(), models);
    ASSERT_TRUE(c.updateTiles(inPlace, nullptr, std::vector<core::TileId>{sorted.tiles.front()}).ok());
    std::reverse(inPlace.blocks.begin(), inPlace.blocks.end());
    std::reverse(inPlace.surfaces.begin(), inPlace.surfaces.end());
    std::reverse(inPlace.tiles.begin(), inPlace.tiles.end());
    for (const core::TileId& t : sorted.tiles) {
        ASSERT_TRUE(c.updateTiles(inPlace, nullptr, std::vector<core::TileId>{t}).ok());
    }
    EXPECT_EQ(c.counts().instances, whole.counts().instances);
    EXPECT_EQ(c.counts().instancedDrawables, whole.counts().instancedDrawables);
    EXPECT_EQ(countDrawables(*c.tilesGroup()), countDrawables(*whole.tilesGroup()));
}

}  // namespace
}  // namespace terrabit::render
