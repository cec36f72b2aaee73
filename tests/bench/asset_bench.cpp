// Loading the shipped model library: Terrabit's readAssetMesh (parse, flatten every node
// transform, weld, validate) against tinygltf's plain parse of the same GLB files, which is what
// a user would otherwise call; and the catalogue load against yaml-cpp parsing the same file.
// Prints the times and the ratios.

#include <benchmark/benchmark.h>
#include <tiny_gltf.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/assets/default_asset_library.h"

using namespace terrabit::core;

namespace {

const std::filesystem::path kAssets = std::filesystem::path(TERRABIT_RESOURCES_DIR) / "assets";

const std::vector<std::filesystem::path>& modelFiles() {
    static const std::vector<std::filesystem::path> files = [] {
        std::vector<std::filesystem::path> out;
        Result<AssetCatalogue> c = AssetCatalogue::load(kAssets / "catalogue.yaml");
        if (c) {
            for (const AssetInfo& a : c->assets()) out.push_back(a.path);
        }
        return out;
    }();
    return files;
}

double gReadTerrabit = 0, gReadTinyGltf = 0, gCatalogue = 0, gCatalogueVerify = 0, gYaml = 0;

void BM_ReadLibrary_Terrabit(benchmark::State& state) {
    std::size_t triangles = 0;
    for (auto _ : state) {
        triangles = 0;
        for (const auto& f : modelFiles()) {
            Result<AssetMesh> m = readAssetMesh(f);
            if (!m) state.SkipWithError(m.message().c_str());
            triangles += m ? m->triangleCount() : 0;
        }
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(modelFiles().size()));
    state.counters["triangles"] = static_cast<double>(triangles);
}

void BM_ReadLibrary_TinyGltfParseOnly(benchmark::State& state) {
    for (auto _ : state) {
        for (const auto& f : modelFiles()) {
            tinygltf::TinyGLTF loader;
            tinygltf::Model model;
            std::string err, warn;
            if (!loader.LoadBinaryFromFile(&model, &err, &warn, f.string())) state.SkipWithError(err.c_str());
            benchmark::DoNotOptimize(model.buffers.size());
        }
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(modelFiles().size()));
}

void BM_Catalogue_Terrabit(benchmark::State& state) {
    AssetCatalogueOptions options;
    options.verifyModels = state.range(0) != 0;
    for (auto _ : state) {
        Result<AssetCatalogue> c = AssetCatalogue::load(kAssets / "catalogue.yaml", options);
        if (!c) state.SkipWithError(c.message().c_str());
        benchmark::DoNotOptimize(c.ok());
    }
    state.SetItemsProcessed(state.iterations());
}

void BM_Catalogue_YamlCppParseOnly(benchmark::State& state) {
    for (auto _ : state) {
        YAML::Node n = YAML::LoadFile((kAssets / "catalogue.yaml").string());
        benchmark::DoNotOptimize(n.size());
    }
    state.SetItemsProcessed(state.iterations());
}

void BM_GenerateDefaultLibrary(benchmark::State& state) {
    std::size_t triangles = 0;
    for (auto _ : state) {
        triangles = 0;
        for (const DefaultAsset& a : buildDefaultAssetLibrary()) triangles += a.mesh.triangleCount();
    }
    state.counters["triangles"] = static_cast<double>(triangles);
}

}  // namespace

BENCHMARK(BM_ReadLibrary_Terrabit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadLibrary_TinyGltfParseOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Catalogue_Terrabit)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Catalogue_YamlCppParseOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GenerateDefaultLibrary)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    class Reporter : public benchmark::ConsoleReporter {
    public:
        void ReportRuns(const std::vector<Run>& runs) override {
            ConsoleReporter::ReportRuns(runs);
            for (const Run& r : runs) {
                // CPU time: the ratio should not depend on what else the machine is doing.
                const double ms = r.GetAdjustedCPUTime();  // in the benchmark's unit, ms
                const std::string n = r.benchmark_name();
                if (n.find("ReadLibrary_Terrabit") != std::string::npos) gReadTerrabit = ms;
                if (n.find("ReadLibrary_TinyGltf") != std::string::npos) gReadTinyGltf = ms;
                if (n == "BM_Catalogue_Terrabit/0") gCatalogue = ms;
                if (n == "BM_Catalogue_Terrabit/1") gCatalogueVerify = ms;
                if (n.find("YamlCpp") != std::string::npos) gYaml = ms;
            }
        }
    } reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    if (gReadTerrabit > 0 && gReadTinyGltf > 0) {
        std::printf(
            "%zu shipped models: Terrabit readAssetMesh %.2f ms CPU, tinygltf parse only %.2f ms CPU, ratio %.2fx\n",
            modelFiles().size(), gReadTerrabit, gReadTinyGltf, gReadTerrabit / gReadTinyGltf);
    }
    if (gCatalogue > 0 && gYaml > 0) {
        std::printf(
            "catalogue: Terrabit %.3f ms CPU (%.2f ms reading every model), yaml-cpp parse only %.3f ms CPU, ratio "
            "%.2fx\n",
            gCatalogue, gCatalogueVerify, gYaml, gCatalogue / gYaml);
    }
    return 0;
}
