#include "terrabit/core/io/bake_command.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/core/scale/shard_record.h"

namespace terrabit::core::io {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kWarningsShown = 20;

std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

int failure(std::ostream& err, const std::string& message, int code) {
    err << "error: " << message << '\n';
    return code;
}

void printWarnings(std::ostream& err, const std::vector<std::string>& warnings) {
    const std::size_t shown = std::min(warnings.size(), kWarningsShown);
    for (std::size_t i = 0; i < shown; ++i) err << "warning: " << warnings[i] << '\n';
    if (warnings.size() > shown) err << "warning: … and " << (warnings.size() - shown) << " more\n";
}

}  // namespace

int runBake(const BakeCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress) {
    const auto start = Clock::now();
    if (!command.exporter)
        return failure(err, "bake: no exporter (a programming error in the caller)", kExitBadArguments);
    if (command.outDir.empty()) return failure(err, "--out: give a folder for the scene", kExitBadArguments);
    if (command.formats.empty()) return failure(err, "--format: give at least one format", kExitBadArguments);
    if (command.blockCells < 1 || command.blockCells > kTileCells) {
        return failure(err, "--block-cells: " + std::to_string(command.blockCells) + " is outside 1..256",
                       kExitBadArguments);
    }

    // Everything the user named is checked before the map is read: rules, tiles, catalogue.
    if (command.input.rules.empty()) {
        return failure(err, "no rules file: none was given (--rules) and resources/rules/default.yaml was not found",
                       kExitBadArguments);
    }
    std::ifstream rulesIn(command.input.rules, std::ios::binary);
    if (!rulesIn) return failure(err, command.input.rules.string() + ": cannot read the rules file", kExitBadArguments);
    std::ostringstream rulesText;
    rulesText << rulesIn.rdbuf();
    const std::string rulesDocument = rulesText.str();
    auto layerRules = RuleSet::parse(rulesDocument, command.input.rules.string());
    if (!layerRules) return failure(err, layerRules.message(), kExitBadArguments);
    auto passes =
        placement::PlacementRules::parse(rulesDocument, command.input.rules.string(), layerRules->layerInfos());
    if (!passes) return failure(err, passes.message(), kExitBadArguments);
    if (auto tiles = selectedTiles(command.selection); !tiles) return failure(err, tiles.message(), kExitBadArguments);
    if (command.catalogue.empty()) {
        return failure(err,
                       "no asset catalogue: none was given (--catalogue) and resources/assets/catalogue.yaml "
                       "was not found",
                       kExitBadArguments);
    }
    auto catalogue = AssetCatalogue::load(command.catalogue);
    if (!catalogue) return failure(err, catalogue.message(), kExitBadArguments);
    if (Status s = passes->checkCatalogue(*catalogue); !s) return failure(err, s.message(), kExitBadArguments);

    // Read, classify, rasterize: most of the time goes here (0 .. 0.5 of the progress).
    const auto half = [&progress](double from, double span) -> ProgressCallback {
        if (!progress) return {};
        return [&progress, from, span](double f, std::string_view stage) { return progress(from + span * f, stage); };
    };
    auto layers = buildMapLayers(command.input, command.selection, command.threads, half(0.0, 0.5));
    if (!layers) return failure(err, layers.message(), kExitNothingUsable);
    MapLayers& m = **layers;
    std::vector<std::string> warnings = m.map.warnings;
    warnings.insert(warnings.end(), m.classified.warnings.begin(), m.classified.warnings.end());
    if (m.index.tiles().empty()) {
        printWarnings(err, warnings);
        return failure(err,
                       "nothing to bake: no tile of " + command.input.file.string() + " holds any layer at zoom " +
                           std::to_string(command.selection.zoom),
                       kExitNothingUsable);
    }

    placement::SceneBaker baker(m.index, m.store, *catalogue);
    if (Status s = baker.setRules(std::move(*passes)); !s) return failure(err, s.message(), kExitBadArguments);
    placement::BakeOptions options;
    options.seed = command.seed;
    options.threads = command.threads;
    options.blockCells = command.blockCells;
    options.progress = half(0.5, 0.4);
    // A shard: its own tiles plus their halo, in the whole bake's frame (scale/shard_plan.h).
    const bool sharded = command.shard.count > 0;
    scale::ShardWork shard;
    if (sharded) {
        if (Status s = scale::removeShardRecord(command.outDir); !s)
            return failure(err, s.message(), kExitNothingUsable);
        shard = scale::shardWork(m.index, command.shard, baker.rules());
        if (shard.own.empty()) {
            Status s = scale::writeShardRecord(command.outDir, scale::makeShardRecord(command.shard, shard));
            if (!s) return failure(err, s.message(), kExitNothingUsable);
            out << "shard " << command.shard.text() << ": no tiles\n";
            return kExitOk;
        }
        options.tiles = shard.baked;
        options.sceneTiles = shard.own;
        options.origin = placement::sceneOrigin(m.index.tiles());
    }
    auto scene = baker.bake(options);
    if (!scene) return failure(err, scene.message(), kExitNothingUsable);
    warnings.insert(warnings.end(), baker.report().warnings.begin(), baker.report().warnings.end());

    ExportOptions exportOptions;
    exportOptions.formats = command.formats;
    exportOptions.outDir = command.outDir;
    exportOptions.plainNodes = command.plainNodes;
    exportOptions.rulesDocument = rulesDocument;
    exportOptions.layerStyles = m.rules.layerInfos();
    // What placement made is exported as layers too (for previews and collision).
    for (const auto& [name, colour] : {std::pair{placement::kPlacedBuildingsLayer, Rgb{120, 40, 30}},
                                       std::pair{placement::kPlacedVegetationLayer, Rgb{20, 90, 20}}}) {
        LayerInfo info;
        info.name = std::string(name);
        info.colour = colour;
        exportOptions.layerStyles.push_back(std::move(info));
    }
    auto report = command.exporter(*scene, exportOptions, *catalogue, &baker.layers(), half(0.9, 0.1));
    printWarnings(err, warnings);
    if (!report) return failure(err, report.message(), kExitNothingUsable);

    if (sharded) {
        scale::ShardRecord record = scale::makeShardRecord(command.shard, shard);
        record.tallies = scene->vegetationTallies;
        for (const ExportedFile& f : report->files) record.files.push_back(f.path.generic_string());
        record.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (Status st = scale::writeShardRecord(command.outDir, record); !st) {
            return failure(err, st.message(), kExitNothingUsable);
        }
        out << "shard " << command.shard.text() << ": " << shard.own.size() << " tiles, " << shard.baked.size()
            << " baked with their halo\n";
    }
    const SceneStatistics& s = scene->statistics;
    out << "baked " << scene->tiles.size() << " tiles of " << m.map.source << " at zoom " << scene->frame.zoom
        << " (seed " << scene->seed << ", origin " << fixed(scene->frame.origin.lon, 6) << ","
        << fixed(scene->frame.origin.lat, 6) << ")\n";
    out << "passes:\n";
    for (const placement::PassReport& p : baker.report().passes) {
        out << "  " << std::left << std::setw(14) << p.name << std::right << std::setw(12)
            << placement::passKindName(p.kind) << std::setw(7) << p.tilesRun << " tiles " << std::setw(9)
            << fixed(p.milliseconds, 1) << " ms\n";
    }
    out << "buildings: " << s.buildingsPlaced << " placed, " << s.buildingsBlocked << " blocked, "
        << s.buildingsUnmatched << " with no model that fits\n";
    out << "instances: " << scene->instanceCount() << " in " << scene->blocks.size() << " blocks of "
        << scene->blockCells << "×" << scene->blockCells << " cells\n";
    for (std::size_t a = 0; a < scene->assets.size(); ++a) {
        out << "  " << std::left << std::setw(20) << scene->assets[a] << std::right << std::setw(9)
            << s.instancesPerAsset[a] << '\n';
    }
    out << "vegetation: " << s.vegetationInstances << " plants on " << s.vegetationCellsRequested
        << " plantable cells, density " << fixed(s.achievedDensity, 4) << " (requested " << fixed(s.requestedDensity, 4)
        << ")\n";
    std::size_t rects = 0;
    for (const SurfacePatch& p : scene->surfaces) rects += p.rects.size();
    out << "surfaces: " << scene->surfaces.size() << " patches, " << rects << " rectangles\n";
    // One line per format: a whole city's layers are thousands of files.
    out << "wrote:\n";
    for (const ExportFormat format : command.formats) {
        std::size_t files = 0;
        const ExportedFile* first = nullptr;
        for (const ExportedFile& f : report->files) {
            if (f.format != format) continue;
            ++files;
            if (!first) first = &f;
        }
        if (files == 0) continue;
        const std::uint64_t bytes = report->bytesOf(format);
        out << "  " << std::left << std::setw(10) << exportFormatName(format) << std::right;
        if (files == 1) {
            out << (command.outDir / first->path).string() << " (" << bytes << " bytes)\n";
        } else {
            out << files << " files in " << (command.outDir / *first->path.begin()).string() << " (" << bytes
                << " bytes)\n";
        }
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    out << "time: read " << fixed(m.readMs, 0) << " ms, rasterize " << fixed(m.rasterizeMs, 0) << " ms, bake "
        << fixed(baker.report().milliseconds, 0) << " ms, total " << fixed(ms, 0) << " ms\n";
    return kExitOk;
}

}  // namespace terrabit::core::io
