// Placement on the Monaco sample (z17, 1 214 buildings) and on monaco-region (23 000 buildings):
// the building pass (by the default rules, and with one prefab per footprint, no fill test and no
// fallback: the AND scan alone), the vegetation pass and the whole default bake, in ms total and
// per tile and instances per second. Baselines in the same run, what a user would otherwise write:
// placing the same footprints one by one with GEOS overlap tests (a grid of prepared polygons),
// and a plain per-cell scatter loop with std::mt19937. Prints the ratios.

#include <benchmark/benchmark.h>
#include <geos_c.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_maps.h"
#include "terrabit/cli/map_commands.h"
#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/core/placement/target_box.h"

using namespace terrabit::core;
using namespace terrabit::core::placement;

namespace {

struct MapFixture {
    std::string name;
    std::unique_ptr<io::MapLayers> layers;
    AssetCatalogue catalogue;
    PlacementRules rules;

    /// The default rules with only the passes of these kinds.
    PlacementRules only(std::initializer_list<PassKind> kinds) const {
        PlacementRules r = rules;
        std::erase_if(r.passes(),
                      [&](const PassRule& p) { return std::find(kinds.begin(), kinds.end(), p.kind) == kinds.end(); });
        return r;
    }
};

MapFixture load(const std::string& name, const std::string& path) {
    MapFixture f;
    f.name = name;
    f.layers = terrabit::bench::loadBenchMap(path);
    auto catalogue = AssetCatalogue::load(std::string(TERRABIT_RESOURCES_DIR) + "/assets/catalogue.yaml");
    auto rules = PlacementRules::load(terrabit::bench::defaultRulesFile(), f.layers->classified.layers);
    if (!catalogue || !rules) {
        std::fprintf(stderr, "%s%s\n", catalogue.message().c_str(), rules.message().c_str());
        std::exit(1);
    }
    f.catalogue = std::move(*catalogue);
    f.rules = std::move(*rules);
    return f;
}

MapFixture& monaco() {
    static MapFixture f = load("monaco", std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf");
    return f;
}

MapFixture& region() {
    static MapFixture f =
        load("monaco-region", std::string(TERRABIT_TEST_DATA_DIR) + "/monaco-region-2016-03-05.osm.pbf");
    return f;
}

MapFixture& fixtureOf(int i) { return i == 0 ? monaco() : region(); }

/// Milliseconds per run, for the ratio lines: ["map what"], from the reporter (medians when
/// the benchmarks repeat).
std::map<std::string, double> gMs;

double msSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// -- Terrabit ---------------------------------------------------------------------------------

/// A building pass by these rules, from scratch each time.
void runBuildingPass(benchmark::State& state, MapFixture& f, const PlacementRules& rules) {
    SceneBaker baker(f.layers->index, f.layers->store, f.catalogue);
    if (Status s = baker.setRules(rules); !s) state.SkipWithError(s.message().c_str());
    Scene scene;
    double ms = 0;
    // The process's CPU time on every thread: steadier than the wall time on a shared machine,
    // and what the pass costs a designer's other work.
    const std::clock_t cpuStart = std::clock();
    for (auto _ : state) {
        baker.clearCache();
        auto r = baker.bake();
        if (!r) state.SkipWithError(r.message().c_str());
        ms += baker.report().passes.at(0).milliseconds;
        scene = std::move(*r);
    }
    const double cpuMs = 1000.0 * static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    state.counters["bake_cpu_ms"] = cpuMs / static_cast<double>(state.iterations());
    ms /= static_cast<double>(state.iterations());
    const double tiles = static_cast<double>(scene.tiles.size());
    const SceneStatistics& st = scene.statistics;
    state.counters["tiles"] = tiles;
    state.counters["buildings"] = static_cast<double>(scene.buildings.size());
    state.counters["placed"] = static_cast<double>(st.buildingsPlaced);
    state.counters["generated"] = static_cast<double>(st.buildingsGenerated);
    state.counters["covered_pct"] = 100.0 * static_cast<double>(st.footprintCellsCovered) /
                                    static_cast<double>(std::max<std::uint64_t>(1, st.footprintCells));
    state.counters["pass_ms"] = ms;
    state.counters["ms_per_tile"] = ms / tiles;
    state.counters["buildings_per_s"] = scene.buildings.size() / (ms / 1000.0);
}

/// The building pass alone, by the default rules.
void BM_BuildingPass(benchmark::State& state) {
    MapFixture& f = fixtureOf(static_cast<int>(state.range(0)));
    runBuildingPass(state, f, f.only({PassKind::Buildings}));
}

/// The building pass with only the AND scan on each model's own cells: one prefab per footprint
/// (max_models 1), kept whatever share it covers (min_fill 0), and no fallback. The difference
/// from BM_BuildingPass is what further prefabs, the fill test and generated buildings cost.
void BM_BuildingPass_OnePrefab(benchmark::State& state) {
    MapFixture& f = fixtureOf(static_cast<int>(state.range(0)));
    PlacementRules rules = f.only({PassKind::Buildings});
    for (PassRule& p : rules.passes()) {
        p.buildings.maxModels = 1;
        p.buildings.minFill = 0.0;
        p.buildings.fallback = FallbackKind::None;
    }
    runBuildingPass(state, f, rules);
}

/// The vegetation pass alone: buildings stay cached, the vegetation seed changes every run so
/// every tile is planted again (the incremental case a designer meets when re-rolling).
void BM_VegetationPass(benchmark::State& state) {
    MapFixture& f = fixtureOf(static_cast<int>(state.range(0)));
    SceneBaker baker(f.layers->index, f.layers->store, f.catalogue);
    PlacementRules rules = f.only({PassKind::Buildings, PassKind::Vegetation});
    if (Status s = baker.setRules(rules); !s) state.SkipWithError(s.message().c_str());
    if (auto r = baker.bake(); !r) state.SkipWithError(r.message().c_str());
    double ms = 0;
    std::size_t instances = 0, tiles = 0;
    for (auto _ : state) {
        state.PauseTiming();
        ++rules.passes().back().seed;
        if (Status s = baker.setRules(rules); !s) state.SkipWithError(s.message().c_str());
        state.ResumeTiming();
        auto r = baker.bake();
        if (!r) state.SkipWithError(r.message().c_str());
        const PassReport* veg = baker.report().pass("vegetation");
        ms += veg->milliseconds;
        tiles = veg->tilesRun;
        instances = r->statistics.vegetationInstances;
    }
    ms /= static_cast<double>(state.iterations());
    state.counters["tiles_run"] = static_cast<double>(tiles);
    state.counters["instances"] = static_cast<double>(instances);
    state.counters["pass_ms"] = ms;
    state.counters["ms_per_tile"] = ms / static_cast<double>(tiles);
    state.counters["instances_per_s"] = instances / (ms / 1000.0);
}

/// The whole default bake (buildings, water, roads, vegetation) from scratch.
void BM_WholeBake(benchmark::State& state) {
    MapFixture& f = fixtureOf(static_cast<int>(state.range(0)));
    SceneBaker baker(f.layers->index, f.layers->store, f.catalogue);
    if (Status s = baker.setRules(f.rules); !s) state.SkipWithError(s.message().c_str());
    double ms = 0;
    Scene scene;
    for (auto _ : state) {
        baker.clearCache();
        const auto t = std::chrono::steady_clock::now();
        auto r = baker.bake();
        ms += msSince(t);
        if (!r) state.SkipWithError(r.message().c_str());
        scene = std::move(*r);
    }
    ms /= static_cast<double>(state.iterations());
    state.counters["tiles"] = static_cast<double>(scene.tiles.size());
    state.counters["instances"] = static_cast<double>(scene.instanceCount());
    state.counters["ms_per_tile"] = ms / static_cast<double>(scene.tiles.size());
    state.counters["instances_per_s"] = scene.instanceCount() / (ms / 1000.0);
}

/// A re-bake after an edit the plants do not depend on (the water's elevation) while the last
/// scene is still held, as the desktop makes it: with that scene's plant blocks kept
/// (BakeOptions::keepPlantBlocks, range(1) = 1), every tile's plants are the last scene's,
/// shared; without (0), every block is made again. Counters: the bake's milliseconds and the
/// tiles whose plants were shared.
void BM_RebakeAfterAWaterEdit(benchmark::State& state) {
    MapFixture& f = fixtureOf(static_cast<int>(state.range(0)));
    SceneBaker baker(f.layers->index, f.layers->store, f.catalogue);
    PlacementRules rules = f.rules;
    if (Status s = baker.setRules(rules); !s) state.SkipWithError(s.message().c_str());
    BakeOptions options;
    options.keepPlantBlocks = state.range(1) != 0;
    auto shown = baker.bake(options);
    if (!shown) state.SkipWithError(shown.message().c_str());
    SurfacePassRule* water = nullptr;
    for (PassRule& p : rules.passes()) {
        if (p.kind == PassKind::Surface && p.name == "water") water = &p.surface;
    }
    if (!water) state.SkipWithError("the rules have no water pass");
    double ms = 0;
    std::size_t shared = 0;
    for (auto _ : state) {
        state.PauseTiming();
        water->elevationMetres = water->elevationMetres < -0.3 ? -0.3 : -0.31;
        if (Status s = baker.setRules(rules); !s) state.SkipWithError(s.message().c_str());
        state.ResumeTiming();
        auto r = baker.bake(options);
        if (!r) state.SkipWithError(r.message().c_str());
        ms += baker.report().milliseconds;
        shared = baker.report().plantTilesShared;
        state.PauseTiming();
        *shown = std::move(*r);  // the new scene is shown, the old one goes
        state.ResumeTiming();
    }
    ms /= static_cast<double>(state.iterations());
    state.counters["bake_ms"] = ms;
    state.counters["plant_tiles_shared"] = static_cast<double>(shared);
    state.counters["tiles"] = static_cast<double>(shown ? shown->tiles.size() : 0);
}

// -- Baselines ----------------------------------------------------------------------------------

/// Placing the same placed footprints in the same order with GEOS: a 32 m grid of prepared
/// polygons, and for each new footprint a test that the interiors meet (DE-9IM T********)
/// against the placed ones in its cells. Only the overlap test — no hull, box or matching — so the
/// ratio flatters GEOS.
void BM_BuildingOverlap_Geos(benchmark::State& state) {
    MapFixture& f = fixtureOf(static_cast<int>(state.range(0)));
    SceneBaker baker(f.layers->index, f.layers->store, f.catalogue);
    if (Status s = baker.setRules(f.only({PassKind::Buildings})); !s) state.SkipWithError(s.message().c_str());
    auto scene = baker.bake();
    if (!scene) state.SkipWithError(scene.message().c_str());
    // Every target box as a candidate, in the order of the scene's records.
    std::vector<std::array<Vec2, 4>> candidates;
    for (const BuildingRecord& b : scene->buildings) candidates.push_back(boxCorners(b.target));
    GEOSContextHandle_t geos = GEOS_init_r();
    constexpr double kGrid = 32.0;
    std::size_t placed = 0;
    for (auto _ : state) {
        std::unordered_map<std::int64_t, std::vector<std::size_t>> grid;
        std::vector<GEOSGeometry*> polygons;
        std::vector<const GEOSPreparedGeometry*> prepared;
        placed = 0;
        for (const auto& c : candidates) {
            GEOSCoordSequence* seq = GEOSCoordSeq_create_r(geos, 5, 2);
            for (unsigned i = 0; i < 5; ++i) GEOSCoordSeq_setXY_r(geos, seq, i, c[i % 4].x, c[i % 4].y);
            GEOSGeometry* poly = GEOSGeom_createPolygon_r(geos, GEOSGeom_createLinearRing_r(geos, seq), nullptr, 0);
            Box2 b;
            for (const Vec2 p : c) b.extend(p);
            const auto x0 = std::int64_t(std::floor(b.min.x / kGrid)), x1 = std::int64_t(std::floor(b.max.x / kGrid));
            const auto y0 = std::int64_t(std::floor(b.min.y / kGrid)), y1 = std::int64_t(std::floor(b.max.y / kGrid));
            bool clear = true;
            for (auto y = y0; y <= y1 && clear; ++y) {
                for (auto x = x0; x <= x1 && clear; ++x) {
                    const auto it = grid.find((y << 32) ^ (x & 0xffffffff));
                    if (it == grid.end()) continue;
                    for (const std::size_t k : it->second) {
                        // Interiors meet (DE-9IM T********): GEOS 3.11 has no prepared relate
                        // pattern, so intersects and not only touches.
                        if (GEOSPreparedIntersects_r(geos, prepared[k], poly) == 1 &&
                            GEOSPreparedTouches_r(geos, prepared[k], poly) != 1) {
                            clear = false;
                            break;
                        }
                    }
                }
            }
            if (!clear) {
                GEOSGeom_destroy_r(geos, poly);
                continue;
            }
            ++placed;
            polygons.push_back(poly);
            prepared.push_back(GEOSPrepare_r(geos, poly));
            for (auto y = y0; y <= y1; ++y) {
                for (auto x = x0; x <= x1; ++x) grid[(y << 32) ^ (x & 0xffffffff)].push_back(polygons.size() - 1);
            }
        }
        for (const GEOSPreparedGeometry* p : prepared) GEOSPreparedGeom_destroy_r(geos, p);
        for (GEOSGeometry* g : polygons) GEOSGeom_destroy_r(geos, g);
    }
    GEOS_finish_r(geos);
    state.counters["buildings"] = static_cast<double>(candidates.size());
    state.counters["placed"] = static_cast<double>(placed);
}

/// A plain per-cell scatter: for every vegetation-class cell of every tile that is not a
/// building, road or water cell, a std::mt19937_64 draw against the density, then jitter, yaw,
/// scale and species from the same generator.
void BM_VegetationScatter_PlainLoop(benchmark::State& state) {
    MapFixture& f = fixtureOf(static_cast<int>(state.range(0)));
    const LayerStore& store = f.layers->store;
    const auto& veg = f.rules.passes().back().vegetation;
    const int building = store.layerId("building"), road = store.layerId("road"), water = store.layerId("water");
    std::size_t instances = 0;
    for (auto _ : state) {
        std::vector<Instance> out;
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> unit(0, 1);
        for (const TileId& t : store.tiles()) {
            const BitTile* b = store.tile(t, building);
            const BitTile* r = store.tile(t, road);
            const BitTile* w = store.tile(t, water);
            for (const VegetationClassRule& c : veg.classes) {
                const BitTile* cls = store.tile(t, store.layerId(c.layer));
                if (!cls) continue;
                for (int y = 0; y < 256; ++y) {
                    for (int x = 0; x < 256; ++x) {
                        if (!cls->test(x, y) || (b && b->test(x, y)) || (r && r->test(x, y)) || (w && w->test(x, y)))
                            continue;
                        if (unit(rng) >= c.density) continue;
                        Instance in;
                        in.position = {float(t.x * 256 + x + unit(rng)), 0.0f, float(t.y * 256 + y + unit(rng))};
                        in.yaw = float(unit(rng) * 6.283185307179586);
                        const float s = float(c.minScale + unit(rng) * (c.maxScale - c.minScale));
                        in.scale = {s, s, s};
                        in.source = static_cast<std::uint32_t>(unit(rng) * c.species.size());
                        out.push_back(in);
                    }
                }
            }
        }
        instances = out.size();
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["instances"] = static_cast<double>(instances);
}

}  // namespace

BENCHMARK(BM_BuildingPass)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();
BENCHMARK(BM_BuildingPass_OnePrefab)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();
BENCHMARK(BM_BuildingOverlap_Geos)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();
BENCHMARK(BM_VegetationPass)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();
BENCHMARK(BM_VegetationScatter_PlainLoop)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();
BENCHMARK(BM_WholeBake)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();
BENCHMARK(BM_RebakeAfterAWaterEdit)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5)
    ->UseRealTime();

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    // Runs' wall times per iteration, for the ratio lines.
    class Reporter : public benchmark::ConsoleReporter {
    public:
        void ReportRuns(const std::vector<Run>& runs) override {
            ConsoleReporter::ReportRuns(runs);
            for (const Run& r : runs) {
                // One figure per benchmark: the single run, or the median of the repetitions.
                if (r.run_type == Run::RT_Aggregate ? r.aggregate_name != "median" : r.repetitions > 1) continue;
                const std::string n = r.benchmark_name();
                if (n.starts_with("BM_RebakeAfterAWaterEdit/")) {
                    // Its arguments: the map, then whether the plant blocks are kept.
                    const std::string args = n.substr(std::string("BM_RebakeAfterAWaterEdit/").size(), 3);
                    gMs[std::string(args[0] == '0' ? "monaco" : "monaco-region") +
                        (args[2] == '1' ? " rebake kept" : " rebake made")] = r.counters.at("bake_ms").value;
                    continue;
                }
                const std::string map = n.find("/0/") != std::string::npos ? "monaco" : "monaco-region";
                // The passes' own time where the benchmark measures more than the pass.
                const auto pass = r.counters.find("pass_ms");
                const double ms = pass != r.counters.end() ? pass->second.value : r.GetAdjustedRealTime();
                for (const auto& [name, what] :
                     {std::pair{"BM_BuildingPass/", " buildings"},
                      std::pair{"BM_BuildingPass_OnePrefab/", " one prefab"},
                      std::pair{"BM_VegetationPass/", " vegetation"}, std::pair{"BM_WholeBake/", " whole"},
                      std::pair{"BM_BuildingOverlap_Geos/", " geos"},
                      std::pair{"BM_VegetationScatter_PlainLoop/", " plain"}}) {
                    if (n.starts_with(name)) gMs[map + what] = ms;
                }
            }
        }
    } reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    for (const char* map : {"monaco", "monaco-region"}) {
        const std::string m = map;
        if (gMs.count(m + " buildings") && gMs.count(m + " geos")) {
            std::printf(
                "%s: building pass %.1f ms (hull, box, matching, occupancy), GEOS overlap tests alone %.1f ms, "
                "ratio %.1fx\n",
                map, gMs[m + " buildings"], gMs[m + " geos"], gMs[m + " geos"] / gMs[m + " buildings"]);
        }
        if (gMs.count(m + " buildings") && gMs.count(m + " one prefab")) {
            std::printf(
                "%s: building pass %.1f ms; with one prefab per footprint, no fill test and no fallback %.1f ms "
                "(further prefabs and generated buildings cost %.1fx)\n",
                map, gMs[m + " buildings"], gMs[m + " one prefab"], gMs[m + " buildings"] / gMs[m + " one prefab"]);
        }
        if (gMs.count(m + " vegetation") && gMs.count(m + " plain")) {
            std::printf("%s: vegetation pass %.1f ms, plain per-cell loop %.1f ms, ratio %.1fx\n", map,
                        gMs[m + " vegetation"], gMs[m + " plain"], gMs[m + " plain"] / gMs[m + " vegetation"]);
        }
        if (gMs.count(m + " rebake kept") && gMs.count(m + " rebake made")) {
            std::printf(
                "%s: re-bake after a water edit %.1f ms keeping the last scene's plant blocks, %.1f ms making them "
                "again, ratio %.1fx\n",
                map, gMs[m + " rebake kept"], gMs[m + " rebake made"],
                gMs[m + " rebake made"] / gMs[m + " rebake kept"]);
        }
        if (gMs.count(m + " whole")) {
            std::printf("%s: whole default bake %.1f ms%s\n", map, gMs[m + " whole"],
                        m == "monaco" ? " (target: < 200 ms)" : "");
        }
    }
    return 0;
}
