#pragma once
/// Internal to core/scale: joins the instances.bin of a merge's parts (instance_file.h) into one,
/// the blocks in the scene's tile order and the source tables united, so the joined file has the
/// bytes one bake of every tile writes.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "terrabit/core/result.h"

namespace terrabit::core::scale {

/// One part's instance file and its index, as its manifest holds it.
struct InstanceFilePart {
    std::filesystem::path file;        ///< the part's instances.bin
    std::vector<std::string> blocks;   ///< the elements of its manifest's "instanceBlocks"
    std::vector<std::string> sources;  ///< the elements of its "instanceSources" (JSON strings)
};

/// What the join wrote: the joined manifest's index.
struct JoinedInstanceFile {
    std::vector<std::string> blocks;   ///< "instanceBlocks" elements, offsets in the joined file
    std::vector<std::string> sources;  ///< "instanceSources" elements, sorted
    std::uint64_t instances = 0;
    std::uint64_t bytes = 0;  ///< the joined file's size
    std::uint64_t runs = 0;   ///< runs of consecutive blocks taken from one part
};

/// Writes `destination` (atomically) from the parts, any order: their blocks sorted by tile
/// (north to south, then west to east; a tile's blocks as its part holds them), each record's
/// source renumbered into the united table. Reads a block at a time.
/// Errors, naming the part's file: unreadable, a bad header, a size or block index that does not
/// match the header (a truncated or foreign file), a source outside the part's table.
Result<JoinedInstanceFile> joinInstanceFiles(const std::vector<InstanceFilePart>& parts,
                                             const std::filesystem::path& destination);

}  // namespace terrabit::core::scale
