#pragma once
/// LayerSource: read access to named bit layers over a set of tiles. The map-source tiling
/// produces one; the layer algebra, placement and collision read through it, including the
/// neighbouring tiles' rows that morphology needs.

#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

class LayerSource {
public:
    virtual ~LayerSource() = default;

    /// The layer names, in layer-id order (the id of a layer is its index here).
    virtual const std::vector<std::string>& layerNames() const = 0;
    /// The bits of a layer in a tile, or nullptr when the tile holds nothing of that layer
    /// (read as all clear). The pointer stays valid as long as the source is not modified.
    virtual const BitTile* tile(const TileId& id, int layer) const = 0;

    /// The id of a named layer, or -1 when there is no such layer.
    int layerId(std::string_view name) const {
        const auto& names = layerNames();
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i] == name) return static_cast<int>(i);
        }
        return -1;
    }
};

}  // namespace terrabit::core
