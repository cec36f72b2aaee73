#pragma once
/// TileIndex: which layer entries reach which tile at one zoom — a grid spatial index built once
/// from each entry's bounds, so a tile's features are looked up, never searched for. It also
/// holds every feature's vertices in global cell coordinates, so that going to a tile's own cell
/// coordinates is an exact subtraction.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "terrabit/core/result.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

/// Cells beyond a tile's edge that clipped shapes keep, on top of a line's half width: enough
/// that clipping never changes a cell inside the tile under either coverage rule.
inline constexpr double kClipMarginCells = 2.0;
/// Rings of features with at least this many vertices (the sea, a large forest) are indexed in
/// chunks of kRingChunk vertices with their bounds, so a tile skips the chunks far from it.
inline constexpr std::size_t kChunkedFeatureVertices = 128;
inline constexpr std::uint32_t kRingChunk = 32;
/// Cells beyond a tile's edge within which a crossing mapped as a node is listed for the tile:
/// what is painted around it (bars across the widest road, the lines stopping short of them)
/// stays within this of the node.
inline constexpr double kCrossingReachCells = 64.0;

class TileIndex {
public:
    /// An empty index (no tiles).
    TileIndex() = default;

    /// Indexes every entry of `map` at `zoom`. `tiles` is the tile set (any order; duplicates
    /// and tiles of another zoom are errors); empty means every tile that some entry's bounds,
    /// grown by its half width and kClipMarginCells, touch. Tiles are kept sorted by (y, x).
    /// Fails for a bad zoom, or when the tile set would exceed maxTiles. Line widths and point
    /// radii go from metres to cells at the latitude of each feature's centre, so that a feature
    /// has one width in every tile it crosses (no seam where tiles meet); within a z17 tile that
    /// latitude differs from the tile's by well under 0.1 % of the width.
    /// `map` must outlive the index.
    static Result<TileIndex> build(const ClassifiedMap& map, int zoom, std::span<const TileId> tiles = {},
                                   std::size_t maxTiles = std::size_t{1} << 20);

    int zoom() const { return mZoom; }
    const ClassifiedMap& map() const { return *mMap; }
    /// The tiles, sorted north to south, west to east; a tile's slot is its position here.
    const std::vector<TileId>& tiles() const { return mTiles; }
    /// The slot of a tile, or nothing when the index does not hold it.
    std::optional<std::size_t> slot(const TileId& tile) const;
    /// The entries (indices into map().entries) that reach the tile in `slot`, ascending.
    std::span<const std::uint32_t> entries(std::size_t slot) const {
        return std::span<const std::uint32_t>(mEntries).subspan(mFirst[slot], mFirst[slot + 1] - mFirst[slot]);
    }
    /// The vertices of entry e's feature in global cell coordinates at this zoom: x east and y
    /// south from the world's north-west corner, one unit per cell; tile (tx, ty) holds
    /// [256 tx, 256 tx + 256) × [256 ty, 256 ty + 256).
    std::span<const Vec2> cells(std::uint32_t entry) const { return cells(info(entry)); }
    /// Entry e's part ends (as Feature::partEnds), kept here beside the cells so that a tile
    /// reads one compact array instead of chasing each feature.
    std::span<const std::uint32_t> partEnds(std::uint32_t entry) const { return partEnds(info(entry)); }
    /// Entry e's feature kind.
    FeatureKind kind(std::uint32_t entry) const { return info(entry).kind; }
    /// Entry e's layer id (as map().entries[e].layer).
    std::uint16_t layer(std::uint32_t entry) const { return info(entry).layer; }
    /// For an entry whose feature has at least kChunkedFeatureVertices vertices: the bounds (global
    /// cells) of each run of kRingChunk vertices, ring by ring (a ring's last chunk may be
    /// shorter); empty otherwise.
    std::span<const Box2> chunks(std::uint32_t entry) const { return chunks(info(entry)); }
    /// Entry e's line half width or point radius in cells (0 for areas).
    double sizeCells(std::uint32_t entry) const { return info(entry).sizeCells; }
    /// Entry e's bounds in global cell coordinates, grown by its half width and the clip margin.
    const Box2& reach(std::uint32_t entry) const { return info(entry).reach; }

    /// The crossings mapped as nodes (indices into map().crossings, ascending) within
    /// kCrossingReachCells of the tile in `slot`.
    std::span<const std::uint32_t> crossings(std::size_t slot) const {
        return std::span<const std::uint32_t>(mCrossings)
            .subspan(mCrossingFirst[slot], mCrossingFirst[slot + 1] - mCrossingFirst[slot]);
    }
    /// Crossing i's node (map().crossings[i]) in global cells, as the entries' vertices are.
    Vec2 crossingCell(std::uint32_t i) const { return mCrossingCells[i]; }

    /// What a tile needs of an entry, in one place: a tile reads one or two cache lines per entry
    /// instead of one per array (drawing a dense tile waited on those misses).
    struct EntryInfo {
        Box2 reach;  ///< as reach(entry)
        double sizeCells = 0.0;
        std::uint32_t cellsBegin = 0, cellsCount = 0;    ///< into the index's cells
        std::uint32_t partsBegin = 0, partsCount = 0;    ///< into the index's part ends
        std::uint32_t chunksBegin = 0, chunksCount = 0;  ///< into the index's chunks (0: not chunked)
        std::uint32_t entry = 0;                         ///< index into map().entries
        FeatureKind kind = FeatureKind::Area;
        std::uint16_t layer = 0;
    };
    /// The entries of the tile in `slot` with what drawing them needs, in the order of
    /// entries(slot), side by side in memory: a tile reads them front to back.
    std::span<const EntryInfo> entryInfos(std::size_t slot) const {
        return std::span<const EntryInfo>(mSlotInfo).subspan(mFirst[slot], mFirst[slot + 1] - mFirst[slot]);
    }
    /// An entry's vertices, part ends and chunks, given its EntryInfo.
    std::span<const Vec2> cells(const EntryInfo& info) const {
        return std::span<const Vec2>(mCells).subspan(info.cellsBegin, info.cellsCount);
    }
    std::span<const std::uint32_t> partEnds(const EntryInfo& info) const {
        return std::span<const std::uint32_t>(mPartEnds).subspan(info.partsBegin, info.partsCount);
    }
    std::span<const Box2> chunks(const EntryInfo& info) const {
        return std::span<const Box2>(mChunks).subspan(info.chunksBegin, info.chunksCount);
    }

private:
    const EntryInfo& info(std::uint32_t entry) const { return mSlotInfo[mInfoAt[entry]]; }
    /// Lists each of map().crossings under the tiles it reaches (build, once the slots are made).
    void indexCrossings(double cellSize);
    const ClassifiedMap* mMap = nullptr;
    int mZoom = 0;
    std::vector<TileId> mTiles;
    std::unordered_map<TileId, std::size_t> mSlots;
    std::vector<std::size_t> mFirst{0};  ///< CSR: slot s holds mEntries[mFirst[s] .. mFirst[s+1])
    std::vector<std::uint32_t> mEntries;
    /// Every indexed feature's vertices in global cells, features in the order of their place on
    /// the map (a Morton curve), so that the features of one tile lie close together.
    std::vector<Vec2> mCells;
    std::vector<std::uint32_t> mPartEnds;  ///< every indexed feature's part ends
    std::vector<Box2> mChunks;             ///< chunk bounds of large features
    /// Per (slot, entry) in the order of mEntries, then one more for each entry no tile holds.
    std::vector<EntryInfo> mSlotInfo;
    std::vector<std::size_t> mInfoAt;            ///< per entry: the first of its records in mSlotInfo
    std::vector<Vec2> mCrossingCells;            ///< per map().crossings entry
    std::vector<std::size_t> mCrossingFirst{0};  ///< CSR: slot s holds mCrossings[first[s] .. first[s+1])
    std::vector<std::uint32_t> mCrossings;
};

}  // namespace terrabit::core
