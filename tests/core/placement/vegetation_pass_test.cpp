// The vegetation pass on synthetic maps: never on buildings, water or roads (unless the class
// allows roads), density within statistical bounds, jitter, yaw and scale within their ranges,
// species by weight, minimum spacing across tile borders, trunk occupancy and blocks.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <set>

#include "placement_test_support.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

std::string vegetationPasses(const std::string& extra = "", const std::string& forestExtra = "") {
    return R"yaml(
expressions:
  non_plantable: "building | ((~vegetation) & road) | ((~vegetation) & water)"
passes:
  - name: buildings
    type: buildings
    blocked_by: water
    scale: [1, 1.5]
  - name: vegetation
    type: vegetation
    seed: 4
    zone: vegetation - non_plantable - placed_buildings
    avoid: road | water
    density: 0.1
    jitter: 0.8
    scale: [0.8, 1.2]
)yaml" + extra +
           R"yaml(
    classes:
      forest: {species: {tree_a: 3, tree_b: 1})yaml" +
           forestExtra + R"yaml(}
      park: {density: 0.05, avoid: water, species: {bush: 1}}
      grass: {density: 0.2, jitter: 1, scale: [0.5, 2], species: {grass: 1}}
)yaml";
}

/// A forest across four tiles with a road, a pond and a house in it; a park with a road and a
/// pond; a meadow.
SyntheticMap mixedMap() {
    SyntheticMap m;
    m.area("forest", {{"landuse", "forest"}}, {{{-200, -200}, {-20, -200}, {-20, -20}, {-200, -20}}});
    m.line("forest_road", {{"highway", "track"}}, {{-210, -105}, {-10, -115}});
    m.area("forest_pond", {{"natural", "water"}}, {{{-160, -160}, {-130, -160}, {-130, -130}, {-160, -130}}});
    m.rectangle("forest_house", {{"building", "yes"}}, {-60, -60}, 15, 15);
    m.area("park", {{"leisure", "park"}}, {{{20, 20}, {180, 20}, {180, 120}, {20, 120}}});
    m.line("park_path", {{"highway", "footway"}}, {{10, 70}, {190, 72}});
    m.area("park_pond", {{"natural", "water"}}, {{{150, 90}, {170, 90}, {170, 110}, {150, 110}}});
    m.area("meadow", {{"landuse", "grass"}}, {{{20, -180}, {180, -180}, {180, -40}, {20, -40}}});
    return m;
}

struct Baked {
    std::unique_ptr<BakeInput> input;
    AssetCatalogue catalogue = testCatalogue();
    std::unique_ptr<SceneBaker> baker;
    Scene scene;
};

std::unique_ptr<Baked> bake(const SyntheticMap& m, const std::string& passes, BakeOptions options = {}) {
    auto b = std::make_unique<Baked>();
    b->input = m.build(syntheticRules(passes));
    b->baker = std::make_unique<SceneBaker>(b->input->index, b->input->store, b->catalogue);
    const Status s = b->baker->setRules(parsePasses(*b->input, syntheticRules(passes)));
    EXPECT_TRUE(s.ok()) << s.message();
    auto scene = b->baker->bake(options);
    EXPECT_TRUE(scene.ok()) << scene.message();
    if (scene) b->scene = std::move(*scene);
    return b;
}

/// Every instance of the scene with its asset id.
std::vector<std::pair<std::string, Instance>> instancesOf(const Scene& scene) {
    std::vector<std::pair<std::string, Instance>> out;
    for (const InstanceBlock& b : scene.blocks) {
        for (const Instance& in : b.instances) out.push_back({scene.assets.at(static_cast<std::size_t>(b.asset)), in});
    }
    return out;
}

bool isPlant(const std::string& asset) {
    return asset == "tree_a" || asset == "tree_b" || asset == "bush" || asset == "grass";
}

TEST(VegetationPass, NeverOnBuildingsOrWaterAndOnRoadsOnlyWhereTheClassAllows) {
    const auto b = bake(mixedMap(), vegetationPasses());
    const LayerSource& layers = b->baker->layers();
    const int building = layers.layerId("building"), water = layers.layerId("water"), road = layers.layerId("road");
    const int placed = layers.layerId(kPlacedBuildingsLayer);
    std::size_t plants = 0, bushesOnRoad = 0;
    for (const auto& [asset, in] : instancesOf(b->scene)) {
        if (!isPlant(asset)) continue;
        ++plants;
        const auto [gx, gy] = cellOf(b->scene, in.position);
        ASSERT_FALSE(layerAt(layers, building, 17, gx, gy)) << asset << " on a building";
        ASSERT_FALSE(layerAt(layers, placed, 17, gx, gy)) << asset << " under a placed building";
        ASSERT_FALSE(layerAt(layers, water, 17, gx, gy)) << asset << " in water";
        if (asset == "bush") {
            bushesOnRoad += layerAt(layers, road, 17, gx, gy);
        } else {
            ASSERT_FALSE(layerAt(layers, road, 17, gx, gy)) << asset << " on a road";
        }
    }
    EXPECT_GT(plants, 5000u);
    EXPECT_GT(bushesOnRoad, 3u) << "the park class allows roads";
}

TEST(VegetationPass, AchievedDensityIsWithinStatisticalBoundsOfTheRule) {
    SyntheticMap m;
    m.area("meadow", {{"landuse", "grass"}}, {{{-250, -250}, {250, -250}, {250, 250}, {-250, 250}}});
    const auto b = bake(m, vegetationPasses());
    // The plantable cells, counted from the layers alone: the meadow has no road, water or house.
    const int grass = b->input->store.layerId("grass");
    std::size_t cells = 0;
    for (const TileId& t : b->input->store.tiles()) {
        if (const BitTile* bits = b->input->store.tile(t, grass)) cells += static_cast<std::size_t>(bits->count());
    }
    ASSERT_GT(cells, 200000u);
    const std::size_t planted = b->scene.instanceCount();
    const double p = 0.2, mean = p * cells, sigma = std::sqrt(cells * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(planted), mean, 5 * sigma);
    const SceneStatistics& s = b->scene.statistics;
    EXPECT_EQ(s.vegetationCellsRequested, cells);
    EXPECT_EQ(s.vegetationInstances, planted);
    EXPECT_DOUBLE_EQ(s.requestedDensity, 0.2);
    EXPECT_DOUBLE_EQ(s.achievedDensity, static_cast<double>(planted) / cells);
    ASSERT_EQ(s.instancesPerAsset.size(), b->scene.assets.size());
    EXPECT_EQ(s.instancesPerAsset.at(0), planted);
}

TEST(VegetationPass, JitterYawAndScaleStayInTheirRangesAndUseThem) {
    const auto b = bake(mixedMap(), vegetationPasses());
    struct Range {
        double jitter, lo, hi;
        double maxOffset = 0, minScale = 1e9, maxScale = 0, minYaw = 1e9, maxYaw = -1e9;
    };
    std::map<std::string, Range> ranges{{"tree_a", {0.8, 0.8, 1.2}},
                                        {"tree_b", {0.8, 0.8, 1.2}},
                                        {"bush", {0.8, 0.8, 1.2}},
                                        {"grass", {1.0, 0.5, 2.0}}};
    for (const auto& [asset, in] : instancesOf(b->scene)) {
        if (!isPlant(asset)) continue;
        Range& r = ranges.at(asset);
        const Vec2 cell = b->scene.frame.groundToCell({in.position.x, -static_cast<double>(in.position.z)});
        const double ox = cell.x - std::floor(cell.x) - 0.5, oy = cell.y - std::floor(cell.y) - 0.5;
        ASSERT_LE(std::abs(ox), r.jitter / 2 + 1e-4) << asset;
        ASSERT_LE(std::abs(oy), r.jitter / 2 + 1e-4) << asset;
        ASSERT_EQ(in.scale.x, in.scale.y);
        ASSERT_EQ(in.scale.x, in.scale.z);
        ASSERT_GE(in.scale.x, r.lo - 1e-6);
        ASSERT_LE(in.scale.x, r.hi + 1e-6);
        ASSERT_GE(in.yaw, 0.0f);
        ASSERT_LT(in.yaw, 2 * std::numbers::pi + 1e-6);
        ASSERT_EQ(in.position.y, 0.0f);
        r.maxOffset = std::max({r.maxOffset, std::abs(ox), std::abs(oy)});
        r.minScale = std::min<double>(r.minScale, in.scale.x);
        r.maxScale = std::max<double>(r.maxScale, in.scale.x);
        r.minYaw = std::min<double>(r.minYaw, in.yaw);
        r.maxYaw = std::max<double>(r.maxYaw, in.yaw);
    }
    for (const auto& [asset, r] : ranges) {
        // Hundreds of draws each: the extremes come close to the limits.
        EXPECT_GT(r.maxOffset, 0.45 * r.jitter) << asset;
        EXPECT_LT(r.minScale, r.lo + 0.05 * (r.hi - r.lo)) << asset;
        EXPECT_GT(r.maxScale, r.hi - 0.05 * (r.hi - r.lo)) << asset;
        EXPECT_LT(r.minYaw, 0.1) << asset;
        EXPECT_GT(r.maxYaw, 2 * std::numbers::pi - 0.1) << asset;
    }
}

TEST(VegetationPass, SpeciesFollowTheirClassAndItsWeights) {
    const auto b = bake(mixedMap(), vegetationPasses());
    const LayerSource& layers = b->baker->layers();
    const int forest = layers.layerId("forest"), park = layers.layerId("park"), grass = layers.layerId("grass");
    std::map<std::string, std::size_t> count;
    for (const auto& [asset, in] : instancesOf(b->scene)) {
        if (!isPlant(asset)) continue;
        ++count[asset];
        const auto [gx, gy] = cellOf(b->scene, in.position);
        const int expected = asset == "bush" ? park : asset == "grass" ? grass : forest;
        ASSERT_TRUE(layerAt(layers, expected, 17, gx, gy)) << asset << " outside its class";
    }
    const double n = static_cast<double>(count["tree_a"] + count["tree_b"]);
    ASSERT_GT(n, 1000);
    const double sigma = std::sqrt(n * 0.75 * 0.25);
    EXPECT_NEAR(static_cast<double>(count["tree_a"]), 0.75 * n, 5 * sigma);
}

TEST(VegetationPass, MinimumSpacingHoldsBetweenAllPlantsAcrossTileBorders) {
    const auto spaced = bake(mixedMap(), vegetationPasses("    spacing: 4\n"));
    const auto dense = bake(mixedMap(), vegetationPasses());
    std::vector<Vec2> points;
    for (const auto& [asset, in] : instancesOf(spaced->scene)) {
        if (isPlant(asset)) points.push_back({in.position.x, -static_cast<double>(in.position.z)});
    }
    ASSERT_GT(points.size(), 500u);
    EXPECT_LT(points.size(), dense->scene.statistics.vegetationInstances / 2);
    // Brute force on a 4 m grid of buckets.
    std::map<std::pair<long, long>, std::vector<Vec2>> buckets;
    for (const Vec2 p : points)
        buckets[{std::lround(std::floor(p.x / 4)), std::lround(std::floor(p.y / 4))}].push_back(p);
    double closest = 1e9;
    bool crossesBorder = false;
    const double border = spaced->scene.frame.cellToGround({68891.0 * 256, 0}).x;
    for (const Vec2 p : points) {
        const long bx = std::lround(std::floor(p.x / 4)), by = std::lround(std::floor(p.y / 4));
        for (long dy = -1; dy <= 1; ++dy) {
            for (long dx = -1; dx <= 1; ++dx) {
                const auto it = buckets.find({bx + dx, by + dy});
                if (it == buckets.end()) continue;
                for (const Vec2 q : it->second) {
                    if (q == p) continue;
                    closest = std::min(closest, length(q - p));
                    if (length(q - p) < 6 && (p.x - border) * (q.x - border) < 0) crossesBorder = true;
                }
            }
        }
    }
    EXPECT_GE(closest, 4.0 - 1e-3);
    EXPECT_TRUE(crossesBorder) << "plants face each other across a tile border";
}

TEST(VegetationPass, TrunkCellsFormThePlacedVegetationLayer) {
    const auto b = bake(mixedMap(), vegetationPasses());
    const LayerSource& layers = b->baker->layers();
    const int trunks = layers.layerId(kPlacedVegetationLayer);
    std::set<std::pair<std::int64_t, std::int64_t>> cells;
    for (const auto& [asset, in] : instancesOf(b->scene)) {
        if (!isPlant(asset)) continue;
        const auto c = cellOf(b->scene, in.position);
        cells.insert({c[0], c[1]});
    }
    std::size_t bits = 0;
    for (const TileId& t : b->scene.tiles) {
        const BitTile* tile = layers.tile(t, trunks);
        if (!tile) continue;
        tile->forEachSetCell([&](int x, int y) {
            ++bits;
            EXPECT_TRUE(cells.contains({std::int64_t{t.x} * 256 + x, std::int64_t{t.y} * 256 + y}));
        });
    }
    EXPECT_EQ(bits, cells.size());
    EXPECT_EQ(cells.size(), b->scene.statistics.vegetationInstances) << "one plant per cell";
}

TEST(VegetationPass, InstancesAreGroupedInBlocksOfNCellsPerSpecies) {
    BakeOptions options;
    options.blockCells = 16;
    const auto b = bake(mixedMap(), vegetationPasses(), options);
    EXPECT_EQ(b->scene.blockCells, 16);
    std::set<std::tuple<std::uint32_t, std::uint32_t, int, int, int>> seen;
    for (const InstanceBlock& block : b->scene.blocks) {
        ASSERT_TRUE(seen.insert({block.tile.y, block.tile.x, block.blockY, block.blockX, block.asset}).second)
            << "one block per tile, block and asset";
        ASSERT_FALSE(block.instances.empty());
        for (const Instance& in : block.instances) {
            const auto [gx, gy] = cellOf(b->scene, in.position);
            if (!isPlant(b->scene.assets.at(static_cast<std::size_t>(block.asset)))) continue;
            EXPECT_EQ(gx / 256, block.tile.x);
            EXPECT_EQ(gy / 256, block.tile.y);
            EXPECT_EQ((gx % 256) / 16, block.blockX);
            EXPECT_EQ((gy % 256) / 16, block.blockY);
            EXPECT_GE(in.position.x, block.bounds.min.x);
            EXPECT_LE(in.position.x, block.bounds.max.x);
            EXPECT_GE(in.position.z, block.bounds.min.z);
            EXPECT_LE(in.position.z, block.bounds.max.z);
        }
    }
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_GT(seen.size(), 50u);
}

TEST(VegetationPass, NoiseScatterPlantsAboutTheRequestedShareInClumps) {
    SyntheticMap m;
    m.area("meadow", {{"landuse", "grass"}}, {{{-250, -250}, {250, -250}, {250, 250}, {-250, 250}}});
    const auto b = bake(m, vegetationPasses("    scatter: noise\n    noise_scale: 20\n"));
    const double achieved = b->scene.statistics.achievedDensity;
    EXPECT_GT(achieved, 0.1);
    EXPECT_LT(achieved, 0.3);
    // Clumps: a planted cell's east neighbour is planted far more often than the 0.2 of
    // independent cells.
    const LayerSource& layers = b->baker->layers();
    const int trunks = layers.layerId(kPlacedVegetationLayer);
    std::size_t planted = 0, pairs = 0;
    for (const TileId& t : b->scene.tiles) {
        const BitTile* tile = layers.tile(t, trunks);
        if (!tile) continue;
        tile->forEachSetCell([&](int x, int y) {
            if (x == 255) return;
            ++planted;
            pairs += tile->test(x + 1, y);
        });
    }
    ASSERT_GT(planted, 1000u);
    EXPECT_GT(static_cast<double>(pairs) / planted, 0.6);
}

}  // namespace
}  // namespace terrabit::test
