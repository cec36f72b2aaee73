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

struct MapDocument::Loaded {
    std::unique_ptr<core::io::MapLayers> map;
    std::shared_ptr<const core::LayerStore> store;  ///< aliases map->store, keeps this alive
    core::placement::PlacementRules baseRules;      ///< the document's passes, before edits
    std::string rulesDocument;
    core::TileIndex selectionIndex;  ///< the baked tiles (the baker points here)
    std::vector<core::TileId> indexedSelection;
    std::unique_ptr<core::placement::SceneBaker> baker;
};

struct MapDocument::JobResult {
    bool ok = false;
    QString message;
    // load
    std::shared_ptr<Loaded> loaded;
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

core::Result<std::string> readText(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return core::Error{file.string() + ": cannot open the rules file"};
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The project's rules (its text, its file or the default) and catalogue check, then the whole
/// map at the project's zoom through buildMapLayers, the one map loader of every front end.
core::Result<std::shared_ptr<MapDocument::Loaded>> loadMap(const project::Project& p,
                                                           const std::filesystem::path& resources,
                                                           const core::AssetCatalogue& catalogue,
                                                           const core::ProgressCallback& progress);

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
        mCatalogue = std::move(*catalogue);
    } else {
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

const core::io::MapLayers* MapDocument::map() const { return mMap ? mMap->map.get() : nullptr; }

core::Box2 MapDocument::extentMercator() const {
    if (!mMap) return {};
    return mMap->map->map.extent;
}

// -- loading ----------------------------------------------------------------------------------------

namespace {

core::Result<std::shared_ptr<MapDocument::Loaded>> loadMap(const project::Project& p,
                                                           const std::filesystem::path& resources,
                                                           const core::AssetCatalogue& catalogue,
                                                           const core::ProgressCallback& progress) {
    auto loaded = std::make_shared<MapDocument::Loaded>();
    std::string text, name;
    if (!p.rulesText.empty()) {
        text = p.rulesText;
        name = "project rules";
    } else {
        const std::filesystem::path file = p.rulesFile.empty() ? resources / "rules" / "default.yaml" : p.rulesFile;
        auto t = readText(file);
        if (!t) return t.error();
        text = std::move(*t);
        name = file.string();
    }
    // The passes first: a broken rules document is reported before the map is read.
    auto rules = core::RuleSet::parse(text, name);
    if (!rules) return rules.error();
    auto passes = core::placement::PlacementRules::parse(text, name, rules->layerInfos());
    if (!passes) return passes.error();
    if (core::Status s = passes->checkCatalogue(catalogue); !s) return s.error();
    loaded->baseRules = std::move(*passes);

    if (p.map.empty()) return core::Error{"the project names no map file"};
    core::io::MapInput input;
    input.file = p.map;
    input.rulesText = text;
    input.rulesName = name;
    input.openOptions = p.openOptions;
    core::io::TileSelection selection;  // the whole map, tiles with content only
    selection.zoom = p.zoom;
    auto layers = core::io::buildMapLayers(input, selection, 0, progress);
    if (!layers) return layers.error();
    loaded->map = std::move(*layers);
    loaded->rulesDocument = std::move(text);
    loaded->store = std::shared_ptr<const core::LayerStore>(loaded, &loaded->map->store);
    loaded->baker = std::make_unique<core::placement::SceneBaker>(loaded->selectionIndex, *loaded->store, catalogue);
    return loaded;
}

}  // namespace

void MapDocument::newProject() {
    cancel();
    waitIdle();
    mMap.reset();
    mProject = project::Project{};
    mProjectFile.clear();
    mSelection.clear();
    mRules = core::placement::PlacementRules{};
    mRulesDocument.clear();
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
    if (mCatalogue.empty()) {
        return core::Error{"the asset catalogue could not be read: " + mLastError.toStdString()};
    }
    // A new map replaces everything the running job works on: stop it first.
    cancel();
    waitIdle();
    const std::filesystem::path resources = mResourcesDir;
    const core::AssetCatalogue* catalogue = &mCatalogue;
    startJob(Job::Load,
             [p = std::move(p), file, modified, resources, catalogue](const core::ProgressCallback& progress) {
                 auto result = std::make_shared<JobResult>();
                 auto loaded = loadMap(p, resources, *catalogue, progress);
                 if (!loaded) {
                     result->message = qs(loaded.message());
                     return result;
                 }
                 // The project's rule edits must still apply to the rules they were made on.
                 core::placement::PlacementRules rules = (*loaded)->baseRules;
                 if (core::Status s = project::applyRuleEdits(rules, p.ruleEdits); !s) {
                     result->message = qs(s.message());
                     return result;
                 }
                 result->ok = true;
                 result->loaded = std::move(*loaded);
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
            mMap = r->loaded;
            mProject = r->project;
            mProjectFile = r->file;
            mRulesDocument = mMap->rulesDocument;
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
            (void)rebuildRules();
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
    if (!mMap) return;
    if (mRunning == Job::Bake) mCancel = true;  // its result is stale: stop it, bake again after
    if (mRunning != Job::None) {
        mBakePending = true;
        return;
    }
    rebake();
}

void MapDocument::rebake() {
    if (!mMap) return;
    if (mRunning != Job::None) {
        mBakePending = true;
        return;
    }
    auto loaded = mMap;
    const std::vector<core::TileId> selection = mSelection;
    const core::placement::PlacementRules rules = mRules;
    const std::uint64_t seed = mProject.seed;
    const int zoom = mProject.zoom;
    startJob(Job::Bake, [loaded, selection, rules, seed, zoom](const core::ProgressCallback& progress) {
        auto r = std::make_shared<JobResult>();
        if (selection.empty()) {
            auto empty = std::make_shared<core::Scene>();
            empty->frame.zoom = zoom;
            empty->seed = seed;
            r->scene = std::move(empty);
            r->ok = true;
            return r;
        }
        if (loaded->indexedSelection != selection) {
            auto index = core::TileIndex::build(loaded->map->classified, zoom, selection);
            if (!index) {
                r->message = qs(index.message());
                return r;
            }
            // Assigned in place: the baker points at this object and keeps its caches.
            loaded->selectionIndex = std::move(*index);
            loaded->indexedSelection = selection;
        }
        if (core::Status s = loaded->baker->setRules(rules); !s) {
            r->message = qs(s.message());
            return r;
        }
        core::placement::BakeOptions options;
        options.seed = seed;
        options.progress = progress;
        auto scene = loaded->baker->bake(options);
        if (!scene) {
            r->message = qs(scene.message());
            return r;
        }
        r->scene = std::make_shared<const core::Scene>(std::move(*scene));
        r->report = loaded->baker->report();
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
    if (!mMap || !mScene || mScene->tiles.empty()) return core::Error{"nothing to export: bake some tiles first"};
    if (mRunning != Job::None || mBakePending) {
        return core::Error{"the scene is still being baked: export when it is done"};
    }
    auto loaded = mMap;
    auto scene = mScene;
    const core::AssetCatalogue* catalogue = &mCatalogue;
    if (options.rulesDocument.empty()) options.rulesDocument = mRulesDocument;
    if (options.layerStyles.empty()) options.layerStyles = mMap->map->rules.layerInfos();
    // core knows no OSG: the render module writes the osgb format.
    if (!options.sceneGraphWriter) options.sceneGraphWriter = render::sceneGraphFileWriter();
    startJob(Job::Export, [loaded, scene, catalogue, options](const core::ProgressCallback& progress) {
        auto r = std::make_shared<JobResult>();
        auto report = core::exportScene(*scene, options, *catalogue, &loaded->baker->layers(), progress);
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

core::Status MapDocument::rebuildRules() {
    if (!mMap) {
        mRules = {};
        return core::Status::success();
    }
    core::placement::PlacementRules rules = mMap->baseRules;
    if (core::Status s = project::applyRuleEdits(rules, mProject.ruleEdits); !s) return s;
    mRules = std::move(rules);
    return core::Status::success();
}

void MapDocument::rebuildLayers() {
    mLayers = mMap ? LayerStack(mMap->store) : LayerStack{};
    mRows.clear();
    if (!mMap) return;
    const auto infos = mMap->map->rules.layerInfos();
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
                const core::AssetInfo* info = mCatalogue.find(mScene->assets[static_cast<std::size_t>(block.asset)]);
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
    if (!mMap) {
        mProject.zoom = zoom;
        return;
    }
    (void)startLoad(std::move(p), mProjectFile, true);
}

core::Status MapDocument::editRule(const project::RuleEdit& edit) {
    if (!mMap) return core::Error{"no map is loaded"};
    std::vector<project::RuleEdit> edits = mProject.ruleEdits;
    if (!edits.empty() && edits.back().path == edit.path) {
        edits.back().value = edit.value;
    } else {
        edits.push_back(edit);
    }
    core::placement::PlacementRules rules = mMap->baseRules;
    if (core::Status s = project::applyRuleEdits(rules, edits); !s) {
        // The message names the edit by path; its position in the list means nothing here.
        core::Status single = project::applyRuleEdit(rules, edit);
        return single ? s : single;
    }
    if (core::Status s = rules.check(mMap->map->rules.layerInfos()); !s) return s;
    if (core::Status s = rules.checkCatalogue(mCatalogue); !s) return s;
    mUndo.push(new ValueCommand<std::vector<project::RuleEdit>>(this, &MapDocument::applyRuleEdits, mProject.ruleEdits,
                                                                std::move(edits), tr("Change %1").arg(qs(edit.path)),
                                                                kRuleEditMergeId, edit.path));
    return core::Status::success();
}

void MapDocument::applyRuleEdits(std::vector<project::RuleEdit> edits) {
    mProject.ruleEdits = std::move(edits);
    if (core::Status s = rebuildRules(); !s) mLastError = qs(s.message());
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
    if (!mMap) return core::Error{"no map is loaded"};
    const auto& names = mMap->store->layerNames();
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
    LayerStack scratch(mMap->store);
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
