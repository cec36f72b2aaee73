// The layer-expression language: precedence and associativity, definitions, and every error
// kind with its exact line, column and caret; a fuzz test that nothing escapes.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "algebra_test_support.h"
#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/algebra/layer_program.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::algebra;

const std::vector<std::string> kParserNames = {"building", "grass", "road", "water", "tree", "bâtiment"};

ExpressionOptions monaco() {
    ExpressionOptions o;
    o.zoom = 17;
    o.latitude = 43.73;
    return o;
}

/// The resolved AST as a fully parenthesised prefix expression.
std::string print(const ExpressionAst& ast, int i) {
    const ExprNode& n = ast.nodes[static_cast<std::size_t>(i)];
    auto un = [&](const char* op) { return std::string("(") + op + " " + print(ast, n.a) + ")"; };
    auto bin = [&](const char* op) {
        return std::string("(") + op + " " + print(ast, n.a) + " " + print(ast, n.b) + ")";
    };
    switch (n.op) {
        case ExprOp::Layer:
            return kParserNames[static_cast<std::size_t>(n.layer)];
        case ExprOp::All:
            return "all";
        case ExprOp::None:
            return "none";
        case ExprOp::Not:
            return un("not");
        case ExprOp::Or:
            return bin("or");
        case ExprOp::Xor:
            return bin("xor");
        case ExprOp::And:
            return bin("and");
        case ExprOp::AndNot:
            return bin("andnot");
        case ExprOp::Dilate:
        case ExprOp::Erode:
        case ExprOp::Open:
        case ExprOp::Close: {
            const char* names[] = {"dilate", "erode", "open", "close"};
            return std::string("(") + names[static_cast<int>(n.op) - static_cast<int>(ExprOp::Dilate)] + " " +
                   print(ast, n.a) + " " + std::to_string(n.radius) +
                   (n.element == StructuringElement::Disk ? " disk)" : " square)");
        }
        case ExprOp::Edge:
            return un("edge");
        case ExprOp::Shift:
            return "(shift " + print(ast, n.a) + " " + std::to_string(n.dx) + " " + std::to_string(n.dy) + ")";
        case ExprOp::Random:
            return "(random " + std::to_string(n.probability).substr(0, 4) + " " + std::to_string(n.seed) + ")";
        case ExprOp::Noise:
            return "(noise " + std::to_string(n.scaleCells).substr(0, 5) + " " +
                   std::to_string(n.threshold).substr(0, 4) + " " + std::to_string(n.seed) + ")";
        case ExprOp::Height:
        case ExprOp::Slope:
        case ExprOp::Aspect: {
            char text[96];
            if (n.op == ExprOp::Aspect) {
                std::snprintf(text, sizeof text, "(aspect %g %g)", n.direction, n.within);
            } else {
                std::snprintf(text, sizeof text, "(%s %g %g)", n.op == ExprOp::Height ? "height" : "slope", n.above,
                              n.below);
            }
            return text;
        }
    }
    return "?";
}

std::string parsed(const std::string& text, ExpressionOptions options = monaco()) {
    Result<ExpressionAst> ast = ExpressionAst::parse(text, kParserNames, options);
    if (!ast) return "error: " + ast.message();
    return print(*ast, ast->root);
}

TEST(ExpressionParser, OperatorsBindFromOrUpToNot) {
    EXPECT_EQ(parsed("road | grass ^ water & tree - ~building"),
              "(or road (xor grass (and water (andnot tree (not building)))))");
    EXPECT_EQ(parsed("~road - grass & water ^ tree | building"),
              "(or (xor (and (andnot (not road) grass) water) tree) building)");
    EXPECT_EQ(parsed("~(road | grass)"), "(not (or road grass))");
    EXPECT_EQ(parsed("~~road"), "(not (not road))");
}

TEST(ExpressionParser, BinaryOperatorsAreLeftAssociative) {
    EXPECT_EQ(parsed("road - grass - water"), "(andnot (andnot road grass) water)");
    EXPECT_EQ(parsed("road | grass | water"), "(or (or road grass) water)");
    EXPECT_EQ(parsed("road ^ grass ^ water"), "(xor (xor road grass) water)");
    EXPECT_EQ(parsed("road & grass & water"), "(and (and road grass) water)");
    EXPECT_EQ(parsed("road - (grass - water)"), "(andnot road (andnot grass water))");
}

TEST(ExpressionParser, PrecedenceDecidesTheBits) {
    // The same expression with and without the parentheses precedence implies: identical masks.
    MemoryLayers layers(kParserNames);
    TileBlock block{17, 68238, 47880, 1, 1};
    std::mt19937_64 rng(3);
    fillRandom(layers, block, rng);
    const auto bare = parseOrDie("road | grass ^ water & tree - ~building", layers);
    const auto explicitly = parseOrDie("road | (grass ^ (water & (tree - (~building))))", layers);
    const auto other = parseOrDie("((road | grass) ^ water) & (tree - ~building)", layers);
    EXPECT_EQ(firstDifference(fastEvaluate(bare, layers, block), fastEvaluate(explicitly, layers, block)), "");
    EXPECT_NE(firstDifference(fastEvaluate(bare, layers, block), fastEvaluate(other, layers, block)), "");
}

TEST(ExpressionParser, FunctionsTakeDistancesElementsAndSeeds) {
    EXPECT_EQ(parsed("dilate(road, 2)"), "(dilate road 2 square)");
    EXPECT_EQ(parsed("erode(road, 3, disk)"), "(erode road 3 disk)");
    EXPECT_EQ(parsed("open(road, 1, square) | close(grass, 2)"), "(or (open road 1 square) (close grass 2 square))");
    EXPECT_EQ(parsed("edge(water)"), "(edge water)");
    EXPECT_EQ(parsed("shift(tree, -3, 4)"), "(shift tree -3 4)");
    EXPECT_EQ(parsed("random(0.25)"), "(random 0.25 0)");
    EXPECT_EQ(parsed("random(0.25, 9)"), "(random 0.25 9)");
    EXPECT_EQ(parsed("noise(12.5, 0.4, 2)"), "(noise 12.50 0.40 2)");
}

TEST(ExpressionParser, MetresBecomeCellsAtTheSceneLatitude) {
    // 2 m at zoom 17 and 43.73° is 2 / 0.8627 = 2.32 cells: rounded to 2. 10 m: 11.6 -> 12.
    const double mpc = metresPerCell(43.73, 17);
    EXPECT_EQ(parsed("dilate(road, 2m)"),
              "(dilate road " + std::to_string(static_cast<int>(std::lround(2 / mpc))) + " square)");
    EXPECT_EQ(parsed("dilate(road, 10m)"),
              "(dilate road " + std::to_string(static_cast<int>(std::lround(10 / mpc))) + " square)");
    EXPECT_EQ(parsed("shift(road, -5m, 0.5m)"),
              "(shift road " + std::to_string(static_cast<int>(std::lround(-5 / mpc))) + " 1)");
    const Result<ExpressionAst> ast = ExpressionAst::parse("noise(20m, 0.5)", kParserNames, monaco());
    ASSERT_TRUE(ast.ok());
    EXPECT_DOUBLE_EQ(ast->nodes[static_cast<std::size_t>(ast->root)].scaleCells, 20 / mpc);
}

TEST(ExpressionParser, DefinitionsCanComeInAnyOrderAndAreShared) {
    const std::string doc =
        "# what can be planted\n"
        "plantable = ground & ~blocked   # uses definitions written below\n"
        "ground = grass | tree\n"
        "blocked = dilate(road, 1) | building\n"
        "plantable";
    EXPECT_EQ(parsed(doc), "(and (or grass tree) (not (or (dilate road 1 square) building)))");
    const Result<ExpressionAst> ast = ExpressionAst::parse(doc, kParserNames, monaco());
    ASSERT_TRUE(ast.ok());
    ASSERT_EQ(ast->definitions.size(), 3u);
    EXPECT_EQ(ast->definitions[0].name, "plantable");
    EXPECT_EQ(ast->definitions[0].node, ast->root);
    // A definition used twice is one subtree.
    const Result<ExpressionAst> twice = ExpressionAst::parse("d = dilate(road, 2)\nd ^ d", kParserNames, monaco());
    ASSERT_TRUE(twice.ok());
    const ExprNode& root = twice->nodes[static_cast<std::size_t>(twice->root)];
    EXPECT_EQ(root.a, root.b);
}

TEST(ExpressionParser, TheLastDefinitionIsTheResultAndSemicolonsSeparate) {
    EXPECT_EQ(parsed("a = road; b = a | grass"), "(or road grass)");
    EXPECT_EQ(parsed("a = road;\n\n; a & water;"), "(and road water)");
}

TEST(ExpressionParser, LineBreaksContinueInsideParenthesesAndAfterOperators) {
    EXPECT_EQ(parsed("road &\n  grass"), "(and road grass)");
    EXPECT_EQ(parsed("(road\n & grass\n)"), "(and road grass)");
    EXPECT_EQ(parsed("dilate(\n road,\n 2\n)"), "(dilate road 2 square)");
    EXPECT_EQ(parsed("x =\n road\nx"), "road");
}

TEST(ExpressionParser, QuotedNamesReachAnyLayer) { EXPECT_EQ(parsed("\"bâtiment\" & road"), "(and bâtiment road)"); }

// -- errors -------------------------------------------------------------------------------------

struct Expected {
    int line;
    int column;
    int length;
    std::string what;
};

void expectError(const std::string& text, const Expected& e, ExpressionOptions options = monaco()) {
    SCOPED_TRACE(text);
    ExpressionDiagnostic d;
    const Result<ExpressionAst> ast = ExpressionAst::parse(text, kParserNames, options, &d);
    ASSERT_FALSE(ast.ok());
    EXPECT_EQ(d.line, e.line);
    EXPECT_EQ(d.column, e.column);
    EXPECT_EQ(d.length, e.length);
    EXPECT_EQ(d.what, e.what);
    EXPECT_EQ(ast.message(), d.text());
}

TEST(ExpressionErrors, UnknownLayerSuggestsTheClosestName) {
    expectError("grass & gras", {1, 9, 4, "unknown layer 'gras' (did you mean 'grass'?)"});
    expectError("plantable = grass & ~road\nbad = plantable | watr\nbad",
                {2, 19, 4, "unknown layer 'watr' (did you mean 'water'?)"});
    expectError("biulding", {1, 1, 8, "unknown layer 'biulding' (did you mean 'building'?)"});
    expectError("x = plantible\nplantable = grass\nx",
                {1, 5, 9, "unknown layer 'plantible' (did you mean 'plantable'?)"});
    expectError("xyzzy",
                {1, 1, 5, "unknown layer 'xyzzy' (the layers are: building, grass, road, water, tree, bâtiment)"});
    expectError("\"Road\"", {1, 1, 6, "unknown layer 'Road' (did you mean 'road'?)"});
}

TEST(ExpressionErrors, TheMessageShowsTheLineAndACaretUnderTheSpot) {
    ExpressionDiagnostic d;
    const auto r =
        ExpressionAst::parse("plantable = grass & ~road\nbad = plantable | watr\nbad", kParserNames, monaco(), &d);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message(),
              "line 2, column 19: unknown layer 'watr' (did you mean 'water'?)\n"
              "bad = plantable | watr\n"
              "                  ^~~~");
    // Tabs before the spot are kept so the caret lines up in a terminal; columns count characters.
    const auto tab = ExpressionAst::parse("\tgrass & gras", kParserNames, monaco());
    EXPECT_EQ(tab.message(),
              "line 1, column 10: unknown layer 'gras' (did you mean 'grass'?)\n\tgrass & gras\n\t        ^~~~");
    const auto utf8 = ExpressionAst::parse("\"bâtiment\" | gras", kParserNames, monaco(), &d);
    EXPECT_EQ(d.column, 14);
    EXPECT_EQ(utf8.message().substr(utf8.message().rfind('\n') + 1), "             ^~~~");
}

TEST(ExpressionErrors, ALongLineShowsTheStretchAroundTheSpot) {
    // A generated one-line expression: the message shows 60 characters each side of the spot,
    // not the whole line (a 100,000-deep nesting was echoed whole, 200 KB).
    const std::string text = "grass" + std::string(3000, ' ') + "| gras" + std::string(3000, ' ') + "| road";
    const std::size_t spot = text.find("gras ");
    const auto r = ExpressionAst::parse(text, kParserNames, monaco());
    ASSERT_FALSE(r.ok());
    const std::string m = r.message();
    const std::string head =
        "line 1, column " + std::to_string(spot + 1) + ": unknown layer 'gras' (did you mean 'grass'?)\n";
    ASSERT_EQ(m.substr(0, head.size()), head);
    const std::string shown = m.substr(head.size(), m.rfind('\n') - head.size());
    EXPECT_EQ(shown, "…" + text.substr(spot - 60, 60 + 4 + 60) + "…");
    EXPECT_EQ(m.substr(m.rfind('\n') + 1), std::string(61, ' ') + "^~~~");
    EXPECT_LT(m.size(), 400u);
}

TEST(ExpressionErrors, UnknownFunctionSuggestsTheClosestFunction) {
    expectError("dilat(road, 2)", {1, 1, 5, "unknown function 'dilat' (did you mean 'dilate'?)"});
    expectError("road | nosie(3, 0.5)", {1, 8, 5, "unknown function 'nosie' (did you mean 'noise'?)"});
    expectError("grass(2)", {1, 1, 5, "unknown function 'grass' ('grass' is a layer, not a function)"});
}

TEST(ExpressionErrors, BadSyntaxPointsAtTheOffendingToken) {
    expectError("grass & (road | water",
                {1, 22, 1, "expected ')' to close the '(' at line 1, column 9, found the end of the text"});
    expectError("grass road", {1, 7, 4, "expected an operator (| ^ & -) or the end of the statement, found 'road'"});
    expectError("grass &", {1, 8, 1, "expected a layer name, a function call, '(' or '~', found the end of the text"});
    expectError("grass\n& road", {2, 1, 1, "expected a layer name, a function call, '(' or '~', found '&'"});
    expectError("grass $ road", {1, 7, 1, "unexpected character '$'"});
    expectError("!grass", {1, 1, 1, "unexpected character '!' (write ~ for not)"});
    expectError("grass + road", {1, 7, 1, "unexpected character '+' (write | for or)"});
    expectError("road)", {1, 5, 1, "this ')' has no matching '('"});
    expectError("a & b = c",
                {1, 7, 1, "'=' can only follow a single name at the start of a statement (name = expression)"});
    expectError("- road", {1, 1, 1, "expected an operand before '-' (write ~ for not)"});
    expectError("\"road", {1, 1, 1, "this quoted layer name has no closing '\"' on its line"});
    expectError("dilate(road 2)",
                {1, 13, 1, "expected ',' or ')' in the arguments of 'dilate' (opened at line 1, column 7), found '2'"});
    expectError("dilate(road, 2km)",
                {1, 15, 2, "unknown unit 'km': write m for metres, deg for degrees, or no unit for cells"});
}

TEST(ExpressionErrors, WrongArgumentCountPointsAtTheExtraArgumentOrTheParenthesis) {
    expectError("dilate(road)", {1, 12, 1, "dilate takes 2 or 3 arguments, dilate(x, radius[, square|disk]); found 1"});
    expectError("edge(road, 2)", {1, 12, 1, "edge takes 1 argument, edge(x); found 2"});
    expectError("shift(road, 1, 2, 3)", {1, 19, 1, "shift takes 3 arguments, shift(x, dx, dy); found 4"});
    expectError("random()", {1, 8, 1, "random takes 1 or 2 arguments, random(p[, seed]); found 0"});
}

TEST(ExpressionErrors, WrongArgumentTypeNamesTheArgument) {
    expectError("dilate(2, 3)", {1, 8, 1, "argument 1 of dilate must be a layer expression, not a number"});
    expectError("dilate(road, grass)", {1, 14, 5, "argument 2 of dilate must be a radius, not a layer expression"});
    expectError("dilate(road, 2, round)", {1, 17, 5, "argument 3 of dilate must be square or disk"});
    expectError("random(road)", {1, 8, 4, "argument 1 of random must be a probability, not a layer expression"});
    expectError("grass & 2",
                {1, 9, 1, "a number is not a layer; numbers belong in function arguments such as dilate(x, 2)"});
    expectError("dilate & road", {1, 1, 6, "'dilate' is a function; call it as dilate(x, radius[, square|disk])"});
    expectError("road | disk",
                {1, 8, 4, "'disk' is a structuring element; it goes third in dilate, erode, open or close"});
    expectError("random(0.5m)", {1, 8, 4, "a probability has no unit"});
    expectError("random(0.5, 1.5)", {1, 13, 3, "a seed must be a whole number from 0 to 2^53, without a unit"});
}

TEST(ExpressionErrors, NumbersOutOfRangeSayTheLimit) {
    expectError("dilate(road, 65)", {1, 14, 2, "a radius of 65 cells is outside 0..64"});
    expectError("erode(road, -1)", {1, 13, 2, "a radius of -1 cells is outside 0..64"});
    char cells[32];
    std::snprintf(cells, sizeof cells, "%.6g", 100.0 / metresPerCell(43.73, 17));
    expectError("dilate(road, 100m)",
                {1, 14, 4,
                 "a radius of " + std::to_string(std::lround(100.0 / metresPerCell(43.73, 17))) + " cells (100m is " +
                     cells + " cells at zoom 17, latitude 43.73) is outside 0..64"});
    expectError("dilate(road, 2.5)", {1, 14, 3, "a radius in cells must be a whole number; for metres write 2.5m"});
    // What a message says to write is written without an exponent, which the grammar has not.
    expectError("dilate(road, 0.00001)",
                {1, 14, 7, "a radius in cells must be a whole number; for metres write 0.00001m"});
    EXPECT_TRUE(ExpressionAst::parse("dilate(road, 0.00001m)", kParserNames, monaco()).ok());
    expectError("shift(road, 0, 257)", {1, 16, 3, "a shift of 257 cells is outside -256..256"});
    expectError("random(1.5)", {1, 8, 3, "a probability 1.5 is outside 0..1"});
    expectError("noise(0.5, 0.3)", {1, 7, 3, "a noise scale of 0.5 cells is outside 1..65536 cells"});
    expectError("noise(8, -0.1)", {1, 10, 4, "a threshold -0.1 is outside 0..1"});
}

TEST(ExpressionErrors, MetresNeedALatitude) {
    ExpressionOptions noLatitude;
    expectError("dilate(road, 2m)",
                {1, 14, 2, "a distance in metres needs the scene's latitude to become cells, and none was given"},
                noLatitude);
}

TEST(ExpressionErrors, CyclesNameTheChain) {
    expectError("a = b | road\nb = a & grass\na", {2, 5, 1, "definition cycle: a -> b -> a"});
    expectError("a = a | road\na", {1, 5, 1, "definition cycle: a -> a"});
    expectError("x = road\na = b\nb = c\nc = dilate(a, 1)\nx", {4, 12, 1, "definition cycle: a -> b -> c -> a"});
}

TEST(ExpressionErrors, DefinitionsMustBeNewUniqueNames) {
    expectError("a = road\na = grass\na", {2, 1, 1, "'a' is already defined at line 1, column 1"});
    expectError("grass = road\ngrass",
                {1, 1, 5, "'grass' is already a layer of the map; give the definition another name"});
    expectError("all = road\nall", {1, 1, 3, "'all' is a keyword and cannot be redefined"});
    expectError("dilate = road\nroad", {1, 1, 6, "'dilate' is a keyword and cannot be redefined"});
}

TEST(ExpressionErrors, OnlyTheLastStatementMayBeBare) {
    expectError("road\ngrass",
                {1, 1, 4, "only the last statement may be a bare expression; name this one (name = ...) or remove it"});
}

TEST(ExpressionErrors, AnEmptyDocumentIsAnError) {
    expectError("", {1, 1, 1, "there is no expression: write one, such as grass & ~road"});
    expectError("  # nothing but a comment\n\n", {1, 1, 1, "there is no expression: write one, such as grass & ~road"});
}

TEST(ExpressionErrors, NestingAndReachAreBounded) {
    std::string deep;
    for (int i = 0; i < 300; ++i) deep += "(";
    deep += "road";
    for (int i = 0; i < 300; ++i) deep += ")";
    ExpressionDiagnostic d;
    EXPECT_FALSE(ExpressionAst::parse(deep, kParserNames, monaco(), &d).ok());
    EXPECT_EQ(d.what, "the expression nests more than 256 operations deep");
    EXPECT_EQ(d.column, 257);

    std::string chain = "road";
    for (int i = 0; i < 300; ++i) chain += " | road";
    EXPECT_FALSE(ExpressionAst::parse(chain, kParserNames, monaco(), &d).ok());
    EXPECT_EQ(d.what, "the expression nests more than 256 operations deep");

    expectError(
        "dilate(dilate(dilate(dilate(dilate(road, 60), 60), 60), 60), 60)",
        {1, 1, 64, "this reads 300 cells beyond each tile; the limit is 256 (radii and shifts add up along a chain)"});
}

TEST(ExpressionErrors, LongAliasChainsAreBoundedToo) {
    // a0 = a1, a1 = a2, ...: resolving recursively must not exhaust the stack.
    std::string doc;
    for (int i = 0; i < 5000; ++i) doc += "a" + std::to_string(i) + " = a" + std::to_string(i + 1) + "\n";
    doc += "a5000 = road\na0";
    ExpressionDiagnostic d;
    EXPECT_FALSE(ExpressionAst::parse(doc, kParserNames, monaco(), &d).ok());
    EXPECT_EQ(d.what, "the expression nests more than 256 operations deep");
}

TEST(ExpressionErrors, RandomTextNeverEscapesAsAnException) {
    // Fragments of the language and raw bytes, glued at random: the parser returns a value every
    // time, errors point inside the text, and what compiles also evaluates.
    const std::vector<std::string> pieces = {"road",
                                             "grass",
                                             "gras",
                                             "x",
                                             "y",
                                             " = ",
                                             "|",
                                             "^",
                                             "&",
                                             "-",
                                             "~",
                                             "(",
                                             ")",
                                             ",",
                                             ";",
                                             "\n",
                                             "#",
                                             "\"",
                                             "\"water\"",
                                             "1",
                                             "2.5",
                                             "-3",
                                             "0.5",
                                             "2m",
                                             "64",
                                             "100",
                                             "all",
                                             "none",
                                             "dilate(",
                                             "erode(",
                                             "open(",
                                             "close(",
                                             "edge(",
                                             "shift(",
                                             "random(",
                                             "noise(",
                                             "disk",
                                             "square",
                                             " ",
                                             "\t",
                                             "\xff",
                                             "\xc3",
                                             std::string(1, '\0'),
                                             "é",
                                             "$",
                                             "=",
                                             "..",
                                             "1e5",
                                             "9999999999999999999999"};
    std::mt19937_64 rng(1234);
    MemoryLayers layers(kParserNames);
    TileBlock block{17, 68238, 47880, 1, 1};
    std::mt19937_64 fill(8);
    fillRandom(layers, block, fill);
    const std::vector<std::string> valid = {
        "road", "grass & ~dilate(road, 2m) & random(0.4)", "a = road | water\nb = erode(a, 2, disk)\nb - edge(a)",
        "shift(open(tree, 1), -3, 70) ^ noise(9, 0.5, 2)", "~(road | (grass - water)) & close(building, 3)"};
    int compiled = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string text;
        if (i % 2 == 0) {
            // A valid document with a few random edits.
            text = valid[rng() % valid.size()];
            const int edits = static_cast<int>(rng() % 3);
            for (int k = 0; k < edits; ++k) {
                const std::size_t at = rng() % (text.size() + 1);
                switch (rng() % 3) {
                    case 0:
                        text.insert(at, pieces[rng() % pieces.size()]);
                        break;
                    case 1:
                        text.erase(at, 1 + rng() % 3);
                        break;
                    default:
                        text.insert(at, 1, static_cast<char>(rng() & 0xff));
                        break;
                }
            }
        } else {
            const int n = 1 + static_cast<int>(rng() % 24);
            for (int k = 0; k < n; ++k) text += pieces[rng() % pieces.size()];
        }
        ExpressionDiagnostic d;
        const Result<LayerProgram> p = LayerProgram::compile(text, kParserNames, monaco(), &d);
        if (!p.ok()) {
            EXPECT_GE(d.line, 1) << text;
            EXPECT_GE(d.column, 1) << text;
            EXPECT_GE(d.length, 1) << text;
            EXPECT_FALSE(d.what.empty()) << text;
            EXPECT_EQ(p.message().rfind("line " + std::to_string(d.line) + ", column ", 0), 0u) << text;
            continue;
        }
        ++compiled;
        LayerEvaluator evaluator(*p);
        BitTile out;
        EXPECT_TRUE(evaluator.evaluate(layers, TileId{17, 68238, 47880}, out).ok()) << text;
    }
    EXPECT_GT(compiled, 100);  // the generator does reach valid programs
}

}  // namespace
}  // namespace terrabit::test

namespace terrabit::test {
namespace {

TEST(ExpressionParser, ReliefTakesComparisonsInRealUnits) {
    EXPECT_EQ(parsed("height(>1800m)"), "(height 1800 inf)");
    EXPECT_EQ(parsed("height(<480m)"), "(height -inf 480)");
    EXPECT_EQ(parsed("height( < -5.5m )"), "(height -inf -5.5)");
    EXPECT_EQ(parsed("height(>480m, <1800m)"), "(height 480 1800)");
    EXPECT_EQ(parsed("height(<1800m, >480m)"), "(height 480 1800)");
    EXPECT_EQ(parsed("slope(>25deg)"), "(slope 25 inf)");
    EXPECT_EQ(parsed("slope(<10\u00b0)"), "(slope -inf 10)");
    EXPECT_EQ(parsed("slope(>10deg,\n      <25deg)"), "(slope 10 25)");
    EXPECT_EQ(parsed("aspect(N, 45deg)"), "(aspect 0 45)");
    EXPECT_EQ(parsed("aspect(sw)"), "(aspect 225 22.5)");
    EXPECT_EQ(parsed("aspect(NW, 180deg)"), "(aspect 315 180)");
    EXPECT_EQ(parsed("aspect(135deg, 10deg)"), "(aspect 135 10)");
    EXPECT_EQ(parsed("aspect(360deg)"), "(aspect 0 22.5)");
    EXPECT_EQ(parsed("grass & ~height(>1900m) | road & slope(>30deg)"),
              "(or (and grass (not (height 1900 inf))) (and road (slope 30 inf)))");
    EXPECT_EQ(parsed("dilate(slope(>35deg), 2m) - aspect(E)"),
              "(andnot (dilate (slope 35 inf) 2 square) (aspect 90 22.5))");
    // A layer named like a compass point is still a layer outside aspect.
    EXPECT_EQ(parsed("steep = slope(>35deg)\nsteep & road"), "(and (slope 35 inf) road)");
    // Relief reads no neighbour: it adds no reach.
    Result<ExpressionAst> ast = ExpressionAst::parse("shift(slope(>1deg), 256, 0)", kParserNames, monaco());
    EXPECT_TRUE(ast.ok()) << ast.message();
}

TEST(ExpressionErrors, ReliefNeedsComparisonsUnitsAndRanges) {
    expectError("height(>1800)", {1, 9, 4, "a height needs its unit: write 1800m"});
    expectError("height(>1800deg)", {1, 9, 7, "a height is in metres, not degrees: write 1800m"});
    expectError("slope(>25)", {1, 8, 2, "a slope needs its unit: write 25deg"});
    expectError("slope(>25m)", {1, 8, 3, "a slope is an angle, not a distance: write 25deg"});
    expectError("slope(>95deg)", {1, 8, 5, "a slope of 95deg is outside 0deg..90deg"});
    expectError("slope(<-1deg)", {1, 8, 5, "a slope of -1deg is outside 0deg..90deg"});
    expectError("height(>9500m)", {1, 9, 5, "a height of 9500m is outside -11000m..9000m"});
    expectError("height(1800m)", {1, 8, 5, "argument 1 of height must be a comparison such as >1800m or <480m"});
    expectError("slope(road)", {1, 7, 4, "argument 1 of slope must be a comparison such as >25deg or <10deg"});
    expectError("slope(>1deg, >2deg)",
                {1, 14, 5, "slope takes at most one '>' and one '<' (a band: slope(>10deg, <25deg))"});
    expectError("slope()", {1, 7, 1, "slope takes 1 or 2 arguments, slope(>25deg[, <40deg]); found 0"});
    expectError("height(>1m, <2m, <3m)", {1, 18, 3, "height takes 1 or 2 arguments, height(>480m[, <1800m]); found 3"});
    expectError("slope(> road)",
                {1, 9, 4, "expected a number with its unit after '>', such as >1800m or <25deg; found 'road'"});
    expectError("slope(>25deg", {1, 13, 1,
                                 "expected ',' or ')' in the arguments of 'slope' (opened at line 1, column 6), found "
                                 "the end of the text"});
    expectError(
        "road & >25deg",
        {1, 8, 6, "a comparison is not a layer; it goes inside height(...) or slope(...), as in slope(>25deg)"});
    expectError("dilate(road, >2)", {1, 14, 2, "argument 2 of dilate must be a radius, not a comparison"});
    expectError("dilate(road, 2deg)",
                {1, 14, 4, "argument 2 of dilate must be a radius; degrees only go in slope and aspect"});
    expectError("dilate(>2m, 2)", {1, 8, 3, "argument 1 of dilate must be a layer expression, not a comparison"});
    expectError("slop(>25deg)", {1, 1, 4, "unknown function 'slop' (did you mean 'slope'?)"});
    expectError("hieght(>2m)", {1, 1, 6, "unknown function 'hieght' (did you mean 'height'?)"});
    expectError("slope", {1, 1, 5, "'slope' is a function; call it as slope(>25deg[, <40deg])"});
    expectError("slope = road", {1, 1, 5, "'slope' is a keyword and cannot be redefined"});
    expectError("slope(>25degs)",
                {1, 10, 4, "unknown unit 'degs': write m for metres, deg for degrees, or no unit for cells"});
    expectError("aspect(North)",
                {1, 8, 5,
                 "argument 1 of aspect must be a direction: N, NE, E, SE, S, SW, W, NW or a bearing such as 135deg; "
                 "found 'North'"});
    expectError("aspect(135)", {1, 8, 3, "a bearing needs its unit: write 135deg"});
    expectError("aspect(400deg)", {1, 8, 6, "a bearing of 400deg is outside 0deg..360deg"});
    expectError("aspect(N, 45)", {1, 11, 2, "an aspect's width needs its unit: write 45deg"});
    expectError("aspect(N, 0deg)", {1, 11, 4, "an aspect's width of 0deg is outside 0deg..180deg (above 0)"});
    expectError("aspect(N, >5deg)", {1, 11, 5, "argument 2 of aspect must be an angle such as 45deg"});
    expectError("aspect(road)",
                {1, 8, 4,
                 "argument 1 of aspect must be a direction: N, NE, E, SE, S, SW, W, NW or a bearing such as 135deg; "
                 "found 'road'"});
    // Columns count characters: the degree sign is one.
    expectError("slope(>95\u00b0) | road", {1, 8, 3, "a slope of 95deg is outside 0deg..90deg"});
    expectError("slope(>45\u00b0) | roads", {1, 15, 5, "unknown layer 'roads' (did you mean 'road'?)"});
}

}  // namespace
}  // namespace terrabit::test
