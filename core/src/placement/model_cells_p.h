#pragma once
// Private to placement: the cells a placed model stands on, from its ground outline
// (AssetInfo::outline) — the building pass's test of a pose when the model is not a box.

#include <span>
#include <vector>

#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/geometry.h"
#include "terrabit/core/placement/occupancy_map.h"

namespace terrabit::core::placement::detail {

/// A placed model's axes in global cells: cells per metre along its +X (width) and +Z (depth).
struct ModelAxes {
    Vec2 x;  ///< cells per metre along the model's +X
    Vec2 z;  ///< cells per metre along the model's +Z
};

/// The axes of a model placed in a box whose width axis u = (cos a, sin a) and depth axis
/// v = (-sin a, cos a) (ground metres) are `cu` and `cv` in cells per metre, with the
/// building pass's yaw: a (model +X along u, +Z along -v, the front facing away from v), or
/// a + π/2 when `turned` (+X along v, +Z along u). An asymmetric outline (an L) lands where
/// the rendered instance stands only with these axes.
inline ModelAxes modelAxes(Vec2 cu, Vec2 cv, bool turned) {
    return turned ? ModelAxes{cv, cu} : ModelAxes{cu, Vec2{} - cv};
}

/// Scales outline rectangles (metres, model axes) by the fit's width and depth scales into
/// `out` (cleared first; no allocation once it has grown).
void scaleOutline(std::span<const OutlineRect> outline, double widthScale, double depthScale,
                  std::vector<OutlineRect>& out);

/// Rasterizes a placed model's outline under the conservative rule, as footprintSpans does its
/// box: a cell is taken when its open interior meets one of the closed rectangles. `outline` is
/// in metres on the model's axes about its centre, already scaled; the rectangle [x0, x1] ×
/// [z0, z1] stands on the quadrilateral mid + axes.x · x + axes.z · z (global cells). Writes the
/// taken cells as row spans sorted by row, then x, one span per run of cells (overlapping and
/// touching spans merged: no cell twice). Returns false, `spans` unspecified, when a rectangle
/// reaches outside `region` or is not finite — exactly when footprintSpans would refuse one of
/// them. An empty outline takes no cell (pass the box as one rectangle for a box model).
///
/// A one-rectangle outline gives exactly footprintSpans' spans for the same four corners, bit
/// for bit: the corners are computed as mid + (axes.x · x + axes.z · z) and listed in the turn
/// findPose lists a box's (so the box {-w/2, -d/2, w/2, d/2} with axes {cu, cv} reproduces
/// findPose's cells). `scratch` holds one rectangle's spans; neither vector allocates once grown.
bool modelCells(std::span<const OutlineRect> outline, Vec2 mid, const ModelAxes& axes, const CellRegion& region,
                std::vector<CellSpan>& spans, std::vector<CellSpan>& scratch);

}  // namespace terrabit::core::placement::detail
