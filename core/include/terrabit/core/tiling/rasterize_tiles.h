#pragma once
/// Rasterizing every tile of a TileIndex on a pool of threads.

#include "terrabit/core/progress.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tiling/layer_store.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core {

struct RasterizeTilesOptions {
    /// Worker threads; 0 means one per hardware thread. Any count gives the same bits.
    int threads = 0;
    /// Called from the calling thread only, with stage "rasterizing". Returning false cancels.
    ProgressCallback progress;
};

/// Rasterizes every layer of every tile of `index` (TileRasterizer, one per thread). Tiles are
/// independent and each lands in its own slot, so the result is byte-identical whatever the
/// thread count or the order the tiles are taken in. Fails when cancelled ("cancelled while
/// rasterizing …") or when a shape cannot be drawn (the message names the feature and tile).
Result<LayerStore> rasterizeTiles(const TileIndex& index, const RasterizeTilesOptions& options = {});

}  // namespace terrabit::core
