// Real OpenStreetMap and vector-tile samples: feature counts per layer against OGR's own SQL,
// the sea of Monaco, the Danube at Krems, and the building layer against GDAL's rasterizer.

#include <gdal_alg.h>
#include <gdal_priv.h>
#include <gtest/gtest.h>
#include <ogr_geometry.h>

#include <algorithm>
#include <map>
#include <memory>
#include <regex>
#include <set>

#include "io_test_support.h"
#include "terrabit/cli/map_commands.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/tiling/rasterize_tiles.h"
#include "terrabit/core/tiling/tile_index.h"

using namespace terrabit::core;
namespace io = terrabit::core::io;

namespace {

std::size_t countOf(const ClassifiedMap& c, const RuleSet& rules, const char* layer) {
    return c.featureCounts[static_cast<std::size_t>(rules.layerId(layer))];
}

/// The default rules' conditions written as OGR SQL over GDAL's OSM layers, class priority
/// included (a feature goes to the first class it matches). Each OSM layer is counted in one
/// query (SUM of CASE per condition), so the file is parsed once per layer.
struct OsmCounts {
    long long building = 0, trees = 0, road = 0, water = 0, withHeight = 0;
    std::map<std::string, long long> classes;
};

std::string tag(const std::string& key) { return "hstore_get_value(other_tags,'" + key + "')"; }
std::string sumOf(const std::string& cond) { return "SUM(CASE WHEN " + cond + " THEN 1 ELSE 0 END)"; }

OsmCounts osmCounts(const std::filesystem::path& file) {
    const std::string notTunnel = "COALESCE(" + tag("tunnel") + ",'') NOT IN ('yes','true','1')";
    const std::string roadExcluded =
        "('proposed','construction','abandoned','disused','platform','bus_stop','elevator','corridor','raceway')";
    const std::string waterways = "('river','canal','stream','brook','ditch','drain')";
    const std::string noCulvert = "COALESCE(" + tag("tunnel") + ",'') NOT IN ('yes','culvert')";
    const std::string height = "(" + tag("height") + " IS NOT NULL OR " + tag("building:levels") + " IS NOT NULL)";
    const std::vector<std::pair<std::string, std::string>> classes{
        {"forest", "landuse='forest'"},
        {"wood", "\"natural\"='wood'"},
        {"park", "leisure='park'"},
        {"grass", "(landuse IN ('grass','meadow','village_green','recreation_ground') OR \"natural\"='grassland')"},
        {"scrub", "\"natural\" IN ('scrub','heath')"},
        {"garden", "leisure='garden'"}};

    std::string polygons = "SELECT " + sumOf("building IS NOT NULL AND building <> 'no'");
    std::string before = "0";
    for (const auto& [name, cond] : classes) {
        polygons += ", " + sumOf("(" + cond + ") AND NOT COALESCE(" + before + ", 0)");
        before += " OR COALESCE(" + cond + ", 0)";
    }
    polygons += ", " + sumOf(tag("highway") + " IS NOT NULL AND " + tag("highway") + " NOT IN " + roadExcluded +
                             " AND " + notTunnel);
    polygons +=
        ", " + sumOf("\"natural\"='water' OR landuse IN ('reservoir','basin') OR " + tag("waterway") + "='riverbank'");
    polygons += ", " + sumOf(height) + " FROM multipolygons";
    const auto p = test::sqlRow(file, polygons);

    const auto l = test::sqlRow(
        file, "SELECT " + sumOf(tag("natural") + "='tree_row'") + ", " +
                  sumOf("highway IS NOT NULL AND highway NOT IN " + roadExcluded + " AND " + notTunnel) + ", " +
                  sumOf("waterway='riverbank' AND ST_IsClosed(geometry)") + ", " +
                  sumOf("waterway IN " + waterways + " AND " + noCulvert) + ", " + sumOf(height) + " FROM lines");
    const auto pt =
        test::sqlRow(file, "SELECT " + sumOf(tag("natural") + "='tree'") + ", " + sumOf(height) + " FROM points");
    const auto m = test::sqlRow(file, "SELECT " +
                                          sumOf(tag("highway") + " IS NOT NULL AND " + tag("highway") + " NOT IN " +
                                                roadExcluded + " AND " + notTunnel) +
                                          ", " + sumOf(tag("waterway") + " IN " + waterways + " AND " + noCulvert) +
                                          " FROM multilinestrings");
    OsmCounts c;
    EXPECT_EQ(p.size(), 10u);
    EXPECT_EQ(l.size(), 5u);
    EXPECT_EQ(pt.size(), 2u);
    EXPECT_EQ(m.size(), 2u);
    if (p.size() != 10 || l.size() != 5 || pt.size() != 2 || m.size() != 2) return c;
    c.building = p[0];
    for (std::size_t i = 0; i < classes.size(); ++i) c.classes[classes[i].first] = p[1 + i];
    c.trees = pt[0] + l[0];
    c.road = p[7] + l[1] + m[0];
    c.water = p[8] + l[2] + l[3] + m[1];
    c.withHeight = p[9] + l[4] + pt[1];
    return c;
}

/// Checks the building, vegetation, road and water counts of an OSM file against SQL.
void checkOsmCounts(const OsmCounts& sql, const MapData& map, const ClassifiedMap& c, const RuleSet& rules) {
    EXPECT_EQ(static_cast<long long>(countOf(c, rules, "building")), sql.building);
    for (const auto& [name, n] : sql.classes)
        EXPECT_EQ(static_cast<long long>(countOf(c, rules, name.c_str())), n) << name;
    EXPECT_EQ(static_cast<long long>(countOf(c, rules, "trees")), sql.trees);
    EXPECT_EQ(static_cast<long long>(countOf(c, rules, "road")), sql.road);
    const long long sea = c.derived.empty() ? 0 : 1;
    EXPECT_EQ(static_cast<long long>(countOf(c, rules, "water")), sql.water + sea);
    // Every feature keeps a stable OSM id, unique across the file, and its height tags.
    std::set<std::string> ids;
    const std::regex osmId("[nwr][0-9]+");
    std::size_t withHeight = 0;
    for (const Feature& f : map.features) {
        EXPECT_TRUE(std::regex_match(f.id, osmId)) << f.id;
        ids.insert(f.id);
        withHeight += f.tag("height") || f.tag("building:levels");
    }
    EXPECT_EQ(ids.size(), map.features.size());
    EXPECT_EQ(static_cast<long long>(withHeight), sql.withHeight);
}

/// A layer's bit at a longitude/latitude, from a layer store at its zoom.
bool bitAt(const LayerStore& store, int layer, LonLat ll, int zoom) {
    const Vec2 m = lonLatToMercator(ll);
    const TileId t = *tileAt(m, zoom);
    const BitTile* bits = store.tile(t, layer);
    if (!bits) return false;
    const Vec2 c = t.mercatorToCell(m);
    return bits->test(static_cast<int>(c.x), static_cast<int>(c.y));
}

std::unique_ptr<io::MapLayers> build(const std::filesystem::path& file, int zoom) {
    io::MapInput input;
    input.file = file;
    input.rules = test::defaultRules();
    io::TileSelection selection;
    selection.zoom = zoom;
    auto layers = io::buildMapLayers(input, selection, 0, {});
    EXPECT_TRUE(layers.ok()) << layers.message();
    return layers.ok() ? std::move(*layers) : nullptr;
}

}  // namespace

TEST(RealSamples, MonacoPbfCountsPerLayerMatchOgrSql) {
    const RuleSet rules = test::defaultRuleSet();
    auto map = io::readMap(test::monacoPbf());
    ASSERT_TRUE(map.ok()) << map.message();
    EXPECT_EQ(map->format, "OSM");
    const ClassifiedMap c = classify(*map, rules);
    const OsmCounts sql = osmCounts(test::monacoPbf());
    checkOsmCounts(sql, *map, c, rules);
    EXPECT_EQ(countOf(c, rules, "building"), 1214u);  // as the sample's README counts them
    EXPECT_GE(sql.withHeight, 458);                   // heights and levels are kept (checked above)

    // Building relations come whole: one feature with all its rings, holes included.
    int relationsWithHoles = 0;
    for (const LayerEntry& e : c.entries) {
        relationsWithHoles +=
            e.layer == rules.layerId("building") && e.feature->id[0] == 'r' && e.feature->partCount() > 1;
    }
    EXPECT_GT(relationsWithHoles, 0);
}

TEST(RealSamples, KremsOsmXmlCountsPerLayerMatchOgrSql) {
    const auto file = test::testData("krems-an-der-donau.osm");
    const RuleSet rules = test::defaultRuleSet();
    auto map = io::readMap(file);
    ASSERT_TRUE(map.ok()) << map.message();
    EXPECT_EQ(map->format, "OSM");
    const ClassifiedMap c = classify(*map, rules);
    checkOsmCounts(osmCounts(file), *map, c, rules);
    EXPECT_EQ(countOf(c, rules, "building"), 1195u);
    EXPECT_TRUE(c.derived.empty());  // inland: no coastline, no sea
    // The closed riverbank ways GDAL leaves among the lines are water areas.
    int riverbanks = 0;
    for (const LayerEntry& e : c.entries) {
        riverbanks += e.feature->tag("waterway") == "riverbank" && e.feature->kind == FeatureKind::Area &&
                      e.layer == rules.layerId("water");
    }
    EXPECT_EQ(riverbanks, 2);
}

TEST(RealSamples, DanubeAtKremsIsWater) {
    auto layers = build(test::testData("krems-an-der-donau.osm"), 17);
    ASSERT_TRUE(layers);
    const int water = layers->rules.layerId("water");
    // Walk the Danube's centre lines (waterway=river, name=Donau) inside the extract every few
    // metres: every sample's cell is water.
    int samples = 0, wet = 0;
    for (const Feature& f : layers->map.features) {
        if (f.tag("name") != "Donau" || f.tag("waterway") != "river") continue;
        for (std::size_t i = 0; i + 1 < f.points.size(); ++i) {
            for (double t = 0; t < 1.0; t += 0.05) {
                const Vec2 p = f.points[i] + (f.points[i + 1] - f.points[i]) * t;
                if (!layers->map.extent.contains(p)) continue;
                ++samples;
                wet += bitAt(layers->store, water, mercatorToLonLat(p), 17);
            }
        }
    }
    EXPECT_GT(samples, 100);
    EXPECT_EQ(wet, samples);
}

TEST(RealSamples, MonacoCoastalTilesHoldSeaAndLandIsNotFlooded) {
    auto layers = build(test::monacoPbf(), 17);
    ASSERT_TRUE(layers);
    const io::MapLayers& m = *layers;
    ASSERT_EQ(m.classified.derived.size(), 1u);
    const int water = m.rules.layerId("water");
    const int building = m.rules.layerId("building");

    // Every tile that a coastline way passes through holds sea.
    std::set<TileId> coastal;
    for (const Feature& f : m.map.features) {
        if (f.tag("natural") != "coastline") continue;
        for (const Vec2& p : f.points) {
            if (m.map.extent.contains(p)) coastal.insert(*tileAt(p, 17));
        }
    }
    ASSERT_GT(coastal.size(), 10u);
    for (const TileId& t : coastal) {
        const BitTile* bits = m.store.tile(t, water);
        EXPECT_TRUE(bits && bits->count() > 0) << "coastal tile " << t.quadkey() << " has no water";
        EXPECT_TRUE(!bits || bits->count() < BitTile::kSize * BitTile::kSize)
            << "coastal tile " << t.quadkey() << " is all water";
    }
    // Open sea and the harbour are water; the old town, the casino and the hills are not.
    EXPECT_TRUE(bitAt(m.store, water, {7.4400, 43.7330}, 17));   // off Larvotto
    EXPECT_TRUE(bitAt(m.store, water, {7.4300, 43.7250}, 17));   // open sea, south
    EXPECT_TRUE(bitAt(m.store, water, {7.4245, 43.7355}, 17));   // Port Hercule
    EXPECT_FALSE(bitAt(m.store, water, {7.4200, 43.7312}, 17));  // Prince's Palace
    EXPECT_FALSE(bitAt(m.store, water, {7.4275, 43.7395}, 17));  // Casino
    EXPECT_FALSE(bitAt(m.store, water, {7.4150, 43.7310}, 17));  // Jardin Exotique
    EXPECT_FALSE(bitAt(m.store, water, {7.4150, 43.7450}, 17));  // hills above, in France

    // Buildings stand on land: almost no building cell is also sea.
    long long buildingCells = 0, wetBuildingCells = 0;
    for (std::size_t s = 0; s < m.store.tiles().size(); ++s) {
        const BitTile* b = m.store.at(s, building);
        const BitTile* w = m.store.at(s, water);
        if (!b) continue;
        buildingCells += b->count();
        if (w) wetBuildingCells += (*b & *w).count();
    }
    EXPECT_GT(buildingCells, 500000);
    EXPECT_LT(wetBuildingCells, buildingCells / 100) << wetBuildingCells << " of " << buildingCells;
}

TEST(RealSamples, MonacoBuildingLayerMatchesGdalRasterize) {
    auto layers = build(test::monacoPbf(), 17);
    ASSERT_TRUE(layers);
    const io::MapLayers& m = *layers;
    const int building = m.rules.layerId("building");
    const auto layer = static_cast<std::uint16_t>(building);
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    long long ours = 0, differing = 0;
    int tiles = 0;
    for (std::size_t s = 0; s < m.store.tiles().size(); ++s) {
        const TileId t = m.store.tiles()[s];
        const BitTile* bits = m.store.at(s, building);
        if (!bits) continue;
        // GDAL's answer: the same features burnt into a 256 × 256 raster with the tile's
        // georeferencing (pixel-centre rule).
        test::DatasetPtr ds(mem->Create("", 256, 256, 1, GDT_Byte, nullptr));
        const Box2 b = t.boundsMercator();
        double gt[6] = {b.min.x, t.cellSizeMercator(), 0, b.max.y, 0, -t.cellSizeMercator()};
        ds->SetGeoTransform(gt);
        std::vector<std::unique_ptr<OGRGeometry>> owned;
        std::vector<OGRGeometryH> geoms;
        for (std::uint32_t e : m.index.entries(*m.index.slot(t))) {
            const LayerEntry& entry = m.classified.entries[e];
            if (entry.layer != layer) continue;
            auto poly = std::make_unique<OGRMultiPolygon>();
            auto piece = std::make_unique<OGRPolygon>();
            std::uint32_t begin = 0;
            for (std::uint32_t end : entry.feature->partEnds) {
                auto ring = std::make_unique<OGRLinearRing>();
                for (std::uint32_t i = begin; i < end; ++i)
                    ring->addPoint(entry.feature->points[i].x, entry.feature->points[i].y);
                ring->closeRings();
                piece->addRingDirectly(ring.release());
                begin = end;
            }
            poly->addGeometryDirectly(piece.release());
            geoms.push_back(OGRGeometry::ToHandle(poly.get()));
            owned.push_back(std::move(poly));
        }
        int band = 1;
        std::vector<double> burn(geoms.size(), 1.0);
        ASSERT_EQ(GDALRasterizeGeometries(GDALDataset::ToHandle(ds.get()), 1, &band, static_cast<int>(geoms.size()),
                                          geoms.data(), nullptr, nullptr, burn.data(), nullptr, nullptr, nullptr),
                  CE_None);
        std::vector<std::uint8_t> image(256 * 256);
        ASSERT_EQ(
            ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0, nullptr),
            CE_None);
        const BitTile gdal = BitTile::fromImage(std::span<const std::uint8_t, 65536>(image.data(), image.size()));
        ours += bits->count();
        differing += (gdal ^ *bits).count();
        ++tiles;
    }
    EXPECT_GT(tiles, 50);
    // One ring-rule subtlety remains (GDAL fills each polygon of a multipolygon on its own, we
    // fill all rings of a feature together): a few cells where OSM polygons overlap themselves.
    EXPECT_LE(differing, ours / 10000) << differing << " of " << ours << " cells differ";
}

TEST(RealSamples, SanFranciscoVectorTilesCountPerLayerAsOgr) {
    const auto folder = test::testData("vector-tiles/sanfrancisco-z15/15");
    auto map = io::readMap(folder);
    ASSERT_TRUE(map.ok()) << map.message();
    EXPECT_EQ(map->format, "MVT");
    // The layers the rules use, counted by OGR in one query.
    const std::vector<std::string> names{"building", "road", "landuse", "landcover", "water", "waterway"};
    std::string sql = "SELECT ";
    for (const std::string& n : names)
        sql += (n == names.front() ? "" : ", ") + ("(SELECT COUNT(*) FROM " + n + " WHERE 1=1)");
    const std::vector<long long> counts = test::sqlRow(folder, sql);
    ASSERT_EQ(counts.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto l = std::find_if(map->layers.begin(), map->layers.end(),
                                    [&](const SourceLayerInfo& info) { return info.name == names[i]; });
        ASSERT_NE(l, map->layers.end()) << names[i];
        EXPECT_EQ(static_cast<long long>(l->featuresRead + l->featuresSkipped), counts[i]) << names[i];
    }
    const RuleSet rules = test::defaultRuleSet();
    const ClassifiedMap c = classify(*map, rules);
    // Counted by iterating, as GDAL delivers them: its quick count (13,896) also counts the
    // pieces of buildings cut by tile edges that iteration merges back.
    EXPECT_EQ(static_cast<long long>(countOf(c, rules, "building")),
              test::sqlCount(folder, "SELECT COUNT(*) FROM building WHERE 1=1"));
    EXPECT_EQ(countOf(c, rules, "building"), 13438u);
    std::size_t withHeight = 0;
    for (const Feature& f : map->features) withHeight += f.sourceLayer == "building" && f.tag("height");
    EXPECT_EQ(static_cast<long long>(withHeight),
              test::sqlCount(folder, "SELECT COUNT(*) FROM building WHERE height IS NOT NULL"));
    EXPECT_EQ(static_cast<long long>(countOf(c, rules, "road")),
              test::sqlCount(folder,
                             "SELECT COUNT(*) FROM road WHERE class NOT IN ('ferry','major_rail','minor_rail',"
                             "'rail','transit','aerialway','golf','construction','raceway') AND "
                             "COALESCE(structure,'') <> 'tunnel' AND "
                             "GeometryType(geometry) NOT IN ('POINT','MULTIPOINT')"));
    // The root of the z/x/y tree opens too, at its deepest zoom.
    auto root = io::readMap(test::testData("vector-tiles/sanfrancisco-z15"));
    ASSERT_TRUE(root.ok()) << root.message();
    EXPECT_EQ(root->features.size(), map->features.size());
}

TEST(RealSamples, MbtilesWhoseMetadataClaimsADeeperZoomIsReadAtItsTiles) {
    const auto file = test::testData("vector-tiles/jakarta-buildings.mbtiles");
    auto map = io::readMap(file);
    ASSERT_TRUE(map.ok()) << map.message();
    EXPECT_EQ(map->format, "MBTiles");
    EXPECT_EQ(static_cast<long long>(map->features.size()),
              test::sqlCount(file, "SELECT COUNT(*) FROM building WHERE 1=1", {"ZOOM_LEVEL=13"}));
    EXPECT_GT(map->features.size(), 50000u);
    bool told = false;
    for (const std::string& w : map->warnings)
        told = told || w.find("deepest tiles are at zoom 13") != std::string::npos;
    EXPECT_TRUE(told);
    EXPECT_TRUE(map->features.front().tag("mvt_id").has_value());
    EXPECT_EQ(map->features.front().sourceLayer, "building");
}
