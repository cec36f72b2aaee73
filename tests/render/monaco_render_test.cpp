// Offscreen renders of the Monaco sample scene (run under Xvfb): the picture shows the city with
// north up, models stand where buildings are, probes are red over buildings and green over
// roads, draw calls are one per asset per block whatever the instance count (as OSG's
// statistics count them), overlays show, and an exported .osgb draws the same picture.
// Every picture is kept in the build tree (artefacts/render) to look at.

#include <gtest/gtest.h>
#include <osg/LOD>
#include <osgDB/ReadFile>

#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <set>
#include <sstream>

#include "camera_pose_p.h"
#include "render_test_support.h"
#include "scene_file_p.h"
#include "terrabit/cli/map_commands.h"
#include "terrabit/cli/render_command.h"
#include "terrabit/core/collision/collision_grid.h"
#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/render/instanced_block.h"
#include "terrabit/render/offscreen_renderer.h"
#include "terrabit/render/scene_file.h"
#include "terrabit/render/scene_graph.h"
#include "terrabit/render/tile_geometry.h"

namespace terrabit::render {
namespace {

const std::filesystem::path kArtefacts = TERRABIT_ARTEFACTS_DIR;
constexpr int kWidth = 800;
constexpr int kHeight = 600;

/// The Monaco sample read, rasterized and baked with the default rules, once per process.
struct Monaco {
    std::unique_ptr<core::io::MapLayers> map;
    std::unique_ptr<core::placement::SceneBaker> baker;
    core::Scene scene;
};

const Monaco& monaco() {
    static const std::unique_ptr<Monaco> m = [] {
        auto out = std::make_unique<Monaco>();
        core::io::MapInput input;
        input.file = std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf";
        input.rules = std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml";
        core::io::TileSelection selection;
        selection.zoom = 17;
        auto built = core::io::buildMapLayers(input, selection, 2, {});
        EXPECT_TRUE(built) << built.message();
        if (!built) return out;
        out->map = std::move(*built);
        auto rules = core::placement::PlacementRules::load(input.rules, out->map->classified.layers);
        EXPECT_TRUE(rules) << rules.message();
        out->baker =
            std::make_unique<core::placement::SceneBaker>(out->map->index, out->map->store, test::shippedCatalogue());
        EXPECT_TRUE(out->baker->setRules(*rules).ok());
        auto scene = out->baker->bake();
        EXPECT_TRUE(scene) << scene.message();
        if (scene) out->scene = std::move(*scene);
        return out;
    }();
    return *m;
}

OffscreenRenderer& renderer() {
    static const std::unique_ptr<OffscreenRenderer> r = [] {
        auto created = OffscreenRenderer::create(kWidth, kHeight);
        EXPECT_TRUE(created) << created.message();
        return created ? std::move(*created) : nullptr;
    }();
    if (!r) throw std::runtime_error("no offscreen renderer (is this running under xvfb-run?)");
    return *r;
}

SceneGraphOptions monacoOptions() {
    SceneGraphOptions options;
    options.style.layers = monaco().map->classified.layers;
    return options;
}

/// The viewport's options: the Monaco layers and its distance levels.
SceneGraphOptions viewportOptions() {
    SceneGraphOptions options = monacoOptions();
    options.lod = {1500.0, 500.0};
    return options;
}

void save(const std::string& name) {
    std::filesystem::create_directories(kArtefacts);
    const core::Status s = writePng(renderer().image(), kArtefacts / name);
    EXPECT_TRUE(s.ok()) << s.message();
}

bool near(osg::Vec4ub a, const osg::Vec4& b, int tolerance) {
    return std::abs(a.r() - int(b.r() * 255 + 0.5)) <= tolerance &&
           std::abs(a.g() - int(b.g() * 255 + 0.5)) <= tolerance &&
           std::abs(a.b() - int(b.b() * 255 + 0.5)) <= tolerance;
}

/// The scene position of the centre of a global cell.
osg::Vec3d cellCentre(core::Vec2 cell) { return cellToScene(monaco().scene.frame, {cell.x + 0.5, cell.y + 0.5}); }

/// A box of `metres` around a scene point, from the ground to 20 m.
osg::BoundingBox around(const osg::Vec3d& p, double metres) {
    return {osg::Vec3(p.x() - metres, 0.0f, p.z() - metres), osg::Vec3(p.x() + metres, 20.0f, p.z() + metres)};
}

class MonacoRender : public testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(monaco().map) << "the Monaco sample did not load";
        ASSERT_FALSE(monaco().scene.tiles.empty());
    }
};

TEST_F(MonacoRender, TopViewShowsTheCityNotJustSky) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models, monacoOptions());
    ASSERT_TRUE(graph.setScene(monaco().scene, &monaco().map->store).ok());
    const CameraPose pose = frameBox(graph.bounds(), ViewDirection::top(), double(kWidth) / kHeight);
    const auto frame = renderer().render(graph.root(), pose, graph.options().lighting.sky);
    ASSERT_TRUE(frame) << frame.message();
    save("monaco_top.png");
    int sky = 0;
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) sky += near(renderer().pixel(x, y), graph.options().lighting.sky, 2);
    }
    const double scene = 1.0 - double(sky) / (kWidth * kHeight);
    EXPECT_GT(scene, 0.4) << "the scene fills less than 40% of the picture";
    EXPECT_LT(scene, 0.95) << "a framed scene leaves sky around it";
}

TEST_F(MonacoRender, GroundShowsTheLayersUnderItWithNorthUp) {
    AssetModelCache models;
    SceneGraphOptions options = monacoOptions();
    options.instances = false;  // trees may stand on pavements; look at the ground alone
    SceneGraph graph(test::shippedCatalogue(), models, options);
    const Monaco& m = monaco();
    ASSERT_TRUE(graph.setScene(m.scene, &m.map->store).ok());
    const CameraPose pose = frameBox(graph.bounds(), ViewDirection::top(), double(kWidth) / kHeight);
    ASSERT_TRUE(renderer().render(graph.root(), pose, graph.options().lighting.sky));
    save("monaco_top_ground.png");
    // Cells of water (the sea lies south-east of the city) must show blue and cells of bare land
    // must not: a picture upside down or mirrored puts land where the sea is. A pixel here spans
    // about five cells, so only samples whose whole neighbourhood is water alone, or bare, are
    // unambiguous: a pier or a road over the water takes its own colour.
    const int water = m.map->store.layerId("water");
    const int layerCount = static_cast<int>(m.map->store.layerNames().size());
    constexpr int kRadius = 8;
    // 1: every cell around (x, y) is water and nothing else; 0: every cell is bare; -1: mixed.
    auto neighbourhood = [&](const core::TileId& t, int x, int y) {
        int kind = -2;
        for (int dy = -kRadius; dy <= kRadius; ++dy) {
            for (int dx = -kRadius; dx <= kRadius; ++dx) {
                int here = 0;
                for (int l = 0; l < layerCount; ++l) {
                    const core::BitTile* b = m.map->store.tile(t, l);
                    if (b && b->test(x + dx, y + dy)) here = (l == water && here == 0) ? 1 : -1;
                }
                if (here == -1 || (kind != -2 && here != kind)) return -1;
                kind = here;
            }
        }
        return kind;
    };
    std::size_t checked[2] = {0, 0}, right[2] = {0, 0};
    for (const core::TileId& t : m.scene.tiles) {
        for (int y = 16; y < 256; y += 32) {
            for (int x = 16; x < 256; x += 32) {
                const int kind = neighbourhood(t, x, y);
                if (kind < 0) continue;
                const bool isWater = kind == 1;
                const auto px =
                    projectToImage(pose, kWidth, kHeight, cellCentre({double(t.x) * 256 + x, double(t.y) * 256 + y}));
                ASSERT_TRUE(px);
                const osg::Vec4ub c = renderer().pixel(int(px->x()), int(px->y()));
                const bool blue = c.b() > c.r() + 60 && c.b() > c.g() + 20;
                ++checked[isWater];
                right[isWater] += blue == isWater;
            }
        }
    }
    ASSERT_GT(checked[1], 200u);
    ASSERT_GT(checked[0], 20u);
    EXPECT_EQ(right[1], checked[1]) << "sea cells that do not show water";
    EXPECT_EQ(right[0], checked[0]) << "bare cells that show water";
}

TEST_F(MonacoRender, BuildingModelsShowWhereBuildingsStand) {
    const Monaco& m = monaco();
    // Footprints in a colour no model has: a pixel over a placed building must show the model.
    SceneGraphOptions options = monacoOptions();
    for (core::LayerInfo& info : options.style.layers) {
        if (info.name == "building") info.colour = {255, 0, 255};
    }
    AssetModelCache models;
    SceneGraph full(test::shippedCatalogue(), models, options);
    options.instances = false;
    SceneGraph groundOnly(test::shippedCatalogue(), models, options);
    ASSERT_TRUE(full.setScene(m.scene, &m.map->store).ok());
    ASSERT_TRUE(groundOnly.setScene(m.scene, &m.map->store).ok());
    // Around the harbour: buildings a few dozen pixels wide.
    const core::TileId centre = *core::TileId::fromQuadkey("12022303030221113");
    const osg::Vec3d c = cellCentre({centre.x * 256.0 + 128, centre.y * 256.0 + 128});
    const CameraPose pose = frameBox(around(c, 300), ViewDirection::top(), double(kWidth) / kHeight);
    auto magenta = [](osg::Vec4ub p) { return p.r() > p.g() + 80 && p.b() > p.g() + 80; };

    ASSERT_TRUE(renderer().render(groundOnly.root(), pose, full.options().lighting.sky));
    save("monaco_harbour_footprints.png");
    std::vector<std::pair<int, int>> roofs;
    for (const core::BuildingRecord& b : m.scene.buildings) {
        if (b.outcome != core::BuildingOutcome::Placed) continue;
        const core::AssetInfo* info = test::shippedCatalogue().find(m.scene.assets[static_cast<std::size_t>(b.asset)]);
        ASSERT_NE(info, nullptr);
        const core::Vec3f p = b.placement.position;
        const auto px =
            projectToImage(pose, kWidth, kHeight, osg::Vec3d(p.x, p.y + info->height * b.placement.scale.y, p.z));
        if (!px || px->x() < 5 || px->y() < 5 || px->x() > kWidth - 5 || px->y() > kHeight - 5) continue;
        // Only where the footprint colour shows without models (the model's centre is over its
        // own footprint, not over a neighbour's or a road).
        const auto ground = projectToImage(pose, kWidth, kHeight, osg::Vec3d(p.x, p.y, p.z));
        if (ground && magenta(renderer().pixel(int(ground->x()), int(ground->y())))) {
            roofs.emplace_back(int(px->x()), int(px->y()));
        }
    }
    ASSERT_GT(roofs.size(), 30u) << "buildings in view";

    ASSERT_TRUE(renderer().render(full.root(), pose, full.options().lighting.sky));
    save("monaco_harbour_top.png");
    std::size_t modelShown = 0;
    for (const auto& [x, y] : roofs) {
        const osg::Vec4ub p = renderer().pixel(x, y);
        modelShown += !magenta(p) && !near(p, full.options().lighting.sky, 2);
    }
    EXPECT_GE(modelShown, roofs.size() * 95 / 100) << modelShown << " of " << roofs.size();
}

TEST_F(MonacoRender, ProbeOverABuildingIsRedAndOverARoadGreen) {
    const Monaco& m = monaco();
    const core::placement::PlacementLayers& layers = m.baker->layers();
    const std::string solid[] = {std::string(core::placement::kPlacedBuildingsLayer)};
    auto grid = core::CollisionGrid::build(layers, m.scene.tiles, solid);
    ASSERT_TRUE(grid) << grid.message();
    core::CollisionQuery query(*grid);
    const int road = layers.layerId("road");

    // A probe on the target centre of a placed building, and one on a road cell with no
    // building within a few metres.
    std::optional<ProbeVisual> onBuilding, onRoad;
    for (const core::BuildingRecord& b : m.scene.buildings) {
        if (b.outcome != core::BuildingOutcome::Placed || b.target.halfExtents.x < 8 || b.target.halfExtents.y < 8) {
            continue;
        }
        const core::Vec2 cell = m.scene.frame.groundToCell(b.target.centre);
        ProbeVisual v;
        v.shape = ProbeShape::disk(cell, 2.0);
        v.hit = runProbe(query, v.shape, core::kAllLayers, &v.cells).hit();
        if (v.hit) {
            onBuilding = v;
            break;
        }
    }
    for (const core::TileId& t : m.scene.tiles) {
        const core::BitTile* r = layers.tile(t, road);
        if (!r || onRoad) continue;
        for (int y = 40; y < 216 && !onRoad; y += 7) {
            for (int x = 40; x < 216 && !onRoad; x += 7) {
                if (!r->test(x, y) || !r->test(x + 1, y) || !r->test(x, y + 1)) continue;
                ProbeVisual v;
                v.shape =
                    ProbeShape::character({t.x * 256.0 + x + 0.5, t.y * 256.0 + y + 0.5}, core::Footprint::disk(1.5));
                v.hit = runProbe(query, v.shape, core::kAllLayers, &v.cells).hit();
                if (!v.hit) onRoad = v;
            }
        }
    }
    ASSERT_TRUE(onBuilding && onRoad);

    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models, monacoOptions());
    ASSERT_TRUE(graph.setScene(m.scene, &m.map->store).ok());
    const std::vector<ProbeVisual> probes = {*onBuilding, *onRoad};
    graph.setProbes(probes);
    for (const auto& [probe, name] :
         {std::pair{*onBuilding, "monaco_probe_building.png"}, std::pair{*onRoad, "monaco_probe_road.png"}}) {
        const osg::Vec3d at = cellToScene(m.scene.frame, probe.shape.points[0]);
        const CameraPose pose = frameBox(around(at, 25), ViewDirection::top(), double(kWidth) / kHeight);
        ASSERT_TRUE(renderer().render(graph.root(), pose, graph.options().lighting.sky));
        save(name);
        const auto px = projectToImage(pose, kWidth, kHeight, at);
        ASSERT_TRUE(px);
        const osg::Vec4ub c = renderer().pixel(int(px->x()), int(px->y()));
        if (probe.hit) {
            EXPECT_GT(c.r(), c.g() + 80) << name << ": " << int(c.r()) << "," << int(c.g()) << "," << int(c.b());
            EXPECT_GT(c.r(), c.b() + 80) << name;
        } else {
            EXPECT_GT(c.g(), c.r() + 60) << name << ": " << int(c.r()) << "," << int(c.g()) << "," << int(c.b());
            EXPECT_GT(c.g(), c.b() + 60) << name;
        }
    }
}

TEST_F(MonacoRender, DrawCallsAreOnePerAssetPerBlockNotPerInstance) {
    const Monaco& m = monaco();
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models, monacoOptions());
    ASSERT_TRUE(graph.setScene(m.scene, &m.map->store).ok());
    std::set<std::tuple<core::TileId, int, int, int>> assetBlocks;
    for (const core::InstanceBlock& b : m.scene.blocks) assetBlocks.insert({b.tile, b.blockX, b.blockY, b.asset});
    ASSERT_GT(m.scene.instanceCount(), 3 * assetBlocks.size()) << "enough instances per block to tell the two apart";

    const CameraPose pose = frameBox(graph.bounds(), ViewDirection::top(), double(kWidth) / kHeight);
    const auto frame = renderer().render(graph.root(), pose, graph.options().lighting.sky);
    ASSERT_TRUE(frame) << frame.message();
    // Everything is in view: OSG drew every drawable once, and the instanced ones are exactly
    // the (asset, block) pairs.
    const GraphCounts counts = graph.counts();
    EXPECT_EQ(frame->drawCalls, counts.drawables());
    // Per tile: its ground, its surfaces, the mesh of its generated buildings if it has any (a
    // draw call or two: opaque and glass parts), never one per building.
    std::set<core::TileId> generatedTiles;
    for (const core::GeneratedBuilding& g : m.scene.generated) generatedTiles.insert(g.tile);
    EXPECT_GE(counts.generatedDrawables, generatedTiles.size());
    EXPECT_LE(counts.generatedDrawables, 2 * generatedTiles.size());
    EXPECT_EQ(frame->drawCalls,
              assetBlocks.size() + counts.groundDrawables + counts.surfaceDrawables + counts.generatedDrawables);
    // A ground per tile, but for the open sea's tiles: all under water, they have none.
    EXPECT_LT(counts.groundDrawables, m.scene.tiles.size());
    EXPECT_GT(counts.groundDrawables, m.scene.tiles.size() / 2);
    EXPECT_EQ(frame->instancedDrawCalls, assetBlocks.size());
    EXPECT_LT(frame->drawCalls, m.scene.instanceCount());

    // Close up, blocks out of view are culled one by one.
    const osg::Vec3d c = cellCentre(
        {m.scene.tiles[m.scene.tiles.size() / 2].x * 256.0, m.scene.tiles[m.scene.tiles.size() / 2].y * 256.0});
    const auto close = renderer().render(graph.root(), frameBox(around(c, 150), ViewDirection::top(), 1.33),
                                         graph.options().lighting.sky);
    ASSERT_TRUE(close);
    EXPECT_LT(close->instancedDrawCalls, assetBlocks.size() / 4);
    EXPECT_EQ(close->drawCalls >= close->instancedDrawCalls, true);
}

TEST_F(MonacoRender, DistanceLevelsDrawTheWholeCityFromAfarWithoutAModel) {
    const Monaco& m = monaco();
    AssetModelCache models;
    const SceneGraphOptions options = viewportOptions();
    SceneGraph graph(test::shippedCatalogue(), models, options);
    ASSERT_TRUE(graph.setScene(m.scene, &m.map->store).ok());
    const GraphCounts counts = graph.counts();
    ASSERT_GT(counts.buildingBoxDrawables, 0u);

    // From afar (the whole city in view, every tile's centre beyond 1.5 km): no instanced draw,
    // each tile's buildings one box mesh, so a whole selection costs a draw call or two per tile.
    const CameraPose far = frameBox(graph.bounds(), ViewDirection::top(), double(kWidth) / kHeight);
    const double eyeToGround = far.eye.y();
    ASSERT_GT(eyeToGround, 1500.0) << "the whole city must be framed from beyond the building range";
    const auto whole = renderer().render(graph.root(), far, graph.options().lighting.sky);
    ASSERT_TRUE(whole) << whole.message();
    save("monaco_lod_far.png");
    EXPECT_EQ(whole->instancedDrawCalls, 0u);
    EXPECT_EQ(whole->drawCalls, counts.drawables() - counts.instancedDrawables);

    // Close up: the models of the tiles near the eye draw (instanced), farther off buildings
    // are boxes and plants their cards; the same view without levels draws every model in
    // view, with more triangles (OSG counts one instance's per instanced draw).
    // Around the harbour (as BuildingModelsShowWhereBuildingsStand).
    const core::TileId harbour = *core::TileId::fromQuadkey("12022303030221113");
    const osg::Vec3d c = cellCentre({harbour.x * 256.0 + 128, harbour.y * 256.0 + 128});
    const CameraPose close = frameBox(around(c, 150), ViewDirection::oblique(), double(kWidth) / kHeight);
    const auto closeUp = renderer().render(graph.root(), close, graph.options().lighting.sky);
    ASSERT_TRUE(closeUp) << closeUp.message();
    save("monaco_lod_close.png");
    EXPECT_GT(closeUp->instancedDrawCalls, 0u);
    SceneGraph plain(test::shippedCatalogue(), models, monacoOptions());
    ASSERT_TRUE(plain.setScene(m.scene, &m.map->store).ok());
    const auto all = renderer().render(plain.root(), close, plain.options().lighting.sky);
    ASSERT_TRUE(all) << all.message();
    EXPECT_LE(closeUp->instancedDrawCalls, all->instancedDrawCalls);
    EXPECT_LT(closeUp->triangles, all->triangles);
}

TEST_F(MonacoRender, TilesHoldingOnlyWhatTheEyeSeesDrawTheSamePicture) {
    // The viewport's graph holds what its eye can see (DetailView): far tiles without their
    // instanced blocks, ground images as fine as the pixels they cover. The pictures are those
    // of the graph holding everything, from afar and close up.
    const Monaco& m = monaco();
    AssetModelCache models;
    const SceneGraphOptions options = viewportOptions();
    SceneGraph full(test::shippedCatalogue(), models, options);
    ASSERT_TRUE(full.setScene(m.scene, &m.map->store).ok());
    const GraphCounts all = full.counts();
    const core::TileId harbour = *core::TileId::fromQuadkey("12022303030221113");
    const osg::Vec3d c = cellCentre({harbour.x * 256.0 + 128, harbour.y * 256.0 + 128});
    const double aspect = double(kWidth) / kHeight;
    const std::pair<const char*, CameraPose> poses[] = {
        {"far", frameBox(full.bounds(), ViewDirection::top(), aspect)},
        {"close", frameBox(around(c, 150), ViewDirection::oblique(), aspect)},
    };
    for (const auto& [name, pose] : poses) {
        SCOPED_TRACE(name);
        SceneGraph light(test::shippedCatalogue(), models, options);
        light.setDetailView(DetailView{pose.eye, kHeight / (pose.fovyDeg * std::numbers::pi / 180.0)});
        ASSERT_TRUE(light.setScene(m.scene, &m.map->store).ok());
        const GraphCounts held = light.counts();
        // Afar the ground images are a sixteenth of the texels and no block is held; close up
        // (the whole city within the levels' reach) most images are whole and every block held.
        if (std::string(name) == "far") {
            EXPECT_LT(held.groundTexels * 8, all.groundTexels);
            EXPECT_EQ(held.tilesHoldingBlocks, 0u);
            EXPECT_EQ(held.instances, 0u);
        } else {
            EXPECT_LT(held.groundTexels, all.groundTexels);
            EXPECT_GT(held.tilesHoldingBlocks, 0u);
        }

        ASSERT_TRUE(renderer().render(full.root(), pose, options.lighting.sky));
        const osg::ref_ptr<osg::Image> whole = new osg::Image(renderer().image(), osg::CopyOp::DEEP_COPY_ALL);
        const auto drawn = renderer().render(light.root(), pose, options.lighting.sky);
        ASSERT_TRUE(drawn) << drawn.message();
        save(std::string("monaco_detail_") + name + ".png");
        std::size_t same = 0;
        double difference = 0.0;
        for (int i = 0; i < kWidth * kHeight * 4; i += 4) {
            int most = 0;
            for (int k = 0; k < 3; ++k) {
                const int d = std::abs(whole->data()[i + k] - renderer().image().data()[i + k]);
                most = std::max(most, d);
                difference += d;
            }
            same += most <= 24;
        }
        EXPECT_GE(same, std::size_t(kWidth) * kHeight * 99 / 100);
        EXPECT_LE(difference / (3.0 * kWidth * kHeight), 2.0);
    }
}

TEST_F(MonacoRender, DenseBlocksStillDrawOncePerAssetPerBlock) {
    test::SyntheticSceneSpec spec;
    spec.treesPerBlock = 200;
    const core::Scene scene = test::syntheticScene(spec);
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    ASSERT_TRUE(graph.setScene(scene, nullptr).ok());
    const auto frame =
        renderer().render(graph.root(), frameBox(graph.bounds(), ViewDirection::oblique(), double(kWidth) / kHeight),
                          graph.options().lighting.sky);
    ASSERT_TRUE(frame) << frame.message();
    save("synthetic_dense_oblique.png");
    EXPECT_EQ(frame->instancedDrawCalls, scene.blocks.size());
    EXPECT_EQ(frame->drawCalls, scene.blocks.size() + scene.tiles.size() + scene.surfaces.size());
    EXPECT_GT(scene.instanceCount(), 50 * scene.blocks.size());
}

TEST_F(MonacoRender, OverlaysGridAndHighlightShowOverTheScene) {
    const Monaco& m = monaco();
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models, monacoOptions());
    ASSERT_TRUE(graph.setScene(m.scene, &m.baker->layers()).ok());
    const core::TileId centre = *core::TileId::fromQuadkey("12022303030221113");
    const osg::Vec3d c = cellCentre({centre.x * 256.0 + 128, centre.y * 256.0 + 128});
    const CameraPose pose = frameBox(around(c, 350), ViewDirection{200, 50}, double(kWidth) / kHeight);
    ASSERT_TRUE(renderer().render(graph.root(), pose, graph.options().lighting.sky));
    const osg::ref_ptr<osg::Image> plain = new osg::Image(renderer().image(), osg::CopyOp::DEEP_COPY_ALL);
    save("monaco_harbour_oblique.png");

    auto changedPixels = [&] {
        std::size_t n = 0;
        for (int i = 0; i < kWidth * kHeight * 4; i += 4) {
            n += std::abs(plain->data()[i] - renderer().image().data()[i]) +
                     std::abs(plain->data()[i + 1] - renderer().image().data()[i + 1]) >
                 30;
        }
        return n;
    };
    HeatOverlayStyle heat;
    heat.radiusCells = 6;
    ASSERT_TRUE(graph.setHeatOverlay(m.baker->layers(), "vegetation - placed_vegetation", heat).ok());
    ASSERT_TRUE(renderer().render(graph.root(), pose, graph.options().lighting.sky));
    save("monaco_heat_vegetation.png");
    EXPECT_GT(changedPixels(), 2000u);
    graph.clearHeatOverlay();

    graph.setTileGridVisible(true);
    ASSERT_TRUE(renderer().render(graph.root(), pose, graph.options().lighting.sky));
    save("monaco_tile_grid.png");
    EXPECT_GT(changedPixels(), 2000u);
    graph.setTileGridVisible(false);

    // The biggest placed building in view, highlighted.
    const core::BuildingRecord* pick = nullptr;
    for (const core::BuildingRecord& b : m.scene.buildings) {
        if (b.outcome != core::BuildingOutcome::Placed) continue;
        const auto px = projectToImage(pose, kWidth, kHeight,
                                       cellToScene(m.scene.frame, m.scene.frame.groundToCell(b.target.centre)));
        if (!px || px->x() < 100 || px->x() > kWidth - 100 || px->y() < 100 || px->y() > kHeight - 100) continue;
        if (!pick ||
            b.target.halfExtents.x * b.target.halfExtents.y > pick->target.halfExtents.x * pick->target.halfExtents.y) {
            pick = &b;
        }
    }
    ASSERT_NE(pick, nullptr);
    graph.setHighlight(pick);
    ASSERT_TRUE(renderer().render(graph.root(), pose, graph.options().lighting.sky));
    save("monaco_highlight.png");
    // The target box's outline is drawn opaque over everything: look for it around the middle
    // of one edge.
    const double ca = std::cos(pick->target.angle), sa = std::sin(pick->target.angle);
    const core::Vec2 edge = pick->target.centre + core::Vec2{ca, sa} * pick->target.halfExtents.x;
    const core::Vec3f e = core::groundToScene(edge, HighlightStyle{}.heightMetres);
    const auto px = projectToImage(pose, kWidth, kHeight, osg::Vec3d(e.x, e.y, e.z));
    ASSERT_TRUE(px);
    bool yellow = false;
    for (int dy = -2; dy <= 2; ++dy) {
        for (int dx = -2; dx <= 2; ++dx) {
            const osg::Vec4ub h = renderer().pixel(int(px->x()) + dx, int(px->y()) + dy);
            yellow |= h.r() > 200 && h.g() > 170 && h.b() < 100;
        }
    }
    EXPECT_TRUE(yellow) << "no highlight outline at " << px->x() << "," << px->y();
}

TEST_F(MonacoRender, ExportedOsgbDrawsTheSamePicture) {
    const Monaco& m = monaco();
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models, monacoOptions());
    ASSERT_TRUE(graph.setScene(m.scene, &m.map->store).ok());
    const core::TileId centre = *core::TileId::fromQuadkey("12022303030221113");
    const osg::Vec3d c = cellCentre({centre.x * 256.0 + 128, centre.y * 256.0 + 128});
    const CameraPose pose = frameBox(around(c, 250), ViewDirection{160, 40}, double(kWidth) / kHeight);
    // A file cannot keep a block's bound callback, so its bounds also hold each model at the
    // origin; with clip distances fitted to the bounds the two pictures would resolve the panes
    // in front of the walls differently.
    renderer().setClipDistances(5.0, 5000.0);
    struct Restore {
        ~Restore() { renderer().setClipDistances(0.0, 0.0); }
    } restore;
    ASSERT_TRUE(renderer().render(graph.root(), pose, graph.options().lighting.sky));
    save("monaco_for_osgb.png");
    const osg::ref_ptr<osg::Image> live = new osg::Image(renderer().image(), osg::CopyOp::DEEP_COPY_ALL);

    std::filesystem::create_directories(kArtefacts);
    const auto file = kArtefacts / "monaco.osgb";
    const core::Status written = writeSceneFile(*graph.root(), file);
    ASSERT_TRUE(written.ok()) << written.message();
    auto read = readSceneFile(file);
    ASSERT_TRUE(read) << read.message();
    EXPECT_EQ(countDrawables(**read), countDrawables(*graph.root()));
    ASSERT_TRUE(renderer().render(read->get(), pose, graph.options().lighting.sky));
    save("monaco_from_osgb.png");
    std::size_t same = 0;
    for (int i = 0; i < kWidth * kHeight * 4; i += 4) {
        same += std::abs(live->data()[i] - renderer().image().data()[i]) <= 3 &&
                std::abs(live->data()[i + 1] - renderer().image().data()[i + 1]) <= 3 &&
                std::abs(live->data()[i + 2] - renderer().image().data()[i + 2]) <= 3;
    }
    EXPECT_GE(same, std::size_t(kWidth) * kHeight * 999 / 1000);
}

TEST_F(MonacoRender, RenderCommandWritesThePicture) {
    terrabit::cli::RenderCommand command;
    command.input.file = std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf";
    command.input.rules = std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml";
    command.catalogue = std::string(TERRABIT_RESOURCES_DIR) + "/assets/catalogue.yaml";
    command.selection.zoom = 17;
    command.selection.quadkeys = {"1202230303022111"};  // the four tiles by the harbour
    command.camera = "200,35";
    command.grid = true;
    command.overlay = "water";
    command.width = 320;
    command.height = 240;
    std::filesystem::create_directories(kArtefacts);
    command.out = kArtefacts / "cli_harbour.png";
    std::filesystem::remove(command.out);
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runRender(command, out, err), terrabit::cli::kExitOk) << err.str();
    EXPECT_NE(out.str().find("4 tiles"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("draw calls"), std::string::npos) << out.str();
    osg::ref_ptr<osg::Image> image = osgDB::readRefImageFile(command.out.string());
    ASSERT_TRUE(image);
    EXPECT_EQ(image->s(), 320);
    EXPECT_EQ(image->t(), 240);

    terrabit::cli::RenderCommand bad = command;
    bad.camera = "sideways";
    EXPECT_EQ(terrabit::cli::runRender(bad, out, err), terrabit::cli::kExitBadArguments);
    EXPECT_NE(err.str().find("sideways"), std::string::npos);
    bad = command;
    bad.overlay = "watr";
    EXPECT_EQ(terrabit::cli::runRender(bad, out, err), terrabit::cli::kExitBadArguments);
    EXPECT_NE(err.str().find("watr"), std::string::npos);
}

TEST(ImpostorRender, FarTreesDrawnAsCardsCoverWhatTheirModelsCoverInTheirColours) {
    // Trees only, over the sky: the same instances drawn as full models and as their cards,
    // seen from 800 m, where DistanceLod's card level (range 500 m) holds every tile.
    test::SyntheticSceneSpec spec;
    spec.buildings = false;
    spec.surfaces = false;
    spec.treesPerBlock = 24;
    const core::Scene scene = test::syntheticScene(spec);
    AssetModelCache models;
    SceneGraphOptions options;
    options.ground = false;
    options.surfaces = false;
    SceneGraph full(test::shippedCatalogue(), models, options);
    options.lod = {0.0, 500.0};
    SceneGraph cards(test::shippedCatalogue(), models, options);
    ASSERT_TRUE(full.setScene(scene, nullptr).ok());
    ASSERT_TRUE(cards.setScene(scene, nullptr).ok());
    // A block's models, its cards and its thinned cards (a quarter of them, first in it) draw
    // the trees from one transform buffer.
    struct Levels : osg::NodeVisitor {
        Levels() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
        void apply(osg::LOD& lod) override {
            lods.push_back(&lod);
            traverse(lod);
        }
        std::vector<osg::LOD*> lods;
    } levels;
    cards.root()->accept(levels);
    ASSERT_FALSE(levels.lods.empty());
    const auto bufferOf = [](osg::Node* node) {
        const osg::StateSet* state = node ? node->getStateSet() : nullptr;
        return state ? state->getTextureAttribute(kInstanceTextureUnit, osg::StateAttribute::TEXTURE) : nullptr;
    };
    std::size_t shared = 0;
    for (osg::LOD* lod : levels.lods) {
        if (lod->getNumChildren() < 3) continue;
        ASSERT_NE(bufferOf(lod->getChild(0)), nullptr);
        EXPECT_EQ(bufferOf(lod->getChild(0)), bufferOf(lod->getChild(1)));
        EXPECT_EQ(bufferOf(lod->getChild(1)), bufferOf(lod->getChild(2)));
        ++shared;
    }
    EXPECT_GT(shared, 0u);
    const osg::Vec3d centre = full.root()->getBound().center();
    const double elevation = 20.0 * M_PI / 180.0, distance = 800.0;
    CameraPose pose;
    pose.centre = centre;
    pose.eye = centre + osg::Vec3d(0.0, distance * std::sin(elevation), distance * std::cos(elevation));
    pose.up = {0.0, 1.0, 0.0};
    pose.fovyDeg = 12.0;
    // Every tile's centre (what its LODs measure to) lies within the card level's range.
    for (const core::TileId& t : test::syntheticTiles(spec.cols, spec.rows)) {
        const double d = (osg::Vec3d(tilePlacement(cards.frame(), t).at(128.0, 128.0)) - pose.eye).length();
        ASSERT_GT(d, 500.0);
        ASSERT_LT(d, 1000.0);
    }
    renderer().setClipDistances(100.0, 2000.0);
    struct Seen {
        int pixels = 0;
        double rgb[3] = {0, 0, 0};
    };
    const auto look = [&](SceneGraph& graph, const std::string& name) {
        EXPECT_TRUE(renderer().render(graph.root(), pose, graph.options().lighting.sky));
        save(name);
        Seen seen;
        for (int y = 0; y < kHeight; ++y) {
            for (int x = 0; x < kWidth; ++x) {
                const osg::Vec4ub p = renderer().pixel(x, y);
                if (near(p, graph.options().lighting.sky, 2)) continue;
                ++seen.pixels;
                for (int c = 0; c < 3; ++c) seen.rgb[c] += p[static_cast<unsigned>(c)];
            }
        }
        for (double& c : seen.rgb) c /= std::max(seen.pixels, 1);
        return seen;
    };
    const Seen models3d = look(full, "trees_far_models.png");
    const Seen impostors = look(cards, "trees_far_cards.png");
    renderer().setClipDistances(0.0, 0.0);
    ASSERT_GT(models3d.pixels, 2000) << "the trees should fill a fair part of the picture";
    const double ratio = double(impostors.pixels) / models3d.pixels;
    std::printf("trees at 800 m: models cover %d px, mean rgb %.0f %.0f %.0f; cards %d px (%.2fx), %.0f %.0f %.0f\n",
                models3d.pixels, models3d.rgb[0], models3d.rgb[1], models3d.rgb[2], impostors.pixels, ratio,
                impostors.rgb[0], impostors.rgb[1], impostors.rgb[2]);
    EXPECT_GT(ratio, 0.75);
    EXPECT_LT(ratio, 1.35);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(impostors.rgb[c], models3d.rgb[c], 30.0) << "channel " << c;
}

}  // namespace
}  // namespace terrabit::render
