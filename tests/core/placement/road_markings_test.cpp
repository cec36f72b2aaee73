// Road markings (issue #22): the dashed centre line and the edge lines lie on their road, keep
// their rhythm across tile edges, stop short of junctions, and only wide ways get them.

#include "terrabit/core/placement/road_markings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <span>

#include "placement_test_support.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

/// A primary road east–west and a residential one north–south meeting at a shared node at the
/// middle, a footway beside them, and a service road with no node in common with anything.
SyntheticMap crossingRoads() {
    SyntheticMap m;
    m.line("main", {{"highway", "primary"}}, {{-320, 5}, {0, 5}, {320, 5}});
    m.line("cross", {{"highway", "residential"}}, {{0, -320}, {0, 5}, {0, 320}});
    m.line("walk", {{"highway", "footway"}}, {{-300, 60}, {300, 60}});
    return m;
}

std::string markingRules(bool markings) {
    std::string rules =
        withRoadWidths(syntheticRules(defaultSyntheticPasses()), "{primary: 10, residential: 6, footway: 2}");
    if (markings) {
        const std::string texture = "    texture: gravel\n";
        rules.replace(rules.find(texture), texture.size(), texture + "    markings: lanes\n");
    }
    return rules;
}

Vec2 markingCentroid(std::span<const Vec2> t, std::size_t i) { return (t[i] + t[i + 1] + t[i + 2]) * (1.0 / 3.0); }

/// Whether p lies in one of the shape's triangles (tile cells).
bool onRoadShape(const SurfaceShape& s, Vec2 p) {
    for (std::size_t i = 0; i + 2 < s.triangles.size(); i += 3) {
        const Vec2 a = s.triangles[i], b = s.triangles[i + 1], c = s.triangles[i + 2];
        const double d1 = cross(b - a, p - a), d2 = cross(c - b, p - b), d3 = cross(a - c, p - c);
        if ((d1 <= 0 && d2 <= 0 && d3 <= 0) || (d1 >= 0 && d2 >= 0 && d3 >= 0)) return true;
    }
    return false;
}

struct CrossingBake {
    std::unique_ptr<BakeInput> input;
    Scene scene;
};

CrossingBake bakeCrossing(bool markings, const SyntheticMap& map = crossingRoads()) {
    CrossingBake b;
    b.input = map.build(markingRules(markings));
    b.scene = bakeOnce(*b.input, testCatalogue(), parsePasses(*b.input, markingRules(markings)));
    return b;
}

TEST(RoadMarkings, LieOnTheirRoadAndStopShortOfTheJunction) {
    const CrossingBake b = bakeCrossing(true);
    const double mpc = b.scene.frame.metresPerCell();
    const Vec2 node = b.scene.frame.groundToCell({0, 5});  // the shared node, global cells
    // The junction's clearance: the widest way's half width (primary, 5 m) and a metre.
    const double clearance = (5.0 + 1.0) / mpc;
    std::size_t triangles = 0;
    for (const SurfacePatch& p : b.scene.surfaces) {
        if (p.layer != "road") continue;
        ASSERT_EQ(p.markings.size() % 3, 0u);
        const Vec2 offset{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (std::size_t i = 0; i < p.markings.size(); i += 3) {
            const Vec2 c = markingCentroid(p.markings, i);
            for (std::size_t k = 0; k < 3; ++k) {
                const Vec2 v = p.markings[i + k];
                ASSERT_TRUE(v.x >= 0 && v.x <= kTileCells && v.y >= 0 && v.y <= kTileCells) << "within the tile";
            }
            EXPECT_LT(cross(p.markings[i + 1] - p.markings[i], p.markings[i + 2] - p.markings[i]), 0.0)
                << "counter-clockwise seen from above";
            EXPECT_TRUE(onRoadShape(p.shape, c)) << p.tile.quadkey() << " (" << c.x << ", " << c.y << ")";
            const Vec2 g = c + offset;
            EXPECT_GE(std::sqrt(dot(g - node, g - node)), clearance - 0.1 / mpc) << "a marking in the junction";
            // Not on the footway: every marking lies within 5 m of the primary's or the
            // residential's centreline.
            const Vec2 ground = b.scene.frame.cellToGround(g);
            EXPECT_TRUE(std::abs(ground.y - 5.0) < 5.0 || std::abs(ground.x) < 3.0) << ground.x << ", " << ground.y;
            ++triangles;
        }
    }
    EXPECT_GT(triangles, 200u);
}

TEST(RoadMarkings, DashesKeepTheirRhythmAcrossTileEdges) {
    const CrossingBake b = bakeCrossing(true);
    const double mpc = b.scene.frame.metresPerCell();
    // The primary's centre dashes, in ground metres along x: every piece of every tile.
    struct Piece {
        double lo, hi;
        TileId tile;
        bool operator<(const Piece& o) const { return lo < o.lo; }
    };
    std::vector<Piece> pieces;
    for (const SurfacePatch& p : b.scene.surfaces) {
        const Vec2 offset{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (std::size_t i = 0; i < p.markings.size(); i += 3) {
            const Vec2 c = b.scene.frame.cellToGround(markingCentroid(p.markings, i) + offset);
            if (std::abs(c.y - 5.0) > 0.1 || std::abs(c.x) < 10.0) continue;  // not the primary's centre line
            double lo = 1e9, hi = -1e9;
            for (std::size_t k = 0; k < 3; ++k) {
                const double x = b.scene.frame.cellToGround(p.markings[i + k] + offset).x;
                lo = std::min(lo, x), hi = std::max(hi, x);
            }
            pieces.push_back({lo, hi, p.tile});
        }
    }
    ASSERT_FALSE(pieces.empty());
    std::sort(pieces.begin(), pieces.end());
    std::vector<std::pair<double, double>> dashes;
    std::size_t acrossEdges = 0;  // dashes made of two tiles' pieces
    TileId last;
    for (const Piece& piece : pieces) {
        if (!dashes.empty() && piece.lo <= dashes.back().second + 1e-6) {
            dashes.back().second = std::max(dashes.back().second, piece.hi);
            acrossEdges += !(piece.tile == last);
        } else {
            dashes.emplace_back(piece.lo, piece.hi);
        }
        last = piece.tile;
    }
    EXPECT_GE(acrossEdges, 1u) << "no dash spans a tile edge: the test would not see a broken rhythm";
    // Whole dashes (away from the road's ends and the junction) are 3 m long and 9 m apart,
    // across the tile edges too (some dashes are two tiles' pieces).
    std::size_t whole = 0;
    for (std::size_t i = 1; i + 1 < dashes.size(); ++i) {
        const auto [x0, x1] = dashes[i];
        if (std::abs(x0) < 20.0 || std::abs(x1) < 20.0 || std::abs(x0) > 300.0) continue;
        EXPECT_NEAR(x1 - x0, 3.0, 0.01) << x0;
        EXPECT_NEAR(dashes[i + 1].first - x0, 9.0, 0.01) << x0;
        ++whole;
    }
    EXPECT_GT(whole, 40u);
    (void)mpc;
}

TEST(RoadMarkings, LaneLinesFollowTheLanesTag) {
    // Three ways of one width (10 m): three lanes, one lane, and no tag (two lanes).
    SyntheticMap map;
    map.line("three", {{"highway", "primary"}, {"lanes", "3"}}, {{-300, -150}, {300, -150}});
    map.line("one", {{"highway", "primary"}, {"lanes", "1"}}, {{-300, 0}, {300, 0}});
    map.line("two", {{"highway", "primary"}}, {{-300, 150}, {300, 150}});
    const CrossingBake b = bakeCrossing(true, map);
    // The lateral offsets (decimetres from each way's centreline) that carry paint.
    std::map<int, std::set<int>> offsets;  // way's y → offsets
    for (const SurfacePatch& p : b.scene.surfaces) {
        const Vec2 origin{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (std::size_t i = 0; i < p.markings.size(); i += 3) {
            const Vec2 c = b.scene.frame.cellToGround(markingCentroid(p.markings, i) + origin);
            for (const int y : {-150, 0, 150}) {
                if (std::abs(c.y - y) < 6.0) offsets[y].insert(static_cast<int>(std::lround((c.y - y) * 10.0)));
            }
        }
    }
    // Edge lines: 5 m − 0.3 m inset − half the 0.15 m line = 4.625 m out; lane lines: between
    // lanes of a third (±1.67 m), a half (0) of the width, or none.
    const auto near = [&](int y, double metres) {
        return std::any_of(offsets[y].begin(), offsets[y].end(),
                           [&](int d) { return std::abs(d - metres * 10.0) <= 1.0; });
    };
    for (const int y : {-150, 0, 150}) {
        EXPECT_TRUE(near(y, 4.625) && near(y, -4.625)) << "edge lines of the way at " << y;
    }
    EXPECT_TRUE(near(-150, 5.0 / 3.0) && near(-150, -5.0 / 3.0));
    EXPECT_FALSE(near(-150, 0.0));
    EXPECT_FALSE(near(0, 0.0) || near(0, 5.0 / 3.0) || near(0, -5.0 / 3.0)) << "one lane: no lane line";
    EXPECT_TRUE(near(150, 0.0));
    EXPECT_FALSE(near(150, 5.0 / 3.0));
}

TEST(RoadMarkings, SidewalksLieAlongTheSidesTheirTagsNameAndTheEdgeLinesMoveIn) {
    // Ways heading east (their right is south), 10 m wide: a 2 m sidewalk is a fifth of that.
    SyntheticMap map;
    map.line("right", {{"highway", "primary"}, {"sidewalk", "right"}}, {{-300, -150}, {300, -150}});
    map.line("none", {{"highway", "primary"}, {"sidewalk", "separate"}}, {{-300, 0}, {300, 0}});
    map.line("both", {{"highway", "primary"}, {"sidewalk:both", "yes"}}, {{-300, 150}, {300, 150}});
    const CrossingBake b = bakeCrossing(true, map);
    // Way's y → lateral offsets, north +: of the sidewalks' triangles in metres (a strip's two
    // triangles have their centroids a third of its width either side of its middle), of the
    // markings' in decimetres.
    std::map<int, std::set<int>> walks, lines;
    std::size_t walkTriangles = 0;
    for (const SurfacePatch& p : b.scene.surfaces) {
        const Vec2 origin{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        EXPECT_TRUE(p.paving.empty()) << "a sidewalk is not a footway's paving: it stands on a kerb";
        for (const auto& [triangles, into] : {std::pair{&p.sidewalks, &walks}, std::pair{&p.markings, &lines}}) {
            for (std::size_t i = 0; i < triangles->size(); i += 3) {
                const Vec2 local = markingCentroid(*triangles, i);
                if (triangles == &p.sidewalks) {
                    EXPECT_TRUE(onRoadShape(p.shape, local)) << "a sidewalk off its road";
                    ++walkTriangles;
                }
                const Vec2 c = b.scene.frame.cellToGround(local + origin);
                const double unit = into == &walks ? 1.0 : 10.0;
                for (const int y : {-150, 0, 150}) {
                    if (std::abs(c.y - y) < 6.0) (*into)[y].insert(static_cast<int>(std::lround((c.y - y) * unit)));
                }
            }
        }
    }
    EXPECT_GT(walkTriangles, 100u);
    EXPECT_EQ(walks[-150], (std::set<int>{-4})) << "the right (south) side only, 4 m out";
    EXPECT_TRUE(walks[0].empty()) << "a separately mapped sidewalk is its own way";
    EXPECT_EQ(walks[150], (std::set<int>{-4, 4}));
    // Edge lines: 4.625 m out without a sidewalk, 2.625 m beside one (2 m in).
    const auto has = [](const std::set<int>& s, int d) {
        return s.count(d) > 0 || s.count(d - 1) > 0 || s.count(d + 1) > 0;
    };
    EXPECT_TRUE(has(lines[-150], 46) && has(lines[-150], -26) && !has(lines[-150], -46));
    EXPECT_TRUE(has(lines[0], 46) && has(lines[0], -46));
    EXPECT_TRUE(has(lines[150], 26) && has(lines[150], -26) && has(lines[150], 0));
}

TEST(RoadMarkings, SidewalksCloseRoundTheOutsideOfABend) {
    // East, then a right turn south: the sidewalks' left (north, then east) side is the outside
    // of the bend, where the two segments' strips end apart; a wedge fills the gap.
    SyntheticMap map;
    map.line("bend", {{"highway", "primary"}, {"sidewalk", "both"}}, {{-300, 0}, {0, 0}, {0, -300}});
    const CrossingBake b = bakeCrossing(true, map);
    const auto onSidewalk = [&](Vec2 ground) {
        const Vec2 cell = b.scene.frame.groundToCell(ground);
        for (const SurfacePatch& p : b.scene.surfaces) {
            const Vec2 local = cell - Vec2{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
            if (local.x < 0 || local.y < 0 || local.x >= kTileCells || local.y >= kTileCells) continue;
            SurfaceShape walks;
            walks.triangles = p.sidewalks;
            if (onRoadShape(walks, local)) return true;
        }
        return false;
    };
    // The 10 m road's 2 m sidewalks: 4 m from the centreline along both segments, and at the
    // bend's outside corner, on its bisector, between the strips' ends.
    EXPECT_TRUE(onSidewalk({-20, 4})) << "the left strip before the bend";
    EXPECT_TRUE(onSidewalk({4, -20})) << "the left strip after it";
    EXPECT_TRUE(onSidewalk({2, 2})) << "the outside corner of the bend";
    EXPECT_TRUE(onSidewalk({-20, -4})) << "the right strip";
    EXPECT_FALSE(onSidewalk({0, 0})) << "the carriageway";
}

/// The zebra bars of a bake (markings wider north–south than a road line, 0.15 m): their
/// centroids, ground metres.
std::vector<Vec2> zebraBars(const CrossingBake& b) {
    std::vector<Vec2> bars;
    for (const SurfacePatch& p : b.scene.surfaces) {
        const Vec2 origin{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (std::size_t i = 0; i < p.markings.size(); i += 3) {
            double south = 1e9, north = -1e9;
            for (std::size_t k = i; k < i + 3; ++k) {
                const double y = b.scene.frame.cellToGround(p.markings[k] + origin).y;
                south = std::min(south, y), north = std::max(north, y);
            }
            if (north - south > 0.4)
                bars.push_back(b.scene.frame.cellToGround(markingCentroid(p.markings, i) + origin));
        }
    }
    return bars;
}

TEST(RoadMarkings, AMarkedCrossingPaintsZebraBarsOnTheCarriagewayOnlyAndTheLinesStopAtIt) {
    // A 10 m road east–west at y = 5; footways crossing it north–south, one marked, one not.
    SyntheticMap map;
    map.line("road", {{"highway", "primary"}}, {{-320, 5}, {320, 5}});
    map.line("zebra", {{"highway", "footway"}, {"footway", "crossing"}, {"crossing", "zebra"}},
             {{-50, -40}, {-50, 50}});
    map.line("plain", {{"highway", "footway"}, {"footway", "crossing"}, {"crossing", "unmarked"}},
             {{50, -40}, {50, 50}});
    const CrossingBake b = bakeCrossing(true, map);
    const std::vector<Vec2> bars = zebraBars(b);
    // Bars only at the marked crossing, within the carriageway (±5 m of the road's centreline)
    // and the bars' 3 m length (±1.5 m of the footway), in 1 m steps along it: a bar of two
    // triangles every metre across the 10 m road.
    std::set<long> rows;
    for (const Vec2& c : bars) {
        EXPECT_NEAR(c.x, -50.0, 1.5 + 0.1) << "at the marked crossing, within the bars' length";
        EXPECT_LE(std::abs(c.y - 5.0), 5.0) << "on the carriageway";
        rows.insert(std::lround(std::floor(c.y)));
    }
    EXPECT_GE(bars.size(), 2u * 8u);
    EXPECT_GE(rows.size(), 8u) << "bars one after another across the road";
    // The road's own lines (0.15 m wide) stop short of the marked crossing's bars and run on
    // through the unmarked one.
    std::size_t atZebra = 0, atPlain = 0;
    for (const SurfacePatch& p : b.scene.surfaces) {
        const Vec2 origin{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (std::size_t i = 0; i < p.markings.size(); i += 3) {
            double south = 1e9, north = -1e9, west = 1e9, east = -1e9;
            for (std::size_t k = i; k < i + 3; ++k) {
                const Vec2 g = b.scene.frame.cellToGround(p.markings[k] + origin);
                south = std::min(south, g.y), north = std::max(north, g.y);
                west = std::min(west, g.x), east = std::max(east, g.x);
            }
            if (north - south > 0.4) continue;  // a bar
            for (const auto& [x, count] : {std::pair{-50.0, &atZebra}, std::pair{50.0, &atPlain}}) {
                if (west < x + 1.5 && east > x - 1.5) ++*count;
            }
        }
    }
    EXPECT_EQ(atZebra, 0u) << "a line runs through the zebra";
    EXPECT_GT(atPlain, 0u) << "the lines stopped at an unmarked crossing";
}

TEST(RoadMarkings, AtAZebraTheSidewalksKerbIsLoweredToTheRoad) {
    // The 10 m road east–west at y = 5 with sidewalks both sides (2 m strips, y 0..2 and 8..10),
    // and a marked footway crossing it square at x = -50: its bars reach 1.5 m each way along
    // the road, and there the sidewalks are paving at the road's level instead of raised.
    SyntheticMap map;
    map.line("road", {{"highway", "primary"}, {"sidewalk", "both"}}, {{-320, 5}, {320, 5}});
    map.line("zebra", {{"highway", "footway"}, {"footway", "crossing"}, {"crossing", "zebra"}},
             {{-50, -40}, {-50, 50}});
    const CrossingBake b = bakeCrossing(true, map);
    std::size_t raisedAway = 0, lowered = 0;
    for (const SurfacePatch& p : b.scene.surfaces) {
        const Vec2 origin{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (std::size_t i = 0; i < p.sidewalks.size(); i += 3) {
            const Vec2 c = b.scene.frame.cellToGround(markingCentroid(p.sidewalks, i) + origin);
            EXPECT_GE(std::abs(c.x + 50.0), 1.4) << "a raised sidewalk across the zebra, at " << c.x;
            raisedAway += std::abs(c.x + 50.0) > 10.0;
        }
        for (std::size_t i = 0; i < p.paving.size(); i += 3) {
            const Vec2 c = b.scene.frame.cellToGround(markingCentroid(p.paving, i) + origin);
            const bool onStrip = std::abs(c.y - 1.0) < 1.0 || std::abs(c.y - 9.0) < 1.0;
            lowered += std::abs(c.x + 50.0) < 1.5 && onStrip;
        }
    }
    EXPECT_GT(raisedAway, 20u) << "the sidewalks stand raised away from the crossing";
    EXPECT_GE(lowered, 4u) << "both strips lowered at the crossing";
    // The bars cross the carriageway between the sidewalks (y 2..8), not the lowered kerbs.
    const std::vector<Vec2> bars = zebraBars(b);
    EXPECT_GE(bars.size(), 2u * 5u);
    for (const Vec2& c : bars) {
        EXPECT_GT(c.y, 2.0 - 0.3) << "a bar on the south sidewalk";
        EXPECT_LT(c.y, 8.0 + 0.3) << "a bar on the north sidewalk";
    }
}

TEST(RoadMarkings, AMarkedCrossingMappedAsANodeOfTheRoadPaintsBarsAcrossItThere) {
    // The 10 m road east–west at y = 5 with three crossing nodes on it: a zebra at x = -50, an
    // unmarked one at x = 50, and at x = 150 a zebra that a marked footway crossing also passes
    // through (mapped both ways: painted once).
    SyntheticMap map;
    map.line("road", {{"highway", "primary"}}, {{-320, 5}, {-50, 5}, {50, 5}, {150, 5}, {320, 5}});
    map.point("n-zebra", {{"highway", "crossing"}, {"crossing", "zebra"}}, {-50, 5});
    map.point("n-plain", {{"highway", "crossing"}, {"crossing", "unmarked"}}, {50, 5});
    map.point("n-both", {{"highway", "crossing"}, {"crossing", "marked"}}, {150, 5});
    map.line("path", {{"highway", "footway"}, {"footway", "crossing"}, {"crossing", "marked"}},
             {{150, -40}, {150, 5}, {150, 50}});
    const CrossingBake b = bakeCrossing(true, map);
    std::map<long, std::vector<Vec2>> byCrossing;  // bars by the nearest crossing's x
    for (const Vec2& c : zebraBars(b)) {
        const long x = c.x < 0.0 ? -50 : c.x < 100.0 ? 50 : 150;
        EXPECT_NEAR(c.x, double(x), 1.5 + 0.1) << "within the bars' length of a crossing";
        EXPECT_LE(std::abs(c.y - 5.0), 5.0) << "on the carriageway";
        byCrossing[x].push_back(c);
    }
    EXPECT_EQ(byCrossing.count(50), 0u) << "an unmarked crossing is not painted";
    ASSERT_EQ(byCrossing.count(-50), 1u) << "the zebra node is painted";
    ASSERT_EQ(byCrossing.count(150), 1u);
    // A bar (two triangles) every metre across the 10 m road, at the node as at the path, and
    // the node mapped with a path is not painted twice.
    std::set<long> rows;
    for (const Vec2& c : byCrossing[-50]) rows.insert(std::lround(std::floor(c.y)));
    EXPECT_GE(rows.size(), 8u) << "bars one after another across the road";
    EXPECT_EQ(byCrossing[-50].size(), byCrossing[150].size());
    // Bars centred on the node: as far north of it as south.
    double mean = 0.0;
    for (const Vec2& c : byCrossing[-50]) mean += c.y;
    EXPECT_NEAR(mean / double(byCrossing[-50].size()), 5.0, 0.5);
}

TEST(RoadMarkings, PathsArePavedAndTracksGravelledButNotAcrossACarriageway) {
    SyntheticMap map;
    map.line("main", {{"highway", "primary"}}, {{-300, 0}, {300, 0}});
    map.line("walk", {{"highway", "footway"}}, {{-100, -200}, {-100, 200}});      // crosses main, no shared node
    map.line("steps", {{"highway", "steps"}}, {{50, 40}, {120, 80}, {160, 40}});  // bends
    map.line("farm", {{"highway", "track"}}, {{-250, -120}, {250, -120}});
    const CrossingBake b = bakeCrossing(true, map);
    std::size_t paved = 0, gravelled = 0;
    for (const SurfacePatch& p : b.scene.surfaces) {
        const Vec2 origin{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (const auto& [triangles, count] : {std::pair{&p.paving, &paved}, std::pair{&p.gravel, &gravelled}}) {
            for (std::size_t i = 0; i < triangles->size(); i += 3) {
                const Vec2 local = markingCentroid(*triangles, i);
                EXPECT_TRUE(onRoadShape(p.shape, local)) << "paving or gravel off its way";
                const Vec2 c = b.scene.frame.cellToGround(local + origin);
                // Not on the primary (5 m each side of y = 0), whose markings go on: no corner
                // more than a cell (0.86 m here) into it.
                EXPECT_GE(std::abs(c.y), 4.0) << c.x << ", " << c.y;
                for (std::size_t k = 0; k < 3; ++k) {
                    const double y = b.scene.frame.cellToGround((*triangles)[i + k] + origin).y;
                    if (count == &paved && std::abs(c.x + 100.0) < 1.5) {
                        EXPECT_GE(std::abs(y), 5.0 - 0.9);
                    }
                }
                if (count == &gravelled) {
                    EXPECT_NEAR(c.y, -120.0, 1.5);
                } else {
                    EXPECT_TRUE(std::abs(c.x + 100.0) < 1.5 || (c.x > 45 && c.x < 165)) << c.x << ", " << c.y;
                }
                ++*count;
            }
        }
        // The primary keeps its lines where the footway crosses it.
        for (std::size_t i = 0; i < p.markings.size(); i += 3) {
            const Vec2 c = b.scene.frame.cellToGround(markingCentroid(p.markings, i) + origin);
            EXPECT_LT(std::abs(c.y), 5.0) << "only the primary has markings";
        }
    }
    EXPECT_GT(paved, 100u);
    EXPECT_GT(gravelled, 100u);
}

TEST(RoadMarkings, APedestrianSquareIsPavedOverItsShapeButNotWhereARoadCrossesIt) {
    // A 40 × 30 m square (highway=pedestrian, area=yes) with a 6 m yard in it, and a second one
    // a 10 m primary crosses east–west through its middle.
    SyntheticMap map;
    const std::vector<Vec2> yard{{-3, 97}, {3, 97}, {3, 103}, {-3, 103}};
    map.area("square", {{"highway", "pedestrian"}, {"area", "yes"}},
             {{{-20, 85}, {20, 85}, {20, 115}, {-20, 115}}, yard});
    map.area("crossed", {{"highway", "pedestrian"}, {"area", "yes"}},
             {{{-20, -115}, {20, -115}, {20, -85}, {-20, -85}}});
    map.line("main", {{"highway", "primary"}}, {{-300, -100}, {300, -100}});
    const CrossingBake b = bakeCrossing(true, map);  // its road layer takes areas too
    double square = 0.0, crossed = 0.0;              // paved square metres
    for (const SurfacePatch& p : b.scene.surfaces) {
        const Vec2 origin{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (std::size_t i = 0; i + 2 < p.paving.size(); i += 3) {
            const Vec2 g0 = b.scene.frame.cellToGround(p.paving[i] + origin);
            const Vec2 g1 = b.scene.frame.cellToGround(p.paving[i + 1] + origin);
            const Vec2 g2 = b.scene.frame.cellToGround(p.paving[i + 2] + origin);
            const Vec2 c = (g0 + g1 + g2) * (1.0 / 3.0);
            const double area = 0.5 * std::abs(cross(g1 - g0, g2 - g0));
            EXPECT_TRUE(std::abs(c.x) < 20.0 && std::abs(std::abs(c.y) - 100.0) < 15.0) << "within a square";
            EXPECT_FALSE(std::abs(c.x) < 3.0 && std::abs(c.y - 100.0) < 3.0) << "in the yard";
            EXPECT_GE(std::abs(c.y + 100.0), 4.0) << "on the primary, whose asphalt goes on";
            (c.y > 0.0 ? square : crossed) += area;
        }
    }
    // The square less its yard, and the other less the road's 10 m strip, up to a cell (0.86 m)
    // along the road's two edges.
    EXPECT_NEAR(square, 40.0 * 30.0 - 36.0, 0.01 * 1200.0);
    EXPECT_NEAR(crossed, 40.0 * 20.0, 2.0 * 40.0 * 0.86);
}

TEST(RoadMarkings, OnlyAPassThatAsksPaintsThem) {
    const CrossingBake b = bakeCrossing(false);
    for (const SurfacePatch& p : b.scene.surfaces) EXPECT_TRUE(p.markings.empty()) << p.layer;
}

}  // namespace
}  // namespace terrabit::test
