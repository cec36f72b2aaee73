#include "terrabit/core/placement/occupancy_map.h"

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
    double minY = corners[0].y, maxY = corners[0].y;
    for (const Vec2 c : corners) {
        // A corner on the region's border touches no cell outside it (the conservative rule
        // counts open cell interiors), so the border itself is allowed.
        if (!isFinite(c) || c.x < static_cast<double>(region.x0) || c.x > static_cast<double>(region.x1) ||
            c.y < static_cast<double>(region.y0) || c.y > static_cast<double>(region.y1)) {
            return false;
        }
        minY = std::min(minY, c.y);
        maxY = std::max(maxY, c.y);
    }
    // Rows whose open strip (j, j + 1) the rectangle enters. For a convex shape the closure of
    // its part inside an open strip is its part inside the closed strip, whose x-extent is found
    // on the edges clipped to [j, j + 1]; the open cells (i, i + 1) meeting (xmin, xmax) are then
    // floor(xmin) .. ceil(xmax) - 1. The edges' slopes once, not per row (a pose's rows share
    // them; same values, so the same cells).
    struct Edge {
        Vec2 p, q;
        double yLo, yHi, slope;
        bool flat;
    };
    std::array<Edge, 4> edges;
    for (std::size_t i = 0; i < 4; ++i) {
        const Vec2 p = corners[i], q = corners[(i + 1) % 4];
        const bool flat = p.y == q.y;
        edges[i] = {p, q, std::min(p.y, q.y), std::max(p.y, q.y), flat ? 0.0 : (q.x - p.x) / (q.y - p.y), flat};
    }
    // floor and ceil of finite values within the region (int64 range): exact, and no libm call.
    const auto floorOf = [](double x) {
        const auto t = static_cast<std::int64_t>(x);
        return static_cast<double>(t) > x ? t - 1 : t;
    };
    const auto ceilOf = [](double x) {
        const auto t = static_cast<std::int64_t>(x);
        return static_cast<double>(t) < x ? t + 1 : t;
    };
    const std::int64_t firstRow = floorOf(minY);
    const std::int64_t endRow = std::max(firstRow, ceilOf(maxY));
    for (std::int64_t j = firstRow; j < endRow; ++j) {
        const double lo = static_cast<double>(j), hi = lo + 1.0;
        double xmin = std::numeric_limits<double>::infinity();
        double xmax = -std::numeric_limits<double>::infinity();
        for (const Edge& e : edges) {
            const double y0 = std::max(e.yLo, lo);
            const double y1 = std::min(e.yHi, hi);
            if (y0 > y1) continue;
            if (e.flat) {
                xmin = std::min(xmin, std::min(e.p.x, e.q.x));
                xmax = std::max(xmax, std::max(e.p.x, e.q.x));
                continue;
            }
            const double xa = e.p.x + (y0 - e.p.y) * e.slope, xb = e.p.x + (y1 - e.p.y) * e.slope;
            xmin = std::min(xmin, std::min(xa, xb));
            xmax = std::max(xmax, std::max(xa, xb));
        }
        if (!(xmin <= xmax)) continue;
        const std::int64_t x0 = floorOf(xmin);
        const std::int64_t x1 = ceilOf(xmax);
        if (x0 < x1) spans.push_back({j, std::max(x0, region.x0), std::min(x1, region.x1)});
    }
    return true;
}

}  // namespace terrabit::core::placement
