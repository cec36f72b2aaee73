// Bad input never crashes and never hides: a clear message naming the file (and the feature),
// everything usable still read, an error only when nothing usable is left.

#include <gtest/gtest.h>

#include <fstream>

#include "io_test_support.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/io/pbf_check.h"
#include "terrabit/core/result.h"
#include "terrabit/core/rules/classifier.h"

using namespace terrabit::core;
namespace io = terrabit::core::io;

namespace {

bool anyContains(const std::vector<std::string>& lines, const std::string& a, const std::string& b = "") {
    for (const std::string& l : lines) {
        if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST(BadInput, MissingFileIsNamed) {
    auto map = io::readMap("/no/such/monaco.osm.pbf");
    ASSERT_FALSE(map.ok());
    EXPECT_NE(map.message().find("/no/such/monaco.osm.pbf: no such file"), std::string::npos) << map.message();
}

TEST(BadInput, UnknownFormatIsNamed) {
    const auto dir = test::scratchDir("unknown-format");
    test::writeText(dir / "notes.pbf", "these are my notes, not a map\n");
    auto map = io::readMap(dir / "notes.pbf");
    ASSERT_FALSE(map.ok());
    EXPECT_NE(map.message().find("notes.pbf"), std::string::npos) << map.message();
    EXPECT_NE(map.message().find("not a map format GDAL can read"), std::string::npos) << map.message();
}

TEST(BadInput, TruncatedPbfIsAnErrorUnlessPartialReadsAreAllowed) {
    // Issue #21: a PBF cut short used to be read in part behind one warning and baked as if whole.
    const auto dir = test::scratchDir("truncated");
    const auto file = dir / "monaco-cut.osm.pbf";
    test::copyPrefix(test::monacoPbf(), file, 300000);  // of 470,838 bytes

    io::PbfFraming complete;
    auto framing = io::checkPbfFraming(file, &complete);
    ASSERT_FALSE(framing.ok());
    EXPECT_NE(framing.message().find("monaco-cut.osm.pbf: truncated PBF"), std::string::npos) << framing.message();
    EXPECT_NE(framing.message().find("block"), std::string::npos);
    EXPECT_GT(complete.blocks, 1u);
    EXPECT_GT(complete.bytes, 0u);
    EXPECT_LE(complete.bytes, 300000u);
    EXPECT_TRUE(io::checkPbfFraming(test::monacoPbf()).ok());

    auto refused = io::readMap(file);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
    EXPECT_NE(refused.message().find("monaco-cut.osm.pbf: truncated PBF"), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("the map is incomplete (--allow-partial reads the " +
                                     std::to_string(complete.blocks) + " complete blocks before it, the first " +
                                     io::withCommas(complete.bytes) + " of 300,000 bytes)"),
              std::string::npos)
        << refused.message();

    io::ReadOptions partial;
    partial.allowPartial = true;
    auto map = io::readMap(file, partial);
    ASSERT_TRUE(map.ok()) << map.message();
    EXPECT_GT(map->features.size(), 100u);
    auto whole = io::readMap(test::monacoPbf());
    ASSERT_TRUE(whole.ok());
    EXPECT_LT(map->features.size(), whole->features.size());
    // The first warning says how much was read.
    ASSERT_FALSE(map->warnings.empty());
    const std::string& first = map->warnings.front();
    EXPECT_NE(first.find("monaco-cut.osm.pbf: truncated PBF"), std::string::npos) << first;
    EXPECT_NE(first.find("read only what comes before it: the first " + io::withCommas(complete.bytes) +
                         " of 300,000 bytes (" + std::to_string(complete.blocks) + " complete blocks), " +
                         io::withCommas(map->features.size()) + " features"),
              std::string::npos)
        << first;
}

TEST(BadInput, EmptyFileSaysItIsEmpty) {
    const auto dir = test::scratchDir("empty-file");
    test::writeText(dir / "nothing.osm.pbf", "");
    auto map = io::readMap(dir / "nothing.osm.pbf");
    ASSERT_FALSE(map.ok());
    EXPECT_EQ(map.error().kind, ErrorKind::BadInput);
    EXPECT_EQ(map.message(), (dir / "nothing.osm.pbf").string() + ": the file is empty");
}

TEST(BadInput, EmptyFolderSaysItIsEmpty) {
    const auto dir = test::scratchDir("empty-folder");
    std::filesystem::create_directories(dir / "tiles");
    auto map = io::readMap(dir / "tiles");
    ASSERT_FALSE(map.ok());
    EXPECT_EQ(map.error().kind, ErrorKind::BadInput);
    EXPECT_EQ(map.message(), (dir / "tiles").string() + ": the folder is empty");
}

TEST(BadInput, ProjMessagesNameTheFeatureTheyCameFrom) {
    // Issue #21: PROJ's complaint about a feature's coordinates was filed under the feature read
    // after it. Feature 2 lies beyond the pole, which Web Mercator cannot hold; 1 and 3 are fine.
    const auto dir = test::scratchDir("proj-messages");
    const auto file = dir / "pole.geojson";
    test::writeText(file, R"({"type": "FeatureCollection", "features": [
 {"type": "Feature", "id": 1, "properties": {"building": "yes"},
  "geometry": {"type": "Point", "coordinates": [7.420, 43.730]}},
 {"type": "Feature", "id": 2, "properties": {"building": "yes"},
  "geometry": {"type": "LineString", "coordinates": [[7.420, 95.0], [7.421, 95.0]]}},
 {"type": "Feature", "id": 3, "properties": {"building": "yes"},
  "geometry": {"type": "Point", "coordinates": [7.421, 43.731]}}
]})");
    auto map = io::readMap(file);
    ASSERT_TRUE(map.ok()) << map.message();
    bool own = false;
    for (const std::string& w : map->warnings) {
        if (w.find("GDAL: ") == std::string::npos) continue;
        own = own || (w.rfind(file.string() + ": feature pole:2: GDAL: ", 0) == 0 &&
                      w.find("webmerc: Invalid latitude") != std::string::npos);
        // Every GDAL/PROJ message names the file and either its feature or that it has none.
        EXPECT_TRUE(w.rfind(file.string() + ": feature pole:2: GDAL: ", 0) == 0 ||
                    w.rfind(file.string() + ": no feature: GDAL: ", 0) == 0 ||
                    w.rfind(file.string() + ": layer pole: GDAL: ", 0) == 0)
            << w;
        EXPECT_EQ(w.find("feature pole:3"), std::string::npos) << w;
    }
    EXPECT_TRUE(own) << testing::PrintToString(map->warnings);
}

TEST(BadInput, PbfCutInsideItsFirstBlocksHasNothingUsable) {
    const auto dir = test::scratchDir("truncated-early");
    const auto file = dir / "stub.osm.pbf";
    test::copyPrefix(test::monacoPbf(), file, 2000);
    auto map = io::readMap(file);
    ASSERT_FALSE(map.ok());
    EXPECT_NE(map.message().find("stub.osm.pbf"), std::string::npos) << map.message();
    EXPECT_NE(map.message().find("truncated"), std::string::npos) << map.message();
}

TEST(BadInput, CorruptPbfBlockIsReportedWithItsFile) {
    const auto dir = test::scratchDir("corrupt");
    const auto file = dir / "scrambled.osm.pbf";
    std::filesystem::copy_file(test::monacoPbf(), file);
    {
        // Scramble bytes inside a compressed data block in the middle of the file.
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(200000);
        for (int i = 0; i < 400; ++i) f.put(static_cast<char>((i * 37) & 0xff));
    }
    auto map = io::readMap(file);
    // GDAL stops at the broken block; whatever it gave before is kept, and if nothing, the
    // error names the file. Either way the problem is told.
    if (map.ok()) {
        EXPECT_TRUE(anyContains(map->warnings, "scrambled.osm.pbf", "GDAL"));
    } else {
        EXPECT_NE(map.message().find("scrambled.osm.pbf"), std::string::npos) << map.message();
    }

    // A scrambled block header is caught by the framing check and named.
    const auto headerFile = dir / "bad-header.osm.pbf";
    std::filesystem::copy_file(test::monacoPbf(), headerFile);
    {
        std::fstream f(headerFile, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(0);
        f.put(0x7f);  // the first block's header length becomes huge
    }
    auto framing = io::checkPbfFraming(headerFile);
    ASSERT_FALSE(framing.ok());
    EXPECT_NE(framing.message().find("bad-header.osm.pbf: corrupt PBF: block 1"), std::string::npos)
        << framing.message();
}

TEST(BadInput, InvalidGeometriesAreNamedAndTheRestIsRead) {
    const auto dir = test::scratchDir("invalid-geometries");
    const auto file = dir / "bad.geojson";
    // Written by hand: OGR's writers would refuse or fix these.
    test::writeText(file, R"({"type": "FeatureCollection", "features": [
 {"type": "Feature", "id": 1, "properties": {"building": "yes"},
  "geometry": {"type": "Polygon", "coordinates": [[[7.420,43.730],[7.421,43.730],[7.421,43.731],[7.420,43.731]]]}},
 {"type": "Feature", "id": 2, "properties": {"building": "yes", "name": "bow tie"},
  "geometry": {"type": "Polygon", "coordinates": [[[7.422,43.730],[7.423,43.731],[7.423,43.730],[7.422,43.731],[7.422,43.730]]]}},
 {"type": "Feature", "id": 3, "properties": {"building": "yes"}, "geometry": null},
 {"type": "Feature", "id": 4, "properties": {"building": "yes"}, "geometry": {"type": "Polygon", "coordinates": []}},
 {"type": "Feature", "id": 5, "properties": {},
  "geometry": {"type": "Point", "coordinates": [7.425, 43.732]}},
 {"type": "Feature", "id": 6, "properties": {"highway": "residential"},
  "geometry": {"type": "LineString", "coordinates": [[7.424,43.730],[7.424,43.730]]}},
 {"type": "Feature", "id": 7, "properties": {"building": "yes"},
  "geometry": {"type": "Polygon", "coordinates": [[[7.426,43.730],[7.427,43.730],[7.427,43.731],[7.426,43.730]]]}}
]})");
    auto map = io::readMap(file);
    ASSERT_TRUE(map.ok()) << map.message();
    // Usable: 1 (closed on read), 2 (crossing, still drawn), 5 (no tags, kept), 7.
    EXPECT_EQ(map->features.size(), 4u);
    const std::vector<std::string>& w = map->warnings;
    EXPECT_TRUE(anyContains(w, "bad.geojson: feature bad:2", "ring edges cross")) << testing::PrintToString(w);
    EXPECT_TRUE(anyContains(w, "bad.geojson: feature bad:3", "no geometry")) << testing::PrintToString(w);
    EXPECT_TRUE(anyContains(w, "bad.geojson: feature bad:4", "no geometry")) << testing::PrintToString(w);
    EXPECT_TRUE(anyContains(w, "bad.geojson: feature bad:5", "no tags")) << testing::PrintToString(w);
    EXPECT_TRUE(anyContains(w, "bad.geojson: feature bad:6", "no drawable geometry")) << testing::PrintToString(w);
    // GDAL closes GeoJSON rings itself or we do; either way feature 1 is a closed area.
    bool haveFirst = false;
    for (const Feature& f : map->features) haveFirst = haveFirst || (f.id == "bad:1" && f.kind == FeatureKind::Area);
    EXPECT_TRUE(haveFirst);
}

TEST(BadInput, FileWithNothingUsableIsAnError) {
    const auto dir = test::scratchDir("nothing-usable");
    const auto file = dir / "empty.geojson";
    test::writeText(file, R"({"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"building": "yes"}, "geometry": null}]})");
    auto map = io::readMap(file);
    ASSERT_FALSE(map.ok());
    EXPECT_NE(map.message().find("empty.geojson: nothing usable was read"), std::string::npos) << map.message();
    EXPECT_NE(map.message().find("no geometry"), std::string::npos) << map.message();
}

TEST(BadInput, ExtractWithoutBuildingsSaysSoAndKeepsTheRest) {
    const auto dir = test::scratchDir("no-buildings");
    const auto file = dir / "roads.geojson";
    test::writeText(file, R"({"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"highway": "primary"},
  "geometry": {"type": "LineString", "coordinates": [[7.42,43.73],[7.43,43.74]]}}]})");
    auto map = io::readMap(file);
    ASSERT_TRUE(map.ok()) << map.message();
    auto rules = RuleSet::load(test::defaultRules());
    ASSERT_TRUE(rules.ok());
    const ClassifiedMap c = classify(*map, *rules);
    EXPECT_EQ(c.featureCounts[static_cast<std::size_t>(rules->layerId("road"))], 1u);
    EXPECT_TRUE(anyContains(c.warnings, "roads.geojson: no feature matched layer 'building'"))
        << testing::PrintToString(c.warnings);
}

TEST(BadInput, ACoordinateSystemThatContradictsItselfSkipsItsLayer) {
    // Found by the DEM fuzzer, in a GeoTIFF; a hand-edited .prj can say the same: longitude and
    // latitude on a datum, naming EPSG:4342, a geocentric CRS. PROJ crashed building the
    // transformation from it, ending the CLI or the app.
    const auto dir = test::scratchDir("contradictory-crs");
    std::string error;
    const test::OgrLayer houses{
        "houses", 4326, {{"POLYGON ((7.420 43.730,7.421 43.730,7.421 43.731,7.420 43.730))", {{"building", "yes"}}}}};
    ASSERT_TRUE(test::writeOgr(dir / "shp", "ESRI Shapefile", {houses}, error)) << error;
    test::writeText(
        dir / "shp" / "houses.prj",
        R"crs(GEOGCS["EST97 (geocentric)",DATUM["Estonia_1997",SPHEROID["GRS 1980",6378137,298.257223563,)crs"
        R"crs(AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6180"]],PRIMEM["Greenwich",0],UNIT["degree",)crs"
        R"crs(0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],)crs"
        R"crs(AUTHORITY["EPSG","4342"]])crs");
    auto map = io::readMap(dir / "shp" / "houses.shp");
    ASSERT_FALSE(map.ok());
    EXPECT_EQ(map.error().kind, ErrorKind::BadInput);
    EXPECT_NE(map.message().find("layer houses: its coordinate system contradicts itself: a geographic coordinate "
                                 "system that names EPSG:4342, a geocentric one; layer skipped"),
              std::string::npos)
        << map.message();

    // The same layer naming the code of its own kind (EPSG:4180, EST97 in longitude/latitude)
    // reads as before.
    std::string consistent =
        R"crs(GEOGCS["EST97",DATUM["Estonia_1997",SPHEROID["GRS 1980",6378137,298.257223563]],)crs"
        R"crs(PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4180"]])crs";
    test::writeText(dir / "shp" / "houses.prj", consistent);
    auto read = io::readMap(dir / "shp" / "houses.shp");
    ASSERT_TRUE(read.ok()) << read.message();
    EXPECT_EQ(read->features.size(), 1u);
}
