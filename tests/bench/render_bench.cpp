// Render benchmark: scene-graph build time and frame time of Terrabit's instanced graph (one draw
// per asset per block, transforms in a texture buffer) against what an OSG user would otherwise
// write: one osg::MatrixTransform per instance above the shared model, in the same run, on the
// Monaco sample scene and on synthetic 100,000- and 1,000,000-tree scenes; and the whole-area
// frame of Monaco and monaco-region with the viewport's distance levels against every model drawn.
// Prints draw calls and the ratios. Frames need an X server (xvfb-run) and this machine's GL is software (llvmpipe),
// so frame times are only comparable with each other.

#include <benchmark/benchmark.h>
#include <osg/Geode>
#include <osg/MatrixTransform>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numbers>
#include <string>

#include "terrabit/cli/map_commands.h"
#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/render/offscreen_renderer.h"
#include "terrabit/render/scene_graph.h"
#include "terrabit/render/tile_geometry.h"

namespace {

using namespace terrabit;

const core::AssetCatalogue& catalogue() {
    static const core::AssetCatalogue c = [] {
        auto loaded = core::AssetCatalogue::load(std::string(TERRABIT_RESOURCES_DIR) + "/assets/catalogue.yaml");
        if (!loaded) std::fprintf(stderr, "%s\n", loaded.message().c_str());
        return loaded ? std::move(*loaded) : core::AssetCatalogue();
    }();
    return c;
}

render::AssetModelCache& models() {
    static render::AssetModelCache cache;  // warm: the benchmarks time graphs, not model files
    return cache;
}

/// A baked map (the Monaco sample, monaco-region).
struct Monaco {
    std::unique_ptr<core::io::MapLayers> map;
    core::Scene scene;
};

/// A map baked with the default rules at zoom 17, every tile with content.
std::unique_ptr<Monaco> bakeMap(const std::string& file) {
    auto out = std::make_unique<Monaco>();
    core::io::MapInput input;
    input.file = file;
    input.rules = std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml";
    core::io::TileSelection selection;
    auto built = core::io::buildMapLayers(input, selection, 0, {});
    if (!built) {
        std::fprintf(stderr, "%s\n", built.message().c_str());
        return out;
    }
    out->map = std::move(*built);
    auto rules = core::placement::PlacementRules::load(input.rules, out->map->classified.layers);
    core::placement::SceneBaker baker(out->map->index, out->map->store, catalogue());
    if (!rules || !baker.setRules(*rules)) return out;
    auto scene = baker.bake();
    if (scene) out->scene = std::move(*scene);
    return out;
}

const Monaco& monaco() {
    static const std::unique_ptr<Monaco> m =
        bakeMap(std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf");
    return *m;
}

/// monaco-region (1,608 tiles, 2.2 M instances): the whole selection a designer drags over.
const Monaco& region() {
    static const std::unique_ptr<Monaco> m =
        bakeMap(std::string(TERRABIT_TEST_DATA_DIR) + "/monaco-region-2016-03-05.osm.pbf");
    return *m;
}

/// `count` trees of four species, one per cell at most, spread over a square of tiles with
/// blocks of 32 × 32 cells: the layout a dense forest bake gives.
core::Scene treeScene(std::size_t count) {
    core::Scene scene;
    const int side = static_cast<int>(std::ceil(std::sqrt(count / (65536.0 * 0.25))));  // ~25 % of cells
    for (int y = 0; y < side; ++y) {
        for (int x = 0; x < side; ++x) scene.tiles.push_back(*core::TileId::fromZxy(17, 68880 + x, 47850 + y));
    }
    scene.frame = {core::placement::sceneOrigin(scene.tiles), 17};
    scene.assets = {"broadleaf_birch", "broadleaf_oak", "conifer_fir", "conifer_spruce"};
    std::map<std::tuple<std::size_t, int, int, int>, core::InstanceBlock> blocks;
    std::uint64_t state = 12345;
    auto next = [&] {  // splitmix64: deterministic, no global generator
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    const std::size_t cells = scene.tiles.size() * 65536;
    const std::size_t stride = cells / count;
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t cell = i * stride + next() % stride;
        const std::size_t t = cell / 65536;
        const int cx = static_cast<int>(cell % 256), cy = static_cast<int>((cell / 256) % 256);
        const render::TilePlacement p = render::tilePlacement(scene.frame, scene.tiles[t]);
        const int asset = static_cast<int>(next() % 4);
        core::InstanceBlock& b = blocks[{t, cy / 32, cx / 32, asset}];
        b.tile = scene.tiles[t];
        b.blockX = cx / 32;
        b.blockY = cy / 32;
        b.asset = asset;
        core::Instance in;
        const osg::Vec3d at = p.at(cx + 0.5, cy + 0.5);
        in.position = {static_cast<float>(at.x()), 0.0f, static_cast<float>(at.z())};
        in.yaw = static_cast<float>(next() % 6283) / 1000.0f;
        const float s = 0.8f + static_cast<float>(next() % 400) / 1000.0f;
        in.scale = {s, s, s};
        b.instances.push_back(in);
        b.bounds.extend(core::Vec3f{in.position.x - 6, 0, in.position.z - 6});
        b.bounds.extend(core::Vec3f{in.position.x + 6, 25, in.position.z + 6});
    }
    for (auto& [key, b] : blocks) scene.blocks.push_back(std::move(b));
    return scene;
}

const core::Scene& trees(std::size_t count) {
    static std::map<std::size_t, core::Scene> cache;
    auto it = cache.find(count);
    if (it == cache.end()) it = cache.emplace(count, treeScene(count)).first;
    return it->second;
}

/// The graph a user would write without instancing: the model's shared Geode under one
/// MatrixTransform per instance.
osg::ref_ptr<osg::Group> perInstanceGraph(const core::Scene& scene) {
    osg::ref_ptr<osg::Group> root = new osg::Group;
    std::vector<osg::ref_ptr<osg::Geode>> nodes;
    for (const std::string& id : scene.assets) nodes.push_back(models().model(*catalogue().find(id))->node());
    for (const core::InstanceBlock& b : scene.blocks) {
        for (const core::Instance& in : b.instances) {
            const std::array<float, 16> m = core::transformMatrix(in);
            osg::ref_ptr<osg::MatrixTransform> t = new osg::MatrixTransform(osg::Matrixf(m.data()));
            t->addChild(nodes[static_cast<std::size_t>(b.asset)]);
            root->addChild(t);
        }
    }
    return root;
}

std::map<std::string, double> gMs;  // per benchmark: milliseconds per iteration

void buildTerrabit(benchmark::State& state, const core::Scene& scene, const core::LayerSource* layers) {
    render::SceneGraphOptions options;
    if (layers) options.style.layers = monaco().map->classified.layers;
    render::GraphCounts counts;
    for (auto _ : state) {
        render::SceneGraph graph(catalogue(), models(), options);
        if (!graph.setScene(scene, layers)) state.SkipWithError("setScene failed");
        counts = graph.counts();
        benchmark::DoNotOptimize(graph.root());
    }
    state.counters["draws"] = static_cast<double>(counts.drawables());
    state.counters["instances"] = static_cast<double>(counts.instances);
}

void BM_Build_Monaco_Terrabit(benchmark::State& state) { buildTerrabit(state, monaco().scene, &monaco().map->store); }

void BM_Build_Monaco_PerInstanceTransforms(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(perInstanceGraph(monaco().scene));
    state.counters["draws"] = static_cast<double>(monaco().scene.instanceCount());
}

void BM_Build_Trees_Terrabit(benchmark::State& state) {
    buildTerrabit(state, trees(static_cast<std::size_t>(state.range(0))), nullptr);
}

void BM_Build_Trees_PerInstanceTransforms(benchmark::State& state) {
    const core::Scene& scene = trees(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(perInstanceGraph(scene));
    state.counters["draws"] = static_cast<double>(scene.instanceCount());
}

render::OffscreenRenderer* renderer() {
    static std::unique_ptr<render::OffscreenRenderer> r = [] {
        auto created = render::OffscreenRenderer::create(1280, 800);
        if (!created) std::fprintf(stderr, "no frames: %s\n", created.message().c_str());
        return created ? std::move(*created) : nullptr;
    }();
    return r.get();
}

/// Frames of a graph from a fixed oblique camera; the first frame (shader compile, uploads) is
/// not timed.
void frames(benchmark::State& state, osg::Node* graph, const osg::BoundingBox& box) {
    render::OffscreenRenderer* r = renderer();
    if (!r) {
        state.SkipWithError("no GL context: run under xvfb-run");
        return;
    }
    const render::CameraPose pose = render::frameBox(box, render::ViewDirection{200, 40}, 1280.0 / 800.0);
    const osg::Vec4 sky = render::Lighting{}.sky;
    (void)r->render(graph, pose, sky);
    render::FrameStatistics last;
    for (auto _ : state) {
        auto f = r->render(graph, pose, sky);
        if (!f) {
            state.SkipWithError(f.message().c_str());
            return;
        }
        last = *f;
        state.SetIterationTime(f->frameMs / 1000.0);
    }
    state.counters["draws"] = static_cast<double>(last.drawCalls);
    state.counters["triangles(OSG)"] = static_cast<double>(last.triangles);
}

void BM_Frame_Monaco_Terrabit(benchmark::State& state) {
    render::SceneGraphOptions options;
    options.style.layers = monaco().map->classified.layers;
    render::SceneGraph graph(catalogue(), models(), options);
    (void)graph.setScene(monaco().scene, &monaco().map->store);
    frames(state, graph.root(), graph.bounds());
}

/// A map's whole area in the viewport's graph, with or without its distance levels
/// (render::DistanceLod): the frame a designer gets after selecting everything.
/// With `detail`, the graph holds only what that camera sees (render::DetailView), as the
/// viewport's does: the counters say what it holds (ground texels, instances, tiles holding
/// their blocks) and `detail_ms` what re-detailing the whole graph for that eye took.
void wholeArea(benchmark::State& state, const Monaco& map, bool levels, bool detail = false) {
    render::SceneGraphOptions options;
    options.style.layers = map.map->classified.layers;
    if (levels) options.lod = {1500.0, 500.0};  // the viewport's
    render::SceneGraph graph(catalogue(), models(), options);
    (void)graph.setScene(map.scene, &map.map->store);
    const osg::BoundingBox box = graph.bounds();
    if (detail) {
        const render::CameraPose pose = render::frameBox(box, render::ViewDirection{200, 40}, 1280.0 / 800.0);
        graph.setDetailView(render::DetailView{pose.eye, 800.0 / (pose.fovyDeg * std::numbers::pi / 180.0)});
        const auto start = std::chrono::steady_clock::now();
        (void)graph.updateTiles(map.scene, &map.map->store, graph.tilesOutOfDetail());
        state.counters["detail_ms"] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    frames(state, graph.root(), box);
    const render::GraphCounts held = graph.counts();
    state.counters["tiles"] = static_cast<double>(map.scene.tiles.size());
    state.counters["ground_Ki_texels"] = static_cast<double>(held.groundTexels) / 1024.0;
    state.counters["instances_held"] = static_cast<double>(held.instances);
    state.counters["tiles_holding_blocks"] = static_cast<double>(held.tilesHoldingBlocks);
}

void BM_Frame_Monaco_DistanceLevels(benchmark::State& state) { wholeArea(state, monaco(), true); }
void BM_Frame_Region_Terrabit(benchmark::State& state) { wholeArea(state, region(), false); }
void BM_Frame_Region_DistanceLevels(benchmark::State& state) { wholeArea(state, region(), true); }
void BM_Frame_Region_DetailView(benchmark::State& state) { wholeArea(state, region(), true, true); }

void BM_Frame_Monaco_PerInstanceTransforms(benchmark::State& state) {
    render::SceneGraph ground(catalogue(), models());  // for the bounds only
    (void)ground.setScene(monaco().scene, nullptr);
    osg::ref_ptr<osg::Group> graph = perInstanceGraph(monaco().scene);
    graph->getOrCreateStateSet()->setMode(GL_LIGHTING, osg::StateAttribute::ON);
    frames(state, graph.get(), ground.bounds());
}

void BM_Frame_Trees_Terrabit(benchmark::State& state) {
    render::SceneGraphOptions options;
    options.ground = false;
    render::SceneGraph graph(catalogue(), models(), options);
    (void)graph.setScene(trees(static_cast<std::size_t>(state.range(0))), nullptr);
    frames(state, graph.root(), graph.bounds());
}

void BM_Frame_Trees_PerInstanceTransforms(benchmark::State& state) {
    const core::Scene& scene = trees(static_cast<std::size_t>(state.range(0)));
    render::SceneGraphOptions options;
    options.ground = false;
    render::SceneGraph bounds(catalogue(), models(), options);
    (void)bounds.setScene(scene, nullptr);
    osg::ref_ptr<osg::Group> graph = perInstanceGraph(scene);
    frames(state, graph.get(), bounds.bounds());
}

BENCHMARK(BM_Build_Monaco_Terrabit)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Build_Monaco_PerInstanceTransforms)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Build_Trees_Terrabit)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Build_Trees_PerInstanceTransforms)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK(BM_Frame_Monaco_Terrabit)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);
BENCHMARK(BM_Frame_Monaco_PerInstanceTransforms)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);
BENCHMARK(BM_Frame_Monaco_DistanceLevels)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);
// Every model of monaco-region takes about 40 s a frame on llvmpipe: one timed frame.
BENCHMARK(BM_Frame_Region_Terrabit)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);
BENCHMARK(BM_Frame_Region_DistanceLevels)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);
BENCHMARK(BM_Frame_Region_DetailView)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);
BENCHMARK(BM_Frame_Trees_Terrabit)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(3);
BENCHMARK(BM_Frame_Trees_PerInstanceTransforms)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(3);

void ratio(const char* what, const std::string& ours, const std::string& theirs, const char* oursName = "Terrabit",
           const char* theirsName = "per-instance transforms") {
    const auto a = gMs.find(ours), b = gMs.find(theirs);
    if (a == gMs.end() || b == gMs.end() || a->second <= 0) return;
    std::printf("%-44s %s %9.1f ms, %s %9.1f ms, ratio %.1fx\n", what, oursName, a->second, theirsName, b->second,
                b->second / a->second);
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (monaco().scene.tiles.empty()) {
        std::fprintf(stderr, "the Monaco sample did not bake\n");
        return 1;
    }
    class Reporter : public benchmark::ConsoleReporter {
    public:
        void ReportRuns(const std::vector<Run>& runs) override {
            ConsoleReporter::ReportRuns(runs);
            for (const Run& r : runs) {
                if (r.error_occurred) continue;
                gMs[r.benchmark_name()] = r.GetAdjustedRealTime();  // in the benchmark's unit: ms
            }
        }
    } reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    std::printf("\nMonaco: %zu tiles, %zu (asset, block) draws, %zu instances\n", monaco().scene.tiles.size(),
                monaco().scene.blocks.size(), monaco().scene.instanceCount());
    ratio("graph build, Monaco", "BM_Build_Monaco_Terrabit", "BM_Build_Monaco_PerInstanceTransforms");
    ratio("graph build, 100,000 trees", "BM_Build_Trees_Terrabit/100000/iterations:3",
          "BM_Build_Trees_PerInstanceTransforms/100000/iterations:2");
    ratio("graph build, 1,000,000 trees", "BM_Build_Trees_Terrabit/1000000/iterations:3",
          "BM_Build_Trees_PerInstanceTransforms/1000000/iterations:2");
    ratio("frame (llvmpipe, 1280x800), Monaco", "BM_Frame_Monaco_Terrabit/iterations:5/manual_time",
          "BM_Frame_Monaco_PerInstanceTransforms/iterations:5/manual_time");
    ratio("frame (llvmpipe, 1280x800), 100,000 trees", "BM_Frame_Trees_Terrabit/100000/iterations:3/manual_time",
          "BM_Frame_Trees_PerInstanceTransforms/100000/iterations:3/manual_time");
    // The distance levels against every model drawn: the same whole-area view.
    ratio("frame (llvmpipe, 1280x800), Monaco, distance levels against all models",
          "BM_Frame_Monaco_DistanceLevels/iterations:5/manual_time",
          "BM_Frame_Monaco_Terrabit/iterations:5/manual_time", "levels", "all models");
    ratio("frame (llvmpipe, 1280x800), monaco-region, distance levels against all models",
          "BM_Frame_Region_DistanceLevels/iterations:3/manual_time",
          "BM_Frame_Region_Terrabit/iterations:1/manual_time", "levels", "all models");
    return 0;
}
