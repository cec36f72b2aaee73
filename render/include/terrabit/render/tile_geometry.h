#pragma once
/// Flat geometry laid on a tile: the textured ground quad and the road and water meshes. Cells
/// map to the scene frame through the scene's GroundFrame; within a tile that map is a scale and
/// a translation, so a tile is an axis-aligned rectangle of the ground.

#include <span>

#include <osg/Geode>
#include <osg/Image>
#include <osg/Vec3d>
#include <osg/ref_ptr>

#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/scene/generated_building_mesh.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::render {

/// Where a tile's cells lie in the scene frame.
struct TilePlacement {
    osg::Vec3d northWest;        ///< scene position of the tile's cell corner (0, 0), metres (y = 0)
    double metresPerCell = 1.0;  ///< edge of one cell, ground metres

    /// The scene position (y = height) of a point given in the tile's cell coordinates (x east,
    /// y south, 0..256).
    osg::Vec3d at(double cellX, double cellY, double height = 0.0) const {
        return {northWest.x() + cellX * metresPerCell, height, northWest.z() + cellY * metresPerCell};
    }
};

/// The placement of a tile's cells in a frame. The tile must be at the frame's zoom.
TilePlacement tilePlacement(const core::GroundFrame& frame, const core::TileId& tile);

/// The scene position of a global cell coordinate (x east, y south, cells at the frame's zoom).
osg::Vec3d cellToScene(const core::GroundFrame& frame, core::Vec2 globalCell, double height = 0.0);

/// A tile's ground: one quad at height 0 covering the tile, textured with `image` (256 × 256,
/// row 0 south; crisp cells close up, mipmapped far away), lit from above, pushed back in depth
/// a little so surfaces at small heights draw over it, and with texels of alpha 0 discarded
/// (holes through which a surface below the ground shows).
osg::ref_ptr<osg::Geode> makeGroundQuad(const TilePlacement& placement, osg::ref_ptr<osg::Image> image);

/// A tile's ground on terrain: its mesh (core::GroundTile, scene metres, y = height −
/// originHeight) with per-vertex normals, textured with `image` as makeGroundQuad is (texel
/// (column, row) on cell (column, row)), in the same state (lit, pushed back in depth, alpha-0
/// texels discarded).
osg::ref_ptr<osg::Geode> makeGroundMesh(const core::Scene& scene, const core::GroundTile& ground,
                                        osg::ref_ptr<osg::Image> image);

/// A tile's ground around its sunken surfaces in their real shapes (`around`, from
/// placement::SurfaceShaper::groundAround): draped on `ground` (core::drapeTriangles), flat at
/// y = 0 without one, textured and in the state of makeGroundQuad.
osg::ref_ptr<osg::Geode> makeGroundAround(const core::Scene& scene, const core::TileId& tile,
                                          const core::GroundTile* ground, const core::SurfaceShape& around,
                                          osg::ref_ptr<osg::Image> image);

/// A road or water surface in its real shape (SurfacePatch::shape): draped on `ground` at the
/// patch's elevation, or flat at it without a ground (core::drapeTriangles), in its colour or its
/// texture (SurfacePatch::texture: repeating from the scene's origin, as the GLB draws it), lit.
/// nullptr for a patch without triangles. Its paint (paving, gravel, sidewalks, markings) are
/// drawables of their own; without `markings`, none for the road markings (far off, where a
/// line is a fraction of a pixel).
osg::ref_ptr<osg::Geode> makeShapedSurfaceMesh(const core::Scene& scene, const core::GroundTile* ground,
                                               const core::SurfacePatch& patch, bool markings = true);

/// A road or water surface on terrain: its cells draped on the tile's ground mesh at the
/// patch's elevation (core::drapeRects), in its colour or texture, lit. nullptr for a patch
/// without rectangles.
osg::ref_ptr<osg::Geode> makeDrapedSurfaceMesh(const core::Scene& scene, const core::GroundTile& ground,
                                               const core::SurfacePatch& patch);

/// A road or water surface: two triangles per merged cell rectangle, flat at the patch's
/// elevation, in its colour or texture, lit from above. nullptr for a patch without rectangles.
osg::ref_ptr<osg::Geode> makeSurfaceMesh(const TilePlacement& placement, const core::SurfacePatch& patch);

/// A tile's plinths (on terrain): each one's faces (core::plinthFaces: four sides and the top,
/// scene metres) as triangles in a stone colour, lit. nullptr when there are none.
osg::ref_ptr<osg::Geode> makePlinthMesh(std::span<const core::Plinth* const> plinths);

/// A tile's generated buildings (core::Scene::generated) as one mesh in scene metres, each
/// built by core::generatedBuildingMesh (walls, windows, roof in the library's colours), drawn
/// as the models are (AssetModel::fromMesh: vertex colours, lit, back faces culled). nullptr
/// when none has a triangle, drawn at `detail` (core::GeneratedDetail: façades, plain, boxes).
osg::ref_ptr<osg::Geode> makeGeneratedBuildingMesh(std::span<const core::GeneratedBuilding* const> buildings,
                                                   core::GeneratedDetail detail = core::GeneratedDetail::Dressed);

/// A far picture of instances: each as the box of its model's bounds (`bounds[i]` for the blocks'
/// asset index i), placed as the instance is (core::transformMatrix), in one lit mesh: its top
/// in the model's roof colour and its sides in its wall colour (`colours[i]`; a light stone
/// where there is none), so a town reads the same from afar; nullptr when there is none.
/// Twelve triangles per instance.
osg::ref_ptr<osg::Geode> makeInstanceBoxes(std::span<const core::InstanceBlock* const> blocks,
                                           std::span<const core::ModelBounds> bounds,
                                           std::span<const core::FacadeColours> colours = {});
/// A tile's bridge decks (on terrain): each one's faces (core::bridgeDeckFaces, scene metres)
/// as triangles in core::kBridgeColour, lit. nullptr when there are none.
osg::ref_ptr<osg::Geode> makeBridgeMesh(std::span<const core::BridgeDeck* const> bridges);

}  // namespace terrabit::render
