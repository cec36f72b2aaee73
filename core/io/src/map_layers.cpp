#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/text_file.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>

#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/tiling/rasterize_some.h"
#include "terrabit/core/tiling/rasterize_tiles.h"

namespace terrabit::core::io {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

}  // namespace

Result<RulesDocument> readRulesDocument(const MapInput& input) {
    if (!input.rulesText.empty())
        return RulesDocument{input.rulesText, input.rulesName.empty() ? "rules" : input.rulesName};
    if (input.rules.empty()) {
        return badArguments(
            "no rules file: none was given (--rules) and resources/rules/default.yaml was not found beside "
            "the executable");
    }
    auto text = readTextFile(input.rules, "rules file");
    if (!text) return withKind(text.error(), ErrorKind::BadArguments);
    return RulesDocument{std::move(*text), input.rules.string()};
}

Result<RuleSet> loadRules(const MapInput& input) {
    auto document = readRulesDocument(input);
    if (!document) return document.error();
    auto rules = RuleSet::parse(document->text, document->name);
    if (!rules) return withKind(rules.error(), ErrorKind::BadArguments);
    return rules;
}

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
        return badArguments("zoom " + std::to_string(selection.zoom) + " is outside 0.." + std::to_string(kMaxZoom));
    }
    for (const std::string& key : selection.quadkeys) {
        auto tile = TileId::fromQuadkey(key);
        if (!tile) return badArguments("--tiles: " + tile.message());
        if (tile->zoom > selection.zoom) {
            return badArguments("--tiles: quadkey '" + key + "' is at zoom " + std::to_string(tile->zoom) +
                                ", deeper than --zoom " + std::to_string(selection.zoom));
        }
        const int levels = selection.zoom - tile->zoom;
        const std::uint64_t side = std::uint64_t{1} << levels;
        if (side * side > selection.maxTiles || tiles.size() + side * side > selection.maxTiles) {
            return badArguments("--tiles: quadkey '" + key + "' stands for " + std::to_string(side * side) +
                                " tiles at zoom " + std::to_string(selection.zoom) + ", more than the limit of " +
                                std::to_string(selection.maxTiles));
        }
        for (std::uint64_t dy = 0; dy < side; ++dy) {
            for (std::uint64_t dx = 0; dx < side; ++dx) {
                tiles.push_back(TileId{selection.zoom,
                                       static_cast<std::uint32_t>((std::uint64_t(tile->x) << levels) + dx),
                                       static_cast<std::uint32_t>((std::uint64_t(tile->y) << levels) + dy)});
            }
        }
    }
    if (selection.hasBbox()) {
        const Box2& b = selection.bboxLonLat;
        const std::string text =
            fixed(b.min.x, 6) + "," + fixed(b.min.y, 6) + "," + fixed(b.max.x, 6) + "," + fixed(b.max.y, 6);
        const auto within = [](double v, double limit) { return v >= -limit && v <= limit; };  // NaN: no
        if (!(within(b.min.x, 180.0) && within(b.max.x, 180.0) && within(b.min.y, 90.0) && within(b.max.y, 90.0))) {
            return badArguments("--bbox: " + text + " is not a longitude/latitude box (W,S,E,N in degrees)");
        }
        if (b.min.x > b.max.x || b.min.y > b.max.y) {
            return badArguments("--bbox: " + text + " has its west east of its east or its south north of its north " +
                                "(the order is W,S,E,N)");
        }
        Box2 mercator;
        mercator.extend(lonLatToMercator({b.min.x, b.min.y}));
        mercator.extend(lonLatToMercator({b.max.x, b.max.y}));
        auto covered = tilesCovering(mercator, selection.zoom, selection.maxTiles);
        if (!covered) return badArguments("--bbox: " + covered.message());
        tiles.insert(tiles.end(), covered->begin(), covered->end());
    }
    return sortedNorthToSouth(std::move(tiles));
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
            return cancelled("cancelled while rasterizing (" + std::to_string(from) + " of " +
                             std::to_string(all.size()) + " tiles done)");
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

/// The map read into m.map and classified by m.rules into m.classified, timed.
Status readAndClassify(const MapInput& input, MapLayers& m, const ProgressCallback& progress) {
    auto t = Clock::now();
    ReadOptions read;
    read.openOptions = input.openOptions;
    read.allowPartial = input.allowPartial;
    read.progress = progress;
    auto map = readMap(input.file, read);
    if (!map) return map.error();
    m.map = std::move(*map);
    m.readMs = msSince(t);

    t = Clock::now();
    m.classified = classify(m.map, m.rules);
    m.classifyMs = msSince(t);
    return Status::success();
}

/// buildMapLayers; without `keepStore`, readMapIndex. Rules and selection errors are bad
/// arguments, reading errors bad input.
Result<std::unique_ptr<MapLayers>> build(const MapInput& input, RuleSet rules, const TileSelection& selection,
                                         int threads, const ProgressCallback& progress, bool keepStore) {
    auto layers = std::make_unique<MapLayers>();
    MapLayers& m = *layers;
    m.rules = std::move(rules);
    auto tiles = selectedTiles(selection);
    if (!tiles) return tiles.error();
    const bool explicitTiles = !selection.quadkeys.empty() || selection.hasBbox();
    if (explicitTiles && tiles->empty()) return badArguments("the selection names no tiles");

    if (Status s = readAndClassify(input, m, progress); !s) return s.error();

    auto t = Clock::now();
    auto index = TileIndex::build(m.classified, selection.zoom, *tiles, selection.maxTiles);
    if (!index) return withKind(index.error(), ErrorKind::BadArguments);  // too many tiles for the zoom asked for
    m.index = std::move(*index);
    m.indexMs = msSince(t);
    if (explicitTiles) {
        // Tiles named beside the map (a quadkey of another town, a box off its coast) bake to an
        // empty scene: say so rather than write it quietly.
        bool any = false;
        for (std::size_t slot = 0; slot < m.index.tiles().size() && !any; ++slot) any = !m.index.entries(slot).empty();
        if (!any) {
            m.map.warnings.push_back(
                "none of the " + std::to_string(m.index.tiles().size()) +
                " selected tiles holds anything of the map: check --tiles or --bbox (`terrabit-cli "
                "tiles` lists the map's tiles)");
        }
    }

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

Result<std::unique_ptr<MapLayers>> buildMapLayers(const MapInput& input, RuleSet rules, const TileSelection& selection,
                                                  int threads, const ProgressCallback& progress) {
    return build(input, std::move(rules), selection, threads, progress, true);
}

Result<std::unique_ptr<MapLayers>> readMapIndex(const MapInput& input, RuleSet rules, const TileSelection& selection,
                                                int threads, const ProgressCallback& progress) {
    return build(input, std::move(rules), selection, threads, progress, false);
}

Result<std::unique_ptr<MapLayers>> buildMapLayers(const MapInput& input, const TileSelection& selection, int threads,
                                                  const ProgressCallback& progress) {
    auto rules = loadRules(input);
    if (!rules) return rules.error();
    return buildMapLayers(input, std::move(*rules), selection, threads, progress);
}

Result<std::unique_ptr<MapLayers>> readClassifiedMap(const MapInput& input, RuleSet rules,
                                                     const ProgressCallback& progress) {
    auto layers = std::make_unique<MapLayers>();
    layers->rules = std::move(rules);
    if (Status s = readAndClassify(input, *layers, progress); !s) return s.error();
    return layers;
}

Result<std::unique_ptr<MapLayers>> readMapIndex(const MapInput& input, const TileSelection& selection, int threads,
                                                const ProgressCallback& progress) {
    auto rules = loadRules(input);
    if (!rules) return rules.error();
    return readMapIndex(input, std::move(*rules), selection, threads, progress);
}

}  // namespace terrabit::core::io
