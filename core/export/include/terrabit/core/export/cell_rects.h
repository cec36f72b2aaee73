#pragma once
/// Merging the set cells of a bit tile into few rectangles (greedy meshing), so a flat layer
/// becomes a handful of quads instead of one per cell.

#include <span>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// Rectangles [x0, x1) × [y0, y1) (cells) that cover exactly the set cells of the tile, without
/// overlapping. Greedy: each rectangle starts at the first remaining set cell in row order,
/// takes the longest run of the row, then grows south while the rows below hold the whole run.
/// Deterministic; an empty tile gives none, a full tile one.
std::vector<CellRect> mergeCellsIntoRects(const BitTile& cells);

/// The cells covered by the rectangles (clamped to the tile).
BitTile cellsOfRects(std::span<const CellRect> rects);

}  // namespace terrabit::core
