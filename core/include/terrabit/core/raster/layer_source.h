#pragma once
/// LayerSource: read access to named bit layers over a set of tiles, and to the terrain heights
/// under them. The map-source tiling produces one; the layer algebra, placement, export and
/// collision read through it, including the neighbouring tiles' rows that morphology needs.

#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

namespace terrain {
struct HeightTile;
}

class LayerSource {
public:
    virtual ~LayerSource() = default;

    /// The layer names, in layer-id order (the id of a layer is its index here).
    virtual const std::vector<std::string>& layerNames() const = 0;
    /// The bits of a layer in a tile, or nullptr when the tile holds nothing of that layer
    /// (read as all clear). The pointer stays valid as long as the source is not modified.
    virtual const BitTile* tile(const TileId& id, int layer) const = 0;

    /// The terrain heights of a tile (its 257 × 257 cell corners, terrain/height_tile.h), or
    /// nullptr where the source has none: without a DEM the world is the flat plane at height 0,
    /// as it always was. A tile's samples may still be kNoHeight where no DEM reaches. The
    /// pointer stays valid as long as the source is not modified. Safe to call from several
    /// threads.
    virtual const terrain::HeightTile* heights(const TileId& id) const {
        (void)id;
        return nullptr;
    }

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
