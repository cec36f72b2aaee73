// The fast evaluator against the naive per-cell reference, on random layers over a 3×3 block of
// tiles: every operator and function, morphology across tile borders, random expressions,
// world edges, and determinism.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "algebra_test_support.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/algebra/layer_program.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::algebra;

const std::vector<std::string> kNames = {"building", "grass", "road", "water", "tree"};

class LayerAlgebra : public ::testing::Test {
protected:
    // One random map for the whole suite: making it is the slow part of each test.
    static void SetUpTestSuite() {
        std::mt19937_64 rng(20240611);
        fillRandom(mLayers, mBlock, rng);
    }

    /// Fast, tile by tile, equals the naive whole-region evaluation bit for bit.
    void expectMatchesNaive(const std::string& text) {
        SCOPED_TRACE(text);
        const ExpressionAst ast = parseOrDie(text, mLayers);
        if (ast.root < 0) return;
        const CellGrid expected = naiveEvaluate(ast, mLayers, mBlock);
        const CellGrid actual = fastEvaluate(ast, mLayers, mBlock);
        EXPECT_EQ(firstDifference(expected, actual), "") << LayerProgram::compile(ast).listing();
    }

    static inline MemoryLayers mLayers{kNames};
    static inline const TileBlock mBlock{17, 68238, 47880, 3, 3};
};

TEST_F(LayerAlgebra, LayerNamesReadTheirLayer) {
    expectMatchesNaive("building");
    expectMatchesNaive("\"water\"");
}

TEST_F(LayerAlgebra, ConstantsCoverEverythingOrNothing) {
    expectMatchesNaive("all");
    expectMatchesNaive("none");
    expectMatchesNaive("~none & all");
}

TEST_F(LayerAlgebra, EveryBooleanOperatorMatchesTheReference) {
    for (const char* text :
         {"building | grass", "building ^ grass", "building & grass", "building - grass", "~building", "~~road",
          "road & ~grass", "~grass | water", "~(road ^ water)", "~road ^ water", "road ^ ~water", "~road ^ ~water",
          "~road - ~water", "~(road - water)", "~(road | ~water)", "road - road", "road ^ road", "road | ~road",
          "road & ~road",
          // shared terms the compiler factors out of or-chains
          "(road & grass) | (water & grass)", "(grass & road) | (water & grass)",
          "tree | road - grass | water - grass | building - grass", "(road - grass) | tree | (water - grass)",
          "(road & ~tree) | (building & ~tree) & grass"}) {
        expectMatchesNaive(text);
    }
}

TEST_F(LayerAlgebra, TheIssueExpressionsMatchTheReference) {
    expectMatchesNaive("~(building | water)");
    expectMatchesNaive("building|((~grass)&road)|((~grass)&water)");
    expectMatchesNaive("~(building|tree|road|water)");
}

TEST_F(LayerAlgebra, DilateAndErodeMatchAcrossTileBorders) {
    for (const char* text : {"dilate(road, 1)", "dilate(road, 3)", "dilate(building, 5, square)",
                             "dilate(water, 2, disk)", "dilate(road, 7, disk)", "erode(grass, 1)", "erode(grass, 4)",
                             "erode(~road, 3, disk)", "erode(water | tree, 2, disk)"}) {
        expectMatchesNaive(text);
    }
}

TEST_F(LayerAlgebra, OpenCloseAndEdgeMatchAcrossTileBorders) {
    for (const char* text : {"open(grass, 2)", "close(road, 2)", "open(tree, 1, disk)", "close(water, 3, disk)",
                             "edge(building)", "edge(~road)", "edge(all)", "edge(none)"}) {
        expectMatchesNaive(text);
    }
}

TEST_F(LayerAlgebra, ShiftsMatchAcrossTileBorders) {
    for (const char* text : {"shift(building, 1, 0)", "shift(building, -1, 0)", "shift(road, 0, 5)",
                             "shift(road, 0, -5)", "shift(water, 63, -64)", "shift(water, 64, 65)",
                             "shift(tree, -130, 17)", "shift(grass, 256, -256)", "shift(shift(road, 5, 3), -5, -3)"}) {
        expectMatchesNaive(text);
    }
}

TEST_F(LayerAlgebra, NestedNeighbourhoodsGrowTheHalo) {
    expectMatchesNaive("dilate(erode(grass, 2), 3) - shift(dilate(road, 1), 2, -1)");
    expectMatchesNaive("edge(dilate(building, 2)) | erode(shift(water, -70, 3), 1, disk)");
    expectMatchesNaive("p = grass & ~road\nq = dilate(p, 2)\nq ^ erode(p, 1) | dilate(q, 1)");
}

TEST_F(LayerAlgebra, RandomAndNoiseMatchTheReference) {
    expectMatchesNaive("random(0.3)");
    expectMatchesNaive("random(0.5, 17) & grass");
    expectMatchesNaive("noise(12, 0.4)");
    expectMatchesNaive("noise(5.5, 0.6, 3) - road");
    expectMatchesNaive("dilate(random(0.01), 2) | erode(noise(20, 0.5), 1)");
    expectMatchesNaive("grass & ~dilate(road, 2m) & random(0.4)");
}

TEST_F(LayerAlgebra, LargestRadiusMatchesTheReference) {
    // A sparse input keeps the reference's early exit busy only where the answer is set.
    TileBlock one{17, 68239, 47881, 1, 1};
    const ExpressionAst ast =
        parseOrDie("dilate(random(0.0002, 4), 64) | erode(~random(0.00005, 5), 64, disk)", mLayers);
    EXPECT_EQ(firstDifference(naiveEvaluate(ast, mLayers, one), fastEvaluate(ast, mLayers, one)), "");
}

TEST_F(LayerAlgebra, DefinitionsMatchTheirInlinedExpression) {
    const ExpressionAst withDefs = parseOrDie(
        "# non-plantable ground\n"
        "bare = ~grass\n"
        "blocked = building | (bare & road) | (bare & water)\n"
        "blocked",
        mLayers);
    const ExpressionAst inlined = parseOrDie("building|((~grass)&road)|((~grass)&water)", mLayers);
    EXPECT_EQ(firstDifference(fastEvaluate(inlined, mLayers, mBlock), fastEvaluate(withDefs, mLayers, mBlock)), "");
}

TEST_F(LayerAlgebra, ADefinitionCompilesOnItsOwn) {
    const ExpressionAst doc = parseOrDie("near = dilate(road, 2)\nfar = grass - near\nfar | building", mLayers);
    const ExpressionAst near = parseOrDie("dilate(road, 2)", mLayers);
    ASSERT_EQ(doc.definitions.size(), 2u);
    EXPECT_EQ(doc.definitions[0].name, "near");
    LayerEvaluator fromDoc(LayerProgram::compile(doc, doc.definitions[0].node));
    LayerEvaluator alone(LayerProgram::compile(near));
    BitTile a, b;
    for (const TileId& t : mBlock.tiles()) {
        ASSERT_TRUE(fromDoc.evaluate(mLayers, t, a).ok());
        ASSERT_TRUE(alone.evaluate(mLayers, t, b).ok());
        EXPECT_EQ(a, b) << t.quadkey();
    }
}

TEST_F(LayerAlgebra, EveryTileOrderGivesTheSameBits) {
    const ExpressionAst ast = parseOrDie("dilate(road, 3) & noise(9, 0.5) | erode(grass, 2) & random(0.2)", mLayers);
    const CellGrid forward = fastEvaluate(ast, mLayers, mBlock);
    std::vector<int> order = {8, 3, 5, 0, 7, 1, 6, 2, 4};
    EXPECT_EQ(firstDifference(forward, fastEvaluate(ast, mLayers, mBlock, order)), "");
    std::reverse(order.begin(), order.end());
    EXPECT_EQ(firstDifference(forward, fastEvaluate(ast, mLayers, mBlock, order)), "");
}

TEST_F(LayerAlgebra, RandomExpressionsMatchTheReference) {
    // Grammar-driven random expressions: every operator and function, nested.
    std::mt19937_64 rng(99);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    std::function<std::string(int)> gen = [&](int depth) -> std::string {
        if (depth == 0 || pick(4) == 0) {
            switch (pick(6)) {
                case 0:
                    return "all";
                case 1:
                    return "none";
                case 2:
                    return "random(0." + std::to_string(1 + pick(8)) + ", " + std::to_string(pick(3)) + ")";
                default:
                    return kNames[static_cast<std::size_t>(pick(static_cast<int>(kNames.size())))];
            }
        }
        switch (pick(12)) {
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
                return "(" + gen(depth - 1) + ")";
            case 6:
                return std::string(pick(2) ? "dilate(" : "erode(") + gen(depth - 1) + ", " + std::to_string(pick(4)) +
                       (pick(2) ? ", disk)" : ")");
            case 7:
                return std::string(pick(2) ? "open(" : "close(") + gen(depth - 1) + ", " + std::to_string(pick(3)) +
                       ")";
            case 8:
                return "edge(" + gen(depth - 1) + ")";
            case 9:
                return "shift(" + gen(depth - 1) + ", " + std::to_string(pick(140) - 70) + ", " +
                       std::to_string(pick(20) - 10) + ")";
            case 10:
                return "noise(" + std::to_string(2 + pick(30)) + ", 0." + std::to_string(pick(10)) + ")";
            default:
                return "~(" + gen(depth - 1) + ")";
        }
    };
    TileBlock small{17, 68238, 47880, 2, 2};
    for (int i = 0; i < 40; ++i) {
        const std::string text = gen(4);
        SCOPED_TRACE(text);
        const ExpressionAst ast = parseOrDie(text, mLayers);
        if (ast.root < 0) continue;
        EXPECT_EQ(firstDifference(naiveEvaluate(ast, mLayers, small), fastEvaluate(ast, mLayers, small)), "")
            << LayerProgram::compile(ast).listing();
    }
}

TEST(LayerAlgebraWorld, WrapsAtTheAntimeridianAndClearsBeyondThePoles) {
    // Zoom 1: the whole world is 2×2 tiles, so every halo crosses a world edge.
    MemoryLayers layers(kNames);
    TileBlock world{1, 0, 0, 2, 2};
    std::mt19937_64 rng(5);
    fillRandom(layers, world, rng);
    for (const char* text :
         {"dilate(road, 4)", "erode(grass, 3, disk)", "shift(building, -256, 0)", "shift(water, 200, -100)",
          "edge(~tree)", "dilate(~building, 2) & noise(40, 0.5)", "erode(random(0.9), 1)"}) {
        SCOPED_TRACE(text);
        const ExpressionAst ast = parseOrDie(text, layers, 1);
        EXPECT_EQ(firstDifference(naiveEvaluate(ast, layers, world), fastEvaluate(ast, layers, world)), "");
    }
}

TEST(LayerAlgebraWorld, AbsentTilesReadAsClear) {
    MemoryLayers layers(kNames);  // no tile at all
    TileBlock block{17, 100, 100, 1, 1};
    const ExpressionAst ast = parseOrDie("~dilate(road, 3) & ~building", layers);
    const CellGrid out = fastEvaluate(ast, layers, block);
    EXPECT_TRUE(std::all_of(out.cells.begin(), out.cells.end(), [](std::uint8_t c) { return c == 1; }));
}

TEST(LayerEvaluatorErrors, RefusesATileOfAnotherZoom) {
    MemoryLayers layers(kNames);
    const ExpressionAst ast = parseOrDie("road", layers, 17);
    LayerEvaluator evaluator(LayerProgram::compile(ast));
    BitTile out;
    const Status s = evaluator.evaluate(layers, TileId{16, 3, 3}, out);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("zoom 16"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("zoom 17"), std::string::npos) << s.message();
}

TEST(LayerEvaluatorErrors, RefusesASourceWithFewerLayers) {
    MemoryLayers layers(kNames);
    MemoryLayers fewer({"building"});
    LayerEvaluator evaluator(LayerProgram::compile(parseOrDie("tree", layers)));
    BitTile out;
    const Status s = evaluator.evaluate(fewer, TileId{17, 3, 3}, out);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("1 layers"), std::string::npos) << s.message();
}

TEST(LayerEvaluatorErrors, TheEmptyProgramGivesNoCellAtAnyZoom) {
    LayerEvaluator evaluator{LayerProgram()};
    MemoryLayers layers(kNames);
    BitTile out = BitTile::full();
    ASSERT_TRUE(evaluator.evaluate(layers, TileId{5, 1, 2}, out).ok());
    EXPECT_TRUE(out.none());
}

TEST(LayerProgramCompiler, FoldsConstantsAndSharesSubexpressions) {
    MemoryLayers layers(kNames);
    auto steps = [&](const std::string& text) {
        const std::string listing = LayerProgram::compile(parseOrDie(text, layers)).listing();
        return static_cast<int>(std::count(listing.begin(), listing.end(), '\n'));
    };
    EXPECT_EQ(LayerProgram::compile(parseOrDie("road & all | none", layers)).listing(),
              LayerProgram::compile(parseOrDie("road", layers)).listing());
    EXPECT_EQ(LayerProgram::compile(parseOrDie("dilate(~~road, 0)", layers)).listing(),
              LayerProgram::compile(parseOrDie("road", layers)).listing());
    // One dilation computed once although written twice.
    const std::string twice =
        LayerProgram::compile(parseOrDie("dilate(road, 2) | dilate(road, 2) & grass", layers)).listing();
    EXPECT_EQ(twice.find("dilate"), twice.rfind("dilate"));
    // ~a & b is one and-not, and the shared "- grass" is factored out: the issue's expression is
    // three streamed operations, (road | water) - grass | building.
    const std::string np =
        LayerProgram::compile(parseOrDie("building|((~grass)&road)|((~grass)&water)", layers)).listing();
    EXPECT_EQ(np.find("= not "), std::string::npos) << np;
    EXPECT_EQ(steps("building|((~grass)&road)|((~grass)&water)"), 4) << np;
}

TEST(LayerProgramCompiler, HaloIsTheSumOfRadiiAlongTheDeepestChain) {
    MemoryLayers layers(kNames);
    const LayerProgram p =
        LayerProgram::compile(parseOrDie("dilate(erode(road, 2), 3) | shift(grass, -70, 9)", layers));
    EXPECT_EQ(p.haloRows(), 9);
    EXPECT_EQ(p.haloCells(), 70);
    const LayerProgram q = LayerProgram::compile(parseOrDie("open(road, 4, disk) & edge(grass)", layers));
    EXPECT_EQ(q.haloRows(), 8);
    EXPECT_EQ(q.haloCells(), 8);
    EXPECT_EQ(std::vector<int>(q.layersRead().begin(), q.layersRead().end()), (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace terrabit::test
