#pragma once
/// Rasterizing part of an index: the tiles a batch of a streamed bake reads, so that only they
/// are held (terrabit-cli bake with --batch-tiles), rather than every tile of the map.

#include <span>

#include "terrabit/core/result.h"
#include "terrabit/core/tile/tile_id.h"
#include "terrabit/core/tiling/layer_store.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core {

/// A store of just `tiles` (tiles of `index`, no duplicates; slots in the given order), each
/// drawn from `index` as rasterizeTiles draws it — the same bits, whatever else the index holds
/// and whatever the thread count (`threads` 0: one per hardware thread). Errors: a tile not in
/// the index, a shape that cannot be drawn (naming the tile; the lowest such tile of `tiles`).
Result<LayerStore> rasterizeSome(const TileIndex& index, std::span<const TileId> tiles, int threads);

}  // namespace terrabit::core
