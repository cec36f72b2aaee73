#pragma once
// Private to placement: where a model of a given size stands in one footprint — the building
// pass's pose search. A footprint's window (its cells, what is taken and kept off around it)
// and its target box in cells are set up by the pass; findPose then tries a model's poses on
// the box's axes, looks at a few cells of each and runs the AND scan on the ones worth it.

#include <array>
#include <span>
#include <utility>
#include <vector>

#include "footprint_window_p.h"
#include "ground_p.h"
#include "model_cells_p.h"
#include "pose_set_p.h"
#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/geometry.h"
#include "terrabit/core/placement/occupancy_map.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::core::placement::detail {

/// A rectangle one of the current footprint's models stands on, on its target box's axes: its
/// centre's offset from the box's centre along the width (u) and depth (v) axes, and its half
/// extents along them, ground metres.
struct OwnRect {
    double u = 0.0, v = 0.0, halfU = 0.0, halfV = 0.0;
};

/// One footprint's search state, set up by the building pass for each footprint and kept across
/// the searches for its models. After the first buildings nothing here allocates.
struct FootprintSearch {
    FootprintWindow window;
    /// The target box in global cells: its centre, and its width and depth axes in cells per
    /// ground metre.
    Vec2 cellCentre, cellU, cellV;
    int poseBudget = 0;  ///< poses the current footprint may still test
    int lookBudget = 0;  ///< poses the current footprint may still look at
    /// The rectangles of the models placed in the footprint so far (a box model's box, an outline
    /// model's rectangles): a pose overlapping one is refused without a look.
    std::vector<OwnRect> ownRects;
    std::vector<OutlineRect> outline;      ///< the model being tried: its ground outline, scaled (empty: its box)
    std::vector<CellSpan> spans;           ///< the cells of the pose found last
    std::array<Vec2, 4> corners;           ///< the pose being tested, global cells
    std::vector<Vec2> outlineLooks;        ///< its rectangles' centres from the pose's centre, cells
    std::vector<CellSpan> outlineScratch;  ///< modelCells' scratch
};

/// What of the rules a pose search keeps to.
struct PoseLimits {
    double marginMetres = 0.0;         ///< a model keeps this far inside its target box
    double tolerance = 0.0;            ///< the share of a pose's cells that may lie outside the footprint
    double maxGroundStepMetres = 0.0;  ///< on terrain: the most the ground may rise under a pose
    double cellMetres = 1.0;           ///< a cell's edge on the ground
};

/// Where a pose search ended.
struct PoseSearch {
    bool found = false;
    bool inReach = false;           ///< some pose lay within the tiles around the owner
    bool blocked = false;           ///< some pose was refused for cells taken or kept off (something stands there)
    bool tooSteep = false;          ///< some clear pose stood on ground steeper than max_ground_step
    bool cutShort = false;          ///< the footprint's budget ran out before every pose was looked at
    OrientedBox box;                ///< the pose found, ground metres
    double offU = 0.0, offV = 0.0;  ///< its centre's offset from the target box's, along its axes
    std::pair<float, float> ground{terrain::kNoHeight, terrain::kNoHeight};
};

/// Searches the target box for a pose of a model of `w` × `d` ground metres (along the box's
/// width and depth): the box's centre first, then offsets ring by ring outwards (about a cell
/// apart, at most kPoseSteps each way), the first pose whose conservative cells pass the AND
/// scan (FootprintWindow::test) and, on terrain, the ground step. Leaves its cells in s.spans.
///
/// A model whose ground outline is not its box (s.outline not empty, scaled; an L, a U, a
/// courtyard block) stands on its outline's cells only (modelCells), and is looked at in its
/// rectangles' centres. `turned` and `reversed` say how the model lies on the box's axes.
/// `ground`: the heights a pose's ground step is measured on; null without terrain.
PoseSearch findPose(const PoseLimits& limits, const OrientedBox& box, double w, double d, bool turned, bool reversed,
                    FootprintSearch& s, const CellRegion& region, GroundSampler* ground);

/// The lowest and highest height at every corner of every cell of the spans, metres; both
/// NaN when none of them has a height. Corners without a height are left out.
std::pair<float, float> groundRange(std::span<const CellSpan> spans, GroundSampler& ground);

}  // namespace terrabit::core::placement::detail
