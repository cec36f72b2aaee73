#pragma once
/// groundOutline: where a model stands, measured from its mesh as a few axis-aligned rectangles
/// (AssetInfo::outline). The catalogue measures it for models whose mesh it reads and
/// terrabit-assetgen writes it for the default library's courtyard, L and U blocks; placement
/// rasterizes it instead of the footprint box, so such a model fits footprints that hold its wings
/// but not its whole box.

#include <vector>

#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/assets/asset_mesh.h"

namespace terrabit::core {

/// How groundOutline measures.
struct GroundOutlineOptions {
    /// Raster step, metres: the outline is exact on a grid of this step through the footprint's
    /// centre, and never smaller than the mesh's projection (conservative). A model more than
    /// 4,096 steps across is rasterized at its size / 4,096 instead, so the grid stays small.
    double stepMetres = 0.25;
    /// At most this many rectangles; neighbours are merged into their bounding box (which only
    /// grows the outline) until the count fits.
    int maxRects = 8;
    /// When the rectangles cover at least this share of the footprint box, the outline is the
    /// box (an empty result): a model that is a box save for a porch, eaves, balconies or steps
    /// keeps the placement of a box. The default library's such models cover 87–100 % of their
    /// boxes; its L, U and courtyard blocks 65 %, 76 % and 79 %.
    double boxShare = 0.85;
    /// Faces lying wholly within this height of the mesh's lowest point are paving, not where the
    /// model stands (a courtyard's floor), metres.
    double groundSkinMetres = 0.1;
};

/// The mesh's ground outline: its triangles projected onto the XZ plane (faces seen edge-on
/// from above, the walls, project to lines and are skipped: the roofs and floors above them cover
/// the same ground; so are faces within `groundSkinMetres` of the ground), rasterized conservatively at `stepMetres` on
/// a grid through the centre of the mesh's XZ bounds (a cell counts when a projection enters its interior by more than
/// 0.1 mm), then decomposed greedily into the largest rectangles of covered cells, merged down to `maxRects`.
/// Rectangles are in metres relative to the centre of the XZ bounds (the footprint centre), clipped to the bounds,
/// sorted by z0 then x0. Empty when the mesh is empty, flat in X or Z, has no face seen from above, or when the
/// rectangles cover at least `boxShare` of the bounds: the whole footprint box.
std::vector<OutlineRect> groundOutline(const AssetMesh& mesh, const GroundOutlineOptions& options = {});

}  // namespace terrabit::core
