#pragma once
/// Scene: what the placement passes produce and what render, export and collision consume —
/// plain data, no behaviour beyond small derived values.
///
/// Frame (docs/ARCHITECTURE.md): metres on the ground, origin at the scene origin (GroundFrame), Y up. Axes
/// as glTF expects them, right-handed: +X east, +Y up, +Z south (so north is -Z). A ground point
/// (east e, north n) at height h is (e, h, -n).

#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/assets/surface_texture.h"
#include "terrabit/core/geometry.h"
#include "terrabit/core/scene/shared_vector.h"
#include "terrabit/core/terrain/ground_mesh.h"
#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

/// A 3-D vector in scene metres (x east, y up, z south), single precision as GPUs take it.
struct Vec3f {
    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;
    friend bool operator==(const Vec3f&, const Vec3f&) = default;
};

/// An axis-aligned box in scene metres; empty when min > max.
struct Box3f {
    Vec3f min{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    Vec3f max{-std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
              -std::numeric_limits<float>::max()};
    bool empty() const { return min.x > max.x; }
    void extend(Vec3f p);
    void extend(const Box3f& b);
};

/// A ground point (metres east, north of the origin) at a height, in the scene frame.
inline Vec3f groundToScene(Vec2 ground, double height = 0.0) {
    return {static_cast<float>(ground.x), static_cast<float>(height), static_cast<float>(-ground.y)};
}

/// One placed copy of a model: translate · rotate about +Y by yaw · scale.
struct Instance {
    Vec3f position;                    ///< the model origin (centre of its footprint on the ground), metres
    float yaw = 0.0f;                  ///< radians about +Y, counter-clockwise seen from above
    Vec3f scale{1, 1, 1};              ///< per-axis scale of the model (x: width, y: height, z: depth)
    std::uint32_t source = kNoSource;  ///< index into Scene::sources, or kNoSource
    static constexpr std::uint32_t kNoSource = 0xffffffffu;
    friend bool operator==(const Instance&, const Instance&) = default;
};

/// The instance's 4×4 transform, column-major (OpenGL/glTF order): T · Ry(yaw) · S.
std::array<float, 16> transformMatrix(const Instance& instance);
/// The instance's rotation as a unit quaternion (x, y, z, w), as glTF stores it.
std::array<float, 4> rotationQuaternion(const Instance& instance);
/// rotationQuaternion as glTF's normalised signed shorts (each component c stands for c / 32767):
/// half the bytes of floats, which most of an instanced export's rotations are; the angle stays
/// within 0.000045 rad (under two millimetres at 40 m).
std::array<std::int16_t, 4> rotationQuaternionSnorm16(const Instance& instance);

/// A list of instances that copies share until one of them is changed (SharedVector): a scene
/// and the baker's record of its plants, or the successive scenes of a progressive bake, hold a
/// tile's plants once.
using InstanceList = SharedVector<Instance>;

/// The instances of one asset within one block of n × n cells of one tile: the unit of instanced
/// drawing and of culling (one draw call per block per asset).
struct InstanceBlock {
    int asset = -1;          ///< index into Scene::assets
    TileId tile;             ///< the tile holding the block
    int blockX = 0;          ///< block column within the tile, 0 .. 256/n - 1
    int blockY = 0;          ///< block row within the tile
    InstanceList instances;  ///< in placement order (deterministic)
    Box3f bounds;            ///< of the instances' transformed model bounds, metres
};

/// What happened to one building footprint.
enum class BuildingOutcome : std::uint8_t {
    Placed,       ///< a model was placed
    NoModelFits,  ///< no model of the allowed ones fits the footprint's box
    Blocked,      ///< models fit, but each fitting pose overlapped occupied cells
    /// With terrain: fitting poses were clear, but the ground under each rose more than the
    /// building pass's max_ground_step across it.
    BlockedBySlope,
    /// No model fit, and the building pass's fallback made a building for the footprint itself
    /// (a GeneratedBuilding in Scene::generated).
    Generated,
};

/// "placed", "no model fits", "blocked", "blocked: slope" or "generated".
const char* outcomeName(BuildingOutcome outcome);

/// What took a blocked building's cells (BuildingOutcome::Blocked): most of the footprint's cells
/// that were taken before it was tried.
enum class Blocker : std::uint8_t {
    None,      ///< not blocked, or blocked by nothing the pass can name
    Building,  ///< an earlier building stands there (BuildingRecord::blockerSource names it)
    Layers,    ///< the building pass's blocked_by layers (water by default)
    Unbaked,   ///< tiles the bake leaves out, where nothing may be placed
};

/// The target box of a footprint: its minimum-area oriented box, in ground metres.
struct OrientedBox {
    Vec2 centre;         ///< ground metres east, north of the origin
    Vec2 halfExtents;    ///< half the box's width (along its axis) and depth, metres
    double angle = 0.0;  ///< radians, counter-clockwise from east to the box's width axis
};

/// A further prefab in a footprint that already holds one (the seed method's ¶120: where a box
/// holds a building, the area still free may take another).
struct BuildingPart {
    int asset = -1;      ///< the model (index into Scene::assets)
    Instance placement;  ///< where it stands; its source is the footprint's
    friend bool operator==(const BuildingPart&, const BuildingPart&) = default;
};

/// One building footprint and its outcome.
struct BuildingRecord {
    static constexpr std::uint16_t kNoLayer = 0xffff;  ///< see blockerLayer

    std::uint32_t source = Instance::kNoSource;  ///< index into Scene::sources
    TileId tile;                                 ///< the tile holding the footprint's centre (the one that placed it)
    OrientedBox target;                          ///< the box the model had to fit
    BuildingOutcome outcome = BuildingOutcome::NoModelFits;
    int asset = -1;      ///< the placed model (index into Scene::assets), -1 when none
    Instance placement;  ///< where it was placed (valid when outcome == Placed)
    /// When placed: the footprint's further prefabs after the first (`asset`, `placement`), in
    /// the order they were placed; empty otherwise.
    std::vector<BuildingPart> parts;
    /// With terrain, when placed: the lowest and highest terrain height under the placed
    /// footprint's cells (every corner of every cell it touches), metres above the DEM's datum.
    /// The instance stands at groundMin (y = groundMin − Scene::originHeight) and its plinth
    /// reaches groundMax. NaN without terrain, when not placed, or where no DEM reaches.
    float groundMin = std::numeric_limits<float>::quiet_NaN();
    float groundMax = std::numeric_limits<float>::quiet_NaN();  ///< see groundMin, metres
    /// When blocked: what stands there, and for Blocker::Building which building (an index into
    /// Scene::sources; kNoSource when the pass could not tell).
    Blocker blocker = Blocker::None;
    /// For Blocker::Layers: the layer of the pass's blocked_by that holds most of the footprint
    /// (water, say: an index into Scene::layerNames); kNoLayer when the pass could not tell.
    std::uint16_t blockerLayer = kNoLayer;
    std::uint32_t blockerSource = Instance::kNoSource;
    /// When generated as a part of another generated building (an index into Scene::sources):
    /// the footprint was mapped within that building (a tower over its podium, a roof over a
    /// platform, the same building mapped twice), so it stands on it and shares its cells. Its
    /// GeneratedBuilding rises from the other's eaves when it is taller; when it is not, the
    /// other's walls already enclose it and it has none of its own. kNoSource otherwise.
    std::uint32_t partOfSource = Instance::kNoSource;
    /// True when the record has a ground range (groundMin and groundMax are heights).
    bool hasGround() const { return groundMin == groundMin && groundMax == groundMax; }
};

/// The outcome as the manifest and the app say it: outcomeName, for a blocked building what
/// blocks it ("blocked: building w123", "blocked: water" — the blocked_by layer, from
/// `layerNames` —, "blocked: blocked_by layers" when it is not known, "blocked: unbaked tiles"),
/// and for a part of another generated building which ("generated: part of building w123").
std::string outcomeText(const BuildingRecord& b, std::span<const std::string> sources,
                        std::span<const std::string> layerNames = {});

/// The foundation under a building on sloping ground: a box over the placed footprint's
/// rectangle from the building's base (the lowest ground under it) up to the highest ground
/// under it, so the downhill side does not float and the uphill side is not a hole in the
/// ground. Only scenes with terrain have plinths; one with no height difference is left out.
struct Plinth {
    TileId tile;                                 ///< the tile that placed the building
    std::uint32_t source = Instance::kNoSource;  ///< the building's index into Scene::sources
    OrientedBox box;                             ///< the placed footprint's rectangle, ground metres
    float bottom = 0.0f;                         ///< scene y of the base, metres (groundMin − originHeight)
    float top = 0.0f;                            ///< scene y of the highest ground under it, metres
};

/// How much wider than the footprint a plinth is drawn on each side, metres: its sides never
/// coincide with the model's walls (no z-fighting), and it reads as a base course.
inline constexpr double kPlinthOutsetMetres = 0.05;

/// One face of a plinth's box: four scene points counter-clockwise seen from outside, and its
/// outward unit normal.
struct PlinthFace {
    std::array<Vec3f, 4> corners;
    Vec3f normal;
};

/// The faces every export draws of a plinth: its four sides and its top, the footprint's
/// rectangle grown by kPlinthOutsetMetres, from `bottom` to `top` (the bottom face lies under
/// the ground and is left out).
std::array<PlinthFace, 5> plinthFaces(const Plinth& plinth);

/// A building made for its own footprint, the building pass's `generate` fallback where no
/// prefab fits: its walls rise from the footprint's outline and its roof follows the tags.
/// Every export builds the same mesh from this record (core/scene/generated_building_mesh.h).
struct GeneratedBuilding {
    TileId tile;                                 ///< the tile that placed it (holding its centre)
    std::uint32_t source = Instance::kNoSource;  ///< index into Scene::sources
    /// The footprint's outer ring, ground metres east and north of the origin, counter-clockwise
    /// seen from above, not closed (the last point is not the first), no repeated points.
    std::vector<Vec2> outline;
    /// The footprint's courtyards (its inner rings inside the outline), same frame, clockwise,
    /// not closed: open to the sky, walled all round. Each is a simple ring strictly inside the
    /// outline, meeting neither it nor another courtyard.
    std::vector<std::vector<Vec2>> courtyards;
    float base = 0.0f;        ///< scene y of the walls' foot, metres (0 flat; groundMin − originHeight on terrain)
    float wallHeight = 0.0f;  ///< metres from the base to the eaves (tags `height`, `building:levels`, or the rule's)
    float roofHeight = 0.0f;  ///< metres from the eaves to the ridge; 0 for a flat roof
    std::string roofShape;    ///< `roof:shape` as tagged ("flat", "gabled", "hipped"…), "flat" when untagged
};

/// With terrain: the deck of a bridge (a highway line tagged bridge), kept between its ends at
/// the graded road heights there instead of draped into the valley; the ground under it stays
/// the natural terrain. Every export draws it through bridgeDeckFaces
/// (core/scene/bridge_deck.h).
struct BridgeDeck {
    TileId tile;                    ///< the tile holding its middle point (the one that draws it)
    std::string id;                 ///< the source feature's id
    std::vector<Vec3f> centreline;  ///< the top of the deck along its centre, scene metres, ≥ 2 points
    float width = 0.0f;             ///< the deck's width, metres
};

/// A merged rectangle of cells [x0, x1) × [y0, y1) within a tile (greedy meshing of a layer).
struct CellRect {
    std::uint16_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    friend bool operator==(const CellRect&, const CellRect&) = default;
};

/// A surface in its real shape within one tile, in the tile's cells (x east, y south; 0..256,
/// clipped exactly at the tile's edges, so two tiles put the same corners on the edge they
/// share). Corners lie on a grid of kSurfaceGridCells, so they are the same bits in both tiles.
struct SurfaceShape {
    /// The outline's polygons: every ring's corners (open: the last is not the first).
    SharedVector<Vec2> outline;
    SharedVector<std::uint32_t> ringEnds;     ///< end of each ring in `outline`
    SharedVector<std::uint32_t> polygonEnds;  ///< end of each polygon in `ringEnds`; its first ring is the shell
    /// A constrained triangulation of its outline's corners: three per triangle, counter-clockwise
    /// seen from above (x east, y south: a negative cross product), without overlaps or gaps.
    SharedVector<Vec2> triangles;

    bool empty() const { return triangles.empty(); }
    std::size_t triangleCount() const { return triangles.size() / 3; }
};

/// The grid (cells) every SurfaceShape corner is rounded to: 2^-16 cell, so a corner in 0..256
/// is exact in a float, and two tiles computing a shared corner apart by a rounding error get
/// the same one.
inline constexpr double kSurfaceGridCells = 1.0 / 65536.0;

/// A flat ground surface of one layer in one tile (a road or water mesh): the cells the layer's
/// bits mark, as merged cell runs, and the same place in its real shape, which exports draw.
struct SurfacePatch {
    TileId tile;
    std::string layer;       ///< the layer it comes from ("road", "water"…)
    float elevation = 0.0f;  ///< metres above the ground plane (water lies slightly below: < 0)
    std::array<std::uint8_t, 3> colour{128, 128, 128};  ///< sRGB
    SurfaceTexture texture = SurfaceTexture::None;      ///< its look (core/assets/surface_texture.h)
    /// Lines painted on it (placement/road_markings.h): triangles in the tile's cells, three
    /// corners each, counter-clockwise seen from above, drawn kMarkingLiftMetres above it in
    /// white. Empty unless its pass asks for markings.
    SharedVector<Vec2> markings;
    /// Paved parts of it (placement/road_markings.h: sidewalk strips, footways, paths, steps,
    /// pedestrian streets and cycleways), as `markings` are, drawn kPavingLiftMetres above it in
    /// kPavingColour with the paving texture; and its tracks, in kGravelColour with gravel.
    SharedVector<Vec2> paving;
    SharedVector<Vec2> gravel;
    /// Its sidewalks (the strips along carriageways their `sidewalk` tags name), as `paving`
    /// but raised kKerbHeightMetres above it on a kerb: their outline's edges stand as walls.
    SharedVector<Vec2> sidewalks;
    SharedVector<CellRect> rects;
    /// Per corner of shape.triangles when the patch is textured (placement/road_uv.h): metres
    /// along the way the triangle lies in from its first vertex, and across it from its
    /// centreline (positive to its left); NaN for a triangle no way reaches, and empty for an
    /// untextured patch. The exporters texture a surface along these, and by its scene position
    /// where there are none.
    SharedVector<Vec2> roadUv;
    /// The real shape (placement/surface_shape.h): every cell of `rects` has its centre in it,
    /// and no other cell, up to the rasterizer's tie rule and the arcs' tolerance. Empty for a
    /// patch made without the map (then exports draw `rects`).
    SurfaceShape shape;
};

/// How far above its surface a marking is drawn, metres: enough for depth buffers to tell them
/// apart up close, too little to see.
inline constexpr float kMarkingLiftMetres = 0.02f;
/// The markings' paint, sRGB.
inline constexpr std::array<std::uint8_t, 3> kMarkingColour{236, 236, 228};
/// How far above its road paving and gravel are drawn, metres, and their colours (sRGB).
inline constexpr float kPavingLiftMetres = 0.03f;
inline constexpr std::array<std::uint8_t, 3> kPavingColour{176, 168, 156};
inline constexpr std::array<std::uint8_t, 3> kGravelColour{160, 148, 124};
/// How far a sidewalk's top lies above its road, metres (a kerb's height), and the kerb's
/// colour (sRGB).
inline constexpr float kKerbHeightMetres = 0.12f;
inline constexpr std::array<std::uint8_t, 3> kKerbColour{150, 148, 142};

/// With terrain: one tile's ground as a simplified triangle mesh (terrain::GroundMesh: its
/// vertices are the tile's samples, heights in metres above the DEM's datum) and a normal per
/// vertex. A vertex stands at scene y = height − Scene::originHeight (groundVertexPosition,
/// core/scene/ground_drape.h). Tiles built together share their edges' vertices exactly.
struct GroundTile {
    terrain::GroundMesh mesh;
    /// One unit normal per mesh vertex, scene frame (+Y up): the central difference of the
    /// heights around the sample, the neighbour tiles' samples across the tile's edges, so two
    /// tiles give a shared vertex the same normal (no lighting seams).
    std::vector<Vec3f> normals;
};

/// Counts that describe a bake.
struct SceneStatistics {
    std::size_t buildingsPlaced = 0;
    std::size_t buildingsBlocked = 0;
    std::size_t buildingsUnmatched = 0;
    std::size_t buildingsGenerated = 0;  ///< footprints given a GeneratedBuilding (counted in none of the above)
    /// Over the scene tiles, in cells: those of the building passes' footprint layers, those of
    /// them under a placed or generated building (placed_buildings), every placed cell, and the
    /// placed cells outside every footprint (spill onto yards, streets, water).
    std::uint64_t footprintCells = 0;
    std::uint64_t footprintCellsCovered = 0;
    std::uint64_t placedCells = 0;
    std::uint64_t placedCellsOutside = 0;
    std::vector<std::size_t> instancesPerAsset;  ///< indexed like Scene::assets
    std::size_t vegetationCellsRequested = 0;    ///< cells the vegetation mask allowed
    std::size_t vegetationInstances = 0;         ///< trees, bushes and grass placed
    double requestedDensity = 0.0;               ///< instances per plantable cell the rules asked for
    double achievedDensity = 0.0;                ///< instances per plantable cell placed
    /// With terrain: buildings blocked by slope (they are not counted in buildingsBlocked).
    std::size_t buildingsBlockedBySlope = 0;
    /// With terrain: the lowest and highest height of the scene tiles' samples, metres above the
    /// DEM's datum; NaN when no sample has a height (or without terrain).
    double minHeight = std::numeric_limits<double>::quiet_NaN();
    double maxHeight = std::numeric_limits<double>::quiet_NaN();  ///< see minHeight, metres
    /// With terrain: the scene tiles' cells whose four corners all have a height, and those of
    /// them steeper than kSteepDegrees (their share is the manifest's steepShare).
    std::uint64_t cellsWithHeight = 0;
    std::uint64_t steepCells = 0;
    /// With terrain (set by pipeline::Session::bake): the scene tiles' samples whose height a
    /// coarser DEM filled, that were inpainted, and at which a DEM held an absurd value
    /// (io::DemSampleReport). 0 on a bare SceneBaker.
    std::uint64_t heightsFilledFromCoarser = 0;
    std::uint64_t heightsInpainted = 0;
    std::uint64_t heightsAbsurd = 0;
    /// The slope (degrees) beyond which a cell counts as steep: the default walkability limit
    /// (pipeline's kSteepExpression, slope(>35deg)).
    static constexpr double kSteepDegrees = 35.0;
};

/// The vegetation counts of one class of one pass in one tile, as the bake summed them into
/// SceneStatistics. Kept so the statistics of tile-disjoint parts of one bake (shards) merge
/// into exactly the whole bake's: the density is a floating-point sum, which depends on order.
struct VegetationTileTally {
    TileId tile;
    std::uint32_t pass = 0;           ///< index of the pass in the rules' order
    std::size_t zoneCells = 0;        ///< plantable cells
    std::size_t instances = 0;        ///< plants placed
    double requestedInstances = 0.0;  ///< density × plantable cells
};

/// A baked scene.
struct Scene {
    GroundFrame frame;                         ///< origin and zoom; metres and cells convert through it
    std::uint64_t seed = 0;                    ///< the scene seed every random choice was keyed with
    std::vector<TileId> tiles;                 ///< the baked tiles, sorted (y, x)
    int blockCells = 32;                       ///< n of the n × n cell blocks
    std::vector<std::string> assets;           ///< catalogue ids of the assets used, sorted
    std::vector<std::string> sources;          ///< source feature ids referenced by instances and records
    std::vector<std::string> layerNames;       ///< the map's layers, as BuildingRecord::blockerLayer counts them
    std::vector<InstanceBlock> blocks;         ///< sorted by (tile, blockY, blockX, asset)
    std::vector<BuildingRecord> buildings;     ///< sorted by source feature id
    std::vector<SurfacePatch> surfaces;        ///< sorted by (tile, layer)
    std::vector<Plinth> plinths;               ///< with terrain: sorted by (tile, source)
    std::vector<BridgeDeck> bridges;           ///< with terrain: the bridges' decks, sorted by (tile, id)
    std::vector<GeneratedBuilding> generated;  ///< the `generate` fallback's buildings, sorted by (tile, source)
    /// With terrain: each tile's ground mesh, sorted like `tiles` (north to south), at most one
    /// per tile. The Session meshes every baked tile (Session::bake); a tile without one (a
    /// scene baked on a bare SceneBaker) is drawn flat at y = 0, as without terrain. Empty
    /// without terrain.
    std::vector<GroundTile> ground;
    SceneStatistics statistics;
    /// True when the scene was baked on terrain (a DEM): its y are heights above the DEM's
    /// datum less originHeight, and the exports record originHeight. False: the flat world,
    /// y = 0 is the ground, and every output is what it was before terrain existed.
    bool terrain = false;
    /// With terrain: the height above the DEM's datum that y = 0 stands for, metres — the
    /// ground height at the scene origin (SessionInput, BakeOptions::originHeight). 0 when flat.
    double originHeight = 0.0;
    /// What the vegetation statistics summed, in summing order (pass, then tile, then class).
    std::vector<VegetationTileTally> vegetationTallies;

    /// Total instances over all blocks.
    std::size_t instanceCount() const;
    /// The ground mesh of `tile`, or nullptr when the scene has none for it.
    const GroundTile* groundOf(const TileId& tile) const;
};

}  // namespace terrabit::core
