#pragma once
/// Target boxes of building footprints: the box a prefab model has to fit. Two kinds, both in
/// ground metres (x east, y north): the axis-aligned box of the footprint, and its minimum-area
/// oriented box found with rotating calipers on the convex hull, so rotated buildings get
/// rotated models.

#include <array>
#include <span>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core::placement {

/// The convex hull of points (Andrew's monotone chain), counter-clockwise with y up, starting
/// at the lowest-x (then lowest-y) point, without collinear or repeated points. Fewer than three
/// distinct non-collinear points give the distinct extreme points (0, 1 or 2 of them). `hull` is
/// overwritten; after it has grown once, no allocation. Non-finite points are ignored.
void convexHull(std::span<const Vec2> points, std::vector<Vec2>& hull);

/// The smallest-area rectangle enclosing a convex polygon given counter-clockwise (as
/// convexHull returns it), by rotating calipers: the best rectangle has a side on a hull edge
/// (Freeman & Shapira 1975), and the three other support points only move forward as the edge
/// advances, so the search is linear in the hull's size. The angle is normalised to
/// (-pi/4, pi/4] (the width axis is the side nearest east). An empty hull gives a zero box at the
/// origin, one point a zero box there, two points a zero-depth box along their segment.
OrientedBox minimumAreaBox(std::span<const Vec2> hull);

/// The axis-aligned box of points (angle 0, width along east); a zero box at the origin when
/// there is no finite point.
OrientedBox axisAlignedBox(std::span<const Vec2> points);

/// The box's corners, counter-clockwise (y up) from the one at -width, -depth.
std::array<Vec2, 4> boxCorners(const OrientedBox& box);

/// The box's area, square metres (or square units of its space).
inline double boxArea(const OrientedBox& box) { return 4.0 * box.halfExtents.x * box.halfExtents.y; }

}  // namespace terrabit::core::placement
