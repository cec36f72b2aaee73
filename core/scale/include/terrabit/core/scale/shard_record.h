#pragma once
/// shard.json: what one shard of a bake wrote, beside its files — which part of which bake it
/// is, its own tiles, and the vegetation tallies that let `terrabit-cli merge` recompute the
/// statistics exactly as one bake of every tile would (their floating-point sum depends on
/// order). A shard writes it last, after its files: a shard folder without shard.json is a
/// shard that failed or has not finished, and merge names it so it can be rerun alone.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/result.h"
#include "terrabit/core/scale/shard_plan.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core::scale {

/// The file name of the record inside a shard's output folder.
inline constexpr std::string_view kShardRecordFile = "shard.json";

struct ShardRecord {
    ShardSpec shard;
    std::vector<TileId> tiles;                 ///< the shard's own tiles, in Scene order (north to south)
    std::vector<std::string> prefixes;         ///< quadkey prefixes covering them
    std::uint64_t weight = 0;                  ///< tiles plus feature entries
    std::size_t bakedTiles = 0;                ///< own tiles plus the halo they depend on
    std::vector<VegetationTileTally> tallies;  ///< Scene::vegetationTallies of the shard's scene
    std::vector<std::string> files;            ///< written, relative to the shard folder
    double milliseconds = 0.0;                 ///< the shard's wall time
};

/// A record of `spec`'s work, before tallies, files and time are known.
ShardRecord makeShardRecord(const ShardSpec& spec, const ShardWork& work);

/// Removes <folder>/shard.json if there is one: a shard starting again is not done until it
/// writes a new one. Errors name the file and the OS reason.
Status removeShardRecord(const std::filesystem::path& folder);

/// JSON text of a record (not byte-stable: it holds a time).
std::string encodeShardRecord(const ShardRecord& record);

/// Reads a record back. `where` names the file in errors.
Result<ShardRecord> decodeShardRecord(std::string_view text, std::string_view where);

/// Writes <folder>/shard.json through a temporary file and a rename, so it appears whole.
Status writeShardRecord(const std::filesystem::path& folder, const ShardRecord& record);

/// Reads <folder>/shard.json. Errors say when it is missing (the shard failed or has not run).
Result<ShardRecord> readShardRecord(const std::filesystem::path& folder);

}  // namespace terrabit::core::scale
