#pragma once
/// PlacementLayers: the map's bit layers plus the layers placement writes as it goes —
/// placed_buildings (every cell a placed building's footprint touches) and placed_vegetation
/// (every cell holding a plant's trunk) — as one LayerSource, so pass expressions read both
/// ("vegetation - placed_buildings"), and export and collision can take them as they are.

#include <string>
#include <vector>

#include "terrabit/core/placement/occupancy_map.h"
#include "terrabit/core/raster/layer_source.h"

namespace terrabit::core::placement {

class PlacementLayers final : public LayerSource {
public:
    /// No base, no layers.
    PlacementLayers() = default;
    /// The base layers followed by placed_buildings and placed_vegetation, both clear. The base
    /// must outlive this object.
    explicit PlacementLayers(const LayerSource& base);

    const std::vector<std::string>& layerNames() const override { return mNames; }
    /// A base layer's bits, or a placed layer's bits in a tile it holds; nullptr otherwise.
    const BitTile* tile(const TileId& id, int layer) const override;
    /// The base's heights: placement moves nothing up or down.
    const terrain::HeightTile* heights(const TileId& id) const override { return mBase ? mBase->heights(id) : nullptr; }

    /// The id of placed_buildings (the base's layer count) and of placed_vegetation (one more).
    int placedBuildingsLayer() const { return mBaseCount; }
    int placedVegetationLayer() const { return mBaseCount + 1; }

    /// The placed layers, to be written by the passes between reads.
    OccupancyMap& placedBuildings() { return mBuildings; }
    OccupancyMap& placedVegetation() { return mVegetation; }
    const OccupancyMap& placedBuildings() const { return mBuildings; }
    const OccupancyMap& placedVegetation() const { return mVegetation; }

private:
    const LayerSource* mBase = nullptr;
    int mBaseCount = 0;
    std::vector<std::string> mNames;
    OccupancyMap mBuildings;
    OccupancyMap mVegetation;
};

}  // namespace terrabit::core::placement
