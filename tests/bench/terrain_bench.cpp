// Terrain ground mesh benchmarks (issue #18): the RTIN errors of one 257 × 257 HeightTile (the
// true deviation over every triangle of the hierarchy) and the crack-free mesh built from them,
// alone and with four neighbours forced in. The tile is a realistic hillside: a few cones of
// different heights and slopes plus 0.2 m of noise, about what a 1 m DEM of rolling country
// looks like at zoom 17. Counters give the mesh's triangles and vertices at each bound.
// (The comparison with gdalwarp's regular grid is added with the DEM pipeline.) Timings never
// gate anything.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "terrabit/core/terrain/ground_mesh.h"

namespace {

using namespace terrabit::core;
using namespace terrabit::core::terrain;

constexpr std::uint32_t kTx = 68890, kTy = 47860;

double hillside(double x, double y) {
    struct Cone {
        double x, y, top, slope;
    };
    static constexpr std::array<Cone, 5> kCones = {
        {{60, 80, 45, 0.35}, {190, 40, 30, 0.5}, {140, 200, 70, 0.25}, {300, 150, 50, 0.3}, {-40, 260, 35, 0.4}}};
    double h = 120.0;
    for (const Cone& c : kCones) h += std::max(0.0, c.top - c.slope * std::hypot(x - c.x, y - c.y));
    std::uint64_t k = static_cast<std::uint64_t>(x + 4096) * 0x9E3779B97F4A7C15ULL ^
                      static_cast<std::uint64_t>(y + 4096) * 0xC2B2AE3D27D4EB4FULL;
    k ^= k >> 31;
    k *= 0xBF58476D1CE4E5B9ULL;
    k ^= k >> 29;
    return h + 0.2 * (static_cast<double>(k % 10001) / 5000.0 - 1.0);
}

/// Tile (kTx + dx, kTy + dy) of the hillside, local cell (0, 0) of tile (kTx, kTy) at the origin.
HeightTile tileAt(int dx, int dy) {
    HeightTile t;
    t.reset(TileId{17, kTx + static_cast<std::uint32_t>(dx), kTy + static_cast<std::uint32_t>(dy)});
    for (int r = 0; r <= kTileCells; ++r)
        for (int c = 0; c <= kTileCells; ++c)
            t.heights[HeightTile::index(r, c)] = static_cast<float>(hillside(256.0 * dx + c, 256.0 * dy + r));
    return t;
}

struct Fixture {
    HeightTile tile = tileAt(0, 0);
    RtinErrors errors = rtinErrors(tile);
    std::array<RtinErrors, 4> around = {rtinErrors(tileAt(0, -1)), rtinErrors(tileAt(1, 0)), rtinErrors(tileAt(0, 1)),
                                        rtinErrors(tileAt(-1, 0))};
};

const Fixture& fixture() {
    static const Fixture f;
    return f;
}

void BM_RtinErrors(benchmark::State& state) {
    const Fixture& f = fixture();
    RtinErrors out;
    RtinScratch scratch;
    for (auto _ : state) {
        rtinErrors(f.tile, out, scratch);
        benchmark::DoNotOptimize(out.errors.data());
    }
    state.counters["samples"] = static_cast<double>(kHeightSampleCount);
}

/// Arg 0: bound in centimetres; arg 1: 1 to force in the four neighbours.
void BM_BuildGroundMesh(benchmark::State& state) {
    const Fixture& f = fixture();
    const float maxError = static_cast<float>(state.range(0)) / 100.0F;
    std::array<const RtinErrors*, 4> n{};
    if (state.range(1) != 0) n = {&f.around[0], &f.around[1], &f.around[2], &f.around[3]};
    GroundMesh mesh;
    GroundMeshScratch scratch;
    for (auto _ : state) {
        buildGroundMesh(f.tile, f.errors, n, maxError, mesh, scratch);
        benchmark::DoNotOptimize(mesh.indices.data());
    }
    state.counters["triangles"] = static_cast<double>(mesh.triangleCount());
    state.counters["vertices"] = static_cast<double>(mesh.vertices.size());
    state.counters["full_grid%"] = 100.0 * static_cast<double>(mesh.triangleCount()) / (2.0 * 256 * 256);
}

}  // namespace

BENCHMARK(BM_RtinErrors)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_BuildGroundMesh)
    ->ArgNames({"cm", "neighbours"})
    ->Args({10, 0})
    ->Args({50, 0})
    ->Args({50, 1})
    ->Args({200, 0})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);

BENCHMARK_MAIN();
