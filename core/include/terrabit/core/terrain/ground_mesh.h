#pragma once
/// GroundMesh: one tile's ground as an adaptive triangle mesh, simplified from its HeightTile
/// within a stated vertical error, with no cracks against its neighbour tiles (issue #18 Terrain).
///
/// The mesh is an RTIN (right-triangulated irregular network, as in Mapbox's Martini): the
/// square of 256 × 256 cells is cut along its north-west to south-east diagonal into two right
/// triangles, and a triangle is split at the midpoint of its hypotenuse into two halves, down to
/// triangles with legs of one cell. Every vertex is a sample (a cell corner) of the HeightTile.
///
/// Error metric (the true deviation, stricter than Martini's midpoint-only one). For a triangle
/// T of the hierarchy, dev(T) is the largest |value − plane through T's three vertices| over
///  - every sample inside or on T, its value the sample's height, and
///  - every cell centre inside or on T (centres lie inside a triangle or on a diagonal edge),
///    its value the mean of the cell's four corners (the bilinear surface of heightAt()).
/// The error of a vertex v is the largest dev(T) over the (one or two) triangles whose
/// hypotenuse midpoint is v, raised to at least the errors of the midpoints of those triangles'
/// children (Martini's upward propagation). buildGroundMesh splits T iff its midpoint's error
/// exceeds the bound, so every triangle it keeps that is larger than one cell's half has every
/// sample and every cell centre it holds within the bound of its plane.
///
/// Guarantee (pinned by tests/core/terrain/ground_mesh_test.cpp): every sample is within
/// maxErrorMetres of the mesh. Every cell centre is too, except in a cell the mesh cuts into its
/// two unit triangles (full resolution there, nothing finer to split into): the mesh follows
/// the cell's diagonal, and the centre is off by the cell's own twist,
/// |h(p) + h(q) − h(r) − h(s)| / 4 (p, q on the diagonal).
///
/// No height: samples without a height (NaN, kNoHeight) count as 0 m in this step, in the errors
/// and in the mesh's vertices; filling them from their surroundings is a separate step. A tile
/// with no height at all (every sample NaN, or an empty HeightTile) gives an empty mesh.
///
/// Cost: rtinErrors visits every sample and cell centre once per level of the hierarchy (16
/// levels, about 2.1 million visits per tile) and allocates nothing but its result;
/// buildGroundMesh is linear in the samples. Neither keeps state; one scratch per thread.

#include <array>
#include <cstdint>
#include <vector>

#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::terrain {

/// The default vertical error bound of a ground mesh, metres.
inline constexpr float kDefaultGroundErrorMetres = 0.5F;

/// The RTIN error of every sample of one tile: how far the mesh would be off, at worst, if the
/// sample were left out. Plain data, made by rtinErrors().
struct RtinErrors {
    /// kHeightSampleCount errors, row-major like HeightTile::heights (index row * 257 + column),
    /// metres, ≥ 0, rounded up to the next float. The four corners hold 0 (a mesh always keeps
    /// them). Monotone: a vertex's error is ≥ the errors of its children's midpoints. Empty for
    /// an empty HeightTile.
    std::vector<float> errors;

    /// The error at sample (row, column), both 0..256, metres.
    float at(int row, int column) const { return errors[HeightTile::index(row, column)]; }
};

/// What rtinErrors needs between calls. Reused, it makes rtinErrors allocate nothing after the
/// first tile; one per thread.
struct RtinScratch {
    std::vector<float> samples;  ///< the heights with NaN as 0, metres, 257 × 257 row-major
    std::vector<float> centres;  ///< each cell's mean of its four corners, metres, 256 × 256
};

/// The RTIN errors of `heights` (see the file comment), written into `out` (its storage reused).
/// An empty HeightTile gives empty errors.
void rtinErrors(const HeightTile& heights, RtinErrors& out, RtinScratch& scratch);
/// The RTIN errors of `heights`, with scratch of its own (allocates).
RtinErrors rtinErrors(const HeightTile& heights);

/// One vertex of a GroundMesh: a sample of the tile and its height.
struct GroundVertex {
    std::uint16_t column = 0;  ///< sample column, 0..256 (cells from the tile's west edge, x east)
    std::uint16_t row = 0;     ///< sample row, 0..256 (cells from the tile's north edge, y south)
    float height = 0.0F;       ///< the sample's height, metres; 0 where the sample has none
};

/// A tile's ground as triangles over its samples. Plain data.
///
/// Winding: every triangle (i0, i1, i2) is counter-clockwise seen from above with north up. In
/// the tile's cell frame (x = column east, y = row south) that is a negative signed area:
/// cross(v1 − v0, v2 − v0) < 0. In glTF's frame (X east, Y up, Z south) the face normal points
/// up (+Y), i.e. the front face is the top.
struct GroundMesh {
    TileId tile;  ///< the tile the mesh covers
    /// The vertices, sorted by sample (row-major: row, then column); the four corners always.
    std::vector<GroundVertex> vertices;
    /// Three indices into `vertices` per triangle. The triangles cover the tile's square
    /// exactly once (areas sum to 256 × 256 cells) without T-junctions; their order is the
    /// hierarchy's depth-first order, the same on every run.
    std::vector<std::uint32_t> indices;

    /// Number of triangles.
    std::size_t triangleCount() const { return indices.size() / 3; }
    /// True for a tile with no height.
    bool empty() const { return indices.empty(); }
};

/// What buildGroundMesh needs between calls; reused, it allocates only the mesh's own vectors.
struct GroundMeshScratch {
    std::vector<float> errors;          ///< the tile's errors with the neighbours' edges forced in
    std::vector<std::uint32_t> vertex;  ///< per sample, its vertex index or none
};

/// Builds the ground mesh of `heights` within `maxErrorMetres` (≥ 0; 0 keeps every sample the
/// surface needs, up to full resolution).
///
/// `self` is rtinErrors(heights). `neighbours` are the errors of the tiles north, east, south
/// and west, in that order, nullptr (or empty errors) where there is none or it is not meshed.
/// A triangle is split when its midpoint's error exceeds the bound in this tile or, for a
/// midpoint on a shared edge, in the neighbour at the same sample (this tile's column 256 row r
/// is the east neighbour's column 0 row r; row 256 column c is the south neighbour's row 0
/// column c; and so on); the forced vertices raise their ancestors. Corners couple the four
/// tiles around them: a vertex at distance d = 1, 2, 4 … 128 from a corner, of level d, shares
/// its diamonds with the other edge at that corner, whose other neighbour this tile cannot see.
/// So at every corner where a neighbour meets this tile, all those vertices on both edges are
/// kept. Two tiles built with each other as neighbours then keep, on their shared edge, the
/// corners, those corner vertices, and every other sample whose error exceeds the bound on
/// either side: the same set, so they meet without cracks or T-junctions. The price is the
/// refinement toward such corners even on flat ground: a flat tile with four neighbours has 120
/// triangles (93 vertices) instead of 2.
///
/// An all-NaN or empty HeightTile gives an empty mesh. `self` must have been made from
/// `heights`; errors of another size give an empty mesh (and assert in debug builds).
void buildGroundMesh(const HeightTile& heights, const RtinErrors& self,
                     const std::array<const RtinErrors*, 4>& neighbours, float maxErrorMetres, GroundMesh& out,
                     GroundMeshScratch& scratch);
/// buildGroundMesh with scratch of its own (allocates).
GroundMesh buildGroundMesh(const HeightTile& heights, const RtinErrors& self,
                           const std::array<const RtinErrors*, 4>& neighbours = {},
                           float maxErrorMetres = kDefaultGroundErrorMetres);

}  // namespace terrabit::core::terrain
