// The surfaces' union of line buffers (placement/buffer_union_p.h) against GEOS: on networks of
// random ways that share nodes (junctions, ways ending where others pass, straight runs, tight
// bends, loops and single points), its rings cover the area of GEOS's round-capped buffer of
// the same lines to within the arcs' chords, are a valid polygon to GEOS, and say where the
// network is; where it cannot tell it says so instead of answering.

#include <geos_c.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "placement/buffer_union_p.h"

using terrabit::core::Vec2;
using terrabit::core::placement::detail::BufferUnion;

namespace {

struct TestWay {
    std::vector<Vec2> points;
    double radius;
};

/// A street grid's nodes jittered, ways along its rows and columns (several ways per row, ending
/// at shared nodes), a few diagonals and tight bends, a loop and some single points.
std::vector<TestWay> streetNetwork(std::mt19937& rng) {
    std::uniform_real_distribution<double> jitter(-3.0, 3.0), radius(0.6, 4.0), unit(0.0, 1.0);
    constexpr int kSide = 6;
    std::vector<Vec2> node(kSide * kSide);
    for (int y = 0; y < kSide; ++y) {
        for (int x = 0; x < kSide; ++x)
            node[y * kSide + x] = {20.0 + 40.0 * x + jitter(rng), 20.0 + 40.0 * y + jitter(rng)};
    }
    std::vector<TestWay> ways;
    for (int y = 0; y < kSide; ++y) {
        for (int x = 0; x + 1 < kSide; x += 2) {  // a row in ways of two blocks, bends between nodes
            TestWay w{{node[y * kSide + x]}, radius(rng)};
            for (int k = x + 1; k <= std::min(x + 2, kSide - 1); ++k) {
                const Vec2 a = w.points.back(), b = node[y * kSide + k];
                w.points.push_back({(a.x + b.x) / 2 + jitter(rng), (a.y + b.y) / 2 + jitter(rng)});
                w.points.push_back(b);
            }
            ways.push_back(w);
        }
    }
    for (int x = 0; x < kSide; ++x) {  // columns, one way each
        TestWay w{{}, radius(rng)};
        for (int y = 0; y < kSide; ++y) w.points.push_back(node[y * kSide + x]);
        ways.push_back(w);
    }
    for (int k = 0; k < 4; ++k) {  // diagonals across several blocks
        const int a = static_cast<int>(unit(rng) * kSide * kSide) % (kSide * kSide);
        const int b = static_cast<int>(unit(rng) * kSide * kSide) % (kSide * kSide);
        if (a != b) ways.push_back({{node[a], node[b]}, radius(rng)});
    }
    {  // a tight bend: a hairpin of short segments, tighter than its width
        const Vec2 c{120.0 + jitter(rng), 120.0 + jitter(rng)};
        TestWay w{{}, 3.0};
        for (int k = 0; k <= 12; ++k) {
            const double angle = std::numbers::pi * k / 12.0;
            w.points.push_back({c.x + 2.0 * std::cos(angle), c.y + 2.0 * std::sin(angle)});
        }
        ways.push_back(w);
    }
    {  // a closed loop (a roundabout)
        const Vec2 c{200.0 + jitter(rng), 60.0 + jitter(rng)};
        TestWay w{{}, 1.5};
        for (int k = 0; k <= 16; ++k) {
            const double angle = 2.0 * std::numbers::pi * (k % 16) / 16.0;
            w.points.push_back({c.x + 9.0 * std::cos(angle), c.y + 9.0 * std::sin(angle)});
        }
        ways.push_back(w);
    }
    for (int k = 0; k < 5; ++k) ways.push_back({{{10.0 + 230.0 * unit(rng), 10.0 + 230.0 * unit(rng)}}, radius(rng)});
    return ways;
}

/// Chords per quarter circle for a radius, as the shaper picks them.
int chordsPerQuadrant(double r) {
    const double half = std::acos(1.0 - 0.05 / r);
    return std::clamp(static_cast<int>(std::ceil(std::numbers::pi / 4.0 / half)), 1, 32);
}

class UnionOracle {
public:
    UnionOracle() : ctx(GEOS_init_r()) {}
    ~UnionOracle() { GEOS_finish_r(ctx); }
    GEOSContextHandle_t ctx;

    /// GEOS's round-capped buffers of the ways, united.
    double bufferArea(const std::vector<TestWay>& ways) {
        GEOSGeometry* u = buffers(ways);
        double area = 0.0;
        GEOSArea_r(ctx, u, &area);
        GEOSGeom_destroy_r(ctx, u);
        return area;
    }

    /// GEOS's round-capped buffers of the ways, united (owned by the caller).
    GEOSGeometry* buffers(const std::vector<TestWay>& ways) {
        std::vector<GEOSGeometry*> parts;
        for (const TestWay& w : ways) {
            GEOSCoordSequence* seq = GEOSCoordSeq_create_r(ctx, static_cast<unsigned>(w.points.size()), 2);
            for (unsigned i = 0; i < w.points.size(); ++i)
                GEOSCoordSeq_setXY_r(ctx, seq, i, w.points[i].x, w.points[i].y);
            GEOSGeometry* g =
                w.points.size() == 1 ? GEOSGeom_createPoint_r(ctx, seq) : GEOSGeom_createLineString_r(ctx, seq);
            parts.push_back(GEOSBufferWithStyle_r(ctx, g, w.radius, chordsPerQuadrant(w.radius), GEOSBUF_CAP_ROUND,
                                                  GEOSBUF_JOIN_ROUND, 5.0));
            GEOSGeom_destroy_r(ctx, g);
        }
        GEOSGeometry* all =
            GEOSGeom_createCollection_r(ctx, GEOS_GEOMETRYCOLLECTION, parts.data(), unsigned(parts.size()));
        GEOSGeometry* u = GEOSUnaryUnion_r(ctx, all);
        GEOSGeom_destroy_r(ctx, all);
        return u;
    }

    /// The area of the rings under the even-odd rule, by GEOS: the rings' signed areas add up
    /// to it only when no two rings overlap or cross.
    double evenOddArea(const std::vector<Vec2>& outline, const std::vector<std::uint32_t>& ends) {
        GEOSGeometry* acc = GEOSGeom_createEmptyPolygon_r(ctx);
        std::uint32_t begin = 0;
        for (const std::uint32_t end : ends) {
            GEOSCoordSequence* seq = GEOSCoordSeq_create_r(ctx, end - begin + 1, 2);
            for (std::uint32_t i = begin; i <= end; ++i) {
                const Vec2 p = outline[i == end ? begin : i];
                GEOSCoordSeq_setXY_r(ctx, seq, i - begin, p.x, p.y);
            }
            GEOSGeometry* polygon = GEOSGeom_createPolygon_r(ctx, GEOSGeom_createLinearRing_r(ctx, seq), nullptr, 0);
            GEOSGeometry* next = GEOSSymDifference_r(ctx, acc, polygon);
            GEOSGeom_destroy_r(ctx, acc);
            GEOSGeom_destroy_r(ctx, polygon);
            acc = next;
            begin = end;
        }
        double area = 0.0;
        GEOSArea_r(ctx, acc, &area);
        GEOSGeom_destroy_r(ctx, acc);
        return area;
    }
};

double unionRingsArea(const std::vector<Vec2>& outline, const std::vector<std::uint32_t>& ends) {
    double twice = 0.0;
    std::uint32_t begin = 0;
    for (const std::uint32_t end : ends) {
        for (std::uint32_t i = begin, j = end - 1; i < end; j = i++)
            twice += outline[j].x * outline[i].y - outline[j].y * outline[i].x;
        begin = end;
    }
    return twice / 2.0;
}

/// Whether a point lies inside the rings (even-odd).
bool insideRings(Vec2 p, const std::vector<Vec2>& outline, const std::vector<std::uint32_t>& ends) {
    bool in = false;
    std::uint32_t begin = 0;
    for (const std::uint32_t end : ends) {
        for (std::uint32_t i = begin, j = end - 1; i < end; j = i++) {
            const Vec2 a = outline[i], b = outline[j];
            if ((a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y)) in = !in;
        }
        begin = end;
    }
    return in;
}

double segmentDistance(Vec2 p, Vec2 a, Vec2 b) {
    const Vec2 d = b - a;
    const double len2 = terrabit::core::dot(d, d);
    const double t = len2 > 0.0 ? std::clamp(terrabit::core::dot(p - a, d) / len2, 0.0, 1.0) : 0.0;
    return terrabit::core::length(p - (a + d * t));
}

/// How far p lies outside the nearest way's buffer (negative inside it).
double bufferMargin(Vec2 p, const std::vector<TestWay>& ways) {
    double margin = std::numeric_limits<double>::infinity();
    for (const TestWay& w : ways) {
        double d =
            w.points.size() == 1 ? terrabit::core::length(p - w.points[0]) : std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i + 1 < w.points.size(); ++i) {
            d = std::min(d, segmentDistance(p, w.points[i], w.points[i + 1]));
        }
        margin = std::min(margin, d - w.radius);
    }
    return margin;
}

}  // namespace

TEST(BufferUnion, CoversWhatGeosBuffersOnRandomNetworksOrSaysItCannot) {
    UnionOracle geos;
    BufferUnion u;
    std::vector<Vec2> outline;
    std::vector<std::uint32_t> ends;
    int answered = 0;
    for (unsigned seed = 1; seed <= 40; ++seed) {
        std::mt19937 rng(seed);
        const std::vector<TestWay> ways = streetNetwork(rng);
        u.clear();
        for (const TestWay& w : ways) u.add(w.points, w.radius, chordsPerQuadrant(w.radius), 0.618 * seed);
        if (!u.unite(outline, ends)) continue;  // the caller unites the pieces with GEOS then
        ++answered;
        const double area = unionRingsArea(outline, ends), reference = geos.bufferArea(ways);
        // Both are the same circles' inscribed polygons, on different angular grids.
        EXPECT_NEAR(area, reference, 2e-3 * reference) << "seed " << seed;
        EXPECT_NEAR(geos.evenOddArea(outline, ends), area, 1e-6 * area) << "seed " << seed;
        // Points near the ways are inside, points far from them outside.
        std::uniform_real_distribution<double> at(0.0, 256.0);
        for (int k = 0; k < 400; ++k) {
            const Vec2 p{at(rng), at(rng)};
            const double margin = bufferMargin(p, ways);
            if (margin < -0.1) {
                EXPECT_TRUE(insideRings(p, outline, ends)) << "seed " << seed;
            }
            if (margin > 0.0) {
                EXPECT_FALSE(insideRings(p, outline, ends)) << "seed " << seed;
            }
        }
    }
    EXPECT_GE(answered, 36) << "the union answered on too few networks";
}

TEST(BufferUnion, TwoWaysMeetingAtANodeMakeOneRingAndATJunctionNoGap) {
    BufferUnion u;
    std::vector<Vec2> outline;
    std::vector<std::uint32_t> ends;
    // A straight way, a second continuing it at its end node, and a third ending on the first's
    // middle: one shell, no hole.
    const std::vector<Vec2> a{{10, 50}, {50, 50}}, b{{50, 50}, {90, 52}}, c{{30, 50}, {30, 90}};
    u.add(a, 2.0, chordsPerQuadrant(2.0), 0.0);
    u.add(b, 2.0, chordsPerQuadrant(2.0), 0.618);
    u.add(c, 1.5, chordsPerQuadrant(1.5), 1.236);
    ASSERT_TRUE(u.unite(outline, ends));
    ASSERT_EQ(ends.size(), 1u);
    EXPECT_GT(unionRingsArea(outline, ends), 0.0);
    UnionOracle geos;
    EXPECT_NEAR(unionRingsArea(outline, ends), geos.bufferArea({{a, 2.0}, {b, 2.0}, {c, 1.5}}), 0.05);
    // A square of four ways encloses a block: one shell and one hole.
    u.clear();
    u.add(std::vector<Vec2>{{10, 10}, {60, 10}, {60, 60}, {10, 60}, {10, 10}}, 2.0, chordsPerQuadrant(2.0), 0.0);
    ASSERT_TRUE(u.unite(outline, ends));
    ASSERT_EQ(ends.size(), 2u);
    EXPECT_TRUE(insideRings({35, 10}, outline, ends));
    EXPECT_FALSE(insideRings({35, 35}, outline, ends));
    EXPECT_NEAR(geos.evenOddArea(outline, ends), unionRingsArea(outline, ends), 1e-9);
}

namespace {

/// An area for the union: its rings (the shell counter-clockwise, holes clockwise) and a GEOS
/// polygon of them.
struct TestArea {
    std::vector<Vec2> corners;
    std::vector<std::uint32_t> ringEnds;
};

/// A square's corners (counter-clockwise, or clockwise for a hole).
void squareRing(TestArea& a, Vec2 min, double side, bool hole) {
    std::vector<Vec2> ring{min, {min.x + side, min.y}, {min.x + side, min.y + side}, {min.x, min.y + side}};
    if (hole) std::reverse(ring.begin(), ring.end());
    a.corners.insert(a.corners.end(), ring.begin(), ring.end());
    a.ringEnds.push_back(static_cast<std::uint32_t>(a.corners.size()));
}

/// Squares of a town: a star-shaped square of many corners, a square with a courtyard, two
/// squares sharing an edge, and one around a network node (ways crossing its edges).
std::vector<TestArea> townSquares(std::mt19937& rng) {
    std::uniform_real_distribution<double> at(30.0, 200.0), unit(0.0, 1.0);
    std::vector<TestArea> areas;
    {
        TestArea star;
        const Vec2 c{at(rng), at(rng)};
        for (int k = 0; k < 14; ++k) {
            const double angle = 2.0 * std::numbers::pi * k / 14.0, r = 6.0 + 14.0 * unit(rng);
            star.corners.push_back({c.x + r * std::cos(angle), c.y + r * std::sin(angle)});
        }
        star.ringEnds.push_back(14);
        areas.push_back(star);
    }
    {
        TestArea court;
        const Vec2 min{at(rng), at(rng)};
        squareRing(court, min, 24.0, false);
        squareRing(court, {min.x + 8.0, min.y + 8.0}, 8.0, true);
        areas.push_back(court);
    }
    {
        const Vec2 min{at(rng), at(rng)};
        TestArea left, right;
        squareRing(left, min, 10.0, false);
        squareRing(right, {min.x + 10.0, min.y}, 10.0, false);
        areas.push_back(left);
        areas.push_back(right);
    }
    {
        TestArea node;  // the network's node (2, 2) lies near (100, 100)
        squareRing(node, {92.0 + unit(rng), 93.0 + unit(rng)}, 14.0, false);
        areas.push_back(node);
    }
    return areas;
}

}  // namespace

TEST(BufferUnion, UnitesAreasWithTheWaysAsGeosDoesOrSaysItCannot) {
    UnionOracle geos;
    GEOSContextHandle_t ctx = geos.ctx;
    BufferUnion u;
    std::vector<Vec2> outline, triangles;
    std::vector<std::uint32_t> ends;
    int answered = 0;
    for (unsigned seed = 1; seed <= 30; ++seed) {
        std::mt19937 rng(seed);
        const std::vector<TestWay> ways = streetNetwork(rng);
        const std::vector<TestArea> areas = townSquares(rng);
        u.clear();
        for (const TestWay& w : ways) u.add(w.points, w.radius, chordsPerQuadrant(w.radius), 0.618 * seed);
        std::vector<GEOSGeometry*> parts;  // the areas, then the ways' buffers: GEOS's union is the reference
        for (const TestArea& a : areas) {
            std::vector<GEOSGeometry*> rings;
            std::uint32_t begin = 0;
            for (const std::uint32_t end : a.ringEnds) {
                GEOSCoordSequence* seq = GEOSCoordSeq_create_r(ctx, end - begin + 1, 2);
                for (std::uint32_t i = begin; i <= end; ++i) {
                    const Vec2 p = a.corners[i == end ? begin : i];
                    GEOSCoordSeq_setXY_r(ctx, seq, i - begin, p.x, p.y);
                }
                rings.push_back(GEOSGeom_createLinearRing_r(ctx, seq));
                begin = end;
            }
            GEOSGeometry* polygon =
                GEOSGeom_createPolygon_r(ctx, rings[0], rings.data() + 1, static_cast<unsigned>(rings.size() - 1));
            // Its triangles by GEOS's constrained Delaunay triangulation.
            GEOSGeometry* cdt = GEOSConstrainedDelaunayTriangulation_r(ctx, polygon);
            ASSERT_NE(cdt, nullptr);
            triangles.clear();
            for (int t = 0; t < GEOSGetNumGeometries_r(ctx, cdt); ++t) {
                const GEOSCoordSequence* seq =
                    GEOSGeom_getCoordSeq_r(ctx, GEOSGetExteriorRing_r(ctx, GEOSGetGeometryN_r(ctx, cdt, t)));
                for (unsigned i = 0; i < 3; ++i) {
                    double x = 0, y = 0;
                    GEOSCoordSeq_getXY_r(ctx, seq, i, &x, &y);
                    triangles.push_back({x, y});
                }
            }
            GEOSGeom_destroy_r(ctx, cdt);
            u.addArea(a.corners, a.ringEnds, triangles);
            parts.push_back(polygon);
        }
        const bool united = u.unite(outline, ends);
        if (united) {
            ++answered;
            const double area = unionRingsArea(outline, ends);
            // The reference: GEOS's union of the areas and of the ways' buffers (area of the
            // buffers alone, plus what the areas add beyond them).
            GEOSGeometry* all =
                GEOSGeom_createCollection_r(ctx, GEOS_MULTIPOLYGON, parts.data(), static_cast<unsigned>(parts.size()));
            parts.clear();
            GEOSGeometry* squares = GEOSUnaryUnion_r(ctx, all);
            std::uniform_real_distribution<double> at(0.0, 256.0);
            GEOSGeometry* lines = geos.buffers(ways);
            GEOSGeometry* both = GEOSUnion_r(ctx, lines, squares);
            double buffersArea = 0.0, reference = 0.0;
            GEOSArea_r(ctx, lines, &buffersArea);
            GEOSArea_r(ctx, both, &reference);
            GEOSGeom_destroy_r(ctx, both);
            GEOSGeom_destroy_r(ctx, lines);
            EXPECT_GT(reference, buffersArea + 1.0) << "seed " << seed;  // the squares add to the ways
            // The same circles' inscribed polygons, on different angular grids; the squares exact.
            EXPECT_NEAR(area, reference, 2e-3 * buffersArea) << "seed " << seed;
            EXPECT_NEAR(geos.evenOddArea(outline, ends), area, 1e-6 * area) << "seed " << seed;
            // Inside a square: inside the union; outside every square and buffer: outside it.
            GEOSPreparedGeometry* prepared = const_cast<GEOSPreparedGeometry*>(GEOSPrepare_r(ctx, squares));
            for (int k = 0; k < 2000; ++k) {
                const Vec2 p{at(rng), at(rng)};
                GEOSGeometry* point = GEOSGeom_createPointFromXY_r(ctx, p.x, p.y);
                double distance = 0.0;
                GEOSDistance_r(ctx, point, squares, &distance);
                const bool inSquare = GEOSPreparedContains_r(ctx, prepared, point) == 1;
                GEOSGeom_destroy_r(ctx, point);
                const double margin = bufferMargin(p, ways);
                if (inSquare || margin < -0.1) {
                    EXPECT_TRUE(insideRings(p, outline, ends)) << "seed " << seed << " at " << p.x << "," << p.y;
                }
                if (!inSquare && distance > 1e-6 && margin > 0.0) {
                    EXPECT_FALSE(insideRings(p, outline, ends)) << "seed " << seed << " at " << p.x << "," << p.y;
                }
            }
            GEOSPreparedGeom_destroy_r(ctx, prepared);
            GEOSGeom_destroy_r(ctx, squares);
            GEOSGeom_destroy_r(ctx, all);
        }
        for (GEOSGeometry* g : parts) GEOSGeom_destroy_r(ctx, g);
    }
    EXPECT_GE(answered, 25) << "the union answered on too few networks";
}

TEST(BufferUnion, AreasLeaveItsPiecesAndClearAreasLeavesTheLinesAlone) {
    const std::vector<Vec2> way{{10, 50}, {90, 50}};
    const std::vector<Vec2> square{{40, 40}, {60, 40}, {60, 70}, {40, 70}};  // counter-clockwise
    const std::vector<std::uint32_t> squareEnds{4};
    const std::vector<Vec2> squareTriangles{{40, 40}, {60, 40}, {60, 70}, {40, 40}, {60, 70}, {40, 70}};
    std::vector<Vec2> outline, lineOutline, pieces, linePieces;
    std::vector<std::uint32_t> ends, lineEnds, pieceEnds, linePieceEnds;
    BufferUnion lines;
    lines.add(way, 2.0, chordsPerQuadrant(2.0), 0.3);
    ASSERT_TRUE(lines.unite(lineOutline, lineEnds));
    lines.pieces(linePieces, linePieceEnds);

    BufferUnion u;
    u.add(way, 2.0, chordsPerQuadrant(2.0), 0.3);
    u.addArea(square, squareEnds, squareTriangles);
    ASSERT_TRUE(u.unite(outline, ends));
    // The square reaches 16 above the way's buffer and 8 below it: 20 × (30 - 4) more.
    EXPECT_NEAR(unionRingsArea(outline, ends), unionRingsArea(lineOutline, lineEnds) + 20.0 * 26.0, 1e-6);
    // pieces() is for uniting the lines by other means: the area is not among them.
    u.pieces(pieces, pieceEnds);
    EXPECT_EQ(pieces, linePieces);
    EXPECT_EQ(pieceEnds, linePieceEnds);

    u.clearAreas();
    ASSERT_TRUE(u.unite(outline, ends));
    EXPECT_EQ(outline, lineOutline);
    EXPECT_EQ(ends, lineEnds);
}
