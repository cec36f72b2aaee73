#include "terrabit/core/terrain/hillshade.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

#include "terrabit/core/algebra/relief_mask.h"

namespace terrabit::core::terrain {

namespace {

constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;

/// The direction towards the light as (east, north, up), a unit vector.
struct LightVector {
    double east, north, up;
    explicit LightVector(const HillshadeLight& light) {
        const double az = light.azimuthDegrees * kRadiansPerDegree;
        const double alt = light.altitudeDegrees * kRadiansPerDegree;
        east = std::cos(alt) * std::sin(az);
        north = std::cos(alt) * std::cos(az);
        up = std::sin(alt);
    }
};

/// The shade of a cell whose corners are h00..h11, with 1 / (2 × its ground size) given.
float shade(const LightVector& l, double h00, double h10, double h01, double h11, double halfInverseSize) {
    // Slopes dz/dx east and dz/dy north (cells grow south, so north is minus the south gradient).
    const double east = ((h10 - h00) + (h11 - h01)) * halfInverseSize;
    const double north = -((h01 - h00) + (h11 - h10)) * halfInverseSize;
    // The surface's normal is (-east, -north, 1) over its length.
    const double dot = (l.up - east * l.east - north * l.north) / std::sqrt(1.0 + east * east + north * north);
    if (!(dot == dot)) return std::numeric_limits<float>::quiet_NaN();
    return static_cast<float>(std::clamp(dot, 0.0, 1.0));
}

}  // namespace

float cellHillshade(float h00, float h10, float h01, float h11, double cellSize, const HillshadeLight& light) {
    return shade(LightVector(light), h00, h10, h01, h11, 0.5 / cellSize);
}

void hillshadeTile(const HeightTile& heights, std::span<float> out, const HillshadeLight& light) {
    assert(out.size() == std::size_t{kTileCells} * kTileCells);
    assert(heights.heights.size() == kHeightSampleCount);
    const LightVector l(light);
    for (int row = 0; row < kTileCells; ++row) {
        const double size =
            algebra::ReliefMask::groundCellSize(std::int64_t{heights.tile.y} * kTileCells + row, heights.tile.zoom);
        const double halfInverse = 0.5 / size;
        const float* top = heights.heights.data() + HeightTile::index(row, 0);
        const float* bottom = top + kHeightSamples;
        float* line = out.data() + std::size_t(row) * kTileCells;
        for (int c = 0; c < kTileCells; ++c)
            line[c] = shade(l, top[c], top[c + 1], bottom[c], bottom[c + 1], halfInverse);
    }
}

}  // namespace terrabit::core::terrain
