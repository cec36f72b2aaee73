#pragma once
/// The ground of a scene with terrain in scene coordinates, and what lies on it: every export
/// (the GLB and 3D Tiles writers, render's scene graph and so osgb and the viewport) draws a
/// tile's GroundTile and drapes the road and water surfaces (SurfacePatch) on it through these
/// functions, so they all put the same vertices in the same places.
///
/// Draping is exact: a surface's rectangles are clipped against the ground mesh's triangles, and
/// every piece lies in the plane of the triangle it was cut from, raised by the patch's
/// elevation. A surface therefore never floats above the ground drawn nor sinks under it (but
/// for its own elevation), however coarse the mesh is there. A piece is a convex polygon of at
/// most 7 corners, fanned into triangles; a mesh triangle whose bounding cells all lie in the
/// rectangles is taken whole. Real-shape surfaces (SurfaceShape's triangles) drape the same way,
/// each triangle cut along the mesh's.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/scene/scene.h"
#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::core {

/// Triangles in scene coordinates, ready for a vertex buffer: three floats of position and
/// three of unit normal per vertex, three indices per triangle, counter-clockwise seen from
/// above (the front face is the top).
struct GroundTriangles {
    std::vector<float> positions;
    std::vector<float> normals;
    /// Per vertex, the point in the tile's cells (x east, y south, 0..256): texture coordinates.
    std::vector<float> cells;
    /// Per vertex, when the triangles draped had them (SurfacePatch::roadUv): metres along and
    /// across a road, NaN where none; else empty.
    std::vector<float> roadUv;
    std::vector<std::uint32_t> indices;

    std::size_t vertexCount() const { return positions.size() / 3; }
    std::size_t triangleCount() const { return indices.size() / 3; }
    bool empty() const { return indices.empty(); }
};

/// The scene position of a sample of `tile` at a height above the DEM's datum: the global cell
/// corner through the scene's frame, y = height − scene.originHeight. Computed from the global
/// corner, so two tiles sharing the sample get the same bits.
Vec3f groundVertexPosition(const Scene& scene, const TileId& tile, double column, double row, double height);

/// Makes the GroundTile of `mesh`: the mesh and a unit normal per vertex from the heights
/// around each sample. `neighbours` are the heights of the tiles north, east, south and west
/// (nullptr or empty: the tile's own edge is used, one-sided). NaN heights count as 0 m, as in
/// the mesh. `metresPerCell` is the scene frame's (GroundFrame::metresPerCell()).
GroundTile makeGroundTile(terrain::GroundMesh mesh, const terrain::HeightTile& heights,
                          const std::array<const terrain::HeightTile*, 4>& neighbours, double metresPerCell);

/// The whole ground of a tile: the mesh's vertices (shared) and triangles.
GroundTriangles groundTriangles(const Scene& scene, const GroundTile& ground);

/// The cells of `rects` (non-overlapping, within the tile) draped on the ground, `offset`
/// metres above it (a patch's elevation), normals interpolated from the mesh's. The ground
/// less some holes is the drape of the rectangles of the cells left, at offset 0.
GroundTriangles drapeRects(const Scene& scene, const GroundTile& ground, std::span<const CellRect> rects, float offset);

/// Triangles in the tile's cells (three corners each, counter-clockwise seen from above, as
/// SurfaceShape::triangles) draped on `ground` `offset` metres above it: each is cut along the
/// mesh's triangles and every piece lies in the plane of the one it was cut from, normals
/// interpolated from the mesh's. Without a ground (nullptr or an empty mesh) they lie flat,
/// `offset` metres above y = 0, facing up. The GLB, 3D Tiles and render draw real-shape surfaces
/// (and the ground around sunken ones) through this.
/// `roadUv`, when not empty, holds (along, across) metres per corner of `triangles`: each
/// vertex gets them interpolated in its triangle (GroundTriangles::roadUv).
GroundTriangles drapeTriangles(const Scene& scene, const TileId& tile, const GroundTile* ground,
                               std::span<const Vec2> triangles, float offset, std::span<const Vec2> roadUv = {});

/// The walls along the outline of `triangles` (tile cells, as drapeTriangles takes them): every
/// edge no other of them shares, but those on the tile's border (the surface runs on into the
/// next tile), stands as a vertical quad from `bottom` to `top` metres above the ground, facing
/// away from its triangle, its foot following the ground as drapeTriangles' pieces do (cut where
/// it crosses the mesh's triangles, in their planes): what a kerb raises a sidewalk on.
/// Normals horizontal; `cells` hold each vertex's point in the tile.
GroundTriangles drapeWalls(const Scene& scene, const TileId& tile, const GroundTile* ground,
                           std::span<const Vec2> triangles, float bottom, float top);

/// A textured surface's texture coordinates, two floats per vertex of `positions` (scene x, y, z
/// triples): one copy of the texture per `repeatMetres` along and across its road where the
/// vertex has road coordinates (`roadUv` as GroundTriangles::roadUv, may be empty), else east
/// (u) and south (v) of the scene's origin, so a texture runs on across tiles and files.
std::vector<float> surfaceTextureCoordinates(std::span<const float> positions, std::span<const float> roadUv,
                                             double repeatMetres);

}  // namespace terrabit::core
