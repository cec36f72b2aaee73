#pragma once
// Builders for the render tests: the shipped catalogue, a small synthetic scene made in code
// (tiles, blocks of shipped models, surfaces) whose content each test can vary, and a layer
// store with chosen bits.

#include <cstdint>
#include <string>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/tiling/layer_store.h"

namespace terrabit::test {

/// resources/assets/catalogue.yaml, loaded once per process.
const core::AssetCatalogue& shippedCatalogue();

/// Tiles of the synthetic scenes: zoom 17, x 68890 + 0..cols-1, y 47860 + 0..rows-1 (Monaco).
std::vector<core::TileId> syntheticTiles(int cols, int rows);

/// What goes into a synthetic scene.
struct SyntheticSceneSpec {
    int cols = 2;
    int rows = 2;
    int blockCells = 32;
    /// Buildings: one house_gabled per block on the diagonal of every tile.
    bool buildings = true;
    /// Trees per block (broadleaf_oak and palm alternating blocks), on every block of row 1.
    int treesPerBlock = 5;
    /// Mixed into tree yaws and scales, so two seeds give different trees at the same places.
    std::uint32_t treeSeed = 1;
    /// Road and water patches per tile.
    bool surfaces = true;
};

/// A scene built by hand (no baker): blocks sorted as the baker sorts them, bounds filled in from
/// the catalogue's model bounds, surfaces with a few rectangles.
core::Scene syntheticScene(const SyntheticSceneSpec& spec = {});

/// A layer store over `tiles` with layers water, vegetation, road, building, each filled with
/// pseudo-random rectangles from `seed`.
core::LayerStore syntheticLayers(const std::vector<core::TileId>& tiles, std::uint32_t seed);

/// The default rules' layer colours for the synthetic layers (water, vegetation, road, building).
std::vector<core::LayerInfo> syntheticLayerInfos();

}  // namespace terrabit::test
