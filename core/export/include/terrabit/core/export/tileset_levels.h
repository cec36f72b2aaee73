#pragma once
/// The coarse levels of a 3D Tiles export: what the inner tiles of the tileset draw in place of
/// the baked tiles below them, so that a viewer of the whole area fetches a few coarse files and
/// refines as it comes closer (tileset_writer.h builds the tree).
///
/// - Each baked tile gives a LevelSource: its buildings as boxes (a placed model's bounds, a
///   generated building's footprint box up to its ridge), a deterministic share of its plants as
///   boxes, and its ground as one quad through its four corners; every point already in the
///   frame of the tileset's root (no per-tile transform), so inner tiles only gather and thin.
/// - An inner tile `d` levels above the baked tiles draws:
///     buildings  the kLevelBuildings largest of its baked tiles' (size = the larger of height
///                and footprint diagonal, ties by id), each a box (instanced unit box) with
///                its sides in the model's mean wall colour and its top in its roof's, one
///                instanced node per pair of colours;
///     plants     those whose rank (a hash of the scene seed and the plant's position, uniform in
///                [0, 1)) is below 4^-d — a quarter as many per level, so each inner tile holds
///                about as many as one baked tile — each a four-sided pyramid in its box, in
///                its model's crown colour, one instanced node per colour;
///     ground     one quad per baked tile through the tile's ground corners (flat: exact), in
///                the colour of the water surface covering most of the tile when one covers
///                more than half of it (the sea, drawn glossy), else in the mean colour of its
///                surfaces and its bare ground (roads grey a town's quads).
///   Roads, water and other surfaces, plinths and bridge decks are left to the baked tiles.
/// - Its geometricError is the largest deviation that makes from the full scene, in metres: the
///   size of the largest building it leaves out, the height of the tallest plant it leaves out,
///   the mean distance between the plants it draws (sqrt(ground area / plants drawn), the detail
///   a viewer misses between them, counted where it draws at least 16: what grows level by
///   level), the farthest a kept building's box lies from its model, the ground quad's largest
///   height error, a left-out surface's height above or below the ground — and at least a
///   millimetre more than any child's, so errors strictly grow towards the root.
/// Everything is a pure function of the baked tiles' LevelSources, so a tileset joined from shards
/// (each shard writes its sources as 3dtiles/levels/<quadkey>.json) gets the same bytes.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// How many buildings an inner tile draws at most.
inline constexpr std::size_t kLevelBuildings = 2048;
/// The rank below which a baked tile's plants are kept in its LevelSource: those an inner tile
/// one level up may draw (4^-1).
inline constexpr float kLevelPlantRank = 0.25f;

/// The colours of a coarse building whose model says none.
inline constexpr FacadeColours kLevelBuildingColours = kStoneFacade;
/// The colour of a coarse plant whose model says none: a leaf green.
inline constexpr FacadeColours kLevelPlantColours{{70, 110, 52}, {70, 110, 52}};

/// A building or plant as the coarse levels draw it: a box standing on the ground, in the root's
/// frame of the tileset (glTF Y up: x east, y up, z south of the root's east-north-up frame).
struct LevelBox {
    float x = 0, y = 0, z = 0;  ///< the middle of the box's foot, metres
    float halfWidth = 0;        ///< half the box's extent along its yaw axis, metres
    float halfDepth = 0;        ///< half its extent across, metres
    float height = 0;           ///< metres
    float yaw = 0;              ///< radians about +Y (as Instance::yaw)
    float deviation = 0;        ///< buildings: how far the box's surface lies from the model, metres
    float key = 0;              ///< buildings: size (metres); plants: rank in [0, 1)
    std::string id;             ///< buildings: the source feature id ("" when none)
    /// The colours the box is drawn in, sRGB, so that a scene reads the same from afar as close
    /// up. Buildings: its sides' and its top's (the model's mean wall and roof colours). Plants:
    /// their crown's in both (the model's roof colour, what is seen of it from above).
    FacadeColours colours = kLevelBuildingColours;
    friend bool operator==(const LevelBox&, const LevelBox&) = default;
};

/// What the coarse levels need of one baked tile (see the file comment).
struct LevelSource {
    std::string quadkey;
    std::vector<LevelBox> buildings;  ///< its kLevelBuildings largest, by (size descending, id)
    std::vector<LevelBox> plants;     ///< those ranked below kLevelPlantRank, by rank
    float droppedBuildingSize = 0;    ///< size of the largest building not listed, metres
    float droppedPlantHeight = 0;     ///< height of the tallest plant not listed, metres
    std::array<float, 12> ground{};   ///< corners NW, SW, SE, NE (x, y, z each), root frame
    /// The quad's, sRGB: the mean colour of what the tile's ground shows (its surfaces by the
    /// cells they cover, the ground's colour elsewhere, in linear light), or the colour of a
    /// water surface covering more than half of it.
    std::array<std::uint8_t, 3> groundColour{124, 133, 98};
    /// The quad is water (the tile lies mostly under a water surface): drawn glossy, as the
    /// baked tiles draw water, so the sea reads as sea from afar too.
    bool groundWater = false;
    /// The largest height difference between the quad through `ground` and the tile's ground
    /// and surfaces, metres (0 for a flat tile without surfaces off the ground).
    float groundError = 0;
    friend bool operator==(const LevelSource&, const LevelSource&) = default;
};

/// The LevelSources of a scene's tiles. `leafTransforms[i]` is the transform of tile
/// scene.tiles[i] relative to the root (TilesetLeaf::transform); `assetMeshes` is index-aligned
/// with Scene::assets.
std::vector<LevelSource> levelSources(const Scene& scene, std::span<const AssetMesh> assetMeshes,
                                      std::span<const std::array<double, 16>> leafTransforms,
                                      std::array<std::uint8_t, 3> groundColour);

/// Where a part of a bake (a shard, a streamed bake's batch) keeps a baked tile's LevelSource,
/// relative to its output folder: 3dtiles/levels/<quadkey>.json. A whole bake writes none.
std::filesystem::path levelSourcePath(std::string_view quadkey);

/// A LevelSource as the JSON text of 3dtiles/levels/<quadkey>.json, and back (exactly).
std::string encodeLevelSource(const LevelSource& source);
Result<LevelSource> decodeLevelSource(std::string_view text);

/// One inner tile's coarse content.
struct LevelContent {
    std::vector<std::uint8_t> glb;
    double geometricError = 0.0;  ///< the content's own deviation from the full scene, metres
    std::size_t buildings = 0;    ///< buildings drawn
    std::size_t plants = 0;       ///< plants drawn
};

/// The coarse content of an inner tile `depth` (≥ 1) levels above the baked tiles `below` (in
/// quadkey order).
Result<LevelContent> encodeLevelContent(std::span<const LevelSource* const> below, int depth);

/// The rank of a plant whose instance stands at scene (x, z): uniform in [0, 1), from the scene
/// seed and the position's bits (so the same plant gets the same rank in any bake of the scene).
float plantRank(std::uint64_t seed, float x, float z);

}  // namespace terrabit::core
