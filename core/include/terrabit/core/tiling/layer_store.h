#pragma once
/// LayerStore: the bit layers of a set of tiles, as rasterized from a map, and their terrain
/// heights when the map has a DEM. It is the LayerSource the layer algebra, placement, export
/// and collision read.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

class LayerStore final : public LayerSource {
public:
    /// An empty store: no layers, no tiles.
    LayerStore() = default;
    /// A store for these layers (ids are positions) and tiles (slots are positions; no
    /// duplicates), every layer of every tile clear.
    LayerStore(std::vector<std::string> layerNames, std::vector<TileId> tiles);

    const std::vector<std::string>& layerNames() const override { return mNames; }
    /// The bits of a layer in a tile, or nullptr when the tile is not in the store, the layer id
    /// is out of range, or the layer is empty there.
    const BitTile* tile(const TileId& id, int layer) const override;

    /// The tiles in slot order.
    const std::vector<TileId>& tiles() const { return mTiles; }
    /// The slot of a tile, or -1.
    std::ptrdiff_t slotOf(const TileId& id) const;
    /// The bits of a layer in the tile of a slot, or nullptr when empty.
    const BitTile* at(std::size_t slot, int layer) const;
    /// True when no layer of the slot's tile has a set cell.
    bool emptyAt(std::size_t slot) const;

    /// Stores the layers of one tile (one BitTile per layer id), keeping only non-empty ones.
    /// Safe to call from several threads at once for different slots. Storing a slot again
    /// replaces its bits; the old ones stay allocated until the store goes away.
    void store(std::size_t slot, std::span<const BitTile> layers);
    /// As store(), but only the layers with a non-zero `which` entry are looked at; the others
    /// count as empty (for TileRasterizer::draw(), whose drawn() names the layers it wrote).
    void store(std::size_t slot, std::span<const BitTile> layers, std::span<const std::uint8_t> which);

    /// The heights of a tile of the store, or nullptr (not in the store, or none were set:
    /// a store without terrain).
    const terrain::HeightTile* heights(const TileId& id) const override;
    /// Sets the heights of the tile of a slot (shared, never changed: the Session's height
    /// cache and copies of this store hold the same tile). One thread at a time, with no reader
    /// running. Null clears them.
    void setHeights(std::size_t slot, std::shared_ptr<const terrain::HeightTile> heights);
    /// True when some tile has heights.
    bool hasHeights() const { return !mHeights.empty(); }

    /// A hash of every tile's every layer, in slot order (for determinism checks).
    std::uint64_t hash() const;

private:
    /// Bits live in chunks of kChunkTiles tiles, each one 2 MiB allocation, instead of a vector
    /// per tile grown layer by layer (its mallocs and copies were a third of rasterizing a map).
    /// A chunk never moves, so a tile's address is stable once handed out. Chunks come from and
    /// go back to a process-wide pool (up to 128 MiB kept), so a re-bake reuses pages that are
    /// already mapped. (Asking for huge pages was measured too: the kernel's first compaction
    /// cost more than it saved.)
    static constexpr std::size_t kChunkTiles = 256;
    struct ChunkFree {
        void operator()(BitTile* chunk) const;
    };
    using Chunk = std::unique_ptr<BitTile[], ChunkFree>;

    /// Room for n more tiles (under mMutex): their positions, consecutive.
    std::size_t reserveTiles(std::size_t n);
    BitTile* tileAt(std::size_t position) const { return &mChunks[position / kChunkTiles][position % kChunkTiles]; }

    std::vector<std::string> mNames;
    std::vector<TileId> mTiles;
    std::unordered_map<TileId, std::size_t> mSlots;
    std::vector<std::int64_t> mIndex;   ///< slot * layers + layer: position of the bits, or -1 when empty
    std::vector<std::uint8_t> mStored;  ///< per slot: 1 when some layer is not empty
    /// Per slot: the tile's heights; empty (no allocation) until the first setHeights.
    std::vector<std::shared_ptr<const terrain::HeightTile>> mHeights;
    std::vector<Chunk> mChunks;
    std::size_t mUsed = 0;  ///< positions handed out
    std::unique_ptr<std::mutex> mMutex = std::make_unique<std::mutex>();
};

}  // namespace terrabit::core
