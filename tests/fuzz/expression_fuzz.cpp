// Fuzzes the layer expression language end to end: parse + check (ExpressionAst::parse), compile
// (LayerProgram), evaluate on tiles with real-looking content (LayerEvaluator) and measure the
// result (coverageOf). Contracts checked beyond "no crash, no UB":
//  - a rejected document has a diagnostic whose line and column lie inside the text;
//  - a compiled program reads no further than kMaxReach and evaluates every tile of its zoom;
//  - for programs cheap enough, the fast evaluator gives exactly the cells of the naive
//    per-cell reference evaluator of tests/core/algebra (differential fuzzing).
// Input: one byte choosing the fixture (zoom, place, layer content, terrain heights or none),
// then the document's text.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "../core/algebra/algebra_test_support.h"
#include "fuzz_check.h"
#include "terrabit/core/algebra/area_coverage.h"
#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/algebra/layer_program.h"

namespace {

using namespace terrabit;
using core::algebra::ExpressionAst;
using core::algebra::ExpressionDiagnostic;
using core::algebra::ExpressionOptions;
using core::algebra::LayerEvaluator;
using core::algebra::LayerProgram;
using fuzz::require;

/// A block of tiles with random layer content, and in every other fixture random terrain heights
/// (with holes and tiles without any), built once per process (filling is the slow part; the
/// fuzzer varies the expression, the fixture byte picks one of these).
struct Fixture {
    test::TileBlock block;
    test::MemoryLayers layers{{"building", "grass", "road", "water", "tree", "building:part"}};
};

std::vector<Fixture>& fixtures() {
    static std::vector<Fixture> all = [] {
        // Monaco at z17; the world's north-west corner (pole rows, wrap west); zoom 1, where the
        // world is two tiles wide and shifts and halos wrap onto the block itself.
        const test::TileBlock blocks[] = {{17, 68240, 47676, 1, 1}, {17, 0, 0, 1, 1}, {1, 0, 0, 2, 1}};
        std::vector<Fixture> out;
        std::uint64_t seed = 1;
        for (const test::TileBlock& b : blocks) {
            for (int variant = 0; variant < 2; ++variant) {
                Fixture f;
                f.block = b;
                std::mt19937_64 rng(seed++);
                test::fillRandom(f.layers, b, rng);
                if (variant == 1) test::fillRandomHeights(f.layers, b, rng);
                out.push_back(std::move(f));
            }
        }
        return out;
    }();
    return all;
}

/// True when the naive reference is fast enough to run on every input: it reads every layer
/// cell of each node's whole neighbourhood, so its cost grows with nodes × reach².
bool cheapForReference(const ExpressionAst& ast, const LayerProgram& program) {
    return ast.nodes.size() <= 48 && program.haloRows() <= 6 && program.haloCells() <= 6;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0 || size > 4096) return 0;
    Fixture& f = fixtures()[data[0] % fixtures().size()];
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

    ExpressionOptions options;
    options.zoom = f.block.zoom;
    options.latitude = 43.73;
    options.seed = 7;
    ExpressionDiagnostic diagnostic;
    auto ast = ExpressionAst::parse(text, f.layers.layerNames(), options, &diagnostic);
    if (!ast) {
        require(!ast.message().empty() && ast.message() == diagnostic.text(), "the error is the diagnostic's text");
        require(diagnostic.line >= 1 && diagnostic.column >= 1 && diagnostic.length >= 1,
                "a diagnostic points at a spot");
        const auto lines = 1 + std::count(text.begin(), text.end(), '\n');
        require(diagnostic.line <= lines, "a diagnostic's line is inside the text");
        return 0;
    }

    const LayerProgram program = LayerProgram::compile(*ast);
    require(program.zoom() == f.block.zoom, "the program runs at the options' zoom");
    require(program.haloRows() <= core::algebra::kMaxReach && program.haloCells() <= core::algebra::kMaxReach,
            "a program reads at most kMaxReach beyond its tile");
    (void)program.listing();

    LayerEvaluator evaluator(program);
    const std::vector<core::TileId> tiles = f.block.tiles();
    test::CellGrid fast(f.block.cellX0(), f.block.cellY0(), f.block.cellWidth(), f.block.cellHeight());
    core::BitTile out;
    for (const core::TileId& tile : tiles) {
        require(evaluator.evaluate(f.layers, tile, out).ok(), "a compiled program evaluates every tile of its zoom");
        const core::algebra::AreaCoverage area = core::algebra::coverageOf(out, tile);
        require(area.cells == static_cast<std::int64_t>(out.count()), "coverage counts the set cells");
        require(std::isfinite(area.squareMetres) && area.squareMetres >= 0.0, "coverage is a finite area");
        for (int y = 0; y < core::BitTile::kSize; ++y)
            for (int x = 0; x < core::BitTile::kSize; ++x)
                fast.at(std::int64_t{tile.x} * 256 + x, std::int64_t{tile.y} * 256 + y) = out.test(x, y);
    }

    if (cheapForReference(*ast, program)) {
        const test::CellGrid naive = test::naiveEvaluate(*ast, f.layers, f.block);
        const std::string difference = test::firstDifference(naive, fast);
        if (!difference.empty()) {
            std::fprintf(stderr, "expression:\n%.*s\nlisting:\n%s\n%s\n", static_cast<int>(text.size()), text.data(),
                         program.listing().c_str(), difference.c_str());
        }
        require(difference.empty(), "the fast evaluator gives the reference's cells");
    }
    return 0;
}
