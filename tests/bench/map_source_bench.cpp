// Map sources end to end at z17: read + classify + index + rasterize every layer, for the bundled
// Monaco sample and for monaco-region (23,000 buildings). Beside each phase, what a user would
// otherwise run: GDAL's own read (plain OGR iteration over every feature) and GDAL's rasterizer
// (GDALRasterizeGeometries, pixel-centre rule) for the buildings of the same urban tiles.
// Prints ms per phase, µs per tile and the ratios at the end. Timings never gate anything.

#include <benchmark/benchmark.h>
#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogrsf_frmts.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>

#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/tiling/rasterize_tiles.h"
#include "terrabit/core/tiling/tile_index.h"
#include "terrabit/core/tiling/tile_rasterizer.h"

using namespace terrabit::core;
namespace io = terrabit::core::io;

namespace {

constexpr int kZoom = 17;
constexpr std::size_t kUrbanTiles = 16;  // the densest tiles, by features reaching them

struct DatasetCloser {
    void operator()(GDALDataset* d) const { GDALClose(GDALDataset::ToHandle(d)); }
};

/// One sample, read and prepared once; the benchmarks time each phase again on it.
struct Sample {
    std::string name;
    std::string path;
    MapData map;
    RuleSet rules;
    ClassifiedMap classified;
    TileIndex index;
    std::vector<std::size_t> urban;  ///< slots of the densest tiles
    std::size_t features = 0;
};

std::vector<std::unique_ptr<Sample>>& samples() {
    static std::vector<std::unique_ptr<Sample>> s;
    return s;
}

std::unique_ptr<Sample> load(std::string name, std::string path) {
    auto s = std::make_unique<Sample>();
    s->name = std::move(name);
    s->path = std::move(path);
    auto map = io::readMap(s->path);
    if (!map) {
        std::fprintf(stderr, "%s\n", map.message().c_str());
        std::exit(1);
    }
    s->map = std::move(*map);
    auto rules = RuleSet::load(std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml");
    if (!rules) {
        std::fprintf(stderr, "%s\n", rules.message().c_str());
        std::exit(1);
    }
    s->rules = std::move(*rules);
    s->classified = classify(s->map, s->rules);
    s->index = std::move(*TileIndex::build(s->classified, kZoom));
    std::vector<std::size_t> slots(s->index.tiles().size());
    for (std::size_t i = 0; i < slots.size(); ++i) slots[i] = i;
    std::sort(slots.begin(), slots.end(), [&](std::size_t a, std::size_t b) {
        return s->index.entries(a).size() > s->index.entries(b).size() ||
               (s->index.entries(a).size() == s->index.entries(b).size() && a < b);
    });
    slots.resize(std::min(kUrbanTiles, slots.size()));
    s->urban = slots;
    s->features = s->map.features.size();
    return s;
}

// -- reading -------------------------------------------------------------------------------------

void gdalRead(benchmark::State& state, const Sample* s) {
    // What a GDAL user writes: open, then iterate every feature of every layer in one
    // interleaved pass, touching each geometry.
    std::size_t n = 0;
    for (auto _ : state) {
        std::unique_ptr<GDALDataset, DatasetCloser> ds(
            GDALDataset::Open(s->path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr));
        n = 0;
        OGRLayer* layer = nullptr;
        while (OGRFeature* f = ds->GetNextFeature(&layer, nullptr, nullptr, nullptr)) {
            if (const OGRGeometry* g = f->GetGeometryRef()) benchmark::DoNotOptimize(g->getGeometryType());
            OGRFeature::DestroyFeature(f);
            ++n;
        }
    }
    state.counters["features"] = static_cast<double>(n);
}

void terrabitRead(benchmark::State& state, const Sample* s) {
    for (auto _ : state) {
        auto map = io::readMap(s->path);
        benchmark::DoNotOptimize(map.ok());
    }
    state.counters["features"] = static_cast<double>(s->features);
}

// -- classify, index, rasterize ------------------------------------------------------------------

void classifyMap(benchmark::State& state, const Sample* s) {
    for (auto _ : state) benchmark::DoNotOptimize(classify(s->map, s->rules).entries.size());
    state.counters["entries"] = static_cast<double>(s->classified.entries.size());
}

void indexTiles(benchmark::State& state, const Sample* s) {
    for (auto _ : state) benchmark::DoNotOptimize(TileIndex::build(s->classified, kZoom)->tiles().size());
    state.counters["tiles"] = static_cast<double>(s->index.tiles().size());
}

void rasterizeAll(benchmark::State& state, const Sample* s, int threads) {
    RasterizeTilesOptions options;
    options.threads = threads;
    for (auto _ : state) benchmark::DoNotOptimize(rasterizeTiles(s->index, options)->tiles().size());
    state.counters["tiles"] = static_cast<double>(s->index.tiles().size());
}

void urbanTile(benchmark::State& state, const Sample* s) {
    // Every layer (building, vegetation and its classes, road, water with the sea) of the
    // densest tiles, one after another on one thread, as rasterizeTiles draws them (the layers
    // a tile has no entries in are not touched): the per-tile cost after reading.
    TileRasterizer rasterizer;
    std::vector<BitTile> out(s->classified.layers.size());
    std::size_t entries = 0;
    for (std::size_t slot : s->urban) entries += s->index.entries(slot).size();
    for (auto _ : state) {
        for (std::size_t slot : s->urban) {
            benchmark::DoNotOptimize(rasterizer.draw(s->index, slot, out).ok());
            benchmark::ClobberMemory();
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s->urban.size()));
    state.counters["features_per_tile"] = static_cast<double>(entries) / static_cast<double>(s->urban.size());
}

void gdalUrbanBuildings(benchmark::State& state, const Sample* s) {
    // GDAL's rasterizer on the buildings alone of the same tiles: a MEM raster per tile with the
    // tile's georeferencing, the footprints as OGR geometries (built outside the timing).
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    const auto building = static_cast<std::uint16_t>(s->rules.layerId("building"));
    std::vector<std::vector<std::unique_ptr<OGRGeometry>>> geoms(s->urban.size());
    std::vector<std::vector<OGRGeometryH>> handles(s->urban.size());
    for (std::size_t i = 0; i < s->urban.size(); ++i) {
        for (std::uint32_t e : s->index.entries(s->urban[i])) {
            const LayerEntry& entry = s->classified.entries[e];
            if (entry.layer != building) continue;
            auto poly = std::make_unique<OGRPolygon>();
            std::uint32_t begin = 0;
            for (std::uint32_t end : entry.feature->partEnds) {
                auto ring = std::make_unique<OGRLinearRing>();
                for (std::uint32_t k = begin; k < end; ++k)
                    ring->addPoint(entry.feature->points[k].x, entry.feature->points[k].y);
                ring->closeRings();
                poly->addRingDirectly(ring.release());
                begin = end;
            }
            handles[i].push_back(OGRGeometry::ToHandle(poly.get()));
            geoms[i].push_back(std::move(poly));
        }
    }
    for (auto _ : state) {
        for (std::size_t i = 0; i < s->urban.size(); ++i) {
            const TileId t = s->index.tiles()[s->urban[i]];
            std::unique_ptr<GDALDataset, DatasetCloser> ds(mem->Create("", 256, 256, 1, GDT_Byte, nullptr));
            const Box2 b = t.boundsMercator();
            double gt[6] = {b.min.x, t.cellSizeMercator(), 0, b.max.y, 0, -t.cellSizeMercator()};
            ds->SetGeoTransform(gt);
            int band = 1;
            std::vector<double> burn(handles[i].size(), 1.0);
            GDALRasterizeGeometries(GDALDataset::ToHandle(ds.get()), 1, &band, static_cast<int>(handles[i].size()),
                                    handles[i].data(), nullptr, nullptr, burn.data(), nullptr, nullptr, nullptr);
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s->urban.size()));
}

/// Every tile's own time, all layers on one thread: the fastest of a few runs (thread CPU time),
/// so that the summary can say how the tiles spread around the target, not just their mean.
struct TileSpread {
    double mean = 0, median = 0, p90 = 0, max = 0;
    double withinTarget = 0;  ///< share of tiles at or under kTargetMicroseconds
};

constexpr double kTargetMicroseconds = 20.0;

/// How many building footprints the densest tiles hold on average.
double buildingsPerUrbanTile(const Sample& s) {
    const int building = s.rules.layerId("building");
    std::size_t n = 0;
    for (std::size_t slot : s.urban) {
        for (const TileIndex::EntryInfo& info : s.index.entryInfos(slot)) n += info.layer == building ? 1 : 0;
    }
    return s.urban.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(s.urban.size());
}

double threadSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

TileSpread tileSpread(const Sample& s) {
    TileRasterizer rasterizer;
    std::vector<BitTile> out(s.classified.layers.size());
    std::vector<double> us;
    for (std::size_t slot = 0; slot < s.index.tiles().size(); ++slot) {
        double best = 1e300;
        for (int run = 0; run < 9; ++run) {
            const double start = threadSeconds();
            benchmark::DoNotOptimize(rasterizer.draw(s.index, slot, out).ok());
            best = std::min(best, threadSeconds() - start);
        }
        us.push_back(best * 1e6);
    }
    TileSpread spread;
    if (us.empty()) return spread;
    std::sort(us.begin(), us.end());
    for (double v : us) spread.mean += v / static_cast<double>(us.size());
    spread.median = us[us.size() / 2];
    spread.p90 = us[std::min(us.size() - 1, us.size() * 9 / 10)];
    spread.max = us.back();
    const auto within = std::upper_bound(us.begin(), us.end(), kTargetMicroseconds) - us.begin();
    spread.withinTarget = static_cast<double>(within) / static_cast<double>(us.size());
    return spread;
}

/// Collects each run's times so main can print phases and ratios side by side. Times are per
/// iteration in the benchmark's unit (ms here): CPU time of the whole process for the phases
/// (steady on a busy machine), wall time for the run on all threads.
class Collector : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Iteration) continue;
            std::string name = r.benchmark_name();
            for (const char* suffix : {"/process_time", "/real_time"}) {
                const auto at = name.find(suffix);
                if (at != std::string::npos) name.erase(at, std::string(suffix).size());
            }
            mTimes[name] = {r.GetAdjustedRealTime(), r.GetAdjustedCPUTime()};
        }
        ConsoleReporter::ReportRuns(runs);
    }
    double cpu(const std::string& name) const { return get(name).second; }
    double wall(const std::string& name) const { return get(name).first; }

private:
    std::pair<double, double> get(const std::string& name) const {
        const auto it = mTimes.find(name);
        return it == mTimes.end() ? std::pair<double, double>{0.0, 0.0} : it->second;
    }
    std::map<std::string, std::pair<double, double>> mTimes;
};

}  // namespace

int main(int argc, char** argv) {
    io::initGdal();
    samples().push_back(load("monaco", std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf"));
    samples().push_back(
        load("monaco-region", std::string(TERRABIT_TEST_DATA_DIR) + "/monaco-region-2016-03-05.osm.pbf"));

    for (const auto& sp : samples()) {
        const Sample* s = sp.get();
        const std::string n = "/" + s->name;
        // Every phase in milliseconds of the whole process's CPU time.
        const auto phase = [&n](const std::string& name, auto&&... run) {
            return benchmark::RegisterBenchmark((name + n).c_str(), run...)
                ->Unit(benchmark::kMillisecond)
                ->MeasureProcessCPUTime();
        };
        phase("read_gdal", gdalRead, s);
        phase("read_terrabit", terrabitRead, s);
        phase("classify", classifyMap, s);
        phase("index", indexTiles, s);
        phase("rasterize_1thread", rasterizeAll, s, 1);
        phase("rasterize_allthreads", rasterizeAll, s, 0)->UseRealTime();
        phase("urban_tiles_terrabit_all_layers", urbanTile, s);
        phase("urban_tiles_gdal_buildings_only", gdalUrbanBuildings, s);
    }
    benchmark::Initialize(&argc, argv);
    Collector collector;
    benchmark::RunSpecifiedBenchmarks(&collector);

    std::printf(
        "\nSummary at z%d: CPU ms of the whole process per run unless noted; ratios < 1 mean Terrabit is "
        "faster\n",
        kZoom);
    for (const auto& sp : samples()) {
        const Sample* s = sp.get();
        const std::string n = "/" + s->name;
        const double gdal = collector.cpu("read_gdal" + n), ours = collector.cpu("read_terrabit" + n);
        const double cls = collector.cpu("classify" + n), idx = collector.cpu("index" + n);
        const double r1 = collector.cpu("rasterize_1thread" + n), rN = collector.wall("rasterize_allthreads" + n);
        const double tiles = static_cast<double>(s->index.tiles().size());
        const double urbanTiles = static_cast<double>(s->urban.size());
        const double urban = collector.cpu("urban_tiles_terrabit_all_layers" + n) * 1e3 / urbanTiles;
        const double urbanGdal = collector.cpu("urban_tiles_gdal_buildings_only" + n) * 1e3 / urbanTiles;
        std::printf("%s: %zu features, %zu layer entries, %.0f tiles, %zu layers\n", s->name.c_str(), s->features,
                    s->classified.entries.size(), tiles, s->classified.layers.size());
        if (ours > 0) std::printf("  read      %8.1f  (GDAL's own read: %.1f; ratio %.2f)\n", ours, gdal, ours / gdal);
        if (cls > 0) std::printf("  classify  %8.1f\n", cls);
        if (idx > 0) std::printf("  index     %8.1f\n", idx);
        if (r1 > 0) {
            // The target is per tile of this phase: every layer drawn and stored.
            std::printf(
                "  rasterize %8.1f  every layer drawn and stored, on 1 thread: %.1f us per tile (target <= %.0f "
                "us); %.1f ms wall on all threads\n",
                r1, r1 * 1e3 / tiles, kTargetMicroseconds, rN);
            std::printf("  total     %8.1f  (read + classify + index + rasterize, CPU)\n", ours + cls + idx + r1);
        }
        if (urban > 0) {
            std::printf(
                "  the %.0f densest tiles (%.0f footprints each), every layer: %.1f us per tile; GDAL, buildings "
                "only: %.1f us; ratio %.2f\n",
                urbanTiles, buildingsPerUrbanTile(*s), urban, urbanGdal, urban / urbanGdal);
        }
        const TileSpread spread = tileSpread(*s);
        std::printf(
            "  every tile on its own, every layer (fastest of 9, thread CPU): mean %.1f, median %.1f, 90th "
            "percentile %.1f, max %.1f us; %.0f%% of tiles within %.0f us\n",
            spread.mean, spread.median, spread.p90, spread.max, 100.0 * spread.withinTarget, kTargetMicroseconds);
    }
    benchmark::Shutdown();
    return 0;
}
