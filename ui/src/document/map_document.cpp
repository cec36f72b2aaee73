#include "terrabit/ui/document/map_document.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSaveFile>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "terrabit/core/pipeline/tile_tally.h"
#include "terrabit/core/project/rule_edit.h"
#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/render/scene_export.h"
#include "terrabit/ui/document/bake_batches.h"
#include "terrabit/ui/document/freed_memory.h"
#include "value_command_p.h"

namespace terrabit::ui {

namespace project = core::project;
namespace pipeline = core::pipeline;
using Kind = JobRunner::Kind;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

/// The map's layers, keeping the session alive.
std::shared_ptr<const core::LayerStore> mapStore(const std::shared_ptr<pipeline::Session>& session) {
    return {session, &session->map().store};
}

template <class T>
using Command = ValueCommand<MapDocument, T>;

constexpr int kRuleEditMergeId = 1;

/// A change of the dem list, pushed once the map has reopened on it: its first redo() is the
/// change already made; undo and redo reopen the map on the other list.
class DemCommand : public QUndoCommand {
public:
    DemCommand(MapDocument* doc, std::vector<std::filesystem::path> before, std::vector<std::filesystem::path> after,
               const QString& text)
        : QUndoCommand(text), mDoc(doc), mBefore(std::move(before)), mAfter(std::move(after)) {}
    void redo() override {
        if (mDone) {
            mDone = false;
            return;
        }
        mDoc->applyDems(mAfter);
    }
    void undo() override { mDoc->applyDems(mBefore); }

private:
    MapDocument* mDoc;
    std::vector<std::filesystem::path> mBefore;
    std::vector<std::filesystem::path> mAfter;
    bool mDone = true;
};

/// A DEM as the project keeps it: an absolute path, the tile-set encoding prefix kept.
std::filesystem::path absoluteDem(const std::filesystem::path& dem) {
    project::DemEntry e = project::splitDemEntry(dem);
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(e.path, ec);
    if (!ec) e.path = absolute.lexically_normal();
    return e.encoding.empty() ? e.path : std::filesystem::path(e.encoding + e.path.string());
}

}  // namespace

core::Status writeProjectFile(const project::Project& p, const std::filesystem::path& file) {
    // QSaveFile writes a temporary file and renames it over the old one on commit: a crash or a
    // full disk leaves the old project whole.
    QSaveFile out(QString::fromStdString(file.string()));
    if (!out.open(QIODevice::WriteOnly)) {
        return core::ioError(file.string() + ": cannot save the project: " + out.errorString().toStdString());
    }
    const std::string text = project::serializeProject(p, file.parent_path());
    out.write(text.data(), qint64(text.size()));
    if (!out.commit()) {
        return core::ioError(file.string() + ": cannot save the project: " + out.errorString().toStdString());
    }
    return core::Status::success();
}

// -- construction ----------------------------------------------------------------------------------

bool MapDocument::isBundled(const std::filesystem::path& file) const {
    if (file.empty() || mResourcesDir.empty()) return false;
    std::error_code ec;
    const auto dir = std::filesystem::weakly_canonical(mResourcesDir, ec);
    const auto path = std::filesystem::weakly_canonical(file, ec);
    const auto rel = path.lexically_relative(dir);
    return !rel.empty() && *rel.begin() != "..";
}

MapDocument::MapDocument(std::filesystem::path resourcesDir, QObject* parent)
    : QObject(parent), mResourcesDir(std::move(resourcesDir)) {
    connect(&mJobs, &JobRunner::busyChanged, this, &MapDocument::busyChanged);
    connect(&mJobs, &JobRunner::progress, this, &MapDocument::progress);
    connect(&mJobs, &JobRunner::settled, this, &MapDocument::startPending);
    connect(&mUndo, &QUndoStack::cleanChanged, this, [this] {
        if (modified() != mWasModified) {
            mWasModified = modified();
            emit modifiedChanged(mWasModified);
        }
    });
    auto catalogue = core::AssetCatalogue::load(mResourcesDir / "assets" / "catalogue.yaml");
    if (catalogue) {
        mCatalogue = std::make_shared<const core::AssetCatalogue>(std::move(*catalogue));
    } else {
        mCatalogue = std::make_shared<const core::AssetCatalogue>();
        mLastError = qs(catalogue.message());
    }
}

MapDocument::~MapDocument() {
    // The members' destructors still emit (~QUndoStack emits cleanChanged, which becomes
    // modifiedChanged): nobody may hear them, the listeners may be half destroyed already.
    blockSignals(true);
    mUndo.blockSignals(true);
    mJobs.cancel();  // ~JobRunner (the last member, destroyed first) waits for it
}

const std::string& MapDocument::rulesDocument() const {
    static const std::string none;
    return mSession ? mSession->rulesDocument() : none;
}

const core::io::MapLayers* MapDocument::map() const { return mSession ? &mSession->map() : nullptr; }

bool MapDocument::hasTerrain() const { return mSession && mSession->hasTerrain(); }

pipeline::TerrainReport MapDocument::terrainReport() const {
    return mSession ? mSession->terrainReport() : pipeline::TerrainReport{};
}

MapDocument::BridgeDecker MapDocument::bridgeDecker() const {
    return [session = mSession](const core::LayerSource& layers,
                                std::span<const core::TileId> tiles) -> std::unique_ptr<core::LayerSource> {
        return session ? session->onBridgeDecks(layers, tiles) : nullptr;
    };
}

float MapDocument::groundHeight(core::Vec2 cell) const {
    constexpr float kNone = std::numeric_limits<float>::quiet_NaN();
    if (!hasTerrain() || !(cell.x >= 0.0 && cell.y >= 0.0)) return kNone;
    const int zoom = mProject.zoom;
    const double tileX = std::floor(cell.x / core::kTileCells), tileY = std::floor(cell.y / core::kTileCells);
    const double side = std::ldexp(1.0, zoom);
    if (tileX >= side || tileY >= side) return kNone;
    const core::TileId tile{zoom, static_cast<std::uint32_t>(tileX), static_cast<std::uint32_t>(tileY)};
    const core::terrain::HeightTile* heights = mLayers.heights(tile);
    if (!heights || heights->heights.size() != core::terrain::kHeightSampleCount) return kNone;
    return core::terrain::heightAt(*heights, {cell.x - tileX * core::kTileCells, cell.y - tileY * core::kTileCells});
}

core::Box2 MapDocument::extentMercator() const {
    if (!mSession) return {};
    return mSession->map().map.extent;
}

// -- loading ----------------------------------------------------------------------------------------

void MapDocument::newProject() {
    cancel();
    waitIdle();
    mSession.reset();
    mProject = project::Project{};
    mProjectFile.clear();
    mSelection.clear();
    mRules = core::placement::PlacementRules{};
    mLayers = LayerStack{};
    mRows.clear();
    mScene.reset();
    mSceneComplete = false;
    mTallies.reset();
    mBakeReport = {};
    mUndo.clear();
    mDirtyOutsideUndo = false;
    mLastError.clear();
    emit mapLoaded();
    emit rulesChanged();
    emit selectionChanged();
    emit layersChanged();
    emit sceneChanged();
    emit projectFileChanged({});
    mWasModified = false;
    emit modifiedChanged(false);
}

core::Status MapDocument::openProject(const std::filesystem::path& file) {
    auto p = project::loadProject(file);
    if (!p) {
        mLastError = qs(p.message());
        return p.error();
    }
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(file, ec);
    return startLoad(std::move(*p), ec ? file : absolute, false);
}

core::Status MapDocument::openProjectData(project::Project p, const std::filesystem::path& file, bool modified) {
    return startLoad(std::move(p), file, modified);
}

core::Status MapDocument::openMap(const std::filesystem::path& mapFile) {
    std::error_code ec;
    if (!std::filesystem::exists(mapFile, ec)) {
        mLastError = qs(mapFile.string() + ": no such file or folder");
        return core::Error{mLastError.toStdString()};
    }
    project::Project p;
    p.map = std::filesystem::absolute(mapFile, ec);
    return startLoad(std::move(p), {}, true);
}

core::Status MapDocument::startLoad(project::Project p, const std::filesystem::path& file, bool modified,
                                    std::optional<DemReload> demReload) {
    if (mCatalogue->empty()) {
        return core::Error{"the asset catalogue could not be read: " + mLastError.toStdString()};
    }
    // A new map replaces everything the running job works on: stop it first.
    cancel();
    waitIdle();
    const std::filesystem::path defaultRules = mResourcesDir / "rules" / "default.yaml";
    const bool elevation = demReload.has_value();
    auto work = [this, p = std::move(p), file, modified, defaultRules, catalogue = mCatalogue, elevation,
                 demReload = std::move(demReload)](const core::ProgressCallback& progress) -> JobRunner::Finish {
        auto input = pipeline::projectInput(p, defaultRules);
        if (!input) return [this, e = input.error(), elevation](bool) { loadFailure(e, elevation); };
        input->catalogue = catalogue;
        // A DEM being added or removed that does not open is refused, naming it; a project
        // opened with one opens without it, with a warning.
        input->strictDems = elevation;
        auto session = pipeline::Session::open(std::move(*input), progress);
        if (!session) return [this, e = session.error(), elevation](bool) { loadFailure(e, elevation); };
        // The project's rule edits must still apply to the rules they were made on.
        auto rules = (*session)->rulesWith(p.ruleEdits);
        if (!rules) return [this, e = rules.error(), elevation](bool) { loadFailure(e, elevation); };
        std::shared_ptr<pipeline::Session> opened = std::move(*session);
        if (demReload) {
            return [this, opened, dems = p.dems, reload = *demReload](bool) mutable {
                reloaded(std::move(opened), std::move(dems), reload);
            };
        }
        return [this, opened, rules = std::move(*rules), p, file, modified](bool) mutable {
            loaded(std::move(opened), std::move(rules), std::move(p), file, modified);
        };
    };
    mJobs.start(Kind::Load, std::move(work),
                [this, elevation](const QString& m) { loadFailure(core::Error{m.toStdString()}, elevation); });
    return core::Status::success();
}

void MapDocument::loadFailure(const core::Error& error, bool elevation) {
    mLastError = qs(error.message);
    if (elevation) {
        // Cancelled (the Cancel button, or a newer change of the list): not news.
        if (error.kind != core::ErrorKind::Cancelled) emit elevationFailed(mLastError);
        return;
    }
    emit loadFailed(mLastError);
}

void MapDocument::loaded(std::shared_ptr<pipeline::Session> session, core::placement::PlacementRules rules,
                         project::Project p, const std::filesystem::path& file, bool modified) {
    mSession = std::move(session);
    mProject = std::move(p);
    mProjectFile = file;
    mRules = std::move(rules);
    mSelection.clear();
    for (const std::string& q : mProject.tiles) {
        if (auto t = core::TileId::fromQuadkey(q)) mSelection.push_back(*t);
    }
    mSelection = core::sortedNorthToSouth(std::move(mSelection));
    mScene.reset();
    mSceneComplete = false;
    mTallies.reset();
    mBakeReport = {};
    mUndo.clear();
    mDirtyOutsideUndo = modified;
    mLastError.clear();
    rebuildLayers();
    emit mapLoaded();
    emit rulesChanged();
    emit selectionChanged();
    emit layersChanged();
    emit projectFileChanged(qs(mProjectFile.string()));
    mWasModified = this->modified();
    emit modifiedChanged(mWasModified);
    mBakePending = true;  // the runner settles after this: startPending bakes
}

void MapDocument::reloaded(std::shared_ptr<pipeline::Session> session, std::vector<std::filesystem::path> dems,
                           const DemReload& reload) {
    // Only the session and the dem list change: the selection, the rule edits, the derived
    // layers and the undo history are the document's own, and edits made while the map reopened
    // stay. The scene stays until the bake on the new ground replaces it.
    mSession = std::move(session);
    mProject.dems = std::move(dems);
    if (auto rules = mSession->rulesWith(mProject.ruleEdits)) {
        mRules = std::move(*rules);
        mLastError.clear();
    } else {
        mLastError = qs(rules.message());
    }
    rebuildLayers();  // relief layers read the new heights
    emit layersChanged();
    emit demsChanged();
    if (reload.push) mUndo.push(new DemCommand(this, reload.before, mProject.dems, reload.text));
    mBakePending = true;  // the runner settles after this: startPending bakes
}

// -- jobs ---------------------------------------------------------------------------------------------

void MapDocument::startPending() {
    if (mBakePending && !mJobs.busy()) {
        mBakePending = false;
        rebake();
    }
}

void MapDocument::requestBake() {
    if (!mSession) return;
    if (mJobs.running() == Kind::Bake) mJobs.cancel();  // its result is stale: stop it, bake again after
    if (mJobs.busy()) {
        mBakePending = true;
        return;
    }
    rebake();
}

void MapDocument::rebake() {
    if (!mSession) return;
    if (mJobs.busy()) {
        mBakePending = true;
        return;
    }
    mSceneComplete = false;
    BakeInput input{mSession, mSelection, mRules, mProject.seed, mLayers, mLayersSerial, mBakeFocus, {}, mCacheBudget};
    if (mScene) input.shown = mScene->tiles;
    auto work = [this, input = std::move(input)](const core::ProgressCallback& progress) mutable {
        return bakeWork(std::move(input), progress);
    };
    mJobs.start(Kind::Bake, std::move(work), [this](const QString& m) { bakeStopped(m, false); });
}

JobRunner::Finish MapDocument::bakeWork(BakeInput input, const core::ProgressCallback& progress) {
    pipeline::Session& session = *input.session;
    const std::vector<core::TileId>& selection = input.selection;
    const auto failed = [this](const core::Error& e) {
        return [this, m = qs(e.message)](bool cancelled) { bakeStopped(m, cancelled); };
    };
    // The layers panel's figures first: counting bits over a large selection is work for the
    // worker, not the UI thread.
    mJobs.post([this, coverage = pipeline::coverageByLayer(input.layers, selection),
                serial = input.layersSerial](bool) { applyCoverage(coverage, serial); });
    core::Status s = session.select(selection);
    if (s) s = session.setRules(std::move(input.rules));
    if (!s) return failed(s.error());

    // Growing batches, nearest the focus first; each bake covers the batches before it, whose
    // cached results it reuses (only tiles whose neighbourhood grew run again). The selected
    // tiles already shown come first, in one batch: their cached results hold only among the
    // same neighbours, so after a rule edit that batch recomputes only what the edit affects.
    const core::GroundFrame frame{{}, session.zoom()};
    const core::Vec2 focus = frame.lonLatToCell(input.focus ? *input.focus : core::placement::sceneOrigin(selection));
    const std::unordered_set<core::TileId> shown(input.shown.begin(), input.shown.end());
    std::vector<core::TileId> held, rest;
    for (const core::TileId& t : selection) (shown.contains(t) ? held : rest).push_back(t);
    std::vector<core::TileId> order = std::move(held);
    const std::size_t heldCount = order.size();
    for (const core::TileId& t : nearestFirst(std::move(rest), focus)) order.push_back(t);
    std::vector<std::size_t> ends = batchEnds(order.size(), std::max(kFirstBatchTiles, heldCount));
    // What the caches keep within their budget: the tiles nearest the focus.
    const std::vector<core::TileId> nearest = nearestFirst(selection, focus);
    if (ends.empty()) ends.push_back(0);  // an empty selection bakes an empty scene
    std::size_t done = 0;
    for (const std::size_t end : ends) {
        const bool last = end == order.size();
        core::placement::BakeOptions options;
        options.seed = input.seed;
        // The whole selection's progress: this batch's share is its new tiles.
        const double total = std::max<double>(1.0, double(order.size()));
        options.progress = [&progress, done, end, total](double f, std::string_view stage) {
            return !progress || progress((double(done) + f * double(end - done)) / total, stage);
        };
        if (!last) options.tiles.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(end));
        // The last bake holds the whole selection: tiles no longer selected may go then.
        options.forgetUnbaked = last;
        if (input.cacheBudget > 0) options.cacheBudgetBytes = input.cacheBudget;
        options.cachePriority = nearest;
        // The scene shown stays held while the next batch or edit bakes: the new scene shares
        // the plants of the tiles whose vegetation did not change with it.
        options.keepPlantBlocks = true;
        auto scene = session.bake(std::move(options));
        if (!scene) return failed(scene.error());
        Baked baked;
        baked.scene = std::make_shared<const core::Scene>(std::move(*scene));
        baked.report = session.report();
        auto tallies = std::make_shared<std::unordered_map<core::TileId, pipeline::TileTally>>();
        for (const pipeline::TileTally& t :
             pipeline::tallyTiles(*baked.scene, session.catalogue(), baked.scene->tiles)) {
            tallies->emplace(t.tile, t);
        }
        baked.tallies = std::move(tallies);
        baked.complete = last;
        if (last) return [this, baked = std::move(baked)](bool) mutable { bakeDone(std::move(baked)); };
        mJobs.post([this, baked = std::move(baked)](bool) mutable { bakeDone(std::move(baked)); });
        done = end;
    }
    return {};
}

void MapDocument::bakeDone(Baked baked) {
    mScene = std::move(baked.scene);
    mBakeReport = std::move(baked.report);
    mTallies = std::move(baked.tallies);
    mSceneComplete = baked.complete && !mBakePending;
    mLastError.clear();
    emit sceneChanged();
    // Every view has moved to the new scene by now: the old one's pages can go.
    releaseFreedMemory();
}

void MapDocument::bakeStopped(const QString& error, bool cancelled) {
    // A bake cancelled to make way for the next one is not news.
    if (cancelled && mBakePending) return;
    mLastError = error;
    emit bakeFailed(error);
}

const pipeline::TileTally* MapDocument::tileTally(const core::TileId& tile) const {
    if (!mTallies) return nullptr;
    const auto it = mTallies->find(tile);
    return it == mTallies->end() ? nullptr : &it->second;
}

void MapDocument::cancel() {
    mBakePending = false;
    mJobs.cancel();
}

bool MapDocument::waitIdle(int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (busy() || mBakePending) {
        if (timer.elapsed() > timeoutMs) return false;
        if (busy()) mJobs.waitForWork();
        // Delivers the job's end (its Finish, then settled), which may start the pending bake.
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    }
    return true;
}

core::Status MapDocument::startExport(core::ExportOptions options) {
    if (!mSession || !mScene || mScene->tiles.empty()) {
        return core::Error{"nothing to export: bake some tiles first"};
    }
    if (mJobs.busy() || mBakePending) return core::Error{"the scene is still being baked: export when it is done"};
    // core knows no OSG: the render module writes the osgb format.
    if (!options.sceneGraphWriter) options.sceneGraphWriter = render::sceneGraphFileWriter();
    auto work = [this, session = mSession, scene = mScene,
                 options](const core::ProgressCallback& progress) -> JobRunner::Finish {
        auto report = session->exportScene(*scene, options, progress);
        if (!report) return [this, m = qs(report.message())](bool) { exportDone(false, m); };
        std::uint64_t bytes = 0;
        for (const auto& f : report->files) bytes += f.bytes;
        const QString message = QString("wrote %1 files (%2 KiB) to %3")
                                    .arg(report->files.size())
                                    .arg((bytes + 1023) / 1024)
                                    .arg(qs(options.outDir.string()));
        return [this, message](bool) { exportDone(true, message); };
    };
    mJobs.start(Kind::Export, std::move(work), [this](const QString& m) { exportDone(false, m); });
    return core::Status::success();
}

void MapDocument::exportDone(bool ok, const QString& message) {
    if (!ok) mLastError = message;
    emit exportFinished(ok, message);
}

// -- layers -------------------------------------------------------------------------------------------

void MapDocument::rebuildLayers() {
    ++mLayersSerial;
    mRows.clear();
    if (!mSession) {
        mLayers = LayerStack{};
        return;
    }
    std::vector<core::Error> problems;
    mLayers = pipeline::stackProjectLayers(mapStore(mSession), mRules.expressions(), mProject.expressions,
                                           mProject.seed, &problems);
    if (!problems.empty()) mLastError = qs(problems.back().message);
    const auto infos = mSession->map().rules.layerInfos();
    for (const core::LayerInfo& info : infos) {
        LayerRow row;
        row.name = qs(info.name);
        row.colour = QColor(info.colour.r, info.colour.g, info.colour.b);
        row.parent = info.parent;
        mRows.push_back(row);
    }
    // One row per derived layer the stack holds: the rules' named expressions, then the project's.
    const std::vector<std::string>& names = mLayers.layerNames();
    for (std::size_t i = infos.size(); i < names.size(); ++i) {
        LayerRow row;
        row.name = qs(names[i]);
        row.derived = true;
        for (const core::placement::ExpressionRule& e : mRules.expressions()) {
            if (e.name != names[i]) continue;
            row.colour = QColor(0x90, 0x90, 0xa0);
            row.fromRules = true;
            row.expression = qs(e.text);
        }
        for (const project::DerivedLayer& d : mProject.expressions) {
            if (row.fromRules || d.name != names[i]) continue;
            row.colour = QColor(qs(d.colour));
            row.expression = qs(d.text);
        }
        mRows.push_back(row);
    }
    updateCoverage();
}

void MapDocument::updateCoverage() { setCoverage(pipeline::coverageByLayer(mLayers, mSelection)); }

void MapDocument::applyCoverage(const std::vector<core::algebra::AreaCoverage>& coverage, std::uint64_t layersSerial) {
    if (layersSerial != mLayersSerial) return;  // counted on layers since replaced (which counted their own)
    setCoverage(coverage);
    emit coverageChanged();
}

void MapDocument::setCoverage(const std::vector<core::algebra::AreaCoverage>& coverage) {
    const double cellsPerTile = double(core::kTileCells) * core::kTileCells;
    for (std::size_t i = 0; i < mRows.size() && i < coverage.size(); ++i) {
        mRows[i].coverage = coverage[i];
        mRows[i].fraction =
            mSelection.empty() ? 0.0 : double(coverage[i].cells) / (cellsPerTile * double(mSelection.size()));
    }
}

// -- edits -----------------------------------------------------------------------------------------------

void MapDocument::setSelection(std::vector<core::TileId> tiles) { pushSelection(std::move(tiles), tr("Select tiles")); }

void MapDocument::selectAllTiles() {
    if (mSession) pushSelection(mLayers.tiles(), tr("Select all tiles"));
}

void MapDocument::pushSelection(std::vector<core::TileId> tiles, const QString& text) {
    tiles = core::sortedNorthToSouth(std::move(tiles));
    std::erase_if(tiles, [&](const core::TileId& t) { return t.zoom != mProject.zoom; });
    if (tiles == mSelection) return;
    mUndo.push(
        new Command<std::vector<core::TileId>>(this, &MapDocument::applySelection, mSelection, std::move(tiles), text));
}

void MapDocument::applySelection(std::vector<core::TileId> tiles) {
    mSelection = std::move(tiles);
    mProject.tiles.clear();
    for (const core::TileId& t : mSelection) mProject.tiles.push_back(t.quadkey());
    // The coverage over the new selection is counted by the bake job (coverageChanged()).
    emit selectionChanged();
    requestBake();
}

void MapDocument::setZoom(int zoom) {
    if (zoom == mProject.zoom || zoom < 0 || zoom > core::kMaxZoom) return;
    project::Project p = currentProject();
    p.zoom = zoom;
    p.tiles.clear();
    if (!mSession) {
        mProject.zoom = zoom;
        return;
    }
    (void)startLoad(std::move(p), mProjectFile, true);
}

core::Status MapDocument::editRule(const project::RuleEdit& edit) {
    if (!mSession) return core::Error{"no map is loaded"};
    std::vector<project::RuleEdit> edits = mProject.ruleEdits;
    if (!edits.empty() && edits.back().path == edit.path) {
        edits.back().value = edit.value;
    } else {
        edits.push_back(edit);
    }
    if (auto rules = mSession->rulesWith(edits); !rules) {
        // The message names the edit by path; its position in the list means nothing here.
        core::placement::PlacementRules alone = mSession->baseRules();
        core::Status single = project::applyRuleEdit(alone, edit);
        return single ? rules.error() : single.error();
    }
    mUndo.push(new Command<std::vector<project::RuleEdit>>(this, &MapDocument::applyRuleEdits, mProject.ruleEdits,
                                                           std::move(edits), tr("Change %1").arg(qs(edit.path)),
                                                           kRuleEditMergeId, edit.path));
    return core::Status::success();
}

void MapDocument::applyRuleEdits(std::vector<project::RuleEdit> edits) {
    mProject.ruleEdits = std::move(edits);
    if (!mSession) {
        mRules = {};
    } else if (auto rules = mSession->rulesWith(mProject.ruleEdits)) {
        mRules = std::move(*rules);
    } else {
        mLastError = qs(rules.message());
    }
    emit rulesChanged();
    requestBake();
}

void MapDocument::setSeed(std::uint64_t seed) {
    if (seed == mProject.seed) return;
    mUndo.push(new Command<std::uint64_t>(this, &MapDocument::applySeed, mProject.seed, seed, tr("Change the seed"),
                                          kRuleEditMergeId, "seed"));
}

void MapDocument::applySeed(std::uint64_t seed) {
    mProject.seed = seed;
    rebuildLayers();  // random() and noise() in derived layers follow the seed
    emit rulesChanged();
    emit layersChanged();
    requestBake();
}

core::Status MapDocument::addDerivedLayer(const project::DerivedLayer& layer) {
    if (!mSession) return core::Error{"no map is loaded"};
    if (!QColor(qs(layer.colour)).isValid()) return core::badArguments("'" + layer.colour + "' is not a colour");
    std::vector<project::DerivedLayer> after = mProject.expressions;
    std::erase_if(after, [&](const project::DerivedLayer& d) { return d.name == layer.name; });
    after.push_back(layer);
    if (core::Status s = pipeline::checkProjectLayers(mapStore(mSession), mRules.expressions(), after, mProject.seed);
        !s) {
        return s;
    }
    mUndo.push(new Command<std::vector<project::DerivedLayer>>(this, &MapDocument::applyDerivedLayers,
                                                               mProject.expressions, std::move(after),
                                                               tr("Save layer %1").arg(qs(layer.name))));
    return core::Status::success();
}

void MapDocument::removeDerivedLayer(const QString& name) {
    std::vector<project::DerivedLayer> after = mProject.expressions;
    std::erase_if(after, [&](const project::DerivedLayer& d) { return qs(d.name) == name; });
    if (after.size() == mProject.expressions.size()) return;
    mUndo.push(new Command<std::vector<project::DerivedLayer>>(this, &MapDocument::applyDerivedLayers,
                                                               mProject.expressions, std::move(after),
                                                               tr("Remove layer %1").arg(name)));
}

void MapDocument::applyDerivedLayers(std::vector<project::DerivedLayer> layers) {
    mProject.expressions = std::move(layers);
    rebuildLayers();
    emit layersChanged();
}

core::Status MapDocument::addElevation(const std::filesystem::path& dem) {
    if (!mSession) return core::Error{"no map is loaded: open a map or a project before adding elevation"};
    const std::filesystem::path added = absoluteDem(dem);
    std::vector<std::filesystem::path> after = mProject.dems;
    if (std::find(after.begin(), after.end(), added) != after.end()) {
        return core::badArguments(added.string() + " is already one of the project's DEMs");
    }
    after.push_back(added);
    return changeDems(std::move(after), tr("Add elevation %1").arg(qs(added.filename().string())));
}

core::Status MapDocument::removeElevation(const std::filesystem::path& dem) {
    if (!mSession) return core::Error{"no map is loaded"};
    std::vector<std::filesystem::path> after = mProject.dems;
    const auto n = std::erase(after, dem);
    if (n == 0) return core::badArguments(dem.string() + " is not one of the project's DEMs");
    return changeDems(std::move(after), tr("Remove elevation %1").arg(qs(dem.filename().string())));
}

core::Status MapDocument::changeDems(std::vector<std::filesystem::path> dems, const QString& text) {
    project::Project p = currentProject();
    p.dems = std::move(dems);
    return startLoad(std::move(p), mProjectFile, true, DemReload{mProject.dems, true, text});
}

void MapDocument::applyDems(std::vector<std::filesystem::path> dems) {
    if (!mSession || dems == mProject.dems) return;
    project::Project p = currentProject();
    p.dems = std::move(dems);
    (void)startLoad(std::move(p), mProjectFile, true, DemReload{mProject.dems, false, {}});
}

void MapDocument::setLayerVisible(const QString& name, bool visible) {
    auto& hidden = mProject.hiddenLayers;
    const std::string n = name.toStdString();
    const bool isHidden = std::find(hidden.begin(), hidden.end(), n) != hidden.end();
    if (isHidden == !visible) return;
    if (visible) {
        std::erase(hidden, n);
    } else {
        hidden.push_back(n);
    }
    setModifiedOutsideUndo();
    emit layersChanged();
}

bool MapDocument::layerVisible(const QString& name) const {
    const auto& hidden = mProject.hiddenLayers;
    return std::find(hidden.begin(), hidden.end(), name.toStdString()) == hidden.end();
}

void MapDocument::setOverlay(const QString& name) {
    if (qs(mProject.overlay) == name) return;
    mProject.overlay = name.toStdString();
    setModifiedOutsideUndo();
    emit layersChanged();
}

void MapDocument::setModifiedOutsideUndo() {
    mDirtyOutsideUndo = true;
    if (!mWasModified) {
        mWasModified = true;
        emit modifiedChanged(true);
    }
}

// -- saving ------------------------------------------------------------------------------------------

void MapDocument::setViewState(const project::Camera& camera, const project::MapView& view) {
    mProject.camera = camera;
    mProject.mapView = view;
}

void MapDocument::setExportSettings(const project::ExportSettings& settings) {
    if (settings == mProject.exportSettings) return;
    mProject.exportSettings = settings;
    setModifiedOutsideUndo();
}

project::Project MapDocument::currentProject() const {
    project::Project p = mProject;
    p.tiles.clear();
    for (const core::TileId& t : mSelection) p.tiles.push_back(t.quadkey());
    return p;
}

core::Status MapDocument::saveProject(const std::filesystem::path& file) {
    const project::Project p = currentProject();
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(file, ec);
    if (core::Status s = writeProjectFile(p, ec ? file : absolute); !s) {
        mLastError = qs(s.message());
        return s;
    }
    mProjectFile = ec ? file : absolute;
    mProject = p;
    mDirtyOutsideUndo = false;
    mUndo.setClean();
    emit projectFileChanged(qs(mProjectFile.string()));
    if (mWasModified) {
        mWasModified = false;
        emit modifiedChanged(false);
    }
    return core::Status::success();
}

}  // namespace terrabit::ui
