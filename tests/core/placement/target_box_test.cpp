// Convex hulls and target boxes: the rotating calipers against a brute-force search over every
// hull edge, and boxes of known rectangles.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "terrabit/core/placement/target_box.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

/// The slow, obviously correct minimum area over every hull edge direction: project all points.
double bruteForceMinimumArea(const std::vector<Vec2>& points, const std::vector<Vec2>& hull) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < hull.size(); ++i) {
        const Vec2 e = hull[(i + 1) % hull.size()] - hull[i];
        const Vec2 u = e * (1.0 / length(e));
        const Vec2 v{-u.y, u.x};
        double u0 = 1e300, u1 = -1e300, v0 = 1e300, v1 = -1e300;
        for (const Vec2 p : points) {
            u0 = std::min(u0, dot(p, u)), u1 = std::max(u1, dot(p, u));
            v0 = std::min(v0, dot(p, v)), v1 = std::max(v1, dot(p, v));
        }
        best = std::min(best, (u1 - u0) * (v1 - v0));
    }
    return best;
}

bool boxContains(const OrientedBox& box, Vec2 p, double eps) {
    const Vec2 u{std::cos(box.angle), std::sin(box.angle)};
    const Vec2 v{-u.y, u.x};
    const Vec2 d = p - box.centre;
    return std::abs(dot(d, u)) <= box.halfExtents.x + eps && std::abs(dot(d, v)) <= box.halfExtents.y + eps;
}

TEST(ConvexHull, SquareWithInteriorAndEdgePointsKeepsOnlyItsCorners) {
    std::vector<Vec2> hull;
    convexHull(std::vector<Vec2>{{0, 0}, {2, 0}, {1, 0}, {2, 2}, {0, 2}, {1, 1}, {0, 1}, {2, 2}}, hull);
    ASSERT_EQ(hull.size(), 4u);
    EXPECT_EQ(hull[0], (Vec2{0, 0}));
    EXPECT_EQ(hull[1], (Vec2{2, 0}));
    EXPECT_EQ(hull[2], (Vec2{2, 2}));
    EXPECT_EQ(hull[3], (Vec2{0, 2}));
}

TEST(ConvexHull, DegenerateInputGivesItsExtremePoints) {
    std::vector<Vec2> hull;
    convexHull(std::vector<Vec2>{}, hull);
    EXPECT_TRUE(hull.empty());
    convexHull(std::vector<Vec2>{{3, 4}, {3, 4}}, hull);
    EXPECT_EQ(hull, (std::vector<Vec2>{{3, 4}}));
    convexHull(std::vector<Vec2>{{0, 0}, {1, 1}, {3, 3}, {2, 2}}, hull);
    EXPECT_EQ(hull, (std::vector<Vec2>{{0, 0}, {3, 3}}));
    convexHull(std::vector<Vec2>{{0, 0}, {NAN, 1}, {1, 0}, {0, 1}}, hull);
    EXPECT_EQ(hull.size(), 3u);
}

TEST(MinimumAreaBox, RectangleTurned37DegreesIsFoundExactly) {
    const double a = 37.0 * std::numbers::pi / 180.0;
    const Vec2 u{std::cos(a), std::sin(a)}, v{-u.y, u.x}, c{100, -50};
    std::vector<Vec2> pts;
    for (const auto& [su, sv] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}})
        pts.push_back(c + u * (9.0 * su) + v * (4.0 * sv));
    pts.push_back(c + u * 3.0);  // an interior point changes nothing
    std::vector<Vec2> hull;
    convexHull(pts, hull);
    const OrientedBox box = minimumAreaBox(hull);
    EXPECT_NEAR(box.angle, a, 1e-9);
    EXPECT_NEAR(box.halfExtents.x, 9.0, 1e-9);
    EXPECT_NEAR(box.halfExtents.y, 4.0, 1e-9);
    EXPECT_NEAR(box.centre.x, c.x, 1e-9);
    EXPECT_NEAR(box.centre.y, c.y, 1e-9);
}

TEST(MinimumAreaBox, AngleIsNormalisedToTheAxisNearestEast) {
    // A rectangle turned 100 degrees is the same as one turned 10 degrees with sides swapped.
    const double a = 100.0 * std::numbers::pi / 180.0;
    const Vec2 u{std::cos(a), std::sin(a)}, v{-u.y, u.x};
    std::vector<Vec2> pts{u * -6.0 + v * -2.0, u * 6.0 + v * -2.0, u * 6.0 + v * 2.0, u * -6.0 + v * 2.0};
    std::vector<Vec2> hull;
    convexHull(pts, hull);
    const OrientedBox box = minimumAreaBox(hull);
    EXPECT_NEAR(box.angle, 10.0 * std::numbers::pi / 180.0, 1e-9);
    EXPECT_NEAR(box.halfExtents.x, 2.0, 1e-9);
    EXPECT_NEAR(box.halfExtents.y, 6.0, 1e-9);
}

TEST(MinimumAreaBox, CalipersMatchBruteForceOnRandomFootprints) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<Vec2> hull;
    for (int trial = 0; trial < 2000; ++trial) {
        const int n = 3 + static_cast<int>(unit(rng) * 40);
        const double sx = 1 + unit(rng) * 60, sy = 1 + unit(rng) * 60, turn = unit(rng) * 7;
        std::vector<Vec2> pts;
        for (int i = 0; i < n; ++i) {
            const Vec2 p{(unit(rng) - 0.5) * sx, (unit(rng) - 0.5) * sy};
            pts.push_back(
                {p.x * std::cos(turn) - p.y * std::sin(turn) + 1e4, p.x * std::sin(turn) + p.y * std::cos(turn)});
        }
        convexHull(pts, hull);
        if (hull.size() < 3) continue;
        const OrientedBox box = minimumAreaBox(hull);
        const double expected = bruteForceMinimumArea(pts, hull);
        ASSERT_NEAR(boxArea(box), expected, 1e-7 * expected) << "trial " << trial;
        ASSERT_GT(box.angle, -std::numbers::pi / 4 - 1e-12);
        ASSERT_LE(box.angle, std::numbers::pi / 4 + 1e-12);
        for (const Vec2 p : pts) ASSERT_TRUE(boxContains(box, p, 1e-6)) << "trial " << trial;
    }
}

TEST(MinimumAreaBox, DegenerateHullsGiveZeroBoxes) {
    EXPECT_EQ(boxArea(minimumAreaBox({})), 0.0);
    const std::vector<Vec2> one{{5, 6}};
    EXPECT_EQ(minimumAreaBox(one).centre, (Vec2{5, 6}));
    const std::vector<Vec2> two{{0, 0}, {4, 0}};
    const OrientedBox seg = minimumAreaBox(two);
    EXPECT_NEAR(seg.halfExtents.x, 2.0, 1e-12);
    EXPECT_EQ(seg.halfExtents.y, 0.0);
}

TEST(AxisAlignedBox, SpansThePointsWithAngleZero) {
    const std::vector<Vec2> pts{{1, 2}, {5, -1}, {3, 7}};
    const OrientedBox box = axisAlignedBox(pts);
    EXPECT_EQ(box.angle, 0.0);
    EXPECT_EQ(box.centre, (Vec2{3, 3}));
    EXPECT_EQ(box.halfExtents, (Vec2{2, 4}));
    const auto corners = boxCorners(box);
    EXPECT_EQ(corners[0], (Vec2{1, -1}));
    EXPECT_EQ(corners[2], (Vec2{5, 7}));
}

}  // namespace
}  // namespace terrabit::test
