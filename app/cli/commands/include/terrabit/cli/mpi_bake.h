#pragma once
/// `mpirun -np N terrabit-cli bake --mpi …`: one bake spread over the ranks of an MPI job
/// (OpenMPI). The tile set is cut into units (shards, scale/shard_plan.h, by default two per
/// worker) that rank 0 hands out one at a time to whichever rank asks next, so fast ranks take
/// more (rank 0 too, from a coordinator thread, when MPI offers MPI_THREAD_MULTIPLE as OpenMPI
/// does); each unit is baked like `--shard K/N` into <out>/.terrabit-shards/K. Rank 0 gathers
/// every unit's statistics (rank, tiles, halo, time), prints them, and merges the units into
/// <out> (scale/shard_merge.h), giving the same files as a bake on one machine. With one rank,
/// rank 0 bakes every unit itself. A failed unit is named with the command that reruns it
/// alone; its siblings stay in <out>/.terrabit-shards for `terrabit-cli merge`.
///
/// Built only when CMake finds MPI (TERRABIT_HAVE_MPI).

#include <ostream>

#include "terrabit/cli/bake_command.h"

namespace terrabit::cli {

struct MpiBakeOptions {
    int units = 0;  ///< units to cut the tiles into; 0: two per baking rank
};

/// Initialises MPI, runs the bake on every rank and finalises MPI. Returns rank 0's exit code
/// (0: merged; 1: a unit failed or the merge did; 2: bad arguments) on rank 0 and 0 elsewhere.
int runMpiBake(const BakeCommand& command, const MpiBakeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace terrabit::cli
