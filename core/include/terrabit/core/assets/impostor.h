#pragma once
/// Impostor cards: a far stand-in for a model (a tree, a lamp post) that costs a few dozen
/// triangles where the model costs hundreds. The viewport draws plants as cards between their
/// full models near the camera and nothing far off (render::DistanceLod).

#include "terrabit/core/assets/asset_mesh.h"

namespace terrabit::core {

/// Two crossed vertical cards through the model's centre: one in its X–Y plane, one in its Z–Y
/// plane, each the model's side silhouette as a stack of trapezoids between `levels` heights
/// spread from its bottom to its top. A trapezoid's ends are the model's extent along the card
/// on those two level lines (what its triangles cross there, gaps filled), coloured by the mean
/// colour of what they cross (weighted by length), shaded as a sky lights it ((1 + n_y) / 2 of
/// the normals there). Normals point up, so a card is lit alike from either side and about as
/// much as the model's surfaces on average; each card is one-sided (counter-clockwise seen from +Z, resp. from +X) and
/// is meant to be drawn without back-face culling. 4 (levels - 1) triangles at most; empty for
/// an empty or flat mesh or fewer than two levels.
AssetMesh crossCardImpostor(const AssetMesh& mesh, int levels = 10);

}  // namespace terrabit::core
