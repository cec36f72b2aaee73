#include "terrabit/core/tiling/tile_index.h"

#include <algorithm>
#include <cmath>

namespace terrabit::core {

namespace {

bool northToSouth(const TileId& a, const TileId& b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }

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

}  // namespace

Result<TileIndex> TileIndex::build(const ClassifiedMap& map, int zoom, std::span<const TileId> tiles,
                                   std::size_t maxTiles) {
    if (zoom < 0 || zoom > kMaxZoom) {
        return Error{"zoom " + std::to_string(zoom) + " is outside 0.." + std::to_string(kMaxZoom)};
    }
    TileIndex index;
    index.mMap = &map;
    index.mZoom = zoom;
    const double cellSize = TileId{zoom, 0, 0}.cellSizeMercator();
    auto toCell = [cellSize](Vec2 m) {
        return Vec2{(m.x + kMercatorHalfWorld) / cellSize, (kMercatorHalfWorld - m.y) / cellSize};
    };

    // Every feature's vertices in global cells, once, however many layers it is drawn into.
    const std::size_t entryCount = map.entries.size();
    index.mCellsBegin.reserve(entryCount);
    index.mCellsCount.reserve(entryCount);
    index.mPartsBegin.reserve(entryCount);
    index.mPartsCount.reserve(entryCount);
    index.mKinds.reserve(entryCount);
    index.mSizeCells.reserve(entryCount);
    index.mReach.reserve(entryCount);
    index.mChunksBegin.reserve(entryCount);
    index.mChunksCount.reserve(entryCount);
    struct Converted {
        std::uint32_t cells, parts, chunks, chunkCount;
    };
    std::unordered_map<const Feature*, Converted> converted;
    for (const LayerEntry& e : map.entries) {
        const Feature& f = *e.feature;
        const auto [it, fresh] =
            converted.try_emplace(&f, Converted{static_cast<std::uint32_t>(index.mCells.size()),
                                                static_cast<std::uint32_t>(index.mPartEnds.size()),
                                                static_cast<std::uint32_t>(index.mChunks.size()), 0});
        if (fresh) {
            const std::size_t first = index.mCells.size();
            for (const Vec2& p : f.points) index.mCells.push_back(toCell(p));
            index.mPartEnds.insert(index.mPartEnds.end(), f.partEnds.begin(), f.partEnds.end());
            if (f.kind == FeatureKind::Area && f.points.size() >= kChunkedFeatureVertices) {
                // Bounds of each run of kRingChunk vertices, ring by ring, in the order
                // TileRasterizer walks them.
                std::uint32_t begin = 0;
                for (const std::uint32_t end : f.partEnds) {
                    for (std::uint32_t c = begin; c < end; c += kRingChunk) {
                        const std::uint32_t last = std::min(end, c + kRingChunk);
                        Box2 box{index.mCells[first + c], index.mCells[first + c]};
                        for (std::uint32_t v = c + 1; v < last; ++v) {
                            const Vec2 p = index.mCells[first + v];
                            box.min = {std::min(box.min.x, p.x), std::min(box.min.y, p.y)};
                            box.max = {std::max(box.max.x, p.x), std::max(box.max.y, p.y)};
                        }
                        index.mChunks.push_back(box);
                    }
                    begin = end;
                }
                it->second.chunkCount = static_cast<std::uint32_t>(index.mChunks.size()) - it->second.chunks;
            }
        }
        index.mCellsBegin.push_back(it->second.cells);
        index.mCellsCount.push_back(static_cast<std::uint32_t>(f.points.size()));
        index.mPartsBegin.push_back(it->second.parts);
        index.mPartsCount.push_back(static_cast<std::uint32_t>(f.partEnds.size()));
        index.mChunksBegin.push_back(it->second.chunks);
        index.mChunksCount.push_back(it->second.chunkCount);
        index.mKinds.push_back(f.kind);

        const double latitude = mercatorToLonLat(f.bounds.centre()).lat;
        const double metresPerCellHere = metresPerCell(latitude, zoom);
        double size = 0.0;
        if (f.kind == FeatureKind::Line) size = 0.5 * e.sizeMetres / metresPerCellHere;
        if (f.kind == FeatureKind::Point) size = e.sizeMetres / metresPerCellHere;
        index.mSizeCells.push_back(size);

        const double grow = size + kClipMarginCells;
        const Vec2 nw = toCell({f.bounds.min.x, f.bounds.max.y});
        const Vec2 se = toCell({f.bounds.max.x, f.bounds.min.y});
        index.mReach.push_back(Box2{{nw.x - grow, nw.y - grow}, {se.x + grow, se.y + grow}});
    }

    // The tile set.
    if (!tiles.empty()) {
        for (const TileId& t : tiles) {
            if (t.zoom != zoom) {
                return Error{"tile " + t.quadkey() + " is at zoom " + std::to_string(t.zoom) + ", not " +
                             std::to_string(zoom)};
            }
        }
        index.mTiles.assign(tiles.begin(), tiles.end());
        std::sort(index.mTiles.begin(), index.mTiles.end(), northToSouth);
        const auto dup = std::adjacent_find(index.mTiles.begin(), index.mTiles.end());
        if (dup != index.mTiles.end()) return Error{"tile " + dup->quadkey() + " is listed twice"};
    } else {
        std::uint64_t total = 0;
        for (const Box2& r : index.mReach) total += rangeOf(r, zoom).count();
        std::vector<TileId> all;
        all.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(total, maxTiles + 1)));
        for (std::size_t e = 0; e < entryCount; ++e) {
            const TileRange r = rangeOf(index.mReach[e], zoom);
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
                // Keep memory bounded on large maps: squeeze out duplicates as we go.
                std::sort(all.begin(), all.end(), northToSouth);
                all.erase(std::unique(all.begin(), all.end()), all.end());
            }
        }
        std::sort(all.begin(), all.end(), northToSouth);
        all.erase(std::unique(all.begin(), all.end()), all.end());
        index.mTiles = std::move(all);
    }
    if (index.mTiles.size() > maxTiles) {
        return Error{"the map needs " + std::to_string(index.mTiles.size()) + " tiles at zoom " + std::to_string(zoom) +
                     ", more than the limit of " + std::to_string(maxTiles) + "; choose tiles or a lower zoom"};
    }
    index.mSlots.reserve(index.mTiles.size());
    for (std::size_t s = 0; s < index.mTiles.size(); ++s) index.mSlots.emplace(index.mTiles[s], s);

    // (slot, entry) pairs, then a counting sort into per-slot lists. Entries are visited in
    // order, so each slot's list comes out ascending.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::size_t e = 0; e < entryCount; ++e) {
        const TileRange r = rangeOf(index.mReach[e], zoom);
        const auto entry = static_cast<std::uint32_t>(e);
        if (r.count() <= index.mTiles.size()) {
            for (std::int64_t y = r.y0; y <= r.y1; ++y) {
                for (std::int64_t x = r.x0; x <= r.x1; ++x) {
                    const auto it =
                        index.mSlots.find(TileId{zoom, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)});
                    if (it != index.mSlots.end()) pairs.emplace_back(static_cast<std::uint32_t>(it->second), entry);
                }
            }
        } else {
            // A feature wider than the whole tile set (the sea): walk the tiles instead.
            for (std::size_t s = 0; s < index.mTiles.size(); ++s) {
                const TileId& t = index.mTiles[s];
                if (t.x >= r.x0 && t.x <= r.x1 && t.y >= r.y0 && t.y <= r.y1) {
                    pairs.emplace_back(static_cast<std::uint32_t>(s), entry);
                }
            }
        }
    }
    index.mFirst.assign(index.mTiles.size() + 1, 0);
    for (const auto& [s, e] : pairs) ++index.mFirst[s + 1];
    for (std::size_t s = 0; s < index.mTiles.size(); ++s) index.mFirst[s + 1] += index.mFirst[s];
    index.mEntries.resize(pairs.size());
    std::vector<std::size_t> fill(index.mFirst.begin(), index.mFirst.end() - 1);
    for (const auto& [s, e] : pairs) index.mEntries[fill[s]++] = e;
    return index;
}

std::optional<std::size_t> TileIndex::slot(const TileId& tile) const {
    const auto it = mSlots.find(tile);
    if (it == mSlots.end()) return std::nullopt;
    return it->second;
}

}  // namespace terrabit::core
