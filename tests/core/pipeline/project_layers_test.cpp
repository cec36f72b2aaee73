// What the pipeline answers about a project's layers and a selection, on the Monaco sample:
// stacked derived layers equal composing their expressions directly, bad project layers are
// refused with their name, and the per-tile tallies and coverage agree with counting by hand.

#include <gtest/gtest.h>

#include <filesystem>

#include "pipeline_test_support.h"
#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/pipeline/layer_stack.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/pipeline/tile_tally.h"

namespace terrabit::core::pipeline {
namespace {

std::shared_ptr<Session> monaco() {
    static const std::shared_ptr<Session> session = [] {
        auto s = Session::open(core::test::monacoInput());
        EXPECT_TRUE(s.ok()) << s.message();
        return s.ok() ? std::shared_ptr<Session>(std::move(*s)) : nullptr;
    }();
    return session;
}

std::shared_ptr<const LayerStore> storeOf(const std::shared_ptr<Session>& s) { return {s, &s->map().store}; }

TEST(ProjectLayers, StackedLayersAreTheirExpressionsComposedInOrder) {
    auto session = monaco();
    ASSERT_TRUE(session);
    const std::vector<project::DerivedLayer> derived{{"green_roads", "vegetation & dilate(road, 2m)", "#00ff00"},
                                                     {"not_green_roads", "~green_roads & road", "#ff0000"}};
    std::vector<Error> problems;
    const LayerStack stack =
        stackProjectLayers(storeOf(session), session->rules().expressions(), derived, 9, &problems);
    EXPECT_TRUE(problems.empty()) << problems.front().message;
    const std::size_t base = session->map().store.layerNames().size();
    ASSERT_EQ(stack.layerNames().size(), base + session->rules().expressions().size() + 2);
    EXPECT_EQ(stack.layerNames().back(), "not_green_roads");

    // The reference: each expression composed on the stack as it stood before it.
    algebra::ComposeOptions options;
    options.seed = 9;
    const std::vector<TileId>& tiles = session->map().store.tiles();
    auto green = algebra::compose(stack, tiles, "vegetation & dilate(road, 2m)", options);
    auto rest = algebra::compose(stack, tiles, "~green_roads & road", options);
    ASSERT_TRUE(green.ok() && rest.ok());
    const int g = stack.layerId("green_roads"), r = stack.layerId("not_green_roads");
    std::size_t set = 0;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const BitTile* a = stack.tile(tiles[i], g);
        const BitTile* b = stack.tile(tiles[i], r);
        EXPECT_EQ(a ? *a : BitTile{}, green->masks[i]) << tiles[i].quadkey();
        EXPECT_EQ(b ? *b : BitTile{}, rest->masks[i]) << tiles[i].quadkey();
        set += green->masks[i].count();
    }
    EXPECT_GT(set, 0u) << "Monaco has parks beside its roads";
}

TEST(ProjectLayers, BadLayersAreRefusedByName) {
    auto session = monaco();
    ASSERT_TRUE(session);
    const auto& named = session->rules().expressions();
    ASSERT_FALSE(named.empty()) << "the default rules name expressions";
    const auto check = [&](project::DerivedLayer layer) {
        return checkProjectLayers(storeOf(session), named, std::vector<project::DerivedLayer>{layer}, 1);
    };
    EXPECT_TRUE(check({"fine", "building | road", "#000000"}).ok());
    const Status base = check({"road", "building", "#000000"});
    ASSERT_FALSE(base.ok());
    EXPECT_EQ(base.error().kind, ErrorKind::BadArguments);
    EXPECT_NE(base.message().find("'road' is a layer of the map"), std::string::npos) << base.message();
    const Status rules = check({named.front().name, "building", "#000000"});
    ASSERT_FALSE(rules.ok());
    EXPECT_NE(rules.message().find("named expression of the rules"), std::string::npos) << rules.message();
    const Status digitFirst = check({"9roads", "road", "#000000"});
    ASSERT_FALSE(digitFirst.ok());
    EXPECT_NE(digitFirst.message().find("not a layer name"), std::string::npos) << digitFirst.message();
    const Status typo = check({"typo", "buildng | road", "#000000"});
    ASSERT_FALSE(typo.ok());
    EXPECT_EQ(typo.message().rfind("typo: ", 0), 0u) << typo.message();

    // Stacking skips the bad one, says which, and keeps the rest.
    std::vector<Error> problems;
    const std::vector<project::DerivedLayer> mixed{{"typo", "buildng", "#000000"}, {"ok", "road", "#000000"}};
    const LayerStack stack = stackProjectLayers(storeOf(session), named, mixed, 1, &problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("layer typo"), std::string::npos) << problems[0].message;
    EXPECT_EQ(stack.layerId("typo"), -1);
    EXPECT_GE(stack.layerId("ok"), 0);
}

TEST(TileTally, CountsWhatABakePlacedPerTileAsCountingByHandDoes) {
    auto session = monaco();
    ASSERT_TRUE(session);
    placement::BakeOptions options;
    options.seed = 4;
    auto scene = session->bake(options);
    ASSERT_TRUE(scene.ok()) << scene.message();
    std::vector<TileId> tiles(scene->tiles.rbegin(), scene->tiles.rend());  // any order
    tiles.push_back(TileId{17, 0, 0});                                      // a tile the scene does not hold
    const std::vector<TileTally> tallies = tallyTiles(*scene, session->catalogue(), tiles);
    ASSERT_EQ(tallies.size(), tiles.size());
    int placed = 0, plants = 0;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const TileTally& t = tallies[i];
        EXPECT_EQ(t.tile, tiles[i]);
        TileTally byHand;
        for (const BuildingRecord& b : scene->buildings) {
            if (b.tile != tiles[i]) continue;
            byHand.buildingsPlaced += b.outcome == BuildingOutcome::Placed;
            byHand.buildingsBlocked += b.outcome == BuildingOutcome::Blocked;
            byHand.buildingsUnmatched += b.outcome == BuildingOutcome::NoModelFits;
        }
        for (const InstanceBlock& block : scene->blocks) {
            if (block.tile != tiles[i]) continue;
            const AssetInfo* a = session->catalogue().find(scene->assets.at(static_cast<std::size_t>(block.asset)));
            ASSERT_NE(a, nullptr);
            if (a->category == "building") continue;
            byHand.vegetation += static_cast<int>(block.instances.size());
            if (a->category == "tree") byHand.trees += static_cast<int>(block.instances.size());
        }
        EXPECT_EQ(t.buildingsPlaced, byHand.buildingsPlaced) << tiles[i].quadkey();
        EXPECT_EQ(t.buildingsBlocked, byHand.buildingsBlocked) << tiles[i].quadkey();
        EXPECT_EQ(t.buildingsUnmatched, byHand.buildingsUnmatched) << tiles[i].quadkey();
        EXPECT_EQ(t.vegetation, byHand.vegetation) << tiles[i].quadkey();
        EXPECT_EQ(t.trees, byHand.trees) << tiles[i].quadkey();
        placed += t.buildingsPlaced;
        plants += t.vegetation;
    }
    EXPECT_EQ(tallies.back().buildingsPlaced + tallies.back().vegetation, 0);
    EXPECT_EQ(static_cast<std::size_t>(placed), scene->statistics.buildingsPlaced);
    EXPECT_EQ(static_cast<std::size_t>(plants), scene->statistics.vegetationInstances);

    // Coverage per layer: the set cells summed over the tiles.
    const auto coverage = coverageByLayer(session->map().store, scene->tiles);
    const int building = session->map().store.layerId("building");
    std::size_t cells = 0;
    for (const TileId& t : scene->tiles) {
        if (const BitTile* b = session->map().store.tile(t, building)) cells += b->count();
    }
    EXPECT_EQ(coverage.at(static_cast<std::size_t>(building)).cells, static_cast<std::int64_t>(cells));
    EXPECT_GT(cells, 0u);
}

}  // namespace
}  // namespace terrabit::core::pipeline
