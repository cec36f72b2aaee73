// The surfaces' check of BufferUnion's rings (placement/ring_nesting_p.h) against GEOS: on
// random sets of rings (overlapping, nested, either turn) it accepts exactly the sets whose rings
// GEOS finds simple and apart and whose turns match their nesting, and the parents it gives make
// polygons GEOS finds valid; on hand-made cases it refuses rings that touch, cross or fold.

#include <geos_c.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "placement/ring_nesting_p.h"

using terrabit::core::Vec2;
using terrabit::core::placement::detail::RingNesting;

namespace {

struct RingSet {
    std::vector<Vec2> outline;
    std::vector<std::uint32_t> ends;

    void add(std::vector<Vec2> ring, bool clockwise) {
        if (clockwise) std::reverse(ring.begin(), ring.end());
        outline.insert(outline.end(), ring.begin(), ring.end());
        ends.push_back(static_cast<std::uint32_t>(outline.size()));
    }
};

/// A star-shaped ring (simple by construction), counter-clockwise.
std::vector<Vec2> star(Vec2 centre, double radius, int corners, std::mt19937& rng) {
    std::uniform_real_distribution<double> scale(0.5, 1.0);
    std::vector<Vec2> ring;
    for (int k = 0; k < corners; ++k) {
        const double angle = 2.0 * std::numbers::pi * k / corners, r = radius * scale(rng);
        ring.push_back({centre.x + r * std::cos(angle), centre.y + r * std::sin(angle)});
    }
    return ring;
}

std::vector<Vec2> square(Vec2 min, double side) {
    return {min, {min.x + side, min.y}, {min.x + side, min.y + side}, {min.x, min.y + side}};
}

class RingOracle {
public:
    RingOracle() : ctx(GEOS_init_r()) {}
    ~RingOracle() { GEOS_finish_r(ctx); }
    RingOracle(const RingOracle&) = delete;
    RingOracle& operator=(const RingOracle&) = delete;

    GEOSCoordSequence* sequence(const RingSet& s, std::size_t r) const {
        const std::uint32_t begin = r == 0 ? 0 : s.ends[r - 1], end = s.ends[r];
        GEOSCoordSequence* seq = GEOSCoordSeq_create_r(ctx, end - begin + 1, 2);
        for (std::uint32_t i = begin; i <= end; ++i) {
            const Vec2 p = s.outline[i == end ? begin : i];
            GEOSCoordSeq_setXY_r(ctx, seq, i - begin, p.x, p.y);
        }
        return seq;
    }

    /// Whether the rings are simple and no two touch: as lines, simple to GEOS.
    bool simpleAndApart(const RingSet& s) const {
        std::vector<GEOSGeometry*> lines;
        for (std::size_t r = 0; r < s.ends.size(); ++r)
            lines.push_back(GEOSGeom_createLineString_r(ctx, sequence(s, r)));
        GEOSGeometry* all =
            GEOSGeom_createCollection_r(ctx, GEOS_MULTILINESTRING, lines.data(), static_cast<unsigned>(lines.size()));
        const bool simple = GEOSisSimple_r(ctx, all) == 1;
        GEOSGeom_destroy_r(ctx, all);
        return simple;
    }

    /// Whether each ring turns as its nesting says (shells counter-clockwise at even depth):
    /// then the rings' signed areas add up to their even-odd area.
    bool turnsMatchNesting(const RingSet& s) const {
        GEOSGeometry* acc = GEOSGeom_createEmptyPolygon_r(ctx);
        double signedSum = 0.0;
        for (std::size_t r = 0; r < s.ends.size(); ++r) {
            GEOSGeometry* polygon =
                GEOSGeom_createPolygon_r(ctx, GEOSGeom_createLinearRing_r(ctx, sequence(s, r)), nullptr, 0);
            GEOSGeometry* next = GEOSSymDifference_r(ctx, acc, polygon);
            GEOSGeom_destroy_r(ctx, acc);
            GEOSGeom_destroy_r(ctx, polygon);
            acc = next;
            const std::uint32_t begin = r == 0 ? 0 : s.ends[r - 1], end = s.ends[r];
            for (std::uint32_t i = begin, j = end - 1; i < end; j = i++)
                signedSum += terrabit::core::cross(s.outline[j], s.outline[i]) / 2.0;
        }
        double evenOdd = 0.0;
        GEOSArea_r(ctx, acc, &evenOdd);
        GEOSGeom_destroy_r(ctx, acc);
        return std::abs(signedSum - evenOdd) <= 1e-9 * std::max(1.0, evenOdd);
    }

    /// The polygons the parents make (each shell with the holes whose parent it is): valid to GEOS.
    bool validPolygons(const RingSet& s, const std::vector<int>& parent, const RingNesting& nesting) const {
        std::vector<GEOSGeometry*> polygons;
        for (std::size_t k = 0; k < s.ends.size(); ++k) {
            if (!nesting.isShell(k)) continue;
            std::vector<GEOSGeometry*> holes;
            for (std::size_t h = 0; h < s.ends.size(); ++h) {
                if (parent[h] == static_cast<int>(k)) holes.push_back(GEOSGeom_createLinearRing_r(ctx, sequence(s, h)));
            }
            polygons.push_back(GEOSGeom_createPolygon_r(ctx, GEOSGeom_createLinearRing_r(ctx, sequence(s, k)),
                                                        holes.data(), static_cast<unsigned>(holes.size())));
        }
        GEOSGeometry* all = GEOSGeom_createCollection_r(ctx, GEOS_MULTIPOLYGON, polygons.data(),
                                                        static_cast<unsigned>(polygons.size()));
        const bool valid = GEOSisValid_r(ctx, all) == 1;
        GEOSGeom_destroy_r(ctx, all);
        return valid;
    }

    GEOSContextHandle_t ctx;
};

}  // namespace

TEST(RingNesting, AcceptsExactlyTheRingSetsGeosFindsApartAndNestedAsTheyTurn) {
    RingOracle geos;
    RingNesting nesting;
    std::vector<int> parent;
    int accepted = 0, refused = 0;
    for (unsigned seed = 1; seed <= 400; ++seed) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> at(0.0, 100.0), radius(3.0, 45.0), unit(0.0, 1.0);
        RingSet s;
        const int rings = 1 + static_cast<int>(unit(rng) * 5);
        for (int r = 0; r < rings; ++r) {
            // Rings share a centre now and then: nested stars, a shell with holes and islands.
            const Vec2 centre = r > 0 && unit(rng) < 0.5 ? Vec2{50.0, 50.0} : Vec2{at(rng), at(rng)};
            const double size = centre.x == 50.0 && centre.y == 50.0 ? 45.0 / (1.0 + 2.2 * r) : radius(rng);
            s.add(star(centre, size, 5 + static_cast<int>(unit(rng) * 40), rng), unit(rng) < 0.5);
        }
        const bool expected = geos.simpleAndApart(s) && geos.turnsMatchNesting(s);
        const bool got = nesting.nest(s.outline, s.ends, parent);
        EXPECT_EQ(got, expected) << "seed " << seed;
        if (got) {
            ++accepted;
            EXPECT_TRUE(geos.validPolygons(s, parent, nesting)) << "seed " << seed;
        } else {
            ++refused;
        }
    }
    // Both answers came up often enough to mean something.
    EXPECT_GE(accepted, 50);
    EXPECT_GE(refused, 60);
}

TEST(RingNesting, GivesEachRingTheSmallestRingAroundIt) {
    RingNesting nesting;
    std::vector<int> parent;
    RingSet s;
    s.add(square({0, 0}, 100), false);   // 0: a shell
    s.add(square({10, 10}, 60), true);   // 1: its hole
    s.add(square({20, 20}, 20), false);  // 2: an island in the hole
    s.add(square({80, 80}, 10), true);   // 3: a second hole of the shell
    s.add(square({200, 0}, 10), false);  // 4: a shell apart
    ASSERT_TRUE(nesting.nest(s.outline, s.ends, parent));
    EXPECT_EQ(parent, (std::vector<int>{-1, 0, 1, 0, -1}));
    EXPECT_TRUE(nesting.isShell(0));
    EXPECT_FALSE(nesting.isShell(1));
    EXPECT_TRUE(nesting.isShell(2));
}

TEST(RingNesting, RefusesRingsThatTouchCrossFoldOrTurnAgainstTheirNesting) {
    RingNesting nesting;
    std::vector<int> parent;
    const auto refused = [&](const RingSet& s) { return !nesting.nest(s.outline, s.ends, parent); };
    RingSet touchAtCorner;  // two shells sharing a corner: GEOS would take it, the check asks more
    touchAtCorner.add(square({0, 0}, 10), false);
    touchAtCorner.add(square({10, 10}, 10), false);
    EXPECT_TRUE(refused(touchAtCorner));
    RingSet cornerOnEdge;  // a hole's corner on its shell's edge
    cornerOnEdge.add(square({0, 0}, 20), false);
    cornerOnEdge.add({{0, 10}, {5, 5}, {5, 15}}, false);
    EXPECT_TRUE(refused(cornerOnEdge));
    RingSet crossing;  // two overlapping shells
    crossing.add(square({0, 0}, 10), false);
    crossing.add(square({5, 5}, 10), false);
    EXPECT_TRUE(refused(crossing));
    RingSet bowTie;  // a ring crossing itself
    bowTie.add({{0, 0}, {10, 10}, {10, 0}, {0, 10}}, false);
    EXPECT_TRUE(refused(bowTie));
    RingSet spike;  // a ring folding back on itself
    spike.add({{0, 0}, {10, 0}, {10, 10}, {10, 5}, {0, 10}}, false);
    EXPECT_TRUE(refused(spike));
    RingSet repeated;  // a corner twice in a row
    repeated.add({{0, 0}, {10, 0}, {10, 0}, {10, 10}}, false);
    EXPECT_TRUE(refused(repeated));
    RingSet lonelyHole;  // a clockwise ring in nothing
    lonelyHole.add(square({0, 0}, 10), true);
    EXPECT_TRUE(refused(lonelyHole));
    RingSet shellInShell;  // a shell inside a shell, no hole between
    shellInShell.add(square({0, 0}, 30), false);
    shellInShell.add(square({10, 10}, 5), false);
    EXPECT_TRUE(refused(shellInShell));
    RingSet nearMiss;  // the same shells a hair apart: taken
    nearMiss.add(square({0, 0}, 10), false);
    nearMiss.add(square({10 + 1e-6, 0}, 10), false);
    EXPECT_FALSE(refused(nearMiss));
    RingSet sliver;  // a ring 200 cells long and 1e-7 high: taken, on a grid of bounded size
    sliver.add({{0, 0}, {200, 0}, {200, 1e-7}}, false);
    EXPECT_FALSE(refused(sliver));
    EXPECT_EQ(parent, std::vector<int>{-1});
}
