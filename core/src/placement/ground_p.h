#pragma once
// Private to placement: terrain heights as the passes read them, through a LayerSource's
// heights() (terrain/height_tile.h). Without terrain every answer is kNoHeight.

#include <algorithm>
#include <cstdint>

#include "terrabit/core/geometry.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::placement::detail {

/// Reads heights at global cell corners and points. One per worker: it remembers the last tile
/// it looked up, so a footprint's corners cost one lookup per tile. Allocates nothing.
class GroundSampler {
public:
    GroundSampler(const LayerSource& source, int zoom) : mSource(&source), mZoom(zoom) {}

    /// The height at global cell corner (gx, gy), metres above the DEM's datum: read from the
    /// tile holding it, or — where that tile has no heights — from the west or north neighbour
    /// whose east or south edge it lies on (the same value, terrain/height_tile.h). kNoHeight
    /// where no tile has it.
    float corner(std::int64_t gx, std::int64_t gy) {
        const std::int64_t tx = floorDiv(gx), ty = floorDiv(gy);
        const int col = static_cast<int>(gx - tx * kTileCells), row = static_cast<int>(gy - ty * kTileCells);
        if (const terrain::HeightTile* h = heights(tx, ty)) return h->at(row, col);
        if (col == 0) {
            if (const terrain::HeightTile* h = heights(tx - 1, ty)) return h->at(row, kTileCells);
        }
        if (row == 0) {
            if (const terrain::HeightTile* h = heights(tx, ty - 1)) return h->at(kTileCells, col);
        }
        if (col == 0 && row == 0) {
            if (const terrain::HeightTile* h = heights(tx - 1, ty - 1)) return h->at(kTileCells, kTileCells);
        }
        return terrain::kNoHeight;
    }

    /// Folds the heights at corners (gx, gy), gx in [x0, x1] (both included), into [lo, hi];
    /// corners without a height are left out. Reads each tile's row directly: the hot part of
    /// a building's ground range.
    void rowRange(std::int64_t gy, std::int64_t x0, std::int64_t x1, float& lo, float& hi) {
        const std::int64_t ty = floorDiv(gy);
        const int row = static_cast<int>(gy - ty * kTileCells);
        for (std::int64_t x = x0; x <= x1;) {
            const std::int64_t tx = floorDiv(x);
            const std::int64_t end = std::min(x1, (tx + 1) * kTileCells);  // column 256 is the last
            if (const terrain::HeightTile* h = heights(tx, ty)) {
                const float* p = &h->heights[terrain::HeightTile::index(row, static_cast<int>(x - tx * kTileCells))];
                for (std::int64_t k = 0; k <= end - x; ++k) {
                    const float v = p[k];
                    if (v != v) continue;
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
            } else {
                // Not in this tile: maybe on the edge of a neighbour that has heights.
                for (std::int64_t gx = x; gx <= end; ++gx) {
                    const float v = corner(gx, gy);
                    if (v != v) continue;
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
            }
            x = end + 1;
        }
    }

    /// The height at a point in global cells (bilinear, terrain::heightAt) from the tile holding
    /// it; kNoHeight where that tile has no heights.
    float at(Vec2 cell) {
        const std::int64_t tx = floorDiv(static_cast<std::int64_t>(std::floor(cell.x)));
        const std::int64_t ty = floorDiv(static_cast<std::int64_t>(std::floor(cell.y)));
        const terrain::HeightTile* h = heights(tx, ty);
        if (!h) return terrain::kNoHeight;
        return terrain::heightAt(
            *h, {cell.x - static_cast<double>(tx) * kTileCells, cell.y - static_cast<double>(ty) * kTileCells});
    }

private:
    static std::int64_t floorDiv(std::int64_t v) {
        return v >= 0 ? v / kTileCells : -((-v + kTileCells - 1) / kTileCells);
    }

    /// The heights of tile (tx, ty) at the zoom, or nullptr (outside the world, none).
    const terrain::HeightTile* heights(std::int64_t tx, std::int64_t ty) {
        const std::int64_t n = std::int64_t{1} << mZoom;
        if (tx < 0 || ty < 0 || tx >= n || ty >= n) return nullptr;
        if (mHave && mX == tx && mY == ty) return mLast;
        mHave = true;
        mX = tx;
        mY = ty;
        const terrain::HeightTile* h =
            mSource->heights(TileId{mZoom, static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty)});
        mLast = h && h->heights.size() == terrain::kHeightSampleCount ? h : nullptr;
        return mLast;
    }

    const LayerSource* mSource;
    int mZoom;
    bool mHave = false;
    std::int64_t mX = 0, mY = 0;
    const terrain::HeightTile* mLast = nullptr;
};

}  // namespace terrabit::core::placement::detail
