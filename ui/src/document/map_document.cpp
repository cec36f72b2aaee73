#include "terrabit/ui/document/map_document.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>
#include <QSaveFile>
#include <QThread>
#include <QUndoCommand>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/project/rule_edit.h"
#include "terrabit/core/rules/layer_name.h"
#include "terrabit/core/tiling/rasterize_tiles.h"
#include "terrabit/render/scene_export.h"

namespace terrabit::ui {

namespace project = core::project;

// -- what jobs share and return ------------------------------------------------------------------

struct MapDocument::JobResult {
    bool ok = false;
    QString message;
    // load
    std::shared_ptr<core::pipeline::Session> session;
    core::placement::PlacementRules rules;  ///< the session's passes with the project's edits
    project::Project project;
    std::filesystem::path file;
    bool modified = false;
    // bake
    std::shared_ptr<const core::Scene> scene;
    core::placement::BakeReport report;
    // export
    core::ExportReport exported;
};

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

std::vector<core::TileId> sortedTiles(std::vector<core::TileId> tiles) {
    std::sort(tiles.begin(), tiles.end(),
              [](const core::TileId& a, const core::TileId& b) { return a.y < b.y || (a.y == b.y && a.x < b.x); });
    tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
    return tiles;
}

/// The project's map through the pipeline: its rules (its text, its file or the default), the
/// document's catalogue, the whole map at the project's zoom (tiles with content only).
core::Result<std::shared_ptr<core::pipeline::Session>> openSession(
    const project::Project& p, const std::filesystem::path& resources,
    const std::shared_ptr<const core::AssetCatalogue>& catalogue, const core::ProgressCallback& progress) {
    if (p.map.empty()) return core::Error{"the project names no map file"};
    core::pipeline::SessionInput input;
    input.map.file = p.map;
    input.map.openOptions = p.openOptions;
    if (!p.rulesText.empty()) {
        input.map.rulesText = p.rulesText;
        input.map.rulesName = "project rules";
    } else {
        input.map.rules = p.rulesFile.empty() ? resources / "rules" / "default.yaml" : p.rulesFile;
    }
    input.tiles.zoom = p.zoom;
    input.catalogue = catalogue;
    auto session = core::pipeline::Session::open(std::move(input), progress);
    if (!session) return session.error();
    return std::shared_ptr<core::pipeline::Session>(std::move(*session));
}

/// The map's layers, keeping the session alive.
std::shared_ptr<const core::LayerStore> mapStore(const std::shared_ptr<core::pipeline::Session>& session) {
    return {session, &session->map().store};
}

/// One undoable change of the document: before and after values of one part of it.
template <class T>
class ValueCommand : public QUndoCommand {
public:
    using Apply = void (MapDocument::*)(T);
    ValueCommand(MapDocument* doc, Apply apply, T before, T after, QString text, int mergeId = -1,
                 std::string mergeKey = {})
        : QUndoCommand(std::move(text)),
          mDoc(doc),
          mApply(apply),
          mBefore(std::move(before)),
          mAfter(std::move(after)),
          mMergeId(mergeId),
          mMergeKey(std::move(mergeKey)) {}
    void redo() override { (mDoc->*mApply)(mAfter); }
    void undo() override { (mDoc->*mApply)(mBefore); }
    int id() const override { return mMergeId; }
    bool mergeWith(const QUndoCommand* other) override {
        // Dragging a slider makes many edits of one parameter: one undo step takes them all back.
        const auto* o = dynamic_cast<const ValueCommand*>(other);
        if (!o || o->mMergeKey.empty() || o->mMergeKey != mMergeKey) return false;
        mAfter = o->mAfter;
        return true;
    }

private:
    MapDocument* mDoc;
    Apply mApply;
    T mBefore;
    T mAfter;
    int mMergeId;
    std::string mMergeKey;
};

constexpr int kRuleEditMergeId = 1;

}  // namespace

core::Status writeProjectFile(const project::Project& p, const std::filesystem::path& file) {
    // QSaveFile writes a temporary file and renames it over the old one on commit: a crash or a
    // full disk leaves the old project whole.
    QSaveFile out(QString::fromStdString(file.string()));
    if (!out.open(QIODevice::WriteOnly)) {
        return core::Error{file.string() + ": cannot save the project: " + out.errorString().toStdString()};
    }
    const std::string text = project::serializeProject(p, file.parent_path());
    out.write(text.data(), qint64(text.size()));
    if (!out.commit())
        return core::Error{file.string() + ": cannot save the project: " + out.errorString().toStdString()};
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
    mPool.setMaxThreadCount(1);  // one job at a time: only the running job touches the baker
    connect(&mWatcher, &QFutureWatcherBase::finished, this, &MapDocument::jobDone);
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
    mCancel = true;
    mPool.waitForDone();
    mWatcher.waitForFinished();
}

const std::string& MapDocument::rulesDocument() const {
    static const std::string none;
    return mSession ? mSession->rulesDocument() : none;
}

const core::io::MapLayers* MapDocument::map() const { return mSession ? &mSession->map() : nullptr; }

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

core::Status MapDocument::startLoad(project::Project p, const std::filesystem::path& file, bool modified) {
    if (mCatalogue->empty()) {
        return core::Error{"the asset catalogue could not be read: " + mLastError.toStdString()};
    }
    // A new map replaces everything the running job works on: stop it first.
    cancel();
    waitIdle();
    const std::filesystem::path resources = mResourcesDir;
    startJob(Job::Load, [p = std::move(p), file, modified, resources,
                         catalogue = mCatalogue](const core::ProgressCallback& progress) {
        auto result = std::make_shared<JobResult>();
        auto session = openSession(p, resources, catalogue, progress);
        if (!session) {
            result->message = qs(session.message());
            return result;
        }
        // The project's rule edits must still apply to the rules they were made on.
        auto rules = (*session)->rulesWith(p.ruleEdits);
        if (!rules) {
            result->message = qs(rules.message());
            return result;
        }
        result->ok = true;
        result->session = std::move(*session);
        result->rules = std::move(*rules);
        result->project = p;
        result->file = file;
        result->modified = modified;
        return result;
    });
    return core::Status::success();
}

// -- jobs ---------------------------------------------------------------------------------------------

core::ProgressCallback MapDocument::progressCallback() {
    mLastPercent = -1;
    return [this](double fraction, std::string_view stage) {
        // Called on the worker: post only whole-percent steps so the UI thread is not flooded.
        const int percent = static_cast<int>(fraction * 100.0);
        if (percent != mLastPercent.exchange(percent)) {
            const QString text = QString::fromUtf8(stage.data(), static_cast<int>(stage.size()));
            QMetaObject::invokeMethod(
                this, [this, fraction, text] { emit progress(fraction, text); }, Qt::QueuedConnection);
        }
        return !mCancel.load();
    };
}

void MapDocument::startJob(Job kind, std::function<std::shared_ptr<JobResult>(const core::ProgressCallback&)> work) {
    mCancel = false;
    mRunning = kind;
    const core::ProgressCallback progress = progressCallback();
    mWatcher.setFuture(QtConcurrent::run(&mPool, [work = std::move(work), progress]() -> std::shared_ptr<JobResult> {
        try {
            return work(progress);
        } catch (const std::exception& e) {
            // Core never throws; Qt containers and the standard library may (bad_alloc).
            auto r = std::make_shared<JobResult>();
            r->message = QString("unexpected failure: ") + e.what();
            return r;
        }
    }));
    emit busyChanged(true);
}

void MapDocument::jobDone() {
    const Job kind = mRunning;
    mRunning = Job::None;
    std::shared_ptr<JobResult> r = mWatcher.future().result();
    const bool cancelled = mCancel.exchange(false);
    switch (kind) {
        case Job::Load:
            if (!r->ok) {
                mLastError = r->message;
                emit loadFailed(r->message);
                break;
            }
            mSession = r->session;
            mProject = r->project;
            mProjectFile = r->file;
            mRules = std::move(r->rules);
            mSelection.clear();
            for (const std::string& q : mProject.tiles) {
                if (auto t = core::TileId::fromQuadkey(q)) mSelection.push_back(*t);
            }
            mSelection = sortedTiles(std::move(mSelection));
            mScene.reset();
            mBakeReport = {};
            mUndo.clear();
            mDirtyOutsideUndo = r->modified;
            mLastError.clear();
            rebuildLayers();
            emit mapLoaded();
            emit rulesChanged();
            emit selectionChanged();
            emit layersChanged();
            emit projectFileChanged(qs(mProjectFile.string()));
            mWasModified = modified();
            emit modifiedChanged(mWasModified);
            mBakePending = true;
            break;
        case Job::Bake:
            if (r->ok) {
                mScene = r->scene;
                mBakeReport = r->report;
                mLastError.clear();
                updateCoverage();
                emit sceneChanged();
            } else if (!cancelled || !mBakePending) {
                // A bake cancelled to make way for the next one is not news.
                mLastError = r->message;
                emit bakeFailed(r->message);
            }
            break;
        case Job::Export:
            if (!r->ok) mLastError = r->message;
            emit exportFinished(r->ok, r->message);
            break;
        case Job::None:
            break;
    }
    startPending();
    if (!busy()) emit busyChanged(false);
}

void MapDocument::startPending() {
    if (mBakePending && mRunning == Job::None) {
        mBakePending = false;
        rebake();
    }
}

void MapDocument::requestBake() {
    if (!mSession) return;
    if (mRunning == Job::Bake) mCancel = true;  // its result is stale: stop it, bake again after
    if (mRunning != Job::None) {
        mBakePending = true;
        return;
    }
    rebake();
}

void MapDocument::rebake() {
    if (!mSession) return;
    if (mRunning != Job::None) {
        mBakePending = true;
        return;
    }
    startJob(Job::Bake, [session = mSession, selection = mSelection, rules = mRules,
                         seed = mProject.seed](const core::ProgressCallback& progress) {
        auto r = std::make_shared<JobResult>();
        core::placement::BakeOptions options;
        options.seed = seed;
        options.progress = progress;
        core::Status s = session->select(selection);
        if (s) s = session->setRules(rules);
        auto scene = s ? session->bake(options) : core::Result<core::Scene>(s.error());
        if (!scene) {
            r->message = qs(scene.message());
            return r;
        }
        r->scene = std::make_shared<const core::Scene>(std::move(*scene));
        r->report = session->report();
        r->ok = true;
        return r;
    });
}

void MapDocument::cancel() {
    mBakePending = false;
    if (mRunning != Job::None) mCancel = true;
}

bool MapDocument::waitIdle(int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (busy() || mBakePending) {
        if (timer.elapsed() > timeoutMs) return false;
        if (busy()) mWatcher.waitForFinished();
        // Delivers the watcher's finished signal (jobDone), which may start the pending bake.
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    }
    return true;
}

core::Status MapDocument::startExport(core::ExportOptions options) {
    if (!mSession || !mScene || mScene->tiles.empty()) {
        return core::Error{"nothing to export: bake some tiles first"};
    }
    if (mRunning != Job::None || mBakePending) {
        return core::Error{"the scene is still being baked: export when it is done"};
    }
    // core knows no OSG: the render module writes the osgb format.
    if (!options.sceneGraphWriter) options.sceneGraphWriter = render::sceneGraphFileWriter();
    startJob(Job::Export, [session = mSession, scene = mScene, options](const core::ProgressCallback& progress) {
        auto r = std::make_shared<JobResult>();
        auto report = session->exportScene(*scene, options, progress);
        if (!report) {
            r->message = qs(report.message());
            return r;
        }
        std::uint64_t bytes = 0;
        for (const auto& f : report->files) bytes += f.bytes;
        r->message = QString("wrote %1 files (%2 KiB) to %3")
                         .arg(report->files.size())
                         .arg((bytes + 1023) / 1024)
                         .arg(qs(options.outDir.string()));
        r->exported = std::move(*report);
        r->ok = true;
        return r;
    });
    return core::Status::success();
}

// -- rules and layers -------------------------------------------------------------------------------

void MapDocument::rebuildLayers() {
    // The map's own layers never change while a job runs: the UI thread may read them.
    mLayers = mSession ? LayerStack(mapStore(mSession)) : LayerStack{};
    mRows.clear();
    if (!mSession) return;
    const auto infos = mSession->map().rules.layerInfos();
    for (const core::LayerInfo& info : infos) {
        LayerRow row;
        row.name = qs(info.name);
        row.colour = QColor(info.colour.r, info.colour.g, info.colour.b);
        row.parent = info.parent;
        mRows.push_back(row);
    }
    // The rules' named expressions first (the project's layers may use them), then the
    // project's own, each reading the layers before it.
    for (const core::placement::ExpressionRule& e : mRules.expressions()) {
        if (mLayers.addDerived(e.name, e.text, mProject.seed)) {
            LayerRow row;
            row.name = qs(e.name);
            row.colour = QColor(0x90, 0x90, 0xa0);
            row.derived = true;
            row.fromRules = true;
            row.expression = qs(e.text);
            mRows.push_back(row);
        }
    }
    for (const project::DerivedLayer& d : mProject.expressions) {
        if (core::Status s = mLayers.addDerived(d.name, d.text, mProject.seed); !s) {
            mLastError = qs("layer " + d.name + ": " + s.message());
            continue;
        }
        LayerRow row;
        row.name = qs(d.name);
        row.colour = QColor(qs(d.colour));
        row.derived = true;
        row.expression = qs(d.text);
        mRows.push_back(row);
    }
    updateCoverage();
}

void MapDocument::updateCoverage() {
    const double cellsPerTile = double(core::kTileCells) * core::kTileCells;
    for (std::size_t i = 0; i < mRows.size(); ++i) {
        core::algebra::AreaCoverage total;
        for (const core::TileId& t : mSelection) {
            if (const core::BitTile* bits = mLayers.tile(t, static_cast<int>(i))) {
                total += core::algebra::coverageOf(*bits, t);
            }
        }
        mRows[i].coverage = total;
        mRows[i].fraction = mSelection.empty() ? 0.0 : double(total.cells) / (cellsPerTile * double(mSelection.size()));
    }
}

std::vector<TileFigures> MapDocument::tileFigures() const {
    std::vector<TileFigures> out;
    for (const core::TileId& t : mSelection) {
        TileFigures f;
        f.tile = t;
        for (std::size_t i = 0; i < mRows.size(); ++i) {
            const core::BitTile* bits = mLayers.tile(t, static_cast<int>(i));
            f.layerFractions.push_back(bits ? bits->count() / 65536.0 : 0.0);
        }
        if (mScene) {
            for (const core::BuildingRecord& b : mScene->buildings) {
                if (b.tile != t) continue;
                if (b.outcome == core::BuildingOutcome::Placed) ++f.buildingsPlaced;
                if (b.outcome == core::BuildingOutcome::Blocked) ++f.buildingsBlocked;
                if (b.outcome == core::BuildingOutcome::NoModelFits) ++f.buildingsUnmatched;
            }
            for (const core::InstanceBlock& block : mScene->blocks) {
                if (block.tile != t || block.asset < 0) continue;
                const core::AssetInfo* info = mCatalogue->find(mScene->assets[static_cast<std::size_t>(block.asset)]);
                if (!info || info->category == "building") continue;
                const int n = static_cast<int>(block.instances.size());
                f.vegetation += n;
                if (info->category == "tree") f.trees += n;
            }
        }
        out.push_back(std::move(f));
    }
    return out;
}

// -- edits -----------------------------------------------------------------------------------------------

void MapDocument::setSelection(std::vector<core::TileId> tiles) {
    tiles = sortedTiles(std::move(tiles));
    std::erase_if(tiles, [&](const core::TileId& t) { return t.zoom != mProject.zoom; });
    if (tiles == mSelection) return;
    mUndo.push(new ValueCommand<std::vector<core::TileId>>(this, &MapDocument::applySelection, mSelection,
                                                           std::move(tiles), tr("Select tiles")));
}

void MapDocument::applySelection(std::vector<core::TileId> tiles) {
    mSelection = std::move(tiles);
    mProject.tiles.clear();
    for (const core::TileId& t : mSelection) mProject.tiles.push_back(t.quadkey());
    updateCoverage();
    emit selectionChanged();
    emit layersChanged();
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
    mUndo.push(new ValueCommand<std::vector<project::RuleEdit>>(this, &MapDocument::applyRuleEdits, mProject.ruleEdits,
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
    mUndo.push(new ValueCommand<std::uint64_t>(this, &MapDocument::applySeed, mProject.seed, seed,
                                               tr("Change the seed"), kRuleEditMergeId, "seed"));
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
    const auto& names = mSession->map().store.layerNames();
    if (std::find(names.begin(), names.end(), layer.name) != names.end()) {
        return core::Error{"'" + layer.name + "' is a layer of the map: choose another name"};
    }
    for (const auto& e : mRules.expressions()) {
        if (e.name == layer.name) return core::Error{"'" + layer.name + "' is a named expression of the rules"};
    }
    std::vector<project::DerivedLayer> after = mProject.expressions;
    std::erase_if(after, [&](const project::DerivedLayer& d) { return d.name == layer.name; });
    after.push_back(layer);
    if (!core::isLayerName(layer.name)) {
        return core::badArguments("'" + layer.name + "' is not a layer name (" + std::string(core::kLayerNameRule) +
                                  ")");
    }
    if (!QColor(qs(layer.colour)).isValid()) return core::Error{"'" + layer.colour + "' is not a colour"};
    // Check on a scratch stack: the project only takes layers that evaluate.
    LayerStack scratch(mapStore(mSession));
    for (const auto& e : mRules.expressions()) (void)scratch.addDerived(e.name, e.text, mProject.seed);
    for (const auto& d : after) {
        if (core::Status s = scratch.addDerived(d.name, d.text, mProject.seed); !s) {
            return core::Error{d.name + ": " + s.message()};
        }
    }
    mUndo.push(new ValueCommand<std::vector<project::DerivedLayer>>(this, &MapDocument::applyDerivedLayers,
                                                                    mProject.expressions, std::move(after),
                                                                    tr("Save layer %1").arg(qs(layer.name))));
    return core::Status::success();
}

void MapDocument::removeDerivedLayer(const QString& name) {
    std::vector<project::DerivedLayer> after = mProject.expressions;
    std::erase_if(after, [&](const project::DerivedLayer& d) { return qs(d.name) == name; });
    if (after.size() == mProject.expressions.size()) return;
    mUndo.push(new ValueCommand<std::vector<project::DerivedLayer>>(this, &MapDocument::applyDerivedLayers,
                                                                    mProject.expressions, std::move(after),
                                                                    tr("Remove layer %1").arg(name)));
}

void MapDocument::applyDerivedLayers(std::vector<project::DerivedLayer> layers) {
    mProject.expressions = std::move(layers);
    rebuildLayers();
    emit layersChanged();
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
