#include <gdal_priv.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io_test_support.h"
#include "terrabit/cli/map_commands.h"
#include "terrabit/core/io/map_reader.h"

using namespace terrabit::core;
namespace io = terrabit::core::io;

namespace {

/// A small map: two buildings, a road and a park near Monaco's harbour.
std::filesystem::path smallMap(const std::filesystem::path& dir) {
    const auto file = dir / "small.geojson";
    test::writeText(file, R"({"type": "FeatureCollection", "features": [
 {"type": "Feature", "properties": {"building": "yes", "height": "30"},
  "geometry": {"type": "Polygon", "coordinates": [[[7.4200,43.7350],[7.4210,43.7350],[7.4210,43.7357],[7.4200,43.7357],[7.4200,43.7350]]]}},
 {"type": "Feature", "properties": {"building": "yes"},
  "geometry": {"type": "Polygon", "coordinates": [[[7.4220,43.7350],[7.4225,43.7350],[7.4225,43.7354],[7.4220,43.7350]]]}},
 {"type": "Feature", "properties": {"highway": "primary"},
  "geometry": {"type": "LineString", "coordinates": [[7.4195,43.7345],[7.4240,43.7346]]}},
 {"type": "Feature", "properties": {"leisure": "park"},
  "geometry": {"type": "Polygon", "coordinates": [[[7.4230,43.7355],[7.4240,43.7355],[7.4240,43.7362],[7.4230,43.7362],[7.4230,43.7355]]]}}
]})");
    return file;
}

nlohmann::json readJson(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

int countOnes(const std::filesystem::path& tif) {
    GDALDataset* ds =
        GDALDataset::Open(tif.string().c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
    if (!ds) return -1;
    std::vector<std::uint8_t> image(256 * 256);
    const CPLErr e =
        ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0, nullptr);
    GDALClose(GDALDataset::ToHandle(ds));
    if (e != CE_None) return -1;
    int n = 0;
    for (std::uint8_t v : image) n += v;
    return n;
}

io::MapInput input(const std::filesystem::path& file) {
    io::MapInput in;
    in.file = file;
    in.rules = test::defaultRules();
    return in;
}

}  // namespace

TEST(MapCommands, RasterizeWritesFilesAndASummaryWhoseCoverageIsTheBits) {
    const auto dir = test::scratchDir("rasterize-small");
    terrabit::cli::RasterizeCommand cmd;
    cmd.input = input(smallMap(dir));
    cmd.selection.zoom = 18;
    cmd.outDir = dir / "out";
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runRasterize(cmd, out, err), terrabit::cli::kExitOk) << err.str();
    EXPECT_NE(out.str().find("summary.json"), std::string::npos);

    const nlohmann::json summary = readJson(dir / "out" / "summary.json");
    EXPECT_EQ(summary["zoom"], 18);
    EXPECT_EQ(summary["format"], "GeoJSON");
    const auto& tiles = summary["tiles"];
    ASSERT_GE(tiles.size(), 2u);
    std::map<std::string, long long> cellsPerLayer;
    for (const auto& t : tiles) {
        EXPECT_TRUE(std::filesystem::exists(dir / "out" / t["preview"].get<std::string>()));
        for (const auto& [name, l] : t["layers"].items()) {
            const int ones = countOnes(dir / "out" / l["file"].get<std::string>());
            EXPECT_EQ(ones, l["cells"].get<int>()) << name << " in " << t["quadkey"];
            cellsPerLayer[name] += ones;
        }
    }
    for (const auto& l : summary["layers"]) {
        const std::string name = l["name"];
        EXPECT_EQ(l["cells"].get<long long>(), cellsPerLayer[name]) << name;
        EXPECT_NEAR(l["coverage"].get<double>(), static_cast<double>(cellsPerLayer[name]) / (tiles.size() * 65536.0),
                    1e-12);
    }
    const auto layer = [&](const char* name) {
        for (const auto& l : summary["layers"]) {
            if (l["name"] == name) return l;
        }
        return nlohmann::json();
    };
    EXPECT_EQ(layer("building")["features"], 2);
    EXPECT_GT(layer("building")["cells"].get<long long>(), 1000);
    EXPECT_EQ(layer("road")["features"], 1);
    EXPECT_EQ(layer("park")["class_of"], "vegetation");
    EXPECT_EQ(layer("vegetation")["cells"], layer("park")["cells"]);
    EXPECT_EQ(layer("water")["features"], 0);
}

TEST(MapCommands, TilesCanBeChosenByQuadkeyOrBox) {
    const auto dir = test::scratchDir("rasterize-chosen");
    const auto file = smallMap(dir);
    const TileId inside = *tileAt(lonLatToMercator({7.4205, 43.7353}), 18);
    terrabit::cli::RasterizeCommand cmd;
    cmd.input = input(file);
    cmd.selection.zoom = 18;
    // A tile and its parent (which stands for its 4 tiles at z18): 4 tiles, written even where
    // they hold nothing.
    cmd.selection.quadkeys = {inside.quadkey(), inside.parent()->quadkey()};
    cmd.outDir = dir / "q";
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runRasterize(cmd, out, err), terrabit::cli::kExitOk) << err.str();
    EXPECT_EQ(readJson(dir / "q" / "summary.json")["tiles"].size(), 4u);

    io::TileSelection box;
    box.zoom = 17;
    box.bboxLonLat = Box2{{7.4200, 43.7350}, {7.4240, 43.7360}};
    auto tiles = io::selectedTiles(box);
    ASSERT_TRUE(tiles.ok());
    Box2 m;
    m.extend(lonLatToMercator({7.4200, 43.7350}));
    m.extend(lonLatToMercator({7.4240, 43.7360}));
    EXPECT_EQ(*tiles, *tilesCovering(m, 17));
}

TEST(MapCommands, TilesListsTheQuadkeysWithContent) {
    const auto dir = test::scratchDir("tiles-small");
    terrabit::cli::TilesCommand cmd;
    cmd.input = input(smallMap(dir));
    cmd.selection.zoom = 18;
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runTiles(cmd, out, err), terrabit::cli::kExitOk) << err.str();
    auto layers = io::buildMapLayers(cmd.input, cmd.selection, 1, {});
    ASSERT_TRUE(layers.ok());
    std::string expected;
    for (const TileId& t : (*layers)->store.tiles()) expected += t.quadkey() + "\n";
    EXPECT_EQ(out.str(), expected);
    EXPECT_FALSE(expected.empty());
}

TEST(MapCommands, InfoShowsLayersCountsAndAZoom) {
    terrabit::cli::InfoCommand cmd;
    cmd.input = input(test::monacoPbf());
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runInfo(cmd, out, err), terrabit::cli::kExitOk) << err.str();
    const std::string text = out.str();
    EXPECT_NE(text.find("(OSM)"), std::string::npos);
    EXPECT_NE(text.find("multipolygons"), std::string::npos);
    EXPECT_NE(text.find("building            1214"), std::string::npos) << text;
    EXPECT_NE(text.find("suggested zoom: 17"), std::string::npos) << text;
    EXPECT_NE(text.find("7.409205,43.723350"), std::string::npos) << text;
}

TEST(MapCommands, SuggestedZoomHasCellsNearAMetre) {
    Box2 monaco, helsinki;
    monaco.extend(lonLatToMercator({7.409205, 43.723350}));
    monaco.extend(lonLatToMercator({7.448637, 43.751690}));
    helsinki.extend(lonLatToMercator({24.935, 60.164}));
    helsinki.extend(lonLatToMercator({24.953, 60.179}));
    EXPECT_EQ(io::suggestedZoom(monaco), 17);    // 0.86 m cells
    EXPECT_EQ(io::suggestedZoom(helsinki), 16);  // 1.19 m cells rather than 0.6 m
    Box2 france;
    france.extend(lonLatToMercator({-5, 42}));
    france.extend(lonLatToMercator({8, 51}));
    EXPECT_LT(io::suggestedZoom(france), 12);  // capped by the tile count
}

TEST(MapCommands, ExitCodesSayWhoseFaultItIs) {
    const auto dir = test::scratchDir("exit-codes");
    std::ostringstream out, err;
    terrabit::cli::RasterizeCommand cmd;
    cmd.outDir = dir / "out";

    cmd.input = input(dir / "missing.osm.pbf");
    EXPECT_EQ(terrabit::cli::runRasterize(cmd, out, err), terrabit::cli::kExitNothingUsable);
    EXPECT_NE(err.str().find("missing.osm.pbf: no such file"), std::string::npos) << err.str();

    test::writeText(dir / "rules.yaml", "layers:\n  - name: b\n    matsh: []\n");
    cmd.input = input(smallMap(dir));
    cmd.input.rules = dir / "rules.yaml";
    err.str("");
    EXPECT_EQ(terrabit::cli::runRasterize(cmd, out, err), terrabit::cli::kExitBadArguments);
    EXPECT_NE(err.str().find("rules.yaml:3:5: layers[0]: unknown key 'matsh'"), std::string::npos) << err.str();

    cmd.input = input(smallMap(dir));
    cmd.selection.quadkeys = {"12a"};
    err.str("");
    EXPECT_EQ(terrabit::cli::runRasterize(cmd, out, err), terrabit::cli::kExitBadArguments);
    EXPECT_NE(err.str().find("quadkey '12a'"), std::string::npos) << err.str();

    cmd.selection.quadkeys = {"1"};  // a quarter of the world at z17
    err.str("");
    EXPECT_EQ(terrabit::cli::runRasterize(cmd, out, err), terrabit::cli::kExitBadArguments);
    EXPECT_NE(err.str().find("more than the limit"), std::string::npos) << err.str();

    // A zoom far too fine for the whole map (a typo for 17): refused at once with the limit, not
    // after listing every tile of every feature (on the bundled Monaco at z24 that took minutes).
    {
        terrabit::cli::RasterizeCommand fine;
        fine.input = input(test::monacoPbf());
        fine.selection.zoom = 24;
        fine.outDir = dir / "fine";
        err.str("");
        EXPECT_EQ(terrabit::cli::runRasterize(fine, out, err), terrabit::cli::kExitBadArguments);
        EXPECT_NE(err.str().find("more than the limit of"), std::string::npos) << err.str();
    }

    cmd.selection.quadkeys.clear();
    cmd.input.rules.clear();
    err.str("");
    EXPECT_EQ(terrabit::cli::runRasterize(cmd, out, err), terrabit::cli::kExitBadArguments);
    EXPECT_NE(err.str().find("no rules file"), std::string::npos) << err.str();
}
