// Ground grading benchmarks (issue #18): what grading the ground by roads, rivers and lakes
// costs — building the profiles of a whole map once (the road network's graph, its diffusion and
// grade envelopes, the rivers' running minimum, the lakes' levels) and applying them to one
// tile — next to the RTIN errors of the same tile, the mesh step every terrain tile pays anyway
// (the ratio is printed as a counter). The map is synthetic: a 2 km square street grid every
// 80 m (about 50 km of road), a river across it and three lakes, on a hillside of cones with
// 0.2 m of noise at zoom 17. Timings never gate anything.

#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>

#include "terrabit/core/terrain/ground_grading.h"
#include "terrabit/core/terrain/ground_mesh.h"
#include "terrabit/core/tile/ground_frame.h"

namespace {

using namespace terrabit::core;
using namespace terrabit::core::terrain;

constexpr int kZoom = 17;
constexpr std::uint32_t kTx = 68238, kTy = 47793;  // Monaco
const GroundFrame kCells{{}, kZoom};
const Vec2 kOrigin{double(kTx) * kTileCells, double(kTy) * kTileCells};
constexpr double kSpan = 2300.0;  // cells, about 2 km
constexpr double kBlock = 93.0;   // cells between streets, about 80 m

double hillside(Vec2 cell) {
    struct Cone {
        double x, y, top, slope;
    };
    static constexpr std::array<Cone, 4> kCones = {
        {{500, 700, 60, 0.12}, {1600, 400, 45, 0.2}, {1200, 1800, 80, 0.1}, {300, 1900, 30, 0.3}}};
    const Vec2 p = cell - kOrigin;
    double h = 120.0;
    for (const Cone& c : kCones) h += std::max(0.0, c.top - c.slope * std::hypot(p.x - c.x, p.y - c.y));
    std::uint64_t k = static_cast<std::uint64_t>(std::llround(p.x * 7 + 65536)) * 0x9E3779B97F4A7C15ULL ^
                      static_cast<std::uint64_t>(std::llround(p.y * 7 + 65536)) * 0xC2B2AE3D27D4EB4FULL;
    k ^= k >> 31;
    k *= 0xBF58476D1CE4E5B9ULL;
    k ^= k >> 29;
    return h + 0.2 * (static_cast<double>(k % 10001) / 5000.0 - 1.0);
}

GradedFeature line(GradedKind kind, std::vector<Vec2> cells, double width) {
    GradedFeature f;
    f.kind = kind;
    f.id = "w" + std::to_string(cells.size());
    for (const Vec2& c : cells) f.points.push_back(kCells.cellToMercator(kOrigin + c));
    f.partEnds = {static_cast<std::uint32_t>(f.points.size())};
    f.widthMetres = width;
    return f;
}

std::vector<GradedFeature> map() {
    std::vector<GradedFeature> out;
    for (double v = 0.0; v <= kSpan; v += kBlock) {
        // Each street one way with a vertex at every crossing, so the grid is one network.
        std::vector<Vec2> eastwards, southwards;
        for (double u = 0.0; u <= kSpan; u += kBlock) {
            eastwards.push_back({u, v});
            southwards.push_back({v, u});
        }
        out.push_back(line(GradedKind::Road, eastwards, 8.0));
        out.push_back(line(GradedKind::Road, southwards, 6.0));
    }
    out.push_back(line(GradedKind::River, {{-50, 100}, {800, 900}, {1500, 1300}, {2400, 2200}}, 15.0));
    for (const Vec2 centre : {Vec2{400, 1500}, Vec2{1700, 700}, Vec2{1150, 1150}}) {
        GradedFeature lake = line(GradedKind::Lake, {}, 0.0);
        for (int k = 0; k < 24; ++k) {
            const double a = k * 2.0 * 3.14159265358979 / 24;
            lake.points.push_back(kCells.cellToMercator(kOrigin + centre + Vec2{60 * std::cos(a), 40 * std::sin(a)}));
        }
        lake.partEnds = {24};
        out.push_back(std::move(lake));
    }
    return out;
}

HeightSampler sampler() {
    return [](Vec2 cell) -> Result<float> { return static_cast<float>(hillside(cell)); };
}

/// The tile of the grid's middle, raw.
HeightTile middleTile() {
    HeightTile t;
    t.reset(TileId{kZoom, kTx + 4, kTy + 4});
    for (int r = 0; r <= kTileCells; ++r)
        for (int c = 0; c <= kTileCells; ++c)
            t.heights[HeightTile::index(r, c)] = static_cast<float>(
                hillside(Vec2{double(t.tile.x) * kTileCells + c, double(t.tile.y) * kTileCells + r}));
    return t;
}

void BM_GradingBuild(benchmark::State& state) {
    const std::vector<GradedFeature> features = map();
    for (auto _ : state) {
        auto g = GroundGrading::build(features, kZoom, {0.12}, sampler());
        benchmark::DoNotOptimize(g);
        state.counters["road_nodes"] = static_cast<double>(g->stats().roadNodes);
        state.counters["segments"] = static_cast<double>(g->stats().segments);
    }
}

void BM_GradingApplyOneTile(benchmark::State& state) {
    const auto g = GroundGrading::build(map(), kZoom, {0.12}, sampler());
    const HeightTile raw = middleTile();
    HeightTile tile = raw;
    GradingScratch scratch;
    // The RTIN errors of the same tile, timed once here, for the ratio.
    const auto start = std::chrono::steady_clock::now();
    constexpr int kRtinRuns = 5;
    for (int i = 0; i < kRtinRuns; ++i) benchmark::DoNotOptimize(rtinErrors(raw));
    const double rtinMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kRtinRuns;
    std::size_t runs = 0;
    const auto applied = std::chrono::steady_clock::now();
    for (auto _ : state) {
        tile.heights = raw.heights;  // the copy the Session makes too
        g->apply(tile, scratch);
        benchmark::DoNotOptimize(tile.heights.data());
        ++runs;
    }
    const double applyMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - applied).count() / double(runs);
    state.counters["rtin_errors_ms"] = rtinMs;
    state.counters["grading/rtin"] = applyMs / rtinMs;
}

}  // namespace

BENCHMARK(BM_GradingBuild)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_GradingApplyOneTile)->Unit(benchmark::kMillisecond)->MinTime(0.5);

BENCHMARK_MAIN();
