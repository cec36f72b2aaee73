#include "terrabit/core/algebra/area_coverage.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "area_coverage_p.h"

namespace terrabit::core::algebra {

std::array<double, BitTile::kSize> cellAreas(const TileId& tile) {
    // On the sphere of Web Mercator, cos(latitude) = 1 / cosh(y / R) for the northing y, so the
    // ground size of a cell is cellSizeMercator / cosh(y / R). The rows' northings step by one
    // cell, so exp(y / R) is a geometric sequence: one exp per tile instead of a cos per row.
    const double cell = tile.cellSizeMercator();
    const double north = tile.boundsMercator().max.y;
    double e = std::exp((north - 0.5 * cell) / kEarthRadius);
    const double q = std::exp(-cell / kEarthRadius);
    std::array<double, BitTile::kSize> out{};
    for (int row = 0; row < BitTile::kSize; ++row) {
        const double side = cell * 2.0 / (e + 1.0 / e);
        out[static_cast<std::size_t>(row)] = side * side;
        e *= q;
    }
    return out;
}

AreaCoverage coverageOf(const BitTile& mask, const TileId& tile) {
    AreaCoverage c;
    std::array<double, BitTile::kSize> areas{};
    bool haveAreas = false;
    for (int y = 0; y < BitTile::kSize; ++y) {
        const std::uint64_t* r = mask.row(y);
        const int n = std::popcount(r[0]) + std::popcount(r[1]) + std::popcount(r[2]) + std::popcount(r[3]);
        if (n == 0) continue;
        if (!haveAreas) {  // an empty tile costs no exponential
            areas = cellAreas(tile);
            haveAreas = true;
        }
        c.cells += n;
        c.squareMetres += n * areas[static_cast<std::size_t>(y)];
    }
    return c;
}

AreaCoverage coverageOf(std::span<const BitTile> masks, std::span<const TileId> tiles) {
    AreaCoverage total;
    const std::size_t n = std::min(masks.size(), tiles.size());
    for (std::size_t i = 0; i < n; ++i) total += coverageOf(masks[i], tiles[i]);
    return total;
}

}  // namespace terrabit::core::algebra
