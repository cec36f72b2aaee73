#include "terrabit/core/tiling/tile_index.h"

#include <algorithm>
#include <cmath>

namespace terrabit::core {

namespace {

/// The range of tiles, inclusive, that a box in global cell coordinates touches.
struct TileRange {
    std::int64_t x0, y0, x1, y1;
    std::uint64_t count() const {
        return x1 < x0 || y1 < y0 ? 0 : std::uint64_t(x1 - x0 + 1) * std::uint64_t(y1 - y0 + 1);
    }
};

TileRange rangeOf(const Box2& cells, int zoom) {
    const std::int64_t last = (std::int64_t{1} << zoom) - 1;
    auto tile = [last](double c) {
        return std::clamp(static_cast<std::int64_t>(std::floor(c / kTileCells)), std::int64_t{0}, last);
    };
    return {tile(cells.min.x), tile(cells.min.y), tile(cells.max.x), tile(cells.max.y)};
}

/// The place of a point's tile on a Morton (Z-order) curve: tiles near each other on the map
/// mostly get keys near each other.
std::uint64_t mortonKey(Vec2 cell) {
    auto spread = [](double c) {
        const double t = c / kTileCells;  // a NaN (a feature without bounds) goes to 0
        std::uint64_t v = t > 0.0 ? static_cast<std::uint64_t>(std::min(t, 4294967295.0)) : 0;
        v = (v | v << 16) & 0x0000ffff0000ffffULL;
        v = (v | v << 8) & 0x00ff00ff00ff00ffULL;
        v = (v | v << 4) & 0x0f0f0f0f0f0f0f0fULL;
        v = (v | v << 2) & 0x3333333333333333ULL;
        v = (v | v << 1) & 0x5555555555555555ULL;
        return v;
    };
    return spread(cell.x) | spread(cell.y) << 1;
}

/// Web Mercator metres to global cells at one zoom.
struct CellFrame {
    double cellSize = 1.0;  ///< metres per cell (Web Mercator)
    Vec2 operator()(Vec2 m) const {
        return Vec2{(m.x + kMercatorHalfWorld) / cellSize, (kMercatorHalfWorld - m.y) / cellSize};
    }
};

/// Where one feature's converted data lie in the index's arrays.
struct Converted {
    std::uint32_t cells, parts, chunks, chunkCount;
};

/// The runs of consecutive entries of one feature (the classifier gives a feature's entries one
/// after another), so each run is converted once; a feature met again later is just converted
/// again.
struct FeatureRuns {
    std::vector<std::uint32_t> runOf;  ///< per entry: its run
    std::vector<std::size_t> first;    ///< per run: its first entry
    std::size_t totalPoints = 0, totalParts = 0;
};

FeatureRuns featureRuns(const ClassifiedMap& map) {
    FeatureRuns runs;
    const std::size_t entryCount = map.entries.size();
    runs.runOf.resize(entryCount);
    for (std::size_t e = 0; e < entryCount; ++e) {
        if (e == 0 || map.entries[e].feature != map.entries[e - 1].feature) {
            runs.first.push_back(e);
            runs.totalPoints += map.entries[e].feature->points.size();
            runs.totalParts += map.entries[e].feature->partEnds.size();
        }
        runs.runOf[e] = static_cast<std::uint32_t>(runs.first.size() - 1);
    }
    return runs;
}

/// Appends the bounds of each run of kRingChunk vertices of `f` (its vertices in global cells
/// are `cells`), ring by ring, in the order TileRasterizer walks them.
void appendChunks(const Feature& f, std::span<const Vec2> cells, std::vector<Box2>& chunks) {
    std::uint32_t begin = 0;
    for (const std::uint32_t end : f.partEnds) {
        for (std::uint32_t v0 = begin; v0 < end; v0 += kRingChunk) {
            const std::uint32_t last = std::min(end, v0 + kRingChunk);
            Box2 box{cells[v0], cells[v0]};
            for (std::uint32_t v = v0 + 1; v < last; ++v) {
                const Vec2 p = cells[v];
                box.min = {std::min(box.min.x, p.x), std::min(box.min.y, p.y)};
                box.max = {std::max(box.max.x, p.x), std::max(box.max.y, p.y)};
            }
            chunks.push_back(box);
        }
        begin = end;
    }
}

/// Converts every feature's vertices to global cells, once however many layers it is drawn
/// into, features in Morton order of their centre so that a tile's features are neighbours in
/// memory (file order scatters them over the whole map). Returns where each run's data lie.
std::vector<Converted> convertFeatures(const ClassifiedMap& map, const FeatureRuns& runs, CellFrame toCell,
                                       std::vector<Vec2>& cells, std::vector<std::uint32_t>& partEnds,
                                       std::vector<Box2>& chunks) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> order(runs.first.size());
    for (std::size_t r = 0; r < runs.first.size(); ++r) {
        order[r] = {mortonKey(toCell(map.entries[runs.first[r]].feature->bounds.centre())),
                    static_cast<std::uint32_t>(r)};
    }
    std::sort(order.begin(), order.end());  // ties keep the map's order
    std::vector<Converted> converted(runs.first.size());
    cells.reserve(runs.totalPoints);
    partEnds.reserve(runs.totalParts);
    for (const auto& [key, run] : order) {
        const Feature& f = *map.entries[runs.first[run]].feature;
        Converted c{static_cast<std::uint32_t>(cells.size()), static_cast<std::uint32_t>(partEnds.size()),
                    static_cast<std::uint32_t>(chunks.size()), 0};
        for (const Vec2& p : f.points) cells.push_back(toCell(p));
        partEnds.insert(partEnds.end(), f.partEnds.begin(), f.partEnds.end());
        if (f.kind == FeatureKind::Area && f.points.size() >= kChunkedFeatureVertices) {
            appendChunks(f, std::span<const Vec2>(cells).subspan(c.cells), chunks);
            c.chunkCount = static_cast<std::uint32_t>(chunks.size()) - c.chunks;
        }
        converted[run] = c;
    }
    return converted;
}

/// Per entry: what a tile needs of it, its width in cells and its reach.
std::vector<TileIndex::EntryInfo> makeEntryInfos(const ClassifiedMap& map, int zoom, CellFrame toCell,
                                                 const FeatureRuns& runs, std::span<const Converted> converted) {
    std::vector<TileIndex::EntryInfo> infos;
    infos.reserve(map.entries.size());
    for (std::size_t k = 0; k < map.entries.size(); ++k) {
        const LayerEntry& e = map.entries[k];
        const Feature& f = *e.feature;
        const Converted& c = converted[runs.runOf[k]];
        TileIndex::EntryInfo info;
        info.cellsBegin = c.cells;
        info.cellsCount = static_cast<std::uint32_t>(f.points.size());
        info.partsBegin = c.parts;
        info.partsCount = static_cast<std::uint32_t>(f.partEnds.size());
        info.chunksBegin = c.chunks;
        info.chunksCount = c.chunkCount;
        info.kind = f.kind;
        info.layer = e.layer;
        info.entry = static_cast<std::uint32_t>(infos.size());

        const double latitude = mercatorToLonLat(f.bounds.centre()).lat;
        const double metresPerCellHere = metresPerCell(latitude, zoom);
        if (f.kind == FeatureKind::Line) info.sizeCells = 0.5 * e.sizeMetres / metresPerCellHere;
        if (f.kind == FeatureKind::Point) info.sizeCells = e.sizeMetres / metresPerCellHere;

        const double grow = info.sizeCells + kClipMarginCells;
        const Vec2 nw = toCell({f.bounds.min.x, f.bounds.max.y});
        const Vec2 se = toCell({f.bounds.max.x, f.bounds.min.y});
        info.reach = Box2{{nw.x - grow, nw.y - grow}, {se.x + grow, se.y + grow}};
        infos.push_back(info);
    }
    return infos;
}

/// The tile set given: every tile at `zoom`, each once, sorted north to south.
Result<std::vector<TileId>> givenTiles(std::span<const TileId> tiles, int zoom) {
    for (const TileId& t : tiles) {
        if (t.zoom != zoom) {
            return Error{"tile " + t.quadkey() + " is at zoom " + std::to_string(t.zoom) + ", not " +
                         std::to_string(zoom)};
        }
    }
    std::vector<TileId> out(tiles.begin(), tiles.end());
    std::sort(out.begin(), out.end(), northToSouth);
    const auto dup = std::adjacent_find(out.begin(), out.end());
    if (dup != out.end()) return Error{"tile " + dup->quadkey() + " is listed twice"};
    return out;
}

/// The tile set no one gave: every tile some entry reaches, sorted north to south.
Result<std::vector<TileId>> reachedTiles(const ClassifiedMap& map, std::span<const TileIndex::EntryInfo> infos,
                                         int zoom, std::size_t maxTiles) {
    std::uint64_t total = 0;
    for (const TileIndex::EntryInfo& info : infos) total += rangeOf(info.reach, zoom).count();
    std::vector<TileId> all;
    all.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(total, maxTiles + 1)));
    for (std::size_t e = 0; e < infos.size(); ++e) {
        const TileRange r = rangeOf(infos[e].reach, zoom);
        if (r.count() > maxTiles) {
            return Error{"feature " + map.entries[e].feature->id + " spans " + std::to_string(r.count()) +
                         " tiles at zoom " + std::to_string(zoom) + ", more than the limit of " +
                         std::to_string(maxTiles) + "; choose tiles or a lower zoom"};
        }
        for (std::int64_t y = r.y0; y <= r.y1; ++y) {
            for (std::int64_t x = r.x0; x <= r.x1; ++x) {
                all.push_back(TileId{zoom, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)});
            }
        }
        if (all.size() > 4 * maxTiles) {
            // Keep memory bounded on large maps: squeeze out duplicates as we go. Past the limit
            // already, the map is refused now: at a zoom far too fine, each of tens of thousands
            // of features stays under the limit alone and listing them all took minutes.
            std::sort(all.begin(), all.end(), northToSouth);
            all.erase(std::unique(all.begin(), all.end()), all.end());
            if (all.size() > maxTiles) {
                return Error{"the map needs at least " + std::to_string(all.size()) + " tiles at zoom " +
                             std::to_string(zoom) + ", more than the limit of " + std::to_string(maxTiles) +
                             "; choose tiles or a lower zoom"};
            }
        }
    }
    std::sort(all.begin(), all.end(), northToSouth);
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

/// Every (slot, entry) pair where the entry reaches the tile in the slot, entries ascending.
std::vector<std::pair<std::uint32_t, std::uint32_t>> slotEntryPairs(
    std::span<const TileIndex::EntryInfo> infos, int zoom, std::span<const TileId> tiles,
    const std::unordered_map<TileId, std::size_t>& slots) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::size_t e = 0; e < infos.size(); ++e) {
        const TileRange r = rangeOf(infos[e].reach, zoom);
        const auto entry = static_cast<std::uint32_t>(e);
        if (r.count() <= tiles.size()) {
            for (std::int64_t y = r.y0; y <= r.y1; ++y) {
                for (std::int64_t x = r.x0; x <= r.x1; ++x) {
                    const auto it =
                        slots.find(TileId{zoom, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)});
                    if (it != slots.end()) pairs.emplace_back(static_cast<std::uint32_t>(it->second), entry);
                }
            }
        } else {
            // A feature wider than the whole tile set (the sea): walk the tiles instead.
            for (std::size_t s = 0; s < tiles.size(); ++s) {
                const TileId& t = tiles[s];
                if (t.x >= r.x0 && t.x <= r.x1 && t.y >= r.y0 && t.y <= r.y1) {
                    pairs.emplace_back(static_cast<std::uint32_t>(s), entry);
                }
            }
        }
    }
    return pairs;
}

/// The per-slot entry lists (CSR: `first`, `entries`) and records (`slotInfo`, `infoAt`) of an
/// index with `slotCount` slots, from the (slot, entry) pairs, entries ascending; `infos` is per
/// entry.
void fillSlots(std::size_t slotCount, std::span<const std::pair<std::uint32_t, std::uint32_t>> pairs,
               std::span<const TileIndex::EntryInfo> infos, std::vector<std::size_t>& first,
               std::vector<std::uint32_t>& entries, std::vector<TileIndex::EntryInfo>& slotInfo,
               std::vector<std::size_t>& infoAt) {
    // A counting sort of the (slot, entry) pairs into per-slot lists. Entries come in order, so
    // each slot's list comes out ascending.
    first.assign(slotCount + 1, 0);
    for (const auto& [s, e] : pairs) ++first[s + 1];
    for (std::size_t s = 0; s < slotCount; ++s) first[s + 1] += first[s];
    entries.resize(pairs.size());
    std::vector<std::size_t> fill(first.begin(), first.end() - 1);
    // Each tile's entries' records side by side; an entry's accessors read its first record,
    // or one of its own after the tiles' when no tile holds it.
    slotInfo.resize(pairs.size());
    constexpr std::size_t kNone = ~std::size_t{0};
    infoAt.assign(infos.size(), kNone);
    for (const auto& [s, e] : pairs) {
        const std::size_t at = fill[s]++;
        slotInfo[at] = infos[e];
        entries[at] = e;
        infoAt[e] = std::min(infoAt[e], at);
    }
    for (std::size_t e = 0; e < infos.size(); ++e) {
        if (infoAt[e] != kNone) continue;
        infoAt[e] = slotInfo.size();
        slotInfo.push_back(infos[e]);
    }
}

}  // namespace

Result<TileIndex> TileIndex::build(const ClassifiedMap& map, int zoom, std::span<const TileId> tiles,
                                   std::size_t maxTiles) {
    if (zoom < 0 || zoom > kMaxZoom) {
        return Error{"zoom " + std::to_string(zoom) + " is outside 0.." + std::to_string(kMaxZoom)};
    }
    TileIndex index;
    index.mMap = &map;
    index.mZoom = zoom;
    const CellFrame toCell{TileId{zoom, 0, 0}.cellSizeMercator()};
    const FeatureRuns runs = featureRuns(map);
    const std::vector<Converted> converted =
        convertFeatures(map, runs, toCell, index.mCells, index.mPartEnds, index.mChunks);
    std::vector<EntryInfo> infos =
        makeEntryInfos(map, zoom, toCell, runs, converted);  // until the tiles' lists are made

    auto tileSet = tiles.empty() ? reachedTiles(map, infos, zoom, maxTiles) : givenTiles(tiles, zoom);
    if (!tileSet) return tileSet.error();
    index.mTiles = std::move(*tileSet);
    if (index.mTiles.size() > maxTiles) {
        return Error{"the map needs " + std::to_string(index.mTiles.size()) + " tiles at zoom " + std::to_string(zoom) +
                     ", more than the limit of " + std::to_string(maxTiles) + "; choose tiles or a lower zoom"};
    }
    index.mSlots.reserve(index.mTiles.size());
    for (std::size_t s = 0; s < index.mTiles.size(); ++s) index.mSlots.emplace(index.mTiles[s], s);
    fillSlots(index.mTiles.size(), slotEntryPairs(infos, zoom, index.mTiles, index.mSlots), infos, index.mFirst,
              index.mEntries, index.mSlotInfo, index.mInfoAt);
    index.indexCrossings(toCell.cellSize);
    return index;
}

void TileIndex::indexCrossings(double cellSize) {
    const CellFrame toCell{cellSize};
    std::vector<std::pair<std::size_t, std::uint32_t>> pairs;  // (slot, crossing)
    const double side = static_cast<double>(TileId{mZoom, 0, 0}.tilesPerSide());
    for (std::uint32_t i = 0; i < mMap->crossings.size(); ++i) {
        const Feature& f = *mMap->crossings[i];
        mCrossingCells.push_back(f.points.empty() ? Vec2{std::nan(""), std::nan("")} : toCell(f.points.front()));
        const Vec2 c = mCrossingCells.back();
        if (!isFinite(c)) continue;
        const double x0 = std::max(0.0, std::floor((c.x - kCrossingReachCells) / kTileCells));
        const double x1 = std::min(side - 1.0, std::floor((c.x + kCrossingReachCells) / kTileCells));
        const double y0 = std::max(0.0, std::floor((c.y - kCrossingReachCells) / kTileCells));
        const double y1 = std::min(side - 1.0, std::floor((c.y + kCrossingReachCells) / kTileCells));
        for (double y = y0; y <= y1; ++y) {
            for (double x = x0; x <= x1; ++x) {
                const auto s = slot(TileId{mZoom, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)});
                if (s) pairs.emplace_back(*s, i);
            }
        }
    }
    std::sort(pairs.begin(), pairs.end());
    mCrossingFirst.assign(mTiles.size() + 1, 0);
    for (const auto& [s, i] : pairs) ++mCrossingFirst[s + 1];
    for (std::size_t s = 0; s < mTiles.size(); ++s) mCrossingFirst[s + 1] += mCrossingFirst[s];
    mCrossings.clear();
    for (const auto& [s, i] : pairs) mCrossings.push_back(i);
}

std::optional<std::size_t> TileIndex::slot(const TileId& tile) const {
    const auto it = mSlots.find(tile);
    if (it == mSlots.end()) return std::nullopt;
    return it->second;
}

}  // namespace terrabit::core
