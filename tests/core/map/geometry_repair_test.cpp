#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "map/geometry_repair_p.h"
#include "terrabit/core/map/geometry_repair.h"
#include "terrabit/core/tile/tile_id.h"

using namespace terrabit::core;

namespace {

Feature area(std::vector<Vec2> points, std::vector<std::uint32_t> ends) {
    Feature f;
    f.id = "w1";
    f.kind = FeatureKind::Area;
    f.points = std::move(points);
    f.partEnds = std::move(ends);
    return f;
}

/// The slow, obviously correct reference: every pair of non-adjacent edges.
bool bruteForceCrosses(const Feature& f) {
    struct E {
        Vec2 a, b;
    };
    std::vector<E> edges;
    std::uint32_t begin = 0;
    for (std::uint32_t end : f.partEnds) {
        for (std::uint32_t i = begin; i < end; ++i)
            edges.push_back({f.points[i], f.points[i + 1 < end ? i + 1 : begin]});
        begin = end;
    }
    for (std::size_t i = 0; i < edges.size(); ++i) {
        for (std::size_t j = i + 1; j < edges.size(); ++j) {
            if (segmentsCross(edges[i].a, edges[i].b, edges[j].a, edges[j].b)) return true;
        }
    }
    return false;
}

}  // namespace

TEST(GeometryRepair, CleanSquareIsUntouchedButForItsClosingPoint) {
    Feature f = area({{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}, {5});
    GeometryRepairScratch scratch;
    const GeometryRepair r = repairGeometry(f, scratch);
    EXPECT_TRUE(r.clean());
    EXPECT_EQ(f.points.size(), 4u);  // the feature model closes rings implicitly
    EXPECT_EQ(f.partEnds, (std::vector<std::uint32_t>{4}));
    EXPECT_EQ(f.bounds.max, (Vec2{10, 10}));
}

TEST(GeometryRepair, UnclosedRingIsReportedAndKept) {
    Feature f = area({{0, 0}, {10, 0}, {10, 10}, {0, 10}}, {4});
    GeometryRepairScratch scratch;
    const GeometryRepair r = repairGeometry(f, scratch);
    EXPECT_EQ(r.unclosedRings, 1);
    EXPECT_TRUE(r.usable);
    EXPECT_EQ(f.points.size(), 4u);
    EXPECT_NE(r.describe().find("not closed"), std::string::npos);
}

TEST(GeometryRepair, DegenerateRingsAreDroppedAndTheRestKept) {
    // A two-point ring (as cut extracts produce), then a good one, then one with a NaN.
    Feature f = area({{0, 0}, {5, 5}, {0, 0}, {0, 0}, {10, 0}, {10, 10}, {0, 0}, {1, 1}, {NAN, 2}, {3, 3}}, {3, 7, 10});
    GeometryRepairScratch scratch;
    const GeometryRepair r = repairGeometry(f, scratch);
    EXPECT_EQ(r.droppedParts, 2);
    ASSERT_EQ(f.partEnds.size(), 1u);
    EXPECT_EQ(f.points.size(), 3u);
    EXPECT_TRUE(r.usable);
}

TEST(GeometryRepair, EmptyGeometryIsNotUsable) {
    Feature f = area({}, {});
    GeometryRepairScratch scratch;
    const GeometryRepair r = repairGeometry(f, scratch);
    EXPECT_FALSE(r.usable);
    EXPECT_NE(r.describe().find("no drawable geometry"), std::string::npos);

    Feature line;
    line.kind = FeatureKind::Line;
    line.points = {{3, 3}, {3, 3}};
    line.partEnds = {2};
    EXPECT_FALSE(repairGeometry(line, scratch).usable);
}

TEST(GeometryRepair, BowTieIsFoundWhereItCrosses) {
    // Mercator coordinates near Monaco so the message can give lon/lat.
    const Vec2 o = lonLatToMercator({7.42, 43.73});
    Feature f = area({o, o + Vec2{100, 100}, o + Vec2{100, 0}, o + Vec2{0, 100}}, {4});
    GeometryRepairScratch scratch;
    const GeometryRepair r = repairGeometry(f, scratch);
    ASSERT_TRUE(r.selfIntersects);
    EXPECT_NEAR(r.crossing.x, o.x + 50, 1e-6);
    EXPECT_NEAR(r.crossing.y, o.y + 50, 1e-6);
    EXPECT_NE(r.describe().find("7.42"), std::string::npos);
    EXPECT_TRUE(r.usable);  // still drawn, with the even-odd rule
}

TEST(GeometryRepair, TouchingRingsAreNotCrossings) {
    // A hole touching the outer ring at a vertex, and a ring touching itself: valid enough.
    Feature f = area({{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}, {5, 0}, {7, 3}, {3, 3}}, {4, 8});
    GeometryRepairScratch scratch;
    EXPECT_FALSE(repairGeometry(f, scratch).selfIntersects);
}

TEST(GeometryRepair, HoleCrossingTheOuterRingIsACrossing) {
    Feature f = area({{0, 0}, {10, 0}, {10, 10}, {0, 10}, {8, 8}, {12, 8}, {12, 9}, {8, 9}}, {4, 8});
    GeometryRepairScratch scratch;
    EXPECT_TRUE(repairGeometry(f, scratch).selfIntersects);
}

TEST(GeometryRepair, SweepAgreesWithBruteForceOnRandomRings) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> coord(0.0, 100.0);
    std::uniform_int_distribution<int> count(3, 14);
    GeometryRepairScratch scratch;
    int crossing = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<Vec2> pts;
        std::vector<std::uint32_t> ends;
        const int rings = 1 + trial % 2;
        for (int r = 0; r < rings; ++r) {
            // Star-shaped rings are simple; jitter some so that about half cross.
            const int n = count(rng);
            const Vec2 c{coord(rng), coord(rng)};
            for (int i = 0; i < n; ++i) {
                double angle = 2 * M_PI * i / n;
                if (trial % 3 == 0) angle += coord(rng) / 30.0;
                const double radius = 5 + coord(rng) / 4;
                pts.push_back(c + Vec2{std::cos(angle), std::sin(angle)} * radius);
            }
            ends.push_back(static_cast<std::uint32_t>(pts.size()));
        }
        Feature f = area(pts, ends);
        const bool expected = bruteForceCrosses(f);
        crossing += expected;
        EXPECT_EQ(repairGeometry(f, scratch).selfIntersects, expected) << "trial " << trial;
    }
    // Both outcomes were exercised.
    EXPECT_GT(crossing, 100);
    EXPECT_LT(crossing, 1900);
}
