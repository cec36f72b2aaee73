// DEM benchmarks (issue #18): heights resampled onto a tile's 257 × 257 cell corners by
// Terrabit's DemReader against gdalwarp (GDALWarp, the same resampling, onto the same
// EPSG:3857 grid, one MEM raster per tile) on the same DEMs and tiles in the same run; then
// the ground mesh per tile; then a terrain bake of the Monaco sample against a flat one. The
// DEMs are made here (no real DEM ships with Terrabit): a 5 m one (bilinear at z17) and a 30 m
// one like SRTM (cubic at z17), in UTM 32N around Monaco, a rough surface of hills and noise.
// Prints ms per tile and the ratios at the end; timings never gate anything.

#include <benchmark/benchmark.h>
#include <gdal_priv.h>
#include <gdal_utils.h>
#include <ogr_spatialref.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "terrabit/core/io/dem_reader.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/terrain/ground_mesh.h"

namespace {

using namespace terrabit::core;
namespace io = terrabit::core::io;

constexpr LonLat kMonaco{7.42, 43.73};
constexpr int kZoom = 17;
constexpr int kTilesSide = 4;  // a 4 × 4 block of z17 tiles around Monaco's centre

struct DatasetCloser {
    void operator()(GDALDataset* d) const { GDALClose(GDALDataset::ToHandle(d)); }
};
using DatasetPtr = std::unique_ptr<GDALDataset, DatasetCloser>;

std::filesystem::path scratch() {
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() / "terrabit-dem-bench";
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

/// Writes a UTM 32N DEM of `pixel`-metre pixels, 6 km across, centred on Monaco.
std::filesystem::path makeDem(const std::string& name, double pixel) {
    const std::filesystem::path path = scratch() / name;
    OGRSpatialReference wgs, utm;
    wgs.importFromEPSG(4326);
    utm.importFromEPSG(32632);
    wgs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    utm.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    std::unique_ptr<OGRCoordinateTransformation> ct(OGRCreateCoordinateTransformation(&wgs, &utm));
    double cx = kMonaco.lon, cy = kMonaco.lat;
    ct->Transform(1, &cx, &cy);
    const int n = static_cast<int>(6000.0 / pixel);
    DatasetPtr ds(
        GetGDALDriverManager()->GetDriverByName("GTiff")->Create(path.c_str(), n, n, 1, GDT_Float32, nullptr));
    double gt[6] = {std::round(cx - 3000.0), pixel, 0.0, std::round(cy + 3000.0), 0.0, -pixel};
    ds->SetGeoTransform(gt);
    ds->SetSpatialRef(&utm);
    std::vector<float> values(static_cast<std::size_t>(n) * n);
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            const double x = (c + 0.5) * pixel, y = (r + 0.5) * pixel;
            const std::uint32_t hash = (std::uint32_t(c) * 73856093u) ^ (std::uint32_t(r) * 19349663u);
            values[std::size_t(r) * n + c] = float(150.0 + 80.0 * std::sin(x / 700.0) * std::cos(y / 900.0) +
                                                   25.0 * std::sin(x / 130.0 + y / 170.0) + (hash % 100) / 100.0);
        }
    }
    if (ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, n, n, values.data(), n, n, GDT_Float32, 0, 0, nullptr) !=
        CE_None) {
        std::fprintf(stderr, "could not write %s\n", path.c_str());
    }
    return path;
}

std::vector<TileId> benchTiles() {
    const TileId centre = *tileAt(lonLatToMercator(kMonaco), kZoom);
    std::vector<TileId> tiles;
    for (int dy = 0; dy < kTilesSide; ++dy) {
        for (int dx = 0; dx < kTilesSide; ++dx)
            tiles.push_back(*centre.neighbour(dx - kTilesSide / 2, dy - kTilesSide / 2));
    }
    return tiles;
}

struct Dem {
    std::string name;
    std::filesystem::path path;
    const char* gdalResampling;  ///< what DemReader does at kZoom for this DEM
};

std::vector<Dem>& dems() {
    static std::vector<Dem> d;
    return d;
}

void terrabitSample(benchmark::State& state, const Dem* dem) {
    auto reader = io::DemReader::open({dem->path});
    if (!reader) {
        state.SkipWithError(reader.message().c_str());
        return;
    }
    const auto tiles = benchTiles();
    terrain::HeightTile h;
    for (auto _ : state) {
        for (const TileId& t : tiles) {
            auto r = reader->sample(t, h);
            benchmark::DoNotOptimize(r);
        }
    }
    state.counters["tiles"] = static_cast<double>(tiles.size());
}

void gdalwarpSample(benchmark::State& state, const Dem* dem) {
    DatasetPtr source(GDALDataset::Open(dem->path.c_str(), GDAL_OF_RASTER));
    const auto tiles = benchTiles();
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    OGRSpatialReference mercator;
    mercator.importFromEPSG(3857);
    const char* argv[] = {"-r", dem->gdalResampling, "-et", "0", "-q", nullptr};
    GDALWarpAppOptions* options = GDALWarpAppOptionsNew(const_cast<char**>(argv), nullptr);
    std::vector<float> out(terrain::kHeightSampleCount);
    for (auto _ : state) {
        for (const TileId& t : tiles) {
            // What a user would run per tile: a 257 × 257 grid whose pixel centres are the corners.
            DatasetPtr target(
                mem->Create("", terrain::kHeightSamples, terrain::kHeightSamples, 1, GDT_Float32, nullptr));
            const double cell = t.cellSizeMercator();
            const Box2 b = t.boundsMercator();
            double gt[6] = {b.min.x - cell / 2, cell, 0.0, b.max.y + cell / 2, 0.0, -cell};
            target->SetGeoTransform(gt);
            target->SetSpatialRef(&mercator);
            GDALDatasetH sources[] = {GDALDataset::ToHandle(source.get())};
            int usageError = 0;
            GDALWarp(nullptr, GDALDataset::ToHandle(target.get()), 1, sources, options, &usageError);
            if (target->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, terrain::kHeightSamples, terrain::kHeightSamples,
                                                   out.data(), terrain::kHeightSamples, terrain::kHeightSamples,
                                                   GDT_Float32, 0, 0, nullptr) != CE_None) {
                state.SkipWithError("gdalwarp's raster could not be read");
            }
            benchmark::DoNotOptimize(out.data());
        }
    }
    GDALWarpAppOptionsFree(options);
    state.counters["tiles"] = static_cast<double>(tiles.size());
}

void groundMesh(benchmark::State& state, const Dem* dem) {
    auto reader = io::DemReader::open({dem->path});
    const auto tiles = benchTiles();
    std::vector<terrain::HeightTile> heights(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) (void)reader->sample(tiles[i], heights[i]);
    terrain::RtinErrors errors;
    terrain::RtinScratch scratch;
    terrain::GroundMesh mesh;
    terrain::GroundMeshScratch meshScratch;
    std::size_t triangles = 0;
    for (auto _ : state) {
        triangles = 0;
        for (const auto& h : heights) {
            terrain::rtinErrors(h, errors, scratch);
            terrain::buildGroundMesh(h, errors, {}, terrain::kDefaultGroundErrorMetres, mesh, meshScratch);
            triangles += mesh.triangleCount();
        }
    }
    state.counters["tiles"] = static_cast<double>(tiles.size());
    state.counters["triangles_per_tile"] = static_cast<double>(triangles) / static_cast<double>(tiles.size());
}

/// The whole Monaco sample at z17, opened and baked (no export), flat or on `dem`.
void bakeMonaco(benchmark::State& state, const Dem* dem) {
    for (auto _ : state) {
        pipeline::SessionInput input;
        input.map.file = std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf";
        input.map.rules = std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml";
        input.catalogueFile = std::string(TERRABIT_RESOURCES_DIR) + "/assets/catalogue.yaml";
        input.tiles.zoom = kZoom;
        if (dem) input.dems = {dem->path};
        auto session = pipeline::Session::open(input);
        if (!session) {
            state.SkipWithError(session.message().c_str());
            return;
        }
        placement::BakeOptions options;
        options.seed = 2022;
        auto scene = (*session)->bake(options);
        benchmark::DoNotOptimize(scene);
    }
}

class Collector : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Iteration) continue;
            std::string name = r.benchmark_name();
            const auto at = name.find("/real_time");
            if (at != std::string::npos) name.erase(at);
            mTimes[name] = r.GetAdjustedRealTime();
        }
        ConsoleReporter::ReportRuns(runs);
    }
    double get(const std::string& name) const {
        const auto it = mTimes.find(name);
        return it == mTimes.end() ? 0.0 : it->second;
    }

private:
    std::map<std::string, double> mTimes;
};

}  // namespace

int main(int argc, char** argv) {
    io::initGdal();
    dems().push_back({"5m", makeDem("dem5m.tif", 5.0), "bilinear"});
    dems().push_back({"30m", makeDem("dem30m.tif", 30.0), "cubic"});
    for (const Dem& d : dems()) {
        benchmark::RegisterBenchmark(("sample_terrabit/" + d.name).c_str(), terrabitSample, &d)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("sample_gdalwarp/" + d.name).c_str(), gdalwarpSample, &d)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("ground_mesh/" + d.name).c_str(), groundMesh, &d)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    benchmark::RegisterBenchmark("bake_monaco/flat", bakeMonaco, nullptr)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark("bake_monaco/dem30m", bakeMonaco, &dems()[1])
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::Initialize(&argc, argv);
    Collector c;
    benchmark::RunSpecifiedBenchmarks(&c);

    const double tiles = kTilesSide * kTilesSide;
    std::printf("\nSummary at z%d over %d tiles: ms per tile; ratios < 1 mean Terrabit is faster\n", kZoom,
                kTilesSide * kTilesSide);
    for (const Dem& d : dems()) {
        const double ours = c.get("sample_terrabit/" + d.name) / tiles;
        const double gdal = c.get("sample_gdalwarp/" + d.name) / tiles;
        if (ours > 0 && gdal > 0) {
            std::printf(
                "  %-4s DEM (%s): heights %.2f ms/tile, gdalwarp %.2f ms/tile, ratio %.2f; ground mesh %.2f ms/tile\n",
                d.name.c_str(), d.gdalResampling, ours, gdal, ours / gdal, c.get("ground_mesh/" + d.name) / tiles);
        }
    }
    const double flat = c.get("bake_monaco/flat"), dem = c.get("bake_monaco/dem30m");
    if (flat > 0 && dem > 0) {
        std::printf("  Monaco open + bake: flat %.0f ms, on the 30 m DEM %.0f ms (ratio %.2f)\n", flat, dem,
                    dem / flat);
    }
    benchmark::Shutdown();
    return 0;
}
