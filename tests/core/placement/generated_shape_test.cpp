// What a building's tags and mapped rings say of its shape (placement/generated_shape_p.h): the
// outer ring the generate fallback draws, its courtyards, the heights from the tags, and the
// convex hull a ring that touches itself is drawn on.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "placement/generated_shape_p.h"
#include "terrabit/core/placement/target_box.h"
#include "terrabit/core/scene/generated_building_mesh.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

/// Rings given in ground metres, kept as the tile index keeps them (global cells).
struct Rings {
    GroundFrame frame{{7.42, 43.73}, 17};
    std::vector<Vec2> cells;
    std::vector<std::uint32_t> ends;

    Rings& ring(std::initializer_list<Vec2> ground) {
        for (const Vec2 p : ground) cells.push_back(frame.groundToCell(p));
        ends.push_back(static_cast<std::uint32_t>(cells.size()));
        return *this;
    }
    detail::FootprintRings view() const { return {cells, ends}; }
};

double twiceArea(const std::vector<Vec2>& ring) {
    double twice = 0.0;
    for (std::size_t i = 0; i < ring.size(); ++i) twice += cross(ring[i], ring[(i + 1) % ring.size()]);
    return twice;
}

Feature building(std::vector<Tag> tags) {
    Feature f;
    f.tags = std::move(tags);
    return f;
}

constexpr double kMetres = 1e-6;  // cells and back again
const detail::UntaggedHeights kRule{3.0, 7.0};

TEST(GeneratedShape, TheOutlineIsTheLargestRingCounterClockwiseWithoutRepeatedPoints) {
    Rings r;
    // A yard first, then the outer ring clockwise, with a point repeated and the ring closed.
    r.ring({{4, 4}, {6, 4}, {6, 6}, {4, 6}}).ring({{0, 0}, {0, 20}, {0, 20}, {30, 20}, {30, 0}, {0, 0}});
    std::vector<Vec2> out;
    detail::outerRing(r.view(), r.frame, out);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_GT(twiceArea(out), 0.0) << "counter-clockwise";
    EXPECT_NEAR(std::abs(twiceArea(out)) / 2.0, 600.0, 1e-3);
    for (const Vec2 p : out) {
        EXPECT_TRUE(std::abs(p.x) < kMetres || std::abs(p.x - 30) < kMetres) << p.x;
        EXPECT_TRUE(std::abs(p.y) < kMetres || std::abs(p.y - 20) < kMetres) << p.y;
    }
}

TEST(GeneratedShape, HeightsComeFromTheTagsElseFromTheRule) {
    Rings r;
    r.ring({{0, 0}, {10, 0}, {10, 6}, {0, 6}});
    const Vec2 half{5, 3};
    GeneratedBuilding g;
    // OSM's height is to the top of the roof.
    ASSERT_TRUE(detail::shapeGeneratedBuilding(building({{"height", "12"}, {"roof:height", "3"}}), r.view(), r.frame,
                                               half, kRule, g));
    EXPECT_FLOAT_EQ(g.wallHeight, 9.0f);
    EXPECT_FLOAT_EQ(g.roofHeight, 3.0f);
    EXPECT_EQ(g.roofShape, "flat");
    // Storeys of the rule's height.
    ASSERT_TRUE(detail::shapeGeneratedBuilding(building({{"building:levels", "4"}, {"roof:levels", "1"}}), r.view(),
                                               r.frame, half, kRule, g));
    EXPECT_FLOAT_EQ(g.wallHeight, 12.0f);
    EXPECT_FLOAT_EQ(g.roofHeight, 3.0f);
    // An untagged pitched roof rises about 30° over half the shorter side.
    ASSERT_TRUE(
        detail::shapeGeneratedBuilding(building({{"roof:shape", "gabled"}}), r.view(), r.frame, half, kRule, g));
    EXPECT_EQ(g.roofShape, "gabled");
    EXPECT_NEAR(g.roofHeight, 0.58 * 3.0, 1e-6);
    EXPECT_FLOAT_EQ(g.wallHeight, 7.0f);
    // ...at most two storeys, however wide.
    ASSERT_TRUE(
        detail::shapeGeneratedBuilding(building({{"roof:shape", "hipped"}}), r.view(), r.frame, {50, 40}, kRule, g));
    EXPECT_FLOAT_EQ(g.roofHeight, 6.0f);
    // A height no building has is no tag: the rule's wall height.
    ASSERT_TRUE(detail::shapeGeneratedBuilding(building({{"height", "9000"}, {"building:levels", "-2"}}), r.view(),
                                               r.frame, half, kRule, g));
    EXPECT_FLOAT_EQ(g.wallHeight, 7.0f);
    EXPECT_FLOAT_EQ(g.roofHeight, 0.0f);
}

TEST(GeneratedShape, TaggedHeightIsNaNWithoutACredibleTag) {
    EXPECT_DOUBLE_EQ(detail::taggedHeight(building({{"height", "21 m"}}), 3.0), 21.0);
    EXPECT_DOUBLE_EQ(detail::taggedHeight(building({{"building:levels", "5"}}), 3.0), 15.0);
    EXPECT_TRUE(std::isnan(detail::taggedHeight(building({}), 3.0)));
    EXPECT_TRUE(std::isnan(detail::taggedHeight(building({{"height", "1e39"}}), 3.0)));
    EXPECT_TRUE(std::isnan(detail::taggedHeight(building({{"building:levels", "many"}}), 3.0)));
    EXPECT_DOUBLE_EQ(detail::numberTag(building({{"roof:levels", "2.5"}}), "roof:levels"), 2.5);
    EXPECT_DOUBLE_EQ(detail::numberTag(building({{"roof:levels", "0"}}), "roof:levels"), 0.0);
    EXPECT_DOUBLE_EQ(detail::numberTag(building({{"roof:levels", "2 "}}), "roof:levels"), 0.0);
}

TEST(GeneratedShape, InnerRingsWithinTheOutlineBecomeClockwiseCourtyards) {
    Rings r;
    r.ring({{0, 0}, {40, 0}, {40, 30}, {0, 30}})
        .ring({{10, 10}, {20, 10}, {20, 20}, {10, 20}})   // a yard, counter-clockwise as mapped
        .ring({{35, 10}, {45, 10}, {45, 20}, {35, 20}});  // crosses the outline: roofed over
    GeneratedBuilding g;
    ASSERT_TRUE(detail::shapeGeneratedBuilding(building({}), r.view(), r.frame, {20, 15}, kRule, g));
    ASSERT_EQ(g.courtyards.size(), 1u);
    EXPECT_LT(twiceArea(g.courtyards[0]), 0.0) << "clockwise";
    EXPECT_NEAR(std::abs(twiceArea(g.courtyards[0])) / 2.0, 100.0, 1e-3);
    EXPECT_TRUE(checkGeneratedBuilding(g));
}

TEST(GeneratedShape, ARingThatTouchesItselfIsDrawnOnItsConvexHull) {
    Rings r;
    // Two squares joined at a corner: the node (10, 10) is used twice.
    r.ring({{0, 0}, {10, 0}, {10, 10}, {20, 10}, {20, 20}, {10, 20}, {10, 10}, {0, 10}});
    GeneratedBuilding g;
    ASSERT_TRUE(detail::shapeGeneratedBuilding(building({}), r.view(), r.frame, {10, 10}, kRule, g));
    std::vector<Vec2> ring, hull;
    detail::outerRing(r.view(), r.frame, ring);
    convexHull(ring, hull);
    EXPECT_EQ(g.outline.size(), hull.size());
    EXPECT_NEAR(std::abs(twiceArea(g.outline)), std::abs(twiceArea(hull)), 1e-6);
    EXPECT_GT(std::abs(twiceArea(g.outline)) / 2.0, 200.0 + 1.0) << "the hull, larger than the two squares";
    EXPECT_TRUE(g.courtyards.empty());
    EXPECT_TRUE(checkGeneratedBuilding(g));
}

TEST(GeneratedShape, RingsThatMakeNoBuildingAreRefused) {
    Rings r;
    r.ring({{0, 0}, {10, 0}, {0, 0}});  // two points once the repeats go
    GeneratedBuilding g;
    EXPECT_FALSE(detail::shapeGeneratedBuilding(building({}), r.view(), r.frame, {5, 5}, kRule, g));
    Rings none;
    EXPECT_FALSE(detail::shapeGeneratedBuilding(building({}), none.view(), none.frame, {5, 5}, kRule, g));
}

}  // namespace
}  // namespace terrabit::test
