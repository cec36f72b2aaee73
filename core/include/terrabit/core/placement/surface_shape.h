#pragma once
/// Road and water surfaces in their real shapes: the features of a tile's layers as GEOS
/// geometry — lines buffered by their rule width with round caps and joins (what the scan
/// converter draws: a capsule per segment and a disk per vertex), areas by the even-odd rule,
/// points as disks — united per layer, cut by the pass's mask, clipped exactly to the tile,
/// rounded to the kSurfaceGridCells grid and cut into ears (a constrained triangulation of the
/// outline's corners; GEOS's constrained Delaunay triangulation where ears cannot cover it).
///
/// Agreement with the bits: a cell the rasterizer marks has its centre in the shape and no
/// other cell does, but for centres within kArcToleranceCells + 1 % of the line's half width of
/// the outline (arcs are chords no further than kArcToleranceCells from the circle, GEOS
/// simplifies a buffer's offset curves by up to 1 % of its distance, and half widths are rounded
/// to 2^-10 cells so a tile's lines of one rule buffer together) and the rasterizer's tie rule
/// (centres on the outline).
/// Mask expressions built from layers with | & - ^ ~ are cut exactly; any other function
/// (dilate, random…) cuts along the mask's cells.

#include <memory>
#include <span>
#include <vector>

#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::placement {

/// How far (cells) the chords of a buffered line's caps and joins may lie inside the circle.
inline constexpr double kArcToleranceCells = 0.05;

/// Which layers a layer's shape takes features from, by layer id: itself and its classes,
/// recursively.
std::vector<char> layerFamily(std::span<const LayerInfo> layers, int layer);

/// Builds the shapes of one tile at a time. One per thread (it owns a GEOS context); reusable.
class SurfaceShaper {
public:
    SurfaceShaper();
    ~SurfaceShaper();
    SurfaceShaper(const SurfaceShaper&) = delete;
    SurfaceShaper& operator=(const SurfaceShaper&) = delete;
    SurfaceShaper(SurfaceShaper&&) noexcept;
    SurfaceShaper& operator=(SurfaceShaper&&) noexcept;

    /// The shapes of `parts` (layer ids of index.map(), in order) in tile `tile`: part k is the
    /// layer's features (with its classes') within `mask` (a node of `maskAst`, resolved against
    /// layer names whose first ids are the map's layers; -1: no mask) less parts 0..k-1, as the
    /// surface pass gives each cell to the first part holding it. `maskBits` are the mask's cells
    /// (used when the mask holds a function that has no exact shape). `out` gets one shape per
    /// part. Fails (BadInput, naming the tile) when GEOS cannot build a shape.
    Status shapeTile(const TileIndex& index, const TileId& tile, std::span<const int> parts,
                     const algebra::ExpressionAst* maskAst, const BitTile& maskBits, std::vector<SurfaceShape>& out);

    /// On terrain, bridge ways (terrain::isBridgeWay) are left out of every shape: their deck
    /// (Scene::bridges) stands for them. Off by default (a flat scene draws them as roads).
    void setLeaveOutBridges(bool leaveOut);

    /// The tile's square less every shape of `holes` (the ground around sunken water), in
    /// the same form.
    Status groundAround(std::span<const SurfaceShape* const> holes, SurfaceShape& out);

private:
    struct Impl;
    std::unique_ptr<Impl> mImpl;
};

}  // namespace terrabit::core::placement
