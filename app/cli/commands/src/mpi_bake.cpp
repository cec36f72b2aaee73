#include "terrabit/cli/mpi_bake.h"

#include <mpi.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <thread>
#include <vector>

#include "terrabit/cli/merge_command.h"
#include "terrabit/core/scale/shard_record.h"

namespace terrabit::cli {

using namespace core;
using namespace core::scale;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kTagWork = 1;    // rank 0 → worker: the unit to bake, or -1 when there is none left
constexpr int kTagResult = 2;  // worker → rank 0: a UnitResult (unit -1: ready for the first one)

/// What a worker reports for a unit, as MPI_LONG_LONGs.
struct UnitResult {
    long long unit = -1;
    long long exitCode = 0;
    long long tiles = 0;         // the unit's own tiles
    long long bakedTiles = 0;    // with their halo
    long long microseconds = 0;  // wall time of the unit
    long long rank = 0;

    std::array<long long, 6> pack() const { return {unit, exitCode, tiles, bakedTiles, microseconds, rank}; }
    static UnitResult unpack(const std::array<long long, 6>& a) { return {a[0], a[1], a[2], a[3], a[4], a[5]}; }
};

fs::path unitFolder(const BakeCommand& command, int unit) {
    return command.outDir / ".terrabit-shards" / std::to_string(unit);
}

UnitResult bakeUnit(const BakeCommand& command, int unit, int units, int rank, std::ostream& err) {
    BakeCommand c = command;
    c.shard = ShardSpec{unit, units};
    c.outDir = unitFolder(command, unit);
    std::ostringstream quietOut, unitErr;
    const auto start = Clock::now();
    UnitResult r;
    r.unit = unit;
    r.rank = rank;
    r.exitCode = runBake(c, quietOut, unitErr, {});
    r.microseconds = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
    if (r.exitCode != 0) {
        err << "rank " << rank << ", unit " << unit << "/" << units << ":\n" << unitErr.str();
    } else if (auto record = readShardRecord(c.outDir)) {
        r.tiles = static_cast<long long>(record->tiles.size());
        r.bakedTiles = static_cast<long long>(record->bakedTiles);
    }
    return r;
}

void sendResult(const UnitResult& r) {
    const auto packed = r.pack();
    MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_LONG_LONG, 0, kTagResult, MPI_COMM_WORLD);
}

/// Rank 0's coordinator: hands out units as the `workers` ranks ask, until every unit is done.
std::vector<UnitResult> coordinate(int workers, int units) {
    std::vector<UnitResult> results;
    int next = 0, active = workers;
    while (active > 0) {
        std::array<long long, 6> packed{};
        MPI_Status status;
        MPI_Recv(packed.data(), static_cast<int>(packed.size()), MPI_LONG_LONG, MPI_ANY_SOURCE, kTagResult,
                 MPI_COMM_WORLD, &status);
        const UnitResult r = UnitResult::unpack(packed);
        if (r.unit >= 0) results.push_back(r);
        long long work = next < units ? next++ : -1;
        if (work < 0) --active;
        MPI_Send(&work, 1, MPI_LONG_LONG, status.MPI_SOURCE, kTagWork, MPI_COMM_WORLD);
    }
    return results;
}

void work(const BakeCommand& command, int units, int rank, std::ostream& err) {
    sendResult(UnitResult{});  // ready
    for (;;) {
        long long unit = -1;
        MPI_Recv(&unit, 1, MPI_LONG_LONG, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (unit < 0) return;
        sendResult(bakeUnit(command, static_cast<int>(unit), units, rank, err));
    }
}

}  // namespace

int runMpiBake(const BakeCommand& command, const MpiBakeOptions& options, std::ostream& out, std::ostream& err) {
    int initialised = 0, threads = MPI_THREAD_SINGLE;
    MPI_Initialized(&initialised);
    if (!initialised) MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &threads);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // With MPI_THREAD_MULTIPLE rank 0 coordinates on a thread of its own and bakes units too
    // (it asks itself for them like any rank); otherwise it only coordinates.
    const bool rankZeroWorks = size == 1 || threads == MPI_THREAD_MULTIPLE;
    const int workers = rankZeroWorks ? size : size - 1;
    const int units = options.units > 0 ? options.units : 2 * workers;
    const auto start = Clock::now();

    int exitCode = 0;
    if (rank != 0) {
        work(command, units, rank, err);
    } else {
        std::vector<UnitResult> results;
        if (size == 1) {
            for (int k = 0; k < units; ++k) results.push_back(bakeUnit(command, k, units, 0, err));
        } else if (rankZeroWorks) {
            std::thread coordinator([&] { results = coordinate(workers, units); });
            work(command, units, 0, err);
            coordinator.join();
        } else {
            results = coordinate(workers, units);
        }
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        // The statistics every rank sent, gathered here.
        std::vector<long long> unitsOf(static_cast<std::size_t>(size), 0), tilesOf(static_cast<std::size_t>(size), 0),
            bakedOf(static_cast<std::size_t>(size), 0), usOf(static_cast<std::size_t>(size), 0);
        long long tiles = 0;
        std::vector<fs::path> folders;
        for (const UnitResult& r : results) {
            const auto at = static_cast<std::size_t>(r.rank);
            ++unitsOf[at];
            tilesOf[at] += r.tiles;
            bakedOf[at] += r.bakedTiles;
            usOf[at] += r.microseconds;
            tiles += r.tiles;
            folders.push_back(unitFolder(command, static_cast<int>(r.unit)));
            if (r.exitCode != 0) {
                exitCode = exitCode == 0 ? static_cast<int>(r.exitCode) : exitCode;
                err << "error: unit " << r.unit << "/" << units << " failed on rank " << r.rank
                    << "; rerun it alone: terrabit-cli bake --shard " << r.unit << "/" << units << " … --out "
                    << unitFolder(command, static_cast<int>(r.unit)).string() << ", then terrabit-cli merge\n";
            }
        }
        out << "mpi: " << size << " ranks, " << units << " units, " << tiles << " tiles in " << std::fixed
            << std::setprecision(2) << seconds << " s (" << std::setprecision(1)
            << (seconds > 0 ? static_cast<double>(tiles) / seconds : 0.0) << " tiles/s)\n";
        for (int r = 0; r < size; ++r) {
            const auto at = static_cast<std::size_t>(r);
            if (unitsOf[at] == 0) continue;
            out << "  rank " << r << ": " << unitsOf[at] << " units, " << tilesOf[at] << " tiles (" << bakedOf[at]
                << " baked with their halo), " << std::setprecision(2) << static_cast<double>(usOf[at]) / 1e6 << " s\n";
        }
        if (exitCode == 0) {
            cli::MergeCommand merge;
            merge.shards = folders;
            merge.outDir = command.outDir;
            merge.sceneGraphRoot = command.sceneGraphRoot;
            exitCode = cli::runMerge(merge, out, err);
            if (exitCode == 0) {
                std::error_code ec;
                fs::remove_all(command.outDir / ".terrabit-shards", ec);
            }
        }
    }
    MPI_Finalize();
    return rank == 0 ? exitCode : 0;
}

}  // namespace terrabit::cli
