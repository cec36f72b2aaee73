#include "terrabit/core/pipeline/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <thread>
#include <tuple>

#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/export/cell_rects.h"
#include "terrabit/core/io/dem_reader.h"
#include "terrabit/core/placement/rule_schema.h"
#include "terrabit/core/raster/rasterizer.h"
#include "terrabit/core/scene/ground_drape.h"
#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/core/tiling/rasterize_some.h"

namespace terrabit::core::pipeline {

namespace {

using Clock = std::chrono::steady_clock;

Result<std::shared_ptr<const AssetCatalogue>> catalogueOf(const SessionInput& input) {
    if (input.catalogue) return input.catalogue;
    if (input.catalogueFile.empty()) {
        return badArguments(
            "no asset catalogue: none was given (--catalogue) and resources/assets/catalogue.yaml was not found");
    }
    auto catalogue = AssetCatalogue::load(input.catalogueFile);
    if (!catalogue) return withKind(catalogue.error(), ErrorKind::BadArguments);
    return std::make_shared<const AssetCatalogue>(std::move(*catalogue));
}

/// A scene's layers and one more, derived from them over the scene's tiles (absent elsewhere):
/// what the collision grid of a scene with terrain reads (kSteepLayer). Heights are the base's.
class WithDerivedLayer final : public LayerSource {
public:
    WithDerivedLayer(const LayerSource& base, std::string name, const algebra::ComposeResult& derived)
        : mBase(base), mNames(base.layerNames()), mMasks(derived.masks) {
        mNames.push_back(std::move(name));
        for (std::size_t i = 0; i < derived.tiles.size(); ++i) mSlots.emplace(derived.tiles[i], i);
    }

    const std::vector<std::string>& layerNames() const override { return mNames; }
    const BitTile* tile(const TileId& id, int layer) const override {
        const int derived = static_cast<int>(mNames.size()) - 1;
        if (layer != derived) return mBase.tile(id, layer);
        auto it = mSlots.find(id);
        return it == mSlots.end() ? nullptr : &mMasks[it->second];
    }
    const terrain::HeightTile* heights(const TileId& id) const override { return mBase.heights(id); }

private:
    const LayerSource& mBase;
    std::vector<std::string> mNames;
    std::vector<BitTile> mMasks;
    std::unordered_map<TileId, std::size_t> mSlots;
};

/// A scene's layers with the bridges' decks stamped into the heights of the scene's tiles they
/// reach (GroundGrading::applyDecks): what the collision grid stands on, so a probe or a mover
/// on a bridge is on its deck, not in the valley under it. Layers are the base's.
class WithBridgeDecks final : public LayerSource {
public:
    WithBridgeDecks(const LayerSource& base, const terrain::GroundGrading& grading, std::span<const TileId> tiles)
        : mBase(base) {
        if (grading.bridges().empty()) return;
        for (const TileId& t : tiles) {
            const terrain::HeightTile* ground = base.heights(t);
            if (!ground) continue;
            terrain::HeightTile decked = *ground;
            if (grading.applyDecks(decked)) mDecked.emplace(t, std::move(decked));
        }
    }

    const std::vector<std::string>& layerNames() const override { return mBase.layerNames(); }
    const BitTile* tile(const TileId& id, int layer) const override { return mBase.tile(id, layer); }
    const terrain::HeightTile* heights(const TileId& id) const override {
        auto it = mDecked.find(id);
        return it == mDecked.end() ? mBase.heights(id) : &it->second;
    }

private:
    const LayerSource& mBase;
    std::unordered_map<TileId, terrain::HeightTile> mDecked;
};

}  // namespace

Result<SessionInput> projectInput(const project::Project& p, const std::filesystem::path& defaultRules) {
    if (p.map.empty()) return badArguments("the project names no map file");
    SessionInput input;
    input.map.file = p.map;
    input.map.openOptions = p.openOptions;
    input.dems = p.dems;
    if (!p.rulesText.empty()) {
        input.map.rulesText = p.rulesText;
        input.map.rulesName = "project rules";
    } else {
        input.map.rules = p.rulesFile.empty() ? defaultRules : p.rulesFile;
    }
    input.tiles.zoom = p.zoom;
    return input;
}

Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::open(SessionInput input, const ProgressCallback& progress) {
    std::unique_ptr<Session> s(new Session());
    s->mThreads = input.threads;
    s->mZoom = input.tiles.zoom;

    // Everything the user named is checked before the map is read: rules, tiles, catalogue.
    auto document = io::readRulesDocument(input.map);
    if (!document) return document.error();
    s->mRulesDocument = std::move(document->text);
    s->mRulesName = std::move(document->name);
    auto layerRules = RuleSet::parse(s->mRulesDocument, s->mRulesName);
    if (!layerRules) return withKind(layerRules.error(), ErrorKind::BadArguments);
    if (input.passes != PassNeed::None) {
        auto passes = placement::PlacementRules::parse(s->mRulesDocument, s->mRulesName, layerRules->layerInfos());
        if (passes) {
            s->mBaseRules = std::move(*passes);
        } else if (input.passes == PassNeed::Optional &&
                   !placement::PlacementRules::declaresPasses(s->mRulesDocument)) {
            s->mPassesProblem = passes.error();
        } else {
            return withKind(passes.error(), ErrorKind::BadArguments);
        }
    }
    if (auto tiles = io::selectedTiles(input.tiles); !tiles) return tiles.error();
    if (input.passes == PassNeed::None) {
        s->mCatalogue = std::make_shared<const AssetCatalogue>();
    } else {
        auto catalogue = catalogueOf(input);
        if (!catalogue) return catalogue.error();
        s->mCatalogue = std::move(*catalogue);
        if (s->mBaseRules) {
            if (Status st = s->mBaseRules->checkCatalogue(*s->mCatalogue); !st) {
                return withKind(st.error(), ErrorKind::BadArguments);
            }
        }
    }
    if (s->mBaseRules) s->mRules = *s->mBaseRules;
    if (!input.dems.empty()) {
        // Opened before the map is read: a DEM that is not one is reported without a wait. Each
        // on its own: a bad one is left out with its problem, and the rest make the ground.
        std::vector<Error> dropped;
        auto dems = io::DemReader::open(input.dems, input.strictDems ? nullptr : &dropped);
        for (const Error& e : dropped) s->mDemWarnings.push_back(e.message + "; left out");
        if (dems) {
            s->mDems = std::make_unique<io::DemReader>(std::move(*dems));
            for (const io::DemInfo& d : s->mDems->dems()) s->mTerrainReport.perDem.push_back({d.path});
        } else if (input.strictDems || dropped.empty()) {
            return dems.error();
        } else {
            s->mDemWarnings.push_back("terrain: no usable DEM is left; the ground is flat");
        }
    }

    // The map, read once with the rules as parsed and checked above.
    auto map = input.rasterize
                   ? io::buildMapLayers(input.map, std::move(*layerRules), input.tiles, input.threads, progress)
                   : io::readMapIndex(input.map, std::move(*layerRules), input.tiles, input.threads, progress);
    if (!map) return map.error();
    s->mMap = std::move(*map);
    if (s->mDems) {
        s->mGradedFeatures = terrain::gradedFeatures(s->mMap->classified);
        if (auto graded = s->gradeFor(s->mBaseRules ? &s->mRules : nullptr); !graded) return graded.error();
    }
    if (Status st = s->attachHeights(progress); !st) return st.error();
    return s;
}

Status Session::attachHeights(const ProgressCallback& progress) {
    if (!mDems) return Status::success();
    LayerStore& store = mMap->store;
    const std::vector<TileId>& tiles = store.tiles();
    if (tiles.empty()) return Status::success();
    // Sampled on up to `threads` threads (DemReader::sample is thread-safe), each tile into its
    // own slot; set into the store from this thread afterwards, in slot order.
    std::vector<Result<std::shared_ptr<const terrain::HeightTile>>> sampled(
        tiles.size(), Error{"heights not sampled", ErrorKind::Internal});
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    auto work = [&] {
        for (std::size_t i = next++; i < tiles.size() && !stop; i = next++) sampled[i] = heightTile(tiles[i]);
    };
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threadCount =
        std::min<std::size_t>(tiles.size(), mThreads > 0 ? static_cast<std::size_t>(mThreads) : hardware);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threadCount; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (progress && !progress(1.0, "sampling heights")) return cancelled("stopped while sampling heights");
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        if (!sampled[i]) return sampled[i].error();
        store.setHeights(i, std::move(*sampled[i]));
    }
    return Status::success();
}

namespace {

/// The grade the rules ask the roads for: the smallest max_road_grade of their surface passes,
/// else the schema's default (also without passes, so every front end grades alike).
double roadGradeOf(const placement::PlacementRules* rules) {
    double grade = std::numeric_limits<double>::infinity();
    if (rules) {
        for (const placement::PassRule& p : rules->passes()) {
            if (p.kind == placement::PassKind::Surface) grade = std::min(grade, p.surface.maxRoadGrade);
        }
    }
    if (std::isfinite(grade)) return grade;
    const placement::ParamSpec* spec = placement::findParam(placement::PassKind::Surface, "max_road_grade");
    const auto& fallback = placement::defaultOf(*spec);
    return fallback ? std::get<double>(*fallback) : terrain::kDefaultMaxRoadGrade;
}

/// The ground mesh's error bound the rules ask for: the smallest ground_error of their surface
/// passes, else the schema's default.
float groundErrorOf(const placement::PlacementRules& rules) {
    double bound = std::numeric_limits<double>::infinity();
    for (const placement::PassRule& p : rules.passes()) {
        if (p.kind == placement::PassKind::Surface) bound = std::min(bound, p.surface.groundErrorMetres);
    }
    if (std::isfinite(bound)) return static_cast<float>(bound);
    const placement::ParamSpec* spec = placement::findParam(placement::PassKind::Surface, "ground_error");
    const auto& fallback = placement::defaultOf(*spec);
    return fallback ? static_cast<float>(std::get<double>(*fallback)) : terrain::kDefaultGroundErrorMetres;
}

}  // namespace

Result<bool> Session::gradeFor(const placement::PlacementRules* rules) {
    if (!mDems) return false;
    const double grade = roadGradeOf(rules);
    if (grade == mGradedFor) return false;
    // The raw height at a global cell: bilinear in the tile holding it (the last tile kept, as
    // a road's points come in order).
    std::shared_ptr<const terrain::HeightTile> last;
    const terrain::HeightSampler raw = [&](Vec2 cell) -> Result<float> {
        const double n = std::ldexp(1.0, mZoom);
        const auto tileOf = [&](double v) {
            return static_cast<std::uint32_t>(std::clamp(std::floor(v / kTileCells), 0.0, n - 1.0));
        };
        const TileId t{mZoom, tileOf(cell.x), tileOf(cell.y)};
        if (!last || last->tile != t) {
            auto h = rawHeightTile(t);
            if (!h) return h.error();
            last = *h;
        }
        return terrain::heightAt(*last, {cell.x - double(t.x) * kTileCells, cell.y - double(t.y) * kTileCells});
    };
    auto grading = terrain::GroundGrading::build(mGradedFeatures, mZoom, {grade}, raw);
    if (!grading) return grading.error();
    {
        std::lock_guard lock(mHeightsMutex);
        mGrading = std::make_shared<const terrain::GroundGrading>(std::move(*grading));
        // The tiles graded before stay alive: the desktop's UI thread may still be reading one
        // through the layers while the worker attaches the new ones.
        for (auto& [tile, heights] : mHeights) mRetiredHeights.push_back(std::move(heights));
        mHeights.clear();
    }
    {
        std::lock_guard lock(mGroundMutex);
        mRtin.clear();
        mGround.clear();
    }
    mGradedFor = grade;
    return true;
}

Result<std::shared_ptr<const terrain::HeightTile>> Session::heightTile(TileId tile) const {
    std::shared_ptr<const terrain::GroundGrading> grading;
    {
        std::lock_guard lock(mHeightsMutex);
        if (auto it = mHeights.find(tile); it != mHeights.end()) return it->second;
        grading = mGrading;
    }
    auto raw = rawHeightTile(tile);
    if (!raw) return raw.error();
    std::shared_ptr<const terrain::HeightTile> ground = *raw;
    if (!grading->empty()) {
        // A copy graded; a tile no feature reaches stays the same bits (apply changes nothing).
        thread_local terrain::GradingScratch scratch;
        auto graded = std::make_shared<terrain::HeightTile>(**raw);
        grading->apply(*graded, scratch);
        if (graded->heights != (*raw)->heights) ground = std::move(graded);
    }
    std::lock_guard lock(mHeightsMutex);
    return mHeights.emplace(tile, std::move(ground)).first->second;
}

Result<std::shared_ptr<const terrain::HeightTile>> Session::rawHeightTile(TileId tile) const {
    {
        std::lock_guard lock(mHeightsMutex);
        if (auto it = mRawHeights.find(tile); it != mRawHeights.end()) return it->second;
    }
    // Sampled outside the lock: two threads asking for one tile both sample it (the same
    // values), and the first one stored is kept.
    auto heights = std::make_shared<terrain::HeightTile>();
    heights->reset(tile);
    io::DemSampleReport report;
    if (mDems) {
        auto sampled = mDems->sample(tile, *heights);
        if (!sampled) return sampled.error();
        report = *sampled;
    }
    std::lock_guard lock(mHeightsMutex);
    auto [it, added] = mRawHeights.emplace(tile, std::move(heights));
    if (added && mDems) {
        ++mTerrainReport.tiles;
        mTerrainReport.filledFromCoarser += report.filledFromCoarser;
        mTerrainReport.inpainted += report.inpainted;
        mTerrainReport.noHeight += report.noHeight;
        mTerrainReport.absurd += report.absurd;
        if (report.noHeight > 0) ++mTerrainReport.tilesWithoutHeight;
        for (std::size_t d = 0; d < report.perDem.size() && d < mTerrainReport.perDem.size(); ++d) {
            TerrainReport::PerDem& to = mTerrainReport.perDem[d];
            const io::DemSampleReport::PerDem& from = report.perDem[d];
            to.covered += from.covered;
            to.supplied += from.supplied;
            to.filledFromCoarser += from.filledFromCoarser;
            to.inpainted += from.inpainted;
            to.absurd += from.absurd;
        }
        mTileFills[tile] = {report.filledFromCoarser, report.inpainted, report.absurd};
    }
    return it->second;
}

Result<float> Session::groundHeight(Vec2 mercator) const {
    if (!mDems) return terrain::kNoHeight;
    auto tile = tileAt(mercator, mZoom);
    if (!tile) return tile.error();
    auto heights = heightTile(*tile);
    if (!heights) return heights.error();
    const Vec2 cell = GroundFrame{{}, mZoom}.mercatorToCell(mercator);
    return terrain::heightAt(**heights, {cell.x - double(tile->x) * kTileCells, cell.y - double(tile->y) * kTileCells});
}

Result<std::shared_ptr<const terrain::RtinErrors>> Session::rtinErrorsOf(TileId tile) const {
    {
        std::lock_guard lock(mGroundMutex);
        if (auto it = mRtin.find(tile); it != mRtin.end()) return it->second;
    }
    auto heights = heightTile(tile);
    if (!heights) return heights.error();
    auto errors = std::make_shared<const terrain::RtinErrors>(terrain::rtinErrors(**heights));
    std::lock_guard lock(mGroundMutex);
    return mRtin.emplace(tile, std::move(errors)).first->second;
}

Result<GroundTile> Session::groundTile(TileId tile, float maxErrorMetres) const {
    {
        std::lock_guard lock(mGroundMutex);
        if (maxErrorMetres != mGroundError) {
            mGround.clear();
            mGroundError = maxErrorMetres;
        }
        if (auto it = mGround.find(tile); it != mGround.end()) return *it->second;
    }
    if (!mDems) {
        GroundTile empty;
        empty.mesh.tile = tile;
        return empty;
    }
    auto heights = heightTile(tile);
    if (!heights) return heights.error();
    auto self = rtinErrorsOf(tile);
    if (!self) return self.error();
    // North, east, south, west, as buildGroundMesh and makeGroundTile take them.
    constexpr int kSteps[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
    std::array<std::shared_ptr<const terrain::HeightTile>, 4> aroundHeights;
    std::array<std::shared_ptr<const terrain::RtinErrors>, 4> aroundErrors;
    std::array<const terrain::HeightTile*, 4> heightPtrs{};
    std::array<const terrain::RtinErrors*, 4> errorPtrs{};
    for (int k = 0; k < 4; ++k) {
        const std::optional<TileId> n = tile.neighbour(kSteps[k][0], kSteps[k][1]);
        if (!n) continue;
        auto h = heightTile(*n);
        if (!h) return h.error();
        auto e = rtinErrorsOf(*n);
        if (!e) return e.error();
        aroundHeights[k] = *h;
        aroundErrors[k] = *e;
        heightPtrs[k] = aroundHeights[k].get();
        errorPtrs[k] = aroundErrors[k].get();
    }
    terrain::GroundMesh mesh = terrain::buildGroundMesh(**heights, **self, errorPtrs, maxErrorMetres);
    mesh.tile = tile;
    auto ground = std::make_shared<const GroundTile>(
        makeGroundTile(std::move(mesh), **heights, heightPtrs, GroundFrame{{}, mZoom}.metresPerCell()));
    std::lock_guard lock(mGroundMutex);
    if (maxErrorMetres != mGroundError) return *ground;  // another bound came in meanwhile: not kept
    return *mGround.emplace(tile, std::move(ground)).first->second;
}

Status Session::meshGround(Scene& scene, float maxErrorMetres, int threads) const {
    if (!(maxErrorMetres >= 0.0F) || !std::isfinite(maxErrorMetres)) {
        return badArguments("the ground mesh's error bound " + std::to_string(maxErrorMetres) +
                            " m is not a finite number >= 0");
    }
    const std::vector<TileId>& tiles = scene.tiles;
    std::vector<Result<GroundTile>> built(tiles.size(), Error{"ground not meshed", ErrorKind::Internal});
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next++; i < tiles.size(); i = next++) built[i] = groundTile(tiles[i], maxErrorMetres);
    };
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threadCount =
        std::min<std::size_t>(tiles.size(), threads > 0 ? static_cast<std::size_t>(threads) : hardware);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threadCount; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    scene.ground.clear();
    scene.ground.reserve(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        if (!built[i]) return built[i].error();
        scene.ground.push_back(std::move(*built[i]));
    }
    return Status::success();
}

void Session::addBridges(Scene& scene) const {
    scene.bridges.clear();
    for (const terrain::BridgeProfile& b : mGrading->bridges()) {
        if (b.cells.size() < 2) continue;
        // A deck belongs to the tile holding its middle point, and is drawn once.
        const Vec2 middle = b.cells[b.cells.size() / 2];
        const TileId owner{mZoom, static_cast<std::uint32_t>(std::floor(middle.x / kTileCells)),
                           static_cast<std::uint32_t>(std::floor(middle.y / kTileCells))};
        if (std::find(scene.tiles.begin(), scene.tiles.end(), owner) == scene.tiles.end()) continue;
        BridgeDeck deck;
        deck.tile = owner;
        deck.id = b.id;
        deck.width = static_cast<float>(b.widthMetres);
        for (std::size_t k = 0; k < b.cells.size(); ++k) {
            deck.centreline.push_back(
                groundToScene(scene.frame.cellToGround(b.cells[k]), double(b.heights[k]) - scene.originHeight));
        }
        scene.bridges.push_back(std::move(deck));
    }
    std::sort(scene.bridges.begin(), scene.bridges.end(), [](const BridgeDeck& a, const BridgeDeck& b) {
        return std::tie(a.tile.y, a.tile.x, a.id) < std::tie(b.tile.y, b.tile.x, b.id);
    });
}

void Session::clearSurfacesUnderBridges(Scene& scene) const {
    // Per scene tile, the cells of the bridges (their width, centre rule) by the layer they
    // were drawn in; the scene's surfaces of those layers lose them.
    std::map<std::pair<TileId, std::string>, BitTile> under;
    Rasterizer raster;
    const double metresPerCell = scene.frame.metresPerCell();
    for (const terrain::BridgeProfile& b : mGrading->bridges()) {
        Box2 box;
        for (const Vec2& c : b.cells) box.extend(c);
        const double reach = b.widthMetres / metresPerCell;
        for (const TileId& t : scene.tiles) {
            const Box2 tileBox{{double(t.x) * kTileCells - reach, double(t.y) * kTileCells - reach},
                               {double(t.x + 1) * kTileCells + reach, double(t.y + 1) * kTileCells + reach}};
            if (!tileBox.intersects(box)) continue;
            std::vector<Vec2> local;
            for (const Vec2& c : b.cells) local.push_back(c - Vec2{double(t.x) * kTileCells, double(t.y) * kTileCells});
            for (const std::string& layer : b.layers) {
                (void)raster.polyline(local, b.widthMetres / metresPerCell, Coverage::CellCentre, under[{t, layer}]);
            }
        }
    }
    if (under.empty()) return;
    for (SurfacePatch& patch : scene.surfaces) {
        const auto it = under.find({patch.tile, patch.layer});
        if (it == under.end() || patch.rects.empty()) continue;
        patch.rects = mergeCellsIntoRects(cellsOfRects(patch.rects) & ~it->second);
    }
}

std::unique_ptr<LayerSource> Session::onBridgeDecks(const LayerSource& layers, std::span<const TileId> tiles) const {
    std::shared_ptr<const terrain::GroundGrading> grading;
    {
        std::lock_guard lock(mHeightsMutex);
        grading = mGrading;
    }
    return std::make_unique<WithBridgeDecks>(layers, *grading, tiles);
}

TerrainReport Session::terrainReport() const {
    std::lock_guard lock(mHeightsMutex);
    return mTerrainReport;
}

Result<double> Session::originHeight(LonLat origin) const {
    if (!mDems) return 0.0;
    auto atOrigin = groundHeight(lonLatToMercator(origin));
    if (!atOrigin) return atOrigin.error();
    if (*atOrigin == *atOrigin) return static_cast<double>(*atOrigin);
    // No DEM reaches the origin: the lowest height of the whole bake's tiles (sampled once, as
    // every bake of them samples them anyway), so every batch and shard finds the same.
    float lowest = std::numeric_limits<float>::infinity();
    for (const TileId& t : bakeIndex().tiles()) {
        auto heights = heightTile(t);
        if (!heights) return heights.error();
        for (const float v : (*heights)->heights) {
            if (v == v) lowest = std::min(lowest, v);
        }
    }
    return std::isfinite(lowest) ? static_cast<double>(lowest) : 0.0;
}

std::vector<std::string> Session::warnings() const {
    std::vector<std::string> w = mMap->map.warnings;
    w.insert(w.end(), mMap->classified.warnings.begin(), mMap->classified.warnings.end());
    const std::vector<std::string> terrain = terrainWarnings();
    w.insert(w.end(), terrain.begin(), terrain.end());
    return w;
}

namespace {

/// "N what (file: n, file: m)": a count and the DEMs it came from, for the fill line.
std::string countWithFiles(std::uint64_t total, const std::string& what, const TerrainReport& t,
                           std::uint64_t TerrainReport::PerDem::*field) {
    std::string line = std::to_string(total) + " " + what;
    std::string files;
    for (const TerrainReport::PerDem& d : t.perDem) {
        if (d.*field == 0) continue;
        files += (files.empty() ? "" : ", ") + d.path.string() + ": " + std::to_string(d.*field);
    }
    return files.empty() ? line : line + " (" + files + ")";
}

}  // namespace

std::vector<std::string> Session::terrainWarnings() const {
    std::vector<std::string> w = mDemWarnings;
    const TerrainReport t = terrainReport();
    if (t.tiles > 0) {
        for (const TerrainReport::PerDem& d : t.perDem) {
            if (d.supplied > 0) continue;
            w.push_back(d.path.string() + (d.covered == 0 ? ": does not overlap the map"
                                                          : ": gives the map no height (finer DEMs, its nodata or "
                                                            "absurd values cover every sample it reaches)"));
        }
    }
    if (t.filledFromCoarser + t.inpainted + t.absurd > 0) {
        w.push_back("terrain: " +
                    countWithFiles(t.filledFromCoarser, "samples filled from a coarser DEM", t,
                                   &TerrainReport::PerDem::filledFromCoarser) +
                    ", " + countWithFiles(t.inpainted, "inpainted", t, &TerrainReport::PerDem::inpainted) + ", " +
                    countWithFiles(t.absurd, "with absurd values read as no data", t, &TerrainReport::PerDem::absurd) +
                    " of " + std::to_string(t.tiles * terrain::kHeightSampleCount) + " samples");
    }
    if (t.tilesWithoutHeight > 0) {
        w.push_back("terrain: " + std::to_string(t.tilesWithoutHeight) + " of " + std::to_string(t.tiles) +
                    " tiles have cell corners no DEM reaches (" + std::to_string(t.noHeight) +
                    " samples); the ground is flat at 0 m there");
    }
    return w;
}

Result<placement::PlacementRules> Session::rulesWith(const std::vector<project::RuleEdit>& edits) const {
    if (!mBaseRules) return badArguments(mRulesName + ": the rules document has no passes to edit");
    placement::PlacementRules rules = *mBaseRules;
    if (Status s = project::applyRuleEdits(rules, edits); !s) return s.error();
    if (Status s = rules.check(mMap->rules.layerInfos()); !s) return s.error();
    if (Status s = rules.checkCatalogue(*mCatalogue); !s) return s.error();
    return rules;
}

Status Session::setRules(placement::PlacementRules rules) {
    if (Status s = rules.check(mMap->rules.layerInfos()); !s) return s;
    if (Status s = rules.checkCatalogue(*mCatalogue); !s) return s;
    // A new road grade grades the ground again: every reader of the heights gets the new ones
    // (the passes' keys hash the heights, so what stands on changed ground is baked again).
    auto regraded = gradeFor(&rules);
    if (!regraded) return regraded.error();
    if (*regraded) {
        if (Status s = attachHeights({}); !s) return s;
    }
    mRules = std::move(rules);
    mRulesInBaker = false;
    return Status::success();
}

Status Session::select(std::vector<TileId> tiles) {
    tiles = sortedNorthToSouth(std::move(tiles));
    if (mSelected && tiles == mSelection) return Status::success();
    const int zoom = mZoom;
    for (const TileId& t : tiles) {
        if (t.zoom != zoom) {
            return badArguments("tile " + t.quadkey() + " is at zoom " + std::to_string(t.zoom) +
                                ", the map was read at zoom " + std::to_string(zoom));
        }
    }
    if (!tiles.empty()) {
        auto index = TileIndex::build(mMap->classified, zoom, tiles);
        if (!index) return withKind(index.error(), ErrorKind::BadArguments);
        // A baker over the map's whole index cannot switch to the selection's.
        if (!mSelected) {
            mBaker.reset();
            mBaked = false;
        }
        mSelectionIndex = std::move(*index);  // in place: the baker points here and keeps its caches
    }
    mSelection = std::move(tiles);
    mSelected = true;
    return Status::success();
}

const std::vector<TileId>& Session::bakeTiles() const { return mSelected ? mSelection : mMap->index.tiles(); }

Status Session::rasterize(std::span<const TileId> tiles) {
    const auto start = Clock::now();
    mMap->store = LayerStore();  // the last batch's tiles go before this one's come
    auto store = rasterizeSome(mMap->index, tiles, mThreads);
    if (!store) return store.error();
    mMap->store = std::move(*store);
    if (Status st = attachHeights({}); !st) return st;
    mMap->rasterizeMs += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return Status::success();
}

placement::SceneBaker& Session::baker() {
    if (!mBaker) {
        mBaker = std::make_unique<placement::SceneBaker>(bakeIndex(), mMap->store, *mCatalogue);
        mRulesInBaker = false;
    }
    return *mBaker;
}

Result<Scene> Session::bake(placement::BakeOptions options) {
    if (!mBaseRules) return badArguments(mRulesName + ": the rules document has no passes to bake");
    if (mSelected && mSelection.empty()) {
        Scene empty;
        empty.frame.zoom = mZoom;
        empty.seed = options.seed;
        return empty;
    }
    placement::SceneBaker& b = baker();
    if (!mRulesInBaker) {
        if (Status s = b.setRules(mRules); !s) return s.error();
        mRulesInBaker = true;
    }
    if (options.threads == 0) options.threads = mThreads;
    if (mDems && !options.originHeight) {
        auto height = originHeight(options.origin ? *options.origin : placement::sceneOrigin(bakeIndex().tiles()));
        if (!height) return height.error();
        options.originHeight = *height;
    }
    auto scene = b.bake(options);
    if (!scene) return scene;
    mBaked = true;
    if (mDems && scene->terrain) {
        const float groundError = options.groundErrorMetres ? *options.groundErrorMetres : groundErrorOf(mRules);
        if (Status st = meshGround(*scene, groundError, options.threads); !st) return st.error();
        // Every scene tile was sampled by now (meshing reads each).
        {
            std::lock_guard lock(mHeightsMutex);
            for (const TileId& t : scene->tiles) {
                const auto it = mTileFills.find(t);
                if (it == mTileFills.end()) continue;
                scene->statistics.heightsFilledFromCoarser += it->second[0];
                scene->statistics.heightsInpainted += it->second[1];
                scene->statistics.heightsAbsurd += it->second[2];
            }
        }
        addBridges(*scene);
        clearSurfacesUnderBridges(*scene);
    }
    return scene;
}

const placement::BakeReport& Session::report() const { return mBaker ? mBaker->report() : mEmptyReport; }

const LayerSource& Session::layers() const {
    if (mBaked) return mBaker->layers();
    return mMap->store;
}

ExportOptions Session::exportOptions(std::vector<ExportFormat> formats, std::filesystem::path outDir) const {
    ExportOptions o;
    o.formats = std::move(formats);
    o.outDir = std::move(outDir);
    o.rulesDocument = mRulesDocument;
    o.threads = mThreads;
    o.layerStyles = mMap->rules.layerInfos();
    // What placement made is exported as layers too (for previews and collision).
    for (const auto& [name, colour] : {std::pair{placement::kPlacedBuildingsLayer, Rgb{120, 40, 30}},
                                       std::pair{placement::kPlacedVegetationLayer, Rgb{20, 90, 20}}}) {
        LayerInfo info;
        info.name = std::string(name);
        info.colour = colour;
        o.layerStyles.push_back(std::move(info));
    }
    return o;
}

Result<ExportReport> Session::exportScene(const Scene& scene, ExportOptions options,
                                          const ProgressCallback& progress) const {
    const ExportOptions defaults = exportOptions({}, {});
    if (options.rulesDocument.empty()) options.rulesDocument = defaults.rulesDocument;
    if (options.layerStyles.empty()) options.layerStyles = defaults.layerStyles;
    const bool collision =
        std::find(options.formats.begin(), options.formats.end(), ExportFormat::Collision) != options.formats.end();
    const std::string steepName(kSteepLayer);
    if (!hasTerrain() || !collision || scene.tiles.empty()) {
        return core::exportScene(scene, options, *mCatalogue, &layers(), progress);
    }
    // The collision grid stands on the bridges' decks (only it reads the layers' heights).
    const WithBridgeDecks decks(layers(), *mGrading, scene.tiles);
    if (decks.layerId(steepName) >= 0) return core::exportScene(scene, options, *mCatalogue, &decks, progress);
    // The walkability rule: the rules' own `steep`, else the default.
    const auto& named = mRules.expressions();
    const bool ruled = std::any_of(named.begin(), named.end(),
                                   [&](const placement::ExpressionRule& e) { return e.name == steepName; });
    const std::string expression = ruled ? mRules.expressionDocument(steepName) : std::string(kSteepExpression);
    algebra::ComposeOptions composeOptions;
    composeOptions.threads = mThreads;
    auto steep = algebra::compose(decks, scene.tiles, expression, composeOptions);
    if (!steep) return badArguments("collision: the walkability rule '" + steepName + "': " + steep.message());
    const WithDerivedLayer withSteep(decks, steepName, *steep);
    return core::exportScene(scene, options, *mCatalogue, &withSteep, progress);
}

}  // namespace terrabit::core::pipeline
