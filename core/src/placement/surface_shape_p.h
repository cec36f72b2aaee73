#pragma once
/// Internal to core: what only the tests ask of surface_shape.h (not API; the tests include it
/// from the source folder).

#include <span>

#include "terrabit/core/geometry.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core::placement {

/// The share (0..1) of the outline length of `patches`' shapes that runs exactly north–south
/// or east–west: the staircase of cell edges. Edges lying on a tile's border or on the border
/// of `cutCells` (the map's extent in global cells, where the sea is closed along it) are left
/// out: they are where the tile or the data cuts the surface, not its outline. 0 for no outline.
double staircaseShare(std::span<const SurfacePatch* const> patches, const Box2& cutCells = {});

}  // namespace terrabit::core::placement
