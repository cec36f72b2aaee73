// Scale-out benchmark: `terrabit-cli bake` of whole maps (the Monaco sample, the Monaco region
// with 23,000 buildings, Krems) on one thread against every core, and as two shards plus their
// merge (what two machines of a cluster would take: the slower shard, then the merge). Each run
// is a child process, so wall time and peak memory (the child's maximum resident set, from
// wait4) are the command's own. Counters: wall seconds, peak MiB, tiles per second, and the
// speed-up over the single-thread bake, the baseline a user has without Terrabit's tile
// parallelism. The all-core bake runs with the default --batch-tiles (a city-sized map bakes at
// once, bigger ones stream), all at once (--batch-tiles 0, the baseline of its peak memory) and
// streamed in batches of 256 and 64 (peak_vs_all_at_once: what streaming saves, wall_s: what it
// costs). Run with `make bench` or build/release/tests/bench/scale_bench.

#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::string kCli = TERRABIT_CLI;

struct Run {
    double seconds = 0.0;
    double peakMiB = 0.0;
    bool ok = false;
};

/// Runs the CLI with `args`, output to /dev/null; wall time and the child's peak memory.
Run runCli(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    std::vector<std::string> all{kCli, "--quiet"};
    all.insert(all.end(), args.begin(), args.end());
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        std::freopen("/dev/null", "w", stdout);
        std::freopen("/dev/null", "w", stderr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    Run r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.peakMiB = static_cast<double>(usage.ru_maxrss) / 1024.0;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

/// The manifest's tile count, from its "tiles" line alone: parsing a whole manifest of millions
/// of instances would grow this process, whose peak memory forked children then report.
std::size_t tilesIn(const fs::path& manifest) {
    std::ifstream in(manifest);
    const std::string key = "  \"tiles\": ";
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(key, 0) != 0) continue;
        if (!line.empty() && line.back() == ',') line.pop_back();
        return nlohmann::json::parse(line.substr(key.size())).size();
    }
    return 0;
}

struct MapCase {
    std::string name;
    std::string file;
};

const std::vector<MapCase>& maps() {
    static const std::vector<MapCase> m{
        {"monaco", std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf"},
        {"monaco_region", std::string(TERRABIT_TEST_DATA_DIR) + "/monaco-region-2016-03-05.osm.pbf"},
        {"krems", std::string(TERRABIT_TEST_DATA_DIR) + "/krems-an-der-donau.osm"},
    };
    return m;
}

/// `batchTiles` < 0: the default batches.
std::vector<std::string> bakeArgs(const MapCase& map, int threads, const fs::path& out, int batchTiles = -1) {
    std::vector<std::string> args{"bake",     map.file,   "--zoom", "17",        "--threads", std::to_string(threads),
                                  "--format", "manifest", "--out",  out.string()};
    if (batchTiles >= 0) args.insert(args.end(), {"--batch-tiles", std::to_string(batchTiles)});
    return args;
}

/// Peak memory of the bake of every tile at once, so streamed bakes can report theirs against it.
std::map<std::string, double>& allAtOncePeak() {
    static std::map<std::string, double> s;
    return s;
}

/// Single-thread times, so the all-core and shard runs can report their speed-up.
std::map<std::string, double>& singleThread() {
    static std::map<std::string, double> s;
    return s;
}

void report(benchmark::State& state, const Run& r, std::size_t tiles, const std::string& map) {
    state.SetIterationTime(r.seconds);
    state.counters["wall_s"] = r.seconds;
    state.counters["peak_MiB"] = r.peakMiB;
    state.counters["tiles"] = static_cast<double>(tiles);
    state.counters["tiles_per_s"] = r.seconds > 0 ? static_cast<double>(tiles) / r.seconds : 0.0;
    const auto base = singleThread().find(map);
    if (base != singleThread().end() && r.seconds > 0) state.counters["speedup_vs_1_thread"] = base->second / r.seconds;
}

void bakeThreads(benchmark::State& state, const MapCase& map, int threads, int batchTiles = -1) {
    const fs::path out = fs::temp_directory_path() / ("terrabit_scale_bench_" + map.name);
    for (auto _ : state) {
        fs::remove_all(out);
        const Run r = runCli(bakeArgs(map, threads, out, batchTiles));
        if (!r.ok) {
            state.SkipWithError("terrabit-cli bake failed");
            return;
        }
        if (threads == 1) singleThread()[map.name] = r.seconds;
        if (batchTiles == 0) allAtOncePeak()[map.name] = r.peakMiB;
        report(state, r, tilesIn(out / "manifest.json"), map.name);
        const auto whole = allAtOncePeak().find(map.name);
        if (batchTiles != 0 && whole != allAtOncePeak().end() && whole->second > 0) {
            state.counters["peak_vs_all_at_once"] = r.peakMiB / whole->second;
        }
    }
    fs::remove_all(out);
}

/// Two shards on two "machines" (one after the other here, each with every core), then merge:
/// the cluster's wall time is the slower shard plus the merge; peak memory is the largest.
void bakeTwoShards(benchmark::State& state, const MapCase& map) {
    const fs::path root = fs::temp_directory_path() / ("terrabit_scale_bench_shards_" + map.name);
    for (auto _ : state) {
        fs::remove_all(root);
        Run slowest;
        for (int k = 0; k < 2; ++k) {
            std::vector<std::string> args = bakeArgs(map, 0, root / std::to_string(k));
            args.insert(args.end(), {"--shard", std::to_string(k) + "/2"});
            const Run r = runCli(args);
            if (!r.ok) {
                state.SkipWithError("terrabit-cli bake --shard failed");
                return;
            }
            slowest.seconds = std::max(slowest.seconds, r.seconds);
            slowest.peakMiB = std::max(slowest.peakMiB, r.peakMiB);
        }
        const Run merge =
            runCli({"merge", (root / "0").string(), (root / "1").string(), "--out", (root / "merged").string()});
        if (!merge.ok) {
            state.SkipWithError("terrabit-cli merge failed");
            return;
        }
        Run cluster{slowest.seconds + merge.seconds, std::max(slowest.peakMiB, merge.peakMiB), true};
        state.counters["merge_s"] = merge.seconds;
        report(state, cluster, tilesIn(root / "merged" / "manifest.json"), map.name);
    }
    fs::remove_all(root);
}

}  // namespace

int main(int argc, char** argv) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (const MapCase& map : maps()) {
        if (!fs::exists(map.file)) continue;
        benchmark::RegisterBenchmark(("bake/" + map.name + "/1_thread").c_str(),
                                     [map](benchmark::State& s) { bakeThreads(s, map, 1); })
            ->Iterations(1)
            ->UseManualTime()
            ->Unit(benchmark::kSecond);
        benchmark::RegisterBenchmark(
            ("bake/" + map.name + "/" + std::to_string(cores) + "_threads_all_at_once").c_str(),
            [map](benchmark::State& s) { bakeThreads(s, map, 0, 0); })
            ->Iterations(1)
            ->UseManualTime()
            ->Unit(benchmark::kSecond);
        benchmark::RegisterBenchmark(("bake/" + map.name + "/" + std::to_string(cores) + "_threads").c_str(),
                                     [map](benchmark::State& s) { bakeThreads(s, map, 0); })
            ->Iterations(1)
            ->UseManualTime()
            ->Unit(benchmark::kSecond);
        for (const int batch : {256, 64}) {
            benchmark::RegisterBenchmark(
                ("bake/" + map.name + "/" + std::to_string(cores) + "_threads_batches_of_" + std::to_string(batch))
                    .c_str(),
                [map, batch](benchmark::State& s) { bakeThreads(s, map, 0, batch); })
                ->Iterations(1)
                ->UseManualTime()
                ->Unit(benchmark::kSecond);
        }
        benchmark::RegisterBenchmark(("bake/" + map.name + "/2_shards_and_merge").c_str(),
                                     [map](benchmark::State& s) { bakeTwoShards(s, map); })
            ->Iterations(1)
            ->UseManualTime()
            ->Unit(benchmark::kSecond);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
