#pragma once
/// Session: the pipeline from a map file to a scene, without Qt, driven by every front end —
/// terrabit-cli's bake, rasterize, compose, probe and render, the desktop document and the
/// tests. It opens a map with its rules and catalogue (checking what the user named before the
/// map is read), holds the layers, selects the tiles to bake, applies rule edits, bakes
/// incrementally with progress and cancel, and exports.
///
///   open ─▶ [select] ─▶ setRules ─▶ bake ─▶ exportScene
///             ▲  rule edits, seed, selection: bake again; what did not change is reused
///
/// Two ways to hold the layers: every tile read at once (SessionInput::rasterize, the default:
/// the app, the small bakes, the commands that look at layers), or only the map's tile index,
/// the layers rasterized a batch at a time (rasterize()) by a streamed or sharded bake, so a
/// country's layers are never held at once.
///
/// Threading: one thread at a time. The desktop runs it on its one worker thread and reads
/// map() from the UI thread only while no job runs, or the parts a bake never changes (the map's
/// own layers of a rasterized session).

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/project/rule_edit.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/terrain/ground_grading.h"
#include "terrabit/core/terrain/ground_mesh.h"
#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::core::io {
class DemReader;
}

namespace terrabit::core::pipeline {

/// What a front end needs of the rules' passes.
enum class PassNeed {
    None,      ///< layers only (rasterize, compose, probe): passes and catalogue are not read
    Optional,  ///< a document without a passes section is fine (render draws its layers)
    Required,  ///< the session bakes (bake, the desktop)
};

/// What to open.
struct SessionInput {
    io::MapInput map;         ///< the map file, the rules (file or text), GDAL open options
    io::TileSelection tiles;  ///< the zoom and the tiles read (default: every tile with content)
    PassNeed passes = PassNeed::Required;
    /// The asset catalogue file; read unless `catalogue` is given. Needed unless passes is None.
    std::filesystem::path catalogueFile;
    /// A catalogue already read (the desktop reads it once for every map it opens).
    std::shared_ptr<const AssetCatalogue> catalogue;
    int threads = 0;  ///< 0: one per hardware thread
    /// Rasterize every tile when opening; false: only read and index the map, and rasterize a
    /// batch at a time with rasterize().
    bool rasterize = true;
    /// Elevation: raster DEMs (io::DemReader; the finest wins where they overlap). Empty: the
    /// world is flat, as it always was. A DEM that does not open is left out with a warning
    /// naming it and its problem (warnings()), and the rest are used; with none left the world
    /// is flat, and a warning says so.
    std::vector<std::filesystem::path> dems;
    /// True: a DEM that does not open fails open() instead (the desktop refuses a DEM being
    /// added that way, naming it, and keeps the project as it was).
    bool strictDems = false;

    /// The map's layers and nothing else (rasterize, compose, probe): no passes, no catalogue.
    static SessionInput layersOnly(io::MapInput map, io::TileSelection tiles, int threads) {
        SessionInput input;
        input.map = std::move(map);
        input.tiles = std::move(tiles);
        input.passes = PassNeed::None;
        input.threads = threads;
        return input;
    }
};

/// What opening a project's map takes: its map file and open options, its rules (the embedded
/// text, named "project rules"; else its rules file; else `defaultRules`), its DEMs and its zoom, the
/// whole map (tiles with content). Error: the project names no map.
Result<SessionInput> projectInput(const project::Project& project, const std::filesystem::path& defaultRules);

/// What sampling the DEMs found, summed over every tile sampled so far (io::DemSampleReport's
/// counts; samples are cell corners).
struct TerrainReport {
    std::size_t tiles = 0;                ///< tiles sampled
    std::uint64_t filledFromCoarser = 0;  ///< samples a coarser DEM filled
    std::uint64_t inpainted = 0;          ///< samples inpainted from the data around a hole
    std::uint64_t noHeight = 0;           ///< samples no DEM reaches: the ground is flat (0 m) there
    std::uint64_t absurd = 0;             ///< samples where a DEM held an absurd value
    std::size_t tilesWithoutHeight = 0;   ///< tiles with at least one sample without height
    /// Per DEM, in io::DemReader::dems() order (finest first): io::DemSampleReport::PerDem's
    /// counts summed over the tiles sampled.
    struct PerDem {
        std::filesystem::path path;
        std::uint64_t covered = 0;            ///< samples inside its raster
        std::uint64_t supplied = 0;           ///< samples whose height it gave
        std::uint64_t filledFromCoarser = 0;  ///< of supplied: where every finer DEM had none
        std::uint64_t inpainted = 0;          ///< of supplied: from its filled copy
        std::uint64_t absurd = 0;             ///< samples at which it held an absurd value
    };
    std::vector<PerDem> perDem;
};

/// The walkability rule of scenes with terrain: exportScene() gives the collision grid of a
/// session with DEMs one more layer, kSteepLayer, after the scene's layers: the cells too steep
/// to walk, which the default walkability counts as blocking (README, collision grid). The
/// rules document's `expressions:` section may define `steep` itself (e.g. "slope(>40deg) -
/// road"); else it is kSteepExpression. Without DEMs the collision grid is unchanged.
inline constexpr std::string_view kSteepLayer = "steep";
/// The default of kSteepLayer: cells steeper than 35° (relief, core/algebra/expression_ast.h).
inline constexpr std::string_view kSteepExpression = "slope(>35deg)";

class Session {
public:
    /// Checks the rules (layers, then passes), the tile selection and the catalogue, then reads,
    /// classifies, indexes and (with input.rasterize) rasterizes the map. Errors carry their
    /// kind: rules, selection and catalogue are bad arguments, an unreadable map bad input, a
    /// stop asked for through `progress` cancelled. Progress stages: "reading", "rasterizing".
    static Result<std::unique_ptr<Session>> open(SessionInput input, const ProgressCallback& progress = {});

    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // -- what was opened ------------------------------------------------------------------------
    /// The map read, classified, indexed and (unless streaming) rasterized.
    const io::MapLayers& map() const { return *mMap; }
    /// The zoom the map was read at (its tiles', the selection's).
    int zoom() const { return mZoom; }
    /// The text of the rules document and the name its errors use (its file, or "project rules").
    const std::string& rulesDocument() const { return mRulesDocument; }
    const std::string& rulesName() const { return mRulesName; }
    /// The catalogue; empty when opened with PassNeed::None.
    const AssetCatalogue& catalogue() const { return *mCatalogue; }
    /// True when the rules document's passes were read (always with PassNeed::Required).
    bool hasPasses() const { return mBaseRules.has_value(); }
    /// With PassNeed::Optional and a document without passes: why none were read.
    const std::optional<Error>& passesProblem() const { return mPassesProblem; }
    /// The rules document's passes, before any edit. Only when hasPasses().
    const placement::PlacementRules& baseRules() const { return *mBaseRules; }
    /// What the data gave warnings about: the map's, then its classification's, then the
    /// terrain's (samples no DEM reaches, which stay flat).
    std::vector<std::string> warnings() const;
    /// The terrain's part of warnings(), as the tiles sampled so far give it (a streamed bake
    /// samples as it goes): the DEMs left out at open(), each DEM that gave no height ("<file>:
    /// does not overlap the map"), one line of what was filled (from coarser DEMs, inpainted,
    /// absurd values, with the files), and the samples no DEM reached.
    std::vector<std::string> terrainWarnings() const;

    // -- terrain --------------------------------------------------------------------------------
    /// True when DEMs were opened (SessionInput::dems).
    bool hasTerrain() const { return mDems != nullptr; }
    /// The ground's heights of a tile at the map's zoom: the DEMs' heights graded by the map's
    /// roads, bridges, lakes and rivers (grading()), made once and kept (the same object for
    /// every later call, until a rule edit changes the grading). Every reader of the ground —
    /// the layers' heights (relief expressions, placement, collision), groundHeight(), the
    /// ground meshes — reads these. Without DEMs, or where no DEM reaches, the samples have no
    /// height. Safe to call from several threads. Errors: a DEM whose pixels can no longer be
    /// read (BadInput).
    Result<std::shared_ptr<const terrain::HeightTile>> heightTile(TileId tile) const;
    /// The DEMs' own heights of a tile, before grading: sampled once and kept.
    Result<std::shared_ptr<const terrain::HeightTile>> rawHeightTile(TileId tile) const;
    /// The grading of the ground (terrain/ground_grading.h): made at open() from the map's
    /// features and the rules' max_road_grade (the smallest of the surface passes', else the
    /// schema's default), again when a rule edit changes it. Empty without DEMs.
    const terrain::GroundGrading& grading() const { return *mGrading; }
    /// The ground height at a point (EPSG:3857 metres), bilinear between the corners of the cell
    /// it lies in; kNoHeight where there is none (no DEM, outside every DEM, nodata).
    Result<float> groundHeight(Vec2 mercator) const;
    /// The ground of a tile within `maxErrorMetres` (terrain/ground_mesh.h): its mesh, built
    /// with its four neighbours' RTIN errors (neighbours sampled through heightTile() whether
    /// baked or not, so every batch and shard meshes a tile the same), and its normals. Kept:
    /// errors per tile once, meshes until the bound changes. Without DEMs, an empty mesh.
    Result<GroundTile> groundTile(TileId tile, float maxErrorMetres = terrain::kDefaultGroundErrorMetres) const;
    /// What the DEMs gave the tiles sampled so far; all zero without DEMs.
    TerrainReport terrainReport() const;
    /// `layers` with the bridges' decks stamped into the heights of `tiles`
    /// (terrain::GroundGrading::applyDecks): what a collision grid stands on, so a probe or a
    /// mover on a bridge is on its deck and not in the valley under it (exportScene's collision
    /// grid and the probe command build on it). Without DEMs or bridges, `layers`' heights. The
    /// result refers to `layers`, which must outlive it.
    std::unique_ptr<LayerSource> onBridgeDecks(const LayerSource& layers, std::span<const TileId> tiles) const;
    /// The scene frame's originHeight for a bake centred on `origin` (degrees), metres above the
    /// DEM's datum: the ground height there; where no DEM reaches it, the lowest height of the
    /// tiles a bake covers (the map's, or the selection's); 0 when none has a height or without
    /// DEMs. bake() sets BakeOptions::originHeight to it (unless given) whenever there are DEMs,
    /// so a streamed or sharded bake's batches all stand in one frame.
    Result<double> originHeight(LonLat origin) const;

    // -- rules ----------------------------------------------------------------------------------
    /// The document's passes with `edits` applied in order, checked against the map's layers and
    /// the catalogue; errors name the edit by its place in the list and its path.
    Result<placement::PlacementRules> rulesWith(const std::vector<project::RuleEdit>& edits) const;
    /// The rules of the next bakes (the document's until set), checked like rulesWith(). Cached
    /// results stay: a bake reuses what the change did not touch. On error the rules in force
    /// stay. rulesWith() and the parts read at open() never change after it: another thread may
    /// call them while one bakes.
    Status setRules(placement::PlacementRules rules);
    const placement::PlacementRules& rules() const { return mRules; }

    // -- tiles ----------------------------------------------------------------------------------
    /// Bakes only these tiles from now on (the desktop's selection; any tile at the map's zoom,
    /// with content or not); the scene is centred on them. Without a call: every tile read.
    Status select(std::vector<TileId> tiles);
    /// The tiles a bake covers: the selection, or every tile read. Sorted north to south.
    const std::vector<TileId>& bakeTiles() const;
    /// Streaming: drops the layers held and rasterizes these tiles of the map's index instead
    /// (a batch and its halo). Errors: cancelled, a tile outside the index.
    Status rasterize(std::span<const TileId> tiles);

    // -- bake and export ------------------------------------------------------------------------
    /// Runs the passes over the bake tiles (options.tiles narrows them further, for shards and
    /// batches) and assembles the scene. With an empty selection: an empty scene. With DEMs the
    /// scene's tiles get their ground meshes (Scene::ground, groundTile()).
    Result<Scene> bake(placement::BakeOptions options);
    /// What the last bake did.
    const placement::BakeReport& report() const;
    /// The layers exports and views read: the map's plus what the last bake placed; before any
    /// bake, the map's own.
    const LayerSource& layers() const;
    /// Options for exporting this session's scenes: the rules document (for the manifest's
    /// hash) and the layers' styles, the map's then the placed ones.
    ExportOptions exportOptions(std::vector<ExportFormat> formats, std::filesystem::path outDir) const;
    /// Writes `scene` (baked by this session) with layers(); empty rulesDocument and
    /// layerStyles in `options` are filled in as exportOptions() does. With terrain and the
    /// collision format, the layers gain kSteepLayer over the scene's tiles (unless the map
    /// already has a layer of that name). Errors: the export's; a `steep` expression of the
    /// rules that does not evaluate (BadArguments).
    Result<ExportReport> exportScene(const Scene& scene, ExportOptions options,
                                     const ProgressCallback& progress = {}) const;

private:
    Session() = default;
    placement::SceneBaker& baker();
    /// With DEMs: samples the heights of every tile of the map's store (heightTile()) and sets
    /// them into it, so every reader of the layers (expressions, passes, exports) has them.
    Status attachHeights(const ProgressCallback& progress);
    /// With DEMs: grades the ground for `rules` (their max_road_grade) unless it already is;
    /// a new grading (true) forgets the graded tiles and meshes; the caller attaches them.
    Result<bool> gradeFor(const placement::PlacementRules* rules);
    /// Makes the bridges' decks of the scene's tiles (Scene::bridges) from the grading.
    void addBridges(Scene& scene) const;
    /// Takes the bridges' cells out of the scene's surfaces of the layers the bridges are in:
    /// a road surface is draped on the ground, and a bridge's deck is not on it.
    void clearSurfacesUnderBridges(Scene& scene) const;
    const TileIndex& bakeIndex() const { return mSelected ? mSelectionIndex : mMap->index; }

    std::unique_ptr<io::MapLayers> mMap;
    std::string mRulesDocument;
    std::string mRulesName;
    std::shared_ptr<const AssetCatalogue> mCatalogue;
    std::optional<placement::PlacementRules> mBaseRules;
    std::optional<Error> mPassesProblem;
    placement::PlacementRules mRules;
    int mThreads = 0;
    int mZoom = 0;
    /// select(): the selected tiles and their index (the baker points at it; assigned in place
    /// so its caches survive a new selection).
    bool mSelected = false;
    std::vector<TileId> mSelection;
    TileIndex mSelectionIndex;
    std::unique_ptr<placement::SceneBaker> mBaker;  ///< made at the first bake
    bool mBaked = false;                            ///< mBaker's layers hold a bake's placements
    bool mRulesInBaker = false;                     ///< mBaker has mRules (checked once per change)
    placement::BakeReport mEmptyReport;
    std::unique_ptr<io::DemReader> mDems;
    std::vector<std::string> mDemWarnings;  ///< open(): the DEMs left out, and why
    /// Per tile sampled: samples filled from a coarser DEM, inpainted, absurd (a scene's
    /// statistics sum its tiles'); guarded by mHeightsMutex.
    mutable std::unordered_map<TileId, std::array<std::uint32_t, 3>> mTileFills;
    /// heightTile()'s tiles; mutable: sampling a tile once is not a change of the session.
    mutable std::mutex mHeightsMutex;
    mutable std::unordered_map<TileId, std::shared_ptr<const terrain::HeightTile>> mHeights;  ///< graded
    mutable std::unordered_map<TileId, std::shared_ptr<const terrain::HeightTile>> mRawHeights;
    /// The map's features that shape the ground, and their grading at mGradedFor (a grade).
    std::vector<terrain::GradedFeature> mGradedFeatures;
    std::shared_ptr<const terrain::GroundGrading> mGrading = std::make_shared<const terrain::GroundGrading>();
    double mGradedFor = -1.0;
    /// Graded tiles of earlier gradings, kept for the session's life (see gradeFor()).
    std::vector<std::shared_ptr<const terrain::HeightTile>> mRetiredHeights;
    mutable TerrainReport mTerrainReport;  ///< guarded by mHeightsMutex
    /// groundTile()'s RTIN errors per tile and meshes per tile for mGroundError; guarded by
    /// mGroundMutex (meshing runs on several threads).
    Status meshGround(Scene& scene, float maxErrorMetres, int threads) const;
    Result<std::shared_ptr<const terrain::RtinErrors>> rtinErrorsOf(TileId tile) const;
    mutable std::mutex mGroundMutex;
    mutable std::unordered_map<TileId, std::shared_ptr<const terrain::RtinErrors>> mRtin;
    mutable std::unordered_map<TileId, std::shared_ptr<const GroundTile>> mGround;
    mutable float mGroundError = -1.0F;
};

}  // namespace terrabit::core::pipeline
