#pragma once
/// `terrabit-cli merge`: joins the output folders of the shards of one bake (bake --shard K/N)
/// into the folder a bake of every tile would have written (scale::mergeShards).

#include <filesystem>
#include <ostream>

#include "terrabit/cli/exit_codes.h"
#include "terrabit/core/scale/shard_merge.h"

namespace terrabit::cli {

/// The shards to join and the output folder (scale/shard_merge.h says what each field does).
using MergeCommand = core::scale::MergeJob;

/// Prints a merge's report: the whole-scene files it could not join as warnings on `err`, then
/// on `out` what it merged and each output it wrote.
void printMergeReport(std::ostream& out, std::ostream& err, const core::scale::MergeReport& report,
                      const std::filesystem::path& outDir);

/// Merges; prints what was merged and written on `out`, warnings and errors on `err`. Returns 0
/// when the merged output was written, 1 when a shard is missing, failed or does not fit the
/// others or a file could not be read or written, 2 for bad arguments.
int runMerge(const MergeCommand& command, std::ostream& out, std::ostream& err);

}  // namespace terrabit::cli
