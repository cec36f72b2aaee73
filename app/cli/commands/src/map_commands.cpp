#include "terrabit/cli/map_commands.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>

#include "report_text_p.h"
#include "terrabit/core/export/output_file.h"
#include "terrabit/core/io/dem_reader.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/io/tile_writer.h"
#include "terrabit/core/pipeline/session.h"

namespace terrabit::cli {

using namespace core;
using namespace core::io;

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kWarningsShown = 20;

std::string hexColour(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

}  // namespace

void printWarnings(std::ostream& err, const std::vector<std::string>& warnings, const char* where) {
    const std::size_t shown = std::min(warnings.size(), kWarningsShown);
    for (std::size_t i = 0; i < shown; ++i) err << "warning: " << warnings[i] << '\n';
    if (warnings.size() > shown) {
        err << "warning: … and " << (warnings.size() - shown) << " more" << (where ? where : "") << '\n';
    }
}

// -- info -------------------------------------------------------------------------------------

namespace {

/// The coarsest view of `extent` that still shows it: the finest zoom at or below `zoom` at which
/// it spans at most this many tiles (a DEM is described over the map from a few tiles' samples).
constexpr std::size_t kDemSurveyTiles = 16;

/// Prints what `dem` is and what it holds over the map's `extent` (EPSG:3857; empty: the map
/// part is left out).
Status printDem(std::ostream& out, const DemReader& dem, const Box2& extent) {
    const DemInfo& d = dem.dems().front();
    out << "  " << d.path.string() << ": " << d.crsName << ", " << d.widthPixels << " × " << d.heightPixels
        << " pixels of " << fixed(d.pixelSizeGroundMetres, 2) << " m, nodata "
        << (d.nodata ? fixed(*d.nodata, 2) : std::string("none")) << ", " << d.holePixels << " pixels without a height"
        << (d.inpainted ? " (inpainted)" : "") << "\n";
    if (extent.empty()) return Status::success();
    int zoom = suggestedZoom(extent);
    auto tiles = tilesCovering(extent, zoom, kDemSurveyTiles);
    while (!tiles && zoom > 0) tiles = tilesCovering(extent, --zoom, kDemSurveyTiles);
    if (!tiles) return Status::success();
    float lo = terrain::kNoHeight, hi = terrain::kNoHeight;
    std::uint64_t inside = 0, reached = 0;
    Box2 where;
    terrain::HeightTile heights;
    for (const TileId& tile : *tiles) {
        if (auto sampled = dem.sample(tile, heights); !sampled) return sampled.error();
        for (int row = 0; row < terrain::kHeightSamples; ++row) {
            for (int column = 0; column < terrain::kHeightSamples; ++column) {
                const Vec2 at = terrain::sampleMercator(tile, row, column);
                if (!extent.contains(at)) continue;
                ++inside;
                if (!heights.hasHeight(row, column)) continue;
                ++reached;
                const float h = heights.at(row, column);
                lo = std::isnan(lo) ? h : std::min(lo, h);
                hi = std::isnan(hi) ? h : std::max(hi, h);
                where.extend(at);
            }
        }
    }
    out << "    over the map: ";
    if (reached == 0) {
        out << "no height (the DEM does not reach the map)\n";
        return Status::success();
    }
    const LonLat sw = mercatorToLonLat(where.min), ne = mercatorToLonLat(where.max);
    out << "heights " << fixed(lo, 1) << " .. " << fixed(hi, 1) << " m, reaching "
        << fixed(100.0 * static_cast<double>(reached) / static_cast<double>(inside), 1) << " % of it, within "
        << fixed(sw.lon, 6) << "," << fixed(sw.lat, 6) << " – " << fixed(ne.lon, 6) << "," << fixed(ne.lat, 6)
        << " (sampled at zoom " << zoom << ")\n";
    return Status::success();
}

}  // namespace

// Info reads and classifies through io::readClassifiedMap, the first two stages of the one map
// loader, not through a pipeline::Session: a Session always indexes the map at a zoom and
// rasterizes it to find the tiles with content, which info does not print. On a country-sized
// file that is minutes of work, and the default zoom's tile limit would refuse what info
// describes today.
int runInfo(const InfoCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress) {
    auto loaded = loadRules(command.input);
    if (!loaded) return fail(err, loaded.error());
    // The DEMs are opened before the map is read, as the Session opens them: a bad one costs no
    // wait. One reader each, so that each is described alone.
    std::vector<DemReader> dems;
    for (const std::filesystem::path& path : command.dems) {
        auto dem = DemReader::open({path});
        if (!dem) return fail(err, dem.error());
        dems.push_back(std::move(*dem));
    }
    auto read = readClassifiedMap(command.input, std::move(*loaded), progress);
    if (!read) return fail(err, read.error());
    const MapData& map = (*read)->map;
    const RuleSet& rules = (*read)->rules;
    const ClassifiedMap& classified = (*read)->classified;

    out << "file: " << map.source << " (" << map.format << ")\n";
    if (!map.extent.empty()) {
        const LonLat sw = mercatorToLonLat(map.extent.min);
        const LonLat ne = mercatorToLonLat(map.extent.max);
        const double scale = std::cos(mercatorToLonLat(map.extent.centre()).lat * 3.14159265358979323846 / 180.0);
        out << "extent: " << fixed(sw.lon, 6) << "," << fixed(sw.lat, 6) << " – " << fixed(ne.lon, 6) << ","
            << fixed(ne.lat, 6) << " (lon/lat W,S – E,N), about " << fixed(map.extent.width() * scale / 1000.0, 1)
            << " × " << fixed(map.extent.height() * scale / 1000.0, 1) << " km\n";
    }
    out << "source layers:\n";
    for (const SourceLayerInfo& l : map.layers) {
        out << "  " << std::left << std::setw(20) << l.name << std::right << std::setw(8) << l.featuresRead
            << " features  (" << l.geometryType;
        if (l.featuresSkipped) out << "; " << l.featuresSkipped << " skipped";
        out << ")\n";
    }
    out << "rules: " << rules.source() << "\n";
    out << "features per layer (id name count):\n";
    for (std::size_t id = 0; id < classified.layers.size(); ++id) {
        const LayerInfo& l = classified.layers[id];
        out << "  " << std::setw(3) << id << "  " << (l.parent >= 0 ? "  " : "") << std::left << std::setw(16) << l.name
            << std::right << std::setw(8) << classified.featureCounts[id] << "\n";
    }
    out << "unclassified features: " << classified.unclassified << " of " << map.features.size() << "\n";
    const int zoom = suggestedZoom(map.extent);
    const double lat = mercatorToLonLat(map.extent.centre()).lat;
    const auto tiles = tilesCovering(map.extent, zoom, std::size_t{1} << 22);
    out << "suggested zoom: " << zoom << " (a cell is " << fixed(metresPerCell(lat, zoom), 2) << " m on the ground";
    if (tiles) out << "; the extent spans " << tiles->size() << " tiles";
    out << ")\n";
    if (!dems.empty()) out << "dems:\n";
    for (const DemReader& dem : dems) {
        if (Status s = printDem(out, dem, map.extent); !s) return fail(err, s.error());
    }
    std::vector<std::string> warnings = map.warnings;
    warnings.insert(warnings.end(), classified.warnings.begin(), classified.warnings.end());
    out << "warnings: " << warnings.size() << "\n";
    printWarnings(err, warnings, nullptr);
    return kExitOk;
}

// -- tiles ------------------------------------------------------------------------------------

int runTiles(const TilesCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress) {
    pipeline::SessionInput input =
        pipeline::SessionInput::layersOnly(command.input, command.selection, command.threads);
    input.dems = command.dems;
    auto session = pipeline::Session::open(std::move(input), progress);
    if (!session) return fail(err, session.error());
    const MapLayers& m = (*session)->map();
    std::size_t count = 0;
    for (std::size_t s = 0; s < m.store.tiles().size(); ++s) {
        if (m.store.emptyAt(s)) continue;
        out << m.store.tiles()[s].quadkey() << '\n';
        ++count;
    }
    printWarnings(err, (*session)->warnings(), nullptr);
    err << count << " tiles with content at zoom " << command.selection.zoom << "\n";
    return kExitOk;
}

// -- rasterize --------------------------------------------------------------------------------

namespace {

/// `files` with the tile's heights written beside its layers (<quadkey>/height.tif): the DEMs'
/// own heights resampled onto the cell corners (the ground graded by roads and water is what
/// the bake's meshes and collision grid carry).
Result<TileFiles> withHeights(const pipeline::Session& session, const TileId& tile, const std::filesystem::path& outDir,
                              TileFiles files) {
    auto heights = session.rawHeightTile(tile);
    if (!heights) return heights.error();
    files.height = tile.quadkey() + "/height.tif";
    if (Status s = writeHeightTiff(**heights, outDir / files.height); !s) return s.error();
    return files;
}

/// Writes every tile's preview and layer GeoTIFFs on a few threads (GDAL datasets are
/// independent, and file creation, not encoding, is what costs here). The first failing tile's
/// error, in tile order.
Result<std::vector<TileFiles>> writeTiles(const pipeline::Session& session, const std::filesystem::path& outDir,
                                          int threadCount, const ProgressCallback& progress) {
    const MapLayers& m = session.map();
    const std::vector<TileId>& tiles = m.store.tiles();
    const std::vector<LayerInfo>& layers = m.classified.layers;
    std::vector<TileFiles> files(tiles.size());
    std::atomic<std::size_t> next{0}, done{0};
    std::mutex mutex;
    std::string firstError;
    std::size_t firstErrorSlot = tiles.size();
    int threads = threadCount > 0 ? threadCount : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::clamp(threads, 1, static_cast<int>(std::max<std::size_t>(tiles.size(), 1)));
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
        pool.emplace_back([&] {
            for (std::size_t s; (s = next.fetch_add(1)) < tiles.size();) {
                auto written = writeTile(m.store, s, layers, outDir);
                if (written && session.hasTerrain()) written = withHeights(session, tiles[s], outDir, *written);
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
    if (!firstError.empty()) return ioError(firstError);
    return files;
}

using Json = nlohmann::ordered_json;

/// A tile's heights in summary.json: its file, lowest and highest height (metres, null when it
/// has none) and the samples without a height.
Json heightSummary(const pipeline::Session& session, const TileId& tile, const std::string& file) {
    const auto heights = session.rawHeightTile(tile);  // sampled already: writeTiles wrote them
    Json j;
    j["file"] = file;
    j["min_m"] = nullptr;
    j["max_m"] = nullptr;
    if (!heights) return j;
    float lo = terrain::kNoHeight, hi = terrain::kNoHeight;
    for (const float h : (*heights)->heights) {
        if (std::isnan(h)) continue;
        lo = std::isnan(lo) ? h : std::min(lo, h);
        hi = std::isnan(hi) ? h : std::max(hi, h);
    }
    if (!std::isnan(lo)) {
        j["min_m"] = lo;
        j["max_m"] = hi;
    }
    j["no_height"] = (*heights)->noHeightCount();
    return j;
}

/// summary.json's "terrain": what sampling the DEMs filled, in all and per DEM (samples are
/// cell corners; Session::terrainWarnings says the same in words).
Json terrainSummary(const pipeline::TerrainReport& t) {
    Json j;
    j["tiles"] = t.tiles;
    j["filled_from_coarser"] = t.filledFromCoarser;
    j["inpainted"] = t.inpainted;
    j["absurd"] = t.absurd;
    j["no_height"] = t.noHeight;
    Json dems = Json::array();
    for (const pipeline::TerrainReport::PerDem& d : t.perDem) {
        dems.push_back({{"file", d.path.string()},
                        {"covered", d.covered},
                        {"supplied", d.supplied},
                        {"filled_from_coarser", d.filledFromCoarser},
                        {"inpainted", d.inpainted},
                        {"absurd", d.absurd}});
    }
    j["dems"] = std::move(dems);
    return j;
}

/// summary.json's per-tile list (each layer's cells, coverage and file) and per-layer list
/// (features, cells, coverage, area, tiles with content).
std::pair<Json, Json> tileAndLayerSummaries(const pipeline::Session& session, const std::vector<TileFiles>& files) {
    const MapLayers& m = session.map();
    const std::vector<TileId>& tiles = m.store.tiles();
    const std::vector<LayerInfo>& layers = m.classified.layers;
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
        if (!files[s].height.empty()) jt["height"] = heightSummary(session, tile, files[s].height);
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
    return {std::move(tileList), std::move(layerList)};
}

}  // namespace

int runRasterize(const RasterizeCommand& command, std::ostream& out, std::ostream& err,
                 const ProgressCallback& progress) {
    if (command.outDir.empty()) return fail(err, badArguments("--out: no output folder given"));
    const auto start = Clock::now();
    pipeline::SessionInput input =
        pipeline::SessionInput::layersOnly(command.input, command.selection, command.threads);
    input.dems = command.dems;
    auto session = pipeline::Session::open(std::move(input), progress);
    if (!session) return fail(err, session.error());
    const MapLayers& m = (*session)->map();
    const std::vector<TileId>& tiles = m.store.tiles();
    const std::vector<LayerInfo>& layers = m.classified.layers;

    std::error_code ec;
    std::filesystem::create_directories(command.outDir, ec);
    if (ec) {
        return fail(err, ioError(command.outDir.string() + ": cannot create the output folder (" + ec.message() + ")"));
    }

    auto t = Clock::now();
    auto files = writeTiles(**session, command.outDir, command.threads, progress);
    if (!files) return fail(err, files.error());
    const double writeMs = msSince(t);

    // The summary.
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

    auto [tileList, layerList] = tileAndLayerSummaries(**session, *files);
    summary["layers"] = std::move(layerList);
    summary["tiles"] = std::move(tileList);
    const std::vector<std::string> warnings = (*session)->warnings();
    summary["warnings"] = warnings;
    if ((*session)->hasTerrain()) summary["terrain"] = terrainSummary((*session)->terrainReport());
    summary["timings_ms"] = {{"read", m.readMs},           {"classify", m.classifyMs}, {"index", m.indexMs},
                             {"rasterize", m.rasterizeMs}, {"write", writeMs},         {"total", msSince(start)}};

    const std::filesystem::path summaryFile = command.outDir / "summary.json";
    if (Status s = writeFileAtomically(summaryFile, summary.dump(2) + "\n"); !s) return fail(err, s.error());

    printWarnings(err, warnings, " (all of them are in summary.json)");
    out << "rasterized " << tiles.size() << " tiles at zoom " << command.selection.zoom << " from "
        << m.map.features.size() << " features (" << m.map.format << ")\n";
    out << "wrote " << tiles.size() << " previews and " << tiles.size() * layers.size() << " GeoTIFF layers"
        << ((*session)->hasTerrain() ? " and " + std::to_string(tiles.size()) + " height grids" : "") << " to "
        << command.outDir.string() << "/<quadkey>/, summary: " << summaryFile.string() << "\n";
    return kExitOk;
}

}  // namespace terrabit::cli
