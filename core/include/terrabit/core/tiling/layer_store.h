#pragma once
/// LayerStore: the bit layers of a set of tiles, as rasterized from a map. It is the
/// LayerSource the layer algebra, placement and collision read.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/raster/layer_source.h"
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
    /// Safe to call from several threads at once for different slots.
    void store(std::size_t slot, std::span<const BitTile> layers);

    /// A hash of every tile's every layer, in slot order (for determinism checks).
    std::uint64_t hash() const;

private:
    struct TileLayers {
        std::vector<std::int32_t> index;  ///< per layer id: position in bits, or -1 when empty
        std::vector<BitTile> bits;
    };
    std::vector<std::string> mNames;
    std::vector<TileId> mTiles;
    std::unordered_map<TileId, std::size_t> mSlots;
    std::vector<TileLayers> mLayers;  ///< per slot
};

}  // namespace terrabit::core
