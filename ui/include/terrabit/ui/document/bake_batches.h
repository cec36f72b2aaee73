#pragma once
/// How the desktop bakes a large selection progressively: the tiles nearest a focus (the map
/// view's centre) first, in growing batches, each bake covering every tile of the batches
/// before it (the baker's caches make those cheap), so the first tiles show within a moment and
/// the rest follow. No Qt: plain functions the document's bake job and the tests call.

#include <cstddef>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::ui {

/// The tiles of the first batch: few enough to show within a second on a small machine.
inline constexpr std::size_t kFirstBatchTiles = 16;

/// `tiles` ordered by the distance of their centres from `focus` (global cells at the tiles'
/// zoom), nearest first; ties keep north-to-south, west-to-east order, so the order is the same
/// for any order of the input.
std::vector<core::TileId> nearestFirst(std::vector<core::TileId> tiles, core::Vec2 focus);

/// How much the last batch grows the one before it at least.
inline constexpr double kLastGrowth = 1.5;

/// Where each batch ends in nearestFirst's order: kFirstBatchTiles (or `first`), then doubling,
/// the last one `tiles`, at least kLastGrowth times the one before unless that one is the first
/// (a doubling end too near `tiles` is left out). Empty for no tiles; one batch when `tiles` <=
/// first.
std::vector<std::size_t> batchEnds(std::size_t tiles, std::size_t first = kFirstBatchTiles);

}  // namespace terrabit::ui
