#pragma once
// Private to core: the segment test repairGeometry (geometry_repair.cpp) looks for crossing ring
// edges with. Tests see it through their private include of core/src, to check the repair's
// crossings against every pair of edges.

#include "terrabit/core/geometry.h"

namespace terrabit::core {

/// True when segments ab and cd cross at a single point interior to both (touching at an end
/// point or overlapping collinearly is not a proper crossing).
bool segmentsCross(Vec2 a, Vec2 b, Vec2 c, Vec2 d);

}  // namespace terrabit::core
