#include "terrabit/core/placement/occupancy_map.h"

#include <algorithm>
#include <cmath>

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

const BitTile* OccupancyMap::tile(const TileId& id) const {
    const auto it = mSlots.find(id);
    return it == mSlots.end() ? nullptr : &mBits[it->second];
}

BitTile* OccupancyMap::tile(const TileId& id) {
    const auto it = mSlots.find(id);
    return it == mSlots.end() ? nullptr : &mBits[it->second];
}

void OccupancyMap::clear() {
    for (BitTile& b : mBits) b.reset();
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

bool footprintSpans(const std::array<Vec2, 4>& corners, const CellRegion& region, Rasterizer& rasterizer,
                    std::vector<CellSpan>& spans) {
    spans.clear();
    std::array<Vec2, 4> local;
    const Vec2 origin{static_cast<double>(region.x0), static_cast<double>(region.y0)};
    const double width = static_cast<double>(region.x1 - region.x0);
    const double height = static_cast<double>(region.y1 - region.y0);
    for (std::size_t i = 0; i < 4; ++i) {
        local[i] = corners[i] - origin;
        // A corner on the region's border touches no cell outside it (the conservative rule
        // counts open cell interiors), so the border itself is allowed.
        if (!isFinite(local[i]) || local[i].x < 0.0 || local[i].y < 0.0 || local[i].x > width || local[i].y > height) {
            return false;
        }
    }
    const std::uint32_t ends[1] = {4};
    const PolygonView shape{std::span<const Vec2>(local), std::span<const std::uint32_t>(ends)};
    const Status drawn =
        rasterizer.polygonSpans(shape, RasterOptions{FillRule::NonZero, Coverage::Conservative},
                                static_cast<int>(width), static_cast<int>(height), [&](int y, int x0, int x1) {
                                    spans.push_back({region.y0 + y, region.x0 + x0, region.x0 + x1});
                                });
    return drawn.ok();
}

}  // namespace terrabit::core::placement
