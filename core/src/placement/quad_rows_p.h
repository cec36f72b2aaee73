#pragma once
// Private to placement: footprintSpans a row at a time, for the building pass's AND scan
// (FootprintWindow::testRows), which refuses most poses it rasterizes at one of their rows.

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "terrabit/core/placement/occupancy_map.h"

namespace terrabit::core::placement::detail {

/// A rectangle's (any convex quadrilateral's) rows under the conservative rule: footprintSpans'
/// spans, each made when asked for, so a caller that refuses the rectangle at one of its rows
/// rasterizes no further. Inline: the building pass makes one per pose it tests.
class QuadRows {
public:
    /// ok() is false, as footprintSpans returns, when a corner lies outside `region` (its border
    /// is allowed) or is not finite.
    QuadRows(const std::array<Vec2, 4>& corners, const CellRegion& region) : mRegion(region) {
        double minX = corners[0].x, maxX = corners[0].x, minY = corners[0].y, maxY = corners[0].y;
        for (const Vec2 c : corners) {
            // A corner on the region's border touches no cell outside it (the conservative rule
            // counts open cell interiors), so the border itself is allowed.
            if (!isFinite(c) || c.x < static_cast<double>(region.x0) || c.x > static_cast<double>(region.x1) ||
                c.y < static_cast<double>(region.y0) || c.y > static_cast<double>(region.y1)) {
                return;
            }
            minX = std::min(minX, c.x);
            maxX = std::max(maxX, c.x);
            minY = std::min(minY, c.y);
            maxY = std::max(maxY, c.y);
        }
        // Rows whose open strip (j, j + 1) the rectangle enters. For a convex shape the closure of
        // its part inside an open strip is its part inside the closed strip, whose x-extent is found
        // on the edges clipped to [j, j + 1]; the open cells (i, i + 1) meeting (xmin, xmax) are then
        // floor(xmin) .. ceil(xmax) - 1. The edges' slopes once, not per row (a pose's rows share
        // them; same values, so the same cells).
        for (std::size_t i = 0; i < 4; ++i) {
            const Vec2 p = corners[i], q = corners[(i + 1) % 4];
            const bool flat = p.y == q.y;
            mEdges[i] = {p, q, std::min(p.y, q.y), std::max(p.y, q.y), flat ? 0.0 : (q.x - p.x) / (q.y - p.y), flat};
        }
        mFirstRow = floorOf(minY);
        mEndRow = std::max(mFirstRow, ceilOf(maxY));
        mMostCells = (mEndRow - mFirstRow) * std::max<std::int64_t>(0, ceilOf(maxX) - floorOf(minX));
        mOk = true;
    }

    bool ok() const { return mOk; }
    /// The rows [firstRow, endRow) the rectangle may touch (when ok()).
    std::int64_t firstRow() const { return mFirstRow; }
    std::int64_t endRow() const { return mEndRow; }
    /// The most cells the rectangle can touch: its corners' bounding box in whole cells.
    std::int64_t mostCells() const { return mMostCells; }
    /// Row j's span, as footprintSpans gives it; false when the rectangle touches no cell of it.
    [[gnu::always_inline]] bool row(std::int64_t j, CellSpan& out) const {
        const double lo = static_cast<double>(j), hi = lo + 1.0;
        double xmin = std::numeric_limits<double>::infinity();
        double xmax = -std::numeric_limits<double>::infinity();
        for (const Edge& e : mEdges) {
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
        if (!(xmin <= xmax)) return false;
        const std::int64_t x0 = floorOf(xmin), x1 = ceilOf(xmax);
        if (x0 >= x1) return false;
        out = {j, std::max(x0, mRegion.x0), std::min(x1, mRegion.x1)};
        return true;
    }

private:
    // floor and ceil of finite values within the region (int64 range): exact, and no libm call.
    static std::int64_t floorOf(double x) {
        const auto t = static_cast<std::int64_t>(x);
        return static_cast<double>(t) > x ? t - 1 : t;
    }
    static std::int64_t ceilOf(double x) {
        const auto t = static_cast<std::int64_t>(x);
        return static_cast<double>(t) < x ? t + 1 : t;
    }

    struct Edge {
        Vec2 p, q;
        double yLo, yHi, slope;
        bool flat;
    };
    std::array<Edge, 4> mEdges{};
    CellRegion mRegion;
    bool mOk = false;
    std::int64_t mFirstRow = 0, mEndRow = 0, mMostCells = 0;
};

}  // namespace terrabit::core::placement::detail
