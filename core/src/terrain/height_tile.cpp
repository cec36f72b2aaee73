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

float heightAt(const HeightTile& h, Vec2 cell) {
    if (h.heights.size() != kHeightSampleCount) return kNoHeight;
    const double x = std::clamp(cell.x, 0.0, double(kTileCells));
    const double y = std::clamp(cell.y, 0.0, double(kTileCells));
    // The sample square the point lies in; a point on the east or south edge uses the last one.
    const int c = std::min(static_cast<int>(x), kTileCells - 1);
    const int r = std::min(static_cast<int>(y), kTileCells - 1);
    const double fx = x - c, fy = y - r;
    const double north = h.at(r, c) * (1.0 - fx) + h.at(r, c + 1) * fx;
    const double south = h.at(r + 1, c) * (1.0 - fx) + h.at(r + 1, c + 1) * fx;
    return static_cast<float>(north * (1.0 - fy) + south * fy);  // NaN in, NaN out
}

}  // namespace terrabit::core::terrain
