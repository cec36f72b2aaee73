// The whole bake: byte-identical manifests for any thread count and tile order, another seed
// another scene, incremental re-runs that touch only what changed, ground surfaces, and the
// Monaco sample end to end.

#include <gtest/gtest.h>

#include <algorithm>
#include <numbers>
#include <random>

#include "manifest_writer_p.h"
#include "placement_test_support.h"
#include "terrabit/core/export/manifest_writer.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

std::string manifestOf(const Scene& scene, const std::string& rules) {
    auto m = encodeManifest(scene, rules);
    EXPECT_TRUE(m.ok()) << m.message();
    return m.ok() ? *m : std::string();
}

/// Houses, a forest, a park with a path, water: every pass has work on several tiles.
SyntheticMap busyMap() {
    SyntheticMap m;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> pos(-300, 300), size(4, 28), turn(0, std::numbers::pi);
    for (int i = 0; i < 300; ++i) {
        m.rectangle("b" + std::to_string(1000 + i), {{"building", "yes"}}, {pos(rng), pos(rng)}, size(rng), size(rng),
                    turn(rng));
    }
    // The forest stays inside the north-west tile, so several tiles have no forest near them.
    m.area("forest", {{"landuse", "forest"}}, {{{-300, 150}, {-150, 150}, {-150, 300}, {-300, 300}}});
    m.area("park", {{"leisure", "park"}}, {{{0, -200}, {200, -200}, {200, -20}, {0, -20}}});
    m.area("lawn", {{"landuse", "grass"}}, {{{-200, -300}, {-20, -300}, {-20, -120}, {-200, -120}}});
    m.line("street", {{"highway", "residential"}}, {{-330, 10}, {330, -15}});
    m.line("path", {{"highway", "footway"}}, {{-10, -110}, {210, -100}});
    m.area("lake", {{"natural", "water"}}, {{{100, 100}, {220, 120}, {200, 220}, {90, 200}}});
    return m;
}

/// busyMap under the default synthetic passes, and a baker of it with those rules set.
struct BusyBaker {
    std::string text = syntheticRules(defaultSyntheticPasses());
    std::unique_ptr<BakeInput> input = busyMap().build(text);
    AssetCatalogue catalogue = testCatalogue();
    PlacementRules rules = parsePasses(*input, text);
    SceneBaker baker{input->index, input->store, catalogue};
    BusyBaker() { EXPECT_TRUE(baker.setRules(rules).ok()); }
};

TEST(SceneBaker, SameSeedGivesByteIdenticalManifestsForAnyThreadCountAndTileOrder) {
    const std::string rules = syntheticRules(defaultSyntheticPasses());
    const auto input = busyMap().build(rules);
    const AssetCatalogue catalogue = testCatalogue();
    const PlacementRules passes = parsePasses(*input, rules);
    BakeOptions one;
    one.seed = 42;
    one.threads = 1;
    const std::string reference = manifestOf(bakeOnce(*input, catalogue, passes, one), rules);
    ASSERT_GT(reference.size(), 10000u);
    for (const int threads : {2, 3, 8}) {
        BakeOptions o = one;
        o.threads = threads;
        o.order = input->index.tiles();
        std::shuffle(o.order.begin(), o.order.end(), std::mt19937(threads));
        EXPECT_EQ(manifestOf(bakeOnce(*input, catalogue, passes, o), rules), reference) << threads << " threads";
    }
    BakeOptions reversed = one;
    reversed.order = input->index.tiles();
    std::reverse(reversed.order.begin(), reversed.order.end());
    EXPECT_EQ(manifestOf(bakeOnce(*input, catalogue, passes, reversed), rules), reference);
}

TEST(SceneBaker, AnotherSeedGivesAnotherScene) {
    const std::string rules = syntheticRules(defaultSyntheticPasses());
    const auto input = busyMap().build(rules);
    const AssetCatalogue catalogue = testCatalogue();
    const PlacementRules passes = parsePasses(*input, rules);
    BakeOptions a, b;
    a.seed = 1;
    b.seed = 2;
    const Scene sa = bakeOnce(*input, catalogue, passes, a), sb = bakeOnce(*input, catalogue, passes, b);
    EXPECT_NE(manifestOf(sa, rules), manifestOf(sb, rules));
    // The plants moved: compare the first block of trees.
    std::size_t same = 0, total = 0;
    for (std::size_t i = 0; i < std::min(sa.blocks.size(), sb.blocks.size()); ++i) {
        for (std::size_t k = 0; k < std::min(sa.blocks[i].instances.size(), sb.blocks[i].instances.size()); ++k) {
            ++total;
            same += sa.blocks[i].instances[k] == sb.blocks[i].instances[k];
        }
    }
    EXPECT_LT(same * 4, total);
}

TEST(SceneBaker, TheSceneListsItsTilesAssetsAndSourcesInOrder) {
    const std::string rules = syntheticRules(defaultSyntheticPasses());
    const auto input = busyMap().build(rules);
    const AssetCatalogue catalogue = testCatalogue();
    const Scene scene = bakeOnce(*input, catalogue, parsePasses(*input, rules));
    EXPECT_EQ(scene.tiles.size(), 9u);
    EXPECT_TRUE(std::is_sorted(scene.tiles.begin(), scene.tiles.end(), [](const TileId& a, const TileId& b) {
        return std::tie(a.y, a.x) < std::tie(b.y, b.x);
    }));
    EXPECT_TRUE(std::is_sorted(scene.assets.begin(), scene.assets.end()));
    EXPECT_TRUE(std::is_sorted(scene.sources.begin(), scene.sources.end()));
    EXPECT_EQ(scene.buildings.size(), 300u);
    for (std::size_t i = 0; i < scene.buildings.size(); ++i) EXPECT_EQ(scene.buildings[i].source, i);
    std::size_t perAsset = 0;
    for (const std::size_t n : scene.statistics.instancesPerAsset) perAsset += n;
    EXPECT_EQ(perAsset, scene.instanceCount());
    std::size_t parts = 0;
    for (const BuildingRecord& b : scene.buildings) parts += b.parts.size();
    EXPECT_EQ(scene.statistics.buildingsPlaced + parts + scene.statistics.vegetationInstances, scene.instanceCount());
    EXPECT_EQ(overlappingBuildings(scene, catalogue), std::vector<std::string>{});
    const LonLat origin = sceneOrigin(scene.tiles);
    EXPECT_EQ(scene.frame.origin, origin);
    EXPECT_EQ(scene.frame.zoom, 17);
}

TEST(SceneBaker, SurfacesAreMergedRectanglesOfExactlyTheMaskCells) {
    const std::string rules = syntheticRules(defaultSyntheticPasses());
    const auto input = busyMap().build(rules);
    const AssetCatalogue catalogue = testCatalogue();
    const Scene scene = bakeOnce(*input, catalogue, parsePasses(*input, rules));
    const LayerStore& store = input->store;
    const int road = store.layerId("road"), water = store.layerId("water");
    std::size_t roadRects = 0, roadCells = 0;
    for (const TileId& t : scene.tiles) {
        // Expected: road - water, and water, from the layers directly.
        BitTile expectRoad, expectWater;
        if (const BitTile* r = store.tile(t, road)) expectRoad = *r;
        if (const BitTile* w = store.tile(t, water)) expectWater = *w;
        expectRoad.andNot(expectWater);
        BitTile gotRoad, gotWater;
        for (const SurfacePatch& p : scene.surfaces) {
            if (p.tile != t) continue;
            BitTile& target = p.layer == "road" ? gotRoad : gotWater;
            ASSERT_TRUE(p.layer == "road" || p.layer == "water") << p.layer;
            if (p.layer == "water") {
                EXPECT_LT(p.elevation, 0.0f);
                EXPECT_EQ(p.colour, (std::array<std::uint8_t, 3>{0x3b, 0x83, 0xbd}));
                EXPECT_EQ(p.texture, SurfaceTexture::None) << "the water pass names no texture";
            } else {
                EXPECT_GT(p.elevation, 0.0f);
                EXPECT_EQ(p.texture, SurfaceTexture::Gravel) << "the roads pass's texture";
                roadRects += p.rects.size();
            }
            for (const CellRect& r : p.rects) {
                for (int y = r.y0; y < r.y1; ++y) {
                    for (int x = r.x0; x < r.x1; ++x) {
                        ASSERT_FALSE(target.test(x, y)) << "rectangles overlap";
                        target.set(x, y);
                    }
                }
            }
        }
        EXPECT_EQ(gotRoad, expectRoad) << t.quadkey();
        EXPECT_EQ(gotWater, expectWater) << t.quadkey();
        roadCells += static_cast<std::size_t>(expectRoad.count());
    }
    ASSERT_GT(roadCells, 1000u);
    EXPECT_LT(roadRects * 3, roadCells) << "runs are merged, not one quad per cell";
}

TEST(SceneBaker, ChangingTheVegetationDensityRerunsOnlyVegetation) {
    BusyBaker busy;
    auto& [text, input, catalogue, rules, baker] = busy;
    auto first = baker.bake();
    ASSERT_TRUE(first.ok()) << first.message();
    for (const PassReport& p : baker.report().passes) EXPECT_EQ(p.tilesRun, 9u) << p.name;

    // Nothing changed: nothing runs, the same scene comes out.
    auto again = baker.bake();
    ASSERT_TRUE(again.ok());
    for (const PassReport& p : baker.report().passes) EXPECT_EQ(p.tilesRun, 0u) << p.name;
    EXPECT_EQ(manifestOf(*again, text), manifestOf(*first, text));

    // Denser grass: only the vegetation pass runs, on the tiles near grass.
    rules.passes()[3].vegetation.classes[2].density = 0.35;
    ASSERT_TRUE(baker.setRules(rules).ok());
    auto denser = baker.bake();
    ASSERT_TRUE(denser.ok());
    const BakeReport& r = baker.report();
    EXPECT_EQ(r.pass("buildings")->tilesRun, 0u);
    EXPECT_EQ(r.pass("water")->tilesRun, 0u);
    EXPECT_EQ(r.pass("roads")->tilesRun, 0u);
    EXPECT_GT(r.pass("vegetation")->tilesRun, 0u);
    EXPECT_LT(r.pass("vegetation")->tilesRun, 9u) << "tiles with no grass near them keep their plants";
    EXPECT_GT(denser->statistics.vegetationInstances, first->statistics.vegetationInstances);
    EXPECT_EQ(denser->buildings.size(), first->buildings.size());
    for (std::size_t i = 0; i < first->buildings.size(); ++i) {
        EXPECT_EQ(denser->buildings[i].placement, first->buildings[i].placement);
    }
    // And the result is what a fresh bake of the new rules gives.
    EXPECT_EQ(manifestOf(*denser, text), manifestOf(bakeOnce(*input, catalogue, rules), text));
}

TEST(SceneBaker, ACacheBudgetKeepsTheLeadingTilesOfItsPriorityThatFit) {
    const std::string text = syntheticRules(defaultSyntheticPasses());
    const auto input = busyMap().build(text);
    const AssetCatalogue catalogue = testCatalogue();
    const PlacementRules rules = parsePasses(*input, text);
    SceneBaker unbounded(input->index, input->store, catalogue);
    ASSERT_TRUE(unbounded.setRules(rules).ok());
    auto reference = unbounded.bake();
    ASSERT_TRUE(reference.ok()) << reference.message();
    ASSERT_EQ(reference->tiles.size(), 9u);
    EXPECT_EQ(unbounded.report().cachedTiles, 9u);
    EXPECT_EQ(unbounded.report().cachedBytes, unbounded.cacheFootprint().bytes);
    // Each tile's results, as the budget counts them.
    std::vector<TileId> priority = reference->tiles;
    std::reverse(priority.begin(), priority.end());
    std::rotate(priority.begin(), priority.begin() + 4, priority.end());
    const auto bytesOf = [&](const TileId& t) { return unbounded.cacheFootprint(std::span(&t, 1)).bytes; };
    // From the fourth on, the largest first: the last would fit in what the fourth leaves.
    std::sort(priority.begin() + 3, priority.end(),
              [&](const TileId& a, const TileId& b) { return bytesOf(a) > bytesOf(b); });
    std::vector<std::size_t> bytes;
    for (const TileId& t : priority) bytes.push_back(bytesOf(t));
    ASSERT_GT(bytes.back(), 0u);
    ASSERT_LT(bytes.back(), bytes[3]);

    // A budget one byte short of the first four tiles keeps the first three, and not a fifth
    // tile that would fit in what is left: the nearest tiles, without gaps.
    SceneBaker baker(input->index, input->store, catalogue);
    ASSERT_TRUE(baker.setRules(rules).ok());
    BakeOptions options;
    options.cachePriority = priority;
    options.cacheBudgetBytes = bytes[0] + bytes[1] + bytes[2] + bytes[3] - 1;
    auto cut = baker.bake(options);
    ASSERT_TRUE(cut.ok()) << cut.message();
    EXPECT_EQ(manifestOf(*cut, text), manifestOf(*reference, text));
    const SceneBaker::CacheFootprint kept = baker.cacheFootprint();
    EXPECT_EQ(kept.tiles, 3u);
    EXPECT_EQ(kept.bytes, bytes[0] + bytes[1] + bytes[2]);
    EXPECT_EQ(baker.cacheFootprint(std::span(priority).first(3)).bytes, kept.bytes);
    EXPECT_EQ(baker.report().cachedTiles, 3u);
    EXPECT_EQ(baker.report().droppedTiles, 6u);

    // The next bake runs the six dropped tiles of every pass again, the same.
    auto again = baker.bake(options);
    ASSERT_TRUE(again.ok()) << again.message();
    for (const PassReport& p : baker.report().passes) EXPECT_EQ(p.tilesRun, 6u) << p.name;
    EXPECT_EQ(manifestOf(*again, text), manifestOf(*reference, text));
}

TEST(SceneBaker, ChangingForestSpeciesRerunsOnlyTheTilesNearTheForest) {
    BusyBaker busy;
    auto& [text, input, catalogue, rules, baker] = busy;
    ASSERT_TRUE(baker.bake().ok());
    rules.passes()[3].vegetation.classes[0].species[1].weight = 5;
    ASSERT_TRUE(baker.setRules(rules).ok());
    auto changed = baker.bake();
    ASSERT_TRUE(changed.ok());
    // The forest lies in the north-west tile: it and its three neighbours in the block re-run.
    EXPECT_EQ(baker.report().pass("vegetation")->tilesRun, 4u);
    EXPECT_EQ(manifestOf(*changed, text), manifestOf(bakeOnce(*input, catalogue, rules), text));
}

/// The blocks of two scenes are equal: place, asset, bounds and every instance.
void expectSameBlocks(const Scene& a, const Scene& b) {
    ASSERT_EQ(a.blocks.size(), b.blocks.size());
    ASSERT_EQ(a.assets, b.assets);
    for (std::size_t i = 0; i < a.blocks.size(); ++i) {
        const InstanceBlock &x = a.blocks[i], &y = b.blocks[i];
        EXPECT_TRUE(x.tile == y.tile && x.blockX == y.blockX && x.blockY == y.blockY && x.asset == y.asset) << i;
        EXPECT_TRUE(x.instances == y.instances) << i;
        EXPECT_TRUE(x.bounds.min == y.bounds.min && x.bounds.max == y.bounds.max) << i;
    }
}

/// How many blocks of `now` hold the very instances (not a copy) of a block of `before`.
std::size_t blocksSharedWith(const Scene& now, const Scene& before) {
    std::size_t shared = 0;
    for (const InstanceBlock& b : now.blocks) {
        for (const InstanceBlock& o : before.blocks) {
            if (b.instances.sharesWith(o.instances)) {
                ++shared;
                break;
            }
        }
    }
    return shared;
}

TEST(SceneBaker, KeptPlantBlocksAreSharedWithTheNextSceneWhereTheVegetationDidNotChange) {
    BusyBaker busy;
    auto& [text, input, catalogue, rules, baker] = busy;
    BakeOptions options;
    options.keepPlantBlocks = true;
    auto first = baker.bake(options);
    ASSERT_TRUE(first.ok()) << first.message();
    EXPECT_EQ(baker.report().plantTilesShared, 0u);
    expectSameBlocks(*first, bakeOnce(*input, catalogue, rules));

    // Nothing changed: every tile's plants are the first scene's, held once.
    auto again = baker.bake(options);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(baker.report().plantTilesShared, 9u);
    expectSameBlocks(*again, *first);
    std::size_t plantBlocks = 0;
    for (const InstanceBlock& b : first->blocks) plantBlocks += b.instances.front().source == Instance::kNoSource;
    ASSERT_GT(plantBlocks, 20u);
    EXPECT_EQ(blocksSharedWith(*again, *first), plantBlocks) << "the buildings' blocks are made anew";

    // Another forest species: the tiles whose vegetation ran again have new plants, the others
    // share theirs, and the scene is a fresh bake's.
    rules.passes()[3].vegetation.classes[0].species[1].weight = 5;
    ASSERT_TRUE(baker.setRules(rules).ok());
    auto changed = baker.bake(options);
    ASSERT_TRUE(changed.ok());
    const std::size_t rerun = baker.report().pass("vegetation")->tilesRun;
    EXPECT_GT(rerun, 0u);
    EXPECT_EQ(baker.report().plantTilesShared, 9u - rerun);
    EXPECT_GT(blocksSharedWith(*changed, *again), 0u);
    EXPECT_LT(blocksSharedWith(*changed, *again), plantBlocks);
    expectSameBlocks(*changed, bakeOnce(*input, catalogue, rules));
    EXPECT_EQ(manifestOf(*changed, text), manifestOf(bakeOnce(*input, catalogue, rules), text));

    // Changing a scene's list copies it first: the other scene keeps its plants.
    Scene edited = *changed;
    const InstanceList before = changed->blocks.back().instances;
    edited.blocks.back().instances.edit()[0].yaw += 1.0f;
    EXPECT_TRUE(changed->blocks.back().instances == before);
    EXPECT_FALSE(edited.blocks.back().instances == before);

    // A cleared cache keeps no plants either: the next bake makes every block again.
    baker.clearCache();
    auto fresh = baker.bake(options);
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ(baker.report().plantTilesShared, 0u);
    EXPECT_EQ(blocksSharedWith(*fresh, *changed), 0u);
    expectSameBlocks(*fresh, *changed);
}

TEST(SceneBaker, ScenesServedFromTheCacheShareTheirSurfacesGeometry) {
    BusyBaker busy;
    auto& baker = busy.baker;
    auto first = baker.bake();
    ASSERT_TRUE(first.ok()) << first.message();
    auto again = baker.bake();  // every pass's tiles from the cache
    ASSERT_TRUE(again.ok()) << again.message();
    ASSERT_EQ(again->surfaces.size(), first->surfaces.size());
    std::size_t shaped = 0;
    for (std::size_t i = 0; i < first->surfaces.size(); ++i) {
        const SurfacePatch &a = first->surfaces[i], &b = again->surfaces[i];
        EXPECT_TRUE(b.rects.sharesWith(a.rects)) << i;
        if (a.shape.empty()) continue;
        ++shaped;
        EXPECT_TRUE(b.shape.triangles.sharesWith(a.shape.triangles)) << i;
        EXPECT_TRUE(b.shape.outline.sharesWith(a.shape.outline)) << i;
    }
    EXPECT_GT(shaped, 5u);

    // Changing one scene's patch copies its list first: the other keeps its own.
    Scene edited = *again;
    SurfacePatch& patch = *std::find_if(edited.surfaces.begin(), edited.surfaces.end(),
                                        [](const SurfacePatch& p) { return !p.shape.empty(); });
    const std::size_t k = static_cast<std::size_t>(&patch - edited.surfaces.data());
    const Vec2 corner = patch.shape.triangles[0];
    patch.shape.triangles.edit()[0] = corner + Vec2{0.5, 0.5};
    EXPECT_FALSE(patch.shape.triangles.sharesWith(again->surfaces[k].shape.triangles));
    EXPECT_EQ(again->surfaces[k].shape.triangles[0], corner);
    EXPECT_EQ(first->surfaces[k].shape.triangles[0], corner);

    // A cleared cache makes them anew: equal, not shared.
    baker.clearCache();
    auto fresh = baker.bake();
    ASSERT_TRUE(fresh.ok());
    ASSERT_EQ(fresh->surfaces.size(), first->surfaces.size());
    for (std::size_t i = 0; i < first->surfaces.size(); ++i) {
        if (first->surfaces[i].shape.empty()) continue;
        EXPECT_FALSE(fresh->surfaces[i].shape.triangles.sharesWith(first->surfaces[i].shape.triangles)) << i;
        EXPECT_TRUE(fresh->surfaces[i].shape.triangles == first->surfaces[i].shape.triangles) << i;
    }
}

TEST(SceneBaker, APlantAndABuildingOfOneAssetInOneBlockGiveTheBlocksOfABakeThatKeepsNoPlants) {
    // Sheds planted as if they were bushes, beside the houses that get sheds: the blocks that
    // hold both are made the plain way.
    std::string passes = defaultSyntheticPasses();
    const std::string bush = "species: {tree_a: 1, bush: 1}";
    ASSERT_NE(passes.find(bush), std::string::npos);
    passes.replace(passes.find(bush), bush.size(), "species: {tree_a: 1, small_4x4: 1}");
    const std::string grass = "species: {grass: 1}";
    passes.replace(passes.find(grass), grass.size(), "species: {grass: 1, small_4x4: 1}");
    const std::string text = syntheticRules(passes);
    const auto input = busyMap().build(text);
    const AssetCatalogue catalogue = testCatalogue();
    const PlacementRules rules = parsePasses(*input, text);
    SceneBaker baker(input->index, input->store, catalogue);
    ASSERT_TRUE(baker.setRules(rules).ok());
    BakeOptions options;
    options.keepPlantBlocks = true;
    ASSERT_TRUE(baker.bake(options).ok());
    auto again = baker.bake(options);
    ASSERT_TRUE(again.ok());
    // Some block holds a shed of each kind: one with a source and one without.
    bool mixed = false;
    for (const InstanceBlock& b : again->blocks) {
        bool building = false, plant = false;
        for (const Instance& i : b.instances) (i.source == Instance::kNoSource ? plant : building) = true;
        mixed = mixed || (building && plant);
    }
    EXPECT_TRUE(mixed);
    EXPECT_LT(baker.report().plantTilesShared, 9u);
    expectSameBlocks(*again, bakeOnce(*input, catalogue, rules));
}

TEST(SceneBaker, ChangingABuildingRuleRerunsBuildingsAndTheLaterPassesThatReadThem) {
    BusyBaker busy;
    auto& [text, input, catalogue, rules, baker] = busy;
    auto first = baker.bake();
    ASSERT_TRUE(first.ok());
    rules.passes()[0].buildings.fit.marginMetres = 1.0;
    ASSERT_TRUE(baker.setRules(rules).ok());
    auto changed = baker.bake();
    ASSERT_TRUE(changed.ok());
    const BakeReport& r = baker.report();
    EXPECT_EQ(r.pass("buildings")->tilesRun, 9u);
    EXPECT_EQ(r.pass("water")->tilesRun, 0u) << "surfaces do not read placed buildings";
    EXPECT_EQ(r.pass("roads")->tilesRun, 0u);
    EXPECT_GT(r.pass("vegetation")->tilesRun, 0u) << "the plantable zone excludes placed buildings";
    EXPECT_NE(manifestOf(*changed, text), manifestOf(*first, text));
    EXPECT_EQ(manifestOf(*changed, text), manifestOf(bakeOnce(*input, catalogue, rules), text));
}

TEST(SceneBaker, BadOptionsAndCancellationAreErrors) {
    const std::string text = syntheticRules(defaultSyntheticPasses());
    const auto input = busyMap().build(text);
    const AssetCatalogue catalogue = testCatalogue();
    SceneBaker baker(input->index, input->store, catalogue);
    auto noRules = baker.bake();
    ASSERT_FALSE(noRules.ok());
    EXPECT_NE(noRules.message().find("no rules"), std::string::npos);
    ASSERT_TRUE(baker.setRules(parsePasses(*input, text)).ok());
    BakeOptions o;
    o.blockCells = 0;
    EXPECT_FALSE(baker.bake(o).ok());
    o.blockCells = 32;
    o.order = {input->index.tiles().front()};
    EXPECT_NE(baker.bake(o).message().find("permutation"), std::string::npos);
    o.order.clear();
    o.progress = [](double f, std::string_view) { return f < 0.3; };
    auto cancelled = baker.bake(o);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_NE(cancelled.message().find("cancelled"), std::string::npos) << cancelled.message();
    // A species the catalogue lacks is refused when the rules are set.
    PlacementRules bad = parsePasses(*input, text);
    bad.passes()[3].vegetation.classes[0].species[0].asset = "baobab";
    const Status s = baker.setRules(bad);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("baobab"), std::string::npos);
}

// -- the Monaco sample -------------------------------------------------------------------------------

PlacementRules monacoRules() {
    auto rules = PlacementRules::parse(defaultRulesText(), "default.yaml", monaco().classified.layers);
    EXPECT_TRUE(rules.ok()) << rules.message();
    return rules.ok() ? std::move(*rules) : PlacementRules();
}

// The first two read the one default bake of Monaco (monacoDefaultBake(): the default rules,
// options and catalogue), which the BuildingFillMonaco tests read too, in the same process.
TEST(MonacoBake, PlacedBuildingsNeverOverlapAndEveryFootprintIsAccountedFor) {
    const AssetCatalogue& catalogue = shippedCatalogue();
    ASSERT_TRUE(monacoDefaultBake().ok);
    const Scene& scene = monacoDefaultBake().scene;
    EXPECT_EQ(overlappingBuildings(scene, catalogue), std::vector<std::string>{});
    const SceneStatistics& s = scene.statistics;
    EXPECT_EQ(s.buildingsPlaced + s.buildingsBlocked + s.buildingsUnmatched + s.buildingsGenerated,
              scene.buildings.size());
    EXPECT_GT(scene.buildings.size(), 1100u) << "Monaco has 1 214 buildings, nearly all inside its tiles";
    EXPECT_GT(s.buildingsPlaced, 300u);
    EXPECT_GT(s.buildingsPlaced + s.buildingsGenerated, 1150u);
    EXPECT_GT(s.vegetationInstances, 1000u);
    EXPECT_FALSE(scene.surfaces.empty());
    // Ancient models only where the default rules' filters allow them: historic buildings, and
    // places of worship (whose filter takes any religious model, temples included).
    for (const BuildingRecord& b : scene.buildings) {
        if (b.outcome != BuildingOutcome::Placed) continue;
        const AssetInfo* a = catalogue.find(scene.assets.at(static_cast<std::size_t>(b.asset)));
        if (!a->hasTag("ancient")) continue;
        const std::string& id = scene.sources.at(b.source);
        const auto f = std::find_if(monaco().map.features.begin(), monaco().map.features.end(),
                                    [&](const Feature& x) { return x.id == id; });
        ASSERT_NE(f, monaco().map.features.end());
        const auto building = f->tag("building");
        const bool worship = building && (*building == "church" || *building == "chapel" || *building == "cathedral" ||
                                          *building == "temple" || *building == "shrine" || *building == "mosque" ||
                                          *building == "synagogue");
        EXPECT_TRUE(f->tag("historic").has_value() || (worship && a->hasTag("religious"))) << id << " got " << a->id;
    }
}

TEST(MonacoBake, PlantsStandOnNoBuildingAndNoWater) {
    const AssetCatalogue& catalogue = shippedCatalogue();
    const MonacoDefaultBake& bake = monacoDefaultBake();
    ASSERT_TRUE(bake.ok);
    const Scene& scene = bake.scene;
    const LayerSource& layers = bake.baker->layers();
    const int building = layers.layerId("building"), water = layers.layerId("water");
    const int placed = layers.layerId(kPlacedBuildingsLayer);
    std::size_t plants = 0;
    for (const InstanceBlock& b : scene.blocks) {
        const AssetInfo* a = catalogue.find(scene.assets.at(static_cast<std::size_t>(b.asset)));
        if (a->category == "building") continue;
        for (const Instance& in : b.instances) {
            ++plants;
            const auto [gx, gy] = cellOf(scene, in.position);
            ASSERT_FALSE(layerAt(layers, building, 17, gx, gy)) << a->id;
            ASSERT_FALSE(layerAt(layers, water, 17, gx, gy)) << a->id;
            ASSERT_FALSE(layerAt(layers, placed, 17, gx, gy)) << a->id;
        }
    }
    EXPECT_EQ(plants, scene.statistics.vegetationInstances);
    EXPECT_GT(scene.statistics.achievedDensity, 0.0);
    EXPECT_LT(std::abs(scene.statistics.achievedDensity - scene.statistics.requestedDensity),
              0.1 * scene.statistics.requestedDensity);
}

TEST(MonacoBake, ManifestIsByteIdenticalForOneOrTwoThreadsAndAnyTileOrder) {
    const AssetCatalogue& catalogue = shippedCatalogue();
    const PlacementRules rules = monacoRules();
    BakeOptions one;
    one.seed = 2022;
    one.threads = 1;
    const std::string reference = manifestOf(bakeOnce(monaco(), catalogue, rules, one), defaultRulesText());
    BakeOptions two = one;
    two.threads = 2;
    two.order = monaco().index.tiles();
    std::shuffle(two.order.begin(), two.order.end(), std::mt19937(5));
    EXPECT_EQ(manifestOf(bakeOnce(monaco(), catalogue, rules, two), defaultRulesText()), reference);
    BakeOptions other = one;
    other.seed = 2023;
    EXPECT_NE(manifestOf(bakeOnce(monaco(), catalogue, rules, other), defaultRulesText()), reference);
}

}  // namespace
}  // namespace terrabit::test
