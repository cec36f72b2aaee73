#pragma once
/// 3D Tiles 1.1: a tileset.json whose tree follows the scene's quadkeys, with one glTF (GLB)
/// content per baked tile (encodeTileGlb).
///
/// - The content of every tile is in the scene's local frame (metres, Y up, x east, z south).
///   3D Tiles rotates glTF content from Y-up to Z-up (x, y, z) → (x, -z, y), which turns our axes
///   into east, north, up; the root's `transform` is then the east-north-up → ECEF matrix at the
///   scene origin (height 0 on the ellipsoid; on terrain, originHeight above it, the DEM's datum
///   taken as the ellipsoid), inherited by every tile; the asset's extras then record
///   originHeight beside originLon/originLat.
/// - Each content tile adds its own `transform`, a small correction: scene metres are Web
///   Mercator metres times cos(origin latitude) (docs/ARCHITECTURE.md), which drift from true east/north
///   metres on the ellipsoid by about 0.2 % plus the Earth's curvature — metres at the edge of a
///   city. The correction makes the composed transform the exact map from scene metres to ECEF,
///   linearised at the tile's centre on the ground, so every tile sits on the globe where its map
///   data is, to about a millimetre.
/// - The tree: the root is the deepest quadkey that holds every baked tile; each node's children
///   are the quadkey children that lead to baked tiles; the baked tiles are the leaves and carry
///   the full content ("<contentFolder>/<quadkey>.glb", encodeTileGlb). Every inner node carries
///   a coarse content of its own ("<contentFolder>/<its quadkey>.glb", "root.glb" for the empty
///   quadkey; tileset_levels.h: buildings as boxes, thinned plants, a quad of ground per baked
///   tile) in the root's frame, and refines REPLACE: a viewer far away draws the coarse levels
///   only and swaps in the children as it comes closer.
/// - `boundingVolume.region` = [west, south, east, north, minHeight, maxHeight] (radians, metres
///   above the ellipsoid) of the tile's footprint and everything placed in it (instances reaching
///   over the tile edge included), measured through the same transform a viewer applies; a
///   parent's region is the union of its children's.
/// - `geometricError`: 0 for the leaves; for an inner node the largest deviation its coarse
///   content makes from the full scene, in metres (tileset_levels.h), and at least a millimetre
///   more than any of its children's; the tileset's is twice the root's tile edge (or more than
///   the root's).

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/export/tileset_levels.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// Receives each inner tile's coarse content: its uri relative to the tileset file
/// ("<contentFolder>/<quadkey>.glb") and its GLB bytes, in the order the tree is written.
using LevelContentSink = std::function<Status(const std::string& uri, std::span<const std::uint8_t> glb)>;

/// The tileset.json text (sorted keys, stable). Content of tile t is at
/// "<contentFolder>/<quadkey>.glb", relative to the tileset file; the inner tiles' coarse
/// contents go to `levels` (none written when it is empty: the text is the same). Errors: a
/// scene without tiles, a scene that fails checkSceneForExport, a mesh count that does not
/// match, a failure of `levels`.
Result<std::string> encodeTileset(const Scene& scene, std::span<const AssetMesh> assetMeshes,
                                  std::string_view contentFolder = "tiles", const LevelContentSink& levels = {});

/// One content tile of a tileset, as encodeTileset computes it.
struct TilesetLeaf {
    std::string quadkey;
    std::array<double, 6> region{};      ///< boundingVolume.region (radians, metres)
    std::array<double, 16> transform{};  ///< the leaf's transform, relative to the root's
    LevelSource level;                   ///< what the inner tiles above it draw of it
};

/// The leaves encodeTileset builds its tree from, in Scene::tiles order, their ground in
/// `groundColour` (sRGB). Their bounds are measured on `threads` threads (0: one per hardware
/// thread); the leaves are the same for any count. Errors: as encodeTileset.
Result<std::vector<TilesetLeaf>> tilesetLeaves(const Scene& scene, std::span<const AssetMesh> assetMeshes,
                                               std::array<std::uint8_t, 3> groundColour = {124, 133, 98},
                                               int threads = 1);

/// The tileset.json text for leaves computed earlier, e.g. read back from the tilesets of the
/// shards of one bake (terrabit-cli merge): the same tree and bytes encodeTileset writes for
/// the whole scene. `tiles` is Scene::tiles (the order the quadkey list is written in);
/// `leaves` may come in any order. `originHeight` is the scene's (Scene::originHeight) when it
/// stands on terrain: the root's frame is lifted to it and the asset's extras record it; unset
/// for a flat scene. The inner tiles' coarse contents go to `levels`. Errors: no leaves, a
/// failure of `levels`.
Result<std::string> encodeTilesetLeaves(const GroundFrame& frame, std::uint64_t seed, std::span<const TileId> tiles,
                                        std::vector<TilesetLeaf> leaves, std::string_view contentFolder = "tiles",
                                        std::optional<double> originHeight = std::nullopt,
                                        const LevelContentSink& levels = {});

}  // namespace terrabit::core
