#include "terrabit/render/mask_tiles.h"

#include <set>

#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/algebra/layer_program.h"

namespace terrabit::render {

core::Result<MaskTiles> MaskTiles::evaluate(const core::LayerSource& source, std::span<const core::TileId> tiles,
                                            std::string_view expression,
                                            const core::algebra::ExpressionOptions& options, bool withNeighbours) {
    core::Result<core::algebra::LayerProgram> program =
        core::algebra::LayerProgram::compile(expression, source.layerNames(), options);
    // The expression is what the user typed: a bad one is a bad argument.
    if (!program) return core::badArguments("expression '" + std::string(expression) + "': " + program.message());
    std::set<core::TileId> wanted(tiles.begin(), tiles.end());
    if (withNeighbours) {
        for (const core::TileId& t : tiles) {
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    if (const auto n = t.neighbour(dx, dy)) wanted.insert(*n);
                }
            }
        }
    }
    MaskTiles result;
    result.mExpression = std::string(expression);
    core::algebra::LayerEvaluator evaluator(std::move(program).value());
    core::BitTile bits;
    for (const core::TileId& t : wanted) {
        const core::Status s = evaluator.evaluate(source, t, bits);
        if (!s)
            return core::Error{"expression '" + std::string(expression) + "' on tile " + t.quadkey() + ": " +
                               s.message()};
        if (bits.any()) result.mTiles.emplace(t, bits);
    }
    return result;
}

const core::BitTile* MaskTiles::tile(const core::TileId& id) const {
    const auto it = mTiles.find(id);
    return it == mTiles.end() ? nullptr : &it->second;
}

}  // namespace terrabit::render
