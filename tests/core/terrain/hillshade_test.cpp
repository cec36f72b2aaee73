// Hillshade: the shade of a tilted plane against the analytic value, flat ground, slopes facing
// the light and away from it, and cells without height.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "terrabit/core/algebra/relief_mask.h"
#include "terrabit/core/terrain/hillshade.h"

using namespace terrabit::core;
using terrain::HeightTile;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

/// Monaco's tile at zoom 17.
const TileId kTile{17, 68236, 47850};

/// A tile whose sample (row, column) is a + p column + q row metres: a plane in cells.
HeightTile plane(double a, double p, double q) {
    HeightTile h;
    h.reset(kTile);
    for (int r = 0; r < terrain::kHeightSamples; ++r) {
        for (int c = 0; c < terrain::kHeightSamples; ++c) h.heights[HeightTile::index(r, c)] = float(a + p * c + q * r);
    }
    return h;
}

/// The analytic shade of a plane rising `east` and `north` metres per ground metre, for a light.
double analytic(double east, double north, double azimuth, double altitude) {
    const double le = std::cos(altitude * kDeg) * std::sin(azimuth * kDeg);
    const double ln = std::cos(altitude * kDeg) * std::cos(azimuth * kDeg);
    const double lu = std::sin(altitude * kDeg);
    const double n = std::sqrt(1 + east * east + north * north);
    return std::max(0.0, (-east * le - north * ln + lu) / n);
}

}  // namespace

TEST(Hillshade, ATiltedPlaneShadesAsTheAnalyticNormalDoes) {
    // Rising 0.25 m per cell eastwards and 0.5 m per cell southwards (exact in floats).
    const HeightTile h = plane(100.0, 0.25, 0.5);
    std::vector<float> shade(std::size_t(kTileCells) * kTileCells);
    for (const terrain::HillshadeLight light : {terrain::HillshadeLight{}, terrain::HillshadeLight{90.0, 30.0}}) {
        terrain::hillshadeTile(h, shade, light);
        for (int row : {0, 100, 255}) {
            const double s = algebra::ReliefMask::groundCellSize(std::int64_t{kTile.y} * kTileCells + row, kTile.zoom);
            const double expected = analytic(0.25 / s, -0.5 / s, light.azimuthDegrees, light.altitudeDegrees);
            for (int col : {0, 17, 255}) {
                EXPECT_NEAR(shade[std::size_t(row) * kTileCells + col], expected, 1e-6) << row << "," << col;
            }
        }
    }
}

TEST(Hillshade, FlatGroundIsSinAltitudeEverywhere) {
    const HeightTile h = plane(431.0, 0.0, 0.0);
    std::vector<float> shade(std::size_t(kTileCells) * kTileCells);
    terrain::hillshadeTile(h, shade);
    for (float v : shade) ASSERT_FLOAT_EQ(v, float(std::sin(45.0 * kDeg)));
}

TEST(Hillshade, SlopesFacingTheLightAreBrighterThanThoseFacingAway) {
    // Light from the north-west: ground falling to the north-west faces it.
    const float towards = terrain::cellHillshade(0.f, 1.f, 1.f, 2.f, 1.0);  // rises south-east
    const float away = terrain::cellHillshade(2.f, 1.f, 1.f, 0.f, 1.0);     // rises north-west
    EXPECT_GT(towards, float(std::sin(45.0 * kDeg)));
    EXPECT_LT(away, float(std::sin(45.0 * kDeg)));
    // A cliff facing away from the light is in its shade: 0, never negative.
    EXPECT_EQ(terrain::cellHillshade(100.f, 0.f, 0.f, -100.f, 1.0), 0.f);
}

TEST(Hillshade, ACellWithACornerWithoutHeightHasNoShade) {
    HeightTile h = plane(10.0, 0.1, 0.1);
    h.heights[HeightTile::index(5, 7)] = terrain::kNoHeight;
    std::vector<float> shade(std::size_t(kTileCells) * kTileCells);
    terrain::hillshadeTile(h, shade);
    // Corner (5, 7) is a corner of cells (6, 4), (7, 4), (6, 5) and (7, 5).
    for (auto [x, y] : {std::pair{6, 4}, {7, 4}, {6, 5}, {7, 5}}) {
        EXPECT_TRUE(std::isnan(shade[std::size_t(y) * kTileCells + x])) << x << "," << y;
    }
    EXPECT_FALSE(std::isnan(shade[std::size_t(4) * kTileCells + 5]));
    EXPECT_TRUE(std::isnan(terrain::cellHillshade(terrain::kNoHeight, 0.f, 0.f, 0.f, 1.0)));
}
