#pragma once
// Private to terrabit::scale: the steps of shardWork and batchWorks (shard_plan.cpp) — the cut,
// the reach of the passes and the halo. Tests see them through their private include of
// core/scale/src, to check each step on its own.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::scale {

/// The N parts of a tile set.
struct ShardPlan {
    std::vector<std::vector<TileId>> tiles;      ///< per shard, sorted north to south, west to east
    std::vector<std::uint64_t> weights;          ///< per shard: tiles plus feature entries
    std::vector<std::vector<std::string>> keys;  ///< per shard: the fewest quadkey prefixes covering it
};

/// Cuts `tiles` (one zoom, any order, no duplicates) with `weights` (aligned; empty: all 1)
/// into `count` runs of consecutive quadkeys of about equal weight. With fewer tiles than
/// shards the last shards are empty. With `alignLevels` > 0 every cut falls between groups of
/// tiles under one ancestor that many levels up (some runs may then be empty).
ShardPlan planShards(std::span<const TileId> tiles, std::span<const std::uint64_t> weights, int count,
                     int alignLevels = 0);

/// How far, in tiles, around a shard's own tiles the passes' results must equal the whole
/// bake's for the own tiles' results to: walking the passes from the last, a vegetation pass's
/// result reads the placed layers of earlier passes two tiles around (its spacing rivals in the
/// neighbours, and their layer halo of up to one tile), a surface pass's one tile around, a
/// building pass's two; a building's footprint reaches one tile beyond the tile that owns it.
/// The building pass's own chain of phases is added by bakeClosure.
int placementReachTiles(std::span<const placement::PassKind> passes);

/// The tiles a shard must bake so that the results of `own` equal the whole bake's: `own`
/// grown by `reachTiles`, then closed under the building pass's dependency (a tile depends on
/// the earlier-phase tiles within two tiles). Only tiles of `all` (the whole bake's tiles) are
/// taken: tiles without content place nothing. Sorted.
std::vector<TileId> bakeClosure(std::span<const TileId> own, std::span<const TileId> all, int reachTiles);

}  // namespace terrabit::core::scale
