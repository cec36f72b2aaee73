// Relief layers (height, slope, aspect): the fast evaluator against the naive reference on a
// random rolling surface with holes and tiles without heights, mixed with layers and morphology
// across tile borders; and against analytic surfaces whose answer is known: a tilted plane (its
// slope and downhill direction), a cone (aspect sectors around its apex), height bands.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <random>

#include "algebra_test_support.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/algebra/layer_program.h"
#include "terrabit/core/algebra/relief_mask.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::algebra;

const std::vector<std::string> kReliefNames = {"building", "grass", "road", "water", "tree"};
constexpr double kDegree = std::numbers::pi / 180.0;

std::size_t countSet(const CellGrid& g) {
    return static_cast<std::size_t>(std::count(g.cells.begin(), g.cells.end(), 1));
}

class Relief : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        std::mt19937_64 rng(20261201);
        fillRandom(mLayers, mBlock, rng);
        fillRandomHeights(mLayers, mBlock, rng);
    }

    void expectMatchesNaive(const std::string& text, const TileBlock& block = mBlock) {
        SCOPED_TRACE(text);
        const ExpressionAst ast = parseOrDie(text, mLayers);
        if (ast.root < 0) return;
        const CellGrid expected = naiveEvaluate(ast, mLayers, block);
        const CellGrid actual = fastEvaluate(ast, mLayers, block);
        EXPECT_EQ(firstDifference(expected, actual), "") << LayerProgram::compile(ast).listing();
    }

    static inline MemoryLayers mLayers{kReliefNames};
    static inline const TileBlock mBlock{17, 68238, 47880, 3, 3};
};

TEST_F(Relief, EachFunctionMatchesTheReference) {
    for (const char* text : {"height(>300m)", "height(<290m)", "height(>280m, <320m)", "slope(>20deg)", "slope(<5deg)",
                             "slope(>10deg, <30deg)", "slope(>0deg)", "slope(<90deg)", "aspect(N)", "aspect(SE, 45deg)",
                             "aspect(200deg, 10deg)", "aspect(W, 180deg)", "aspect(NE, 90deg)"}) {
        expectMatchesNaive(text);
    }
}

TEST_F(Relief, TheSurfaceIsVariedEnoughToTestAnything) {
    // Each relief test above is meaningful only if its layers are neither empty nor full.
    for (const char* text : {"height(>300m)", "slope(>20deg)", "slope(<12deg)", "aspect(N)"}) {
        const CellGrid g = fastEvaluate(parseOrDie(text, mLayers), mLayers, mBlock);
        EXPECT_GT(countSet(g), g.cells.size() / 50) << text;
        EXPECT_LT(countSet(g), g.cells.size() / 2 + g.cells.size() / 3) << text;
    }
}

TEST_F(Relief, MixedWithLayersAndNeighbourhoodsAcrossTileBorders) {
    for (const char* text :
         {"grass & ~height(>310m)", "building & slope(>30deg)",
          "dilate(slope(>35deg), 3) | erode(aspect(S, 60deg), 2, disk)", "shift(height(>300m), 70, -9) ^ road",
          "edge(slope(<15deg)) - water", "open(slope(>25deg) & ~road, 2) | close(aspect(E, 30deg), 1)",
          "steep = slope(>35deg)\nlow = height(<295m)\nshift(steep, -130, 40) & ~low | dilate(low, 2)"}) {
        expectMatchesNaive(text);
    }
}

TEST_F(Relief, RandomExpressionsMixingReliefAndLayersMatchTheReference) {
    std::mt19937_64 rng(1201);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    const char* directions[] = {"N", "NE", "E", "SE", "S", "SW", "W", "NW"};
    std::function<std::string(int)> gen = [&](int depth) -> std::string {
        if (depth == 0 || pick(3) == 0) {
            switch (pick(6)) {
                case 0:
                    return "height(" + std::string(pick(2) ? ">" : "<") + std::to_string(270 + pick(60)) + "m)";
                case 1:
                    return "slope(>" + std::to_string(pick(50)) + "deg" +
                           (pick(2) ? ", <" + std::to_string(50 + pick(40)) + "deg)" : ")");
                case 2:
                    return std::string("aspect(") + directions[pick(8)] + ", " + std::to_string(5 + pick(170)) +
                           ".5deg)";
                default:
                    return kReliefNames[static_cast<std::size_t>(pick(static_cast<int>(kReliefNames.size())))];
            }
        }
        switch (pick(8)) {
            case 0:
                return "~" + gen(depth - 1);
            case 1:
                return gen(depth - 1) + " | " + gen(depth - 1);
            case 2:
                return gen(depth - 1) + " ^ " + gen(depth - 1);
            case 3:
                return gen(depth - 1) + " & " + gen(depth - 1);
            case 4:
                return gen(depth - 1) + " - " + gen(depth - 1);
            case 5:
                return std::string(pick(2) ? "dilate(" : "erode(") + gen(depth - 1) + ", " + std::to_string(pick(4)) +
                       (pick(2) ? ", disk)" : ")");
            case 6:
                return "shift(" + gen(depth - 1) + ", " + std::to_string(pick(140) - 70) + ", " +
                       std::to_string(pick(20) - 10) + ")";
            default:
                return "(" + gen(depth - 1) + ")";
        }
    };
    const TileBlock small{17, 68238, 47880, 2, 2};
    for (int i = 0; i < 30; ++i) expectMatchesNaive(gen(3), small);
}

TEST(ReliefWorld, NoHeightsMeansNoRelief) {
    // The flat world: no source heights, so every relief layer is empty, whatever it asks.
    MemoryLayers layers(kReliefNames);
    const TileBlock block{17, 68238, 47880, 2, 2};
    std::mt19937_64 rng(5);
    fillRandom(layers, block, rng);
    for (const char* text : {"slope(<90deg)", "slope(>0deg)", "height(>-11000m)", "height(<9000m)", "aspect(N, 180deg)",
                             "dilate(slope(<90deg), 5)"}) {
        EXPECT_EQ(countSet(fastEvaluate(parseOrDie(text, layers), layers, block)), 0u) << text;
    }
    const CellGrid all = fastEvaluate(parseOrDie("~slope(>0deg)", layers), layers, block);
    EXPECT_EQ(countSet(all), all.cells.size());
}

TEST(ReliefWorld, ACornerWithoutHeightTakesItsFourCellsOut) {
    MemoryLayers layers(kReliefNames);
    const TileBlock block{17, 68238, 47880, 1, 1};
    fillHeights(layers, block,
                [](std::int64_t gx, std::int64_t gy) { return 0.01 * static_cast<double>(gx % 97 + gy % 89); });
    const TileId t = block.tiles().front();
    layers.heightsAt(t).heights[terrain::HeightTile::index(100, 30)] = terrain::kNoHeight;  // row 100, column 30
    const CellGrid g = fastEvaluate(parseOrDie("height(>-11000m)", layers), layers, block);
    EXPECT_EQ(countSet(g), g.cells.size() - 4);
    const std::int64_t x0 = block.cellX0(), y0 = block.cellY0();
    for (auto [x, y] : {std::pair{29, 99}, {30, 99}, {29, 100}, {30, 100}}) EXPECT_EQ(g.at(x0 + x, y0 + y), 0);
    EXPECT_EQ(g.at(x0 + 31, y0 + 100), 1);
    EXPECT_EQ(g.at(x0 + 30, y0 + 101), 1);
}

TEST(ReliefWorld, WholeMetreHeightsPutDownhillExactlyOnSectorEdgesAndTheEdgesAreIn) {
    // SRTM-like heights (whole metres): many cells face exactly along an axis or a diagonal.
    MemoryLayers layers(kReliefNames);
    const TileBlock block{17, 68238, 47880, 2, 2};
    fillHeights(layers, block, [](std::int64_t gx, std::int64_t gy) {
        return std::round(40.0 * std::sin(static_cast<double>(gx) / 23.0) +
                          30.0 * std::cos(static_cast<double>(gy) / 17.0));
    });
    for (const char* text : {"aspect(SE, 45deg)", "aspect(N, 90deg)", "aspect(E, 135deg)", "aspect(NE, 45deg)",
                             "aspect(W, 180deg)", "aspect(S, 22.5deg)", "slope(>0deg)", "height(>10m, <20m)"}) {
        SCOPED_TRACE(text);
        const ExpressionAst ast = parseOrDie(text, layers);
        EXPECT_EQ(firstDifference(naiveEvaluate(ast, layers, block), fastEvaluate(ast, layers, block)), "");
    }
    // One cell falling exactly east, 1 m: in both sectors whose edge is east, in no other.
    const TileId t = block.tiles().front();
    terrain::HeightTile& h = layers.heightsAt(t);
    h.heights[terrain::HeightTile::index(10, 10)] = 5.0f;
    h.heights[terrain::HeightTile::index(11, 10)] = 5.0f;
    h.heights[terrain::HeightTile::index(10, 11)] = 4.0f;
    h.heights[terrain::HeightTile::index(11, 11)] = 4.0f;
    const TileBlock one{17, t.x, t.y, 1, 1};
    auto at = [&](const std::string& text) {
        return fastEvaluate(parseOrDie(text, layers), layers, one).at(one.cellX0() + 10, one.cellY0() + 10);
    };
    EXPECT_EQ(at("aspect(NE, 45deg)"), 1);
    EXPECT_EQ(at("aspect(SE, 45deg)"), 1);
    EXPECT_EQ(at("aspect(E, 0.001deg)"), 1);
    EXPECT_EQ(at("aspect(N, 89.9deg)"), 0);
    EXPECT_EQ(at("aspect(N, 90deg)"), 1);
    EXPECT_EQ(at("aspect(S, 90deg)"), 1);
    EXPECT_EQ(at("aspect(W, 90deg)"), 0);
    EXPECT_EQ(at("aspect(W, 180deg)"), 1);
    EXPECT_EQ(at("aspect(W, 179.9deg)"), 0);
}

/// A plane rising `degrees` towards the bearing `uphill` (clockwise from north) on the ground,
/// with the ground size of a cell taken at the block's centre row.
Surface tiltedPlane(const TileBlock& block, double degrees, double uphill) {
    const std::int64_t cx = block.cellX0() + block.cellWidth() / 2, cy = block.cellY0() + block.cellHeight() / 2;
    const double ground = ReliefMask::groundCellSize(cy, block.zoom);
    const double rise = std::tan(degrees * kDegree) * ground;  // metres per cell along the uphill direction
    const double east = std::sin(uphill * kDegree), north = std::cos(uphill * kDegree);
    return [=](std::int64_t gx, std::int64_t gy) {
        return 500.0 + rise * (east * static_cast<double>(gx - cx) - north * static_cast<double>(gy - cy));
    };
}

TEST(ReliefAnalytic, ATiltedPlaneIsAllOrNothingAroundItsTrueSlope) {
    const TileBlock block{17, 68238, 47880, 3, 3};
    for (const auto& [degrees, uphill] : {std::pair{30.0, 90.0}, {12.5, 0.0}, {47.0, 200.0}, {3.0, 315.0}}) {
        SCOPED_TRACE(std::to_string(degrees) + " degrees, uphill " + std::to_string(uphill));
        MemoryLayers layers(kReliefNames);
        fillHeights(layers, block, tiltedPlane(block, degrees, uphill));
        auto count = [&](const std::string& text) {
            return countSet(fastEvaluate(parseOrDie(text, layers), layers, block));
        };
        const std::size_t cells = static_cast<std::size_t>(block.cellWidth()) * block.cellHeight();
        char text[128];
        std::snprintf(text, sizeof text, "slope(>%gdeg)", degrees - 0.1);
        EXPECT_EQ(count(text), cells);
        std::snprintf(text, sizeof text, "slope(>%gdeg)", degrees + 0.1);
        EXPECT_EQ(count(text), 0u);
        std::snprintf(text, sizeof text, "slope(>%gdeg, <%gdeg)", degrees - 0.1, degrees + 0.1);
        EXPECT_EQ(count(text), cells);
        // Downhill is opposite the uphill bearing.
        const double downhill = std::fmod(uphill + 180.0, 360.0);
        std::snprintf(text, sizeof text, "aspect(%gdeg, 0.5deg)", downhill);
        EXPECT_EQ(count(text), cells);
        std::snprintf(text, sizeof text, "aspect(%gdeg, 89deg)", uphill);
        EXPECT_EQ(count(text), 0u);
    }
}

TEST(ReliefAnalytic, AConeFacesAwayFromItsApexInEverySector) {
    // A cone 40° steep, its apex between cells in the middle tile: the downhill direction of a
    // cell is its bearing from the apex. Cells near a sector's edge or the apex are not judged.
    const TileBlock block{17, 68238, 47880, 3, 3};
    const double apexX = static_cast<double>(block.cellX0()) + 384.37;
    const double apexY = static_cast<double>(block.cellY0()) + 383.71;
    const double ground = ReliefMask::groundCellSize(block.cellY0() + 384, block.zoom);
    const double fall = std::tan(40.0 * kDegree) * ground;
    MemoryLayers layers(kReliefNames);
    fillHeights(layers, block, [&](std::int64_t gx, std::int64_t gy) {
        return 2000.0 - fall * std::hypot(static_cast<double>(gx) - apexX, static_cast<double>(gy) - apexY);
    });
    const char* names[] = {"N", "NE", "E", "SE", "S", "SW", "W", "NW"};
    for (int d = 0; d < 8; ++d) {
        SCOPED_TRACE(names[d]);
        const CellGrid g =
            fastEvaluate(parseOrDie(std::string("aspect(") + names[d] + ", 45deg)", layers), layers, block);
        std::size_t judged = 0;
        for (std::int64_t y = g.y0; y < g.y0 + g.height; ++y) {
            for (std::int64_t x = g.x0; x < g.x0 + g.width; ++x) {
                const double ex = static_cast<double>(x) + 0.5 - apexX, north = apexY - (static_cast<double>(y) + 0.5);
                if (std::hypot(ex, north) < 8.0) continue;
                double bearing = std::atan2(ex, north) / kDegree;
                double off = std::fabs(bearing - 45.0 * d);
                off = std::fmod(off, 360.0);
                off = std::min(off, 360.0 - off);
                if (std::fabs(off - 45.0) < 1.0) continue;
                ++judged;
                ASSERT_EQ(g.at(x, y), off < 45.0 ? 1 : 0) << "cell " << x - g.x0 << ", " << y - g.y0;
            }
        }
        EXPECT_GT(judged, g.cells.size() * 9 / 10);
    }
    // Away from the apex the cone is 40° steep everywhere.
    const CellGrid steep = fastEvaluate(parseOrDie("slope(>39.5deg, <40.5deg)", layers), layers, block);
    for (std::int64_t y = steep.y0; y < steep.y0 + steep.height; y += 7) {
        for (std::int64_t x = steep.x0; x < steep.x0 + steep.width; x += 7) {
            const double r = std::hypot(static_cast<double>(x) + 0.5 - apexX, static_cast<double>(y) + 0.5 - apexY);
            if (r > 20.0) {
                ASSERT_EQ(steep.at(x, y), 1) << "cell " << x - steep.x0 << ", " << y - steep.y0;
            }
        }
    }
}

TEST(ReliefAnalytic, HeightBandsCountTheCellsByTheirMeanHeight) {
    // A ramp rising 0.37 m per cell eastwards: a cell's mean height is that of its centre.
    const TileBlock block{17, 68238, 47880, 2, 1};
    MemoryLayers layers(kReliefNames);
    const std::int64_t x0 = block.cellX0();
    fillHeights(layers, block,
                [&](std::int64_t gx, std::int64_t) { return 100.0 + 0.37 * static_cast<double>(gx - x0); });
    auto count = [&](const std::string& text) {
        return countSet(fastEvaluate(parseOrDie(text, layers), layers, block));
    };
    // Column c's mean is 100 + 0.37 (c + 0.5): above 150 m from column 135 on (150.135), below
    // 120 m up to column 53 (119.795); 512 columns, 256 rows.
    EXPECT_EQ(count("height(>150m)"), (512u - 135u) * 256u);
    EXPECT_EQ(count("height(<120m)"), 54u * 256u);
    EXPECT_EQ(count("height(>120m, <150m)"), (135u - 54u) * 256u);
    EXPECT_EQ(count("height(>120m) & height(<150m)"), count("height(>120m, <150m)"));
    EXPECT_EQ(count("height(>1000m)"), 0u);
}

TEST(ReliefProgram, ReliefIsALeafWithoutHaloAndSharedWhenRepeated) {
    MemoryLayers layers(kReliefNames);
    const LayerProgram p = LayerProgram::compile(parseOrDie("slope(>30deg) & road | slope(>30deg) & grass", layers));
    EXPECT_EQ(p.haloRows(), 0);
    EXPECT_EQ(p.haloCells(), 0);
    const std::string listing = p.listing();
    EXPECT_EQ(listing.find("slope >30"), listing.rfind("slope >30")) << listing;  // computed once
    EXPECT_NE(listing.find("slope >30"), std::string::npos) << listing;
    const LayerProgram d = LayerProgram::compile(parseOrDie("dilate(aspect(N), 3)", layers));
    EXPECT_EQ(d.haloRows(), 3);
    EXPECT_NE(d.listing().find("aspect 0 within 22.5"), std::string::npos) << d.listing();
}

}  // namespace
}  // namespace terrabit::test
