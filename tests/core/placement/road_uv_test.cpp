// Road texture coordinates (issue #22): a road surface's texture runs along each way — metres
// along it from its first vertex and across it from its centreline — continuously round bends
// and across tile edges, each way its own at a junction, and nothing where no way reaches.

#include "terrabit/core/placement/road_uv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "placement_test_support.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

std::string roadUvRules() {
    return withRoadWidths(syntheticRules(defaultSyntheticPasses()), "{primary: 10, residential: 6}");
}

struct RoadUvBake {
    std::unique_ptr<BakeInput> input;
    Scene scene;
};

RoadUvBake bakeRoads(const SyntheticMap& map) {
    RoadUvBake b;
    b.input = map.build(roadUvRules());
    b.scene = bakeOnce(*b.input, testCatalogue(), parsePasses(*b.input, roadUvRules()));
    return b;
}

/// A ground-metre polyline (x east, y north) measured independently of the code under test.
struct Polyline {
    std::vector<Vec2> points;

    double lengthTo(std::size_t segment) const {
        double s = 0.0;
        for (std::size_t i = 0; i < segment; ++i) s += length(points[i + 1] - points[i]);
        return s;
    }
    /// The distance along it to the foot of p on its nearest segment, and p's signed distance
    /// from it (positive to the left: counter-clockwise of the direction, seen from above).
    std::pair<double, double> project(Vec2 p) const {
        double best = 1e300, along = 0.0, across = 0.0;
        for (std::size_t i = 0; i + 1 < points.size(); ++i) {
            const Vec2 a = points[i], b = points[i + 1];
            const double len = length(b - a);
            const Vec2 d = (b - a) * (1.0 / len);
            const double t = std::clamp(dot(p - a, d), 0.0, len);
            const double dist = length(p - (a + d * t));
            if (dist < best) {
                best = dist;
                along = lengthTo(i) + t;
                across = cross(d, p - a);  // ground y north: left is counter-clockwise
            }
        }
        return {along, across};
    }
    /// The distance from p to the nearest vertex other than the two ends.
    double toBend(Vec2 p) const {
        double best = 1e300;
        for (std::size_t i = 1; i + 1 < points.size(); ++i) best = std::min(best, length(p - points[i]));
        return best;
    }
};

/// The road coordinates the bake gives a ground point (x east, y north): interpolated in the
/// road triangle holding it; nullopt when no road triangle holds it or it has none.
std::optional<Vec2> roadUvAt(const Scene& scene, Vec2 ground) {
    const Vec2 cell = scene.frame.groundToCell(ground);
    const TileId tile{scene.frame.zoom, static_cast<std::uint32_t>(std::floor(cell.x / kTileCells)),
                      static_cast<std::uint32_t>(std::floor(cell.y / kTileCells))};
    const Vec2 local = cell - Vec2{double(tile.x) * kTileCells, double(tile.y) * kTileCells};
    for (const SurfacePatch& p : scene.surfaces) {
        if (p.layer != "road" || !(p.tile == tile) || p.roadUv.size() != p.shape.triangles.size()) continue;
        const auto& t = p.shape.triangles;
        for (std::size_t i = 0; i + 2 < t.size(); i += 3) {
            const double area = cross(t[i + 1] - t[i], t[i + 2] - t[i]);
            const double w0 = cross(t[i + 1] - local, t[i + 2] - local) / area;
            const double w1 = cross(t[i + 2] - local, t[i] - local) / area;
            const double w2 = 1.0 - w0 - w1;
            if (w0 < -1e-9 || w1 < -1e-9 || w2 < -1e-9) continue;
            const Vec2 uv = p.roadUv[i] * w0 + p.roadUv[i + 1] * w1 + p.roadUv[i + 2] * w2;
            if (!isFinite(uv)) return std::nullopt;
            return uv;
        }
    }
    return std::nullopt;
}

/// The tangent of half the turn of the test road's bends (each turns by atan(150 / 200)).
const double kBendMitreTangent = std::tan(0.5 * std::atan2(150.0, 200.0));

TEST(RoadUv, CornersAwayFromBendsAreTheirDistanceAlongAndAcrossTheWay) {
    // Two bends, across three tiles.
    const Polyline road{{{-300, -60}, {-160, -60}, {40, 90}, {300, 90}}};
    SyntheticMap map;
    map.line("bent", {{"highway", "primary"}}, road.points);
    const RoadUvBake b = bakeRoads(map);
    std::size_t checked = 0, tiles = 0;
    for (const SurfacePatch& p : b.scene.surfaces) {
        if (p.layer != "road") continue;
        ASSERT_EQ(p.roadUv.size(), p.shape.triangles.size()) << "one pair per corner of a textured road";
        ++tiles;
        const Vec2 offset{double(p.tile.x) * kTileCells, double(p.tile.y) * kTileCells};
        for (std::size_t k = 0; k < p.roadUv.size(); ++k) {
            ASSERT_TRUE(isFinite(p.roadUv[k])) << "every triangle of a lone road lies in it";
            const Vec2 ground = b.scene.frame.cellToGround(p.shape.triangles[k] + offset);
            // Away from the bends (where the nearest segment is the one a corner lies along) the
            // coordinate across is the distance from the centreline, and the one along is the
            // foot's distance along it, but for how a bend's mitre line sets the segment's ends
            // off the foot: by up to the offset times the mitre's tangent (tan 18.4° here), a
            // shift spread evenly over the segment as a mitred quad strip spreads it.
            // The round caps at the ends run on beyond them (below 0, past the length).
            if (road.toBend(ground) < 12.0 || length(ground - road.points.front()) < 6.0 ||
                length(ground - road.points.back()) < 6.0) {
                continue;
            }
            const auto [along, across] = road.project(ground);
            EXPECT_NEAR(p.roadUv[k].y, across, 0.02) << "corner " << k << " of tile " << p.tile.quadkey();
            EXPECT_NEAR(p.roadUv[k].x, along, 0.02 + std::abs(across) * kBendMitreTangent)
                << "corner " << k << " of tile " << p.tile.quadkey();
            EXPECT_LE(std::abs(p.roadUv[k].y), 5.0 + 0.2) << "within the half width";
            ++checked;
        }
    }
    EXPECT_GE(tiles, 3u) << "the road crosses tile edges";
    EXPECT_GT(checked, 10u);
}

TEST(RoadUv, RunOnContinuouslyRoundBendsAndAcrossTileEdges) {
    const Polyline road{{{-300, -60}, {-160, -60}, {40, 90}, {300, 90}}};
    SyntheticMap map;
    map.line("bent", {{"highway", "primary"}}, road.points);
    const RoadUvBake b = bakeRoads(map);
    // Walk lines parallel to the road (mitred at the bends, as a driver keeping to a lane does)
    // in 0.25 m steps: the coordinates along rise smoothly, never jump, and the ones across
    // stay the lane's offset. Each walk crosses two tile edges and both bends.
    constexpr double kStep = 0.25;
    for (const double lane : {-4.0, -2.0, 0.0, 2.0, 4.0}) {
        // The mitred parallel: each vertex moved along the bisector of its segments' normals.
        std::vector<Vec2> walk;
        const auto normalOf = [&](std::size_t i) {
            const Vec2 d = road.points[i + 1] - road.points[i];
            return Vec2{-d.y, d.x} * (1.0 / length(d));  // left, ground y north
        };
        for (std::size_t i = 0; i < road.points.size(); ++i) {
            Vec2 n;  // the lane's shift at vertex i per metre of offset
            if (i == 0) {
                n = normalOf(0);
            } else if (i + 1 == road.points.size()) {
                n = normalOf(i - 1);
            } else {
                const Vec2 bisector = normalOf(i - 1) + normalOf(i);
                n = bisector * (1.0 / dot(bisector, normalOf(i)));  // reaches offset 1 from both segments
            }
            walk.push_back(road.points[i] + n * lane);
        }
        std::optional<Vec2> previous;
        std::size_t samples = 0;
        double largestStep = 0.0;
        for (std::size_t i = 0; i + 1 < walk.size(); ++i) {
            const double len = length(walk[i + 1] - walk[i]);
            for (double t = 2.0; t <= len - 2.0; t += kStep) {  // not at the capped ends
                const Vec2 g = walk[i] + (walk[i + 1] - walk[i]) * (t / len);
                const std::optional<Vec2> uv = roadUvAt(b.scene, g);
                ASSERT_TRUE(uv) << "lane " << lane << ": no road coordinates at (" << g.x << ", " << g.y << ")";
                // Across: the lane's offset, to within the interpolation tolerance triangles are
                // cut to at bends. Along: between two mitre lines a lane's coordinate runs evenly
                // from the one the centreline has on the first to the one on the second, to
                // within a bend's mitre shift at the road's edge (half width × the mitre's
                // tangent): a triangle spanning the road's width interpolates linearly a map that
                // is slightly projective where the segment's two mitre lines differ.
                EXPECT_NEAR(uv->y, lane, kRoadUvToleranceMetres + 0.01)
                    << "lane " << lane << " at (" << g.x << ", " << g.y << ")";
                const double centreline = length(road.points[i + 1] - road.points[i]);
                EXPECT_NEAR(uv->x, road.lengthTo(i) + centreline * t / len, 0.05 + 5.0 * kBendMitreTangent)
                    << "lane " << lane << " at (" << g.x << ", " << g.y << ")";
                if (previous) {
                    const double du = uv->x - previous->x;
                    largestStep = std::max(largestStep, du);
                    // Along: rising, by about a step (a lane on the outside of a bend is longer
                    // than the centreline, on the inside shorter), and never a jump.
                    EXPECT_GT(du, 0.0) << "lane " << lane << " at (" << g.x << ", " << g.y << ")";
                    EXPECT_LT(du, 2.0 * kStep) << "lane " << lane << " at (" << g.x << ", " << g.y << ")";
                }
                previous = uv;
                ++samples;
            }
            previous.reset();  // the walk's own corner: it turns there
        }
        EXPECT_GT(samples, 2000u);
        // On the centreline the coordinate along is the distance travelled, as closely.
        if (lane == 0.0) {
            for (const double s : {50.0, 300.0, 500.0}) {
                double left = s;
                std::size_t i = 0;
                while (left > length(road.points[i + 1] - road.points[i])) {
                    left -= length(road.points[i + 1] - road.points[i]);
                    ++i;
                }
                const Vec2 g = road.points[i] + (road.points[i + 1] - road.points[i]) *
                                                    (left / length(road.points[i + 1] - road.points[i]));
                const std::optional<Vec2> uv = roadUvAt(b.scene, g);
                ASSERT_TRUE(uv);
                EXPECT_NEAR(uv->x, s, 0.05 + 5.0 * kBendMitreTangent) << "at " << s << " m along";
            }
        }
    }
}

TEST(RoadUv, EachWayKeepsItsOwnAtAJunctionAndNoWayGivesNone) {
    SyntheticMap map;
    const Polyline main{{{-400, 5}, {0, 5}, {400, 5}}};
    const Polyline side{{{0, -400}, {0, 5}, {0, 400}}};
    map.line("main", {{"highway", "primary"}}, main.points);
    map.line("side", {{"highway", "residential"}}, side.points);
    const RoadUvBake b = bakeRoads(map);
    // Away from the junction each road's coordinates are its own.
    for (const double s : {-300.0, -150.0, -30.0, 30.0, 150.0, 300.0}) {
        for (const auto& [road, g] : {std::pair{&main, Vec2{s, 5 + 3.0}}, std::pair{&side, Vec2{-2.0, s}}}) {
            const std::optional<Vec2> uv = roadUvAt(b.scene, g);
            ASSERT_TRUE(uv) << "(" << g.x << ", " << g.y << ")";
            const auto [along, across] = road->project(g);
            EXPECT_NEAR(uv->x, along, 0.05) << "(" << g.x << ", " << g.y << ")";
            EXPECT_NEAR(uv->y, across, 0.05) << "(" << g.x << ", " << g.y << ")";
        }
    }
    // A triangle far from both roads: no way reaches it.
    const TileId tile = map.tiles()[0];
    std::vector<char> inLayer(b.input->index.map().layers.size(), 1);
    const Vec2 far =
        b.scene.frame.groundToCell({-300, 300}) - Vec2{double(tile.x) * kTileCells, double(tile.y) * kTileCells};
    if (far.x > 2 && far.y > 2 && far.x < kTileCells - 2 && far.y < kTileCells - 2) {
        std::vector<Vec2> uv, triangle{far, far + Vec2{1, 0}, far + Vec2{0, 1}};
        roadTextureCoordinates(b.input->index, tile, inLayer, b.scene.frame.metresPerCell(), false, triangle, uv);
        ASSERT_EQ(uv.size(), 3u);
        EXPECT_EQ(triangle, (std::vector<Vec2>{far, far + Vec2{1, 0}, far + Vec2{0, 1}})) << "left as it was";
        for (const Vec2& v : uv) EXPECT_FALSE(std::isfinite(v.x) || std::isfinite(v.y));
    } else {
        ADD_FAILURE() << "the far point should lie inside the first tile";
    }
}

}  // namespace
}  // namespace terrabit::test
