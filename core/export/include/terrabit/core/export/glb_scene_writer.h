#pragma once
/// Writes a baked Scene as binary glTF 2.0 (GLB) through tinygltf.
///
/// Layout of the file:
/// - one mesh per asset used (the asset's model, every node transform baked), all sharing one
///   material that shows the models' vertex colours;
/// - per tile, in quadkey order, a node "tile <quadkey>" whose mesh holds the ground (the tile's
///   cells not under a surface lying below ground, merged into quads) and one primitive per SurfacePatch (road,
///   water…: merged cell rectangles at the patch's elevation, one material per layer colour),
///   and on terrain one "plinth" primitive of the tile's Scene::plinths (plinthFaces). On
///   terrain, with the tile's Scene::ground mesh, the ground is that mesh (less the cells of
///   sunken surfaces, cut along them) with its normals, and each surface is draped on it
///   (scene/ground_drape.h); a tile without a mesh keeps the flat quads at y = 0;
/// - per tile, per block, per asset, one child node "<asset> block <x>,<y>" drawing the asset once
///   per instance through EXT_mesh_gpu_instancing (TRANSLATION, ROTATION, SCALE accessors), or,
///   with plainNodes, a group of that name holding one node per instance with its TRS;
/// - per tile with Scene::generated buildings, one child node "generated buildings <quadkey>"
///   whose mesh (one primitive, vertex colours, the models' material) holds every one of them in
///   scene coordinates (scene/generated_building_mesh.h), their source ids in `extras.sources`;
/// - the georeference in `extras.terrabit` of the asset and of the root node: originLon/originLat
///   (degrees), zoom, quadkeys, seed (a decimal string: glTF numbers cannot hold 64 bits), the
///   frame's description, and on terrain only originHeight (metres above the DEM's datum that
///   Y = 0 stands for).
/// - every NORMAL as normalised signed bytes (KHR_mesh_quantization, required; 4 bytes a vertex
///   instead of 12: a third of the file was normals), floats with plainNodes.
/// Units: metres, Y up, +X east, +Z south, origin at the scene origin (docs/ARCHITECTURE.md). The same
/// scene and options always give the same bytes.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/export/scene_tile_items.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// The credit every export of OpenStreetMap-derived data must carry (ODbL 1.0).
inline constexpr const char* kOsmAttribution = "\u00a9 OpenStreetMap contributors, ODbL 1.0";

/// Roughness of water as the exports draw it (glossy: only then does it read as water) and of
/// bare ground far off (the 3D Tiles levels' quads).
inline constexpr double kWaterRoughness = 0.1;
inline constexpr double kGroundRoughness = 0.95;
/// Whether the exports draw a surface patch as water: its layer is "water" or it wears the water
/// texture.
bool isWaterSurface(const SurfacePatch& patch);

/// What the GLB writer does beyond the scene itself.
struct GlbSceneOptions {
    /// Write one node per instance (translation, rotation, scale) instead of
    /// EXT_mesh_gpu_instancing, and normals as floats instead of KHR_mesh_quantization's bytes,
    /// for engines without extensions: a file that needs none. Larger and slower to load.
    bool plainNodes = false;
    /// Colour of the ground quads, sRGB 0–255.
    std::array<std::uint8_t, 3> groundColour{124, 133, 98};
    std::string generator = "Terrabit";       ///< asset.generator
    std::string copyright = kOsmAttribution;  ///< asset.copyright; omitted when empty
    /// The caller has already run checkSceneForExport on this scene: skip it. A tileset encodes
    /// every tile of one scene, and checking the whole scene per tile made it quadratic.
    bool sceneChecked = false;
};

/// Encodes the whole scene. `assetMeshes` is index-aligned with Scene::assets (see
/// loadSceneAssets). Errors: a scene that fails checkSceneForExport, a mesh count that does not
/// match, a file beyond the GLB size limit (4 GiB).
Result<std::vector<std::uint8_t>> encodeSceneGlb(const Scene& scene, std::span<const AssetMesh> assetMeshes,
                                                 const GlbSceneOptions& options = {});

/// Receives a GLB's bytes in order, a piece at a time; an error it returns stops the encoding
/// and is returned as it is.
using GlbSink = std::function<Status(std::span<const std::uint8_t>)>;

/// encodeSceneGlb's bytes handed to `sink` once the scene is encoded: the binary chunk, most of
/// the file, is held once (encodeSceneGlb's vector holds it twice).
Status writeSceneGlb(const Scene& scene, std::span<const AssetMesh> assetMeshes, const GlbSink& sink,
                     const GlbSceneOptions& options = {});

/// Encodes the GLB of a scene given a part at a time (a streamed bake's batches, each dropped
/// once added): byte for byte the file writeSceneGlb writes for the whole scene, whose tiles go
/// in quadkey order (a streamed bake's batch is a run of consecutive quadkeys). Meshes, materials
/// and textures are shared by the parts, each added once.
class GlbSceneStream {
public:
    /// `spillFolder`: what is encoded waits in unnamed files there until finish (the binary
    /// data, and the JSON text of the accessors, buffer views, meshes and nodes), so memory holds
    /// only the part being added; empty: in memory. Errors: the folder cannot take a file.
    static Result<GlbSceneStream> open(const GlbSceneOptions& options = {},
                                       const std::filesystem::path& spillFolder = {});
    GlbSceneStream(GlbSceneStream&&) noexcept;
    GlbSceneStream& operator=(GlbSceneStream&&) noexcept;
    ~GlbSceneStream();

    /// Encodes every tile of `part`. Its tiles must all follow every tile added before in
    /// quadkey order, and it must share the first part's origin, zoom, seed and terrain. Errors
    /// as encodeSceneGlb's, naming the part's tile out of order; a failure spends the stream.
    Status add(const Scene& part, std::span<const AssetMesh> assetMeshes);
    /// Hands the GLB of every part added to `sink`; the stream is spent.
    Status finish(const GlbSink& sink);
    /// Bytes of encoded data held in memory: all of them, or with a spill folder only the write
    /// buffers of its files (at most 8 MiB).
    std::uint64_t heldBytes() const;
    /// Bytes encoded so far (binary data and the large arrays' JSON): about the file's size.
    std::uint64_t encodedBytes() const;

private:
    GlbSceneStream();
    struct Impl;
    std::unique_ptr<Impl> mImpl;
};

/// Encodes only one tile's ground, surfaces and instances (the content of a 3D Tiles tile), in
/// the same frame as the whole scene. The tile need not hold anything: it then has its ground.
/// `items`, the scene grouped by tile, spares scanning the whole scene (an export of every tile).
Result<std::vector<std::uint8_t>> encodeTileGlb(const Scene& scene, const TileId& tile,
                                                std::span<const AssetMesh> assetMeshes,
                                                const GlbSceneOptions& options = {},
                                                const SceneTileItems* items = nullptr);

/// Checks the indices and numbers an exporter relies on: every block's asset and every source
/// index in range, tiles and blocks at the scene's zoom and inside its tile list, finite
/// positions, yaws and scales, surface rectangles inside their tile. The error names the tile,
/// block and instance (or building, or surface) that is wrong.
Status checkSceneForExport(const Scene& scene);

}  // namespace terrabit::core
