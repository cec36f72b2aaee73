// The building pass on synthetic worst cases: no two placed footprints overlap (checked on the
// exact placed rectangles, not on bits), tightest fits including the 90° case, rotated
// footprints, tile borders, blocked and unmatched outcomes, filters and heights.

#include <gtest/gtest.h>

#include <numbers>
#include <random>

#include "placement_test_support.h"
#include "terrabit/core/export/glb_scene_writer.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

const BuildingRecord* recordOf(const Scene& scene, std::string_view id) {
    for (const BuildingRecord& b : scene.buildings) {
        if (scene.sources.at(b.source) == id) return &b;
    }
    return nullptr;
}

std::string assetOf(const Scene& scene, const BuildingRecord& b) {
    return b.asset < 0 ? std::string() : scene.assets.at(static_cast<std::size_t>(b.asset));
}

/// yaw folded into [0, pi/2): the footprint rectangle's orientation modulo quarter turns.
double quarterTurn(double yaw) {
    const double q = std::numbers::pi / 2;
    return yaw - q * std::floor(yaw / q);
}

/// Worst cases in one map: touching, overlapping, tiny, huge, rotated 37°, across a tile
/// border, inside water, duplicates, and a dense random cluster.
SyntheticMap worstCases() {
    SyntheticMap m;
    m.rectangle("touch_a", kHouse, {-40, 40}, 10.8, 10.8);
    m.rectangle("touch_b", kHouse, {-29.2, 40}, 10.8, 10.8);
    m.rectangle("overlap_a", kHouse, {-60, -40}, 11, 11);
    m.rectangle("overlap_b", kHouse, {-54, -40}, 11, 11);
    m.rectangle("tiny", kHouse, {0, -60}, 2, 2);
    m.rectangle("huge", kHouse, {60, -60}, 60, 40);
    m.rectangle("rotated", kHouse, {30, 30}, 12, 22, 37.0 * std::numbers::pi / 180.0);
    // The middle tile's east border lies about 110 m east of the origin (the scene's centre).
    const double border = m.frame().cellToGround({68892.0 * 256, 0}).x;
    m.rectangle("border", kHouse, {border - 2, 0}, 20, 12);
    m.area("pond", {{"natural", "water"}}, {{{-100, 60}, {-70, 60}, {-70, 90}, {-100, 90}}});
    m.rectangle("in_water", kHouse, {-85, 75}, 11, 11);
    m.rectangle("dup_a", kHouse, {80, 60}, 10.6, 10.6);
    m.rectangle("dup_b", kHouse, {80, 60}, 10.6, 10.6);
    std::mt19937 rng(99);
    std::uniform_real_distribution<double> pos(-40, 40), size(3, 30), turn(0, std::numbers::pi);
    for (int i = 0; i < 150; ++i) {
        m.rectangle("cluster_" + std::to_string(i), kHouse, Vec2{-200, -200} + Vec2{pos(rng), pos(rng)}, size(rng),
                    size(rng), turn(rng));
    }
    return m;
}

TEST(BuildingPass, NoTwoPlacedFootprintsOverlapInTheWorstCases) {
    const auto input = worstCases().build(syntheticRules(defaultSyntheticPasses()));
    const AssetCatalogue catalogue = testCatalogue();
    const Scene scene = bakeOnce(*input, catalogue, parsePasses(*input, syntheticRules(defaultSyntheticPasses())));
    EXPECT_EQ(overlappingBuildings(scene, catalogue), std::vector<std::string>{});
    EXPECT_GT(scene.statistics.buildingsPlaced, 20u);
    EXPECT_GT(scene.statistics.buildingsBlocked, 10u) << "the cluster overlaps itself";
    // Each footprint has exactly one record.
    EXPECT_EQ(scene.buildings.size(), 11u + 150u);
    EXPECT_EQ(scene.statistics.buildingsPlaced + scene.statistics.buildingsBlocked +
                  scene.statistics.buildingsUnmatched + scene.statistics.buildingsGenerated,
              scene.buildings.size());
}

TEST(BuildingPass, TouchingFootprintsBothGetModels) {
    const auto input = worstCases().build(syntheticRules(defaultSyntheticPasses()));
    const Scene scene =
        bakeOnce(*input, testCatalogue(), parsePasses(*input, syntheticRules(defaultSyntheticPasses())));
    ASSERT_NE(recordOf(scene, "touch_a"), nullptr);
    EXPECT_EQ(recordOf(scene, "touch_a")->outcome, BuildingOutcome::Placed);
    EXPECT_EQ(recordOf(scene, "touch_b")->outcome, BuildingOutcome::Placed) << "the margin keeps neighbours apart";
}

TEST(BuildingPass, OutcomesAreReportedForTinyBlockedAndDuplicateFootprints) {
    const auto input = worstCases().build(syntheticRules(defaultSyntheticPasses()));
    const Scene scene =
        bakeOnce(*input, testCatalogue(), parsePasses(*input, syntheticRules(defaultSyntheticPasses())));
    ASSERT_NE(recordOf(scene, "tiny"), nullptr);
    EXPECT_EQ(recordOf(scene, "tiny")->outcome, BuildingOutcome::Generated) << "no model fits: the fallback";
    EXPECT_EQ(recordOf(scene, "tiny")->asset, -1);
    EXPECT_EQ(recordOf(scene, "in_water")->outcome, BuildingOutcome::Blocked) << "blocked_by: water";
    const BuildingOutcome a = recordOf(scene, "dup_a")->outcome, b = recordOf(scene, "dup_b")->outcome;
    EXPECT_EQ(a, BuildingOutcome::Placed) << "equal boxes go by feature id";
    EXPECT_EQ(b, BuildingOutcome::Blocked);
    EXPECT_EQ(recordOf(scene, "huge")->outcome, BuildingOutcome::Placed);
}

TEST(BuildingPass, RotatedFootprintGetsARotatedModel) {
    const auto input = worstCases().build(syntheticRules(defaultSyntheticPasses()));
    const Scene scene =
        bakeOnce(*input, testCatalogue(), parsePasses(*input, syntheticRules(defaultSyntheticPasses())));
    const BuildingRecord* r = recordOf(scene, "rotated");
    ASSERT_NE(r, nullptr);
    ASSERT_EQ(r->outcome, BuildingOutcome::Placed);
    EXPECT_NEAR(quarterTurn(r->target.angle), 37.0 * std::numbers::pi / 180.0, 1e-6);
    EXPECT_NEAR(quarterTurn(r->placement.yaw), 37.0 * std::numbers::pi / 180.0, 1e-6);
    EXPECT_NEAR(2 * std::min(r->target.halfExtents.x, r->target.halfExtents.y), 12.0, 1e-6);
    EXPECT_NEAR(2 * std::max(r->target.halfExtents.x, r->target.halfExtents.y), 22.0, 1e-6);
    // The model lies inside its target box.
    const AssetCatalogue catalogue = testCatalogue();
    const auto corners = placedFootprint(r->placement, *catalogue.find(assetOf(scene, *r)));
    const Vec2 u{std::cos(r->target.angle), std::sin(r->target.angle)}, v{-u.y, u.x};
    for (const Vec2 c : corners) {
        EXPECT_LE(std::abs(dot(c - r->target.centre, u)), r->target.halfExtents.x - 0.4 + 1e-6);
        EXPECT_LE(std::abs(dot(c - r->target.centre, v)), r->target.halfExtents.y - 0.4 + 1e-6);
    }
}

TEST(BuildingPass, BuildingAcrossATileBorderIsPlacedOnceByTheTileHoldingItsCentre) {
    const auto input = worstCases().build(syntheticRules(defaultSyntheticPasses()));
    const AssetCatalogue catalogue = testCatalogue();
    SceneBaker baker(input->index, input->store, catalogue);
    ASSERT_TRUE(baker.setRules(parsePasses(*input, syntheticRules(defaultSyntheticPasses()))).ok());
    auto scene = baker.bake();
    ASSERT_TRUE(scene.ok()) << scene.message();
    const BuildingRecord* r = recordOf(*scene, "border");
    ASSERT_NE(r, nullptr);
    ASSERT_EQ(r->outcome, BuildingOutcome::Placed);
    EXPECT_EQ(r->tile, (TileId{17, 68891, 47861}));
    int copies = 0;
    for (const BuildingRecord& b : scene->buildings) copies += scene->sources.at(b.source) == "border";
    EXPECT_EQ(copies, 1);
    // Its occupancy reaches into the east tile.
    const int placed = baker.layers().placedBuildingsLayer();
    const BitTile* east = baker.layers().tile(TileId{17, 68892, 47861}, placed);
    ASSERT_NE(east, nullptr);
    EXPECT_TRUE(east->any());
    const auto corners = placedFootprint(r->placement, *catalogue.find(assetOf(*scene, *r)));
    for (const Vec2 c : corners) {
        const Vec2 cell = scene->frame.groundToCell(c);
        // Every corner's cell is marked (the footprint is conservative).
        const auto gx = static_cast<std::int64_t>(std::floor(cell.x)),
                   gy = static_cast<std::int64_t>(std::floor(cell.y));
        EXPECT_TRUE(layerAt(baker.layers(), placed, 17, gx, gy)) << c.x << "," << c.y;
    }
    // And its instance is in the owning tile's block.
    bool found = false;
    for (const InstanceBlock& b : scene->blocks) {
        for (const Instance& in : b.instances) {
            if (in.source == r->source) {
                found = true;
                EXPECT_EQ(b.tile, r->tile);
                EXPECT_EQ(in, r->placement);
            }
        }
    }
    EXPECT_TRUE(found);
}

const char* kExactPasses = R"(
passes:
  - name: buildings
    type: buildings
    margin: 0.4
    scale: 1
    variety: 0
    filters:
      - when: {historic: "*"}
        any_tags: [ancient]
      - none_tags: [ancient]
)";

TEST(BuildingPass, TightestFittingModelIsChosenIncludingTheNinetyDegreeCase) {
    SyntheticMap m;
    m.rectangle("square", kHouse, {-50, 0}, 10.9, 10.9);
    m.rectangle("narrow", kHouse, {0, 0}, 8.9, 20.9);  // 8.9 m east-west, 20.9 m north-south
    m.rectangle("wide", kHouse, {50, 0}, 20.9, 8.9);
    m.rectangle("house", kHouse, {0, 50}, 9.0, 9.0);
    const auto input = m.build(syntheticRules(kExactPasses));
    const Scene scene = bakeOnce(*input, testCatalogue(), parsePasses(*input, syntheticRules(kExactPasses)));
    EXPECT_EQ(assetOf(scene, *recordOf(scene, "square")), "box_10x10");
    EXPECT_EQ(assetOf(scene, *recordOf(scene, "house")), "house_8x8");
    const BuildingRecord* narrow = recordOf(scene, "narrow");
    ASSERT_EQ(assetOf(scene, *narrow), "box_20x8");
    const BuildingRecord* wide = recordOf(scene, "wide");
    ASSERT_EQ(assetOf(scene, *wide), "box_20x8");
    // The model's 20 m width runs north-south in the narrow box: a quarter turn from the wide one.
    EXPECT_NEAR(std::abs(std::sin(narrow->placement.yaw)), 1.0, 1e-6);
    EXPECT_NEAR(std::abs(std::cos(wide->placement.yaw)), 1.0, 1e-6);
    const AssetCatalogue catalogue = testCatalogue();
    const auto fp = placedFootprint(narrow->placement, *catalogue.find("box_20x8"));
    Box2 b;
    for (const Vec2 c : fp) b.extend(c);
    EXPECT_NEAR(b.width(), 8.0, 1e-5);
    EXPECT_NEAR(b.height(), 20.0, 1e-5);
}

TEST(BuildingPass, HistoricBuildingsTakeAncientModelsAndOthersNever) {
    SyntheticMap m;
    m.rectangle("old", {{"building", "yes"}, {"historic", "monument"}}, {0, 0}, 9.5, 9.5);
    m.rectangle("new", kHouse, {40, 0}, 9.5, 9.5);
    const auto input = m.build(syntheticRules(kExactPasses));
    const Scene scene = bakeOnce(*input, testCatalogue(), parsePasses(*input, syntheticRules(kExactPasses)));
    EXPECT_EQ(assetOf(scene, *recordOf(scene, "old")), "temple_8x8");
    EXPECT_EQ(assetOf(scene, *recordOf(scene, "new")), "house_8x8");
}

TEST(BuildingPass, HeightComesFromTagsOrFromTheModel) {
    SyntheticMap m;
    m.rectangle("tall", {{"building", "yes"}, {"height", "30"}}, {0, 0}, 10.9, 10.9);
    m.rectangle("levels", {{"building", "yes"}, {"building:levels", "4"}}, {40, 0}, 10.9, 10.9);
    m.rectangle("plain", kHouse, {80, 0}, 10.9, 10.9);
    // Heights beyond any building's are mapping mistakes: the model's own height.
    m.rectangle("typo", {{"building", "yes"}, {"height", "1e39"}}, {0, 40}, 10.9, 10.9);
    m.rectangle("storeys", {{"building", "yes"}, {"building:levels", "100000"}}, {40, 40}, 10.9, 10.9);
    const auto input = m.build(syntheticRules(kExactPasses));
    const Scene tags = bakeOnce(*input, testCatalogue(), parsePasses(*input, syntheticRules(kExactPasses)));
    EXPECT_NEAR(recordOf(tags, "tall")->placement.scale.y, 30.0 / 9.0, 1e-6);
    EXPECT_NEAR(recordOf(tags, "levels")->placement.scale.y, 12.0 / 9.0, 1e-6);
    EXPECT_NEAR(recordOf(tags, "plain")->placement.scale.y, 1.0, 1e-6);
    for (const char* id : {"typo", "storeys"}) {
        ASSERT_EQ(recordOf(tags, id)->outcome, BuildingOutcome::Placed) << id;
        EXPECT_NEAR(recordOf(tags, id)->placement.scale.y, 1.0, 1e-6) << id;
    }
    EXPECT_TRUE(checkSceneForExport(tags).ok()) << checkSceneForExport(tags).message();
    std::string modelHeights = kExactPasses;
    modelHeights += "    height: model\n";
    const Scene model = bakeOnce(*input, testCatalogue(), parsePasses(*input, syntheticRules(modelHeights)));
    EXPECT_NEAR(recordOf(model, "tall")->placement.scale.y, 1.0, 1e-6);
}

TEST(BuildingPass, AFitReachingBeyondTheNeighbourTilesIsNotPlacedAndIsReported) {
    SyntheticMap m(3, 3);
    m.rectangle("giant", kHouse, {0, 0}, 750, 750);
    const std::string passes =
        "passes:\n  - {name: buildings, type: buildings, scale: 60, margin: 0, fallback: none, "
        "filters: [{any_tags: [tower]}]}\n";
    const auto input = m.build(syntheticRules(passes));
    const AssetCatalogue catalogue = testCatalogue();
    SceneBaker baker(input->index, input->store, catalogue);
    ASSERT_TRUE(baker.setRules(parsePasses(*input, syntheticRules(passes))).ok());
    auto scene = baker.bake();
    ASSERT_TRUE(scene.ok()) << scene.message();
    // The tower, 720 m wide at scale 60, would reach past the tiles around the middle one (±330 m).
    EXPECT_EQ(recordOf(*scene, "giant")->outcome, BuildingOutcome::NoModelFits);
    ASSERT_EQ(baker.report().warnings.size(), 1u);
    EXPECT_NE(baker.report().warnings[0].find("building giant"), std::string::npos) << baker.report().warnings[0];
}

TEST(BuildingPass, AxisAlignedTargetsIgnoreTheFootprintsTurn) {
    SyntheticMap m;
    m.rectangle("turned", kHouse, {0, 0}, 10, 10, std::numbers::pi / 4);
    std::string passes = kExactPasses;
    passes += "    box: axis_aligned\n";
    const auto input = m.build(syntheticRules(passes));
    const Scene scene = bakeOnce(*input, testCatalogue(), parsePasses(*input, syntheticRules(passes)));
    const BuildingRecord* r = recordOf(scene, "turned");
    EXPECT_EQ(r->target.angle, 0.0);
    EXPECT_NEAR(r->target.halfExtents.x, 5 * std::sqrt(2.0), 1e-6);
    EXPECT_NEAR(quarterTurn(r->placement.yaw), 0.0, 1e-6);
}

}  // namespace
}  // namespace terrabit::test
