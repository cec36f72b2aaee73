#include "terrabit/core/placement/placement_layers.h"

#include "terrabit/core/placement/placement_rules.h"

namespace terrabit::core::placement {

PlacementLayers::PlacementLayers(const LayerSource& base)
    : mBase(&base), mBaseCount(static_cast<int>(base.layerNames().size())), mNames(base.layerNames()) {
    mNames.emplace_back(kPlacedBuildingsLayer);
    mNames.emplace_back(kPlacedVegetationLayer);
}

const BitTile* PlacementLayers::tile(const TileId& id, int layer) const {
    if (layer < 0 || !mBase) return nullptr;
    if (layer < mBaseCount) return mBase->tile(id, layer);
    if (layer == mBaseCount) return mBuildings.tile(id);
    if (layer == mBaseCount + 1) return mVegetation.tile(id);
    return nullptr;
}

}  // namespace terrabit::core::placement
