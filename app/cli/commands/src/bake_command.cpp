#include "terrabit/cli/bake_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_set>

#include "report_text_p.h"
#include "terrabit/cli/exit_codes.h"
#include "terrabit/cli/map_commands.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/placement/pass_context.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/scale/shard_merge.h"
#include "terrabit/core/scale/shard_record.h"

namespace terrabit::cli {

using namespace core;
using namespace core::io;

namespace {

using Clock = std::chrono::steady_clock;

/// How many levels up the tiles' groups lie that shards and batches must keep whole: osgb writes
/// a file per group of tiles (and merge joins shards' group files); 0 without osgb.
int groupAlignment(const BakeCommand& command) {
    const bool osgb =
        std::find(command.formats.begin(), command.formats.end(), ExportFormat::Osgb) != command.formats.end();
    return osgb ? kSceneGraphGroupLevels : 0;
}

void printWarnings(std::ostream& err, const std::vector<std::string>& warnings) {
    cli::printWarnings(err, warnings, nullptr);
}

/// What the bake made, summed over its batches, for the summary.
struct BakeTotals {
    std::size_t tiles = 0;
    int zoom = 0;
    std::uint64_t seed = 0;
    LonLat origin;
    std::vector<placement::PassReport> passes;  ///< tiles run and time summed over the batches
    std::size_t placed = 0, blocked = 0, unmatched = 0, blockedBySlope = 0, generated = 0;
    std::uint64_t footprintCells = 0, footprintCellsCovered = 0, placedCells = 0, placedCellsOutside = 0;
    std::uint64_t cellsWithHeight = 0, steepCells = 0;
    bool terrain = false;
    double originHeight = 0.0;
    double minHeight = std::numeric_limits<double>::quiet_NaN(), maxHeight = minHeight;
    std::size_t instances = 0, blocks = 0;
    std::map<std::string, std::size_t> perAsset;  ///< sorted, like Scene::assets
    std::size_t vegetationCells = 0, vegetationInstances = 0;
    double requestedDensity = 0.0, achievedDensity = 0.0;
    std::size_t patches = 0, rects = 0;
    std::vector<ExportedFile> files;
    double bakeMs = 0.0;

    void add(const Scene& scene, const placement::BakeReport& report) {
        tiles += scene.tiles.size();
        zoom = scene.frame.zoom;
        seed = scene.seed;
        origin = scene.frame.origin;
        for (std::size_t p = 0; p < report.passes.size(); ++p) {
            if (p == passes.size()) {
                passes.push_back(report.passes[p]);
                continue;
            }
            passes[p].tilesRun += report.passes[p].tilesRun;
            passes[p].tilesReused += report.passes[p].tilesReused;
            passes[p].milliseconds += report.passes[p].milliseconds;
        }
        const SceneStatistics& s = scene.statistics;
        placed += s.buildingsPlaced;
        blocked += s.buildingsBlocked;
        unmatched += s.buildingsUnmatched;
        generated += s.buildingsGenerated;
        footprintCells += s.footprintCells;
        footprintCellsCovered += s.footprintCellsCovered;
        placedCells += s.placedCells;
        placedCellsOutside += s.placedCellsOutside;
        blockedBySlope += s.buildingsBlockedBySlope;
        cellsWithHeight += s.cellsWithHeight;
        steepCells += s.steepCells;
        terrain = terrain || scene.terrain;
        originHeight = scene.originHeight;
        minHeight = std::fmin(minHeight, s.minHeight);
        maxHeight = std::fmax(maxHeight, s.maxHeight);
        instances += scene.instanceCount();
        blocks += scene.blocks.size();
        for (std::size_t a = 0; a < scene.assets.size(); ++a) perAsset[scene.assets[a]] += s.instancesPerAsset[a];
        vegetationCells += s.vegetationCellsRequested;
        vegetationInstances += s.vegetationInstances;
        for (const SurfacePatch& p : scene.surfaces) rects += p.rects.size();
        patches += scene.surfaces.size();
        bakeMs += report.milliseconds;
    }
};

/// whole() of a shard without tiles: nothing baked, the shard's record written.
constexpr int kNoTiles = -1;

/// Where a streamed bake keeps its batches, inside the output folder.
constexpr std::string_view kBatchFolder = ".terrabit-batches";

/// One bake: the whole scene at once, or streamed a batch at a time.
class BakeRun {
public:
    BakeRun(const BakeCommand& c, pipeline::Session& s, std::vector<std::string>& warningsOut, std::ostream& errOut)
        : command(c), session(s), m(s.map()), warnings(warningsOut), errStream(errOut) {}

    const BakeCommand& command;
    pipeline::Session& session;
    const MapLayers& m;
    std::vector<std::string>& warnings;
    BakeTotals totals;
    BakeFootprint footprint;
    scale::ShardWork shard;                    ///< a shard's work (beginShard)
    std::vector<VegetationTileTally> tallies;  ///< of a streamed bake's batches
    std::string shardLine;                     ///< the shard's line of the summary, if a shard
    double writeMs = 0.0;                      ///< exporting (every batch's)
    double joinMs = 0.0;                       ///< joining the batches

    std::ostream& errStream;
    std::ostream& err() const { return errStream; }
    /// Reports a failure once the map is open: whatever its kind, nothing could be baked.
    int failed(const Error& error) const { return fail(err(), nothingUsable(error), kBakeErrors); }

    /// `part`: the output is a part of a bake that a merge joins (a shard, a streamed bake's
    /// batch), so the 3D Tiles export also writes its level sources.
    ExportOptions exportOptions(const std::filesystem::path& outDir, bool part) const {
        ExportOptions o = session.exportOptions(command.formats, outDir);
        o.plainNodes = command.plainNodes;
        o.sceneGraphWriter = command.sceneGraphWriter;
        o.sceneGraphStream = command.sceneGraphStream;
        o.levelSources = part;
        // A shard keeps its share of scene.glb for the merge to encode the whole file from.
        o.scenePart = command.shard.count > 0;
        // A part cannot tell the whole bake's count. Under Auto a streamed bake's batches write
        // binary, which their join turns into JSON lines when the total is small (joinBatches);
        // a shard writes JSON, which every merge of shards can join (BakeCommand::instances).
        o.instances = command.instances;
        o.binaryInstancesAbove = command.binaryInstancesAbove;
        if (part && command.instances == InstanceEncoding::Auto) {
            o.instances = command.shard.count > 0 ? InstanceEncoding::Json : InstanceEncoding::Binary;
        }
        return o;
    }

    void hold(std::size_t rasterTiles, const Scene& scene) {
        footprint.peakRasterTiles = std::max(footprint.peakRasterTiles, rasterTiles);
        footprint.peakSceneTiles = std::max(footprint.peakSceneTiles, scene.tiles.size());
        footprint.peakInstances = std::max(footprint.peakInstances, scene.instanceCount());
    }

    /// Removes the shard's old record and finds its work; kNoTiles, its record written, when
    /// the shard has no tiles.
    int beginShard(const placement::PlacementRules& rules) {
        if (Status s = scale::removeShardRecord(command.outDir); !s) return failed(s.error());
        shard = scale::shardWork(m.index, command.shard, rules, groupAlignment(command));
        if (!shard.own.empty()) return kExitOk;
        Status s = scale::writeShardRecord(command.outDir, scale::makeShardRecord(command.shard, shard));
        if (!s) return failed(s.error());
        shardLine = "shard " + command.shard.text() + ": no tiles\n";
        return kNoTiles;
    }

    /// Writes the shard's record, last: the shard is done once its files (totals.files) are.
    int finishShard(std::vector<VegetationTileTally> shardTallies, Clock::time_point start) {
        scale::ShardRecord record = scale::makeShardRecord(command.shard, shard);
        record.tallies = std::move(shardTallies);
        for (const ExportedFile& f : totals.files) record.files.push_back(f.path.generic_string());
        record.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (Status st = scale::writeShardRecord(command.outDir, record); !st) {
            return failed(st.error());
        }
        shardLine = "shard " + command.shard.text() + ": " + std::to_string(shard.own.size()) + " tiles, " +
                    std::to_string(shard.baked.size()) + " baked with their halo\n";
        return kExitOk;
    }

    /// Every tile (or a shard's) at once, from m.store.
    int whole(const ProgressCallback& progress) {
        const auto start = Clock::now();
        placement::BakeOptions options;
        options.seed = command.seed;
        options.threads = command.threads;
        options.blockCells = command.blockCells;
        options.groundErrorMetres = command.groundError;
        options.progress = scaled(progress, 0.0, 0.8);
        // No bake follows this one: the passes' results move into the scene instead of staying
        // cached beside it.
        options.cacheBudgetBytes = 0;
        // A shard: its own tiles plus their halo, in the whole bake's frame (scale/shard_plan.h).
        const bool sharded = command.shard.count > 0;
        if (sharded) {
            if (const int code = beginShard(session.rules()); code != kExitOk) return code;
            options.tiles = shard.baked;
            options.sceneTiles = shard.own;
            options.origin = placement::sceneOrigin(m.index.tiles());
        }
        auto scene = session.bake(options);
        if (!scene) return failed(scene.error());
        warnings.insert(warnings.end(), session.report().warnings.begin(), session.report().warnings.end());
        addTerrainWarnings();
        const auto writeStart = Clock::now();
        auto report = session.exportScene(*scene, exportOptions(command.outDir, sharded), scaled(progress, 0.8, 0.2));
        writeMs += std::chrono::duration<double, std::milli>(Clock::now() - writeStart).count();
        printWarnings(err(), warnings);
        if (!report) return failed(report.error());
        totals.add(*scene, session.report());
        totals.requestedDensity = scene->statistics.requestedDensity;
        totals.achievedDensity = scene->statistics.achievedDensity;
        totals.files = report->files;
        if (sharded) {
            if (const int code = finishShard(scene->vegetationTallies, start); code != kExitOk) return code;
        }
        footprint.batches = 1;
        footprint.tiles = m.index.tiles().size();
        hold(m.store.tiles().size(), *scene);
        return kExitOk;
    }

    /// A batch at a time, each baked like a shard into its own folder under the output folder:
    /// its tiles and halo rasterized, baked, written and dropped; then the batches merged into
    /// the output folder as `terrabit-cli merge` joins shards.
    int streamed(const std::vector<scale::ShardWork>& batches, const ProgressCallback& progress) {
        namespace fs = std::filesystem;
        const fs::path work = command.outDir / kBatchFolder;
        std::error_code ec;
        fs::remove_all(work, ec);
        if (ec) return failed(ioError(work.string() + ": " + ec.message()));
        // The work folder goes whatever happens: a failed bake leaves no half-written batches.
        struct RemovedAtExit {
            fs::path folder;
            ~RemovedAtExit() {
                std::error_code ignored;
                fs::remove_all(folder, ignored);
            }
        } removed{work};
        const LonLat origin = placement::sceneOrigin(m.index.tiles());
        const int count = static_cast<int>(batches.size());
        // scene.glb is encoded a batch at a time, in batch order (runs of consecutive quadkeys,
        // the file's tile order); the other formats are written per batch and joined.
        ExportOptions batchOptions = exportOptions(work, true);
        const auto glbAt = std::find(batchOptions.formats.begin(), batchOptions.formats.end(), ExportFormat::Glb);
        std::optional<GlbExportStream> glb;
        if (Status s = createFolder(work); !s) return failed(s.error());
        if (glbAt != batchOptions.formats.end()) {
            batchOptions.formats.erase(glbAt);
            auto opened = GlbExportStream::open(exportOptions(command.outDir, false), work);
            if (!opened) return failed(opened.error());
            glb.emplace(std::move(*opened));
        }
        // osgb too: each batch writes its groups' files, the root comes at the end.
        const auto osgbAt = std::find(batchOptions.formats.begin(), batchOptions.formats.end(), ExportFormat::Osgb);
        std::unique_ptr<SceneGraphStream> osgb;
        if (osgbAt != batchOptions.formats.end()) {
            batchOptions.formats.erase(osgbAt);
            auto opened = command.sceneGraphStream(exportOptions(command.outDir, false), session.catalogue(),
                                                   command.outDir / "scene.osgb");
            if (!opened) return failed(Error{"export: " + opened.message(), opened.error().kind});
            osgb = std::move(*opened);
        }
        std::vector<fs::path> folders;
        std::unordered_set<std::string> seen;  // batches share their halo, and its warnings
        std::vector<std::string> bakeWarnings;
        // One session whose layers change per batch: consecutive batches share much of their
        // halo, and its baker reuses a tile's results while everything they depend on (its key)
        // is unchanged — the same results, computed once.
        for (int k = 0; k < count; ++k) {
            const scale::ShardWork& batch = batches[static_cast<std::size_t>(k)];
            // The batches take 0 .. 0.9 of the progress; the join and the whole-scene files the rest.
            const double from = 0.9 * k / count, span = 0.9 / count;
            if (Status s = session.rasterize(layersRead(batch)); !s) {
                return failed(s.error());
            }
            if (!reportProgress(progress, from, "rasterizing")) {
                return failed(cancelled("bake cancelled"));
            }

            const auto t = Clock::now();
            placement::BakeOptions options;
            options.seed = command.seed;
            options.threads = command.threads;
            options.blockCells = command.blockCells;
            options.groundErrorMetres = command.groundError;
            options.tiles = batch.baked;
            options.sceneTiles = batch.own;
            options.origin = origin;
            options.progress = scaled(progress, from, span * 0.8);
            auto scene = session.bake(options);
            if (!scene) return failed(scene.error());
            for (const std::string& w : session.report().warnings) {
                if (seen.insert(w).second) bakeWarnings.push_back(w);
            }
            const fs::path folder = work / std::to_string(k);
            const auto writeStart = Clock::now();
            if (glb) {
                if (Status s = glb->add(*scene, session.catalogue()); !s) {
                    printWarnings(err(), warnings);
                    return failed(s.error());
                }
                footprint.peakGlbHeldBytes = std::max(footprint.peakGlbHeldBytes, glb->heldBytes());
            }
            if (osgb) {
                if (Status s = osgb->add(*scene, &session.layers()); !s) {
                    printWarnings(err(), warnings);
                    return failed(Error{"export: " + s.message(), s.error().kind});
                }
            }
            ExportOptions written = batchOptions;
            written.outDir = folder;
            Result<ExportReport> report = ExportReport{};
            if (!written.formats.empty()) {
                report = session.exportScene(*scene, written, scaled(progress, from + span * 0.8, span * 0.2));
            } else if (Status s = createFolder(folder); !s) {  // for the batch's record
                report = s.error();
            }
            writeMs += std::chrono::duration<double, std::milli>(Clock::now() - writeStart).count();
            if (!report) {
                printWarnings(err(), warnings);
                return failed(report.error());
            }
            scale::ShardRecord record = scale::makeShardRecord(scale::ShardSpec{k, count}, batch);
            record.tallies = scene->vegetationTallies;
            for (const ExportedFile& f : report->files) record.files.push_back(f.path.generic_string());
            record.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
            if (Status st = scale::writeShardRecord(folder, record); !st) {
                return failed(st.error());
            }
            folders.push_back(folder);
            totals.add(*scene, session.report());
            tallies.insert(tallies.end(), scene->vegetationTallies.begin(), scene->vegetationTallies.end());
            for (const ExportedFile& f : report->files) {
                if (!isJoinedFile(f.path, command.shard.count > 0)) totals.files.push_back(f);
            }
            hold(m.store.tiles().size(), *scene);
        }
        warnings.insert(warnings.end(), bakeWarnings.begin(), bakeWarnings.end());
        addTerrainWarnings();
        printWarnings(err(), warnings);

        if (!reportProgress(progress, 0.9, "joining the batches")) return failed(cancelled("bake cancelled"));
        if (const int code = joinBatches(folders); code != kExitOk) return code;
        if (glb) {
            const auto writeStart = Clock::now();
            Result<ExportedFile> file = glb->finish(scaled(progress, 0.92, 0.08));
            writeMs += std::chrono::duration<double, std::milli>(Clock::now() - writeStart).count();
            if (!file) return failed(file.error());
            totals.files.push_back(*file);
        }
        if (osgb) {
            const auto writeStart = Clock::now();
            auto files = osgb->finish();
            writeMs += std::chrono::duration<double, std::milli>(Clock::now() - writeStart).count();
            if (!files) return failed(Error{"export: " + files.message(), files.error().kind});
            for (const fs::path& relative : *files) {
                totals.files.push_back({ExportFormat::Osgb, relative, fs::file_size(command.outDir / relative, ec)});
            }
        }
        footprint.batches = batches.size();
        footprint.tiles = m.index.tiles().size();
        return kExitOk;
    }

    /// The terrain's warnings once every tile was sampled (a streamed bake samples per batch).
    void addTerrainWarnings() {
        const std::vector<std::string> terrain = session.terrainWarnings();
        warnings.insert(warnings.end(), terrain.begin(), terrain.end());
    }

    /// The tiles whose layers a batch reads: its baked tiles and their neighbours in the index.
    std::vector<TileId> layersRead(const scale::ShardWork& batch) const {
        std::vector<TileId> read;
        for (const TileId& b : batch.baked) {
            for (const TileId& n : placement::neighbourhoodOf(b)) {
                if (m.index.slot(n)) read.push_back(n);
            }
        }
        std::sort(read.begin(), read.end());
        read.erase(std::unique(read.begin(), read.end()), read.end());
        return read;
    }

    /// Joins the batches' folders into the output folder as `terrabit-cli merge` joins shards,
    /// and sums the densities as the whole bake does.
    int joinBatches(const std::vector<std::filesystem::path>& folders) {
        namespace fs = std::filesystem;
        std::error_code ec;
        const auto joinStart = Clock::now();
        // A shard keeps its level sources for the merge of the shards. Under --instances auto
        // the batches wrote binary instances, and the join picks by the total, as the bake of
        // everything at once does (exportOptions).
        const bool sharded = command.shard.count > 0;
        std::optional<std::uint64_t> autoBinaryAbove;
        if (!sharded && command.instances == InstanceEncoding::Auto) autoBinaryAbove = command.binaryInstancesAbove;
        if (Status s = scale::mergeParts(folders, command.outDir, command.joinMaxOpen, sharded, autoBinaryAbove); !s) {
            return failed(s.error());
        }
        joinMs = std::chrono::duration<double, std::milli>(Clock::now() - joinStart).count();
        for (const ExportFormat f : command.formats) {
            const fs::path joined = f == ExportFormat::Manifest    ? fs::path("manifest.json")
                                    : f == ExportFormat::Tiles3d   ? fs::path("3dtiles") / "tileset.json"
                                    : f == ExportFormat::Collision ? fs::path("collision.tbcg")
                                                                   : fs::path();
            if (joined.empty()) continue;
            const std::uintmax_t bytes = fs::file_size(command.outDir / joined, ec);
            if (ec) return failed(ioError((command.outDir / joined).string() + ": " + ec.message()));
            totals.files.push_back({f, joined, bytes});
            if (f == ExportFormat::Manifest && fs::exists(command.outDir / kInstanceFileName, ec)) {
                const std::uintmax_t instanceBytes = fs::file_size(command.outDir / kInstanceFileName, ec);
                if (ec) return failed(ioError((command.outDir / kInstanceFileName).string() + ": " + ec.message()));
                totals.files.push_back({f, fs::path(kInstanceFileName), instanceBytes});
            }
        }

        // The densities as the whole bake sums them: by pass, then tile north to south.
        std::stable_sort(tallies.begin(), tallies.end(),
                         [](const VegetationTileTally& a, const VegetationTileTally& b) {
                             return std::tie(a.pass, a.tile.y, a.tile.x) < std::tie(b.pass, b.tile.y, b.tile.x);
                         });
        double requested = 0.0;
        for (const VegetationTileTally& t : tallies) requested += t.requestedInstances;
        const double cells = static_cast<double>(totals.vegetationCells);
        totals.requestedDensity = cells > 0 ? requested / cells : 0.0;
        totals.achievedDensity = cells > 0 ? static_cast<double>(totals.vegetationInstances) / cells : 0.0;
        return kExitOk;
    }

    static ProgressCallback scaled(const ProgressCallback& progress, double from, double span) {
        if (!progress) return {};
        return [progress, from, span](double f, std::string_view stage) { return progress(from + span * f, stage); };
    }
    /// Files the merge writes from the batches' parts rather than moving them, and the level
    /// sources, which it reads and (but for a shard) leaves behind.
    static bool isJoinedFile(const std::filesystem::path& p, bool shard) {
        if (!shard && p.parent_path() == std::filesystem::path("3dtiles") / "levels") return true;
        return p == "manifest.json" || p == kInstanceFileName || p == "collision.tbcg" ||
               p == std::filesystem::path("3dtiles") / "tileset.json";
    }
};

/// Bakes and writes: at once, or streamed a batch at a time when every format is per tile and
/// the tiles make more than one batch; a shard streams its own tiles. kNoTiles for a shard
/// without tiles.
int bakeAndWrite(BakeRun& run, pipeline::Session& session, bool mayStream, Clock::time_point start,
                 const ProgressCallback& progress) {
    const BakeCommand& command = run.command;
    const MapLayers& m = session.map();
    const auto part = [&progress](double from, double span) -> ProgressCallback {
        return BakeRun::scaled(progress, from, span);
    };
    if (!mayStream) return run.whole(part(0.5, 0.5));
    std::vector<TileId> tiles = m.index.tiles();
    const bool sharded = command.shard.count > 0;
    if (sharded) {
        if (const int code = run.beginShard(session.rules()); code != kExitOk) return code;
        tiles = run.shard.own;
    }
    const std::vector<scale::ShardWork> batches =
        scale::batchWorks(m.index, tiles, command.batchTiles, session.rules(), groupAlignment(command));
    if (batches.size() > 1 || sharded) {
        const int code = run.streamed(batches, part(0.2, 0.8));
        return code == kExitOk && sharded ? run.finishShard(std::move(run.tallies), start) : code;
    }
    // One batch: the whole bake, its tiles rasterized now.
    if (Status s = session.rasterize(m.index.tiles()); !s) return run.failed(s.error());
    return run.whole(part(0.2, 0.8));
}

/// A collision grid file holds a region of at most kMaxCollisionFileTiles tiles: said before the
/// bake, not after it (a streamed bake would find out only when joining its batches).
Status checkCollisionRegion(const BakeCommand& command, std::span<const TileId> tiles) {
    if (tiles.empty() ||
        std::find(command.formats.begin(), command.formats.end(), ExportFormat::Collision) == command.formats.end()) {
        return Status::success();
    }
    std::uint32_t x0 = tiles.front().x, x1 = x0, y0 = tiles.front().y, y1 = y0;
    for (const TileId& t : tiles) {
        x0 = std::min(x0, t.x);
        x1 = std::max(x1, t.x);
        y0 = std::min(y0, t.y);
        y1 = std::max(y1, t.y);
    }
    const std::uint64_t wide = std::uint64_t{x1} - x0 + 1, high = std::uint64_t{y1} - y0 + 1;
    if (wide * high <= kMaxCollisionFileTiles) return Status::success();
    return badArguments("--format collision: the selection spans " + std::to_string(wide) + " x " +
                        std::to_string(high) + " tiles at zoom " + std::to_string(tiles.front().zoom) +
                        ", more than the " + std::to_string(kMaxCollisionFileTiles) +
                        " a collision grid file holds; select less, or bake at a lower --zoom");
}

/// The bake's summary on `out` (see runBake).
void printSummary(std::ostream& out, const BakeCommand& command, const BakeRun& run, const MapLayers& m,
                  Clock::time_point start) {
    const BakeTotals& s = run.totals;
    out << run.shardLine;
    out << "baked " << s.tiles << " tiles of " << m.map.source << " at zoom " << s.zoom << " (seed " << s.seed
        << ", origin " << fixed(s.origin.lon, 6) << "," << fixed(s.origin.lat, 6) << ")\n";
    if (run.footprint.batches > 1) {
        out << "streamed: " << run.footprint.batches << " batches of at most " << run.footprint.peakSceneTiles
            << " tiles; at most " << run.footprint.peakRasterTiles << " tiles rasterized and "
            << run.footprint.peakInstances << " instances held at once";
        if (run.footprint.peakGlbHeldBytes > 0) {
            out << "; scene.glb written a batch at a time, at most " << fixed(run.footprint.peakGlbHeldBytes / 1e6, 1)
                << " MB of it in memory";
        }
        out << "\n";
    }
    out << "passes:\n";
    for (const placement::PassReport& p : s.passes) {
        out << "  " << std::left << std::setw(14) << p.name << std::right << std::setw(12)
            << placement::passKindName(p.kind) << std::setw(7) << p.tilesRun << " tiles " << std::setw(9)
            << fixed(p.milliseconds, 1) << " ms\n";
    }
    if (s.terrain) {
        out << "terrain: origin height " << fixed(s.originHeight, 2) << " m; heights "
            << (s.minHeight == s.minHeight ? fixed(s.minHeight, 2) + " .. " + fixed(s.maxHeight, 2) + " m"
                                           : std::string("none"))
            << " above the DEM's datum; "
            << (s.cellsWithHeight > 0 ? fixed(100.0 * double(s.steepCells) / double(s.cellsWithHeight), 1) + " %"
                                      : std::string("none"))
            << " of the cells steeper than " << fixed(SceneStatistics::kSteepDegrees, 0) << "°\n";
    }
    out << "buildings: " << s.placed << " placed, " << s.generated << " generated, " << s.blocked << " blocked, "
        << s.unmatched << " with no model that fits";
    if (s.terrain) out << ", " << s.blockedBySlope << " blocked by slope";
    out << "\n";
    const auto share = [](std::uint64_t part, std::uint64_t whole) {
        return fixed(whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0, 1);
    };
    out << "footprints: " << s.footprintCellsCovered << " of " << s.footprintCells << " cells covered ("
        << share(s.footprintCellsCovered, s.footprintCells) << " %); " << s.placedCellsOutside << " of "
        << s.placedCells << " placed cells outside them (" << share(s.placedCellsOutside, s.placedCells) << " %)\n";
    out << "instances: " << s.instances << " in " << s.blocks << " blocks of " << command.blockCells << "×"
        << command.blockCells << " cells\n";
    for (const auto& [asset, n] : s.perAsset) {
        out << "  " << std::left << std::setw(20) << asset << std::right << std::setw(9) << n << '\n';
    }
    out << "vegetation: " << s.vegetationInstances << " plants on " << s.vegetationCells << " plantable cells, density "
        << fixed(s.achievedDensity, 4) << " (requested " << fixed(s.requestedDensity, 4) << ")\n";
    out << "surfaces: " << s.patches << " patches, " << s.rects << " rectangles\n";
    // One line per format: a whole city's layers are thousands of files.
    out << "wrote:\n";
    for (const ExportFormat format : command.formats) {
        std::size_t files = 0;
        std::uint64_t bytes = 0;
        const ExportedFile* first = nullptr;
        for (const ExportedFile& f : s.files) {
            if (f.format != format) continue;
            ++files;
            bytes += f.bytes;
            if (!first) first = &f;
        }
        if (files == 0) continue;
        out << "  " << std::left << std::setw(10) << exportFormatName(format) << std::right;
        if (files == 1 || format == ExportFormat::Manifest) {  // manifest.json, and instances.bin when binary
            for (const ExportedFile& f : s.files) {
                if (f.format != format) continue;
                if (&f != first) out << std::string(12, ' ');
                out << (command.outDir / f.path).string() << " (" << f.bytes << " bytes)\n";
            }
        } else if (!first->path.has_parent_path()) {  // scene.osgb, and its groups' files in scene/
            const ExportedFile* second = std::find_if(first + 1, s.files.data() + s.files.size(),
                                                      [&](const ExportedFile& f) { return f.format == format; });
            out << (command.outDir / first->path).string() << " and " << files - 1 << " files in "
                << (command.outDir / *second->path.begin()).string() << " (" << bytes << " bytes)\n";
        } else {
            out << files << " files in " << (command.outDir / *first->path.begin()).string() << " (" << bytes
                << " bytes)\n";
        }
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    out << "time: read " << fixed(m.readMs, 0) << " ms, rasterize " << fixed(m.rasterizeMs, 0) << " ms, bake "
        << fixed(s.bakeMs, 0) << " ms, write " << fixed(run.writeMs, 0) << " ms";
    if (run.footprint.batches > 1) out << ", join " << fixed(run.joinMs, 0) << " ms";
    out << ", total " << fixed(ms, 0) << " ms\n";
}

}  // namespace

int runBake(const BakeCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress) {
    const auto start = Clock::now();
    if (command.outDir.empty()) return fail(err, badArguments("--out: give a folder for the scene"), kBakeErrors);
    if (command.formats.empty()) return fail(err, badArguments("--format: give at least one format"), kBakeErrors);
    if (command.blockCells < 1 || command.blockCells > kTileCells) {
        return fail(err, badArguments("--block-cells: " + std::to_string(command.blockCells) + " is outside 1..256"),
                    kBakeErrors);
    }

    // Read, classify, rasterize: most of the time goes here (0 .. 0.5 of the progress, 0 .. 0.2
    // when streaming, which rasterizes later). The session checks rules, tiles and catalogue
    // before it reads the map.
    // Formats whose batches a merge joins into the whole bake's bytes (shard_merge.h), and the
    // GLB and osgb, written a batch at a time (GlbExportStream, SceneGraphStream).
    const bool streamable = std::all_of(command.formats.begin(), command.formats.end(), [&](ExportFormat f) {
        return f == ExportFormat::Manifest || f == ExportFormat::Tiles3d || f == ExportFormat::Layers ||
               f == ExportFormat::Collision || f == ExportFormat::Glb ||
               (f == ExportFormat::Osgb && command.sceneGraphStream);
    });
    const bool mayStream = command.batchTiles > 0 && streamable;
    pipeline::SessionInput input;
    input.map = command.input;
    input.tiles = command.selection;
    input.catalogueFile = command.catalogue;
    input.threads = command.threads;
    input.rasterize = !mayStream;
    input.dems = command.dems;
    auto opened = pipeline::Session::open(std::move(input), BakeRun::scaled(progress, 0.0, mayStream ? 0.2 : 0.5));
    if (!opened) return fail(err, opened.error(), kBakeErrors);
    pipeline::Session& session = **opened;
    const MapLayers& m = session.map();
    // The terrain's warnings come once the bake sampled its tiles (BakeRun::addTerrainWarnings).
    std::vector<std::string> warnings = m.map.warnings;
    warnings.insert(warnings.end(), m.classified.warnings.begin(), m.classified.warnings.end());
    if (m.index.tiles().empty()) {
        printWarnings(err, session.warnings());
        return fail(err,
                    Error{"nothing to bake: no tile of " + command.input.file.string() + " holds any layer at zoom " +
                          std::to_string(command.selection.zoom)},
                    kBakeErrors);
    }

    if (Status s = checkCollisionRegion(command, m.index.tiles()); !s) return fail(err, s.error(), kBakeErrors);

    BakeRun run(command, session, warnings, err);
    const int code = bakeAndWrite(run, session, mayStream, start, progress);
    if (code == kNoTiles) {
        out << run.shardLine;
        return kExitOk;
    }
    if (code != kExitOk) return code;
    if (command.footprint) *command.footprint = run.footprint;
    printSummary(out, command, run, m, start);
    return kExitOk;
}

}  // namespace terrabit::cli
