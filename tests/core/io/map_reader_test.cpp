// Every vector format the map reader promises, written here through OGR itself, read back and
// compared with what was written and with OGR's own SQL counts.

#include <gtest/gtest.h>
#include <ogr_spatialref.h>

#include <memory>
#include <regex>
#include <set>

#include "io_test_support.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/tile/tile_id.h"

using namespace terrabit::core;
namespace io = terrabit::core::io;

namespace {

const char* kTower =
    "POLYGON ((7.420 43.730,7.421 43.730,7.421 43.731,7.420 43.731,7.420 43.730),"
    "(7.4203 43.7303,7.4207 43.7303,7.4207 43.7307,7.4203 43.7307,7.4203 43.7303))";

test::OgrLayer buildingsLayer() {
    return {"buildings",
            4326,
            {{kTower, {{"building", "yes"}, {"height", "21"}, {"name", "Tower"}}},
             {"POLYGON ((7.422 43.730,7.4225 43.730,7.4225 43.7305,7.422 43.730))", {{"building", "house"}}},
             {"MULTIPOLYGON (((7.423 43.730,7.4235 43.730,7.4235 43.7305,7.423 43.730)),"
              "((7.424 43.730,7.4245 43.730,7.4245 43.7305,7.424 43.730)))",
              {{"building", "garage"}}},
             {"POLYGON ((7.425 43.730,7.428 43.730,7.428 43.733,7.425 43.730))", {{"leisure", "park"}}}}};
}

/// Monaco in UTM zone 32N, to test reprojection from a projected system.
test::OgrLayer roadsLayerUtm() {
    return {"roads",
            32632,
            {{"LINESTRING (373100 4843200,373400 4843300,373700 4843250)", {{"highway", "primary"}, {"width", "7"}}},
             {"LINESTRING (373100 4843000,373500 4843000)", {{"highway", "footway"}}}}};
}

const Feature* byTag(const MapData& map, const std::string& key, const std::string& value) {
    for (const Feature& f : map.features) {
        if (f.tag(key) == value) return &f;
    }
    return nullptr;
}

/// The checks every format must pass for the buildings layer.
void checkBuildings(const std::filesystem::path& file, const std::string& driver) {
    SCOPED_TRACE(driver);
    auto map = io::readMap(file);
    ASSERT_TRUE(map.ok()) << map.message();
    EXPECT_EQ(map->format, driver);
    // Counts match OGR's own SQL count.
    ASSERT_FALSE(map->layers.empty());
    const std::string layer = map->layers.front().name;
    EXPECT_EQ(static_cast<long long>(map->layers.front().featuresRead),
              test::sqlCount(file, "SELECT COUNT(*) FROM \"" + layer + "\""));
    EXPECT_EQ(map->features.size(), 4u);

    const Feature* tower = byTag(*map, "name", "Tower");
    ASSERT_NE(tower, nullptr);
    EXPECT_EQ(tower->kind, FeatureKind::Area);
    EXPECT_EQ(tower->partCount(), 2u);  // the hole is kept
    EXPECT_EQ(tower->tag("height"), "21");
    EXPECT_TRUE(std::regex_match(tower->id, std::regex(layer + ":[0-9]+"))) << tower->id;
    // Reprojected to EPSG:3857 with longitude first: the closed-form formula agrees.
    const Vec2 expected = lonLatToMercator({7.420, 43.730});
    EXPECT_NEAR(tower->points[0].x, expected.x, 1e-6);
    EXPECT_NEAR(tower->points[0].y, expected.y, 1e-6);

    const Feature* garage = byTag(*map, "building", "garage");
    ASSERT_NE(garage, nullptr);
    EXPECT_EQ(garage->partCount(), 2u);  // a multipolygon stays one feature

    std::set<std::string> ids;
    for (const Feature& f : map->features) ids.insert(f.id);
    EXPECT_EQ(ids.size(), map->features.size());

    const ClassifiedMap classified = classify(*map, test::defaultRuleSet());
    const RuleSet rules = test::defaultRuleSet();
    EXPECT_EQ(classified.featureCounts[static_cast<std::size_t>(rules.layerId("building"))], 3u);
    EXPECT_EQ(classified.featureCounts[static_cast<std::size_t>(rules.layerId("park"))], 1u);
}

}  // namespace

TEST(MapReader, ReadsGeoJson) {
    const auto dir = test::scratchDir("geojson");
    std::string error;
    ASSERT_TRUE(test::writeOgr(dir / "buildings.geojson", "GeoJSON", {buildingsLayer()}, error)) << error;
    checkBuildings(dir / "buildings.geojson", "GeoJSON");
}

TEST(MapReader, ReadsShapefile) {
    const auto dir = test::scratchDir("shapefile");
    std::string error;
    ASSERT_TRUE(test::writeOgr(dir / "shp", "ESRI Shapefile", {buildingsLayer()}, error)) << error;
    checkBuildings(dir / "shp" / "buildings.shp", "ESRI Shapefile");
}

TEST(MapReader, ReadsFlatGeobuf) {
    const auto dir = test::scratchDir("flatgeobuf");
    std::string error;
    ASSERT_TRUE(test::writeOgr(dir / "buildings.fgb", "FlatGeobuf", {buildingsLayer()}, error)) << error;
    checkBuildings(dir / "buildings.fgb", "FlatGeobuf");
}

TEST(MapReader, ReadsGeoPackageWithLayersInDifferentCoordinateSystems) {
    const auto dir = test::scratchDir("gpkg");
    std::string error;
    const auto file = dir / "map.gpkg";
    ASSERT_TRUE(test::writeOgr(file, "GPKG", {buildingsLayer(), roadsLayerUtm()}, error)) << error;
    auto map = io::readMap(file);
    ASSERT_TRUE(map.ok()) << map.message();
    EXPECT_EQ(map->format, "GPKG");
    ASSERT_EQ(map->layers.size(), 2u);
    for (const SourceLayerInfo& l : map->layers) {
        EXPECT_EQ(static_cast<long long>(l.featuresRead), test::sqlCount(file, "SELECT COUNT(*) FROM " + l.name))
            << l.name;
    }
    // The UTM road lands where OGR itself puts it in longitude/latitude.
    const Feature* primary = byTag(*map, "highway", "primary");
    ASSERT_NE(primary, nullptr);
    EXPECT_EQ(primary->kind, FeatureKind::Line);
    EXPECT_TRUE(primary->id.rfind("roads:", 0) == 0) << primary->id;
    OGRSpatialReference utm, wgs;
    utm.importFromEPSG(32632);
    wgs.importFromEPSG(4326);
    wgs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    std::unique_ptr<OGRCoordinateTransformation> ct(OGRCreateCoordinateTransformation(&utm, &wgs));
    double x = 373100, y = 4843200;
    ASSERT_TRUE(ct->Transform(1, &x, &y));
    EXPECT_NEAR(x, 7.42, 0.02);  // sanity: it is Monaco
    const Vec2 expected = lonLatToMercator({x, y});
    EXPECT_NEAR(primary->points[0].x, expected.x, 1e-3);
    EXPECT_NEAR(primary->points[0].y, expected.y, 1e-3);

    const RuleSet rules = test::defaultRuleSet();
    const ClassifiedMap classified = classify(*map, rules);
    const auto road = static_cast<std::uint16_t>(rules.layerId("road"));
    std::vector<float> widths;
    for (const LayerEntry& e : classified.entries) {
        if (e.layer == road) widths.push_back(e.sizeMetres);
    }
    EXPECT_EQ(widths, (std::vector<float>{7.0f, 2.0f}));  // the width tag, then the footway class
}

TEST(MapReader, ProgressReachesTheEndAndCancelStops) {
    std::vector<double> seen;
    io::ReadOptions options;
    options.progress = [&seen](double f, std::string_view stage) {
        EXPECT_EQ(stage, "reading");
        seen.push_back(f);
        return true;
    };
    ASSERT_TRUE(io::readMap(test::monacoPbf(), options).ok());
    ASSERT_GE(seen.size(), 2u);
    EXPECT_EQ(seen.back(), 1.0);

    options.progress = [](double, std::string_view) { return false; };
    auto cancelled = io::readMap(test::monacoPbf(), options);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_NE(cancelled.message().find("cancelled"), std::string::npos);
}
