// The surfaces' ear cutter (placement/ear_cutter_p.h) against GEOS on random polygons with holes
// on the 2^-16-cell grid the surfaces use: its triangles turn one way, lie within the polygon,
// and cover it without gaps or overlaps (the sum of their areas and the area of their GEOS union
// both equal the polygon's).

#include <geos_c.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <span>
#include <vector>

#include "placement/ear_cutter_p.h"

using terrabit::core::Vec2;
using terrabit::core::placement::detail::EarCutter;

namespace {

constexpr double kGrid = 1.0 / 65536.0;

double snap(double v) { return std::round(v / kGrid) * kGrid; }

/// A star-shaped ring around `centre`: `n` corners at random radii in [r0, r1], on the grid,
/// counter-clockwise in x/y when `ccw`.
std::vector<Vec2> starRing(std::mt19937& rng, Vec2 centre, double r0, double r1, int n, bool ccw) {
    std::uniform_real_distribution<double> radius(r0, r1);
    std::vector<Vec2> ring;
    for (int k = 0; k < n; ++k) {
        const double a = 2.0 * std::numbers::pi * k / n * (ccw ? 1.0 : -1.0);
        const double r = radius(rng);
        ring.push_back({snap(centre.x + r * std::cos(a)), snap(centre.y + r * std::sin(a))});
    }
    return ring;
}

double signedArea(std::span<const Vec2> ring) {
    double a = 0.0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 p = ring[i], q = ring[(i + 1) % ring.size()];
        a += p.x * q.y - q.x * p.y;
    }
    return 0.5 * a;
}

class Geos {
public:
    Geos() : mCtx(GEOS_init_r()) {}
    ~Geos() { GEOS_finish_r(mCtx); }
    GEOSContextHandle_t ctx() const { return mCtx; }

    GEOSGeometry* ring(std::span<const Vec2> r) const {
        GEOSCoordSequence* seq = GEOSCoordSeq_create_r(mCtx, static_cast<unsigned>(r.size() + 1), 2);
        for (std::size_t i = 0; i <= r.size(); ++i) {
            const Vec2 p = r[i % r.size()];
            GEOSCoordSeq_setXY_r(mCtx, seq, static_cast<unsigned>(i), p.x, p.y);
        }
        return GEOSGeom_createLinearRing_r(mCtx, seq);
    }
    GEOSGeometry* polygon(const std::vector<std::vector<Vec2>>& rings) const {
        std::vector<GEOSGeometry*> holes;
        for (std::size_t i = 1; i < rings.size(); ++i) holes.push_back(ring(rings[i]));
        return GEOSGeom_createPolygon_r(mCtx, ring(rings[0]), holes.data(), static_cast<unsigned>(holes.size()));
    }
    double area(const GEOSGeometry* g) const {
        double a = 0.0;
        GEOSArea_r(mCtx, g, &a);
        return a;
    }

private:
    GEOSContextHandle_t mCtx;
};

}  // namespace

TEST(EarCutter, RandomPolygonsWithHolesAreCoveredExactlyOnceAsGeosSees) {
    std::mt19937 rng(2026);
    Geos geos;
    EarCutter cutter;
    std::vector<Vec2> triangles;
    int cases = 0;
    for (int trial = 0; trial < 60; ++trial) {
        // A shell around the tile's middle and up to three small holes well inside it (within
        // the shell's least radius, apart from each other), each star-shaped.
        std::vector<std::vector<Vec2>> rings;
        const Vec2 centre{128.0, 128.0};
        rings.push_back(starRing(rng, centre, 60.0, 120.0, 8 + trial % 40, true));
        const int holes = trial % 4;
        for (int h = 0; h < holes; ++h) {
            const double a = 2.0 * std::numbers::pi * h / 3.0;
            const Vec2 c{centre.x + 30.0 * std::cos(a), centre.y + 30.0 * std::sin(a)};
            rings.push_back(starRing(rng, c, 4.0, 10.0, 5 + trial % 7, false));
        }
        std::vector<std::span<const Vec2>> spans(rings.begin(), rings.end());
        triangles.clear();
        ASSERT_TRUE(cutter.cut(spans, triangles)) << "trial " << trial;
        ASSERT_EQ(triangles.size() % 3, 0u);

        GEOSGeometry* polygon = geos.polygon(rings);
        ASSERT_TRUE(GEOSisValid_r(geos.ctx(), polygon)) << "trial " << trial << ": the test made an invalid polygon";
        const double area = geos.area(polygon);
        double sum = 0.0;
        std::vector<GEOSGeometry*> pieces;
        for (std::size_t t = 0; t < triangles.size(); t += 3) {
            const std::span<const Vec2> tri(&triangles[t], 3);
            const double a = signedArea(tri);
            // The rings' orientation: the shell is counter-clockwise in x/y.
            EXPECT_GT(a, 0.0) << "trial " << trial << ": triangle " << t / 3 << " turns the wrong way or is flat";
            sum += a;
            pieces.push_back(geos.polygon({{tri[0], tri[1], tri[2]}}));
        }
        EXPECT_NEAR(sum, area, 1e-9 * area) << "trial " << trial;
        GEOSGeometry* all = GEOSGeom_createCollection_r(geos.ctx(), GEOS_GEOMETRYCOLLECTION, pieces.data(),
                                                        static_cast<unsigned>(pieces.size()));
        GEOSGeometry* united = GEOSUnaryUnion_r(geos.ctx(), all);
        ASSERT_NE(united, nullptr);
        // Union = sum: no overlaps; union = polygon (and within it): no gaps, nothing outside.
        EXPECT_NEAR(geos.area(united), area, 1e-7 * area) << "trial " << trial;
        GEOSGeometry* outside = GEOSDifference_r(geos.ctx(), united, polygon);
        EXPECT_LT(geos.area(outside), 1e-7 * area) << "trial " << trial;
        GEOSGeom_destroy_r(geos.ctx(), outside);
        GEOSGeom_destroy_r(geos.ctx(), united);
        GEOSGeom_destroy_r(geos.ctx(), all);
        GEOSGeom_destroy_r(geos.ctx(), polygon);
        ++cases;
    }
    EXPECT_EQ(cases, 60);
}

TEST(EarCutter, ASquareIsTwoTriangles) {
    EarCutter cutter;
    const std::vector<Vec2> square{{0, 0}, {4, 0}, {4, 4}, {0, 4}};
    const std::span<const Vec2> rings[1] = {square};
    std::vector<Vec2> triangles;
    ASSERT_TRUE(cutter.cut(rings, triangles));
    ASSERT_EQ(triangles.size(), 6u);
    EXPECT_DOUBLE_EQ(
        signedArea(std::span<const Vec2>(&triangles[0], 3)) + signedArea(std::span<const Vec2>(&triangles[3], 3)),
        16.0);
}
