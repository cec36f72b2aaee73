// Collision probes see the scene as built: the placed buildings' and plants' occupancy layers
// (PlacementLayers) go into a CollisionGrid like any other layer (issue 6).

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "placement_test_support.h"
#include "terrabit/core/collision/collision_query.h"
#include "terrabit/core/placement/scene_baker.h"

using namespace terrabit::core;
using namespace terrabit::test;

TEST(PlacedSceneProbe, ProbesHitPlacedBuildingsAndTrunksOfTheBakedMonacoScene) {
    // The one default bake of Monaco (the default rules, options and catalogue), which the other
    // tests of placement.MonacoDefaultBake read in the same process.
    const MonacoDefaultBake& bake = monacoDefaultBake();
    ASSERT_TRUE(bake.ok);
    const Scene& scene = bake.scene;
    const placement::SceneBaker& baker = *bake.baker;

    const std::array<std::string, 2> names{"placed_buildings", "placed_vegetation"};
    auto grid = CollisionGrid::build(baker.layers(), scene.tiles, names);
    ASSERT_TRUE(grid.ok()) << grid.message();
    CollisionQuery query(*grid);

    int buildings = 0;
    for (const BuildingRecord& b : scene.buildings) {
        if (b.outcome != BuildingOutcome::Placed) continue;
        // The middle of a placed model's (first) outline rectangle is always inside its own
        // footprint's occupancy (a courtyard block's middle is its open courtyard).
        const AssetInfo* a = shippedCatalogue().find(scene.assets.at(static_cast<std::size_t>(b.asset)));
        ASSERT_NE(a, nullptr);
        const auto quad = placedOutline(b.placement, *a).front();
        const Vec2 middle = (quad[0] + quad[2]) * 0.5;
        const auto [gx, gy] = cellOf(scene, {static_cast<float>(middle.x), 0.0f, static_cast<float>(-middle.y)});
        ASSERT_TRUE(query.pointHits({gx + 0.5, gy + 0.5}, 0)) << "building at cell " << gx << "," << gy;
        ++buildings;
    }
    EXPECT_GT(buildings, 100);

    int plants = 0;
    for (const InstanceBlock& block : scene.blocks) {
        const std::string& asset = scene.assets[static_cast<std::size_t>(block.asset)];
        const AssetInfo* info = shippedCatalogue().find(asset);
        ASSERT_NE(info, nullptr) << asset;
        if (info->category == "building") continue;
        for (const Instance& i : block.instances) {
            const auto [gx, gy] = cellOf(scene, i.position);
            ASSERT_TRUE(query.pointHits({gx + 0.5, gy + 0.5}, 1)) << asset << " at cell " << gx << "," << gy;
            ++plants;
        }
    }
    EXPECT_GT(plants, 100);
}
