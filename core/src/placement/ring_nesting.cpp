#include "ring_nesting_p.h"

#include <algorithm>
#include <cmath>

namespace terrabit::core::placement::detail {

namespace {

/// Edges per cell of the grid and per band of the rays, on average: a few each, so that neither
/// the pairs in a cell nor the empty cells cost much.
constexpr double kEdgesPerCell = 2.0;
constexpr double kEdgesPerBand = 8.0;
constexpr double kMaxCellsWide = 1024.0;

double pointSegmentDistance(Vec2 p, Vec2 a, Vec2 b) {
    const Vec2 d = b - a;
    const double len2 = dot(d, d);
    const double t = len2 > 0.0 ? std::clamp(dot(p - a, d) / len2, 0.0, 1.0) : 0.0;
    return length(p - (a + d * t));
}

/// Whether segments ab and cd come within `apart` of each other (crossing included).
bool near(Vec2 a, Vec2 b, Vec2 c, Vec2 d, double apart) {
    const double c1 = cross(b - a, c - a), c2 = cross(b - a, d - a);
    const double ab = length(b - a);
    if ((c1 > 0.0) == (c2 > 0.0) && std::min(std::abs(c1), std::abs(c2)) > apart * ab)
        return false;  // cd beside ab's line
    const double c3 = cross(d - c, a - c), c4 = cross(d - c, b - c);
    const double cd = length(d - c);
    if ((c3 > 0.0) == (c4 > 0.0) && std::min(std::abs(c3), std::abs(c4)) > apart * cd) return false;
    if (((c1 > 0.0 && c2 < 0.0) || (c1 < 0.0 && c2 > 0.0)) && ((c3 > 0.0 && c4 < 0.0) || (c3 < 0.0 && c4 > 0.0))) {
        return true;
    }
    return pointSegmentDistance(c, a, b) < apart || pointSegmentDistance(d, a, b) < apart ||
           pointSegmentDistance(a, c, d) < apart || pointSegmentDistance(b, c, d) < apart;
}

/// Counting sort of `count` items into the cells each one's range covers.
template <class Range>
void bucket(std::size_t count, std::size_t cells, Range&& range, std::vector<std::uint32_t>& start,
            std::vector<std::uint32_t>& items) {
    start.assign(cells + 1, 0);
    for (std::size_t i = 0; i < count; ++i) range(i, [&](std::size_t c) { ++start[c + 1]; });
    for (std::size_t c = 0; c < cells; ++c) start[c + 1] += start[c];
    items.resize(start[cells]);
    for (std::size_t i = 0; i < count; ++i) {
        range(i, [&](std::size_t c) { items[start[c]++] = static_cast<std::uint32_t>(i); });
    }
    // start[c] now holds the end of cell c: shift back.
    for (std::size_t c = cells; c > 0; --c) start[c] = start[c - 1];
    start[0] = 0;
}

}  // namespace

bool RingNesting::nest(std::span<const Vec2> outline, std::span<const std::uint32_t> ringEnds,
                       std::vector<int>& parent) {
    parent.assign(ringEnds.size(), -1);
    mRings.clear();
    mEdgeRing.resize(outline.size());
    Box2 bounds;
    std::uint32_t begin = 0;
    for (const std::uint32_t end : ringEnds) {
        if (end < begin + 3 || end > outline.size()) return false;
        Ring r{begin, end, 0.0, {}};
        for (std::uint32_t i = begin, j = end - 1; i < end; j = i++) {
            if (outline[i] == outline[j]) return false;
            r.twiceArea += cross(outline[j], outline[i]);
            r.box.extend(outline[i]);
            mEdgeRing[i] = static_cast<std::uint32_t>(mRings.size());
        }
        if (!(r.twiceArea != 0.0) || !std::isfinite(r.twiceArea)) return false;
        bounds.extend(r.box.min);
        bounds.extend(r.box.max);
        mRings.push_back(r);
        begin = end;
    }
    if (mRings.empty()) return true;
    // Each edge's far corner and box (padded by kApart).
    mNext.resize(outline.size());
    mEdgeBoxes.resize(outline.size());
    for (const Ring& r : mRings) {
        for (std::uint32_t i = r.begin; i < r.end; ++i) {
            const std::uint32_t j = i + 1 == r.end ? r.begin : i + 1;
            mNext[i] = j;
            const Vec2 a = outline[i], b = outline[j];
            mEdgeBoxes[i] = {{std::min(a.x, b.x) - kApart, std::min(a.y, b.y) - kApart},
                             {std::max(a.x, b.x) + kApart, std::max(a.y, b.y) + kApart}};
        }
    }
    const auto next = [&](std::uint32_t i) { return mNext[i]; };

    // A ring's neighbouring edges do not fold back: each one's far end lies off the other.
    for (const Ring& r : mRings) {
        for (std::uint32_t i = r.begin, prev = r.end - 1; i < r.end; prev = i++) {
            const Vec2 u0 = outline[prev], corner = outline[i], u1 = outline[next(i)];
            if (pointSegmentDistance(u1, u0, corner) < kApart || pointSegmentDistance(u0, corner, u1) < kApart) {
                return false;
            }
        }
    }
    // Every other two edges lie apart: each pair looked at in one cell, the one that holds the
    // low corner of where their boxes meet.
    const std::size_t edges = outline.size();
    // At most kMaxCellsWide cells a side: a sliver of a shape must not make a grid of millions.
    const double cell = std::max({std::sqrt(bounds.width() * bounds.height() * kEdgesPerCell / double(edges)),
                                  std::max(bounds.width(), bounds.height()) / kMaxCellsWide, 1e-9});
    const int wide = std::max(1, static_cast<int>(bounds.width() / cell) + 1);
    const int high = std::max(1, static_cast<int>(bounds.height() / cell) + 1);
    const auto cellX = [&](double x) { return std::clamp(static_cast<int>((x - bounds.min.x) / cell), 0, wide - 1); };
    const auto cellY = [&](double y) { return std::clamp(static_cast<int>((y - bounds.min.y) / cell), 0, high - 1); };
    const auto lowX = [&](std::uint32_t i) { return mEdgeBoxes[i].min.x; };
    const auto lowY = [&](std::uint32_t i) { return mEdgeBoxes[i].min.y; };
    bucket(
        edges, std::size_t(wide) * std::size_t(high),
        [&](std::size_t i, auto&& visit) {
            const Box2& box = mEdgeBoxes[i];
            const int x0 = cellX(box.min.x), x1 = cellX(box.max.x);
            const int y0 = cellY(box.min.y), y1 = cellY(box.max.y);
            for (int y = y0; y <= y1; ++y) {
                for (int x = x0; x <= x1; ++x) visit(std::size_t(y) * std::size_t(wide) + std::size_t(x));
            }
        },
        mCellStart, mCellItems);
    for (std::size_t c = 0; c + 1 < mCellStart.size(); ++c) {
        // The cell's edges by their west end: a pair is looked at only while their x ranges meet.
        const auto cellBegin = mCellItems.begin() + mCellStart[c], cellEnd = mCellItems.begin() + mCellStart[c + 1];
        std::sort(cellBegin, cellEnd, [&](std::uint32_t a, std::uint32_t b) { return lowX(a) < lowX(b); });
        const int cx = static_cast<int>(c % std::size_t(wide)), cy = static_cast<int>(c / std::size_t(wide));
        for (std::uint32_t ii = mCellStart[c]; ii < mCellStart[c + 1]; ++ii) {
            const std::uint32_t i = mCellItems[ii];
            const Box2& boxI = mEdgeBoxes[i];
            for (std::uint32_t jj = ii + 1; jj < mCellStart[c + 1]; ++jj) {
                const std::uint32_t j = mCellItems[jj];
                const Box2& boxJ = mEdgeBoxes[j];
                if (boxJ.min.x > boxI.max.x) break;
                if (boxJ.max.y < boxI.min.y || boxI.max.y < boxJ.min.y) continue;
                if (next(i) == j || next(j) == i) continue;  // neighbours: checked above
                if (cellX(std::max(lowX(i), lowX(j))) != cx || cellY(std::max(lowY(i), lowY(j))) != cy) continue;
                if (near(outline[i], outline[next(i)], outline[j], outline[next(j)], kApart)) return false;
            }
        }
    }

    // Each ring's parent: a westward ray from its first corner, through the edges of its band.
    const int bands = std::max(1, static_cast<int>(double(edges) / kEdgesPerBand));
    const double bandHeight = std::max(bounds.height() / bands, 1e-3);
    const auto bandOf = [&](double y) {
        return std::clamp(static_cast<int>((y - bounds.min.y) / bandHeight), 0, bands - 1);
    };
    bucket(
        edges, std::size_t(bands),
        [&](std::size_t i, auto&& visit) {
            const Vec2 a = outline[i], b = outline[next(std::uint32_t(i))];
            for (int k = bandOf(std::min(a.y, b.y)); k <= bandOf(std::max(a.y, b.y)); ++k) visit(std::size_t(k));
        },
        mBandStart, mBandItems);
    mCrossings.assign(mRings.size(), 0);
    for (std::size_t r = 0; r < mRings.size(); ++r) {
        const Vec2 p = outline[mRings[r].begin];
        const int band = bandOf(p.y);
        mTouched.clear();
        for (std::uint32_t k = mBandStart[std::size_t(band)]; k < mBandStart[std::size_t(band) + 1]; ++k) {
            const std::uint32_t e = mBandItems[k];
            const std::uint32_t ring = mEdgeRing[e];
            if (ring == r) continue;
            const Vec2 a = outline[e], b = outline[next(e)];
            if ((a.y > p.y) == (b.y > p.y)) continue;
            if (!(a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) < p.x)) continue;
            if (mCrossings[ring]++ == 0) mTouched.push_back(ring);
        }
        int best = -1;
        for (const std::uint32_t ring : mTouched) {
            if (mCrossings[ring] % 2 == 1 &&
                (best < 0 || std::abs(mRings[ring].twiceArea) < std::abs(mRings[std::size_t(best)].twiceArea))) {
                best = static_cast<int>(ring);
            }
            mCrossings[ring] = 0;
        }
        const bool shell = mRings[r].twiceArea > 0.0;
        if (best < 0 ? !shell : (mRings[std::size_t(best)].twiceArea > 0.0) == shell) return false;
        parent[r] = best;
    }
    return true;
}

}  // namespace terrabit::core::placement::detail
