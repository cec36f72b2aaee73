#pragma once
/// HeightTile: one tile's terrain heights, sampled at its cells' corners (the Terrain issue's
/// grid aligned with the tile's cells). Plain data: no GDAL here; terrabit::io's DemReader fills
/// it (core/io/dem_reader.h).
///
/// Layout: kHeightSamples × kHeightSamples floats, row-major. Sample (row r, column c) is the
/// north-west corner of cell (c, r) of the tile, i.e. global cell corner (256 tx + c, 256 ty + r):
/// row 0 is the tile's north edge, column 0 its west edge, row and column 256 its south and east
/// edges. A tile's east column is therefore the same corners as its east neighbour's west column
/// and its south row the same as its south neighbour's north row; a reader that computes every
/// corner from its global corner index (cornerMercator) gives both tiles bit-identical values there.
///
/// No height: a sample without a height (outside every DEM, DEM nodata, absurd values) holds a
/// quiet NaN (kNoHeight). Every finite sample is a height. One array keeps the grid a single
/// contiguous block that compares and hashes byte-wise; NaN propagates through arithmetic, so
/// code that forgets to check gets NaN, never a plausible 0 m.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::terrain {

/// Samples along one side of a HeightTile: one per cell corner (kTileCells + 1 = 257).
inline constexpr int kHeightSamples = kTileCells + 1;
/// Samples in a HeightTile (257 × 257 = 66049).
inline constexpr std::size_t kHeightSampleCount = std::size_t{kHeightSamples} * kHeightSamples;
/// The value of a sample without a height: a quiet NaN, always this bit pattern.
inline constexpr float kNoHeight = std::numeric_limits<float>::quiet_NaN();

/// A tile's heights at its cell corners, in metres above the DEM's vertical datum.
struct HeightTile {
    TileId tile;  ///< the tile the samples belong to
    /// kHeightSampleCount samples, row-major (index row * kHeightSamples + column), metres;
    /// kNoHeight where there is no height. Empty until reset() or a reader fills it.
    std::vector<float> heights;

    /// Makes this the grid of `t` with every sample kNoHeight. Reuses the storage, so a
    /// HeightTile refilled tile after tile allocates only once.
    void reset(TileId t);

    /// The sample at (row, column), both 0..256; kNoHeight when it has none.
    float at(int row, int column) const { return heights[index(row, column)]; }
    /// True when the sample at (row, column) has a height.
    bool hasHeight(int row, int column) const { return at(row, column) == at(row, column); }
    /// Samples with no height (kNoHeight); all of them for an empty grid.
    std::size_t noHeightCount() const;

    /// The flat index of sample (row, column).
    static std::size_t index(int row, int column) {
        return static_cast<std::size_t>(row) * kHeightSamples + static_cast<std::size_t>(column);
    }
};

/// The EPSG:3857 position (metres) of global cell corner (cornerX, cornerY) at a zoom: x east and
/// y south from the world's north-west corner, one unit per cell (cell corners are integers).
/// Computed from the global index alone, never from a tile's origin plus an offset, so every tile
/// that shares the corner gets the same bits. Exact on tile borders: cornerMercator(256 tx, 256 ty)
/// equals the north-west corner of TileId::boundsMercator().
Vec2 cornerMercator(int zoom, std::uint64_t cornerX, std::uint64_t cornerY);

/// The EPSG:3857 position (metres) of sample (row, column) of a tile: cornerMercator of its
/// global corner.
Vec2 sampleMercator(TileId tile, int row, int column);

/// The height at a point of `heights`' tile, metres: bilinear between the four samples around
/// it. `cell` is the point in the tile's cells (x east, y south, 0..256 from its north-west
/// corner; clamped into the tile). kNoHeight when any of the four has no height.
float heightAt(const HeightTile& heights, Vec2 cell);

}  // namespace terrabit::core::terrain
