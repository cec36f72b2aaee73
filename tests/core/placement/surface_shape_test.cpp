// Road and water surfaces in their real shapes (issue #22): they agree with the bit layers cell
// for cell, junctions have neither gaps nor overlaps (their area is GEOS's union area), tiles
// meet without T-junctions, and on the Monaco sample the staircase is gone.

#include <geos_c.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <set>

#include "placement/surface_shape_p.h"
#include "placement_test_support.h"
#include "terrabit/core/placement/surface_shape.h"
#include "terrabit/core/raster/rasterizer.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

double triangleArea(const SurfaceShape& s) {
    double area = 0.0;
    for (std::size_t i = 0; i + 2 < s.triangles.size(); i += 3) {
        area -= 0.5 * cross(s.triangles[i + 1] - s.triangles[i], s.triangles[i + 2] - s.triangles[i]);
    }
    return area;
}

/// Distance from p to the nearest outline edge of s (cells).
double distanceToOutline(const SurfaceShape& s, Vec2 p) {
    double best = 1e300;
    std::uint32_t begin = 0;
    for (const std::uint32_t end : s.ringEnds) {
        for (std::uint32_t i = begin; i < end; ++i) {
            const Vec2 a = s.outline[i], b = s.outline[i + 1 == end ? begin : i + 1];
            const Vec2 d = b - a;
            const double t = std::clamp(dot(p - a, d) / std::max(dot(d, d), 1e-300), 0.0, 1.0);
            best = std::min(best, length(p - (a + d * t)));
        }
        begin = end;
    }
    return best;
}

/// The cells whose centre lies in the triangles (an independent point-in-triangle test).
BitTile cellsInTriangles(const SurfaceShape& s) {
    BitTile out;
    for (std::size_t i = 0; i + 2 < s.triangles.size(); i += 3) {
        const Vec2 a = s.triangles[i], b = s.triangles[i + 1], c = s.triangles[i + 2];
        const int x0 = std::max(0, int(std::floor(std::min({a.x, b.x, c.x}) - 0.5)));
        const int x1 = std::min(255, int(std::ceil(std::max({a.x, b.x, c.x}))));
        const int y0 = std::max(0, int(std::floor(std::min({a.y, b.y, c.y}) - 0.5)));
        const int y1 = std::min(255, int(std::ceil(std::max({a.y, b.y, c.y}))));
        for (int y = y0; y <= y1; ++y) {
            for (int x = x0; x <= x1; ++x) {
                const Vec2 p{x + 0.5, y + 0.5};
                // Clockwise in x-east/y-south maths terms: every edge has p on its right or on it.
                if (cross(b - a, p - a) <= 0 && cross(c - b, p - b) <= 0 && cross(a - c, p - c) <= 0) out.set(x, y);
            }
        }
    }
    return out;
}

BitTile cellsOf(std::span<const CellRect> rects) {
    BitTile out;
    for (const CellRect& r : rects) {
        for (int y = r.y0; y < r.y1; ++y) {
            for (int x = r.x0; x < r.x1; ++x) out.set(x, y);
        }
    }
    return out;
}

/// Cells on which the bits and the shape disagree, and of those the ones further than the
/// arcs' tolerance from the outline (which must be none).
struct Agreement {
    std::size_t cells = 0, differ = 0, beyondTolerance = 0;
    std::string firstBeyond;
};

Agreement agreement(const SurfacePatch& p, double tolerance) {
    Agreement a;
    const BitTile bits = cellsOf(p.rects);
    const BitTile shape = cellsInTriangles(p.shape);
    for (int y = 0; y < kTileCells; ++y) {
        for (int x = 0; x < kTileCells; ++x) {
            a.cells += bits.test(x, y);
            if (bits.test(x, y) == shape.test(x, y)) continue;
            ++a.differ;
            const double d = distanceToOutline(p.shape, {x + 0.5, y + 0.5});
            if (d > tolerance) {
                if (a.beyondTolerance++ == 0) {
                    a.firstBeyond = p.tile.quadkey() + " " + p.layer + " cell (" + std::to_string(x) + ", " +
                                    std::to_string(y) + ") bits " + std::to_string(bits.test(x, y)) + ", " +
                                    std::to_string(d) + " cells from the outline";
                }
            }
        }
    }
    return a;
}

}  // namespace

const Scene& monacoScene() {
    static const Scene scene = [] {
        const BakeInput& in = monaco();
        return bakeOnce(in, shippedCatalogue(), parsePasses(in, defaultRulesText()));
    }();
    return scene;
}

namespace {

TEST(SurfaceShape, MonacoSurfacesAgreeWithTheirBitsUpToTheArcTolerance) {
    const Scene& scene = monacoScene();
    ASSERT_FALSE(scene.surfaces.empty());
    // Arcs are chords within kArcToleranceCells, and GEOS simplifies a buffer's offset curves by
    // up to 1 % of the half width.
    double widest = 0.0;
    for (std::uint32_t e = 0; e < monaco().classified.entries.size(); ++e)
        widest = std::max(widest, monaco().index.sizeCells(e));
    const double tolerance = kArcToleranceCells + 0.01 * widest + 1e-4;
    std::size_t cells = 0, differ = 0;
    for (const SurfacePatch& p : scene.surfaces) {
        ASSERT_FALSE(p.shape.empty()) << p.tile.quadkey() << " " << p.layer;
        const Agreement a = agreement(p, tolerance);
        EXPECT_EQ(a.beyondTolerance, 0u) << a.firstBeyond;
        cells += a.cells;
        differ += a.differ;
    }
    // The tolerance band is thin: nearly every cell agrees.
    EXPECT_LT(double(differ), 0.002 * double(cells)) << differ << " of " << cells;
}

TEST(SurfaceShape, MonacoTrianglesNeitherOverlapNorLeaveGaps) {
    GEOSContextHandle_t ctx = GEOS_init_r();
    for (const SurfacePatch& p : monacoScene().surfaces) {
        // The outline's area from GEOS, against the triangles' summed area: overlapping
        // triangles would add up to more, gaps to less.
        double outlineArea = 0.0;
        std::uint32_t ring = 0, begin = 0;
        for (const std::uint32_t polygonEnd : p.shape.polygonEnds) {
            for (bool shell = true; ring < polygonEnd; ++ring, shell = false) {
                const std::uint32_t end = p.shape.ringEnds[ring];
                std::vector<double> xy;
                for (std::uint32_t i = begin; i <= end; ++i) {
                    const Vec2 v = p.shape.outline[i == end ? begin : i];
                    xy.insert(xy.end(), {v.x, v.y});
                }
                begin = end;
                GEOSGeometry* g = GEOSGeom_createPolygon_r(
                    ctx,
                    GEOSGeom_createLinearRing_r(ctx,
                                                GEOSCoordSeq_copyFromBuffer_r(ctx, xy.data(), xy.size() / 2, 0, 0)),
                    nullptr, 0);
                double a = 0.0;
                GEOSArea_r(ctx, g, &a);
                GEOSGeom_destroy_r(ctx, g);
                outlineArea += shell ? a : -a;
            }
        }
        EXPECT_NEAR(triangleArea(p.shape), outlineArea, 1e-6 * std::max(1.0, outlineArea))
            << p.tile.quadkey() << " " << p.layer;
    }
    GEOS_finish_r(ctx);
}

TEST(SurfaceShape, MonacoTilesShareTheirEdgeCornersWithoutTJunctions) {
    // Per layer and tile: where the triangles' corners lie on each edge of the tile.
    std::map<std::pair<std::string, TileId>, std::array<std::set<double>, 4>> edges;  // west, east, north, south
    for (const SurfacePatch& p : monacoScene().surfaces) {
        auto& e = edges[{p.layer, p.tile}];
        for (const Vec2 v : p.shape.triangles) {
            if (v.x == 0.0) e[0].insert(v.y);
            if (v.x == kTileCells) e[1].insert(v.y);
            if (v.y == 0.0) e[2].insert(v.x);
            if (v.y == kTileCells) e[3].insert(v.x);
        }
    }
    std::size_t shared = 0;
    for (const auto& [key, e] : edges) {
        const auto& [layer, tile] = key;
        if (const auto east = edges.find({layer, TileId{tile.zoom, tile.x + 1u, tile.y}}); east != edges.end()) {
            EXPECT_EQ(e[1], east->second[0]) << layer << " between " << tile.quadkey() << " and its east neighbour";
            shared += e[1].size();
        }
        if (const auto south = edges.find({layer, TileId{tile.zoom, tile.x, tile.y + 1u}}); south != edges.end()) {
            EXPECT_EQ(e[3], south->second[2]) << layer << " between " << tile.quadkey() << " and its south neighbour";
            shared += e[3].size();
        }
    }
    EXPECT_GT(shared, 100u);  // the test saw surfaces crossing tile edges
}

TEST(SurfaceShape, MonacoStaircaseShareAndTriangleCountMeetTheGoals) {
    std::map<std::string, std::vector<const SurfacePatch*>> byKind;
    std::size_t triangles = 0, greedyTriangles = 0;
    for (const SurfacePatch& p : monacoScene().surfaces) {
        byKind[p.layer].push_back(&p);
        triangles += p.shape.triangleCount();
        greedyTriangles += 2 * p.rects.size();
    }
    ASSERT_EQ(byKind.size(), 2u);
    // The sea is closed along the data's extent: those straight edges are where the data ends.
    ASSERT_EQ(monaco().classified.derived.size(), 1u);
    const Box2 m = monaco().classified.derived[0].bounds;
    const double cell = 2.0 * kMercatorHalfWorld / double(kTileCells << 17);
    const Box2 extent{{(m.min.x + kMercatorHalfWorld) / cell, (kMercatorHalfWorld - m.max.y) / cell},
                      {(m.max.x + kMercatorHalfWorld) / cell, (kMercatorHalfWorld - m.min.y) / cell}};
    for (const auto& [layer, patches] : byKind) {
        const double share = staircaseShare(patches, extent);
        std::printf("%s: staircase share %.2f %% of the outline\n", layer.c_str(), 100.0 * share);
        EXPECT_LE(share, 0.15) << layer;
        // The greedy mesh's outline is all staircase.
        std::vector<SurfacePatch> greedy;
        for (const SurfacePatch* p : patches) {
            SurfacePatch g = *p;
            g.shape = {};
            for (const CellRect& r : p->rects) {
                for (const Vec2 corner : {Vec2{double(r.x0), double(r.y0)}, Vec2{double(r.x1), double(r.y0)},
                                          Vec2{double(r.x1), double(r.y1)}, Vec2{double(r.x0), double(r.y1)}}) {
                    g.shape.outline.push_back(corner);
                }
                g.shape.ringEnds.push_back(static_cast<std::uint32_t>(g.shape.outline.size()));
            }
            greedy.push_back(std::move(g));
        }
        std::vector<const SurfacePatch*> greedyPointers;
        for (const SurfacePatch& g : greedy) greedyPointers.push_back(&g);
        EXPECT_EQ(staircaseShare(greedyPointers, extent), 1.0) << layer;
    }
    std::printf("triangles: %zu (greedy mesh: %zu, ratio %.2f)\n", triangles, greedyTriangles,
                double(triangles) / double(greedyTriangles));
    EXPECT_LE(triangles, 2 * greedyTriangles);
}

/// Roads meeting every way they do — a crossing, a T, an acute Y, a bend, a dead end inside
/// another road, a loop — of several widths, and a square mapped as an area.
SyntheticMap junctions(std::uint32_t seed) {
    SyntheticMap m;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> pos(-320, 320);
    m.line("main", {{"highway", "primary"}}, {{-330, 12}, {330, -20}});
    m.line("cross", {{"highway", "residential"}}, {{5, -330}, {-8, 330}});
    m.line("tee", {{"highway", "footway"}}, {{-150, 200}, {-150, 3}});
    m.line("wye", {{"highway", "service"}}, {{100, -3}, {240, 60}, {300, 75}});
    m.line("bend", {{"highway", "track"}}, {{-300, -300}, {-120, -120}, {-300, -60}});
    m.line("stub", {{"highway", "path"}}, {{60, -2}, {62, 5}});
    m.line("loop", {{"highway", "cycleway"}}, {{150, 150}, {250, 150}, {250, 250}, {150, 250}, {150, 150}});
    m.area("square", {{"highway", "pedestrian"}, {"area", "yes"}}, {{{-60, -60}, {-10, -75}, {-20, -20}, {-70, -25}}});
    // And random ways crossing all of them.
    for (int i = 0; i < 12; ++i) {
        m.line("r" + std::to_string(i), {{"highway", i % 2 ? "residential" : "footway"}},
               {{pos(rng), pos(rng)}, {pos(rng), pos(rng)}, {pos(rng), pos(rng)}});
    }
    return m;
}

std::string junctionRules() {
    return withRoadWidths(syntheticRules(defaultSyntheticPasses()),
                          "{primary: 10, residential: 6, service: 4, track: 3, cycleway: 2.5, footway: 2, path: 1.5}");
}

/// GEOS's own union of the road layer's features in a tile (buffers with 64 segments a quarter
/// circle), clipped to the tile: the area the surface must have.
double geosRoadArea(const BakeInput& in, const TileId& tile, int roadLayer) {
    GEOSContextHandle_t ctx = GEOS_init_r();
    const Vec2 offset{double(tile.x) * kTileCells, double(tile.y) * kTileCells};
    std::vector<GEOSGeometry*> parts;
    const auto slot = in.index.slot(tile);
    for (const TileIndex::EntryInfo& info : in.index.entryInfos(*slot)) {
        if (info.layer != roadLayer) continue;
        std::vector<double> xy;
        const auto cells = in.index.cells(info);
        for (const Vec2& c : cells) xy.insert(xy.end(), {c.x - offset.x, c.y - offset.y});
        if (info.kind == FeatureKind::Area && !(cells.front() == cells.back())) {
            xy.insert(xy.end(), {cells.front().x - offset.x, cells.front().y - offset.y});
        }
        GEOSCoordSequence* seq = GEOSCoordSeq_copyFromBuffer_r(ctx, xy.data(), xy.size() / 2, 0, 0);
        if (info.kind == FeatureKind::Area) {
            parts.push_back(GEOSGeom_createPolygon_r(ctx, GEOSGeom_createLinearRing_r(ctx, seq), nullptr, 0));
        } else {
            GEOSGeometry* line = GEOSGeom_createLineString_r(ctx, seq);
            parts.push_back(
                GEOSBufferWithStyle_r(ctx, line, info.sizeCells, 64, GEOSBUF_CAP_ROUND, GEOSBUF_JOIN_ROUND, 5));
            GEOSGeom_destroy_r(ctx, line);
        }
    }
    GEOSGeometry* all = GEOSGeom_createCollection_r(ctx, GEOS_GEOMETRYCOLLECTION, parts.data(), unsigned(parts.size()));
    GEOSGeometry* united = GEOSUnaryUnion_r(ctx, all);
    GEOSGeometry* clipped = GEOSClipByRect_r(ctx, united, 0, 0, kTileCells, kTileCells);
    double area = 0.0;
    GEOSArea_r(ctx, clipped, &area);
    for (GEOSGeometry* g : {all, united, clipped}) GEOSGeom_destroy_r(ctx, g);
    GEOS_finish_r(ctx);
    return area;
}

TEST(SurfaceShape, JunctionsHaveTheAreaOfGeosUnionWithoutGapsOrOverlaps) {
    for (const std::uint32_t seed : {1u, 2u, 3u}) {
        const auto in = junctions(seed).build(junctionRules());
        ASSERT_TRUE(in);
        const Scene scene = bakeOnce(*in, testCatalogue(), parsePasses(*in, junctionRules()));
        int road = -1;
        for (std::size_t l = 0; l < in->classified.layers.size(); ++l) {
            if (in->classified.layers[l].name == "road") road = int(l);
        }
        std::size_t checked = 0;
        for (const SurfacePatch& p : scene.surfaces) {
            if (p.layer != "road") continue;
            const double expected = geosRoadArea(*in, p.tile, road);
            // Overlapping triangles would add up to more than the union, gaps to less; the arcs'
            // chords lose a sliver.
            EXPECT_NEAR(triangleArea(p.shape), expected, 0.001 * expected)
                << "seed " << seed << " " << p.tile.quadkey();
            const Agreement a = agreement(p, kArcToleranceCells + 0.01 * 5.0 + 1e-4);
            EXPECT_EQ(a.beyondTolerance, 0u) << a.firstBeyond;
            ++checked;
        }
        EXPECT_EQ(checked, 9u);
    }
}

}  // namespace
}  // namespace terrabit::test
