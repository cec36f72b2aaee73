#pragma once
/// Internal to core/scale: joins the collision grid files (collision.tbcg, collision_file.h) of a
/// merge's parts into one, with the bytes one bake of every part's tiles writes: the region
/// their bounding rectangle, the tile index their union in (y, x) order, each tile's bit tiles
/// and height block copied from its part. A part is read whole once to check it (every check
/// of parseCollisionFile), then a tile at a time, so a join holds one part, not the scene.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "terrabit/core/result.h"

namespace terrabit::core::scale {

/// What the join wrote.
struct JoinedCollisionFile {
    std::uint64_t tiles = 0;  ///< entries of the joined tile index
    std::uint64_t bytes = 0;  ///< the joined file's size
};

/// Writes `destination` (atomically) from the parts, any order. Every part must come from the
/// same bake: one zoom, the same layers in the same order, no tile in two parts. The joined file
/// is version 2 (heights) when any part is; a version 1 part's tiles then get empty height
/// blocks, as a bake writes for tiles without heights.
/// Errors, naming the part: unreadable, not a valid collision grid file (its parse error), a
/// zoom or layer list unlike the first part's, a tile another part holds too, a joined region
/// larger than a file may declare.
Result<JoinedCollisionFile> joinCollisionFiles(const std::vector<std::filesystem::path>& parts,
                                               const std::filesystem::path& destination);

}  // namespace terrabit::core::scale
