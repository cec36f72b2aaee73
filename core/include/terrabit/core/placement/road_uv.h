#pragma once
/// Texture coordinates that run along the roads: a road surface's texture follows each way
/// round its bends instead of lying north-up over the town, as a lane or kerb texture a game
/// engine puts on the road must.
///
/// Each triangle of a surface goes to the way it lies deepest in (its centroid nearest the
/// centreline for the way's half width), and each of its corners gets (metres along that way
/// from its part's first vertex, metres across it from the centreline, positive to its left).
/// Along a way the coordinates are continuous: within a segment `along` runs linearly between
/// the mitre lines that bisect the way's bends, where the two segments meeting give the same
/// value, so a texture neither jumps nor slides at a bend; and they are measured on the whole
/// way, so it runs on across tile edges. Where two ways meet their coordinates meet at a seam,
/// as two painted roads do. Triangles no way reaches (an area: a square, a lake) get NaN: the
/// exporters give those the scene position, as every other surface.

#include <span>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::placement {

/// Cells beyond a way's half width that a triangle's centroid may lie and still be given to it
/// (a buffer's arcs and the grid's rounding put corners a little outside the half width).
inline constexpr double kRoadUvReachCells = 1.0;

/// How far (metres) the coordinates interpolated over a triangle may stray from the way's at a
/// bend before the triangle is cut there.
inline constexpr double kRoadUvToleranceMetres = 0.1;

/// The (along, across) metres of every corner of `triangles` (tile cells, three corners each,
/// as SurfaceShape::triangles) for the line features of `tile` in `index` whose layer has
/// `inLayer` set (a layer and its classes), at `metresPerCell`; into `out`, one per corner,
/// NaN for triangles no way reaches. Bridge ways are left out when `leaveOutBridges` (their
/// deck stands for them on terrain, as in the surface's shape).
///
/// Triangles are cut in place along the mitre lines of the bends they span (within the road's
/// width), where interpolating the coordinates of an edge's ends would miss the way's by more
/// than kRoadUvToleranceMetres: each piece then lies on one segment's stretch of its way, where
/// the coordinates are nearly linear, where interpolating across a bend would turn the texture
/// with the triangle instead of the road. The pieces cover the triangle exactly and keep its
/// turn; whether and where an edge is cut depends on the edge alone, so an edge two triangles
/// share (in one tile or two) is cut at the same point in both, and the cuts open no crack.
void roadTextureCoordinates(const TileIndex& index, const TileId& tile, const std::vector<char>& inLayer,
                            double metresPerCell, bool leaveOutBridges, std::vector<Vec2>& triangles,
                            std::vector<Vec2>& out);

}  // namespace terrabit::core::placement
