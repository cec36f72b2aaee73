#pragma once
/// Shards of a bake: the tile set cut into N deterministic, balanced parts that machines bake
/// independently and `terrabit-cli merge` joins into exactly the single-machine output.
///
/// - The cut: tiles in quadkey order (a Z-order curve, so a run of consecutive tiles is a union
///   of whole quadtree subtrees — a set of quadkey prefixes), cut into N runs of about equal
///   weight, a tile weighing one plus its feature entries. The same tiles and weights give the
///   same shards on every machine.
/// - The halo: a tile's placement depends on its neighbours (buildings reach the eight around
///   their tile, and earlier building phases within two tiles decide what a tile finds occupied;
///   vegetation spacing and layer halos read the neighbours). A shard therefore bakes its own
///   tiles plus every tile their results depend on (ShardWork::baked) and keeps only its own.
/// - The index K of "K/N" comes from `--shard K/N` or from the array-job variables of Slurm,
///   Kubernetes Indexed Jobs and AWS Batch (shardFromEnvironment).

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tile/tile_id.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::scale {

/// Part `index` of `count` (0 <= index < count). The default (count 0) is no shard: the whole
/// bake, without a shard record. "0/1" is the whole bake as a single shard, with its record, so
/// an array job of one task still merges.
struct ShardSpec {
    int index = 0;
    int count = 0;
    /// "K/N".
    std::string text() const;
    friend bool operator==(const ShardSpec&, const ShardSpec&) = default;
};

/// Parses "K/N" (0 <= K < N <= 65536). Errors name what is wrong.
Result<ShardSpec> parseShardSpec(std::string_view text);

/// Looks a variable up; nullopt when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// The process environment (std::getenv).
EnvironmentLookup processEnvironment();

/// A shard found in the environment and the variable it came from.
struct EnvironmentShard {
    ShardSpec spec;
    std::string source;  ///< e.g. "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"
};

/// The shard of an array job, from the first engine whose index variable is set:
///   Slurm        SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT (minus SLURM_ARRAY_TASK_MIN when set)
///   Kubernetes   JOB_COMPLETION_INDEX, with the count in TERRABIT_SHARD_COUNT (Indexed Jobs do
///                not export their completions; packaging/cluster/terrabit-bake-job.yaml sets it)
///   AWS Batch    AWS_BATCH_JOB_ARRAY_INDEX, with the count in AWS_BATCH_JOB_ARRAY_SIZE or
///                TERRABIT_SHARD_COUNT (set it in the job definition)
/// nullopt when none is set. Errors: an index without a count, values that are not numbers,
/// an index outside the count.
Result<std::optional<EnvironmentShard>> shardFromEnvironment(const EnvironmentLookup& env);

/// What one shard of a bake does.
struct ShardWork {
    std::vector<TileId> own;            ///< the shard's tiles, north to south
    std::vector<TileId> baked;          ///< own plus the halo their results depend on, sorted
    std::vector<std::string> prefixes;  ///< quadkey prefixes covering `own`
    std::uint64_t weight = 0;           ///< tiles plus feature entries of `own`
};

/// The work of shard `spec` of a bake of every tile of `index` (weighted by their feature
/// entries) by the passes of `rules`. With `alignLevels` > 0 every shard holds whole groups of
/// tiles under one ancestor that many levels up (osgb's files, kSceneGraphGroupLevels), as
/// batchWorks' batches do, so that each group file is written by one shard and merge can join
/// them; every shard of a bake must be cut the same way (they are when baked with the same
/// formats).
ShardWork shardWork(const TileIndex& index, const ShardSpec& spec, const placement::PlacementRules& rules,
                    int alignLevels = 0);

/// The batches of a bake that streams its tiles (io::BakeCommand::batchTiles): the tiles `of`
/// (tiles of `index`: all of them, or a shard's own) cut, like shards, into runs of
/// consecutive quadkeys — of at most `batchTiles` tiles each (tiles weigh one, so a batch
/// bounds what is held at once) — each with the halo its results depend on among all the
/// index's tiles. Empty for no tiles; at most 65536 batches (larger batches then).
/// With `alignLevels` > 0 a batch holds whole groups of tiles under one ancestor that many
/// levels up (osgb's files, kSceneGraphGroupLevels): the cuts move to the nearest group edge, so
/// a batch may hold up to a group's tiles more, or fewer.
std::vector<ShardWork> batchWorks(const TileIndex& index, std::span<const TileId> of, std::size_t batchTiles,
                                  const placement::PlacementRules& rules, int alignLevels = 0);

}  // namespace terrabit::core::scale
