// Randomized differential test: thousands of random polygons (convex, concave, with holes,
// self-intersecting; both fill rules; generic and grid-aligned coordinates, inside and across the
// tile border) rasterized by the scanline Rasterizer and by the slow per-cell references in
// reference_raster.h must give identical bits, under the centre rule and in conservative mode.
// The seed is fixed, so a failure reproduces; the message names the polygon's index and kind.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "reference_raster.h"
#include "terrabit/core/raster/rasterizer.h"

using namespace terrabit::core;
using terrabit::test::Shape;

namespace {

enum class Kind { Convex, Concave, WithHoles, SelfIntersecting };
const char* name(Kind k) {
    switch (k) {
        case Kind::Convex:
            return "convex";
        case Kind::Concave:
            return "concave";
        case Kind::WithHoles:
            return "with holes";
        case Kind::SelfIntersecting:
            return "self-intersecting";
    }
    return "?";
}

class PolygonMaker {
public:
    explicit PolygonMaker(std::uint64_t seed) : mRng(seed) {}

    /// A random shape of the given kind. Coordinates are generic doubles or, one time in two,
    /// snapped to a grid of 1/2, 1/4 or 1/64 cell so that vertices and crossings land exactly on
    /// cell centres and borders (the ties the coverage rules decide).
    Shape make(Kind kind) {
        mSnap = pick(0, 5);
        const Vec2 centre{uniform(-40.0, 296.0), uniform(-40.0, 296.0)};
        const double radius = std::exp(uniform(std::log(0.7), std::log(70.0)));
        Shape s;
        switch (kind) {
            case Kind::Convex:
                s.addRing(starRing(centre, radius, pick(3, 12), 1.0, 1.0));
                break;
            case Kind::Concave:
                s.addRing(starRing(centre, radius, pick(5, 16), 0.3, 1.0));
                break;
            case Kind::WithHoles: {
                s.addRing(starRing(centre, radius, pick(4, 12), 0.7, 1.0));
                const int holes = pick(1, 3);
                for (int h = 0; h < holes; ++h) {
                    const Vec2 hc = centre + Vec2{uniform(-0.4, 0.4), uniform(-0.4, 0.4)} * radius;
                    std::vector<Vec2> hole = starRing(hc, radius * uniform(0.1, 0.35), pick(3, 8), 0.6, 1.0);
                    if (pick(0, 1)) std::reverse(hole.begin(), hole.end());
                    s.addRing(hole);
                }
                break;
            }
            case Kind::SelfIntersecting: {
                std::vector<Vec2> ring(static_cast<std::size_t>(pick(4, 14)));
                for (Vec2& p : ring) p = snap(centre + Vec2{uniform(-1, 1), uniform(-1, 1)} * radius);
                s.addRing(ring);
                break;
            }
        }
        return s;
    }

private:
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(mRng); }
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(mRng); }

    Vec2 snap(Vec2 p) const {
        const double step = mSnap == 0 ? 0.5 : mSnap == 1 ? 0.25 : mSnap == 2 ? 1.0 / 64.0 : 0.0;
        if (step == 0.0) return p;
        return {std::round(p.x / step) * step, std::round(p.y / step) * step};
    }

    /// Vertices at sorted random angles with radii in [minScale, maxScale] x radius: convex when
    /// the scales are 1, star-shaped (concave) otherwise. Random orientation and start vertex.
    std::vector<Vec2> starRing(Vec2 c, double radius, int n, double minScale, double maxScale) {
        std::vector<double> angles(static_cast<std::size_t>(n));
        for (double& a : angles) a = uniform(0.0, 2.0 * std::numbers::pi);
        std::sort(angles.begin(), angles.end());
        std::vector<Vec2> ring;
        for (double a : angles) {
            const double r = radius * uniform(minScale, maxScale);
            ring.push_back(snap(c + Vec2{std::cos(a), std::sin(a)} * r));
        }
        if (pick(0, 1)) std::reverse(ring.begin(), ring.end());
        std::rotate(ring.begin(), ring.begin() + pick(0, n - 1), ring.end());
        return ring;
    }

    std::mt19937_64 mRng;
    int mSnap = 0;
};

std::string dump(const Shape& s) {
    std::ostringstream out;
    out.precision(17);
    std::uint32_t begin = 0;
    for (std::uint32_t end : s.ringEnds) {
        out << "\n  ring:";
        for (std::uint32_t i = begin; i < end; ++i) out << " (" << s.points[i].x << ", " << s.points[i].y << ")";
        begin = end;
    }
    return out.str();
}

/// Compares a tile with a per-cell predicate inside the shape's candidate range, and checks that
/// nothing is set outside it. Returns a description of the first differences, or "".
template <class Predicate>
std::string compare(const BitTile& tile, const Shape& s, Predicate&& expected) {
    const auto range = terrabit::test::candidateCells(s.view(), 256, 256);
    std::string diff;
    int inside = 0, shown = 0;
    for (int y = range.y0; y < range.y1; ++y) {
        for (int x = range.x0; x < range.x1; ++x) {
            const bool got = tile.test(x, y);
            inside += got;
            if (got != expected(x, y) && shown++ < 6) {
                diff += " (" + std::to_string(x) + "," + std::to_string(y) + (got ? " extra)" : " missing)");
            }
        }
    }
    if (inside != tile.count()) diff += " cells set outside the shape's bounding box";
    return diff;
}

}  // namespace

TEST(RasterizerDifferential, RandomPolygonsMatchTheCellCentreAndTouchReferences) {
    PolygonMaker maker(0x7e77ab17);
    Rasterizer rasterizer;  // one instance on purpose: scratch reuse must not leak between shapes
    const Kind kinds[] = {Kind::Convex, Kind::Concave, Kind::WithHoles, Kind::SelfIntersecting};
    int shapes = 0, nonEmpty = 0;
    for (int i = 0; i < 3000; ++i) {
        const Kind kind = kinds[i % 4];
        const Shape s = maker.make(kind);
        ++shapes;
        for (FillRule rule : {FillRule::EvenOdd, FillRule::NonZero}) {
            const char* ruleName = rule == FillRule::EvenOdd ? "even-odd" : "non-zero";
            BitTile centre;
            ASSERT_TRUE(rasterizer.polygon(s.view(), {rule, Coverage::CellCentre}, centre).ok());
            const std::string d1 = compare(centre, s, [&](int x, int y) {
                return terrabit::test::centreInside(s.view(), rule, {x + 0.5, y + 0.5});
            });
            ASSERT_EQ(d1, "") << "polygon " << i << " (" << name(kind) << ", " << ruleName << ", centre)" << dump(s);

            BitTile touched;
            ASSERT_TRUE(rasterizer.polygon(s.view(), {rule, Coverage::Conservative}, touched).ok());
            const std::string d2 =
                compare(touched, s, [&](int x, int y) { return terrabit::test::cellTouched(s.view(), rule, x, y); });
            ASSERT_EQ(d2, "") << "polygon " << i << " (" << name(kind) << ", " << ruleName << ", conservative)"
                              << dump(s);
            nonEmpty += centre.any();
        }
    }
    // The generator must actually exercise the rasterizer: most shapes cover something.
    EXPECT_EQ(shapes, 3000);
    EXPECT_GT(nonEmpty, 3000);
}

TEST(RasterizerDifferential, RandomPolygonsMatchInAGridLargerThanATile) {
    // The same references on a 3 x 2 tile grid, with shapes crossing the tile seams.
    PolygonMaker maker(0x5eed);
    Rasterizer rasterizer;
    for (int i = 0; i < 60; ++i) {
        Shape s = maker.make(static_cast<Kind>(i % 4));
        for (Vec2& p : s.points) p = {p.x * 2.5 + 128.0, p.y * 1.5 + 64.0};  // spread over the grid
        for (FillRule rule : {FillRule::EvenOdd, FillRule::NonZero}) {
            for (Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
                BitGrid grid(768, 512);
                ASSERT_TRUE(rasterizer.polygon(s.view(), {rule, cov}, grid.view()).ok());
                const auto ref = cov == Coverage::CellCentre
                                     ? terrabit::test::referenceCentre(s.view(), rule, 768, 512)
                                     : terrabit::test::referenceConservative(s.view(), rule, 768, 512);
                ASSERT_EQ(terrabit::test::mismatches(grid, ref), 0) << "polygon " << i << dump(s);
            }
        }
    }
}
