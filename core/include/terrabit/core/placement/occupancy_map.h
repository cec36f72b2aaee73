#pragma once
/// OccupancyMap: which cells are taken, over a set of tiles — placed buildings' footprints, or a
/// mask of what blocks them (water). The building pass rasterizes a model's placed footprint into
/// row spans, ANDs the spans with the occupancy and the blocking mask row by row, and places the
/// model only when every row is clear, then ORs the spans in.
///
/// Footprints use the conservative rule (every cell the rectangle touches), so two footprints
/// whose rectangles overlap always share a cell: clear bits prove no overlap.
///
/// Cells are global cells at the map's zoom: column x east and row y south from the world's
/// north-west corner; tile (tx, ty) holds [256 tx, 256 tx + 256) × [256 ty, 256 ty + 256).

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::placement {

/// The cells [x0, x1) of global row y.
struct CellSpan {
    std::int64_t y = 0;
    std::int64_t x0 = 0;
    std::int64_t x1 = 0;
    friend bool operator==(const CellSpan&, const CellSpan&) = default;
};

/// A rectangle of global cells [x0, x1) × [y0, y1).
struct CellRegion {
    std::int64_t x0 = 0;
    std::int64_t y0 = 0;
    std::int64_t x1 = 0;
    std::int64_t y1 = 0;

    /// The tile and its eight neighbours: the farthest a building placed by `tile` may reach.
    static CellRegion around(const TileId& tile);
};

class OccupancyMap {
public:
    /// An empty map: no tiles.
    OccupancyMap() = default;
    /// A clear map over these tiles (one zoom; duplicates ignored). A tile's bits are allocated
    /// when first written: a bake holds five maps over every tile it reaches, most of whose
    /// tiles stay clear (8 KiB each, zeroed anew for every bake: 370 MB on a country).
    explicit OccupancyMap(std::span<const TileId> tiles);
    OccupancyMap(const OccupancyMap& other);
    OccupancyMap& operator=(const OccupancyMap& other);
    OccupancyMap(OccupancyMap&&) noexcept = default;
    OccupancyMap& operator=(OccupancyMap&&) noexcept = default;

    /// The tiles, sorted.
    const std::vector<TileId>& tiles() const { return mTiles; }
    /// The bits of a tile (a shared clear tile when none was written), or nullptr when the map
    /// does not hold it.
    const BitTile* tile(const TileId& id) const;
    /// The bits of a tile to write, allocated at the first call, or nullptr when the map does not
    /// hold it. Safe from several threads at once for different tiles.
    BitTile* tile(const TileId& id);
    /// Tiles whose bits were allocated (written or asked for to write).
    std::size_t allocatedTiles() const;

    /// True when every cell of the spans lies in a tile of this map and is clear here and in
    /// `blocking` (null: nothing blocks; a tile missing from `blocking` blocks nothing). Reads
    /// only; safe from several threads while nobody marks those tiles.
    bool isClear(std::span<const CellSpan> spans, const OccupancyMap* blocking) const;
    /// Sets every cell of the spans that lies in a tile of this map.
    void mark(std::span<const CellSpan> spans);
    /// Clears every tile.
    void clear();

private:
    int mZoom = 0;
    std::vector<TileId> mTiles;
    std::vector<std::unique_ptr<BitTile>> mBits;  ///< per tile: null until first written
    std::unordered_map<TileId, std::size_t> mSlots;
};

/// Rasterizes a rectangle (its four corners in global cells, in order around it) under the
/// conservative rule into the spans of the rows it touches, within `region`: a cell is taken when
/// the closed rectangle meets the cell's open interior — docs/ARCHITECTURE.md's conservative coverage
/// (GDAL's ALL_TOUCHED, the Rasterizer's Coverage::Conservative). Row by row, the rectangle is
/// clipped to the row's strip and the span runs from the floor of the clipped outline's least x
/// to the ceiling of its greatest. Works for any convex quadrilateral. Returns false, with `spans`
/// unspecified, when the rectangle reaches outside the region or is not finite. `spans` is the
/// caller's scratch: no allocation once it has grown.
bool footprintSpans(const std::array<Vec2, 4>& corners, const CellRegion& region, std::vector<CellSpan>& spans);

}  // namespace terrabit::core::placement
