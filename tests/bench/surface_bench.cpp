// Road and water surfaces in their real shapes (SurfaceShaper: the lines' buffers united on their
// boundary, GEOS's areas, differences and clipping, the ear cuts) for every tile of the Monaco
// sample and of monaco-region at zoom 17, one thread, against today's greedy mesh of the same layers' cells.
// Prints ms for all tiles, per tile, and the ratio.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_maps.h"
#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/placement/greedy_mesh.h"
#include "terrabit/core/placement/surface_shape.h"

using namespace terrabit::core;
using namespace terrabit::core::placement;

namespace {

/// A map's layers and the two surfaces of the default rules: water (mask water) and roads
/// (mask road - water).
struct Fixture {
    std::unique_ptr<io::MapLayers> layers;
    struct Surface {
        int layer = -1;
        algebra::ExpressionAst mask;
    };
    std::vector<Surface> surfaces;
};

const Fixture& fixture(const std::string& path) {
    static std::map<std::string, Fixture> cache;
    auto [it, fresh] = cache.try_emplace(path);
    if (!fresh) return it->second;
    Fixture& f = it->second;
    f.layers = terrabit::bench::loadBenchMap(path);
    std::vector<std::string> names;
    for (const LayerInfo& l : f.layers->classified.layers) names.push_back(l.name);
    for (const auto& [layer, mask] : {std::pair{"water", "water"}, std::pair{"road", "road - water"}}) {
        Fixture::Surface s;
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i] == layer) s.layer = static_cast<int>(i);
        }
        s.mask = *algebra::ExpressionAst::parse(mask, names);
        f.surfaces.push_back(std::move(s));
    }
    return f;
}

std::string monacoPath() { return std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf"; }
std::string regionPath() { return std::string(TERRABIT_TEST_DATA_DIR) + "/monaco-region-2016-03-05.osm.pbf"; }

std::size_t greedyTriangles(const Fixture& f, std::vector<CellRect>& rects, BitTile& scratch, BitTile& cells);

void realShapes(benchmark::State& state, const std::string& path) {
    const Fixture& f = fixture(path);
    SurfaceShaper shaper;
    std::vector<SurfaceShape> out;
    const BitTile none;
    std::size_t triangles = 0;
    for (auto _ : state) {
        triangles = 0;
        for (const TileId& t : f.layers->index.tiles()) {
            for (const Fixture::Surface& s : f.surfaces) {
                const int parts[1] = {s.layer};
                if (!shaper.shapeTile(f.layers->index, t, parts, &s.mask, none, out)) std::exit(1);
                triangles += out[0].triangleCount();
            }
        }
    }
    const double tiles = double(f.layers->index.tiles().size());
    state.counters["tiles"] = tiles;
    state.counters["triangles"] = double(triangles);
    state.counters["s_per_tile"] =
        benchmark::Counter(tiles, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    // The ratio to the greedy mesh, timed here once each so it prints beside the figures.
    std::vector<CellRect> rects;
    BitTile scratch, cells;
    const auto t0 = std::chrono::steady_clock::now();
    for (const TileId& t : f.layers->index.tiles()) {
        for (const Fixture::Surface& s : f.surfaces) {
            const int parts[1] = {s.layer};
            (void)shaper.shapeTile(f.layers->index, t, parts, &s.mask, none, out);
        }
    }
    const auto t1 = std::chrono::steady_clock::now();
    const std::size_t greedy = greedyTriangles(f, rects, scratch, cells);
    const auto t2 = std::chrono::steady_clock::now();
    state.counters["x_greedy_time"] = std::chrono::duration<double>(t1 - t0) / std::chrono::duration<double>(t2 - t1);
    state.counters["x_greedy_triangles"] = double(triangles) / double(std::max<std::size_t>(greedy, 1));
}

/// Today's surfaces: the greedy mesh of the water cells and of the road cells less water.
std::size_t greedyTriangles(const Fixture& f, std::vector<CellRect>& rects, BitTile& scratch, BitTile& cells) {
    std::size_t triangles = 0;
    for (const TileId& t : f.layers->index.tiles()) {
        const BitTile* water = f.layers->store.tile(t, f.surfaces[0].layer);
        const BitTile* road = f.layers->store.tile(t, f.surfaces[1].layer);
        if (water) {
            greedyMesh(*water, rects, scratch);
            triangles += 2 * rects.size();
        }
        if (road) {
            cells = *road;
            if (water) cells.andNot(*water);
            greedyMesh(cells, rects, scratch);
            triangles += 2 * rects.size();
        }
    }
    return triangles;
}

void greedyMeshes(benchmark::State& state, const std::string& path) {
    const Fixture& f = fixture(path);
    std::vector<CellRect> rects;
    BitTile scratch, cells;
    std::size_t triangles = 0;
    for (auto _ : state) triangles = greedyTriangles(f, rects, scratch, cells);
    state.counters["triangles"] = double(triangles);
}

BENCHMARK_CAPTURE(realShapes, monaco, monacoPath())->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(greedyMeshes, monaco, monacoPath())->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(realShapes, monaco_region, regionPath())->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(greedyMeshes, monaco_region, regionPath())->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
