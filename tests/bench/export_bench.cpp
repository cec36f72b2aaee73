// Export of a baked scene of realistic size in every format: time, file sizes, instances per
// second, each next to what a user would otherwise do in the same run, with the ratio.
//
// The scene is the Monaco sample baked at zoom 17 with the default rules and asset library (180
// tiles, about 1,000 placed buildings and 14,000 plants in 32-cell blocks, road and water
// surfaces), with the bake's bit layers (the rules' layers and what placement occupied).
//
// Baselines:
//   glb        the same scene with one node per instance (what engines without
//              EXT_mesh_gpu_instancing get), and a raw dump of the same instance floats and
//              meshes with fwrite (the I/O floor, no container at all)
//   manifest   the same document built as one nlohmann::json value and dumped (the obvious code)
//   layers     GDAL writing each layer as a plain 8-bit uncompressed GeoTIFF; and the layers'
//              1-bit DEFLATE GeoTIFFs alone (no previews, one thread), Terrabit's encoder against
//              GDAL's GTiff driver writing the same bytes; and the previews alone, against
//              GDAL's PNG driver
//   collision  loading the grid back (readCollisionFile) against GDAL reading the same layers
//              from 1-bit GeoTIFFs into bit tiles — what a game would otherwise load

#include <benchmark/benchmark.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "bit_geotiff_p.h"
#include "palette_png_p.h"
#include "terrabit/cli/map_commands.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/scene_assets.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/placement/scene_baker.h"

using namespace terrabit::core;

namespace {

/// The Monaco sample baked at zoom 17 with the default rules and library, as
/// `terrabit-cli bake resources/maps/monaco-2022-07-19.osm.pbf --zoom 17` bakes it.
struct World {
    AssetCatalogue catalogue;
    std::unique_ptr<io::MapLayers> map;
    std::unique_ptr<placement::SceneBaker> baker;
    Scene scene;
    const LayerSource* layers = nullptr;
    std::vector<std::string> layerNames;
    std::vector<AssetMesh> meshes;
    std::filesystem::path dir;

    World() {
        GDALAllRegister();
        dir = std::filesystem::temp_directory_path() / ("terrabit-export-bench-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        const std::filesystem::path resources = TERRABIT_RESOURCES_DIR;
        catalogue = AssetCatalogue::load(resources / "assets/catalogue.yaml").value();
        io::MapInput input;
        input.file = resources / "maps/monaco-2022-07-19.osm.pbf";
        input.rules = resources / "rules/default.yaml";
        io::TileSelection selection;
        selection.zoom = 17;
        map = std::move(io::buildMapLayers(input, selection, 0, {}).value());
        baker = std::make_unique<placement::SceneBaker>(map->index, map->store, catalogue);
        auto rules = placement::PlacementRules::load(input.rules, map->classified.layers).value();
        if (Status st = baker->setRules(std::move(rules)); !st) {
            std::fprintf(stderr, "%s\n", st.message().c_str());
            std::exit(1);
        }
        placement::BakeOptions options;
        options.seed = 20220719;
        scene = baker->bake(options).value();
        layers = &baker->layers();
        layerNames = layers->layerNames();
        meshes = loadSceneAssets(scene, catalogue).value();
    }
    ~World() { std::filesystem::remove_all(dir); }
};

World& world() {
    static World w;
    return w;
}

std::map<std::string, double> gSeconds;       // mean seconds per iteration, by benchmark
std::map<std::string, double> gCpuSeconds;    // mean CPU seconds of the benchmark thread per iteration
std::map<std::string, std::uint64_t> gBytes;  // output bytes, by benchmark

void exportFormat(benchmark::State& state, ExportFormat format, bool plain, const std::string& key) {
    World& w = world();
    ExportOptions options;
    options.formats = {format};
    options.outDir = w.dir / key;
    options.plainNodes = plain;
    options.rulesDocument = "version: 1\n";
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        const Result<ExportReport> r = exportScene(w.scene, options, w.catalogue, w.layers);
        if (!r) state.SkipWithError(r.message().c_str());
        bytes = r ? r->bytesOf(format) : 0;
    }
    state.counters["MB"] = double(bytes) / 1e6;
    state.counters["instances/s"] =
        benchmark::Counter(double(w.scene.instanceCount()), benchmark::Counter::kIsIterationInvariantRate);
    gBytes[key] = bytes;
}

void BM_Glb_Instanced(benchmark::State& s) { exportFormat(s, ExportFormat::Glb, false, "glb"); }
void BM_Glb_PlainNodes(benchmark::State& s) { exportFormat(s, ExportFormat::Glb, true, "glb-plain"); }
void BM_3dTiles(benchmark::State& s) { exportFormat(s, ExportFormat::Tiles3d, false, "3dtiles"); }
void BM_Manifest(benchmark::State& s) { exportFormat(s, ExportFormat::Manifest, false, "manifest"); }
void BM_Layers(benchmark::State& s) { exportFormat(s, ExportFormat::Layers, false, "layers"); }
void BM_Collision(benchmark::State& s) { exportFormat(s, ExportFormat::Collision, false, "collision"); }

/// The I/O floor for the GLB: the same instance floats and mesh arrays, fwrite'd raw.
void BM_Glb_RawDumpFloor(benchmark::State& state) {
    World& w = world();
    const std::filesystem::path file = w.dir / "raw.bin";
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        FILE* f = std::fopen(file.c_str(), "wb");
        bytes = 0;
        for (const AssetMesh& m : w.meshes) {
            bytes += std::fwrite(m.positions.data(), 4, m.positions.size(), f) * 4;
            bytes += std::fwrite(m.normals.data(), 4, m.normals.size(), f) * 4;
            bytes += std::fwrite(m.indices.data(), 4, m.indices.size(), f) * 4;
        }
        for (const InstanceBlock& b : w.scene.blocks) {
            for (const Instance& i : b.instances) {
                const auto q = rotationQuaternion(i);
                const float v[10] = {i.position.x, i.position.y, i.position.z, q[0],      q[1],
                                     q[2],         q[3],         i.scale.x,    i.scale.y, i.scale.z};
                bytes += std::fwrite(v, 4, 10, f) * 4;
            }
        }
        fsync(fileno(f));
        std::fclose(f);
    }
    state.counters["MB"] = double(bytes) / 1e6;
    gBytes["glb-raw"] = bytes;
}

/// The manifest as the obvious code writes it: one nlohmann::json document, dumped.
void BM_Manifest_NlohmannDocument(benchmark::State& state) {
    World& w = world();
    const Scene& s = w.scene;
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        nlohmann::json doc;
        doc["seed"] = s.seed;
        nlohmann::json& instances = doc["instances"] = nlohmann::json::array();
        for (const InstanceBlock& b : s.blocks) {
            for (const Instance& i : b.instances) {
                instances.push_back(
                    {{"asset", s.assets[std::size_t(b.asset)]},
                     {"tile", b.tile.quadkey()},
                     {"transform", transformMatrix(i)},
                     {"source", i.source == Instance::kNoSource ? nlohmann::json(nullptr)
                                                                : nlohmann::json(s.sources[i.source])}});
            }
        }
        const std::string text = doc.dump();
        std::FILE* f = std::fopen((w.dir / "naive.json").c_str(), "wb");
        bytes = std::fwrite(text.data(), 1, text.size(), f);
        fsync(fileno(f));
        std::fclose(f);
    }
    state.counters["MB"] = double(bytes) / 1e6;
    gBytes["manifest-naive"] = bytes;
}

/// Layers as a GDAL user would write them without thought: 8-bit uncompressed GeoTIFFs.
void BM_Layers_GdalPlainGeoTiff(benchmark::State& state) {
    World& w = world();
    GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
    OGRSpatialReference srs;
    srs.importFromEPSG(3857);
    std::vector<std::uint8_t> image(65536);
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        bytes = 0;
        for (const TileId& t : w.scene.tiles) {
            for (int l = 0; l < static_cast<int>(w.layerNames.size()); ++l) {
                const auto file = w.dir / ("plain-" + t.quadkey() + "-" + std::to_string(l) + ".tif");
                GDALDataset* ds = gtiff->Create(file.c_str(), 256, 256, 1, GDT_Byte, nullptr);
                const Box2 b = t.boundsMercator();
                double gt[6] = {b.min.x, t.cellSizeMercator(), 0, b.max.y, 0, -t.cellSizeMercator()};
                ds->SetGeoTransform(gt);
                ds->SetSpatialRef(&srs);
                const BitTile* bits = w.layers->tile(t, l);
                BitTile empty;
                (bits ? *bits : empty).toImage(std::span<std::uint8_t, 65536>(image.data(), 65536), 1, 0);
                if (ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0,
                                                   nullptr) != CE_None) {
                    state.SkipWithError("GDAL could not write a GeoTIFF");
                }
                GDALClose(ds);
                bytes += std::filesystem::file_size(file);
            }
        }
    }
    state.counters["MB"] = double(bytes) / 1e6;
    gBytes["layers-plain"] = bytes;
}

/// The layers' GeoTIFFs alone, one thread, no previews: GDAL's GTiff driver (what the export
/// used) and Terrabit's encoder write the same bytes (tile_writer_test), each file on disk.
void layerGeoTiffs(benchmark::State& state, bool gdal) {
    World& w = world();
    GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
    OGRSpatialReference srs;
    srs.importFromEPSG(3857);
    CPLStringList options;
    options.AddString("NBITS=1");
    options.AddString("COMPRESS=DEFLATE");
    std::vector<std::uint8_t> image(65536), bytes;
    const BitTile empty;
    std::uint64_t total = 0;
    for (auto _ : state) {
        total = 0;
        for (const TileId& t : w.scene.tiles) {
            for (int l = 0; l < static_cast<int>(w.layerNames.size()); ++l) {
                const auto file = w.dir / ((gdal ? "gdal-" : "ours-") + t.quadkey() + "-" + std::to_string(l) + ".tif");
                const BitTile* bits = w.layers->tile(t, l);
                if (gdal) {
                    GDALDataset* ds = gtiff->Create(file.c_str(), 256, 256, 1, GDT_Byte, options.List());
                    const Box2 b = t.boundsMercator();
                    double gt[6] = {b.min.x, t.cellSizeMercator(), 0, b.max.y, 0, -t.cellSizeMercator()};
                    ds->SetGeoTransform(gt);
                    ds->SetSpatialRef(&srs);
                    (bits ? *bits : empty).toImage(std::span<std::uint8_t, 65536>(image.data(), 65536), 1, 0);
                    if (ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0,
                                                       nullptr) != CE_None) {
                        state.SkipWithError("GDAL could not write a GeoTIFF");
                    }
                    GDALClose(ds);
                } else {
                    if (!io::detail::encodeBitGeoTiff(bits, t, bytes)) state.SkipWithError("could not encode");
                    std::FILE* f = std::fopen(file.c_str(), "wb");
                    std::fwrite(bytes.data(), 1, bytes.size(), f);
                    std::fclose(f);
                }
                total += std::filesystem::file_size(file);
            }
        }
    }
    state.counters["MB"] = double(total) / 1e6;
    state.counters["files/s"] = benchmark::Counter(double(w.scene.tiles.size() * w.layerNames.size()),
                                                   benchmark::Counter::kIsIterationInvariantRate);
    gBytes[gdal ? "layer-tiffs-gdal" : "layer-tiffs"] = total;
}
void BM_LayerGeoTiffs_Terrabit(benchmark::State& s) { layerGeoTiffs(s, false); }
void BM_LayerGeoTiffs_Gdal(benchmark::State& s) { layerGeoTiffs(s, true); }

/// The layers' previews alone, one thread: GDAL's PNG driver (what the export used, zlib inside
/// libpng) against Terrabit's encoder (libdeflate), the same paletted image each; the files
/// decode to the same pixels and palette (tile_writer_test).
void previews(benchmark::State& state, bool gdal) {
    World& w = world();
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    GDALDriver* png = GetGDALDriverManager()->GetDriverByName("PNG");
    std::vector<Rgb> palette{{0xf2, 0xf2, 0xf2}};
    GDALColorTable table;
    const GDALColorEntry background{0xf2, 0xf2, 0xf2, 255};
    table.SetColorEntry(0, &background);
    for (std::size_t l = 0; l < w.layerNames.size(); ++l) {
        const Rgb c{static_cast<std::uint8_t>(40 * l), static_cast<std::uint8_t>(255 - 20 * l), 90};
        palette.push_back(c);
        const GDALColorEntry e{c.r, c.g, c.b, 255};
        table.SetColorEntry(static_cast<int>(l + 1), &e);
    }
    std::vector<std::uint8_t> image(65536), bytes;
    std::uint64_t total = 0;
    for (auto _ : state) {
        total = 0;
        for (const TileId& t : w.scene.tiles) {
            std::fill(image.begin(), image.end(), 0);
            for (int l = 0; l < static_cast<int>(w.layerNames.size()); ++l) {
                if (const BitTile* bits = w.layers->tile(t, l)) {
                    bits->forEachSetCell([&](int x, int y) { image[y * 256 + x] = static_cast<std::uint8_t>(l + 1); });
                }
            }
            const auto file = w.dir / ((gdal ? "gdal-" : "ours-") + t.quadkey() + ".png");
            if (gdal) {
                GDALDataset* src = mem->Create("", 256, 256, 1, GDT_Byte, nullptr);
                if (src->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0,
                                                    nullptr) != CE_None) {
                    state.SkipWithError("GDAL could not fill the image");
                }
                src->GetRasterBand(1)->SetColorTable(&table);
                GDALClose(png->CreateCopy(file.c_str(), src, FALSE, nullptr, nullptr, nullptr));
                GDALClose(src);
            } else {
                if (!io::detail::encodePalettePng(image, 256, palette, bytes)) state.SkipWithError("could not encode");
                std::FILE* f = std::fopen(file.c_str(), "wb");
                std::fwrite(bytes.data(), 1, bytes.size(), f);
                std::fclose(f);
            }
            total += std::filesystem::file_size(file);
        }
    }
    state.counters["MB"] = double(total) / 1e6;
    gBytes[gdal ? "previews-gdal" : "previews"] = total;
}
void BM_Previews_Terrabit(benchmark::State& s) { previews(s, false); }
void BM_Previews_GdalPng(benchmark::State& s) { previews(s, true); }

/// Loading the collision grid in a game: the Terrabit file against GDAL reading the layers' own
/// 1-bit GeoTIFFs (written by the layers export above) into bit tiles.
void BM_CollisionLoad_Terrabit(benchmark::State& state) {
    World& w = world();
    const auto file = w.dir / "collision" / "collision.tbcg";
    if (!std::filesystem::exists(file)) {
        ExportOptions o;
        o.formats = {ExportFormat::Collision};
        o.outDir = w.dir / "collision";
        (void)exportScene(w.scene, o, w.catalogue, w.layers);
    }
    for (auto _ : state) {
        Result<CollisionGrid> g = readCollisionFile(file);
        benchmark::DoNotOptimize(g.ok());
    }
}

void BM_CollisionLoad_GdalGeoTiffs(benchmark::State& state) {
    World& w = world();
    if (!std::filesystem::exists(w.dir / "layers" / "layers")) {
        ExportOptions o;
        o.formats = {ExportFormat::Layers};
        o.outDir = w.dir / "layers";
        (void)exportScene(w.scene, o, w.catalogue, w.layers);
    }
    std::vector<std::uint8_t> image(65536);
    for (auto _ : state) {
        std::vector<BitTile> tiles;
        tiles.reserve(w.scene.tiles.size() * 4);
        for (const TileId& t : w.scene.tiles) {
            for (const std::string& name : w.layerNames) {
                const auto file = w.dir / "layers" / "layers" / t.quadkey() / (name + ".tif");
                GDALDataset* ds = GDALDataset::Open(file.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY);
                if (ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0,
                                                   nullptr) != CE_None) {
                    state.SkipWithError("GDAL could not read a GeoTIFF");
                }
                GDALClose(ds);
                tiles.push_back(BitTile::fromImage(std::span<const std::uint8_t, 65536>(image.data(), 65536)));
            }
        }
        benchmark::DoNotOptimize(tiles.data());
    }
}

}  // namespace

BENCHMARK(BM_Glb_Instanced)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Glb_PlainNodes)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Glb_RawDumpFloor)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_3dTiles)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Manifest)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Manifest_NlohmannDocument)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Layers)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Layers_GdalPlainGeoTiff)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_LayerGeoTiffs_Terrabit)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_LayerGeoTiffs_Gdal)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Previews_Terrabit)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Previews_GdalPng)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Collision)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_CollisionLoad_Terrabit)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_CollisionLoad_GdalGeoTiffs)->Unit(benchmark::kMillisecond)->MinTime(1.0);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    World& w = world();
    std::printf("Monaco sample baked at z17: %zu tiles, %zu assets, %zu blocks, %zu instances\n", w.scene.tiles.size(),
                w.scene.assets.size(), w.scene.blocks.size(), w.scene.instanceCount());
    class Reporter : public benchmark::ConsoleReporter {
    public:
        void ReportRuns(const std::vector<Run>& runs) override {
            ConsoleReporter::ReportRuns(runs);
            for (const Run& r : runs) {
                // One figure per benchmark: the single run, or the median of the repetitions.
                if (r.run_type == Run::RT_Aggregate ? r.aggregate_name != "median" : r.repetitions > 1) continue;
                std::string name = r.benchmark_name();
                name = name.substr(3, name.find('/') - 3);  // "BM_Glb_Instanced/min_time:1.000" → "Glb_Instanced"
                gSeconds[name] = r.GetAdjustedRealTime() / 1e3;  // ms → s
                gCpuSeconds[name] = r.GetAdjustedCPUTime() / 1e3;
            }
        }
    } reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    const auto line = [](const char* what, const std::string& a, const std::string& b) {
        if (gSeconds.count(a) && gSeconds.count(b) && gSeconds[a] > 0 && gCpuSeconds[a] > 0) {
            std::printf("%-54s wall %7.1f vs %7.1f ms (%.2fx), CPU %7.1f vs %7.1f ms (%.2fx)\n", what,
                        gSeconds[a] * 1e3, gSeconds[b] * 1e3, gSeconds[b] / gSeconds[a], gCpuSeconds[a] * 1e3,
                        gCpuSeconds[b] * 1e3, gCpuSeconds[b] / gCpuSeconds[a]);
        }
    };
    std::printf("\n");
    const double n = double(w.scene.instanceCount());
    if (gSeconds.count("Glb_Instanced")) {
        std::printf("glb instanced: %.2f M instances/s, %.1f MB\n", n / gSeconds["Glb_Instanced"] / 1e6,
                    gBytes["glb"] / 1e6);
    }
    line("glb: instanced vs plain nodes (time)", "Glb_Instanced", "Glb_PlainNodes");
    line("glb: instanced vs raw fwrite floor (time)", "Glb_Instanced", "Glb_RawDumpFloor");
    if (gBytes["glb"]) {
        std::printf("glb sizes: instanced %.1f MB, plain nodes %.1f MB (%.1fx), raw floor %.1f MB\n",
                    gBytes["glb"] / 1e6, gBytes["glb-plain"] / 1e6, double(gBytes["glb-plain"]) / double(gBytes["glb"]),
                    gBytes["glb-raw"] / 1e6);
    }
    if (gSeconds.count("3dTiles")) {
        std::printf("3dtiles: %.1f ms, %.1f MB, %.2f M instances/s\n", gSeconds["3dTiles"] * 1e3,
                    gBytes["3dtiles"] / 1e6, n / gSeconds["3dTiles"] / 1e6);
    }
    line("manifest: Terrabit vs nlohmann document (time)", "Manifest", "Manifest_NlohmannDocument");
    std::printf("manifest: %.1f MB (nlohmann document %.1f MB)\n", gBytes["manifest"] / 1e6,
                gBytes["manifest-naive"] / 1e6);
    line("layers: 1-bit DEFLATE + preview vs 8-bit plain (time)", "Layers", "Layers_GdalPlainGeoTiff");
    std::printf("layers: %.1f MB with previews (8-bit plain GeoTIFFs %.1f MB)\n", gBytes["layers"] / 1e6,
                gBytes["layers-plain"] / 1e6);
    line("layer GeoTIFFs, same bytes: Terrabit vs GDAL GTiff (time)", "LayerGeoTiffs_Terrabit", "LayerGeoTiffs_Gdal");
    if (gBytes["layer-tiffs"] != gBytes["layer-tiffs-gdal"]) {
        std::printf("layer GeoTIFFs: %llu bytes, GDAL's %llu: not the same files\n",
                    static_cast<unsigned long long>(gBytes["layer-tiffs"]),
                    static_cast<unsigned long long>(gBytes["layer-tiffs-gdal"]));
    }
    line("layer previews: Terrabit vs GDAL PNG (time)", "Previews_Terrabit", "Previews_GdalPng");
    std::printf("layer previews: %.2f MB, GDAL's %.2f MB\n", gBytes["previews"] / 1e6, gBytes["previews-gdal"] / 1e6);
    std::printf("collision: write %.1f ms, %.2f MB\n", gSeconds["Collision"] * 1e3, gBytes["collision"] / 1e6);
    line("collision load: Terrabit file vs GDAL GeoTIFFs (time)", "CollisionLoad_Terrabit",
         "CollisionLoad_GdalGeoTiffs");
    return 0;
}
