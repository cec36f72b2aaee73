#pragma once
/// Greedy meshing of a bit tile: its set cells as a few merged rectangles instead of one quad per
/// cell, for road and water ground surfaces.

#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core::placement {

/// Rectangles [x0, x1) × [y0, y1) (cells) that cover exactly the set cells of `cells`, without
/// overlapping. Each rectangle starts at the first remaining set cell in row order, takes the
/// whole run of set cells from there along the row, then grows south while the rows below still
/// hold that whole run. Works a 64-cell word at a time. Deterministic; an empty tile gives no
/// rectangle, a full one a single rectangle. `out` is overwritten and `scratch` clobbered (the
/// caller's memory: no allocation once `out` has grown).
void greedyMesh(const BitTile& cells, std::vector<CellRect>& out, BitTile& scratch);

}  // namespace terrabit::core::placement
