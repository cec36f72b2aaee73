// Collision probes on the real Monaco sample against the original footprints: a point probe's
// answer must equal OGR/GEOS point-in-polygon for every point farther than one cell from a
// footprint's edge, and the probe command must answer through the whole pipeline.

#include <gdal_priv.h>
#include <geos_c.h>
#include <gtest/gtest.h>
#include <ogrsf_frmts.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <memory>
#include <random>
#include <sstream>

#include "support/test_dems.h"
#include "terrabit/cli/compose_command.h"
#include "terrabit/cli/map_commands.h"
#include "terrabit/cli/probe_command.h"
#include "terrabit/core/collision/collision_query.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/tile/ground_frame.h"

using namespace terrabit::core;

namespace {

const std::string kMonacoPbf = std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf";
const std::string kRules = std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml";

/// A GEOS context for the whole test program. Prepared predicates are the oracle: unlike plain
/// GEOSContains (and OGR's Contains, which turns GEOS's exception code into "true"), they answer
/// for the few real footprints that GEOS finds invalid (self-touching rings).
GEOSContextHandle_t geos() {
    static GEOSContextHandle_t ctx = GEOS_init_r();
    return ctx;
}

struct Footprint {
    std::unique_ptr<OGRGeometry> geometry;  // EPSG:3857
    GEOSGeometry* geosGeometry = nullptr;
    const GEOSPreparedGeometry* prepared = nullptr;
    OGREnvelope envelope;
    std::vector<std::pair<Vec2, Vec2>> edges;
};

/// The buildings of the sample as the default rules take them (building=*, not building=no), read
/// straight through OGR and transformed to EPSG:3857.
std::vector<Footprint> readFootprints() {
    GDALAllRegister();
    std::unique_ptr<GDALDataset> ds(
        GDALDataset::Open(kMonacoPbf.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr));
    EXPECT_TRUE(ds);
    OGRSpatialReference wgs84, mercator;
    wgs84.importFromEPSG(4326);
    mercator.importFromEPSG(3857);
    wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    mercator.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    std::unique_ptr<OGRCoordinateTransformation> ct(OGRCreateCoordinateTransformation(&wgs84, &mercator));
    std::vector<Footprint> out;
    OGRLayer* layer = ds->GetLayerByName("multipolygons");
    for (auto& f : *layer) {
        const int field = f->GetFieldIndex("building");
        if (!f->IsFieldSetAndNotNull(field) || std::string(f->GetFieldAsString(field)) == "no") continue;
        OGRGeometry* g = f->GetGeometryRef();
        if (!g || g->IsEmpty() || g->transform(ct.get()) != OGRERR_NONE) continue;
        Footprint fp;
        fp.geometry.reset(g->clone());
        fp.geometry->getEnvelope(&fp.envelope);
        fp.geosGeometry = fp.geometry->exportToGEOS(geos());
        if (!fp.geosGeometry) continue;
        fp.prepared = GEOSPrepare_r(geos(), fp.geosGeometry);
        auto addPolygon = [&](const OGRPolygon* p) {
            for (int r = 0; r <= p->getNumInteriorRings(); ++r) {
                const OGRLinearRing* ring = r == 0 ? p->getExteriorRing() : p->getInteriorRing(r - 1);
                for (int i = 0; i + 1 < ring->getNumPoints(); ++i)
                    fp.edges.push_back({{ring->getX(i), ring->getY(i)}, {ring->getX(i + 1), ring->getY(i + 1)}});
            }
        };
        if (auto* mp = dynamic_cast<const OGRMultiPolygon*>(fp.geometry.get())) {
            for (const OGRPolygon* p : *mp) addPolygon(p);
        } else if (auto* p = dynamic_cast<const OGRPolygon*>(fp.geometry.get())) {
            addPolygon(p);
        }
        out.push_back(std::move(fp));
    }
    return out;
}

double segmentDistance(Vec2 p, Vec2 a, Vec2 b) {
    const Vec2 ab = b - a;
    const double len2 = dot(ab, ab);
    const double t = len2 > 0 ? std::clamp(dot(p - a, ab) / len2, 0.0, 1.0) : 0.0;
    return length(p - (a + ab * t));
}

}  // namespace

TEST(MonacoProbe, PointProbesAgreeWithPointInPolygonAwayFromEdges) {
    io::MapInput input{kMonacoPbf, kRules, {}};
    io::TileSelection selection;
    selection.zoom = 17;
    auto layers = io::buildMapLayers(input, selection, 0, {});
    ASSERT_TRUE(layers.ok()) << layers.message();
    const std::array<std::string, 1> building{"building"};
    auto grid = CollisionGrid::build((*layers)->store, (*layers)->store.tiles(), building);
    ASSERT_TRUE(grid.ok()) << grid.message();
    CollisionQuery query(*grid);
    const std::vector<Footprint> footprints = readFootprints();
    ASSERT_GT(footprints.size(), 1000u);

    const GroundFrame frame{{7.42, 43.73}, 17};
    const double cell = frame.cellSizeMercator();
    // Points over the buildings' extent.
    OGREnvelope all;
    for (const Footprint& f : footprints) all.Merge(f.envelope);
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> ux(all.MinX, all.MaxX), uy(all.MinY, all.MaxY);
    int compared = 0, inside = 0;
    for (int i = 0; i < 40000; ++i) {
        const Vec2 p{ux(rng), uy(rng)};
        bool nearEdge = false, in = false;
        for (const Footprint& f : footprints) {
            if (p.x < f.envelope.MinX - cell || p.x > f.envelope.MaxX + cell || p.y < f.envelope.MinY - cell ||
                p.y > f.envelope.MaxY + cell)
                continue;
            for (const auto& [a, b] : f.edges) {
                if (segmentDistance(p, a, b) <= cell) {
                    nearEdge = true;
                    break;
                }
            }
            if (nearEdge) break;
            GEOSGeometry* pt = GEOSGeom_createPointFromXY_r(geos(), p.x, p.y);
            const char contains = GEOSPreparedContains_r(geos(), f.prepared, pt);
            GEOSGeom_destroy_r(geos(), pt);
            ASSERT_NE(contains, 2) << "GEOS failed on a footprint";
            if (contains == 1) in = true;
        }
        if (nearEdge) continue;
        ++compared;
        inside += in;
        ASSERT_EQ(query.pointHits(frame.mercatorToCell(p), 0), in)
            << "point " << p.x << ", " << p.y << " (EPSG:3857): OGR says " << (in ? "inside" : "outside");
    }
    EXPECT_GT(compared, 30000);
    EXPECT_GT(inside, 2000);  // both answers are exercised
}

TEST(MonacoProbe, ProbeCommandAnswersPerLineAndReportsBadLines) {
    terrabit::cli::ProbeCommand c;
    c.input = {kMonacoPbf, kRules, {}};
    c.selection.zoom = 17;
    // The Prince's Palace and the sea off Monte-Carlo (inside the extract's extent).
    std::istringstream in(
        "# probes\n"
        "point 7.42042 43.73123\n"
        "point 7.4400 43.7350\n"
        "rect 7.4246 43.7311 4 4 extra\n"
        "disk 7.4400 43.7350 3\n");
    std::ostringstream out, err;
    const int code = terrabit::cli::runProbe(c, in, out, err);
    EXPECT_EQ(code, terrabit::cli::kExitBadArguments);  // one bad line
    std::istringstream lines(out.str());
    std::string l1, l2, l3, l4;
    std::getline(lines, l1);
    std::getline(lines, l2);
    std::getline(lines, l3);
    std::getline(lines, l4);
    EXPECT_NE(l1.find("building"), std::string::npos) << l1;
    EXPECT_EQ(l2, "water");
    EXPECT_EQ(l3, "error");
    EXPECT_EQ(l4, "water");
    EXPECT_NE(err.str().find("stdin line 4: rect needs 4 numbers, got 5"), std::string::npos) << err.str();
}

TEST(MonacoProbe, ProbeCommandWithAnExpression) {
    terrabit::cli::ProbeCommand c;
    c.input = {kMonacoPbf, kRules, {}};
    c.selection.zoom = 17;
    c.expression = "building | water";
    std::istringstream in("point 7.42042 43.73123\npoint 7.4400 43.7350\n");
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runProbe(c, in, out, err), terrabit::cli::kExitOk) << err.str();
    EXPECT_EQ(out.str().substr(0, 4), "hit ");
    c.expression = "building - water - building";  // nothing
    std::istringstream in2("point 7.42042 43.73123\n");
    std::ostringstream out2;
    ASSERT_EQ(terrabit::cli::runProbe(c, in2, out2, err), terrabit::cli::kExitOk);
    EXPECT_EQ(out2.str().substr(0, 5), "clear");
    c.expression = "building | watr";
    std::istringstream in3("point 7.42042 43.73123\n");
    std::ostringstream out3, err3;
    EXPECT_EQ(terrabit::cli::runProbe(c, in3, out3, err3), terrabit::cli::kExitBadArguments);
    EXPECT_NE(err3.str().find("did you mean 'water'"), std::string::npos) << err3.str();
    EXPECT_NE(err3.str().find('^'), std::string::npos);
}

namespace {

/// A tilted plane over Monaco in EPSG:4326, written with GDAL: h = 100 + 2000 (lon − 7.40) +
/// 3000 (lat − 43.72) metres, 0.0005° pixels, as a user's GeoTIFF DEM would be.
double monacoPlane(double lon, double lat) { return 100.0 + 2000.0 * (lon - 7.40) + 3000.0 * (lat - 43.72); }

std::filesystem::path writePlaneDem(const std::filesystem::path& file) {
    constexpr int kSize = 120;
    constexpr double kWest = 7.40, kNorth = 43.76, kStep = 0.0005;
    GDALDriver* driver = GetGDALDriverManager()->GetDriverByName("GTiff");
    GDALDataset* ds = driver->Create(file.string().c_str(), kSize, kSize, 1, GDT_Float32, nullptr);
    double transform[6] = {kWest, kStep, 0.0, kNorth, 0.0, -kStep};
    ds->SetGeoTransform(transform);
    OGRSpatialReference wgs84;
    wgs84.importFromEPSG(4326);
    ds->SetSpatialRef(&wgs84);
    std::vector<float> rows(static_cast<std::size_t>(kSize) * kSize);
    for (int r = 0; r < kSize; ++r) {
        for (int c = 0; c < kSize; ++c) {
            // Pixel centres carry the plane's value there.
            rows[static_cast<std::size_t>(r) * kSize + c] =
                static_cast<float>(monacoPlane(kWest + (c + 0.5) * kStep, kNorth - (r + 0.5) * kStep));
        }
    }
    EXPECT_EQ(ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, kSize, kSize, rows.data(), kSize, kSize, GDT_Float32, 0, 0,
                                             nullptr),
              CE_None);
    GDALClose(GDALDataset::ToHandle(ds));
    return file;
}

}  // namespace

TEST(MonacoProbe, ProbeCommandWithADemPrintsTheGroundHeight) {
    terrabit::core::io::initGdal();
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "terrabit-probe-dem";
    std::filesystem::create_directories(dir);
    terrabit::cli::ProbeCommand c;
    c.input = {kMonacoPbf, kRules, {}};
    c.selection.zoom = 17;
    c.dems = {writePlaneDem(dir / "plane.tif")};
    // Two points on the plane, one south of the DEM (which ends at 43.70°N), and a rect whose
    // first position is on the plane.
    const std::vector<std::pair<double, double>> onPlane{{7.42042, 43.73123}, {7.4400, 43.7350}};
    std::istringstream in(
        "point 7.42042 43.73123\npoint 7.4400 43.7350\npoint 7.4300 43.6900\n"
        "rect 7.4246 43.7311 4 4\n");
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runProbe(c, in, out, err), terrabit::cli::kExitOk) << err.str();
    std::istringstream lines(out.str());
    std::vector<std::string> got;
    for (std::string l; std::getline(lines, l);) got.push_back(l);
    ASSERT_EQ(got.size(), 4u) << out.str();
    for (std::size_t i = 0; i < onPlane.size(); ++i) {
        const std::size_t at = got[i].find(" ground ");
        ASSERT_NE(at, std::string::npos) << got[i];
        const double h = std::stod(got[i].substr(at + 8));
        // Bilinear on a plane is the plane; the cell corners are reprojected exactly; printed to 0.1 m.
        EXPECT_NEAR(h, monacoPlane(onPlane[i].first, onPlane[i].second), 0.06) << got[i];
        EXPECT_EQ(got[i].substr(got[i].size() - 2), " m") << got[i];
    }
    EXPECT_EQ(got[1].substr(0, 5), "water") << "the layers still come first";
    EXPECT_NE(got[2].find(" ground none"), std::string::npos) << "south of the DEM: " << got[2];
    EXPECT_NE(got[3].find(" ground "), std::string::npos) << got[3];

    // A DEM that is not one is left out, named with its problem; the probe answers on flat ground.
    std::ofstream(dir / "notes.txt") << "not a raster\n";
    c.dems = {dir / "notes.txt"};
    std::istringstream in2("point 7.42042 43.73123\n");
    std::ostringstream out2, err2;
    EXPECT_EQ(terrabit::cli::runProbe(c, in2, out2, err2), terrabit::cli::kExitOk) << err2.str();
    EXPECT_NE(err2.str().find("warning: " + (dir / "notes.txt").string() + ": not a raster"), std::string::npos)
        << err2.str();
    EXPECT_NE(err2.str().find("no usable DEM is left; the ground is flat"), std::string::npos) << err2.str();
    const std::string answer = out2.str();
    EXPECT_EQ(std::count(answer.begin(), answer.end(), '\n'), 1) << answer;
    EXPECT_EQ(answer.find(" ground "), std::string::npos) << answer;
    std::filesystem::remove_all(dir);
}

TEST(MonacoDem, RasterizeWithADemWritesEachTilesHeightsAtItsCellCorners) {
    terrabit::core::io::initGdal();
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "terrabit-rasterize-dem";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    terrabit::cli::RasterizeCommand c;
    c.input = {kMonacoPbf, kRules, {}};
    c.selection.zoom = 16;
    c.outDir = dir / "out";
    c.dems = {writePlaneDem(dir / "plane.tif")};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runRasterize(c, out, err), terrabit::cli::kExitOk) << err.str();
    EXPECT_NE(out.str().find("height grids"), std::string::npos) << out.str();

    std::ifstream summaryIn(c.outDir / "summary.json");
    const nlohmann::json summary = nlohmann::json::parse(summaryIn);
    ASSERT_FALSE(summary["tiles"].empty());
    std::size_t checked = 0;
    for (const auto& t : summary["tiles"]) {
        const TileId tile{16, t["x"].get<std::uint32_t>(), t["y"].get<std::uint32_t>()};
        ASSERT_TRUE(t.contains("height")) << t["quadkey"];
        const std::string file = t["height"]["file"];
        GDALDataset* ds = GDALDataset::Open((c.outDir / file).string().c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY);
        ASSERT_NE(ds, nullptr) << file;
        EXPECT_EQ(ds->GetRasterXSize(), 257);
        EXPECT_EQ(ds->GetRasterYSize(), 257);
        double gt[6];
        ASSERT_EQ(ds->GetGeoTransform(gt), CE_None);
        const Box2 b = tile.boundsMercator();
        const double cell = tile.cellSizeMercator();
        // Pixel centres on the cell corners: the first centre is the tile's north-west corner.
        EXPECT_NEAR(gt[0] + gt[1] / 2, b.min.x, 1e-6);
        EXPECT_NEAR(gt[3] + gt[5] / 2, b.max.y, 1e-6);
        EXPECT_NEAR(gt[1], cell, 1e-9);
        std::vector<float> h(257 * 257);
        ASSERT_EQ(
            ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, 257, 257, h.data(), 257, 257, GDT_Float32, 0, 0, nullptr),
            CE_None);
        int hasNodata = 0;
        EXPECT_TRUE(std::isnan(ds->GetRasterBand(1)->GetNoDataValue(&hasNodata)));
        EXPECT_TRUE(hasNodata);
        GDALClose(GDALDataset::ToHandle(ds));
        float lo = 1e9f, hi = -1e9f;
        for (int r = 0; r <= 256; r += 32) {
            for (int col = 0; col <= 256; col += 32) {
                const LonLat ll = mercatorToLonLat({b.min.x + col * cell, b.max.y - r * cell});
                const float v = h[static_cast<std::size_t>(r) * 257 + col];
                // The DEM covers 7.40..7.46 E, 43.70..43.76 N (less half a pixel at its edge).
                if (ll.lon < 7.4003 || ll.lon > 7.4597 || ll.lat < 43.7003 || ll.lat > 43.7597) continue;
                ASSERT_FALSE(std::isnan(v)) << file << " " << r << "," << col;
                EXPECT_NEAR(v, monacoPlane(ll.lon, ll.lat), 0.01) << file << " " << r << "," << col;
                ++checked;
            }
        }
        for (float v : h) {
            if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        }
        if (lo <= hi) {
            EXPECT_FLOAT_EQ(t["height"]["min_m"].get<float>(), lo) << file;
            EXPECT_FLOAT_EQ(t["height"]["max_m"].get<float>(), hi) << file;
        }
    }
    EXPECT_GT(checked, 50u) << "the DEM covers Monaco's tiles";
    std::filesystem::remove_all(dir);
}

namespace {

/// A DEM 1 km across at Monaco's centre (test_dems.h), h = 50 + x/100 m over EPSG:3857 x: it
/// reaches only part of the map, so every command that reads it has tiles it does not reach.
std::filesystem::path writeSmallDem(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    const double x0 = lonLatToMercator(test::kMonacoCentre).x;
    return test::writeMercatorDem(
        dir / "small.tif", [x0](Vec2 p) { return 50.0 + (p.x - x0) / 100.0; }, 10.0, 500.0);
}

/// The terrain warning of a Session whose DEMs do not reach every tile (pipeline/session.h).
constexpr const char* kNoDemWarning = "cell corners no DEM reaches";

}  // namespace

TEST(MonacoDem, InfoDescribesEachDemOverTheMap) {
    terrabit::core::io::initGdal();
    const auto dir = std::filesystem::path(::testing::TempDir()) / "terrabit-info-dem";
    terrabit::cli::InfoCommand c;
    c.input = {kMonacoPbf, kRules, {}};
    c.dems = {writeSmallDem(dir)};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runInfo(c, out, err), terrabit::cli::kExitOk) << err.str();
    const std::string text = out.str();
    const std::size_t dems = text.find("dems:\n  " + c.dems[0].string() + ": ");
    ASSERT_NE(dems, std::string::npos) << text;
    EXPECT_NE(text.find("UTM zone 32N", dems), std::string::npos) << text;
    EXPECT_NE(text.find("100 × 100 pixels of 10.0", dems), std::string::npos) << text;
    // 1 km of a 3 km map: ±500 m on the ground are ±690 m of EPSG:3857 x at 43.7°N, so ±6.9 m
    // about the centre's 50 m.
    const std::size_t over = text.find("over the map: heights ", dems);
    ASSERT_NE(over, std::string::npos) << text;
    std::istringstream numbers(text.substr(over + 22));
    double lo = 0, hi = 0;
    std::string dots;
    numbers >> lo >> dots >> hi;
    EXPECT_NEAR(lo, 43.1, 0.3) << text;
    EXPECT_NEAR(hi, 56.9, 0.3) << text;
    EXPECT_NE(text.find("% of it, within 7.41", over), std::string::npos) << text;
    EXPECT_LT(dems, text.find("warnings: ")) << "the map's warnings stay last";

    // Without DEMs, not a word about them; a DEM that is not one is named, before the map is read.
    c.dems.clear();
    std::ostringstream plain, plainErr;
    ASSERT_EQ(terrabit::cli::runInfo(c, plain, plainErr), terrabit::cli::kExitOk);
    EXPECT_EQ(plain.str().find("dems:"), std::string::npos);
    std::ofstream(dir / "notes.txt") << "not a raster\n";
    c.dems = {dir / "notes.txt"};
    std::ostringstream badOut, badErr;
    EXPECT_EQ(terrabit::cli::runInfo(c, badOut, badErr), terrabit::cli::kExitNothingUsable);
    EXPECT_NE(badErr.str().find((dir / "notes.txt").string()), std::string::npos) << badErr.str();
    EXPECT_TRUE(badOut.str().empty());
    std::filesystem::remove_all(dir);
}

TEST(MonacoDem, TilesAcceptsADemAndSaysWhereItDoesNotReach) {
    terrabit::core::io::initGdal();
    const auto dir = std::filesystem::path(::testing::TempDir()) / "terrabit-tiles-dem";
    terrabit::cli::TilesCommand c;
    c.input = {kMonacoPbf, kRules, {}};
    c.selection.zoom = 15;
    std::ostringstream flat, flatErr;
    ASSERT_EQ(terrabit::cli::runTiles(c, flat, flatErr), terrabit::cli::kExitOk) << flatErr.str();
    c.dems = {writeSmallDem(dir)};
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runTiles(c, out, err), terrabit::cli::kExitOk) << err.str();
    EXPECT_EQ(out.str(), flat.str()) << "the DEM changes no tile";
    EXPECT_NE(err.str().find(kNoDemWarning), std::string::npos) << err.str();
    EXPECT_EQ(flatErr.str().find(kNoDemWarning), std::string::npos) << flatErr.str();
    std::filesystem::remove_all(dir);
}

TEST(MonacoDem, ProbeAndComposeSayWhereTheDemDoesNotReach) {
    terrabit::core::io::initGdal();
    const auto dir = std::filesystem::path(::testing::TempDir()) / "terrabit-probe-warnings";
    const std::filesystem::path dem = writeSmallDem(dir);
    terrabit::cli::ProbeCommand probe;
    probe.input = {kMonacoPbf, kRules, {}};
    probe.selection.zoom = 16;
    probe.dems = {dem};
    std::istringstream in("point 7.4400 43.7350\n");  // 1.5 km east of the DEM
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runProbe(probe, in, out, err), terrabit::cli::kExitOk) << err.str();
    EXPECT_NE(out.str().find(" ground none"), std::string::npos) << out.str();
    EXPECT_NE(err.str().find("warning: terrain: "), std::string::npos) << "ground none, explained: " << err.str();
    EXPECT_NE(err.str().find(kNoDemWarning), std::string::npos) << err.str();

    terrabit::cli::ComposeCommand compose;
    compose.input = {kMonacoPbf, kRules, {}};
    compose.selection.zoom = 16;
    compose.expression = "height(>50m)";
    compose.outDir = dir / "composed";
    compose.dems = {dem};
    std::ostringstream cout_, cerr_;
    ASSERT_EQ(terrabit::cli::runComposeCommand(compose, cout_, cerr_), terrabit::cli::kExitOk) << cerr_.str();
    EXPECT_NE(cerr_.str().find(kNoDemWarning), std::string::npos) << cerr_.str();
    std::filesystem::remove_all(dir);
}
