#pragma once
/// Hillshade: how brightly a light from one direction lights each cell of a tile's terrain — the
/// shaded relief the map browser draws under the layers. A cell's shade depends on its own four
/// corner heights and the ground size of its row only (the relief layers' gradient,
/// algebra/expression_ast.h), so tiles shade the same in any order and meet without seams.

#include <span>

#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::core::terrain {

/// Where the light comes from.
struct HillshadeLight {
    double azimuthDegrees = 315.0;  ///< compass bearing the light comes from, clockwise from north (315: north-west)
    double altitudeDegrees = 45.0;  ///< angle of the light above the horizon, 0..90
};

/// The shade of a cell from its corners h00 (north-west), h10 (north-east), h01 (south-west) and
/// h11 (south-east), metres, whose side is `cellSize` ground metres: the cosine of the angle
/// between the bilinear surface's normal at the cell's centre and the direction of the light,
/// clamped to 0..1 (0: facing away from the light or in its shade; a flat cell gives
/// sin(altitude)). The gradient is the relief layers': east ((h10 - h00) + (h11 - h01)) / 2s,
/// south ((h01 - h00) + (h11 - h10)) / 2s. NaN when a corner has no height (NaN).
float cellHillshade(float h00, float h10, float h01, float h11, double cellSize, const HillshadeLight& light = {});

/// Shades every cell of `heights`' tile into `out`: kTileCells × kTileCells values, row-major
/// (cell (x, y) at y * kTileCells + x, north row first), each cellHillshade of the cell's corners
/// with the ground size of its row (algebra::ReliefMask::groundCellSize). NaN for cells with a
/// corner without height. `out` must hold kTileCells² values; `heights` must be filled.
void hillshadeTile(const HeightTile& heights, std::span<float> out, const HillshadeLight& light = {});

}  // namespace terrabit::core::terrain
