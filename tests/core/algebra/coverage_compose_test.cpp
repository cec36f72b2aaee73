// Exact coverage (cells and ground square metres) and compose(), the library side of
// `terrabit-cli compose`.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "algebra/area_coverage_p.h"
#include "algebra_test_support.h"
#include "terrabit/core/algebra/area_coverage.h"
#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/algebra/layer_evaluator.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::algebra;

const std::vector<std::string> kComposeNames = {"building", "grass", "road", "water"};

/// Ground size of a cell at the latitude of a row's centre, straight from metresPerCell.
double rowCellArea(const TileId& t, int row) {
    const LonLat ll = mercatorToLonLat(t.cellToMercator({128.0, row + 0.5}));
    const double m = metresPerCell(ll.lat, t.zoom);
    return m * m;
}

TEST(AreaCoverage, CellAreasFollowTheLatitudeOfEachRow) {
    for (const TileId& t : {TileId{17, 68238, 47880}, TileId{17, 74000, 37000}, TileId{10, 511, 512},
                            TileId{12, 100, 20}, TileId{3, 2, 0}}) {
        const auto areas = cellAreas(t);
        for (int row = 0; row < 256; ++row) {
            ASSERT_NEAR(areas[static_cast<std::size_t>(row)], rowCellArea(t, row), 1e-12 * rowCellArea(t, row))
                << t.quadkey() << " row " << row;
        }
        // Northern rows of a northern-hemisphere tile are smaller on the ground.
        if (t.boundsLonLat().min.y > 0) {
            EXPECT_LT(areas[0], areas[255]);
        }
    }
}

TEST(AreaCoverage, AFullTileCoversItsAreaOnTheSphere) {
    // Web Mercator's sphere: area between two latitudes over a longitude span is
    // R² Δλ (sin φn - sin φs). The per-row approximation agrees to a few parts per million.
    for (const TileId& t : {TileId{17, 68238, 47880}, TileId{14, 9000, 4000}}) {
        const Box2 b = t.boundsLonLat();
        const double d2r = std::numbers::pi / 180.0;
        const double sphere = kEarthRadius * kEarthRadius * (b.max.x - b.min.x) * d2r *
                              (std::sin(b.max.y * d2r) - std::sin(b.min.y * d2r));
        const AreaCoverage c = coverageOf(BitTile::full(), t);
        EXPECT_EQ(c.cells, 65536);
        EXPECT_NEAR(c.squareMetres, sphere, 1e-5 * sphere) << t.quadkey();
    }
}

TEST(AreaCoverage, CountsExactlyTheSetCellsAndTheirArea) {
    const TileId t{17, 68238, 47880};
    std::mt19937_64 rng(4);
    BitTile mask;
    double expected = 0;
    int cells = 0;
    for (int y = 0; y < 256; ++y) {
        for (int x = 0; x < 256; ++x) {
            if (rng() % 7 == 0) {
                mask.set(x, y);
                expected += rowCellArea(t, y);
                ++cells;
            }
        }
    }
    const AreaCoverage c = coverageOf(mask, t);
    EXPECT_EQ(c.cells, cells);
    EXPECT_NEAR(c.squareMetres, expected, 1e-9 * expected);
    EXPECT_EQ(coverageOf(BitTile(), t), AreaCoverage{});
}

TEST(AreaCoverage, ARegionIsTheSumOfItsTiles) {
    const std::vector<TileId> tiles = TileBlock{17, 68238, 47880, 2, 2}.tiles();
    std::vector<BitTile> masks(tiles.size());
    masks[0] = BitTile::full();
    masks[3].set(5, 5);
    const AreaCoverage total = coverageOf(masks, tiles);
    EXPECT_EQ(total.cells, 65537);
    EXPECT_DOUBLE_EQ(total.squareMetres, coverageOf(masks[0], tiles[0]).squareMetres + rowCellArea(tiles[3], 5));
}

class Compose : public ::testing::Test {
protected:
    void SetUp() override {
        std::mt19937_64 rng(77);
        fillRandom(mLayers, mBlock, rng);
    }
    MemoryLayers mLayers{kComposeNames};
    TileBlock mBlock{17, 68238, 47880, 3, 3};
};

TEST_F(Compose, GivesTheEvaluatorsMasksAndTheirCoverage) {
    const auto tiles = mBlock.tiles();
    const Result<ComposeResult> r = compose(mLayers, tiles, "grass & ~dilate(road, 2m)");
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->masks.size(), tiles.size());
    // The latitude defaults to the middle of the tiles, where 2 m is 2 cells.
    EXPECT_DOUBLE_EQ(r->latitude, 0.5 * (tiles.front().boundsLonLat().max.y + tiles.back().boundsLonLat().min.y));
    EXPECT_EQ(std::lround(2.0 / metresPerCell(r->latitude, 17)), 2);
    const ExpressionAst ast = parseOrDie("grass & ~dilate(road, 2)", mLayers);
    LayerEvaluator evaluator(LayerProgram::compile(ast));
    AreaCoverage sum;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        BitTile expected;
        ASSERT_TRUE(evaluator.evaluate(mLayers, tiles[i], expected).ok());
        EXPECT_EQ(r->masks[i], expected);
        EXPECT_EQ(r->coverage[i], coverageOf(expected, tiles[i]));
        sum += r->coverage[i];
    }
    EXPECT_EQ(r->total, sum);
    EXPECT_GT(r->total.cells, 0);
}

TEST_F(Compose, ABadExpressionFailsWithTheCaretMessage) {
    ExpressionDiagnostic d;
    const Result<ComposeResult> r = compose(mLayers, mBlock.tiles(), "grass & ~dilate(raod, 2m)", {}, {}, &d);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message(),
              "line 1, column 17: unknown layer 'raod' (did you mean 'road'?)\n"
              "grass & ~dilate(raod, 2m)\n"
              "                ^~~~");
    EXPECT_EQ(d.column, 17);
}

TEST_F(Compose, RefusesNoTilesAndMixedZooms) {
    EXPECT_FALSE(compose(mLayers, {}, "grass").ok());
    const std::vector<TileId> mixed = {TileId{17, 1, 1}, TileId{16, 1, 1}};
    const Result<ComposeResult> r = compose(mLayers, mixed, "grass");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("zoom 16"), std::string::npos) << r.message();
}

TEST_F(Compose, ReportsProgressAndStopsWhenAsked) {
    const auto tiles = mBlock.tiles();
    std::vector<double> seen;
    const Result<ComposeResult> r = compose(mLayers, tiles, "road", {}, [&](double f, std::string_view stage) {
        EXPECT_EQ(stage, "composing");
        seen.push_back(f);
        return true;
    });
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(seen.empty());
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));

    int calls = 0;
    const Result<ComposeResult> stopped =
        compose(mLayers, tiles, "road", {}, [&](double, std::string_view) { return ++calls < 3; });
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.message(), "compose: cancelled after 3 of 9 tiles");
}

}  // namespace
}  // namespace terrabit::test
