#pragma once
// Private to core: the per-row cell areas coverageOf (area_coverage.cpp) weighs a tile's cells
// by. Tests see it through their private include of core/src, to check it against
// metresPerCell.

#include <array>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::algebra {

/// Ground area of one cell in each row of a tile, m², north row first: metresPerCell at the
/// latitude of the row's centre, squared. Computed with one exponential per tile (a geometric
/// recurrence along the rows), within 1e-12 of calling metresPerCell per row.
std::array<double, BitTile::kSize> cellAreas(const TileId& tile);

}  // namespace terrabit::core::algebra
