// Layer algebra benchmarks (issue 4). Each Terrabit case runs beside the way a GDAL or NumPy user
// computes the same mask: 8-bit rasters, one byte per cell, with a plain per-pixel loop (fused,
// the best case for them) and, for the boolean expression, NumPy-style one operator at a time
// with a temporary per operator. Same data, same run; the summary prints medians and ratios.
//
//  - the non-plantable expression building|((~grass)&road)|((~grass)&water) over one tile
//    (target <= 1 us, about the time to read 32 KiB);
//  - dilate(road, 3) over one tile, its halo read from the neighbouring tiles;
//  - both over a 9-tile region (3x3 tiles, 768x768 cells);
//  - relief: slope(>25deg) over one tile from its 257x257 heights, beside a gdaldem-style float
//    loop (slope in degrees per cell, then the threshold), and an expression mixing relief and
//    layers.
// Timings never gate anything.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/algebra/layer_program.h"
#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tiling/layer_store.h"

namespace {

using namespace terrabit::core;
using namespace terrabit::core::algebra;

constexpr int kRepetitions = 5;

// The 8-bit baselines get their best case: -O3 vectorisation, and on x86-64 an AVX2 build picked
// at load time, as Terrabit's kernels have (NumPy's loops are SIMD too).
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define BASELINE [[gnu::optimize("O3"), gnu::target_clones("arch=x86-64-v3", "default")]]
#else
#define BASELINE
#endif
constexpr int kBlock = 3;             // tiles per side of the region
constexpr int kCells = kBlock * 256;  // cells per side of the region
constexpr const char* kNonPlantable = "building|((~grass)&road)|((~grass)&water)";
enum Layer { kBuilding, kGrass, kRoad, kWater, kLayers };

/// A 3x3 block of zoom-17 tiles (Monaco) with made-up but map-like layers, held both in the
/// LayerStore the map reader fills (the LayerSource the algebra reads) and as 8-bit rasters of
/// the whole region.
class Scene {
public:
    Scene() {
        std::mt19937_64 rng(2024);
        std::uniform_int_distribution<int> at(0, kCells - 1);
        for (auto& r : mBytes) r.assign(static_cast<std::size_t>(kCells) * kCells, 0);
        auto box = [&](Layer l, int x0, int y0, int w, int h) {
            for (int y = std::max(0, y0); y < std::min(kCells, y0 + h); ++y)
                for (int x = std::max(0, x0); x < std::min(kCells, x0 + w); ++x) byte(l, x, y) = 255;
        };
        for (int i = 0; i < 900; ++i) box(kBuilding, at(rng), at(rng), 6 + at(rng) % 20, 6 + at(rng) % 20);
        for (int i = 0; i < 60; ++i) box(kGrass, at(rng), at(rng), 20 + at(rng) % 80, 20 + at(rng) % 80);
        for (int i = 0; i < 20; ++i) box(kWater, at(rng), at(rng), 10 + at(rng) % 60, 10 + at(rng) % 60);
        for (int i = 0; i < 14; ++i) {
            const int p = at(rng), w = 2 + at(rng) % 5;
            if (i % 2) {
                box(kRoad, 0, p, kCells, w);
            } else {
                box(kRoad, p, 0, w, kCells);
            }
        }
        mStore = LayerStore({"building", "grass", "road", "water"}, tiles());
        for (int ty = 0; ty < kBlock; ++ty) {
            for (int tx = 0; tx < kBlock; ++tx) {
                std::vector<BitTile> layers(kLayers);
                for (int l = 0; l < kLayers; ++l) {
                    for (int y = 0; y < 256; ++y)
                        for (int x = 0; x < 256; ++x)
                            if (byte(static_cast<Layer>(l), tx * 256 + x, ty * 256 + y)) layers[l].set(x, y);
                }
                mStore.store(static_cast<std::size_t>(ty * kBlock + tx), layers);
                // Rolling made-up terrain: waves 150 to 300 cells long, up to about 45° steep.
                auto heights = std::make_shared<terrain::HeightTile>();
                heights->reset(tile(tx, ty));
                for (int r = 0; r < terrain::kHeightSamples; ++r) {
                    for (int c = 0; c < terrain::kHeightSamples; ++c) {
                        const double x = tx * 256 + c, y = ty * 256 + r;
                        heights->heights[terrain::HeightTile::index(r, c)] =
                            static_cast<float>(200.0 + 30.0 * std::sin(x / 45.0) * std::cos(y / 30.0) + 0.2 * y);
                    }
                }
                mStore.setHeights(static_cast<std::size_t>(ty * kBlock + tx), std::move(heights));
            }
        }
    }

    const LayerSource& source() const { return mStore; }
    static TileId tile(int tx, int ty) { return TileId{17, 68238u + tx, 47880u + ty}; }
    static std::vector<TileId> tiles() {
        std::vector<TileId> out;
        for (int ty = 0; ty < kBlock; ++ty)
            for (int tx = 0; tx < kBlock; ++tx) out.push_back(tile(tx, ty));
        return out;
    }
    std::uint8_t& byte(Layer l, int x, int y) { return mBytes[l][static_cast<std::size_t>(y) * kCells + x]; }
    const std::vector<std::uint8_t>& bytes(Layer l) const { return mBytes[l]; }

    /// One tile of a layer as a 256x256 8-bit raster, plus `halo` cells of its neighbours around
    /// it (what a GDAL user would read with a larger window).
    std::vector<std::uint8_t> window(Layer l, int tx, int ty, int halo) const {
        const int side = 256 + 2 * halo;
        std::vector<std::uint8_t> out(static_cast<std::size_t>(side) * side, 0);
        for (int y = 0; y < side; ++y) {
            for (int x = 0; x < side; ++x) {
                const int gx = tx * 256 + x - halo, gy = ty * 256 + y - halo;
                if (gx >= 0 && gy >= 0 && gx < kCells && gy < kCells)
                    out[static_cast<std::size_t>(y) * side + x] = mBytes[l][static_cast<std::size_t>(gy) * kCells + gx];
            }
        }
        return out;
    }

private:
    LayerStore mStore;
    std::vector<std::uint8_t> mBytes[kLayers];
};

const Scene& scene() {
    static const Scene s;
    return s;
}

LayerProgram compileOrDie(const char* text) {
    ExpressionOptions o;
    o.zoom = 17;
    o.latitude = 43.73;
    Result<LayerProgram> p = LayerProgram::compile(text, scene().source().layerNames(), o);
    if (!p) {
        std::fprintf(stderr, "%s\n", p.message().c_str());
        std::abort();
    }
    return *p;
}

// --- the non-plantable expression, one tile ----------------------------------------------------

void BM_NonPlantable_Tile_Terrabit(benchmark::State& state) {
    LayerEvaluator evaluator(compileOrDie(kNonPlantable));
    const TileId centre = Scene::tile(1, 1);
    BitTile out;
    for (auto _ : state) {
        if (!evaluator.evaluate(scene().source(), centre, out)) state.SkipWithError("evaluation failed");
        benchmark::DoNotOptimize(out.words().data());
        benchmark::ClobberMemory();
    }
}

/// The fused per-pixel loop over 8-bit rasters. Plain pointers and a count in registers, so the
/// compiler vectorises it (through std::vector, a byte store could alias the vector's own size).
BASELINE void nonPlantableBytes(const std::uint8_t* b, const std::uint8_t* g, const std::uint8_t* r,
                                const std::uint8_t* w, std::uint8_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const auto notGrass = static_cast<std::uint8_t>(~g[i]);
        out[i] = static_cast<std::uint8_t>(b[i] | (notGrass & r[i]) | (notGrass & w[i]));
    }
}

/// The fused per-pixel loop over 8-bit rasters (the compiler vectorises it).
void BM_NonPlantable_Tile_ByteLoop(benchmark::State& state) {
    const auto b = scene().window(kBuilding, 1, 1, 0), g = scene().window(kGrass, 1, 1, 0);
    const auto r = scene().window(kRoad, 1, 1, 0), w = scene().window(kWater, 1, 1, 0);
    std::vector<std::uint8_t> out(65536);
    for (auto _ : state) {
        nonPlantableBytes(b.data(), g.data(), r.data(), w.data(), out.data(), out.size());
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

BASELINE void notBytes(const std::uint8_t* a, std::uint8_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(~a[i]);
}
BASELINE void andBytes(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = a[i] & b[i];
}
BASELINE void orBytes(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = a[i] | b[i];
}

/// NumPy's evaluation order: one pass and one temporary raster per operator.
void BM_NonPlantable_Tile_ByteArrayOps(benchmark::State& state) {
    const auto b = scene().window(kBuilding, 1, 1, 0), g = scene().window(kGrass, 1, 1, 0);
    const auto r = scene().window(kRoad, 1, 1, 0), w = scene().window(kWater, 1, 1, 0);
    std::vector<std::uint8_t> notGrass(65536), t1(65536), t2(65536), t3(65536), out(65536);
    for (auto _ : state) {
        notBytes(g.data(), notGrass.data(), 65536);
        andBytes(notGrass.data(), r.data(), t1.data(), 65536);
        orBytes(b.data(), t1.data(), t2.data(), 65536);
        andBytes(notGrass.data(), w.data(), t3.data(), 65536);
        orBytes(t2.data(), t3.data(), out.data(), 65536);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

// --- dilate(road, 3), one tile -----------------------------------------------------------------

void BM_Dilate3_Tile_Terrabit(benchmark::State& state) {
    LayerEvaluator evaluator(compileOrDie("dilate(road, 3)"));
    const TileId centre = Scene::tile(1, 1);
    BitTile out;
    for (auto _ : state) {
        if (!evaluator.evaluate(scene().source(), centre, out)) state.SkipWithError("evaluation failed");
        benchmark::DoNotOptimize(out.words().data());
        benchmark::ClobberMemory();
    }
}

/// The plain loop: every output pixel is the maximum of its 7x7 window.
BASELINE void dilateBytes(const std::uint8_t* in, int inSide, std::uint8_t* out, int outSide, int r) {
    for (int y = 0; y < outSide; ++y) {
        for (int x = 0; x < outSide; ++x) {
            std::uint8_t m = 0;
            for (int dy = 0; dy <= 2 * r; ++dy)
                for (int dx = 0; dx <= 2 * r; ++dx) m = std::max(m, in[(y + dy) * inSide + x + dx]);
            out[y * outSide + x] = m;
        }
    }
}

/// The separable filter (a row pass then a column pass, what scipy's maximum_filter does), with
/// the pixel loop innermost so that it vectorises: the best case for 8-bit rasters.
BASELINE void dilateBytesSeparable(const std::uint8_t* in, int inSide, std::uint8_t* tmp, std::uint8_t* out,
                                   int outSide, int r) {
    for (int y = 0; y < inSide; ++y) {
        std::uint8_t* t = tmp + y * outSide;
        const std::uint8_t* row = in + y * inSide;
        std::copy_n(row, outSide, t);
        for (int dx = 1; dx <= 2 * r; ++dx)
            for (int x = 0; x < outSide; ++x) t[x] = std::max(t[x], row[x + dx]);
    }
    for (int y = 0; y < outSide; ++y) {
        std::uint8_t* o = out + y * outSide;
        std::copy_n(tmp + y * outSide, outSide, o);
        for (int dy = 1; dy <= 2 * r; ++dy) {
            const std::uint8_t* t = tmp + (y + dy) * outSide;
            for (int x = 0; x < outSide; ++x) o[x] = std::max(o[x], t[x]);
        }
    }
}

void BM_Dilate3_Tile_ByteLoop(benchmark::State& state) {
    const auto road = scene().window(kRoad, 1, 1, 3);
    std::vector<std::uint8_t> out(65536);
    for (auto _ : state) {
        dilateBytes(road.data(), 262, out.data(), 256, 3);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

void BM_Dilate3_Tile_ByteSeparable(benchmark::State& state) {
    const auto road = scene().window(kRoad, 1, 1, 3);
    std::vector<std::uint8_t> tmp(262 * 256), out(65536);
    for (auto _ : state) {
        dilateBytesSeparable(road.data(), 262, tmp.data(), out.data(), 256, 3);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

// --- a 9-tile region -----------------------------------------------------------------------------

void region9Terrabit(benchmark::State& state, const char* expression) {
    LayerEvaluator evaluator(compileOrDie(expression));
    const std::vector<TileId> tiles = Scene::tiles();
    BitTile out[kBlock * kBlock];
    for (auto _ : state) {
        for (std::size_t i = 0; i < tiles.size(); ++i) {
            if (!evaluator.evaluate(scene().source(), tiles[i], out[i])) state.SkipWithError("evaluation failed");
        }
        benchmark::DoNotOptimize(&out[0]);
        benchmark::ClobberMemory();
    }
}
void BM_NonPlantable_Region9_Terrabit(benchmark::State& state) { region9Terrabit(state, kNonPlantable); }
void BM_Dilate3_Region9_Terrabit(benchmark::State& state) { region9Terrabit(state, "dilate(road, 3)"); }

/// compose() end to end: compile, evaluate, per-tile and total coverage, result tiles allocated.
void BM_NonPlantable_Region9_Compose(benchmark::State& state) {
    const std::vector<TileId> tiles = Scene::tiles();
    for (auto _ : state) {
        Result<ComposeResult> r = compose(scene().source(), tiles, kNonPlantable);
        benchmark::DoNotOptimize(r->total.cells);
    }
}

void BM_NonPlantable_Region9_ByteLoop(benchmark::State& state) {
    const auto& b = scene().bytes(kBuilding);
    const auto& g = scene().bytes(kGrass);
    const auto& r = scene().bytes(kRoad);
    const auto& w = scene().bytes(kWater);
    std::vector<std::uint8_t> out(b.size());
    for (auto _ : state) {
        nonPlantableBytes(b.data(), g.data(), r.data(), w.data(), out.data(), out.size());
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

void BM_Dilate3_Region9_ByteLoop(benchmark::State& state) {
    // The region read with a 3-cell border of clear cells, as Terrabit's border tiles see it.
    std::vector<std::uint8_t> padded(static_cast<std::size_t>(kCells + 6) * (kCells + 6), 0);
    const auto& road = scene().bytes(kRoad);
    for (int y = 0; y < kCells; ++y)
        std::copy_n(road.data() + static_cast<std::size_t>(y) * kCells, kCells,
                    padded.data() + static_cast<std::size_t>(y + 3) * (kCells + 6) + 3);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(kCells) * kCells);
    for (auto _ : state) {
        dilateBytes(padded.data(), kCells + 6, out.data(), kCells, 3);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

// --- for reference: the docs/ARCHITECTURE.md example, with random() hashing every cell ----------------------

void BM_DesignExample_Tile_Terrabit(benchmark::State& state) {
    LayerEvaluator evaluator(compileOrDie("grass & ~dilate(road, 2) & random(0.4)"));
    const TileId centre = Scene::tile(1, 1);
    BitTile out;
    for (auto _ : state) {
        if (!evaluator.evaluate(scene().source(), centre, out)) state.SkipWithError("evaluation failed");
        benchmark::DoNotOptimize(out.words().data());
        benchmark::ClobberMemory();
    }
}

// --- relief: slope(>25deg) from a tile's heights -------------------------------------------------

void BM_Slope_Tile_Terrabit(benchmark::State& state) {
    LayerEvaluator evaluator(compileOrDie("slope(>25deg)"));
    const TileId centre = Scene::tile(1, 1);
    BitTile out;
    for (auto _ : state) {
        if (!evaluator.evaluate(scene().source(), centre, out)) state.SkipWithError("evaluation failed");
        benchmark::DoNotOptimize(out.words().data());
        benchmark::ClobberMemory();
    }
}

/// What a gdaldem user does: the slope in degrees per cell (the same corner gradient), then the
/// threshold into a byte raster.
void BM_Slope_Tile_FloatLoop(benchmark::State& state) {
    const TileId centre = Scene::tile(1, 1);
    const terrain::HeightTile& h = *scene().source().heights(centre);
    std::vector<float> degrees(65536);
    std::vector<std::uint8_t> out(65536);
    const double ground = metresPerCell(43.73, 17);
    for (auto _ : state) {
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                const double h00 = h.at(y, x), h10 = h.at(y, x + 1), h01 = h.at(y + 1, x), h11 = h.at(y + 1, x + 1);
                const double east = ((h10 - h00) + (h11 - h01)) / (2 * ground);
                const double south = ((h01 - h00) + (h11 - h10)) / (2 * ground);
                degrees[static_cast<std::size_t>(y) * 256 + x] =
                    static_cast<float>(std::atan(std::hypot(east, south)) * 180.0 / std::numbers::pi);
            }
        }
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = degrees[i] > 25.0f ? 255 : 0;
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

void BM_ReliefMix_Tile_Terrabit(benchmark::State& state) {
    LayerEvaluator evaluator(
        compileOrDie("grass & height(>200m) & ~dilate(slope(>30deg), 2) | aspect(N, 45deg) - road"));
    const TileId centre = Scene::tile(1, 1);
    BitTile out;
    for (auto _ : state) {
        if (!evaluator.evaluate(scene().source(), centre, out)) state.SkipWithError("evaluation failed");
        benchmark::DoNotOptimize(out.words().data());
        benchmark::ClobberMemory();
    }
}

BENCHMARK(BM_NonPlantable_Tile_Terrabit)->Repetitions(kRepetitions);
BENCHMARK(BM_NonPlantable_Tile_ByteLoop)->Repetitions(kRepetitions);
BENCHMARK(BM_NonPlantable_Tile_ByteArrayOps)->Repetitions(kRepetitions);
BENCHMARK(BM_Dilate3_Tile_Terrabit)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_Dilate3_Tile_ByteLoop)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_Dilate3_Tile_ByteSeparable)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_NonPlantable_Region9_Terrabit)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_NonPlantable_Region9_Compose)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_NonPlantable_Region9_ByteLoop)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_Dilate3_Region9_Terrabit)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_Dilate3_Region9_ByteLoop)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_DesignExample_Tile_Terrabit)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_Slope_Tile_Terrabit)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_Slope_Tile_FloatLoop)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_ReliefMix_Tile_Terrabit)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);

/// Console output as usual, plus the medians kept for the summary.
class SummaryReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median") continue;
            mMedianNs[r.run_name.function_name] =
                r.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(r.time_unit) * 1e9;
        }
    }
    double median(const std::string& name) const {
        auto it = mMedianNs.find(name);
        return it == mMedianNs.end() ? 0.0 : it->second;
    }

private:
    std::map<std::string, double> mMedianNs;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    scene();  // build the data before timing
    SummaryReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    auto line = [&](const char* what, const char* ours, const char* theirs, const char* how) {
        const double a = reporter.median(ours), b = reporter.median(theirs);
        if (a > 0 && b > 0) {
            std::printf("  %-34s Terrabit %9.3f us   %-22s %9.3f us   ratio %6.1fx\n", what, a / 1000.0, how,
                        b / 1000.0, b / a);
        }
    };
    std::printf(
        "\nSummary (medians of %d repetitions, CPU time, which other processes on the machine disturb least;\n"
        "ratio = 8-bit raster time / Terrabit time)\n",
        kRepetitions);
    line("non-plantable, one tile", "BM_NonPlantable_Tile_Terrabit", "BM_NonPlantable_Tile_ByteLoop",
         "fused byte loop");
    line("non-plantable, one tile", "BM_NonPlantable_Tile_Terrabit", "BM_NonPlantable_Tile_ByteArrayOps",
         "NumPy-style byte ops");
    line("dilate(road, 3), one tile", "BM_Dilate3_Tile_Terrabit", "BM_Dilate3_Tile_ByteLoop", "7x7 byte loop");
    line("dilate(road, 3), one tile", "BM_Dilate3_Tile_Terrabit", "BM_Dilate3_Tile_ByteSeparable",
         "separable byte loop");
    line("non-plantable, 9 tiles", "BM_NonPlantable_Region9_Terrabit", "BM_NonPlantable_Region9_ByteLoop",
         "fused byte loop");
    line("non-plantable, 9 tiles, compose()", "BM_NonPlantable_Region9_Compose", "BM_NonPlantable_Region9_ByteLoop",
         "fused byte loop");
    line("dilate(road, 3), 9 tiles", "BM_Dilate3_Region9_Terrabit", "BM_Dilate3_Region9_ByteLoop", "7x7 byte loop");
    line("slope(>25deg), one tile", "BM_Slope_Tile_Terrabit", "BM_Slope_Tile_FloatLoop", "gdaldem-style float loop");
    if (const double mix = reporter.median("BM_ReliefMix_Tile_Terrabit"); mix > 0) {
        std::printf("  relief and layers mixed, one tile: %.1f us\n", mix / 1000.0);
    }
    const double np = reporter.median("BM_NonPlantable_Tile_Terrabit");
    if (np > 0) {
        std::printf("  non-plantable over one tile: %.0f ns (target <= 1000 ns: %s)\n", np,
                    np <= 1000 ? "met" : "missed");
    }
    return 0;
}
