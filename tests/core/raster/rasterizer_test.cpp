// Rasterizer edge cases. Expected cells are worked out by hand from the coverage rules in
// rasterizer.h (the arithmetic is in the comments), or come from the slow per-cell references in
// reference_raster.h, or from independent geometry (distance to a segment, Gauss circle counts).

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "reference_raster.h"
#include "terrabit/core/raster/bit_grid.h"
#include "terrabit/core/raster/rasterizer.h"

using namespace terrabit::core;
using terrabit::test::kInf;
using terrabit::test::kNaN;
using terrabit::test::referenceCentre;
using terrabit::test::referenceConservative;
using terrabit::test::RefGrid;
using terrabit::test::Shape;

namespace {

constexpr RasterOptions kCentre{FillRule::EvenOdd, Coverage::CellCentre};
constexpr RasterOptions kTouch{FillRule::EvenOdd, Coverage::Conservative};

/// The cells [x0, x1) x [y0, y1), clipped to the tile.
BitTile block(int x0, int y0, int x1, int y1) {
    BitTile t;
    for (int y = std::max(y0, 0); y < std::min(y1, 256); ++y) t.fillSpan(y, x0, x1);
    return t;
}

BitTile rasterize(const Shape& s, RasterOptions o) {
    Rasterizer r;
    BitTile t;
    Status st = r.polygon(s.view(), o, t);
    EXPECT_TRUE(st.ok()) << st.message();
    return t;
}

Shape box(double x0, double y0, double x1, double y1) { return Shape({{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}); }
Shape reversedBox(double x0, double y0, double x1, double y1) {
    return Shape({{x0, y0}, {x0, y1}, {x1, y1}, {x1, y0}});
}

/// A tile with a fixed pattern, to check that a failing call leaves its target alone.
BitTile pattern() {
    BitTile t;
    for (int y = 0; y < 256; y += 3) t.fillSpan(y, y / 2, y / 2 + 40);
    return t;
}

std::string describe(const BitTile& got, const BitTile& want) {
    std::string out;
    int shown = 0;
    for (int y = 0; y < 256 && shown < 8; ++y) {
        for (int x = 0; x < 256 && shown < 8; ++x) {
            if (got.test(x, y) != want.test(x, y)) {
                out += " (" + std::to_string(x) + "," + std::to_string(y) + (got.test(x, y) ? " extra)" : " missing)");
                ++shown;
            }
        }
    }
    return out;
}
#define EXPECT_TILE_EQ(got, want) EXPECT_TRUE((got) == (want)) << describe((got), (want))

double distToSegment(Vec2 p, Vec2 a, Vec2 b) {
    const Vec2 d = b - a;
    const double len2 = dot(d, d);
    const double t = len2 == 0.0 ? 0.0 : std::clamp(dot(p - a, d) / len2, 0.0, 1.0);
    return length(p - (a + d * t));
}

/// Distance from a segment to the closed unit square of cell (x, y): 0 when they meet.
double distSegmentToCell(Vec2 a, Vec2 b, int x, int y) {
    auto boxDist = [&](Vec2 p) {
        const double dx = std::max({x - p.x, 0.0, p.x - (x + 1.0)});
        const double dy = std::max({y - p.y, 0.0, p.y - (y + 1.0)});
        return std::hypot(dx, dy);
    };
    if (terrabit::test::segmentMeetsOpenCell(a, b, x, y)) return 0.0;
    // Disjoint convex shapes: the nearest pair is a vertex of one and a side of the other.
    double d = std::min(boxDist(a), boxDist(b));
    const Vec2 corners[4] = {{double(x), double(y)}, {x + 1.0, double(y)}, {x + 1.0, y + 1.0}, {double(x), y + 1.0}};
    for (Vec2 c : corners) d = std::min(d, distToSegment(c, a, b));
    return d;
}

}  // namespace

// --- squares and the tie rule ----------------------------------------------------------------

TEST(Rasterizer, SquareOnCellBordersCoversExactlyItsCellsInBothModes) {
    const Shape s = box(10, 10, 20, 20);
    EXPECT_TILE_EQ(rasterize(s, kCentre), block(10, 10, 20, 20));
    // Its borders lie on cell borders, so it touches no open cell outside.
    EXPECT_TILE_EQ(rasterize(s, kTouch), block(10, 10, 20, 20));
    EXPECT_EQ(rasterize(s, kCentre).count(), 100);
}

TEST(Rasterizer, SquareWithFractionalCornersCoversCentresInsideAndTouchesPartialCells) {
    // Columns: centres i + 0.5 in (10.2, 20.6] -> i = 10..20. Rows: centres j + 0.5 in
    // [10.7, 20.4) -> j = 11..19.
    const Shape s = box(10.2, 10.7, 20.6, 20.4);
    EXPECT_TILE_EQ(rasterize(s, kCentre), block(10, 11, 21, 20));
    // Touched: every cell overlapping [10.2, 20.6] x [10.7, 20.4].
    EXPECT_TILE_EQ(rasterize(s, kTouch), block(10, 10, 21, 21));
}

TEST(Rasterizer, CentreOnAnEdgeFollowsTheDocumentedTieRule) {
    // Edges on centre lines. x: a centre on a crossing belongs to the span left of it, so a span
    // (10.5, 20.5] covers columns 11..20. y: an edge counts for centre lines in [ymin, ymax), so
    // rows 10..19.
    for (const Shape& s : {box(10.5, 10.5, 20.5, 20.5), reversedBox(10.5, 10.5, 20.5, 20.5)}) {
        EXPECT_TILE_EQ(rasterize(s, kCentre), block(11, 10, 21, 20));
        EXPECT_TILE_EQ(rasterize(s, {FillRule::NonZero, Coverage::CellCentre}), block(11, 10, 21, 20));
        EXPECT_TILE_EQ(rasterize(s, kTouch), block(10, 10, 21, 21));
    }
}

TEST(Rasterizer, DiagonalTiesGoToTheLeftSpan) {
    // Hypotenuse x + y = 10: on row j the span is (0, 10 - yc], so centres with cx + cy <= 10,
    // i.e. i + j <= 9: 1 + 2 + ... + 10 = 55 cells.
    BitTile lower;
    for (int j = 0; j < 10; ++j) lower.fillSpan(j, 0, 10 - j);
    EXPECT_EQ(lower.count(), 55);
    EXPECT_TILE_EQ(rasterize(Shape({{0, 0}, {10, 0}, {0, 10}}), kCentre), lower);
    EXPECT_TILE_EQ(rasterize(Shape({{0, 10}, {10, 0}, {0, 0}}), kCentre), lower);
    // Hypotenuse x = y: on row j the span is (yc, 10], so centres with cx > cy: i > j, 45 cells.
    BitTile upper;
    for (int j = 0; j < 10; ++j) upper.fillSpan(j, j + 1, 10);
    EXPECT_EQ(upper.count(), 45);
    EXPECT_TILE_EQ(rasterize(Shape({{0, 0}, {10, 0}, {10, 10}}), kCentre), upper);
}

TEST(Rasterizer, PolygonsSharingAnEdgeNeitherOverlapNorLeaveAGap) {
    // The tie rule is half-open, so neighbouring buildings split the cells on their common edge.
    std::mt19937_64 rng(8);
    std::uniform_int_distribution<int> q(0, 64 * 60);  // dyadic coordinates make many exact ties
    for (int round = 0; round < 50; ++round) {
        // A zigzag from the square's west side to its east side splits it in two.
        std::vector<Vec2> cut{{10, 10 + q(rng) / 64.0}};
        for (int k = 1; k < 6; ++k) cut.push_back({10 + k * 10.0 + (q(rng) % 640) / 64.0 - 5.0, 10 + q(rng) / 64.0});
        cut.push_back({80, 10 + q(rng) / 64.0});
        std::vector<Vec2> north{{10, 10}, {80, 10}};
        for (auto it = cut.rbegin(); it != cut.rend(); ++it) north.push_back(*it);
        std::vector<Vec2> south(cut.begin(), cut.end());
        south.push_back({80, 70});
        south.push_back({10, 70});
        // The cut's x grows strictly, so both pieces are simple polygons.
        for (FillRule rule : {FillRule::EvenOdd, FillRule::NonZero}) {
            const BitTile a = rasterize(Shape(north), {rule, Coverage::CellCentre});
            const BitTile b = rasterize(Shape(south), {rule, Coverage::CellCentre});
            EXPECT_TRUE((a & b).none()) << "round " << round << describe(a & b, BitTile{});
            EXPECT_TILE_EQ(a | b, block(10, 10, 80, 70));
        }
    }
    // Four quadrants meeting at a centre point, all edges on centre lines.
    const BitTile quadrants = rasterize(box(10.5, 10.5, 25.5, 25.5), kCentre);
    const BitTile ne = rasterize(box(25.5, 10.5, 40.5, 25.5), kCentre);
    const BitTile sw = rasterize(box(10.5, 25.5, 25.5, 40.5), kCentre);
    const BitTile se = rasterize(box(25.5, 25.5, 40.5, 40.5), kCentre);
    EXPECT_TRUE((quadrants & ne).none());
    EXPECT_TRUE((quadrants & sw).none());
    EXPECT_TRUE((ne & se).none());
    EXPECT_TRUE((sw & se).none());
    EXPECT_TILE_EQ(quadrants | ne | sw | se, rasterize(box(10.5, 10.5, 40.5, 40.5), kCentre));
}

// --- holes, multipolygons, fill rules --------------------------------------------------------

TEST(Rasterizer, HoleIsLeftOpenByBothRulesWhenOppositelyOriented) {
    Shape s = box(10, 10, 50, 50);
    s.addRing(reversedBox(20, 20, 30, 30).points);
    const BitTile expected = block(10, 10, 50, 50) - block(20, 20, 30, 30);
    EXPECT_EQ(expected.count(), 1500);
    EXPECT_TILE_EQ(rasterize(s, kCentre), expected);
    EXPECT_TILE_EQ(rasterize(s, {FillRule::NonZero, Coverage::CellCentre}), expected);
    // The hole's border lies on cell borders: conservative coverage equals the centre coverage.
    EXPECT_TILE_EQ(rasterize(s, kTouch), expected);
}

TEST(Rasterizer, SameOrientationHoleIsFilledByNonZeroOnly) {
    Shape s = box(10, 10, 50, 50);
    s.addRing(box(20, 20, 30, 30).points);
    EXPECT_TILE_EQ(rasterize(s, kCentre), block(10, 10, 50, 50) - block(20, 20, 30, 30));
    EXPECT_TILE_EQ(rasterize(s, {FillRule::NonZero, Coverage::CellCentre}), block(10, 10, 50, 50));
}

TEST(Rasterizer, HoleWithFractionalBorderTouchesTheCellsItCuts) {
    Shape s = box(10, 10, 50, 50);
    s.addRing(reversedBox(20.3, 20.3, 29.7, 29.7).points);
    // Centre rule: the hole removes centres 20.5..29.5 (cells 20..29). Conservative: cells the
    // hole's border crosses stay touched, so only cells 21..28 are free.
    EXPECT_TILE_EQ(rasterize(s, kCentre), block(10, 10, 50, 50) - block(20, 20, 30, 30));
    EXPECT_TILE_EQ(rasterize(s, kTouch), block(10, 10, 50, 50) - block(21, 21, 29, 29));
}

TEST(Rasterizer, MultipolygonPartsAreUnitedAndOverlapsFollowTheFillRule) {
    Shape two = box(10, 10, 20, 20);
    two.addRing(box(100, 100, 130, 110).points);
    EXPECT_TILE_EQ(rasterize(two, kCentre), block(10, 10, 20, 20) | block(100, 100, 130, 110));

    Shape overlap = box(10, 10, 30, 30);
    overlap.addRing(box(20, 20, 40, 40).points);
    const BitTile a = block(10, 10, 30, 30);
    const BitTile b = block(20, 20, 40, 40);
    EXPECT_TILE_EQ(rasterize(overlap, kCentre), a ^ b);
    EXPECT_TILE_EQ(rasterize(overlap, {FillRule::NonZero, Coverage::CellCentre}), a | b);
}

TEST(Rasterizer, PentagramCentreIsEmptyUnderEvenOddAndFilledUnderNonZero) {
    std::vector<Vec2> star;
    for (int k = 0; k < 5; ++k) {
        const double angle = std::numbers::pi / 2 + k * 4.0 * std::numbers::pi / 5.0;
        star.push_back({128.0 + 100.0 * std::cos(angle), 128.0 - 100.0 * std::sin(angle)});
    }
    const Shape s(star);
    const BitTile evenOdd = rasterize(s, kCentre);
    const BitTile nonZero = rasterize(s, {FillRule::NonZero, Coverage::CellCentre});
    EXPECT_FALSE(evenOdd.test(128, 128));
    EXPECT_TRUE(nonZero.test(128, 128));
    // A point tip is in both.
    EXPECT_TRUE(evenOdd.test(128, 40));
    EXPECT_TRUE(nonZero.test(128, 40));
    EXPECT_EQ(terrabit::test::mismatches(evenOdd, referenceCentre(s.view(), FillRule::EvenOdd)), 0);
    EXPECT_EQ(terrabit::test::mismatches(nonZero, referenceCentre(s.view(), FillRule::NonZero)), 0);
    // Non-zero is even-odd plus the inner pentagon.
    EXPECT_TRUE((evenOdd - nonZero).none());
    EXPECT_GT((nonZero - evenOdd).count(), 1000);
}

TEST(Rasterizer, BowTieCoversItsTwoLobesUnderEitherRule) {
    // (10,10) -> (30,30) -> (30,10) -> (10,30): lobes left and right of the crossing at (20,20),
    // one wound each way, so even-odd and non-zero agree.
    const Shape s({{10, 10}, {30, 30}, {30, 10}, {10, 30}});
    const BitTile evenOdd = rasterize(s, kCentre);
    EXPECT_TILE_EQ(rasterize(s, {FillRule::NonZero, Coverage::CellCentre}), evenOdd);
    EXPECT_TRUE(evenOdd.test(12, 20));   // left lobe
    EXPECT_TRUE(evenOdd.test(27, 20));   // right lobe
    EXPECT_FALSE(evenOdd.test(20, 12));  // above the crossing: outside
    EXPECT_FALSE(evenOdd.test(20, 27));  // below the crossing: outside
    EXPECT_EQ(terrabit::test::mismatches(evenOdd, referenceCentre(s.view(), FillRule::EvenOdd)), 0);
    const BitTile touched = rasterize(s, kTouch);
    EXPECT_EQ(terrabit::test::mismatches(touched, referenceConservative(s.view(), FillRule::EvenOdd)), 0);
}

// --- degenerate input ------------------------------------------------------------------------

TEST(Rasterizer, FewerThanThreePointsOrZeroAreaCoverNoCentre) {
    const std::vector<Shape> degenerate = {
        Shape(),                                          // no ring at all
        Shape(std::vector<Vec2>{}),                       // an empty ring
        Shape({{5.5, 5.5}}),                              // one point
        Shape({{5.5, 5.5}, {20.5, 5.5}}),                 // a horizontal 2-point ring
        Shape({{5.2, 3.1}, {40.7, 60.9}}),                // a sloped 2-point ring
        Shape({{10, 10}, {20, 20}, {30, 30}}),            // collinear
        Shape({{10, 10}, {30, 30}, {20, 20}, {10, 10}}),  // a spike that folds back on itself
        Shape({{7, 7}, {7, 7}, {7, 7}}),                  // one repeated point
    };
    for (std::size_t i = 0; i < degenerate.size(); ++i) {
        EXPECT_TRUE(rasterize(degenerate[i], kCentre).none()) << "shape " << i;
        EXPECT_TRUE(rasterize(degenerate[i], {FillRule::NonZero, Coverage::CellCentre}).none()) << "shape " << i;
    }
}

TEST(Rasterizer, ZeroAreaShapesTouchTheCellsTheyPassThrough) {
    // A 2-point ring along the centre line of row 5 from x 5.5 to 20.5: cells 5..20.
    EXPECT_TILE_EQ(rasterize(Shape({{5.5, 5.5}, {20.5, 5.5}}), kTouch), block(5, 5, 21, 6));
    // A single point inside cell (7, 9).
    EXPECT_TILE_EQ(rasterize(Shape({{7.25, 9.75}}), kTouch), block(7, 9, 8, 10));
    // On a cell border or corner it meets no open cell.
    EXPECT_TRUE(rasterize(Shape({{7.0, 9.0}}), kTouch).none());
    EXPECT_TRUE(rasterize(Shape({{30, 10}, {30, 20}}), kTouch).none());
    EXPECT_TRUE(rasterize(Shape({{30, 10}, {40, 10}, {35, 10}}), kTouch).none());
    // A collinear diagonal through grid corners touches one cell per row.
    BitTile diagonal;
    for (int k = 10; k < 30; ++k) diagonal.set(k, k);
    EXPECT_TILE_EQ(rasterize(Shape({{10, 10}, {30, 30}, {20, 20}}), kTouch), diagonal);
}

TEST(Rasterizer, RepeatedPointsChangeNothing) {
    const Shape plain({{10.2, 10.1}, {40.7, 12.3}, {35.5, 50.5}, {12.25, 44.0}});
    const Shape repeated({{10.2, 10.1},
                          {10.2, 10.1},
                          {40.7, 12.3},
                          {40.7, 12.3},
                          {40.7, 12.3},
                          {35.5, 50.5},
                          {12.25, 44.0},
                          {12.25, 44.0},
                          {10.2, 10.1}});
    for (RasterOptions o : {kCentre, kTouch, RasterOptions{FillRule::NonZero, Coverage::CellCentre}}) {
        EXPECT_TILE_EQ(rasterize(repeated, o), rasterize(plain, o));
    }
}

// --- errors ----------------------------------------------------------------------------------

TEST(Rasterizer, NanOrInfiniteCoordinatesAreRejectedAndNothingIsDrawn) {
    Rasterizer r;
    const BitTile before = pattern();
    for (double bad : {kNaN, kInf, -kInf}) {
        BitTile t = before;
        const Shape s({{10, 10}, {50, 10}, {50, bad}, {10, 50}});
        Status st = r.polygon(s.view(), kCentre, t);
        ASSERT_FALSE(st.ok());
        EXPECT_NE(st.message().find("point 2"), std::string::npos) << st.message();
        EXPECT_NE(st.message().find("NaN or infinite"), std::string::npos) << st.message();
        EXPECT_FALSE(r.polygon(s.view(), kTouch, t).ok());

        const std::vector<Vec2> line{{10, 10}, {bad, 20}, {30, 30}};
        Status pl = r.polyline(line, 3.0, Coverage::CellCentre, t);
        ASSERT_FALSE(pl.ok());
        EXPECT_NE(pl.message().find("polyline point 1"), std::string::npos) << pl.message();
        const std::vector<Vec2> goodLine{{10, 10}, {30, 30}};
        EXPECT_FALSE(r.polyline(goodLine, bad, Coverage::CellCentre, t).ok());
        EXPECT_FALSE(r.disk({bad, 5}, 3, Coverage::CellCentre, t).ok());
        EXPECT_FALSE(r.disk({5, 5}, bad, Coverage::Conservative, t).ok());
        EXPECT_FALSE(r.point({5, bad}, 0, Coverage::CellCentre, t).ok());
        EXPECT_FALSE(r.point({5, 5}, bad, Coverage::CellCentre, t).ok());
        EXPECT_FALSE(r.triangle({1, 1}, {bad, 9}, {9, 1}, Coverage::CellCentre, t).ok());
        EXPECT_FALSE(r.rectangle(Box2{{1, 1}, {bad, 9}}, Coverage::Conservative, t).ok());
        EXPECT_FALSE(r.orientedRectangle({50, 50}, {10, 5}, bad, Coverage::CellCentre, t).ok());
        EXPECT_FALSE(r.orientedRectangle({50, 50}, {bad, 5}, 0.3, Coverage::CellCentre, t).ok());
        EXPECT_FALSE(r.orientedRectangle({bad, 50}, {10, 5}, 0.3, Coverage::CellCentre, t).ok());
        EXPECT_TILE_EQ(t, before);
    }
}

TEST(Rasterizer, RingEndsOutsideThePointsAreRejected) {
    Rasterizer r;
    BitTile t = pattern();
    const std::vector<Vec2> pts{{10, 10}, {50, 10}, {50, 50}, {10, 50}};
    const std::vector<std::uint32_t> tooFar{5};
    Status a = r.polygon(PolygonView{pts, tooFar}, kCentre, t);
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.message().find("ring 0"), std::string::npos) << a.message();
    const std::vector<std::uint32_t> decreasing{3, 2};
    Status b = r.polygon(PolygonView{pts, decreasing}, kCentre, t);
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.message().find("ring 1"), std::string::npos) << b.message();
    EXPECT_TILE_EQ(t, pattern());
}

// --- clipping and far vertices ---------------------------------------------------------------

TEST(Rasterizer, ShapesPartlyOutsideAreClippedAndShapesOutsideDrawNothing) {
    EXPECT_TILE_EQ(rasterize(box(-10.3, -10.3, 10, 10), kCentre), block(0, 0, 10, 10));
    EXPECT_TILE_EQ(rasterize(box(-10.3, -10.3, 10, 10), kTouch), block(0, 0, 10, 10));
    EXPECT_TILE_EQ(rasterize(box(250, 250, 300, 300), kCentre), block(250, 250, 256, 256));
    EXPECT_TILE_EQ(rasterize(box(250.5, -3, 300, 3.5), kTouch), block(250, 0, 256, 4));
    for (const Shape& s : {box(300, 0, 400, 100), box(-100, -100, -1, -1), box(0, 256, 256, 300), box(-5, 0, 0, 256),
                           box(256, 0, 260, 256)}) {
        EXPECT_TRUE(rasterize(s, kCentre).none());
        EXPECT_TRUE(rasterize(s, kTouch).none());
    }
}

TEST(Rasterizer, VerticesAMillionCellsAwayAreFine) {
    EXPECT_EQ(rasterize(box(-1e6, -1e6, 1e6, 1e6), kCentre), BitTile::full());
    EXPECT_EQ(rasterize(box(-1e6, -1e6, 1e6, 1e6), kTouch), BitTile::full());
    // Long slivers and fans reaching in from far away, against the per-cell reference.
    const std::vector<Shape> shapes = {
        Shape({{-1e6, 128.3}, {1e6, 0.2}, {1e6, 255.7}}),
        Shape({{-1e6, -1e6}, {1.3e6, 2e6}, {128.2, 140.9}}),
        Shape({{100.25, -1e6}, {110.75, -1e6}, {105.5, 1e6}}),
        Shape({{-1e6, 50.0}, {1e6, 52.5}, {1e6, 53.0}, {-1e6, 50.25}}),
    };
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        BitTile c = rasterize(shapes[i], kCentre);
        BitTile t = rasterize(shapes[i], kTouch);
        EXPECT_EQ(terrabit::test::mismatches(c, referenceCentre(shapes[i].view(), FillRule::EvenOdd)), 0) << i;
        EXPECT_EQ(terrabit::test::mismatches(t, referenceConservative(shapes[i].view(), FillRule::EvenOdd)), 0) << i;
        EXPECT_TRUE(c.any()) << i;
    }
}

TEST(Rasterizer, SpansHandedToTheSinkAreClippedToTheGrid) {
    Rasterizer r;
    const Shape s({{-5000, -700}, {9000, 100}, {300, 9000}});
    int spans = 0;
    for (RasterOptions o : {kCentre, kTouch}) {
        Status st = r.polygonSpans(s.view(), o, 100, 60, [&](int y, int x0, int x1) {
            ++spans;
            EXPECT_GE(y, 0);
            EXPECT_LT(y, 60);
            EXPECT_GE(x0, 0);
            EXPECT_LT(x0, x1);
            EXPECT_LE(x1, 100);
        });
        EXPECT_TRUE(st.ok()) << st.message();
    }
    EXPECT_GT(spans, 0);
}

// --- polylines -------------------------------------------------------------------------------

TEST(Rasterizer, StraightPolylineIsTheRectanglePlusRoundCaps) {
    Rasterizer r;
    for (Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
        BitTile expected;
        ASSERT_TRUE(r.rectangle(Box2{{10.2, 17.0}, {50.7, 23.0}}, cov, expected).ok());
        ASSERT_TRUE(r.disk({10.2, 20.0}, 3.0, cov, expected).ok());
        ASSERT_TRUE(r.disk({50.7, 20.0}, 3.0, cov, expected).ok());
        for (const std::vector<Vec2>& line :
             {std::vector<Vec2>{{10.2, 20}, {50.7, 20}}, std::vector<Vec2>{{50.7, 20}, {10.2, 20}},
              std::vector<Vec2>{{10.2, 20}, {30.1, 20}, {40.0, 20}, {50.7, 20}}}) {
            BitTile t;
            ASSERT_TRUE(r.polyline(line, 6.0, cov, t).ok());
            EXPECT_TILE_EQ(t, expected);
        }
    }
    // By hand for the centre rule: rows 17..22 from column 10 to 50, plus the caps' bulges
    // (centres within 3 of (10.2, 20) reach column 7, of (50.7, 20) column 53).
    BitTile t;
    ASSERT_TRUE(r.polyline(std::vector<Vec2>{{10.2, 20}, {50.7, 20}}, 6.0, Coverage::CellCentre, t).ok());
    EXPECT_TRUE(t.test(10, 17));
    EXPECT_TRUE(t.test(50, 22));
    EXPECT_FALSE(t.test(30, 16));
    EXPECT_FALSE(t.test(30, 23));
    EXPECT_TRUE(t.test(7, 19));   // centre (7.5, 19.5): 2.75 from (10.2, 20)
    EXPECT_FALSE(t.test(6, 19));  // centre (6.5, 19.5): 3.73 away
    EXPECT_TRUE(t.test(53, 20));  // centre (53.5, 20.5): 2.84 from (50.7, 20)
    EXPECT_FALSE(t.test(54, 20));
}

TEST(Rasterizer, PolylineJoinsAreRoundNotMitred) {
    Rasterizer r;
    const std::vector<Vec2> line{{20, 20}, {60, 20}, {60, 70}};
    BitTile t;
    ASSERT_TRUE(r.polyline(line, 4.0, Coverage::CellCentre, t).ok());
    BitTile expected;
    ASSERT_TRUE(r.rectangle(Box2{{20, 18}, {60, 22}}, Coverage::CellCentre, expected).ok());
    ASSERT_TRUE(r.rectangle(Box2{{58, 20}, {62, 70}}, Coverage::CellCentre, expected).ok());
    for (Vec2 p : line) ASSERT_TRUE(r.disk(p, 2.0, Coverage::CellCentre, expected).ok());
    EXPECT_TILE_EQ(t, expected);
    // The outer corner of a mitre: centre (61.5, 18.5) is 2.12 from the joint, outside the join.
    EXPECT_FALSE(t.test(61, 18));
    EXPECT_TRUE(t.test(61, 19));  // centre (61.5, 19.5): 1.58 from the joint
}

TEST(Rasterizer, ThickPolylineCoversCentresWithinHalfItsWidth) {
    // The union of segment quads and vertex disks is the set of points within width/2 of the
    // line, so every cell centre clearly nearer than that is covered and every one clearly
    // farther is not (centres within 1e-9 of the border are left out of the check).
    std::mt19937_64 rng(12);
    std::uniform_real_distribution<double> coord(-20.0, 276.0);
    std::uniform_real_distribution<double> width(0.5, 12.0);
    Rasterizer r;
    for (int round = 0; round < 16; ++round) {
        std::vector<Vec2> line(2 + round % 5);
        for (Vec2& p : line) p = {coord(rng), coord(rng)};
        const double w = width(rng);
        BitTile centre, touch;
        ASSERT_TRUE(r.polyline(line, w, Coverage::CellCentre, centre).ok());
        ASSERT_TRUE(r.polyline(line, w, Coverage::Conservative, touch).ok());
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                double dCentre = 1e300, dCell = 1e300;
                for (std::size_t i = 0; i + 1 < line.size(); ++i) {
                    dCentre = std::min(dCentre, distToSegment({x + 0.5, y + 0.5}, line[i], line[i + 1]));
                    dCell = std::min(dCell, distSegmentToCell(line[i], line[i + 1], x, y));
                }
                if (std::abs(dCentre - w / 2) > 1e-9) {
                    ASSERT_EQ(centre.test(x, y), dCentre < w / 2) << "round " << round << " cell " << x << "," << y;
                }
                if (std::abs(dCell - w / 2) > 1e-9) {
                    ASSERT_EQ(touch.test(x, y), dCell < w / 2) << "round " << round << " cell " << x << "," << y;
                }
            }
        }
    }
}

TEST(Rasterizer, BendingRoadsCoverCentresWithinHalfTheirWidth) {
    // Roads as mapped: many vertices, segments from shorter to much longer than the half width,
    // gentle and sharp turns. The centre rule draws only the part of each join's disk outside
    // the turn (the rest lies in the two segments' bands), so every join shape is checked
    // against the distance reference.
    std::mt19937_64 rng(41);
    std::uniform_real_distribution<double> start(40.0, 216.0);
    std::uniform_real_distribution<double> step(0.3, 25.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_real_distribution<double> width(0.8, 14.0);
    Rasterizer r;
    for (int round = 0; round < 24; ++round) {
        std::vector<Vec2> line{{start(rng), start(rng)}};
        double heading = unit(rng) * 2.0 * std::numbers::pi;
        const double maxTurn = round % 3 == 0 ? std::numbers::pi : 0.6;
        for (int k = 0; k < 30; ++k) {
            heading += (unit(rng) * 2.0 - 1.0) * maxTurn;
            const double l = step(rng);
            line.push_back(line.back() + Vec2{std::cos(heading) * l, std::sin(heading) * l});
        }
        const double w = width(rng);
        BitTile centre;
        ASSERT_TRUE(r.polyline(line, w, Coverage::CellCentre, centre).ok());
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                double d = 1e300;
                for (std::size_t i = 0; i + 1 < line.size(); ++i)
                    d = std::min(d, distToSegment({x + 0.5, y + 0.5}, line[i], line[i + 1]));
                if (std::abs(d - w / 2) > 1e-9) {
                    ASSERT_EQ(centre.test(x, y), d < w / 2) << "round " << round << " cell " << x << "," << y;
                }
            }
        }
    }
}

TEST(Rasterizer, ZeroWidthPolylineTouchesOnlyTheCellsItCrosses) {
    Rasterizer r;
    BitTile t;
    ASSERT_TRUE(r.polyline(std::vector<Vec2>{{10.2, 20.5}, {30.7, 20.5}}, 0.0, Coverage::Conservative, t).ok());
    EXPECT_TILE_EQ(t, block(10, 20, 31, 21));
    BitTile none;
    ASSERT_TRUE(r.polyline(std::vector<Vec2>{{10.2, 20.5}, {30.7, 20.5}}, 0.0, Coverage::CellCentre, none).ok());
    EXPECT_TRUE(none.none());
    // Along a cell border it touches nothing.
    BitTile border;
    ASSERT_TRUE(r.polyline(std::vector<Vec2>{{10, 20}, {30, 20}}, 0.0, Coverage::Conservative, border).ok());
    EXPECT_TRUE(border.none());
    // A sloped one against the segment/open-square reference.
    const Vec2 a{3.3, 200.1}, b{250.9, 7.7};
    BitTile sloped;
    ASSERT_TRUE(r.polyline(std::vector<Vec2>{a, b}, 0.0, Coverage::Conservative, sloped).ok());
    for (int y = 0; y < 256; ++y)
        for (int x = 0; x < 256; ++x)
            ASSERT_EQ(sloped.test(x, y), terrabit::test::segmentMeetsOpenCell(a, b, x, y)) << x << "," << y;
}

TEST(Rasterizer, DegeneratePolylinesDoNotCrash) {
    Rasterizer r;
    BitTile t;
    EXPECT_TRUE(r.polyline(std::vector<Vec2>{}, 4.0, Coverage::CellCentre, t).ok());
    EXPECT_TRUE(t.none());
    // A single point is a disk (plus its own cell when conservative).
    ASSERT_TRUE(r.polyline(std::vector<Vec2>{{100.5, 100.5}}, 4.0, Coverage::CellCentre, t).ok());
    BitTile disk;
    ASSERT_TRUE(r.disk({100.5, 100.5}, 2.0, Coverage::CellCentre, disk).ok());
    EXPECT_TILE_EQ(t, disk);
    // Repeated vertices are skipped; negative widths draw like zero width.
    BitTile a, b;
    ASSERT_TRUE(
        r.polyline(std::vector<Vec2>{{10, 10}, {10, 10}, {40, 30}, {40, 30}}, 3.0, Coverage::CellCentre, a).ok());
    ASSERT_TRUE(r.polyline(std::vector<Vec2>{{10, 10}, {40, 30}}, 3.0, Coverage::CellCentre, b).ok());
    EXPECT_TILE_EQ(a, b);
    BitTile neg;
    ASSERT_TRUE(r.polyline(std::vector<Vec2>{{10, 10}, {40, 30}}, -3.0, Coverage::CellCentre, neg).ok());
    EXPECT_TRUE(neg.none());
}

// --- disks, points, triangles, rectangles ----------------------------------------------------

TEST(Rasterizer, DiskAroundACellCentreHoldsTheGaussCircleCount) {
    // Lattice points with a^2 + b^2 <= R^2 (OEIS A000328): a closed disk around a cell centre
    // covers exactly that many centres.
    const int gauss[] = {1, 5, 13, 29, 49, 81, 113, 149, 197, 253, 317};
    Rasterizer r;
    for (int radius = 1; radius <= 10; ++radius) {
        BitTile t;
        ASSERT_TRUE(r.disk({100.5, 100.5}, radius, Coverage::CellCentre, t).ok());
        EXPECT_EQ(t.count(), gauss[radius]) << "radius " << radius;
    }
}

TEST(Rasterizer, ConservativeDiskTouchesCellsNearerThanItsRadius) {
    Rasterizer r;
    BitTile corner;
    // Centred on a grid corner with radius 1: the four cells around it; the next ones are
    // exactly 1 away (tangent), which does not meet their open squares.
    ASSERT_TRUE(r.disk({100, 100}, 1.0, Coverage::Conservative, corner).ok());
    EXPECT_TILE_EQ(corner, block(99, 99, 101, 101));

    std::mt19937_64 rng(13);
    std::uniform_real_distribution<double> coord(-30.0, 286.0);
    std::uniform_real_distribution<double> radius(0.05, 40.0);
    for (int round = 0; round < 40; ++round) {
        const Vec2 c{coord(rng), coord(rng)};
        const double rad = radius(rng);
        BitTile centre, touch;
        ASSERT_TRUE(r.disk(c, rad, Coverage::CellCentre, centre).ok());
        ASSERT_TRUE(r.disk(c, rad, Coverage::Conservative, touch).ok());
        const double r2 = rad * rad;
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                // Squared distances to the centre and to the nearest point of the cell.
                const double ex = x + 0.5 - c.x, ey = y + 0.5 - c.y;
                const double dc2 = ex * ex + ey * ey;
                const double dx = std::max({x - c.x, 0.0, c.x - (x + 1.0)});
                const double dy = std::max({y - c.y, 0.0, c.y - (y + 1.0)});
                const double dt2 = dx * dx + dy * dy;
                if (std::abs(dc2 - r2) > 1e-9) {
                    ASSERT_EQ(centre.test(x, y), dc2 < r2) << x << "," << y;
                }
                if (std::abs(dt2 - r2) > 1e-9) {
                    ASSERT_EQ(touch.test(x, y), dt2 < r2) << x << "," << y;
                }
            }
        }
    }
}

TEST(Rasterizer, DisksWithoutAreaDrawNothing) {
    Rasterizer r;
    BitTile t;
    ASSERT_TRUE(r.disk({50.5, 50.5}, 0.0, Coverage::CellCentre, t).ok());
    ASSERT_TRUE(r.disk({50.5, 50.5}, -4.0, Coverage::Conservative, t).ok());
    EXPECT_TRUE(t.none());
    // A huge disk far away still draws its edge correctly.
    BitTile big;
    ASSERT_TRUE(r.disk({-1e6, 128.0}, 1e6 + 50.25, Coverage::CellCentre, big).ok());
    EXPECT_TRUE(big.test(0, 128));
    EXPECT_TRUE(big.test(49, 0));
    EXPECT_FALSE(big.test(50, 128));
}

TEST(Rasterizer, PointAlwaysMarksItsOwnCell) {
    Rasterizer r;
    for (Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
        BitTile t;
        ASSERT_TRUE(r.point({5.3, 7.8}, 0.0, cov, t).ok());
        EXPECT_TILE_EQ(t, block(5, 7, 6, 8));
        BitTile small;
        // Radius 0.3: the nearest other centre, (5.5, 7.5) of the same cell aside, is 0.36 away.
        ASSERT_TRUE(r.point({5.3, 7.8}, 0.3, Coverage::CellCentre, small).ok());
        EXPECT_TILE_EQ(small, block(5, 7, 6, 8));
        BitTile outside;
        for (Vec2 p : {Vec2{-0.5, 3}, Vec2{256, 10}, Vec2{10, 256}, Vec2{-1e9, 1e9}}) {
            ASSERT_TRUE(r.point(p, 0.0, cov, outside).ok());
        }
        EXPECT_TRUE(outside.none());
        BitTile edge;
        ASSERT_TRUE(r.point({255.999, 0.0}, 0.0, cov, edge).ok());
        EXPECT_TILE_EQ(edge, block(255, 0, 256, 1));
    }
}

TEST(Rasterizer, TriangleIgnoresOrientationAndMatchesThePolygon) {
    Rasterizer r;
    const Vec2 a{12.3, 40.1}, b{200.7, 10.9}, c{90.2, 230.6};
    for (Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
        BitTile t1, t2, poly;
        ASSERT_TRUE(r.triangle(a, b, c, cov, t1).ok());
        ASSERT_TRUE(r.triangle(c, b, a, cov, t2).ok());
        EXPECT_TILE_EQ(t1, t2);
        const Shape s({a, b, c});
        poly = rasterize(s, {FillRule::EvenOdd, cov});
        EXPECT_TILE_EQ(t1, poly);
        const RefGrid ref = cov == Coverage::CellCentre ? referenceCentre(s.view(), FillRule::EvenOdd)
                                                        : referenceConservative(s.view(), FillRule::EvenOdd);
        EXPECT_EQ(terrabit::test::mismatches(t1, ref), 0);
    }
}

TEST(Rasterizer, RectangleMatchesItsBlockOfCells) {
    Rasterizer r;
    BitTile t;
    ASSERT_TRUE(r.rectangle(Box2{{64, 0}, {128, 256}}, Coverage::CellCentre, t).ok());
    EXPECT_TILE_EQ(t, block(64, 0, 128, 256));
    BitTile u;
    ASSERT_TRUE(r.rectangle(Box2{{63.5, 0.25}, {128.5, 1.75}}, Coverage::Conservative, u).ok());
    EXPECT_TILE_EQ(u, block(63, 0, 129, 2));
}

TEST(Rasterizer, OrientedRectangleTurnsCounterClockwiseOnTheMap) {
    Rasterizer r;
    const Vec2 centre{100.3, 80.1};
    const Vec2 half{20.2, 5.4};
    BitTile zero, axis;
    ASSERT_TRUE(r.orientedRectangle(centre, half, 0.0, Coverage::CellCentre, zero).ok());
    ASSERT_TRUE(r.rectangle(Box2{centre - half, centre + half}, Coverage::CellCentre, axis).ok());
    EXPECT_TILE_EQ(zero, axis);

    // A quarter turn swaps the extents.
    BitTile quarter, swapped;
    ASSERT_TRUE(r.orientedRectangle(centre, half, std::numbers::pi / 2, Coverage::CellCentre, quarter).ok());
    ASSERT_TRUE(
        r.rectangle(Box2{centre - Vec2{half.y, half.x}, centre + Vec2{half.y, half.x}}, Coverage::CellCentre, swapped)
            .ok());
    EXPECT_TILE_EQ(quarter, swapped);

    // 30 degrees counter-clockwise on a north-up map: the long axis points east-north-east,
    // which on the y-down grid is towards smaller y.
    const double a = std::numbers::pi / 6;
    BitTile turned;
    ASSERT_TRUE(r.orientedRectangle(centre, half, a, Coverage::CellCentre, turned).ok());
    const Vec2 ahead = centre + Vec2{std::cos(a), -std::sin(a)} * 18.0;
    const Vec2 mirrored = centre + Vec2{std::cos(a), std::sin(a)} * 18.0;
    EXPECT_TRUE(turned.test(int(ahead.x), int(ahead.y)));
    EXPECT_FALSE(turned.test(int(mirrored.x), int(mirrored.y)));
    // Against the polygon of its corners, computed here from the same definition.
    const Vec2 u = Vec2{std::cos(a), -std::sin(a)} * half.x;
    const Vec2 v = Vec2{std::sin(a), std::cos(a)} * half.y;
    const Shape corners({centre - u - v, centre + u - v, centre + u + v, centre - u + v});
    for (Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
        BitTile t;
        ASSERT_TRUE(r.orientedRectangle(centre, half, a, cov, t).ok());
        const RefGrid ref = cov == Coverage::CellCentre ? referenceCentre(corners.view(), FillRule::EvenOdd)
                                                        : referenceConservative(corners.view(), FillRule::EvenOdd);
        EXPECT_EQ(terrabit::test::mismatches(t, ref), 0);
    }
}

// --- conservative mode -----------------------------------------------------------------------

TEST(Rasterizer, ConservativeModeCoversEveryCellTheShapeTouches) {
    std::mt19937_64 rng(14);
    std::uniform_real_distribution<double> coord(-10.0, 266.0);
    for (int round = 0; round < 30; ++round) {
        Shape s;
        std::vector<Vec2> ring(3 + round % 6);
        for (Vec2& p : ring) p = {coord(rng), coord(rng)};
        s.addRing(ring);
        for (FillRule rule : {FillRule::EvenOdd, FillRule::NonZero}) {
            BitTile touched = rasterize(s, {rule, Coverage::Conservative});
            BitTile centre = rasterize(s, {rule, Coverage::CellCentre});
            EXPECT_EQ(terrabit::test::mismatches(touched, referenceConservative(s.view(), rule)), 0) << round;
            // Every centre-covered cell is touched.
            EXPECT_TRUE((centre - touched).none()) << round;
        }
    }
}

TEST(Rasterizer, AnOffsetDrawsTheShapeWhereItsMovedPointsFall) {
    // A shape kept in another frame (a map's global cells) and drawn with an offset covers the
    // same cells as a moved copy of it, under every rule and coverage.
    std::mt19937_64 rng(16);
    std::uniform_real_distribution<double> coord(-10.0, 266.0);
    const Vec2 offset{1'234'567.25, 987'654.5};
    Rasterizer r;
    for (int round = 0; round < 30; ++round) {
        std::vector<Vec2> moved(3 + round % 7);
        for (Vec2& p : moved) p = {coord(rng), coord(rng)};
        std::vector<Vec2> global;
        for (const Vec2& p : moved) global.push_back(p + offset);
        const std::vector<std::uint32_t> ends{static_cast<std::uint32_t>(moved.size())};
        for (FillRule rule : {FillRule::EvenOdd, FillRule::NonZero}) {
            for (Coverage coverage : {Coverage::CellCentre, Coverage::Conservative}) {
                BitTile want, got;
                ASSERT_TRUE(r.polygon(PolygonView{moved, ends}, {rule, coverage}, want));
                ASSERT_TRUE(r.polygon(PolygonView{global, ends, offset}, {rule, coverage}, got));
                // The global points moved back are the moved ones up to rounding, so compare
                // against the points exactly as the rasterizer sees them.
                std::vector<Vec2> seen;
                for (const Vec2& p : global) seen.push_back(p - offset);
                BitTile exact;
                ASSERT_TRUE(r.polygon(PolygonView{seen, ends}, {rule, coverage}, exact));
                EXPECT_EQ(got, exact) << "round " << round;
                EXPECT_LE((got ^ want).count(), 8) << "round " << round;
                EXPECT_GT(want.count() + got.count(), 0) << "round " << round;
            }
        }
    }
}

TEST(Rasterizer, ThinSliverTouchesCellsWithoutCoveringAnyCentre) {
    // 0.1 cells tall, between centre lines: no centre inside, but it touches a row of cells.
    const Shape sliver = box(20.3, 30.6, 80.9, 30.7);
    EXPECT_TRUE(rasterize(sliver, kCentre).none());
    EXPECT_TILE_EQ(rasterize(sliver, kTouch), block(20, 30, 81, 31));
}

// --- grids larger than a tile ----------------------------------------------------------------

TEST(Rasterizer, GridLargerThanATileMatchesTheReferenceAndHasNoSeams) {
    // 700 x 300 cells (rounded up to 704 wide): rasterizing once into the grid gives, tile by
    // tile, the same bits as rasterizing the shifted shape into each tile.
    std::mt19937_64 rng(15);
    std::uniform_int_distribution<int> qx(-40 * 64, 740 * 64), qy(-40 * 64, 340 * 64);
    Rasterizer r;
    for (int round = 0; round < 6; ++round) {
        Shape s;
        for (int ring = 0; ring < 1 + round % 3; ++ring) {
            std::vector<Vec2> pts(3 + round * 2);
            for (Vec2& p : pts) p = {qx(rng) / 64.0, qy(rng) / 64.0};
            s.addRing(pts);
        }
        for (RasterOptions o : {kCentre, kTouch, RasterOptions{FillRule::NonZero, Coverage::CellCentre}}) {
            BitGrid grid(700, 300);
            ASSERT_EQ(grid.width(), 704);
            ASSERT_TRUE(r.polygon(s.view(), o, grid.view()).ok());
            const RefGrid ref = o.coverage == Coverage::CellCentre
                                    ? referenceCentre(s.view(), o.fillRule, grid.width(), grid.height())
                                    : referenceConservative(s.view(), o.fillRule, grid.width(), grid.height());
            EXPECT_EQ(terrabit::test::mismatches(grid.view(), ref), 0) << round;
            for (int ty = 0; ty < 2; ++ty) {
                for (int tx = 0; tx < 3; ++tx) {
                    Shape shifted = s;
                    for (Vec2& p : shifted.points) p = p - Vec2{tx * 256.0, ty * 256.0};
                    BitTile tile;
                    ASSERT_TRUE(r.polygon(shifted.view(), o, tile).ok());
                    BitTile fromGrid = grid.tileAt(tx * 256, ty * 256);
                    // The grid is 300 rows high: the second row of tiles only has 44 rows in it.
                    if (ty == 1) {
                        for (int y = 300 - 256; y < 256; ++y) tile.clearSpan(y, 0, 256);
                    }
                    if (tx == 2) {
                        for (int y = 0; y < 256; ++y) tile.clearSpan(y, 704 - 512, 256);
                    }
                    EXPECT_TILE_EQ(fromGrid, tile);
                }
            }
        }
    }
}

TEST(Rasterizer, OtherShapesDrawIntoGridsToo) {
    Rasterizer r;
    BitGrid grid(512, 512);
    ASSERT_TRUE(r.disk({300.5, 300.5}, 10, Coverage::CellCentre, grid.view()).ok());
    ASSERT_TRUE(r.rectangle(Box2{{400, 10}, {500, 20}}, Coverage::CellCentre, grid.view()).ok());
    ASSERT_TRUE(
        r.polyline(std::vector<Vec2>{{260.5, 500.5}, {500.5, 500.5}}, 1.0, Coverage::CellCentre, grid.view()).ok());
    ASSERT_TRUE(r.point({511.5, 0.5}, 0, Coverage::CellCentre, grid.view()).ok());
    int count = 0;
    for (int y = 0; y < 512; ++y)
        for (int x = 0; x < 512; ++x) count += grid.test(x, y);
    // 317 (Gauss, radius 10) + 1000 (the rectangle) + 241 (the line: its quad covers centres
    // in (260.5, 500.5], columns 261..500, and its west cap the centre of cell 260) + 1.
    EXPECT_EQ(count, 317 + 1000 + 241 + 1);
    EXPECT_TRUE(grid.test(511, 0));
    EXPECT_TRUE(grid.test(300, 310));
}
