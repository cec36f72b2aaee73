#pragma once
/// Joining shards (`terrabit-cli merge`, a streamed bake's batches): joins the output folders of the shards of one bake
/// into the folder a single-machine bake of every tile would have written, byte for byte:
///   3dtiles    the baked tiles' contents copied, tileset.json and the inner tiles' coarse
///              contents rebuilt from the shards' leaves and their level sources
///              (3dtiles/levels/<quadkey>.json, which each shard writes; encodeTilesetLeaves:
///              same tree, same regions, same levels, same bytes)
///   manifest   instances and buildings interleaved in the scene's order, assets and tiles
///              united, statistics summed (densities from the shards' vegetation tallies); with
///              binary instances (instance_file.h) the shards' instances.bin joined into one,
///              blocks in tile order, offsets rebased, source tables united — every shard must
///              have written its instances the same way; read back into JSON lines when the
///              parts of an `auto` bake hold too few (MergeJob::autoBinaryAbove)
///   collision  the shards' collision.tbcg joined into one: region and tile index of the union,
///              each tile's bit tiles and heights copied from its shard (a version 1 shard's
///              tiles get empty height blocks when another has heights)
///   layers     the per-tile folders copied
///   osgb       the shards' group files (scene/<quadkey>.osgb; a shard baked with osgb holds
///              whole groups) copied, and the root scene.osgb written for all of them
///              (MergeJob::sceneGraphRoot; without it the osgb is left out, as the GLB)
///   glb        scene.glb encoded from the shards' scene.part (scene_part_file.h: what the GLB
///              encoder reads of each shard's scene), shard after shard in quadkey order: the
///              bytes one machine writes. A shard's scene.glb (a terrabit-cli before scene.part)
///              cannot be joined; merge says so and leaves it out.
/// Every shard folder must hold its shard.json: a
/// missing one, a missing shard index or shards of different bakes (seed, frame, rules, shard count) are errors that
/// name the shard to rerun.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/progress.h"
#include "terrabit/core/result.h"

namespace terrabit::core::scale {

/// What to join, and how.
struct MergeJob {
    std::vector<std::filesystem::path> shards;  ///< the shards' output folders, any order
    std::filesystem::path outDir;               ///< created when missing
    /// Rename the shards' per-tile files into place instead of copying them (a streamed bake's
    /// batches, whose folders are thrown away after the merge); the shard folders are left
    /// incomplete.
    bool moveParts = false;
    /// Join the shards given even when other shards of their count are missing (a round of
    /// mergeParts joins a run of a streamed bake's batches).
    bool subset = false;
    /// Keep the shards' level sources (3dtiles/levels/) in the output: the output is itself a
    /// part of a later merge (a shard joined from its batches). Otherwise they are read, not
    /// copied.
    bool keepLevelSources = false;
    /// Set for the parts of a bake asked for `--instances auto` that wrote theirs binary (a
    /// streamed bake's batches): the joined manifest holds them as JSON lines, as the bake of
    /// everything at once writes them, unless they are more than this many in all. Unset: the
    /// parts' encoding is kept.
    std::optional<std::uint64_t> autoBinaryAbove;
    /// Writes the osgb root file for the joined group files (core::SceneGraphRootWriter, which
    /// the render module provides: render::sceneGraphRootWriter). Unset: the shards' osgb is
    /// not joined, and said so (MergeReport::unjoinable).
    std::function<Status(std::span<const std::string> groups, const std::filesystem::path& file)> sceneGraphRoot;
    /// Told the share joined (0..1) and the output being joined ("joining 3dtiles"…); a false
    /// return cancels the merge, which then leaves the output folder as it was ("merge
    /// cancelled").
    ProgressCallback progress;
};

/// One output of a merge, in the order written.
struct MergedOutput {
    enum class Kind {
        Tileset,     ///< 3dtiles/tileset.json; `files` tile contents copied beside it
        Manifest,    ///< manifest.json; the instances and buildings joined, and in how many runs
        Layers,      ///< the layers/ folder; `files` files copied
        Collision,   ///< collision.tbcg, joined from `files` parts; `tiles` in its index
        SceneGraph,  ///< scene.osgb, written for `files` group files copied into scene/
        Scene,       ///< scene.glb, encoded from `files` shards' scene.part
    };
    Kind kind = Kind::Tileset;
    std::filesystem::path path;  ///< the file (for Layers the folder), under MergeJob::outDir
    std::uint64_t files = 0;
    /// Manifest: the elements joined and the runs of consecutive lines they came in (few and
    /// long when the parts' tiles lie apart); with binary instances, the runs of consecutive
    /// blocks of instances.bin.
    std::uint64_t instances = 0, instanceRuns = 0, buildings = 0, buildingRuns = 0;
    std::uint64_t tiles = 0;  ///< Collision: the tiles its index lists
};

/// What a merge did, as far as it got, for its caller to tell the user (terrabit-cli merge
/// prints it; a streamed bake's join keeps it to itself).
struct MergeReport {
    /// The shards' whole-scene files (an older shard's scene.glb; scene.osgb without MergeJob::sceneGraphRoot),
    /// which cover a shard's tiles only and are not joined: each a warning.
    std::vector<std::filesystem::path> unjoinable;
    bool started = false;   ///< the shards fit together and the output folder exists
    int shardCount = 0;     ///< N of the shards' K/N (when started)
    std::size_t tiles = 0;  ///< the tiles merged (when started)
    std::vector<MergedOutput> written;
};

/// Merges into a work folder in `outDir`, then moves the outputs into place: a merge that fails
/// leaves `outDir` as it was, and `report` then lists nothing written. An `outDir` that is one of
/// the shards is refused (BadArguments).
/// Errors: no shards or no output folder (BadArguments); a shard record unreadable, missing,
/// duplicated or of another bake (BadInput, one line per shard, naming what to rerun); a file
/// that could not be written (Io).
Status mergeShards(const MergeJob& job, MergeReport& report);

/// Joins the batches of a streamed bake: mergeShards with moveParts, quietly. The join reads every part's manifest at
/// once, so more than `maxOpen` parts (a country's thousands of batches against the limit of
/// open files) are joined in rounds of `maxOpen` — the same bytes. `keepLevelSources`: as
/// MergeJob's (a shard's batches); `autoBinaryAbove`: MergeJob's, for the last round (the rounds
/// before keep the parts' binary instances).
Status mergeParts(const std::vector<std::filesystem::path>& parts, const std::filesystem::path& outDir,
                  std::size_t maxOpen = 256, bool keepLevelSources = false,
                  std::optional<std::uint64_t> autoBinaryAbove = std::nullopt);

}  // namespace terrabit::core::scale
