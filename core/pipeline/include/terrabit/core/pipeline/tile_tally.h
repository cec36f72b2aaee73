#pragma once
/// What a selection holds, tile by tile: each layer's coverage, and what a bake placed. The
/// figures the desktop's tile picker and layers panel show, counted without Qt.

#include <span>
#include <vector>

#include "terrabit/core/algebra/area_coverage.h"
#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::pipeline {

/// What a bake placed in one tile.
struct TileTally {
    TileId tile;
    int buildingsPlaced = 0;
    int buildingsBlocked = 0;    ///< by what is placed or blocks, or (on terrain) by slope
    int buildingsUnmatched = 0;  ///< no model fits the footprint
    int buildingsGenerated = 0;  ///< no prefab fits: the fallback generated a building
    int trees = 0;               ///< placed instances of category "tree"
    int vegetation = 0;          ///< every placed plant (trees, bushes, grass, flowers)
};

/// One tally per tile of `tiles`, in their order (zero for a tile the scene does not hold).
/// Instances are counted by their asset's catalogue category; buildings by their outcome.
std::vector<TileTally> tallyTiles(const Scene& scene, const AssetCatalogue& catalogue, std::span<const TileId> tiles);

/// Per layer of `layers` (in layer-id order): its coverage summed over `tiles`.
std::vector<algebra::AreaCoverage> coverageByLayer(const LayerSource& layers, std::span<const TileId> tiles);

}  // namespace terrabit::core::pipeline
