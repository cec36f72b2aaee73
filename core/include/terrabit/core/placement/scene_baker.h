#pragma once
/// SceneBaker: runs the placement passes of a rules document over the tiles of a map, in rule
/// order (by default buildings → water → roads → vegetation), and assembles the Scene.
///
/// It is incremental: each pass keeps its per-tile results keyed by everything they depend on
/// (the pass's parameters, the seed, the frame, the catalogue, the named expressions and the bits
/// of the layers it reads around the tile, including what earlier passes placed). After a rule
/// change, bake() again: passes and tiles whose key still holds are reused, so changing the
/// vegetation density re-runs the vegetation pass only, and changing a building rule re-runs
/// buildings and then whatever later pass reads what moved. BakeReport counts runs and reuses.
///
/// Deterministic: the same map, rules, catalogue and seed give the same Scene, field for field,
/// for any thread count and any tile order (docs/ARCHITECTURE.md).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/placement/building_pass.h"
#include "terrabit/core/placement/pass_context.h"
#include "terrabit/core/placement/placement_layers.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/placement/surface_pass.h"
#include "terrabit/core/placement/vegetation_pass.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::placement {

/// How to bake.
struct BakeOptions {
    std::uint64_t seed = 0;  ///< the scene seed every random choice is keyed with
    int threads = 0;         ///< worker threads; 0: one per hardware thread. Any count gives the same scene.
    int blockCells = 32;     ///< n of the n × n cell blocks instances are grouped in, 1..256
    /// The order tiles are handed to the workers (a permutation of the index's tiles); empty: the
    /// index's order. Any order gives the same scene; tests use this to show it.
    std::vector<TileId> order;
    /// The tiles to bake, a subset of the index's; empty: all of them. A shard of a larger bake
    /// bakes its own tiles plus those their results depend on (scale/shard_plan.h).
    std::vector<TileId> tiles;
    /// The tiles whose results make the scene, a subset of the baked ones; empty: all baked.
    std::vector<TileId> sceneTiles;
    /// True: the passes forget their cached results for the index's tiles not in `tiles` (a
    /// streamed bake moves on and never comes back). False: they keep them, so a bake that
    /// grows its tiles batch by batch (the desktop's progressive bake) and starts again after a
    /// rule edit recomputes only what the edit affects. Either way the scene is the same.
    bool forgetUnbaked = true;
    /// A bound on what the passes keep cached once the bake is done, bytes (every pass's
    /// heldBytes of a tile's results, summed; unset: no bound; 0: nothing, for a bake no other
    /// follows). The tiles of `cachePriority` keep their results, in that order, while the sum
    /// fits; the first that does not fit and every other tile's are dropped, and a scene tile's
    /// dropped results are moved into the scene rather than copied. A later bake computes a
    /// dropped tile again, the same: the scene never depends on the budget, only what a later
    /// bake reuses.
    std::optional<std::size_t> cacheBudgetBytes;
    /// The tiles whose cached results a cache budget keeps first (the desktop's: nearest the
    /// camera first); empty: the baked tiles in the order they are handed out.
    std::vector<TileId> cachePriority;
    /// Keeps the scene's plant blocks with the baker, sharing their instances with the scene
    /// (InstanceList): the next bake gives a tile whose vegetation results did not change the
    /// same blocks instead of making them again, and the two scenes hold those plants once. For
    /// a caller that bakes again while it still holds the last scene (the desktop: the scene
    /// shown while the next batch or edit bakes). Off, nothing stays: a caller that drops each
    /// scene (a streamed batch) would otherwise leave its plants held here.
    bool keepPlantBlocks = false;
    /// The scene origin; unset: the centre of the index's tiles. A shard passes the whole
    /// bake's origin so its tiles land exactly where the whole bake puts them.
    std::optional<LonLat> origin;
    /// Terrain: the height above the DEM's datum that the scene's y = 0 stands for, metres. Set:
    /// the scene stands on the layers' heights (LayerSource::heights) — every y is a terrain
    /// height less this. Unset: when some baked tile (or a neighbour) has heights, the height at
    /// the origin, else the lowest height of the baked tiles, else 0; when none has, the flat
    /// world of height 0. The Session sets it whenever it has DEMs (the ground height at the
    /// whole bake's origin), so every batch and shard of one bake shares it.
    std::optional<double> originHeight;
    /// Terrain: the vertical error bound of the ground meshes, metres (≥ 0;
    /// terrain/ground_mesh.h). Read by Session::bake, which meshes each baked tile's ground
    /// into Scene::ground; a bare SceneBaker leaves the ground unmeshed. Unset: the rules'
    /// `ground_error` (the smallest of their surface passes; the schema's default, 0.5 m,
    /// without one).
    std::optional<float> groundErrorMetres;
    ProgressCallback progress;  ///< stages "placing buildings", "meshing surfaces", "planting", "assembling"
};

/// What one bake did.
struct BakeReport {
    std::vector<PassReport> passes;     ///< in the order they ran
    std::vector<std::string> warnings;  ///< e.g. footprints too large to place; each names the feature
    double milliseconds = 0.0;          ///< the whole bake
    /// What the passes keep cached once the bake is done (SceneBaker::cacheFootprint), and how
    /// many tiles' results the cache budget dropped.
    std::size_t cachedTiles = 0;
    std::size_t cachedBytes = 0;
    std::size_t droppedTiles = 0;
    /// With BakeOptions::keepPlantBlocks: the scene tiles whose plant blocks are the last
    /// scene's, shared (their vegetation results did not change).
    std::size_t plantTilesShared = 0;

    /// The report of the pass with this name, or nullptr.
    const PassReport* pass(std::string_view name) const;
};

class SceneBaker {
public:
    /// A baker for the tiles of `index`, whose layers `layers` holds (rasterized from the same
    /// index: same layer names in the same order) and whose models come from `catalogue`. All
    /// three must outlive the baker. Their content may change between bakes (results depending on
    /// what changed are recomputed), but the index's map must not be destroyed.
    SceneBaker(const TileIndex& index, const LayerSource& layers, const AssetCatalogue& catalogue);
    ~SceneBaker();
    SceneBaker(const SceneBaker&) = delete;
    SceneBaker& operator=(const SceneBaker&) = delete;

    /// Sets the rules of the next bakes, checked against the map's layers and the catalogue.
    /// Cached results stay: their keys decide what is reused. On error the old rules stay.
    Status setRules(PlacementRules rules);
    const PlacementRules& rules() const { return mRules; }

    /// Runs the passes and assembles the scene. Errors: rules not set, layers not matching the
    /// index, a bad tile order or block size, an expression that fails to compile at the scene's
    /// latitude, cancellation.
    Result<Scene> bake(const BakeOptions& options = {});

    /// What the last bake did.
    const BakeReport& report() const { return mReport; }
    /// The map's layers plus placed_buildings and placed_vegetation as the last bake left them
    /// (for export and the viewport). Valid until the next bake.
    const PlacementLayers& layers() const { return *mLayers; }
    /// What the passes hold cached: the tiles with a result in some pass and the bytes of them all
    /// (heldBytes, plus the caches' own bookkeeping per tile).
    struct CacheFootprint {
        std::size_t tiles = 0;
        std::size_t bytes = 0;
    };
    CacheFootprint cacheFootprint() const;
    /// cacheFootprint over `tiles` only (each once).
    CacheFootprint cacheFootprint(std::span<const TileId> tiles) const;
    /// Forgets every cached result: the next bake computes everything.
    void clearCache();

private:
    /// The steps of one bake (scene_baker.cpp). Nested so that they reach the caches below
    /// without being declared here.
    class BakeRun;

    const TileIndex* mIndex;
    const LayerSource* mBase;
    const AssetCatalogue* mCatalogue;
    PlacementRules mRules;
    bool mHaveRules = false;
    std::unique_ptr<PlacementLayers> mLayers;
    LayerHashes mHashes;
    std::unordered_map<std::string, BuildingPass> mBuildingPasses;  ///< by pass name
    std::unordered_map<std::string, SurfacePass> mSurfacePasses;
    std::unordered_map<std::string, VegetationPass> mVegetationPasses;
    /// A tile's plant blocks as the last scene holds them (BakeOptions::keepPlantBlocks): made
    /// from the vegetation passes' results of these keys (one per vegetation pass, in rule
    /// order, 0 for none) into blocks of `blockCells`; assets are catalogue indices.
    struct PlantBlocks {
        std::vector<std::uint64_t> keys;
        int blockCells = 0;
        std::vector<InstanceBlock> blocks;
    };
    std::unordered_map<TileId, PlantBlocks> mPlantBlocks;
    BakeReport mReport;
};

/// The bake's scene origin for a set of tiles: the centre of their joint extent, in degrees.
LonLat sceneOrigin(std::span<const TileId> tiles);

}  // namespace terrabit::core::placement
