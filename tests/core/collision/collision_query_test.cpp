#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <set>

#include "../support/memory_layer_source.h"
#include "terrabit/core/collision/collision_query.h"
#include "terrabit/core/collision/probe_spec.h"

using namespace terrabit::core;
using terrabit::test::MemoryLayerSource;

namespace {

constexpr int kZoom = 17;
constexpr std::uint32_t kTx0 = 68200;  // an arbitrary 3×3 block of z17 tiles
constexpr std::uint32_t kTy0 = 47800;

/// Three random layers over a 3×3 block of tiles (the centre tile of the block has no "water").
struct Region {
    MemoryLayerSource source{{"building", "road", "water"}};
    std::vector<TileId> tiles;
    CollisionGrid grid;

    explicit Region(double density, std::uint64_t seed = 7) {
        std::mt19937_64 rng(seed);
        for (std::uint32_t y = 0; y < 3; ++y)
            for (std::uint32_t x = 0; x < 3; ++x) {
                const TileId t{kZoom, kTx0 + x, kTy0 + y};
                tiles.push_back(t);
                source.randomize(t, 0, density, rng);
                source.randomize(t, 1, density, rng);
                if (!(x == 1 && y == 1)) source.randomize(t, 2, density, rng);
            }
        const std::array<std::string, 3> names{"building", "road", "water"};
        grid = *CollisionGrid::build(source, tiles, names);
    }

    /// Slow reference: the layers set at a global cell, straight from the source.
    std::uint64_t layersAt(std::int64_t gx, std::int64_t gy, std::uint64_t mask = kAllLayers) const {
        if (gx < std::int64_t{kTx0} * 256 || gy < std::int64_t{kTy0} * 256 || gx >= std::int64_t{kTx0 + 3} * 256 ||
            gy >= std::int64_t{kTy0 + 3} * 256) {
            return 0;
        }
        const TileId t{kZoom, static_cast<std::uint32_t>(gx / 256), static_cast<std::uint32_t>(gy / 256)};
        std::uint64_t r = 0;
        for (int l = 0; l < 3; ++l) {
            const BitTile* bits = source.tile(t, l);
            if (((mask >> l) & 1u) && bits && bits->test(static_cast<int>(gx % 256), static_cast<int>(gy % 256)))
                r |= 1u << l;
        }
        return r;
    }

    Vec2 randomPoint(std::mt19937_64& rng) const {
        // Points over the region plus a margin outside it.
        std::uniform_real_distribution<double> ux(kTx0 * 256.0 - 20, (kTx0 + 3) * 256.0 + 20);
        std::uniform_real_distribution<double> uy(kTy0 * 256.0 - 20, (kTy0 + 3) * 256.0 + 20);
        return {ux(rng), uy(rng)};
    }
};

/// Exact test: does the closed convex polygon `poly` meet the open cell (x, y)? Separating axes:
/// the cell's two axes and every edge normal of the polygon.
bool convexMeetsOpenCell(const std::vector<Vec2>& poly, std::int64_t x, std::int64_t y) {
    const std::array<Vec2, 4> cell{Vec2{double(x), double(y)}, Vec2{double(x + 1), double(y)},
                                   Vec2{double(x + 1), double(y + 1)}, Vec2{double(x), double(y + 1)}};
    std::vector<Vec2> axes{{1, 0}, {0, 1}};
    for (std::size_t i = 0; i < poly.size(); ++i) {
        const Vec2 e = poly[(i + 1) % poly.size()] - poly[i];
        if (e.x != 0 || e.y != 0) axes.push_back({-e.y, e.x});
    }
    for (const Vec2& a : axes) {
        double pmin = 1e300, pmax = -1e300, cmin = 1e300, cmax = -1e300;
        for (const Vec2& p : poly) {
            pmin = std::min(pmin, dot(p, a));
            pmax = std::max(pmax, dot(p, a));
        }
        for (const Vec2& c : cell) {
            cmin = std::min(cmin, dot(c, a));
            cmax = std::max(cmax, dot(c, a));
        }
        if (!(pmax > cmin && pmin < cmax)) return false;
    }
    return true;
}

/// Exact test: does the closed disk meet the open cell (x, y)?
bool diskMeetsOpenCell(Vec2 c, double r, std::int64_t x, std::int64_t y) {
    const double nx = std::clamp(c.x, double(x), double(x + 1));
    const double ny = std::clamp(c.y, double(y), double(y + 1));
    return (nx - c.x) * (nx - c.x) + (ny - c.y) * (ny - c.y) < r * r;
}

/// The reference answer for a shape given by its cell predicate over a cell window.
template <class Covers>
std::pair<std::uint64_t, std::set<std::pair<std::int64_t, std::int64_t>>> reference(const Region& region, Box2 bounds,
                                                                                    Covers covers) {
    std::uint64_t layers = 0;
    std::set<std::pair<std::int64_t, std::int64_t>> cells;
    for (auto y = std::int64_t(std::floor(bounds.min.y)) - 1; y <= std::int64_t(std::floor(bounds.max.y)) + 1; ++y)
        for (auto x = std::int64_t(std::floor(bounds.min.x)) - 1; x <= std::int64_t(std::floor(bounds.max.x)) + 1;
             ++x) {
            if (!covers(x, y)) continue;
            const std::uint64_t l = region.layersAt(x, y);
            layers |= l;
            if (l) cells.insert({x, y});
        }
    return {layers, cells};
}

std::set<std::pair<std::int64_t, std::int64_t>> cellsOf(const std::vector<CellHit>& hits) {
    std::set<std::pair<std::int64_t, std::int64_t>> s;
    for (const CellHit& h : hits) s.insert({h.x, h.y});
    return s;
}

Box2 boundsOf(const std::vector<Vec2>& pts) {
    Box2 b;
    for (const Vec2& p : pts) b.extend(p);
    return b;
}

}  // namespace

TEST(CollisionQuery, PointProbesMatchPerCellLookupAcrossTileBorders) {
    Region region(0.3);
    CollisionQuery q(region.grid);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 200000; ++i) {
        const Vec2 p = region.randomPoint(rng);
        const auto gx = static_cast<std::int64_t>(std::floor(p.x));
        const auto gy = static_cast<std::int64_t>(std::floor(p.y));
        ASSERT_EQ(q.point(p).layers, region.layersAt(gx, gy)) << p.x << "," << p.y;
        ASSERT_EQ(q.point(p, 0b010).layers, region.layersAt(gx, gy, 0b010));
        ASSERT_EQ(q.pointHits(p, 2), ((region.layersAt(gx, gy) >> 2) & 1u) != 0);
    }
}

TEST(CollisionQuery, RectanglesMatchBruteForce) {
    Region region(0.002);
    CollisionQuery q(region.grid);
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> size(0.0, 12.0);
    int hits = 0;
    for (int i = 0; i < 3000; ++i) {
        const Vec2 p = region.randomPoint(rng);
        const Box2 box{p, p + Vec2{size(rng), size(rng)}};
        std::vector<CellHit> found;
        const ProbeResult r = q.rectangle(box, kAllLayers, &found);
        const std::vector<Vec2> poly{box.min, {box.max.x, box.min.y}, box.max, {box.min.x, box.max.y}};
        auto [layers, cells] = reference(region, box, [&](auto x, auto y) { return convexMeetsOpenCell(poly, x, y); });
        ASSERT_EQ(r.layers, layers) << i;
        ASSERT_EQ(cellsOf(found), cells) << i;
        ASSERT_EQ(q.rectangle(box).layers, layers) << i;  // the yes/no fast path
        ASSERT_EQ(q.rectangle(box, 0b100).layers, layers & 0b100) << i;
        ASSERT_EQ(q.rectangleHits(box, 1), ((layers >> 1) & 1u) != 0) << i;
        hits += r.hit();
    }
    EXPECT_GT(hits, 100);  // the reference is exercised on both answers
    EXPECT_LT(hits, 2900);
}

TEST(CollisionQuery, TrianglesOrientedRectanglesAndSegmentsMatchBruteForce) {
    Region region(0.002);
    CollisionQuery q(region.grid);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> off(-8.0, 8.0);
    std::uniform_real_distribution<double> angle(0.0, 6.283185307179586);
    for (int i = 0; i < 2000; ++i) {
        const Vec2 p = region.randomPoint(rng);
        {
            const std::vector<Vec2> tri{p, p + Vec2{off(rng), off(rng)}, p + Vec2{off(rng), off(rng)}};
            std::vector<CellHit> found;
            const ProbeResult r = q.triangle(tri[0], tri[1], tri[2], kAllLayers, &found);
            auto [layers, cells] =
                reference(region, boundsOf(tri), [&](auto x, auto y) { return convexMeetsOpenCell(tri, x, y); });
            ASSERT_EQ(r.layers, layers) << "triangle " << i;
            ASSERT_EQ(cellsOf(found), cells) << "triangle " << i;
        }
        {
            const Vec2 half{std::fabs(off(rng)) / 2, std::fabs(off(rng)) / 2};
            const double a = angle(rng);
            const double c = std::cos(a), s = std::sin(a);
            const Vec2 u{c * half.x, -s * half.x}, v{s * half.y, c * half.y};
            const std::vector<Vec2> rect{p - u - v, p + u - v, p + u + v, p - u + v};
            std::vector<CellHit> found;
            const ProbeResult r = q.orientedRectangle(p, half, a, kAllLayers, &found);
            auto [layers, cells] =
                reference(region, boundsOf(rect), [&](auto x, auto y) { return convexMeetsOpenCell(rect, x, y); });
            ASSERT_EQ(r.layers, layers) << "oriented rectangle " << i;
            ASSERT_EQ(cellsOf(found), cells) << "oriented rectangle " << i;
        }
        {
            const std::vector<Vec2> seg{p, p + Vec2{off(rng) * 3, off(rng) * 3}};
            std::vector<CellHit> found;
            const ProbeResult r = q.segment(seg[0], seg[1], kAllLayers, &found);
            auto [layers, cells] =
                reference(region, boundsOf(seg), [&](auto x, auto y) { return convexMeetsOpenCell(seg, x, y); });
            ASSERT_EQ(r.layers, layers) << "segment " << i;
            ASSERT_EQ(cellsOf(found), cells) << "segment " << i;
        }
    }
}

TEST(CollisionQuery, DisksMatchBruteForce) {
    Region region(0.002);
    CollisionQuery q(region.grid);
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> radius(0.05, 9.0);
    for (int i = 0; i < 3000; ++i) {
        const Vec2 c = region.randomPoint(rng);
        const double r = radius(rng);
        std::vector<CellHit> found;
        const ProbeResult res = q.disk(c, r, kAllLayers, &found);
        auto [layers, cells] = reference(region, Box2{c - Vec2{r, r}, c + Vec2{r, r}},
                                         [&](auto x, auto y) { return diskMeetsOpenCell(c, r, x, y); });
        ASSERT_EQ(res.layers, layers) << i;
        ASSERT_EQ(cellsOf(found), cells) << i;
    }
}

TEST(CollisionQuery, HitCellsNameTheirLayersAndRespectTheMask) {
    Region region(0.01);
    CollisionQuery q(region.grid);
    const Vec2 p{kTx0 * 256.0 + 250.5, kTy0 * 256.0 + 250.5};  // straddles four tiles
    std::vector<CellHit> found;
    const ProbeResult r = q.rectangle(Box2{p, p + Vec2{12, 12}}, 0b101, &found);
    EXPECT_EQ(r.layers & 0b010, 0u);
    for (const CellHit& h : found) {
        EXPECT_EQ(h.layers, region.layersAt(h.x, h.y, 0b101));
        EXPECT_NE(h.layers, 0u);
    }
}

TEST(CollisionQuery, ProbesOutsideTheRegionOrWithNaNAreClear) {
    Region region(1.0);  // everything set
    CollisionQuery q(region.grid);
    EXPECT_FALSE(q.point({kTx0 * 256.0 - 0.5, kTy0 * 256.0 + 3}).hit());
    EXPECT_FALSE(q.point({std::nan(""), 3}).hit());
    EXPECT_FALSE(q.rectangle(Box2{{0, 0}, {10, 10}}).hit());
    EXPECT_FALSE(q.triangle({std::nan(""), 0}, {1, 1}, {2, 0}).hit());
    EXPECT_TRUE(q.point({kTx0 * 256.0 + 0.5, kTy0 * 256.0 + 0.5}).hit());
}

TEST(CollisionQuery, ShapeTouchingAWallOnlyAtItsBorderIsClear) {
    MemoryLayerSource source({"building"});
    const TileId t{kZoom, kTx0, kTy0};
    source.at(t, 0).set(10, 10);
    const std::array<std::string, 1> names{"building"};
    CollisionGrid grid = *CollisionGrid::build(source, std::span<const TileId>(&t, 1), names);
    CollisionQuery q(grid);
    const double x0 = kTx0 * 256.0, y0 = kTy0 * 256.0;
    EXPECT_FALSE(q.rectangle(Box2{{x0 + 8, y0 + 10}, {x0 + 10, y0 + 11}}).hit());    // flush west
    EXPECT_TRUE(q.rectangle(Box2{{x0 + 8, y0 + 10}, {x0 + 10.01, y0 + 11}}).hit());  // overlaps
    EXPECT_FALSE(q.disk({x0 + 9, y0 + 10.5}, 1.0).hit());                            // tangent
    EXPECT_TRUE(q.disk({x0 + 9, y0 + 10.5}, 1.01).hit());
}

TEST(CollisionGrid, WalkableIsTheComplementOfTheBlockingLayers) {
    Region region(0.2);
    const TileId t{kZoom, kTx0 + 1, kTy0};
    const BitTile walk = region.grid.walkable(t, 0b011);
    for (int y = 0; y < 256; ++y)
        for (int x = 0; x < 256; ++x)
            ASSERT_EQ(walk.test(x, y), region.layersAt(t.x * 256 + x, t.y * 256 + y, 0b011) == 0);
}

TEST(CollisionGrid, BuildReportsUnknownLayersAndMixedZooms) {
    MemoryLayerSource source({"building"});
    const std::array<TileId, 2> mixed{TileId{17, 1, 1}, TileId{16, 1, 1}};
    const std::array<std::string, 1> building{"building"};
    auto r1 = CollisionGrid::build(source, mixed, building);
    ASSERT_FALSE(r1.ok());
    EXPECT_NE(r1.message().find("zoom"), std::string::npos);
    const std::array<TileId, 1> one{TileId{17, 1, 1}};
    const std::array<std::string, 1> typo{"buildng"};
    auto r2 = CollisionGrid::build(source, one, typo);
    ASSERT_FALSE(r2.ok());
    EXPECT_NE(r2.message().find("buildng"), std::string::npos);
}

TEST(CollisionGrid, CopiesKeepTheirOwnBits) {
    Region region(0.5);
    CollisionGrid copy = region.grid;
    region.grid = CollisionGrid();  // the original goes away
    CollisionQuery q(copy);
    std::mt19937_64 rng(9);
    for (int i = 0; i < 1000; ++i) {
        const Vec2 p = region.randomPoint(rng);
        ASSERT_EQ(q.point(p).layers, region.layersAt(std::int64_t(std::floor(p.x)), std::int64_t(std::floor(p.y))));
    }
}

// Issue #21: a probe whose size cannot be represented in cells answered `clear`.
TEST(ProbeSpec, SizesBeyondTheEarthAndNonFiniteNumbersAreParseErrors) {
    const auto message = [](std::string_view line) {
        Result<ProbeSpec> p = parseProbe(line);
        return p ? std::string("ok") : p.message();
    };
    EXPECT_EQ(message("orect 7.42 43.73 1e308 4 45"),
              "a rectangle's width of 1e+308 m is larger than the Earth (the limit is 41,000,000 m)");
    EXPECT_EQ(message("rect 7.42 43.73 4 4.2e7"),
              "a rectangle's height of 4.2e+07 m is larger than the Earth (the limit is 41,000,000 m)");
    EXPECT_EQ(message("disk 7.42 43.73 1e300"),
              "a disk's radius of 1e+300 m is larger than the Earth (the limit is 41,000,000 m)");
    EXPECT_EQ(message("disk 7.42 43.73 -0.5"), "a disk's radius must not be negative");
    EXPECT_EQ(message("rect 7.42 43.73 -1 4"), "a rectangle's width must not be negative");
    EXPECT_EQ(message("disk 7.42 43.73 inf"), "'inf' is not a number");
    EXPECT_EQ(message("point nan 43.73"), "'nan' is not a number");
    EXPECT_EQ(message("point 7.42 -infinity"), "'-infinity' is not a number");
    EXPECT_EQ(message("orect 7.42 43.73 4 4 nan"), "'nan' is not a number");
    EXPECT_EQ(message("segment 7.42 43.73 1e309 43.74"), "'1e309' is not a number");
    EXPECT_EQ(message("point 180.5 43.73"), "longitude 180.5 is outside -180..180");
    EXPECT_EQ(message("point 7.42 85.06"), "latitude 85.06 is outside -85.05..85.05");
    EXPECT_EQ(message("point 1e308 1e308"), "longitude 1e+308 is outside -180..180");  // not 309 digits
    // The bound itself and everything below it are probes.
    EXPECT_EQ(message("rect 7.42 43.73 41000000 41000000"), "ok");
    EXPECT_EQ(message("disk 7.42 43.73 0"), "ok");
}
