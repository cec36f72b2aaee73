// Collision probes on the Monaco sample's buildings at z17: Terrabit's bit probes against a
// GEOS STRtree of prepared footprints (what a user of GEOS/shapely would write), the same
// probes in the same run. Prints ns per query and the ratio. Then terrain: groundHeight on the
// same tiles with synthetic hills (no real DEM ships), and CharacterMover moves over them
// against the same moves on the grid without heights.

#include <benchmark/benchmark.h>
#include <gdal.h>
#include <geos_c.h>
#include <ogrsf_frmts.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "terrabit/core/collision/character_mover.h"
#include "terrabit/core/collision/collision_query.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/raster/rasterizer.h"
#include "terrabit/core/tile/ground_frame.h"

using namespace terrabit::core;

namespace {

constexpr int kZoom = 17;
constexpr int kPoints = 1000000;
constexpr int kRects = 100000;
constexpr double kRectMetres = 4.0;
constexpr std::size_t kMoves = 20000;
constexpr Vec2 kMove{6.0, 4.0};  // cells: 7.2 cells, ~6 m on the ground

class MapLayerSource : public LayerSource {
public:
    const std::vector<std::string>& layerNames() const override { return mNames; }
    const BitTile* tile(const TileId& id, int layer) const override {
        if (layer != 0) return nullptr;
        auto it = mTiles.find(id);
        return it == mTiles.end() ? nullptr : &it->second;
    }
    std::map<TileId, BitTile> mTiles;
    std::vector<std::string> mNames{"building"};
};

struct Fixture {
    GEOSContextHandle_t geos = nullptr;
    std::vector<GEOSGeometry*> footprints;
    std::vector<const GEOSPreparedGeometry*> prepared;
    GEOSSTRtree* tree = nullptr;
    MapLayerSource layers;
    CollisionGrid grid;
    CollisionGrid terrainGrid;     // grid with synthetic hills: up to ~35° where the ripples add up
    std::vector<Vec2> moveStarts;  // global cells, outside buildings
    GroundFrame frame;
    Box2 extent;                    // EPSG:3857
    std::vector<Vec2> points;       // EPSG:3857
    std::vector<Vec2> rectCorners;  // EPSG:3857, south-west corners

    Fixture() {
        GDALAllRegister();
        geos = GEOS_init_r();
        const std::string path = std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf";
        auto* ds = static_cast<GDALDataset*>(
            GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr));
        if (!ds) {
            std::fprintf(stderr, "cannot open %s\n", path.c_str());
            std::exit(1);
        }
        OGRLayer* layer = ds->GetLayerByName("multipolygons");
        OGRSpatialReference wgs84, mercator;
        wgs84.importFromEPSG(4326);
        mercator.importFromEPSG(3857);
        wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
        mercator.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
        std::unique_ptr<OGRCoordinateTransformation> ct(OGRCreateCoordinateTransformation(&wgs84, &mercator));
        Rasterizer raster;
        std::vector<Vec2> pts;
        std::vector<std::uint32_t> ends;
        for (auto& f : *layer) {
            if (!f->IsFieldSetAndNotNull(f->GetFieldIndex("building"))) continue;
            OGRGeometry* g = f->GetGeometryRef();
            if (!g || g->transform(ct.get()) != OGRERR_NONE) continue;
            GEOSGeometry* gg = g->exportToGEOS(geos);
            if (!gg) continue;
            footprints.push_back(gg);
            OGREnvelope env;
            g->getEnvelope(&env);
            extent.extend({env.MinX, env.MinY});
            extent.extend({env.MaxX, env.MaxY});
            // Rasterize conservatively into every z17 tile the footprint's box touches.
            pts.clear();
            ends.clear();
            auto addPolygon = [&](const OGRPolygon* poly) {
                for (int r = 0; r < 1 + poly->getNumInteriorRings(); ++r) {
                    const OGRLinearRing* ring = r == 0 ? poly->getExteriorRing() : poly->getInteriorRing(r - 1);
                    for (int i = 0; i < ring->getNumPoints(); ++i) pts.push_back({ring->getX(i), ring->getY(i)});
                    ends.push_back(static_cast<std::uint32_t>(pts.size()));
                }
            };
            if (auto* mp = dynamic_cast<OGRMultiPolygon*>(g)) {
                for (auto* p : *mp) addPolygon(p);
            } else if (auto* p = dynamic_cast<OGRPolygon*>(g)) {
                addPolygon(p);
            }
            auto tiles = tilesCovering(Box2{{env.MinX, env.MinY}, {env.MaxX, env.MaxY}}, kZoom);
            for (const TileId& t : *tiles) {
                std::vector<Vec2> cells(pts.size());
                for (std::size_t i = 0; i < pts.size(); ++i) cells[i] = t.mercatorToCell(pts[i]);
                (void)raster.polygon(PolygonView{cells, ends}, {FillRule::EvenOdd, Coverage::Conservative},
                                     layers.mTiles[t]);
            }
        }
        GDALClose(ds);
        tree = GEOSSTRtree_create_r(geos, 10);
        for (GEOSGeometry* g : footprints) {
            prepared.push_back(GEOSPrepare_r(geos, g));
            GEOSSTRtree_insert_r(geos, tree, g, const_cast<GEOSPreparedGeometry*>(prepared.back()));
        }
        std::vector<TileId> tileIds;
        for (auto& [t, bits] : layers.mTiles) tileIds.push_back(t);
        const std::string name = "building";
        grid = *CollisionGrid::build(layers, tileIds, std::span<const std::string>(&name, 1));
        frame.origin = mercatorToLonLat(extent.centre());
        frame.zoom = kZoom;
        std::mt19937_64 rng(42);
        std::uniform_real_distribution<double> ux(extent.min.x, extent.max.x), uy(extent.min.y, extent.max.y);
        for (int i = 0; i < kPoints; ++i) points.push_back({ux(rng), uy(rng)});
        for (int i = 0; i < kRects; ++i) rectCorners.push_back({ux(rng), uy(rng)});
        terrainGrid = grid;
        std::vector<float> h(terrain::kHeightSampleCount);
        for (const TileId& t : tileIds) {
            for (int r = 0; r < terrain::kHeightSamples; ++r) {
                for (int c = 0; c < terrain::kHeightSamples; ++c) {
                    const double gx = t.x * 256.0 + c, gy = t.y * 256.0 + r;
                    h[terrain::HeightTile::index(r, c)] = static_cast<float>(
                        80.0 + 60.0 * std::sin(gx / 97.0) * std::cos(gy / 131.0) + 3.0 * std::sin(gx / 3.1));
                }
            }
            (void)terrainGrid.setTileHeights(t, h);
        }
        CollisionQuery q(grid);
        const double cell = frame.cellSizeMercator();
        for (const Vec2& p : points) {
            const Vec2 c{(p.x + kMercatorHalfWorld) / cell, (kMercatorHalfWorld - p.y) / cell};
            if (!q.disk(c, 0.4).hit() && !std::isnan(terrainGrid.groundHeight(c))) moveStarts.push_back(c);
            if (moveStarts.size() == kMoves) break;
        }
        std::fprintf(stderr, "monaco: %zu footprints, %zu z17 tiles with buildings\n", footprints.size(),
                     tileIds.size());
    }
};

Fixture& fixture() {
    static Fixture f;
    return f;
}

struct QueryHit {
    GEOSContextHandle_t geos;
    const GEOSGeometry* probe;
    bool hit = false;
};

void geosCallback(void* item, void* user) {
    auto* q = static_cast<QueryHit*>(user);
    if (q->hit) return;
    if (GEOSPreparedIntersects_r(q->geos, static_cast<const GEOSPreparedGeometry*>(item), q->probe) == 1) q->hit = true;
}

double gPointNsTerrabit = 0, gPointNsGeos = 0, gRectNsTerrabit = 0, gRectNsGeos = 0;

void BM_PointProbe_Terrabit(benchmark::State& state) {
    Fixture& f = fixture();
    CollisionQuery q(f.grid);
    const double cell = f.frame.cellSizeMercator();
    std::size_t hits = 0;
    for (auto _ : state) {
        hits = 0;
        for (const Vec2& p : f.points) {
            // EPSG:3857 → global cells, then the probe.
            const Vec2 c{(p.x + kMercatorHalfWorld) / cell, (kMercatorHalfWorld - p.y) / cell};
            hits += q.pointHits(c, 0);
        }
        benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(state.iterations() * kPoints);
    state.counters["hit%"] = 100.0 * hits / kPoints;
}

void BM_PointProbe_GeosStrtreePrepared(benchmark::State& state) {
    Fixture& f = fixture();
    std::size_t hits = 0;
    for (auto _ : state) {
        hits = 0;
        for (const Vec2& p : f.points) {
            GEOSGeometry* pt = GEOSGeom_createPointFromXY_r(f.geos, p.x, p.y);
            QueryHit q{f.geos, pt};
            GEOSSTRtree_query_r(f.geos, f.tree, pt, geosCallback, &q);
            hits += q.hit;
            GEOSGeom_destroy_r(f.geos, pt);
        }
        benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(state.iterations() * kPoints);
    state.counters["hit%"] = 100.0 * hits / kPoints;
}

void BM_RectProbe_Terrabit(benchmark::State& state) {
    Fixture& f = fixture();
    CollisionQuery q(f.grid);
    const double cell = f.frame.cellSizeMercator();
    const double side = kRectMetres / f.frame.scale() / cell;  // ground metres → cells
    std::size_t hits = 0;
    for (auto _ : state) {
        hits = 0;
        for (const Vec2& p : f.rectCorners) {
            const Vec2 c{(p.x + kMercatorHalfWorld) / cell, (kMercatorHalfWorld - p.y) / cell};
            hits += q.rectangleHits(Box2{{c.x, c.y - side}, {c.x + side, c.y}}, 0);
        }
        benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(state.iterations() * kRects);
    state.counters["hit%"] = 100.0 * hits / kRects;
}

void BM_RectProbe_GeosStrtreePrepared(benchmark::State& state) {
    Fixture& f = fixture();
    const double side = kRectMetres / f.frame.scale();  // ground metres → Mercator metres
    std::size_t hits = 0;
    for (auto _ : state) {
        hits = 0;
        for (const Vec2& p : f.rectCorners) {
            GEOSGeometry* box = GEOSGeom_createRectangle_r(f.geos, p.x, p.y, p.x + side, p.y + side);
            QueryHit q{f.geos, box};
            GEOSSTRtree_query_r(f.geos, f.tree, box, geosCallback, &q);
            hits += q.hit;
            GEOSGeom_destroy_r(f.geos, box);
        }
        benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(state.iterations() * kRects);
    state.counters["hit%"] = 100.0 * hits / kRects;
}

double gGroundNs = 0, gMoveNsFlat = 0, gMoveNsTerrain = 0;

void BM_GroundHeight(benchmark::State& state) {
    Fixture& f = fixture();
    const double cell = f.frame.cellSizeMercator();
    double sum = 0;
    for (auto _ : state) {
        sum = 0;
        for (const Vec2& p : f.points) {
            const Vec2 c{(p.x + kMercatorHalfWorld) / cell, (kMercatorHalfWorld - p.y) / cell};
            const float h = f.terrainGrid.groundHeight(c);
            sum += h == h ? h : 0.0;
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * kPoints);
}

void moveBench(benchmark::State& state, const CollisionGrid& grid) {
    Fixture& f = fixture();
    CharacterMover mover(grid);
    std::size_t blocked = 0;
    for (auto _ : state) {
        blocked = 0;
        for (const Vec2& start : f.moveStarts) blocked += mover.move(start, kMove, Footprint::disk(0.4), 1).blocked();
        benchmark::DoNotOptimize(blocked);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(f.moveStarts.size()));
    state.counters["blocked%"] = 100.0 * blocked / static_cast<double>(f.moveStarts.size());
}
void BM_Move_Flat(benchmark::State& state) { moveBench(state, fixture().grid); }
void BM_Move_Terrain(benchmark::State& state) { moveBench(state, fixture().terrainGrid); }

}  // namespace

BENCHMARK(BM_GroundHeight)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_Move_Flat)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_Move_Terrain)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_PointProbe_Terrabit)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_PointProbe_GeosStrtreePrepared)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_RectProbe_Terrabit)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_RectProbe_GeosStrtreePrepared)->Unit(benchmark::kMillisecond)->MinTime(0.5);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    fixture();
    // Collects per-query times for the ratio lines.
    class Reporter : public benchmark::ConsoleReporter {
    public:
        void ReportRuns(const std::vector<Run>& runs) override {
            ConsoleReporter::ReportRuns(runs);
            for (const Run& r : runs) {
                const double ns = 1e9 / r.counters.at("items_per_second");
                const std::string n = r.benchmark_name();
                if (n.find("PointProbe_Terrabit") != std::string::npos) gPointNsTerrabit = ns;
                if (n.find("PointProbe_Geos") != std::string::npos) gPointNsGeos = ns;
                if (n.find("RectProbe_Terrabit") != std::string::npos) gRectNsTerrabit = ns;
                if (n.find("RectProbe_Geos") != std::string::npos) gRectNsGeos = ns;
                if (n.find("GroundHeight") != std::string::npos) gGroundNs = ns;
                if (n.find("Move_Flat") != std::string::npos) gMoveNsFlat = ns;
                if (n.find("Move_Terrain") != std::string::npos) gMoveNsTerrain = ns;
            }
        }
    } reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    if (gPointNsTerrabit > 0 && gPointNsGeos > 0)
        std::printf("points: Terrabit %.2f ns/query, GEOS %.1f ns/query, ratio %.0fx\n", gPointNsTerrabit, gPointNsGeos,
                    gPointNsGeos / gPointNsTerrabit);
    if (gRectNsTerrabit > 0 && gRectNsGeos > 0)
        std::printf("4 m rectangles: Terrabit %.1f ns/query, GEOS %.1f ns/query, ratio %.0fx\n", gRectNsTerrabit,
                    gRectNsGeos, gRectNsGeos / gRectNsTerrabit);
    if (gGroundNs > 0) std::printf("ground height: %.2f ns/query (bilinear, 1 M random points)\n", gGroundNs);
    if (gMoveNsFlat > 0 && gMoveNsTerrain > 0)
        std::printf("moves of 7.2 cells, 0.4-cell disk: %.0f ns/move flat, %.0f ns/move over terrain (%.2fx)\n",
                    gMoveNsFlat, gMoveNsTerrain, gMoveNsTerrain / gMoveNsFlat);
    return 0;
}
