// terrabit-cli compose on the bundled Monaco sample: the files it writes hold exactly the masks
// and coverage the layer algebra computes, and a bad expression stops it with the caret message
// and exit code 2 (through the library function and through the built executable).

#include <gdal_priv.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../io/io_test_support.h"
#include "support/test_dems.h"
#include "terrabit/cli/compose_command.h"
#include "terrabit/core/algebra/area_coverage.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/terrain/height_tile.h"

using namespace terrabit::core;
using namespace terrabit::core::algebra;
namespace io = terrabit::core::io;
using terrabit::cli::ComposeCommand;
using terrabit::cli::runComposeCommand;

namespace {

/// Four zoom-17 tiles of Monaco's harbour: one zoom-16 quadkey.
io::TileSelection harbour() {
    io::TileSelection s;
    s.zoom = 17;
    s.quadkeys = {tileAt(lonLatToMercator({7.4245, 43.7355}), 16)->quadkey()};
    return s;
}

ComposeCommand command(const std::string& expression, const std::filesystem::path& out) {
    ComposeCommand c;
    c.input.file = test::monacoPbf();
    c.input.rules = test::defaultRules();
    c.selection = harbour();
    c.expression = expression;
    c.outDir = out;
    c.seed = 5;
    c.threads = 2;
    return c;
}

/// The bits of a 1-bit GeoTIFF written by compose.
BitTile readMask(const std::filesystem::path& tif) {
    io::initGdal();
    BitTile t;
    GDALDataset* ds =
        GDALDataset::Open(tif.string().c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
    EXPECT_NE(ds, nullptr) << tif;
    if (!ds) return t;
    std::vector<std::uint8_t> image(65536);
    EXPECT_EQ(ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0, nullptr),
              CE_None);
    GDALClose(GDALDataset::ToHandle(ds));
    return BitTile::fromImage(std::span<const std::uint8_t, 65536>(image.data(), 65536));
}

TEST(ComposeCommand, WritesTheMasksAndCoverageOfTheExpression) {
    const auto out = test::scratchDir("compose-harbour");
    const std::string expr = "near_road = dilate(road, 2m)\nvegetation & ~near_road | building & random(0.5)";
    std::ostringstream sout, serr;
    ASSERT_EQ(runComposeCommand(command(expr, out), sout, serr), 0) << serr.str();
    EXPECT_NE(sout.str().find("composed 4 tiles"), std::string::npos) << sout.str();

    // The reference: the same map layers, the program compiled at the tiles' middle latitude.
    auto layers = io::buildMapLayers(command(expr, out).input, harbour(), 1, {});
    ASSERT_TRUE(layers.ok()) << layers.message();
    const LayerStore& store = (*layers)->store;
    ASSERT_EQ(store.tiles().size(), 4u);
    std::ifstream in(out / "coverage.json");
    const nlohmann::json summary = nlohmann::json::parse(in);
    ExpressionOptions options;
    options.zoom = 17;
    options.seed = 5;
    options.latitude = summary["metres_latitude"].get<double>();
    auto program = LayerProgram::compile(expr, store.layerNames(), options);
    ASSERT_TRUE(program.ok()) << program.message();
    LayerEvaluator evaluator(*program);

    EXPECT_EQ(summary["expression"], expr);
    EXPECT_EQ(summary["attribution"], "© OpenStreetMap contributors, ODbL 1.0");
    ASSERT_EQ(summary["tiles"].size(), 4u);
    std::int64_t cells = 0;
    for (const auto& t : summary["tiles"]) {
        const TileId id = *TileId::fromQuadkey(t["quadkey"].get<std::string>());
        BitTile expected;
        ASSERT_TRUE(evaluator.evaluate(store, id, expected).ok());
        EXPECT_EQ(readMask(out / t["file"].get<std::string>()), expected) << id.quadkey();
        EXPECT_TRUE(std::filesystem::exists(out / t["preview"].get<std::string>()));
        const AreaCoverage c = coverageOf(expected, id);
        EXPECT_EQ(t["cells"].get<std::int64_t>(), c.cells);
        EXPECT_DOUBLE_EQ(t["square_metres"].get<double>(), c.squareMetres);
        cells += c.cells;
    }
    EXPECT_EQ(summary["total"]["cells"].get<std::int64_t>(), cells);
    EXPECT_GT(cells, 0);
}

TEST(ComposeCommand, ABadExpressionStopsBeforeReadingTheMap) {
    const auto out = test::scratchDir("compose-bad");
    ComposeCommand c = command("vegetation & ~dilate(raod, 2m)", out);
    c.input.file = out / "no-such-map.pbf";  // never opened: the expression fails first
    std::ostringstream sout, serr;
    EXPECT_EQ(runComposeCommand(c, sout, serr), terrabit::cli::kExitBadArguments);
    EXPECT_EQ(serr.str(),
              "terrabit-cli compose: bad expression in --expr\n"
              "line 1, column 22: unknown layer 'raod' (did you mean 'road'?)\n"
              "vegetation & ~dilate(raod, 2m)\n"
              "                     ^~~~\n");
    EXPECT_FALSE(std::filesystem::exists(out / "coverage.json"));
    // Read from a file (--expr-file), the message names the file.
    c.expressionSource = "layers.expr";
    serr.str("");
    EXPECT_EQ(runComposeCommand(c, sout, serr), terrabit::cli::kExitBadArguments);
    EXPECT_EQ(serr.str().substr(0, serr.str().find('\n')), "terrabit-cli compose: bad expression in layers.expr");
}

TEST(ComposeCommand, TheExecutableComposesAndRefusesBadExpressions) {
    const auto out = test::scratchDir("compose-cli");
    const std::string qk = harbour().quadkeys.front();
    const auto ok = test::runCli({"-q", "compose", test::monacoPbf().string(), "--zoom", "17", "--tiles", qk, "--expr",
                                  "grass & ~dilate(road, 2m)", "--out", out.string()},
                                 out);
    ASSERT_EQ(ok.exitCode, 0) << ok.err;
    EXPECT_TRUE(std::filesystem::exists(out / "coverage.json"));
    const auto bad = test::runCli({"-q", "compose", test::monacoPbf().string(), "--zoom", "17", "--tiles", qk, "--expr",
                                   "grass & ~dilate(road 2m)", "--out", out.string()},
                                  out);
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("line 1, column 22: expected ',' or ')'"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("grass & ~dilate(road 2m)\n                     ^~"), std::string::npos) << bad.err;
}

TEST(ComposeCommand, WithADemHeightBandsAreTheCellsWhoseCornersAverageAbove) {
    const auto out = test::scratchDir("compose-relief");
    // A made-up hill over the harbour (no real DEM ships): 120 m at its top, falling 0.15 m per
    // Mercator metre.
    const Vec2 top = lonLatToMercator({7.4245, 43.7355});
    const auto dem = test::writeMercatorDem(
        out / "hill.tif", [top](Vec2 m) { return 120.0 - 0.15 * std::hypot(m.x - top.x, m.y - top.y); }, 5.0, 1500.0);
    ComposeCommand c = command("height(>80m)", out / "result");
    c.dems = {dem};
    std::ostringstream sout, serr;
    ASSERT_EQ(runComposeCommand(c, sout, serr), 0) << serr.str();
    EXPECT_EQ(serr.str().find("note:"), std::string::npos) << serr.str();

    // By hand, from the same tiles' heights as the Session samples them.
    pipeline::SessionInput input = pipeline::SessionInput::layersOnly(c.input, c.selection, 1);
    input.dems = {dem};
    auto session = pipeline::Session::open(input);
    ASSERT_TRUE(session.ok()) << session.message();
    std::ifstream in(out / "result" / "coverage.json");
    const nlohmann::json summary = nlohmann::json::parse(in);
    ASSERT_EQ(summary["dems"].size(), 1u);
    std::int64_t total = 0;
    for (const auto& t : summary["tiles"]) {
        const TileId id = *TileId::fromQuadkey(t["quadkey"].get<std::string>());
        auto heights = (*session)->heightTile(id);
        ASSERT_TRUE(heights.ok()) << heights.message();
        const terrain::HeightTile& h = **heights;
        const BitTile mask = readMask(out / "result" / t["quadkey"].get<std::string>() / "result.tif");
        std::int64_t cells = 0;
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                const double sum =
                    (double{h.at(y, x)} + h.at(y, x + 1)) + (double{h.at(y + 1, x)} + h.at(y + 1, x + 1));
                const bool high = sum / 4.0 > 80.0;  // NaN (no height) is never above
                cells += high;
                ASSERT_EQ(mask.test(x, y), high) << id.quadkey() << " cell " << x << ", " << y;
            }
        }
        EXPECT_EQ(t["cells"].get<std::int64_t>(), cells);
        total += cells;
    }
    EXPECT_EQ(summary["total"]["cells"].get<std::int64_t>(), total);
    // The hill's top is in the harbour tiles and its foot beyond them: the band is neither
    // empty nor everything.
    EXPECT_GT(total, 1000);
    EXPECT_LT(total, 4 * 65536 - 1000);
}

TEST(ComposeCommand, ReliefWithoutADemIsEmptyAndSaysSo) {
    const auto out = test::scratchDir("compose-flat");
    std::ostringstream sout, serr;
    ASSERT_EQ(runComposeCommand(command("slope(<90deg) | height(>-100m)", out), sout, serr), 0) << serr.str();
    EXPECT_NE(serr.str().find("note: the expression reads relief (height, slope, aspect) but no --dem was given"),
              std::string::npos)
        << serr.str();
    std::ifstream in(out / "coverage.json");
    const nlohmann::json summary = nlohmann::json::parse(in);
    EXPECT_EQ(summary["total"]["cells"].get<std::int64_t>(), 0);
    EXPECT_FALSE(summary.contains("dems"));
}

TEST(ComposeCommand, TheExecutableTakesDems) {
    const auto out = test::scratchDir("compose-cli-dem");
    const auto dem = test::writeMercatorDem(
        out / "tilt.tif", [](Vec2 m) { return 0.5 * (m.x - 826000.0); }, 5.0, 1500.0);
    // Rules with buildings only: the map's roads and water would grade the plane (a road cut
    // into 70 % is not), and this test is about the relief of the DEM reaching the command.
    const auto rules = out / "buildings.yaml";
    std::ofstream(rules) << "version: 1\nlayers:\n  - name: building\n    match:\n      - kind: area\n"
                            "        tags: {building: \"*\"}\n";
    const std::string qk = harbour().quadkeys.front();
    const auto ok = test::runCli(
        {"-q", "compose", test::monacoPbf().string(), "--rules", rules.string(), "--zoom", "17", "--tiles", qk,
         "--expr", "slope(>20deg) & aspect(W, 5deg)", "--dem", dem.string(), "--out", (out / "result").string()},
        out);
    ASSERT_EQ(ok.exitCode, 0) << ok.err;
    std::ifstream in(out / "result" / "coverage.json");
    const nlohmann::json summary = nlohmann::json::parse(in);
    // A plane rising 0.5 m per Mercator metre eastwards (about 0.69 per ground metre, 34.7°),
    // downhill to the west: every cell of the four tiles.
    EXPECT_EQ(summary["total"]["cells"].get<std::int64_t>(), 4 * 65536);
}

}  // namespace
