#include "terrabit/core/terrain/height_tile.h"

#include <algorithm>
#include <cmath>

namespace terrabit::core::terrain {

void HeightTile::reset(TileId t) {
    tile = t;
    heights.assign(kHeightSampleCount, kNoHeight);
}

std::size_t HeightTile::noHeightCount() const {
    if (heights.empty()) return kHeightSampleCount;
    return static_cast<std::size_t>(
        std::count_if(heights.begin(), heights.end(), [](float h) { return std::isnan(h); }));
}

Vec2 cornerMercator(int zoom, std::uint64_t cornerX, std::uint64_t cornerY) {
    // The cell size is the world width over a power of two (exact), and a corner index below
    // 2^38 is exact in a double, so each coordinate is one rounded product and one rounded sum:
    // the same bits whichever tile asks.
    const double cell = 2.0 * kMercatorHalfWorld / std::ldexp(1.0, zoom + 8);
    return {-kMercatorHalfWorld + static_cast<double>(cornerX) * cell,
            kMercatorHalfWorld - static_cast<double>(cornerY) * cell};
}

Vec2 sampleMercator(TileId tile, int row, int column) {
    const std::uint64_t x = std::uint64_t{tile.x} * kTileCells + static_cast<std::uint64_t>(column);
    const std::uint64_t y = std::uint64_t{tile.y} * kTileCells + static_cast<std::uint64_t>(row);
    return cornerMercator(tile.zoom, x, y);
}

}  // namespace terrabit::core::terrain
