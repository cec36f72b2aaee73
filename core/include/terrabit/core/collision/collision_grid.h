#pragma once
/// CollisionGrid: the bit layers of a region of tiles, laid out for probes that cross tile
/// borders transparently. A dense table maps a tile slot of the region to its bits, so finding
/// the word of a cell is two shifts and two loads, whatever the layer. A grid may also hold the
/// terrain heights of its tiles (terrain/height_tile.h: 257 × 257 samples at the cell corners),
/// and then answers the ground height at any point (groundHeight).

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

/// The most layers one grid holds: probe results are 64-bit layer masks.
inline constexpr int kMaxCollisionLayers = 64;
/// A mask selecting every layer.
inline constexpr std::uint64_t kAllLayers = ~std::uint64_t{0};

class CollisionGrid {
public:
    /// An empty grid: no tiles, no layers; every probe is clear.
    CollisionGrid() = default;
    CollisionGrid(const CollisionGrid& other) { *this = other; }
    CollisionGrid& operator=(const CollisionGrid& other);
    CollisionGrid(CollisionGrid&&) noexcept = default;
    CollisionGrid& operator=(CollisionGrid&&) noexcept = default;

    /// A grid over the bounding rectangle of `tiles` (all at one zoom) holding copies of the named
    /// layers of `source`, and of its heights (LayerSource::heights) for the tiles in `tiles` that
    /// have any sample with a height. Tiles of the rectangle that are not in `tiles`, or that the
    /// source has no bits for, read as clear; tiles without heights have no ground height. Errors: mixed zooms, an
    /// unknown layer name, more than kMaxCollisionLayers layers, a region of more than maxTiles tiles.
    static Result<CollisionGrid> build(const LayerSource& source, std::span<const TileId> tiles,
                                       std::span<const std::string> layerNames, std::size_t maxTiles = 1u << 16);

    /// Adds a layer whose bits come from bitsOf(tile) for every tile of the region (nullptr:
    /// clear), e.g. an evaluated expression or the placed scene's occupancy. Returns its id.
    Result<int> addLayer(std::string name, const std::function<const BitTile*(const TileId&)>& bitsOf);

    int zoom() const { return mZoom; }
    /// The north-west tile of the region.
    TileId origin() const { return TileId{mZoom, mTileX0, mTileY0}; }
    int tilesWide() const { return mTilesWide; }
    int tilesHigh() const { return mTilesHigh; }
    /// Layer names in id order.
    const std::vector<std::string>& layerNames() const { return mLayerNames; }
    int layerCount() const { return static_cast<int>(mLayerNames.size()); }
    /// The id of a named layer, or -1.
    int layerId(std::string_view name) const;
    /// A mask of the named layers; an error names the first unknown one.
    Result<std::uint64_t> layerMask(std::span<const std::string> names) const;

    /// The region's extent in global cells: [x0, x0 + width) × [y0, y0 + height).
    std::int64_t cellX0() const { return std::int64_t{mTileX0} * kTileCells; }
    std::int64_t cellY0() const { return std::int64_t{mTileY0} * kTileCells; }
    std::int64_t cellWidth() const { return std::int64_t{mTilesWide} * kTileCells; }
    std::int64_t cellHeight() const { return std::int64_t{mTilesHigh} * kTileCells; }

    /// A pointer to the word holding region-local cell (lx, ly) of a layer; (lx, ly) must be
    /// inside the region. The same word of the rows below it in the same tile follows every
    /// BitTile::kWordsPerRow words. Hot: every probe goes through here.
    const std::uint64_t* wordPointer(int layer, std::int64_t lx, std::int64_t ly) const {
        const std::uint64_t* bits = mTable[static_cast<std::size_t>(layer) * mSlots +
                                           static_cast<std::size_t>((ly >> 8) * mTilesWide + (lx >> 8))];
        return bits + (((ly & 255) << 2) | ((lx & 255) >> 6));
    }
    /// The word holding region-local cell (lx, ly) of a layer.
    std::uint64_t word(int layer, std::int64_t lx, std::int64_t ly) const { return *wordPointer(layer, lx, ly); }
    /// True when region-local cell (lx, ly) lies inside the region.
    bool inside(std::int64_t lx, std::int64_t ly) const {
        return lx >= 0 && ly >= 0 && lx < cellWidth() && ly < cellHeight();
    }

    /// The layers set at global cell (gx, gy), restricted to mask; 0 outside the region.
    std::uint64_t layersAt(std::int64_t gx, std::int64_t gy, std::uint64_t mask = kAllLayers) const;
    /// The cells of a tile of the region where none of the masked layers is set (walkable cells
    /// when the mask selects the blocking layers). A tile outside the region is all walkable.
    BitTile walkable(const TileId& tile, std::uint64_t blockingMask) const;
    /// The bits of one layer in one tile of the region (a copy; clear outside the region).
    BitTile tileBits(int layer, const TileId& tile) const;

    /// True when some tile of the grid has heights (a grid built from a source with a DEM, or
    /// read from a version 2 collision file that stores them).
    bool hasHeights() const { return !mHeightSlot.empty(); }
    /// The heights of a tile of the region: terrain::kHeightSampleCount samples at its cell
    /// corners, row-major from the north-west corner (HeightTile's layout), metres, NaN where
    /// there is no height; empty when the tile has none or lies outside the region.
    std::span<const float> tileHeights(const TileId& tile) const;
    /// Gives a tile of the region its heights (terrain::kHeightSampleCount samples, HeightTile's
    /// layout, metres, NaN for none), replacing any it had; samples that are all NaN (or none)
    /// remove them. Errors: a tile outside the region, a wrong sample count, an infinite sample.
    Status setTileHeights(const TileId& tile, std::span<const float> samples);
    /// The ground height at p (global cells of the grid's zoom), metres: bilinear between the
    /// four height samples at the corners of the cell holding p, as terrain::heightAt. NaN
    /// outside the region, in a tile without heights, where a corner has no height, and for a
    /// NaN p. Never reads outside the grid. Hot: one table look-up and four loads.
    float groundHeight(Vec2 p) const {
        const double x = p.x - static_cast<double>(cellX0());
        const double y = p.y - static_cast<double>(cellY0());
        if (mHeightSlot.empty() ||
            !(x >= 0.0 && y >= 0.0 && x < static_cast<double>(cellWidth()) && y < static_cast<double>(cellHeight()))) {
            return std::numeric_limits<float>::quiet_NaN();
        }
        const auto lx = static_cast<std::int64_t>(x);
        const auto ly = static_cast<std::int64_t>(y);
        const float* s = heightSamples(lx, ly);
        if (s == nullptr) return std::numeric_limits<float>::quiet_NaN();
        const double fx = x - static_cast<double>(lx), fy = y - static_cast<double>(ly);
        const double north = s[0] * (1.0 - fx) + s[1] * fx;
        const double south = s[kTileCells + 1] * (1.0 - fx) + s[kTileCells + 2] * fx;
        return static_cast<float>(north * (1.0 - fy) + south * fy);
    }
    /// The heights at the four corners of global cell (gx, gy), metres, in the order north-west,
    /// north-east, south-west, south-east; all NaN where groundHeight is NaN for the whole cell.
    std::array<float, 4> cellHeights(std::int64_t gx, std::int64_t gy) const;

private:
    void rebuildTable();
    /// The sample at the north-west corner of region-local cell (lx, ly) inside the region, its
    /// east neighbour following and the row below kTileCells + 1 samples on; nullptr when the
    /// cell's tile has no heights.
    const float* heightSamples(std::int64_t lx, std::int64_t ly) const {
        const std::int32_t block = mHeightSlot[static_cast<std::size_t>((ly >> 8) * mTilesWide + (lx >> 8))];
        if (block < 0) return nullptr;
        return mHeightData.data() + static_cast<std::size_t>(block) * terrain::kHeightSampleCount +
               static_cast<std::size_t>((ly & 255) * (kTileCells + 1) + (lx & 255));
    }

    std::size_t slotOf(const TileId& t) const;

    int mZoom = 0;
    std::uint32_t mTileX0 = 0;
    std::uint32_t mTileY0 = 0;
    int mTilesWide = 0;
    int mTilesHigh = 0;
    std::size_t mSlots = 0;  ///< tilesWide × tilesHigh
    std::vector<std::string> mLayerNames;
    /// mTiles[0] is the shared clear tile; the others are copies of layer bits.
    std::vector<BitTile> mTiles = std::vector<BitTile>(1);
    /// Per layer, per slot: index into mTiles.
    std::vector<std::uint32_t> mTileIndex;
    /// Per layer, per slot: pointer to the words of mTiles[mTileIndex[i]].
    std::vector<const std::uint64_t*> mTable;
    /// Per slot: the block of mHeightData holding the tile's heights, or -1. Empty while no tile
    /// has heights.
    std::vector<std::int32_t> mHeightSlot;
    /// terrain::kHeightSampleCount samples per tile with heights, metres (NaN: none).
    std::vector<float> mHeightData;
};

}  // namespace terrabit::core
