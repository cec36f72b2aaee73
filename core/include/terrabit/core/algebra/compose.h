#pragma once
/// compose(): the layer algebra over a set of tiles — what `terrabit-cli compose` and the
/// expression editor run. Compiles the expression once, evaluates every tile (optionally on
/// several threads, one LayerEvaluator each) and measures the coverage of each tile and of the
/// whole set. The result does not depend on the thread count or the order of the tiles.

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "terrabit/core/algebra/area_coverage.h"
#include "terrabit/core/algebra/expression_diagnostic.h"
#include "terrabit/core/algebra/layer_program.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"

namespace terrabit::core::algebra {

struct ComposeOptions {
    std::uint64_t seed = 0;  ///< the scene seed random() and noise() depend on
    /// Latitude in degrees where distances in metres become cells. NaN (the default): the middle
    /// of the tiles' latitude range.
    double latitude = std::numeric_limits<double>::quiet_NaN();
    int threads = 1;  ///< evaluation threads; 0 means one per hardware thread
};

struct ComposeResult {
    std::vector<TileId> tiles;           ///< the tiles, in the order given
    std::vector<BitTile> masks;          ///< the expression's mask of each tile
    std::vector<AreaCoverage> coverage;  ///< coverage of each tile
    AreaCoverage total;                  ///< coverage of all tiles (summed in the order given)
    LayerProgram program;                ///< the compiled expression
    double latitude = 0.0;               ///< degrees: where metres were converted to cells
};

/// Evaluates `expression` (see expression_ast.h) on every tile. Fails with the expression's
/// diagnostic text (message, source line, caret; also in *diagnostic if given) when it does not
/// compile, when the tile list is empty or mixes zooms, when the source cannot be read, or when
/// the progress callback asks to stop. Progress is reported from the calling thread only.
Result<ComposeResult> compose(const LayerSource& source, std::span<const TileId> tiles, std::string_view expression,
                              const ComposeOptions& options = {}, const ProgressCallback& progress = {},
                              ExpressionDiagnostic* diagnostic = nullptr);

}  // namespace terrabit::core::algebra
