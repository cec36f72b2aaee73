#pragma once
/// MapDocument: the open project over the pipeline (core::pipeline::Session, which reads the
/// map, applies rule edits, bakes and exports) — a Qt adapter that adds what a desktop needs:
/// the project and its saving, the undo stack, the derived layers and their rows, and the long
/// work (reading a map, baking, exporting) on one worker thread, one job at a time, with progress,
/// cancellation and a re-bake after a change; widgets hear of every change through signals.
///
/// Threading: every public function is called on the thread that owns the document (the UI
/// thread) and returns at once. Jobs (JobRunner) use the Session on the worker one at a time;
/// the UI thread reads only what the Session never changes after opening (the map's layers, its
/// rules), and each job's result is swapped in on the UI thread when it finishes. A change that
/// needs a new bake while one runs cancels it and bakes again when it has stopped.
///
/// A large selection bakes progressively (bake_batches.h): the tiles nearest the bake focus
/// (the map view's centre) first, in growing batches whose scenes are shown as they come
/// (sceneChanged() after each; sceneComplete() once the whole selection is in). The baker keeps
/// the tiles' cached results across batches and restarts, those nearest the focus first within
/// the cache budget (setCacheBudget; farther tiles are computed again), and a bake that follows
/// another (a rule edit, a seed) starts with one batch of every selected tile already shown: a
/// tile's results depend on which tiles around it are baked, so those are reused only in the
/// context they were made in. A rule edit thus recomputes only what it affects. What a
/// selection costs on the UI thread does not grow with it: coverage and per-tile tallies are
/// counted on the worker.

#include <QColor>
#include <QObject>
#include <QString>
#include <QUndoStack>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "terrabit/core/algebra/area_coverage.h"
#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/pipeline/layer_stack.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/pipeline/tile_tally.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/core/project/project.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/ui/document/job_runner.h"

namespace terrabit::ui {

using core::pipeline::LayerStack;

/// What the document shows of one layer (base, class or derived).
struct LayerRow {
    QString name;
    QColor colour;
    bool derived = false;                  ///< made by an expression (the project's or the rules' named ones)
    bool fromRules = false;                ///< a named expression of the rules document (not editable here)
    QString expression;                    ///< for derived layers: the expression
    int parent = -1;                       ///< for a class layer: its parent's row
    core::algebra::AreaCoverage coverage;  ///< over the selected tiles
    double fraction = 0.0;                 ///< covered share of the selected tiles, 0..1
};

/// Writes a project file atomically through QSaveFile (paths relative to its folder).
core::Status writeProjectFile(const core::project::Project& project, const std::filesystem::path& file);

/// What a document keeps of its tiles' pass results between bakes unless told otherwise
/// (MapDocument::setCacheBudget): twice what monaco-region's 1,608 tiles hold (about 230 MB),
/// so a region keeps all of them and a 3 × 3 copy of it about 3,500 tiles around the focus.
inline constexpr std::size_t kDefaultCacheBudgetBytes = std::size_t{512} << 20;

class MapDocument : public QObject {
    Q_OBJECT
public:
    /// Where shared resources are: the default rules and the asset catalogue come from here.
    explicit MapDocument(std::filesystem::path resourcesDir, QObject* parent = nullptr);
    ~MapDocument() override;

    // -- state (UI thread) ----------------------------------------------------------------------
    const core::project::Project& project() const { return mProject; }
    /// The project's file, or empty for an unsaved project.
    const std::filesystem::path& projectFile() const { return mProjectFile; }
    /// True for a file inside the resources folder, such as the bundled sample project: a
    /// starting point that saves and exports must not write into.
    bool isBundled(const std::filesystem::path& file) const;
    /// True when there are changes not saved to projectFile().
    bool modified() const { return !mUndo.isClean() || mDirtyOutsideUndo; }
    /// True while a job (load, bake, export) runs.
    bool busy() const { return mJobs.busy(); }
    /// True when a map is loaded (its layers can be shown).
    bool hasMap() const { return mSession != nullptr; }
    /// The map's layers rasterized at the project's zoom over every tile with content; nullptr
    /// before a map is loaded.
    const core::io::MapLayers* map() const;
    /// Base layers followed by derived layers: what the map, the panels and the probe read.
    const LayerStack& layers() const { return mLayers; }
    /// One row per layer of layers(), with colour and coverage over the selection.
    const std::vector<LayerRow>& layerRows() const { return mRows; }
    /// The placement rules in force: the document's passes with the project's edits applied.
    const core::placement::PlacementRules& placementRules() const { return mRules; }
    const core::AssetCatalogue& catalogue() const { return *mCatalogue; }
    /// The last baked scene (of a progressive bake: the tiles baked so far); nullptr before the
    /// first successful bake.
    std::shared_ptr<const core::Scene> scene() const { return mScene; }
    /// True when scene() holds every tile of the selection as the rules in force bake it (false
    /// while a progressive bake has shown only its first batches, or a change awaits its bake).
    bool sceneComplete() const { return mSceneComplete; }
    /// What the last bake did (passes run and reused).
    const core::placement::BakeReport& bakeReport() const { return mBakeReport; }
    /// The selected tiles (the bake), sorted north to south.
    const std::vector<core::TileId>& selection() const { return mSelection; }
    /// What the last bake (or batch) placed in a tile: nullptr for a tile it did not bake.
    const core::pipeline::TileTally* tileTally(const core::TileId& tile) const;
    /// Where a progressive bake starts (the map view's centre); unset: the selection's centre.
    const std::optional<core::LonLat>& bakeFocus() const { return mBakeFocus; }
    /// The map's extent, EPSG:3857 metres (empty before a map is loaded).
    core::Box2 extentMercator() const;
    /// The rules document text the project uses (the file's text or the embedded text).
    const std::string& rulesDocument() const;
    QUndoStack* undoStack() { return &mUndo; }
    /// The last error a job or an edit met (cleared when a job succeeds).
    const QString& lastError() const { return mLastError; }
    /// True when the map stands on terrain: the project has DEMs and they opened.
    bool hasTerrain() const;
    /// The ground height at a point (global cells at the project's zoom), metres above the DEMs'
    /// datum: bilinear between the heights at the corners of its cell, as the layers hold them
    /// (LayerSource::heights). NaN without terrain, outside the map's tiles and where no DEM
    /// reaches. Reads memory only: cheap enough for every mouse move.
    float groundHeight(core::Vec2 cell) const;
    /// A function putting `layers` on the bridges' decks in the heights of `tiles`
    /// (Session::onBridgeDecks): what a collision probe stands on. Any thread may call it while
    /// the document moves on: it holds the map's session. Without a map it returns null.
    using BridgeDecker =
        std::function<std::unique_ptr<core::LayerSource>(const core::LayerSource&, std::span<const core::TileId>)>;
    BridgeDecker bridgeDecker() const;
    /// What the DEMs gave the map's tiles (filled, inpainted, without height); all zero without
    /// terrain.
    core::pipeline::TerrainReport terrainReport() const;

    // -- projects -----------------------------------------------------------------------------
    /// An empty project (no map). Throws away undo history.
    void newProject();
    /// Reads a project file and loads its map in the background. A bad file returns its error
    /// at once and leaves the open project as it was; a map that cannot be read is reported by
    /// loadFailed() and also leaves it as it was.
    core::Status openProject(const std::filesystem::path& file);
    /// Starts a new project on a map file (default rules, zoom 17, nothing selected).
    core::Status openMap(const std::filesystem::path& mapFile);
    /// Opens a project as if it were read from `file` (for recovery): same loading as openProject.
    core::Status openProjectData(core::project::Project project, const std::filesystem::path& file, bool modified);
    /// Writes the project (with the current views) to a file atomically and makes it the
    /// project's file.
    core::Status saveProject(const std::filesystem::path& file);
    /// The project as it would be saved now (views included).
    core::project::Project currentProject() const;
    /// Lets the window put the camera and map view into saved projects.
    void setViewState(const core::project::Camera& camera, const core::project::MapView& view);
    /// Remembers the export dialog's choices in the project.
    void setExportSettings(const core::project::ExportSettings& settings);

    // -- edits (undoable unless noted) ---------------------------------------------------------
    /// Replaces the selection (quadkeys at the project's zoom) and re-bakes.
    void setSelection(std::vector<core::TileId> tiles);
    /// Selects every tile with content at the project's zoom (one undo step) and re-bakes.
    void selectAllTiles();
    /// Sets where the next progressive bake starts (not undoable, not saved; a bake already
    /// running keeps its order).
    void setBakeFocus(core::LonLat focus) { mBakeFocus = focus; }
    /// What the bake may keep of the tiles' pass results between bakes, bytes
    /// (BakeOptions::cacheBudgetBytes; 0: no bound): those of the tiles nearest the bake focus
    /// are kept, the farther ones dropped and computed again when a later bake needs them.
    /// Applies from the next bake; not saved.
    void setCacheBudget(std::size_t bytes) { mCacheBudget = bytes; }
    std::size_t cacheBudget() const { return mCacheBudget; }
    /// Reloads the map at another zoom; the selection is cleared. Not undoable.
    void setZoom(int zoom);
    /// Checks and applies a rule edit (merging with the previous edit of the same path), then
    /// re-bakes. On error nothing changes and the error is returned.
    core::Status editRule(const core::project::RuleEdit& edit);
    /// Sets the scene seed and re-bakes.
    void setSeed(std::uint64_t seed);
    /// Adds (or replaces, by name) a derived layer. Errors: a bad name, a name of a base layer,
    /// an expression that does not compile (the diagnostic's text).
    core::Status addDerivedLayer(const core::project::DerivedLayer& layer);
    /// Removes a derived layer of the project.
    void removeDerivedLayer(const QString& name);
    /// Adds a DEM to the project's dem list (a raster file, or `terrarium:PATH` /
    /// `terrain-rgb:PATH` for a tile set, io::DemReader) and reopens the map on it in the
    /// background; demsChanged() reports success, elevationFailed() (the Session's message,
    /// which names the file) a DEM that cannot be used, and then the project stays as it was. Undoable
    /// once it has opened. Errors at once: no map, a DEM the list already holds.
    core::Status addElevation(const std::filesystem::path& dem);
    /// Removes a DEM from the project's dem list and reopens the map without it, like
    /// addElevation. Errors at once: no map, a DEM the list does not hold.
    core::Status removeElevation(const std::filesystem::path& dem);
    /// Shows or hides a layer (not undoable; saved with the project).
    void setLayerVisible(const QString& name, bool visible);
    bool layerVisible(const QString& name) const;
    /// The overlay layer ("" for none; saved with the project).
    void setOverlay(const QString& name);
    QString overlay() const { return QString::fromStdString(mProject.overlay); }

    // -- jobs ---------------------------------------------------------------------------------
    /// Bakes the selection again (after a change the document does this itself).
    void rebake();
    /// Asks the running job to stop.
    void cancel();
    /// Exports the current scene in the background; exportFinished() reports the result.
    /// Fails at once when there is no scene or a job cannot start.
    core::Status startExport(core::ExportOptions options);
    /// Blocks until no job runs or is pending (tests and shutdown). Returns false on timeout.
    bool waitIdle(int timeoutMs = 60000);

    // -- used by undo commands ---------------------------------------------------------------
    void applyRuleEdits(std::vector<core::project::RuleEdit> edits);
    void applySelection(std::vector<core::TileId> tiles);
    void applyDerivedLayers(std::vector<core::project::DerivedLayer> layers);
    void applySeed(std::uint64_t seed);
    /// Reopens the map on another dem list (in the background), keeping every other part of the
    /// project and the undo history.
    void applyDems(std::vector<std::filesystem::path> dems);

signals:
    /// A new map (or the same map at a new zoom) is loaded and its layers are in.
    void mapLoaded();
    /// Loading failed; the project that was open stays.
    void loadFailed(const QString& message);
    void selectionChanged();
    /// Layers were added or removed, or their coverage or visibility changed.
    void layersChanged();
    /// The rules in force changed (an edit, an undo, a new project).
    void rulesChanged();
    /// A bake or one batch of a progressive bake finished; scene() holds it.
    void sceneChanged();
    /// The coverage of the layers over the selection (layerRows()) was counted again.
    void coverageChanged();
    /// A bake failed (the message says why); the previous scene stays.
    void bakeFailed(const QString& message);
    void exportFinished(bool ok, const QString& message);
    /// A job started or ended.
    void busyChanged(bool busy);
    /// Progress of the running job, 0..1, and what it is doing.
    void progress(double fraction, const QString& stage);
    void modifiedChanged(bool modified);
    /// The map was reopened on another dem list (project().dems); the layers' heights changed.
    void demsChanged();
    /// The map could not be reopened on a changed dem list (the message names the DEM and what
    /// is wrong with it); the project and its map stay as they were.
    void elevationFailed(const QString& message);
    void projectFileChanged(const QString& file);

private:
    /// How a load is used: a new project, or the same project on another dem list (which keeps
    /// the undo history and everything but the session, and pushes `push` once it has opened).
    struct DemReload {
        std::vector<std::filesystem::path> before;  ///< the dem list before the change
        bool push = false;                          ///< a new edit: push its undo step on success
        QString text;                               ///< the undo step's text
    };
    core::Status startLoad(core::project::Project project, const std::filesystem::path& file, bool modified,
                           std::optional<DemReload> demReload = std::nullopt);
    void reloaded(std::shared_ptr<core::pipeline::Session> session, std::vector<std::filesystem::path> dems,
                  const DemReload& reload);
    core::Status changeDems(std::vector<std::filesystem::path> dems, const QString& text);
    // What each job does with its result, on the UI thread.
    void loaded(std::shared_ptr<core::pipeline::Session> session, core::placement::PlacementRules rules,
                core::project::Project project, const std::filesystem::path& file, bool modified);
    void loadFailure(const core::Error& error, bool elevation = false);
    /// What a bake (or a batch of one) gives the UI thread.
    struct Baked {
        std::shared_ptr<const core::Scene> scene;
        core::placement::BakeReport report;
        std::shared_ptr<const std::unordered_map<core::TileId, core::pipeline::TileTally>> tallies;
        bool complete = false;  ///< the whole selection
    };
    /// What a bake job starts from: copies of the document's state when it was started.
    struct BakeInput {
        std::shared_ptr<core::pipeline::Session> session;
        std::vector<core::TileId> selection;
        core::placement::PlacementRules rules;
        std::uint64_t seed = 0;
        LayerStack layers;               ///< shares the bits with the document's
        std::uint64_t layersSerial = 0;  ///< mLayersSerial when started
        std::optional<core::LonLat> focus;
        std::vector<core::TileId> shown;  ///< the tiles of the scene shown when started
        std::size_t cacheBudget = 0;      ///< mCacheBudget when started
    };
    /// The bake job's work on the worker: coverage, then the batches (posted as they finish).
    JobRunner::Finish bakeWork(BakeInput input, const core::ProgressCallback& progress);
    void bakeDone(Baked baked);
    void bakeStopped(const QString& error, bool cancelled);
    void applyCoverage(const std::vector<core::algebra::AreaCoverage>& coverage, std::uint64_t layersSerial);
    void exportDone(bool ok, const QString& message);
    /// Starts the bake a change asked for while a job ran.
    void startPending();
    /// Re-evaluates the derived layers and the rows (coverage over the selection).
    void rebuildLayers();
    void updateCoverage();
    void setCoverage(const std::vector<core::algebra::AreaCoverage>& coverage);
    void requestBake();
    /// setSelection with the undo step's text.
    void pushSelection(std::vector<core::TileId> tiles, const QString& text);
    void setModifiedOutsideUndo();

    std::filesystem::path mResourcesDir;
    core::project::Project mProject;
    std::filesystem::path mProjectFile;
    /// The pipeline: the map, its rules and catalogue, the baker. Jobs use it one at a time on
    /// the worker; the UI thread reads only what never changes after loading.
    std::shared_ptr<core::pipeline::Session> mSession;
    core::placement::PlacementRules mRules;
    std::shared_ptr<const core::AssetCatalogue> mCatalogue;  ///< read once, for every map
    std::vector<core::TileId> mSelection;
    LayerStack mLayers;
    std::vector<LayerRow> mRows;
    std::uint64_t mLayersSerial = 0;  ///< counts rebuildLayers(): coverage of older layers is dropped
    std::shared_ptr<const core::Scene> mScene;
    bool mSceneComplete = false;
    std::shared_ptr<const std::unordered_map<core::TileId, core::pipeline::TileTally>> mTallies;
    std::optional<core::LonLat> mBakeFocus;
    std::size_t mCacheBudget = kDefaultCacheBudgetBytes;
    core::placement::BakeReport mBakeReport;
    QUndoStack mUndo;
    bool mDirtyOutsideUndo = false;
    bool mWasModified = false;
    QString mLastError;
    bool mBakePending = false;  ///< a change asked for a bake while a job ran
    /// Last: destroyed first, so its destructor's wait ends before anything a job uses goes.
    JobRunner mJobs;
};

}  // namespace terrabit::ui
