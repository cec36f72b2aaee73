// The bit-raster core against what a user would otherwise use, in the same run:
//  - per-tile rasterization of the Monaco sample's buildings at zoom 17 (the 81 tiles holding
//    buildings): Terrabit's Rasterizer against GDALRasterizeGeometries, both starting from the
//    same EPSG:3857 geometries, in both coverage modes. GDAL's side pays what a GDAL user pays per
//    tile: creating the 256x256 MEM dataset, setting its geotransform, and the transformer
//    GDALRasterizeGeometries builds from it. Terrabit's side pays the Mercator-to-cell conversion
//    of every vertex (TileId::mercatorToCell) and clearing the tile.
//  - one whole-tile boolean operation against the plain loop over an 8-bit image;
//  - iteration over set cells against the plain loop that tests every byte of an 8-bit image.
// After the runs it prints medians and ratios. Timings never gate anything.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../core/raster/osm_buildings.h"
#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/raster/rasterizer.h"

using namespace terrabit::core;

namespace {

/// The Monaco buildings grouped per zoom-17 tile, in both forms the two sides start from.
struct MonacoTiles {
    terrabit::test::BuildingSet set;
    std::vector<TileId> tiles;
    std::vector<std::vector<int>> buildings;            // per tile
    std::vector<std::vector<OGRGeometryH>> geometries;  // per tile, for GDAL
    std::size_t points = 0;                             // vertices summed over tiles

    MonacoTiles() {
        auto loaded = terrabit::test::loadBuildings(terrabit::test::monacoSamplePath(), 17);
        if (!loaded) {
            std::fprintf(stderr, "raster_bench: %s\n", loaded.message().c_str());
            std::exit(1);
        }
        set = std::move(*loaded);
        for (const auto& [tile, indices] : set.tiles) {
            tiles.push_back(tile);
            buildings.push_back(indices);
            auto& g = geometries.emplace_back();
            for (int i : indices) {
                g.push_back(OGRGeometry::ToHandle(set.buildings[std::size_t(i)].geometry.get()));
                points += set.buildings[std::size_t(i)].points.size();
            }
        }
    }
};

const MonacoTiles& monaco() {
    static const MonacoTiles m;
    return m;
}

void terrabitTiles(benchmark::State& state, Coverage coverage) {
    const MonacoTiles& m = monaco();
    Rasterizer rasterizer;
    std::vector<Vec2> cells;
    BitTile tile;
    for (auto _ : state) {
        for (std::size_t t = 0; t < m.tiles.size(); ++t) {
            tile.reset();
            const TileId& id = m.tiles[t];
            for (int i : m.buildings[t]) {
                const auto& b = m.set.buildings[std::size_t(i)];
                cells.resize(b.points.size());
                for (std::size_t k = 0; k < b.points.size(); ++k) cells[k] = id.mercatorToCell(b.points[k]);
                (void)rasterizer.polygon(PolygonView{cells, b.ringEnds}, {FillRule::EvenOdd, coverage}, tile);
            }
            benchmark::DoNotOptimize(tile.words().data());
            benchmark::ClobberMemory();
        }
    }
    state.counters["tiles"] = static_cast<double>(m.tiles.size());
    state.counters["us_per_tile"] =
        benchmark::Counter(static_cast<double>(m.tiles.size()) * 1e-6,
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void gdalTiles(benchmark::State& state, bool allTouched) {
    const MonacoTiles& m = monaco();
    terrabit::test::GdalTileRasterizer gdal;
    for (auto _ : state) {
        for (std::size_t t = 0; t < m.tiles.size(); ++t) {
            if (!gdal.rasterize(m.tiles[t], m.geometries[t], allTouched, nullptr)) {
                state.SkipWithError(gdal.error().c_str());
                return;
            }
        }
    }
    state.counters["tiles"] = static_cast<double>(m.tiles.size());
    state.counters["us_per_tile"] =
        benchmark::Counter(static_cast<double>(m.tiles.size()) * 1e-6,
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_MonacoBuildingTiles_Terrabit_Centre(benchmark::State& s) { terrabitTiles(s, Coverage::CellCentre); }
void BM_MonacoBuildingTiles_Gdal_Centre(benchmark::State& s) { gdalTiles(s, false); }
void BM_MonacoBuildingTiles_Terrabit_Touched(benchmark::State& s) { terrabitTiles(s, Coverage::Conservative); }
void BM_MonacoBuildingTiles_Gdal_AllTouched(benchmark::State& s) { gdalTiles(s, true); }

// --- whole-tile boolean operation ------------------------------------------------------------

BitTile randomTile(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    BitTile t;
    for (std::uint64_t& w : t.words()) w = rng();
    return t;
}

void BM_BitTile_AndNot(benchmark::State& state) {
    BitTile a = randomTile(1);
    const BitTile b = randomTile(2);
    for (auto _ : state) {
        a.andNot(b);
        benchmark::DoNotOptimize(a.words().data());
        benchmark::ClobberMemory();
    }
}

void BM_BitTile_Or(benchmark::State& state) {
    BitTile a = randomTile(3);
    const BitTile b = randomTile(4);
    for (auto _ : state) {
        a |= b;
        benchmark::DoNotOptimize(a.words().data());
        benchmark::ClobberMemory();
    }
}

/// The plain alternative: the same operation on two 256x256 8-bit masks (one byte per cell, as a
/// GDAL or NumPy user holds them), a loop the compiler vectorizes.
void BM_ByteImage_AndNot(benchmark::State& state) {
    std::vector<std::uint8_t> a(65536), b(65536);
    std::mt19937_64 rng(5);
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = (rng() & 1) ? 255 : 0;
        b[i] = (rng() & 1) ? 255 : 0;
    }
    for (auto _ : state) {
        std::uint8_t* pa = a.data();
        const std::uint8_t* pb = b.data();
        for (std::size_t i = 0; i < 65536; ++i) pa[i] = pa[i] & static_cast<std::uint8_t>(~pb[i]);
        benchmark::DoNotOptimize(pa);
        benchmark::ClobberMemory();
    }
}

// --- set-cell iteration ----------------------------------------------------------------------

BitTile tileWithDensity(double density) {
    std::mt19937_64 rng(6);
    std::bernoulli_distribution on(density);
    BitTile t;
    for (int y = 0; y < 256; ++y)
        for (int x = 0; x < 256; ++x)
            if (on(rng)) t.set(x, y);
    return t;
}

/// Density in percent as the argument.
void BM_BitTile_ForEachSetCell(benchmark::State& state) {
    const BitTile t = tileWithDensity(state.range(0) / 100.0);
    for (auto _ : state) {
        std::uint64_t sum = 0;
        t.forEachSetCell([&](int x, int y) { sum += static_cast<std::uint64_t>(x + (y << 8)); });
        benchmark::DoNotOptimize(sum);
    }
    state.counters["set_cells"] = t.count();
    state.counters["ns_per_set_cell"] = benchmark::Counter(
        t.count() * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_ByteImage_ForEachSetCell(benchmark::State& state) {
    const BitTile t = tileWithDensity(state.range(0) / 100.0);
    std::vector<std::uint8_t> image(65536);
    t.toImage(std::span<std::uint8_t, 65536>(image.data(), image.size()));
    for (auto _ : state) {
        std::uint64_t sum = 0;
        for (int y = 0; y < 256; ++y)
            for (int x = 0; x < 256; ++x)
                if (image[std::size_t(y) * 256 + std::size_t(x)]) sum += static_cast<std::uint64_t>(x + (y << 8));
        benchmark::DoNotOptimize(sum);
    }
    state.counters["set_cells"] = t.count();
    state.counters["ns_per_set_cell"] = benchmark::Counter(
        t.count() * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

constexpr int kRepetitions = 7;

BENCHMARK(BM_MonacoBuildingTiles_Terrabit_Centre)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_MonacoBuildingTiles_Gdal_Centre)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_MonacoBuildingTiles_Terrabit_Touched)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_MonacoBuildingTiles_Gdal_AllTouched)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions);
BENCHMARK(BM_BitTile_AndNot)->Repetitions(kRepetitions);
BENCHMARK(BM_BitTile_Or)->Repetitions(kRepetitions);
BENCHMARK(BM_ByteImage_AndNot)->Repetitions(kRepetitions);
BENCHMARK(BM_BitTile_ForEachSetCell)->Arg(1)->Arg(10)->Arg(50)->Repetitions(kRepetitions);
BENCHMARK(BM_ByteImage_ForEachSetCell)->Arg(1)->Arg(10)->Arg(50)->Repetitions(kRepetitions);

/// Console output as usual, plus the medians kept for the summary.
class SummaryReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median") continue;
            // Real time per iteration in nanoseconds, whatever unit the run prints in.
            const double ns = r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit) * 1e9;
            mMedianNs[r.run_name.function_name + (r.run_name.args.empty() ? "" : "/" + r.run_name.args)] = ns;
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
    const MonacoTiles& m = monaco();
    std::printf("Monaco buildings: %zu footprints in %zu zoom-17 tiles (%zu vertices over all tiles)\n",
                m.set.buildings.size(), m.tiles.size(), m.points);
    SummaryReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    const double tiles = static_cast<double>(m.tiles.size());
    auto perTile = [&](const char* name) { return reporter.median(name) / tiles / 1000.0; };
    std::printf("\nSummary (medians of %d repetitions)\n", kRepetitions);
    const struct {
        const char* label;
        const char* terrabit;
        const char* gdal;
    } modes[] = {{"cell centre", "BM_MonacoBuildingTiles_Terrabit_Centre", "BM_MonacoBuildingTiles_Gdal_Centre"},
                 {"conservative / ALL_TOUCHED", "BM_MonacoBuildingTiles_Terrabit_Touched",
                  "BM_MonacoBuildingTiles_Gdal_AllTouched"}};
    for (const auto& mode : modes) {
        const double t = perTile(mode.terrabit), g = perTile(mode.gdal);
        if (t > 0 && g > 0) {
            std::printf("  Monaco z17 buildings, %-27s Terrabit %7.2f us/tile  GDAL %7.2f us/tile  ratio %5.1fx\n",
                        mode.label, t, g, g / t);
        }
    }
    const double andNot = reporter.median("BM_BitTile_AndNot"), byteAndNot = reporter.median("BM_ByteImage_AndNot");
    if (andNot > 0) {
        std::printf(
            "  whole-tile and-not: BitTile %.1f ns, 8-bit image loop %.1f ns, ratio %.1fx (BitTile or: %.1f ns)\n",
            andNot, byteAndNot, byteAndNot / andNot, reporter.median("BM_BitTile_Or"));
    }
    for (const char* density : {"1", "10", "50"}) {
        const std::string bits = std::string("BM_BitTile_ForEachSetCell/") + density;
        const std::string bytes = std::string("BM_ByteImage_ForEachSetCell/") + density;
        const double b = reporter.median(bits), y = reporter.median(bytes);
        if (b > 0) {
            std::printf(
                "  set-cell iteration at %2s%% density: BitTile %.2f us, 8-bit image loop %.2f us, ratio %.1fx\n",
                density, b / 1000.0, y / 1000.0, y / b);
        }
    }
    return 0;
}
