#include "terrabit/core/placement/occupancy_map.h"

#include "quad_rows_p.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace terrabit::core::placement {

CellRegion CellRegion::around(const TileId& tile) {
    const std::int64_t x = tile.x, y = tile.y;
    return {(x - 1) * kTileCells, (y - 1) * kTileCells, (x + 2) * kTileCells, (y + 2) * kTileCells};
}

OccupancyMap::OccupancyMap(std::span<const TileId> tiles) : mTiles(tiles.begin(), tiles.end()) {
    std::sort(mTiles.begin(), mTiles.end());
    mTiles.erase(std::unique(mTiles.begin(), mTiles.end()), mTiles.end());
    if (!mTiles.empty()) mZoom = mTiles.front().zoom;
    mBits.resize(mTiles.size());
    mSlots.reserve(mTiles.size());
    for (std::size_t i = 0; i < mTiles.size(); ++i) mSlots.emplace(mTiles[i], i);
}

OccupancyMap::OccupancyMap(const OccupancyMap& other)
    : mZoom(other.mZoom), mTiles(other.mTiles), mBits(other.mBits.size()), mSlots(other.mSlots) {
    for (std::size_t i = 0; i < mBits.size(); ++i) {
        if (other.mBits[i]) mBits[i] = std::make_unique<BitTile>(*other.mBits[i]);
    }
}

OccupancyMap& OccupancyMap::operator=(const OccupancyMap& other) {
    if (this != &other) *this = OccupancyMap(other);
    return *this;
}

const BitTile* OccupancyMap::tile(const TileId& id) const {
    static const BitTile kClear;
    const auto it = mSlots.find(id);
    if (it == mSlots.end()) return nullptr;
    const std::unique_ptr<BitTile>& bits = mBits[it->second];
    return bits ? bits.get() : &kClear;
}

BitTile* OccupancyMap::tile(const TileId& id) {
    const auto it = mSlots.find(id);
    if (it == mSlots.end()) return nullptr;
    std::unique_ptr<BitTile>& bits = mBits[it->second];
    if (!bits) bits = std::make_unique<BitTile>();
    return bits.get();
}

std::size_t OccupancyMap::allocatedTiles() const {
    return static_cast<std::size_t>(
        std::count_if(mBits.begin(), mBits.end(), [](const auto& b) { return b != nullptr; }));
}

void OccupancyMap::clear() {
    for (std::unique_ptr<BitTile>& bits : mBits) bits.reset();
}

namespace {

/// Calls f(tile id, local row, local x0, local x1) for the part of a span in each tile column.
template <class F>
bool forEachTilePart(const CellSpan& s, int zoom, F&& f) {
    if (s.y < 0 || s.x0 < 0) return false;
    const auto ty = static_cast<std::uint32_t>(s.y / kTileCells);
    const int row = static_cast<int>(s.y % kTileCells);
    for (std::int64_t x = s.x0; x < s.x1;) {
        const std::int64_t tx = x / kTileCells;
        const std::int64_t end = std::min(s.x1, (tx + 1) * kTileCells);
        const TileId id{zoom, static_cast<std::uint32_t>(tx), ty};
        if (!f(id, row, static_cast<int>(x - tx * kTileCells), static_cast<int>(end - tx * kTileCells))) return false;
        x = end;
    }
    return true;
}

}  // namespace

bool OccupancyMap::isClear(std::span<const CellSpan> spans, const OccupancyMap* blocking) const {
    for (const CellSpan& s : spans) {
        const bool ok = forEachTilePart(s, mZoom, [&](const TileId& id, int row, int x0, int x1) {
            const BitTile* own = tile(id);
            if (!own || own->anySpan(row, x0, x1)) return false;
            const BitTile* block = blocking ? blocking->tile(id) : nullptr;
            return !(block && block->anySpan(row, x0, x1));
        });
        if (!ok) return false;
    }
    return true;
}

void OccupancyMap::mark(std::span<const CellSpan> spans) {
    for (const CellSpan& s : spans) {
        forEachTilePart(s, mZoom, [&](const TileId& id, int row, int x0, int x1) {
            if (BitTile* own = tile(id)) own->fillSpan(row, x0, x1);
            return true;
        });
    }
}

bool footprintSpans(const std::array<Vec2, 4>& corners, const CellRegion& region, std::vector<CellSpan>& spans) {
    spans.clear();
    const detail::QuadRows rows(corners, region);
    if (!rows.ok()) return false;
    CellSpan s;
    for (std::int64_t j = rows.firstRow(); j < rows.endRow(); ++j) {
        if (rows.row(j, s)) spans.push_back(s);
    }
    return true;
}

}  // namespace terrabit::core::placement
