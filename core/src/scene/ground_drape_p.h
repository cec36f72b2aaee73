#pragma once
/// Internal to core: what only the tests ask of ground_drape.h (not API; the tests include it
/// from the source folder).

#include "terrabit/core/geometry.h"
#include "terrabit/core/terrain/ground_mesh.h"

namespace terrabit::core {

/// The height of the ground mesh at a point of the tile (cells, x east, y south, 0..256), in
/// metres above the DEM's datum: the plane of the mesh triangle holding it. NaN outside the tile
/// or for an empty mesh. Linear in the triangles (for tests and probes, not hot loops).
double groundMeshHeight(const terrain::GroundMesh& mesh, Vec2 cell);

}  // namespace terrabit::core
