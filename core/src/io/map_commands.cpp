#include "terrabit/core/io/map_commands.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/io/rasterize_some.h"
#include "terrabit/core/io/tile_writer.h"
#include "terrabit/core/tiling/rasterize_tiles.h"

namespace terrabit::core::io {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

constexpr std::size_t kWarningsShown = 20;

void printWarnings(std::ostream& err, const std::vector<std::string>& warnings, const char* where) {
    const std::size_t shown = std::min(warnings.size(), kWarningsShown);
    for (std::size_t i = 0; i < shown; ++i) err << "warning: " << warnings[i] << '\n';
    if (warnings.size() > shown) {
        err << "warning: … and " << (warnings.size() - shown) << " more" << (where ? where : "") << '\n';
    }
}

std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

std::string hexColour(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

Result<RuleSet> loadRules(const MapInput& input) {
    if (input.rules.empty()) {
        return Error{
            "no rules file: none was given (--rules) and resources/rules/default.yaml was not found beside "
            "the executable"};
    }
    return RuleSet::load(input.rules);
}

/// All warnings of a pipeline run, reading first.
std::vector<std::string> allWarnings(const MapLayers& m) {
    std::vector<std::string> w = m.map.warnings;
    w.insert(w.end(), m.classified.warnings.begin(), m.classified.warnings.end());
    return w;
}

/// Exit code for a failed pipeline: bad rules or tiles are the user's arguments; the rest is
/// about the data.
int failure(std::ostream& err, const Error& e, bool arguments) {
    err << "error: " << e.message << '\n';
    return arguments ? kExitBadArguments : kExitNothingUsable;
}

}  // namespace

int suggestedZoom(const Box2& extent) {
    if (extent.empty() || !isFinite(extent.min) || !isFinite(extent.max)) return 17;
    const double latitude = mercatorToLonLat(extent.centre()).lat;
    int best = 0;
    double bestError = 1e300;
    for (int z = 0; z <= 20; ++z) {
        const double error = std::fabs(std::log(metresPerCell(latitude, z)));  // distance from 1 m, in ratio
        if (error < bestError) {
            bestError = error;
            best = z;
        }
    }
    while (best > 0) {
        const auto tiles = tilesCovering(extent, best, 4096);
        if (tiles) break;
        --best;
    }
    return best;
}

Result<std::vector<TileId>> selectedTiles(const TileSelection& selection) {
    std::vector<TileId> tiles;
    if (selection.zoom < 0 || selection.zoom > kMaxZoom) {
        return Error{"zoom " + std::to_string(selection.zoom) + " is outside 0.." + std::to_string(kMaxZoom)};
    }
    for (const std::string& key : selection.quadkeys) {
        auto tile = TileId::fromQuadkey(key);
        if (!tile) return Error{"--tiles: " + tile.message()};
        if (tile->zoom > selection.zoom) {
            return Error{"--tiles: quadkey '" + key + "' is at zoom " + std::to_string(tile->zoom) +
                         ", deeper than --zoom " + std::to_string(selection.zoom)};
        }
        const int levels = selection.zoom - tile->zoom;
        const std::uint64_t side = std::uint64_t{1} << levels;
        if (side * side > selection.maxTiles || tiles.size() + side * side > selection.maxTiles) {
            return Error{"--tiles: quadkey '" + key + "' stands for " + std::to_string(side * side) +
                         " tiles at zoom " + std::to_string(selection.zoom) + ", more than the limit of " +
                         std::to_string(selection.maxTiles)};
        }
        for (std::uint64_t dy = 0; dy < side; ++dy) {
            for (std::uint64_t dx = 0; dx < side; ++dx) {
                tiles.push_back(TileId{selection.zoom,
                                       static_cast<std::uint32_t>((std::uint64_t(tile->x) << levels) + dx),
                                       static_cast<std::uint32_t>((std::uint64_t(tile->y) << levels) + dy)});
            }
        }
    }
    if (!selection.bboxLonLat.empty()) {
        const Box2& b = selection.bboxLonLat;
        if (b.min.x < -180.0 || b.max.x > 180.0 || b.min.y < -90.0 || b.max.y > 90.0) {
            return Error{"--bbox: " + fixed(b.min.x, 6) + "," + fixed(b.min.y, 6) + "," + fixed(b.max.x, 6) + "," +
                         fixed(b.max.y, 6) + " is not a longitude/latitude box (W,S,E,N in degrees)"};
        }
        Box2 mercator;
        mercator.extend(lonLatToMercator({b.min.x, b.min.y}));
        mercator.extend(lonLatToMercator({b.max.x, b.max.y}));
        auto covered = tilesCovering(mercator, selection.zoom, selection.maxTiles);
        if (!covered) return Error{"--bbox: " + covered.message()};
        tiles.insert(tiles.end(), covered->begin(), covered->end());
    }
    std::sort(tiles.begin(), tiles.end(),
              [](const TileId& a, const TileId& b) { return a.y < b.y || (a.y == b.y && a.x < b.x); });
    tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
    return tiles;
}

namespace {

/// Tiles read per round when only their content is wanted (readMapIndex): bounds what is held.
constexpr std::size_t kContentChunkTiles = 1024;

/// The tiles of `index` with a set cell in some layer, in the index's order, rasterized a chunk
/// at a time and dropped.
Result<std::vector<TileId>> contentTiles(const TileIndex& index, int threads, const ProgressCallback& progress) {
    const std::vector<TileId>& all = index.tiles();
    std::vector<TileId> content;
    for (std::size_t from = 0; from < all.size(); from += kContentChunkTiles) {
        if (!reportProgress(progress, static_cast<double>(from) / static_cast<double>(all.size()), "rasterizing")) {
            return Error{"cancelled while rasterizing (" + std::to_string(from) + " of " + std::to_string(all.size()) +
                         " tiles done)"};
        }
        const auto chunk = std::span(all).subspan(from, std::min(kContentChunkTiles, all.size() - from));
        auto store = rasterizeSome(index, chunk, threads);
        if (!store) return store.error();
        for (std::size_t s = 0; s < chunk.size(); ++s) {
            if (!store->emptyAt(s)) content.push_back(chunk[s]);
        }
    }
    return content;
}

/// buildMapLayers, also saying whether a failure lies in the arguments (rules, tiles) rather
/// than in the data, for the exit code; without `keepStore`, readMapIndex.
Result<std::unique_ptr<MapLayers>> build(const MapInput& input, const TileSelection& selection, int threads,
                                         const ProgressCallback& progress, bool& argumentError, bool keepStore = true) {
    auto layers = std::make_unique<MapLayers>();
    MapLayers& m = *layers;

    argumentError = true;
    auto rules = loadRules(input);
    if (!rules) return rules.error();
    m.rules = std::move(*rules);
    auto tiles = selectedTiles(selection);
    if (!tiles) return tiles.error();
    const bool explicitTiles = !selection.quadkeys.empty() || !selection.bboxLonLat.empty();
    if (explicitTiles && tiles->empty()) return Error{"the selection names no tiles"};
    argumentError = false;

    auto t = Clock::now();
    ReadOptions read;
    read.openOptions = input.openOptions;
    read.progress = progress;
    auto map = readMap(input.file, read);
    if (!map) return map.error();
    m.map = std::move(*map);
    m.readMs = msSince(t);

    t = Clock::now();
    m.classified = classify(m.map, m.rules);
    m.classifyMs = msSince(t);

    t = Clock::now();
    auto index = TileIndex::build(m.classified, selection.zoom, *tiles, selection.maxTiles);
    if (!index) {
        argumentError = true;  // too many tiles for the zoom asked for
        return index.error();
    }
    m.index = std::move(*index);
    m.indexMs = msSince(t);

    if (!keepStore) {
        // Only the index: the tiles are rasterized again where they are needed, a batch at a time.
        if (explicitTiles) return layers;
        t = Clock::now();
        auto content = contentTiles(m.index, threads, progress);
        if (!content) return content.error();
        m.rasterizeMs = msSince(t);
        if (content->empty()) {
            m.index = TileIndex();  // an empty tile list would mean "every tile" to build()
        } else if (content->size() != m.index.tiles().size()) {
            t = Clock::now();
            auto again = TileIndex::build(m.classified, selection.zoom, *content, selection.maxTiles);
            if (!again) return again.error();
            m.index = std::move(*again);
            m.indexMs += msSince(t);
        }
        return layers;
    }

    t = Clock::now();
    RasterizeTilesOptions options;
    options.threads = threads;
    options.progress = progress;
    auto store = rasterizeTiles(m.index, options);
    if (!store) return store.error();
    m.rasterizeMs = msSince(t);

    if (!explicitTiles) {
        // Tiles found from feature bounds alone may hold nothing (a bounding box corner): keep
        // only tiles with content, and index them again so index and store agree slot by slot.
        std::vector<TileId> content;
        for (std::size_t s = 0; s < store->tiles().size(); ++s) {
            if (!store->emptyAt(s)) content.push_back(store->tiles()[s]);
        }
        if (content.size() != store->tiles().size()) {
            if (content.empty()) {
                m.index = TileIndex();
                m.store = LayerStore(m.rules.layerNames(), {});
                return layers;
            }
            t = Clock::now();
            auto again = TileIndex::build(m.classified, selection.zoom, content, selection.maxTiles);
            if (!again) return again.error();
            m.index = std::move(*again);
            m.indexMs += msSince(t);
            t = Clock::now();
            auto kept = rasterizeTiles(m.index, options);
            if (!kept) return kept.error();
            m.store = std::move(*kept);
            m.rasterizeMs += msSince(t);
            return layers;
        }
    }
    m.store = std::move(*store);
    return layers;
}

}  // namespace

Result<std::unique_ptr<MapLayers>> buildMapLayers(const MapInput& input, const TileSelection& selection, int threads,
                                                  const ProgressCallback& progress) {
    bool argumentError = false;
    return build(input, selection, threads, progress, argumentError);
}

Result<std::unique_ptr<MapLayers>> readMapIndex(const MapInput& input, const TileSelection& selection, int threads,
                                                const ProgressCallback& progress) {
    bool argumentError = false;
    return build(input, selection, threads, progress, argumentError, false);
}

// -- info -------------------------------------------------------------------------------------

int runInfo(const InfoCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress) {
    auto rules = loadRules(command.input);
    if (!rules) return failure(err, rules.error(), true);
    ReadOptions read;
    read.openOptions = command.input.openOptions;
    read.progress = progress;
    auto map = readMap(command.input.file, read);
    if (!map) return failure(err, map.error(), false);
    const ClassifiedMap classified = classify(*map, *rules);

    out << "file: " << map->source << " (" << map->format << ")\n";
    if (!map->extent.empty()) {
        const LonLat sw = mercatorToLonLat(map->extent.min);
        const LonLat ne = mercatorToLonLat(map->extent.max);
        const double scale = std::cos(mercatorToLonLat(map->extent.centre()).lat * 3.14159265358979323846 / 180.0);
        out << "extent: " << fixed(sw.lon, 6) << "," << fixed(sw.lat, 6) << " – " << fixed(ne.lon, 6) << ","
            << fixed(ne.lat, 6) << " (lon/lat W,S – E,N), about " << fixed(map->extent.width() * scale / 1000.0, 1)
            << " × " << fixed(map->extent.height() * scale / 1000.0, 1) << " km\n";
    }
    out << "source layers:\n";
    for (const SourceLayerInfo& l : map->layers) {
        out << "  " << std::left << std::setw(20) << l.name << std::right << std::setw(8) << l.featuresRead
            << " features  (" << l.geometryType;
        if (l.featuresSkipped) out << "; " << l.featuresSkipped << " skipped";
        out << ")\n";
    }
    out << "rules: " << rules->source() << "\n";
    out << "features per layer (id name count):\n";
    for (std::size_t id = 0; id < classified.layers.size(); ++id) {
        const LayerInfo& l = classified.layers[id];
        out << "  " << std::setw(3) << id << "  " << (l.parent >= 0 ? "  " : "") << std::left << std::setw(16) << l.name
            << std::right << std::setw(8) << classified.featureCounts[id] << "\n";
    }
    out << "unclassified features: " << classified.unclassified << " of " << map->features.size() << "\n";
    const int zoom = suggestedZoom(map->extent);
    const double lat = mercatorToLonLat(map->extent.centre()).lat;
    const auto tiles = tilesCovering(map->extent, zoom, std::size_t{1} << 22);
    out << "suggested zoom: " << zoom << " (a cell is " << fixed(metresPerCell(lat, zoom), 2) << " m on the ground";
    if (tiles) out << "; the extent spans " << tiles->size() << " tiles";
    out << ")\n";
    std::vector<std::string> warnings = map->warnings;
    warnings.insert(warnings.end(), classified.warnings.begin(), classified.warnings.end());
    out << "warnings: " << warnings.size() << "\n";
    printWarnings(err, warnings, nullptr);
    return kExitOk;
}

// -- tiles ------------------------------------------------------------------------------------

int runTiles(const TilesCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress) {
    bool argumentError = false;
    auto layers = build(command.input, command.selection, command.threads, progress, argumentError);
    if (!layers) return failure(err, layers.error(), argumentError);
    const MapLayers& m = **layers;
    std::size_t count = 0;
    for (std::size_t s = 0; s < m.store.tiles().size(); ++s) {
        if (m.store.emptyAt(s)) continue;
        out << m.store.tiles()[s].quadkey() << '\n';
        ++count;
    }
    printWarnings(err, allWarnings(m), nullptr);
    err << count << " tiles with content at zoom " << command.selection.zoom << "\n";
    return kExitOk;
}

// -- rasterize --------------------------------------------------------------------------------

int runRasterize(const RasterizeCommand& command, std::ostream& out, std::ostream& err,
                 const ProgressCallback& progress) {
    if (command.outDir.empty()) return failure(err, Error{"--out: no output folder given"}, true);
    const auto start = Clock::now();
    bool argumentError = false;
    auto built = build(command.input, command.selection, command.threads, progress, argumentError);
    if (!built) return failure(err, built.error(), argumentError);
    const MapLayers& m = **built;
    const std::vector<TileId>& tiles = m.store.tiles();
    const std::vector<LayerInfo>& layers = m.classified.layers;

    std::error_code ec;
    std::filesystem::create_directories(command.outDir, ec);
    if (ec) {
        return failure(err, Error{command.outDir.string() + ": cannot create the output folder (" + ec.message() + ")"},
                       false);
    }

    // Write tiles on a few threads: GDAL datasets are independent, and file creation, not
    // encoding, is what costs here.
    auto t = Clock::now();
    std::vector<TileFiles> files(tiles.size());
    std::atomic<std::size_t> next{0}, done{0};
    std::mutex mutex;
    std::string firstError;
    std::size_t firstErrorSlot = tiles.size();
    int threads = command.threads > 0 ? command.threads : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::clamp(threads, 1, static_cast<int>(std::max<std::size_t>(tiles.size(), 1)));
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
        pool.emplace_back([&] {
            for (std::size_t s; (s = next.fetch_add(1)) < tiles.size();) {
                auto written = writeTile(m.store, s, layers, command.outDir);
                if (written) {
                    files[s] = std::move(*written);
                } else {
                    std::lock_guard lock(mutex);
                    if (s < firstErrorSlot) {
                        firstErrorSlot = s;
                        firstError = written.message();
                    }
                }
                done.fetch_add(1);
            }
        });
    }
    while (done.load() < tiles.size()) {
        (void)reportProgress(progress, static_cast<double>(done.load()) / static_cast<double>(tiles.size()), "writing");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (std::thread& th : pool) th.join();
    (void)reportProgress(progress, 1.0, "writing");
    if (!firstError.empty()) return failure(err, Error{firstError}, false);
    const double writeMs = msSince(t);

    // The summary.
    using Json = nlohmann::ordered_json;
    Json summary;
    summary["source"] = m.map.source;
    summary["format"] = m.map.format;
    if (m.map.format == "OSM" || m.map.format == "MVT" || m.map.format == "MBTiles") {
        summary["attribution"] = m.map.format == "OSM" ? "© OpenStreetMap contributors, ODbL 1.0"
                                                       : "© OpenStreetMap contributors, ODbL 1.0 (and the tile "
                                                         "provider's attribution)";
    }
    summary["rules"] = m.rules.source();
    summary["zoom"] = command.selection.zoom;
    if (!m.map.extent.empty()) {
        const LonLat sw = mercatorToLonLat(m.map.extent.min);
        const LonLat ne = mercatorToLonLat(m.map.extent.max);
        summary["extent_lonlat"] = {sw.lon, sw.lat, ne.lon, ne.lat};
    }
    summary["features"] = {{"read", m.map.features.size()}, {"unclassified", m.classified.unclassified}};

    std::vector<std::uint64_t> cells(layers.size(), 0);
    std::vector<std::size_t> tilesWith(layers.size(), 0);
    std::vector<double> areaM2(layers.size(), 0.0);
    Json tileList = Json::array();
    for (std::size_t s = 0; s < tiles.size(); ++s) {
        const TileId& tile = tiles[s];
        const Box2 ll = tile.boundsLonLat();
        const double mpc = metresPerCell(tile.boundsLonLat().centre().y, tile.zoom);
        Json jt;
        jt["quadkey"] = tile.quadkey();
        jt["z"] = tile.zoom;
        jt["x"] = tile.x;
        jt["y"] = tile.y;
        jt["bounds_lonlat"] = {ll.min.x, ll.min.y, ll.max.x, ll.max.y};
        jt["preview"] = files[s].preview;
        Json jl;
        for (std::size_t l = 0; l < layers.size(); ++l) {
            const BitTile* bits = m.store.at(s, static_cast<int>(l));
            const int n = bits ? bits->count() : 0;
            cells[l] += static_cast<std::uint64_t>(n);
            areaM2[l] += n * mpc * mpc;
            if (n) ++tilesWith[l];
            jl[layers[l].name] = {{"cells", n},
                                  {"coverage", static_cast<double>(n) / (BitTile::kSize * BitTile::kSize)},
                                  {"file", files[s].layers[l]}};
        }
        jt["layers"] = std::move(jl);
        tileList.push_back(std::move(jt));
    }
    Json layerList = Json::array();
    const double totalCells = static_cast<double>(tiles.size()) * BitTile::kSize * BitTile::kSize;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        Json jl;
        jl["id"] = l;
        jl["name"] = layers[l].name;
        if (layers[l].parent >= 0) jl["class_of"] = layers[static_cast<std::size_t>(layers[l].parent)].name;
        if (!layers[l].classes.empty()) {
            Json classes = Json::array();
            for (int c : layers[l].classes) classes.push_back(layers[static_cast<std::size_t>(c)].name);
            jl["classes"] = std::move(classes);
        }
        jl["colour"] = hexColour(layers[l].colour);
        jl["coverage_rule"] = layers[l].coverage == Coverage::Conservative ? "conservative" : "centre";
        jl["features"] = m.classified.featureCounts[l];
        jl["cells"] = cells[l];
        jl["coverage"] = totalCells > 0 ? static_cast<double>(cells[l]) / totalCells : 0.0;
        jl["area_m2"] = std::round(areaM2[l]);
        jl["tiles_with_content"] = tilesWith[l];
        layerList.push_back(std::move(jl));
    }
    summary["layers"] = std::move(layerList);
    summary["tiles"] = std::move(tileList);
    const std::vector<std::string> warnings = allWarnings(m);
    summary["warnings"] = warnings;
    summary["timings_ms"] = {{"read", m.readMs},           {"classify", m.classifyMs}, {"index", m.indexMs},
                             {"rasterize", m.rasterizeMs}, {"write", writeMs},         {"total", msSince(start)}};

    const std::filesystem::path summaryFile = command.outDir / "summary.json";
    if (Status s = writeFileAtomically(summaryFile, summary.dump(2) + "\n"); !s) return failure(err, s.error(), false);

    printWarnings(err, warnings, " (all of them are in summary.json)");
    out << "rasterized " << tiles.size() << " tiles at zoom " << command.selection.zoom << " from "
        << m.map.features.size() << " features (" << m.map.format << ")\n";
    out << "wrote " << tiles.size() << " previews and " << tiles.size() * layers.size() << " GeoTIFF layers to "
        << command.outDir.string() << "/<quadkey>/, summary: " << summaryFile.string() << "\n";
    return kExitOk;
}

}  // namespace terrabit::core::io
