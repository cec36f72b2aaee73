#pragma once
/// `terrabit-cli merge`: joins the output folders of the shards of one bake into the folder a
/// single-machine bake of every tile would have written, byte for byte:
///   3dtiles    the tile contents copied, tileset.json rebuilt from the shards' leaves
///              (encodeTilesetLeaves: same tree, same regions, same bytes)
///   manifest   instances and buildings interleaved in the scene's order, assets and tiles
///              united, statistics summed (densities from the shards' vegetation tallies)
///   layers     the per-tile folders copied
/// The whole-scene formats (glb, collision) cannot be joined from parts; merge says so and
/// leaves them out. Every shard folder must hold its shard.json: a missing one, a missing
/// shard index or shards of different bakes (seed, frame, rules, shard count) are errors that
/// name the shard to rerun.

#include <filesystem>
#include <ostream>
#include <vector>

#include "terrabit/core/result.h"

namespace terrabit::core::scale {

struct MergeCommand {
    std::vector<std::filesystem::path> shards;  ///< the shards' output folders, any order
    std::filesystem::path outDir;               ///< created when missing
    /// Rename the shards' per-tile files into place instead of copying them (a streamed bake's
    /// batches, whose folders are thrown away after the merge); the shard folders are left
    /// incomplete.
    bool moveParts = false;
    /// Join the shards given even when other shards of their count are missing (a round of
    /// mergeParts joins a run of a streamed bake's batches).
    bool subset = false;
};

/// Merges; prints what was merged and written on `out`, problems on `err`. Returns 0 when the
/// merged output was written, 1 when a shard is missing, failed or does not fit the others or
/// a file could not be read or written, 2 for bad arguments.
int runMerge(const MergeCommand& command, std::ostream& out, std::ostream& err);

/// Joins the batches of a streamed bake (io::BakeCommand::merger): runMerge with moveParts,
/// quietly; an error carries what runMerge printed. The join reads every part's manifest at
/// once, so more than `maxOpen` parts (a country's thousands of batches against the limit of
/// open files) are joined in rounds of `maxOpen` — the same bytes.
Status mergeParts(const std::vector<std::filesystem::path>& parts, const std::filesystem::path& outDir,
                  std::size_t maxOpen = 256);

}  // namespace terrabit::core::scale
