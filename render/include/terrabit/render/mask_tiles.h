#pragma once
/// MaskTiles: a layer expression evaluated over a set of tiles, for the ground's expression view
/// and the heat-map overlay. A plain layer name is an expression too.

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::render {

class MaskTiles {
public:
    /// No tiles: every tile reads as clear.
    MaskTiles() = default;

    /// Compiles `expression` against the source's layer names (options: the tiles' zoom, the
    /// scene's latitude and seed) and evaluates it on every tile, and also on their eight
    /// neighbours when `withNeighbours` (the heat map's window reaches across borders).
    /// Errors: the expression's diagnostic (message, line, caret), or a tile at another zoom.
    static core::Result<MaskTiles> evaluate(const core::LayerSource& source, std::span<const core::TileId> tiles,
                                            std::string_view expression,
                                            const core::algebra::ExpressionOptions& options, bool withNeighbours);

    /// The mask of a tile; nullptr when it was not evaluated or is empty there.
    const core::BitTile* tile(const core::TileId& id) const;
    const std::string& expression() const { return mExpression; }
    /// Tiles with a set cell.
    std::size_t size() const { return mTiles.size(); }

private:
    std::string mExpression;
    std::unordered_map<core::TileId, core::BitTile> mTiles;
};

}  // namespace terrabit::render
