#include "buffer_union_p.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <tuple>
#include <unordered_map>

namespace terrabit::core::placement::detail {

namespace {

/// A piece of edge is on another piece's edge when its middle is this close to it (cells).
constexpr double kOnEdge = 1e-9;

/// Attempts of unite(): each can find more outlines that cross themselves.
constexpr int kAttempts = 4;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

double angleOf(Vec2 v) { return std::atan2(v.y, v.x); }

bool boxesApart(const Vec2& a, const Vec2& b, const Vec2& c, const Vec2& d) {
    return std::max(a.x, b.x) < std::min(c.x, d.x) || std::max(c.x, d.x) < std::min(a.x, b.x) ||
           std::max(a.y, b.y) < std::min(c.y, d.y) || std::max(c.y, d.y) < std::min(a.y, b.y);
}

/// Whether edge a comes before edge b in a fixed order of their coordinates: the crossing of
/// two edges is computed from the first, so every tile finds the same bits for it.
bool before(const Vec2& a0, const Vec2& a1, const Vec2& b0, const Vec2& b1) {
    return std::tie(a0.x, a0.y, a1.x, a1.y) < std::tie(b0.x, b0.y, b1.x, b1.y);
}

struct PointHash {
    std::size_t operator()(const Vec2& v) const {
        // + 0.0: -0 and 0 are one point.
        const std::size_t h = std::hash<double>{}(v.x + 0.0);
        return h ^ (std::hash<double>{}(v.y + 0.0) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
    }
};

}  // namespace

void BufferUnion::clear() {
    mPoints.clear();
    mLines.clear();
    clearAreas();
}

void BufferUnion::clearAreas() {
    mAreaCorners.clear();
    mAreaRingEnds.clear();
    mAreaTriangles.clear();
    mAreas.clear();
}

void BufferUnion::add(std::span<const Vec2> points, double radius, int quadrantSegments, double phase) {
    if (points.empty() || !(radius > 0.0)) return;
    const auto begin = static_cast<std::uint32_t>(mPoints.size());
    for (const Vec2& p : points) {
        if (mPoints.size() == begin || !(mPoints.back() == p)) mPoints.push_back(p);
    }
    mLines.push_back(
        {begin, static_cast<std::uint32_t>(mPoints.size()), radius, 4 * std::max(1, quadrantSegments), phase});
}

void BufferUnion::addArea(std::span<const Vec2> corners, std::span<const std::uint32_t> ringEnds,
                          std::span<const Vec2> triangles) {
    const auto base = static_cast<std::uint32_t>(mAreaCorners.size());
    Area area{static_cast<std::uint32_t>(mAreaRingEnds.size()), 0, static_cast<std::uint32_t>(mAreaTriangles.size()),
              0};
    mAreaCorners.insert(mAreaCorners.end(), corners.begin(), corners.end());
    for (const std::uint32_t end : ringEnds) mAreaRingEnds.push_back(base + end);
    mAreaTriangles.insert(mAreaTriangles.end(), triangles.begin(), triangles.end());
    area.ringsEnd = static_cast<std::uint32_t>(mAreaRingEnds.size());
    area.trianglesEnd = static_cast<std::uint32_t>(mAreaTriangles.size());
    mAreas.push_back(area);
}

bool BufferUnion::unite(std::vector<Vec2>& outline, std::vector<std::uint32_t>& ringEnds) {
    mPiecesOnly.assign(mLines.size(), 0);
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        outline.clear();
        ringEnds.clear();
        mSelfCrossed.clear();
        if (evaluate(outline, ringEnds)) return true;
        if (mSelfCrossed.empty()) return false;
        for (const int owner : mSelfCrossed) {
            if (mOwnerLine[std::size_t(owner)] < 0) return false;  // an area's rings: no pieces to fall back on
        }
        for (const int owner : mSelfCrossed) mPiecesOnly[static_cast<std::size_t>(mOwnerLine[std::size_t(owner)])] = 1;
    }
    return false;
}

void BufferUnion::pieces(std::vector<Vec2>& corners, std::vector<std::uint32_t>& ends) const {
    corners.clear();
    ends.clear();
    // A line with an outline gives it (the boundary of its pieces' union: one polygon where its
    // pieces were dozens, and no outline that crossed itself is left), the others their pieces.
    for (std::size_t i = 0; i < mOutlineEdges.size(); ++i) {
        if (mOwnerLine[std::size_t(mOutlineEdges[i].owner)] == kAreaOwner) continue;
        corners.push_back(mOutlineEdges[i].a);
        if (i + 1 == mOutlineEdges.size() || mOutlineEdges[i + 1].owner != mOutlineEdges[i].owner) {
            ends.push_back(static_cast<std::uint32_t>(corners.size()));
        }
    }
    for (const Piece& p : mPieces) {
        if (!p.edges) continue;
        corners.insert(corners.end(), mCorners.begin() + p.first, mCorners.begin() + p.first + p.count);
        ends.push_back(static_cast<std::uint32_t>(corners.size()));
    }
}

void BufferUnion::arc(Vec2 centre, double radius, int segments, double phase, double from, double sweep,
                      std::vector<Vec2>& out) const {
    const double step = 2.0 * std::numbers::pi / segments;
    for (double k = std::floor((from - phase) / step) + 1.0;; k += 1.0) {
        const double angle = phase + k * step;
        if (angle >= from + sweep) break;
        if (angle <= from) continue;
        out.push_back(centre + Vec2{std::cos(angle), std::sin(angle)} * radius);
    }
}

void BufferUnion::openPiece() { mPieceStart = static_cast<std::uint32_t>(mCorners.size()); }

void BufferUnion::closePiece(int owner, bool edges) {
    const std::uint32_t count = static_cast<std::uint32_t>(mCorners.size()) - mPieceStart;
    if (count < 3) {
        mCorners.resize(mPieceStart);
        return;
    }
    Piece p{mPieceStart, count, {}, owner < 0 ? mOwners++ : owner, edges};
    if (owner < 0) mOwnerLine.push_back(-1);
    for (std::uint32_t i = mPieceStart; i < mPieceStart + count; ++i) p.box.extend(mCorners[i]);
    mBounds.extend(p.box.min);
    mBounds.extend(p.box.max);
    mPieces.push_back(p);
}

void BufferUnion::build(const Line& line) {
    const std::span<const Vec2> pts(mPoints.data() + line.begin, line.end - line.begin);
    const double r = line.radius;
    const int n = line.segments;
    if (pts.size() == 1) {
        openPiece();
        arc(pts[0], r, n, line.phase, line.phase - 1e-12, 2.0 * std::numbers::pi, mCorners);
        closePiece(-1, true);
        return;
    }
    std::vector<Vec2> off;  // r times each segment's left normal
    off.reserve(pts.size());
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
        const Vec2 d = pts[i + 1] - pts[i];
        off.push_back(Vec2{-d.y, d.x} * (r / length(d)));
    }
    const std::size_t index = static_cast<std::size_t>(&line - mLines.data());
    int owner = -1;
    const bool ring = pts.size() > 2 && pts.front() == pts.back();  // its caps meet: pieces
    if (!ring && !mPiecesOnly[index]) {
        const int candidate = mOwners;
        const std::size_t mark = mOutlineEdges.size();
        if (lineOutline(pts, off, line, candidate)) {
            owner = mOwners++;
            mOwnerLine.push_back(static_cast<int>(index));
        } else {
            mOutlineEdges.resize(mark);
        }
    }
    const bool edges = owner < 0;
    // Each segment's rectangle, its ends through the segment's points (so that a cap's or a
    // fan's straight edges lie on them exactly).
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
        const Vec2 a = pts[i], b = pts[i + 1], o = off[i];
        openPiece();
        mCorners.insert(mCorners.end(), {a - o, b - o, b, b + o, a + o, a});
        closePiece(owner, edges);
    }
    {
        const Vec2 a = pts.front(), o = off.front();
        openPiece();
        mCorners.push_back(a + o);
        arc(a, r, n, line.phase, angleOf(o), std::numbers::pi, mCorners);
        mCorners.insert(mCorners.end(), {a - o, a});
        closePiece(owner, edges);
    }
    {
        const Vec2 b = pts.back(), o = off.back();
        openPiece();
        mCorners.push_back(b - o);
        arc(b, r, n, line.phase, angleOf(Vec2{} - o), std::numbers::pi, mCorners);
        mCorners.insert(mCorners.end(), {b + o, b});
        closePiece(owner, edges);
    }
    for (std::size_t i = 1; i + 1 < pts.size(); ++i) {
        const Vec2 b = pts[i], o0 = off[i - 1], o1 = off[i];
        const double turn = cross(o0, o1);
        if (turn == 0.0 && dot(o0, o1) > 0.0) continue;
        const Vec2 s = turn > 0.0 ? b - o0 : b + o1;  // the outer side: right on a left turn
        const Vec2 e = turn > 0.0 ? b - o1 : b + o0;
        const double from = angleOf(s - b);
        double sweep = angleOf(e - b) - from;
        while (sweep <= 0.0) sweep += 2.0 * std::numbers::pi;
        openPiece();
        mCorners.insert(mCorners.end(), {b, s});
        arc(b, r, n, line.phase, from, sweep, mCorners);
        mCorners.push_back(e);
        closePiece(owner, edges);
    }
}

void BufferUnion::build(const Area& area) {
    const int owner = mOwners++;
    mOwnerLine.push_back(kAreaOwner);
    std::uint32_t begin = area.ringsBegin == 0 ? 0 : mAreaRingEnds[area.ringsBegin - 1];
    for (std::uint32_t r = area.ringsBegin; r < area.ringsEnd; ++r) {
        const std::uint32_t end = mAreaRingEnds[r];
        for (std::uint32_t i = begin; i < end; ++i) {
            const Vec2 a = mAreaCorners[i], b = mAreaCorners[i + 1 == end ? begin : i + 1];
            if (a == b) continue;
            mOutlineEdges.push_back({a, b, -1, owner});
            mBounds.extend(a);
        }
        begin = end;
    }
    for (std::uint32_t t = area.trianglesBegin; t + 2 < area.trianglesEnd; t += 3) {
        Vec2 a = mAreaTriangles[t], b = mAreaTriangles[t + 1], c = mAreaTriangles[t + 2];
        const double turn = cross(b - a, c - a);
        if (turn == 0.0) continue;  // covers nothing
        if (turn < 0.0) std::swap(b, c);
        openPiece();
        mCorners.insert(mCorners.end(), {a, b, c});
        closePiece(owner, false);
    }
}

bool BufferUnion::lineOutline(std::span<const Vec2> pts, const std::vector<Vec2>& off, const Line& line, int owner) {
    const std::size_t n = pts.size();
    const double r = line.radius;
    // The inner side of each turn: where the offset lines of segments i-1 and i cross, as
    // parameters along each (t on i-1, u on i). Each side of each segment runs from `from` to
    // `to` (0 and 1 where the side turns outward, with an arc); a side that would run backwards
    // folds over itself (a bend tighter than the buffer), and so would the outline.
    std::vector<double>& from = mParamsFrom;
    std::vector<double>& to = mParamsTo;
    std::vector<Vec2>& join = mJoins;  // per vertex: the inner crossing (unused at straight or outer ones)
    from.assign(2 * (n - 1), 0.0);     // [2 i] right side, [2 i + 1] left side
    to.assign(2 * (n - 1), 1.0);
    join.assign(n, Vec2{});
    for (std::size_t i = 1; i + 1 < n; ++i) {
        const double turn = cross(off[i - 1], off[i]);
        if (turn == 0.0) {
            if (dot(off[i - 1], off[i]) < 0.0) return false;  // a way that turns back on itself
            continue;
        }
        const double side = turn > 0.0 ? 1.0 : -1.0;  // the inner side: left on a left turn
        const Vec2 a0 = pts[i - 1] + off[i - 1] * side, d0 = (pts[i] + off[i - 1] * side) - a0;
        const Vec2 a1 = pts[i] + off[i] * side, d1 = (pts[i + 1] + off[i] * side) - a1;
        const double den = cross(d0, d1);
        if (den == 0.0) return false;
        const double t = cross(a1 - a0, d1) / den, u = cross(a1 - a0, d0) / den;
        const std::size_t k = side > 0.0 ? 1 : 0;
        to[2 * (i - 1) + k] = t;
        from[2 * i + k] = u;
        join[i] = a0 + d0 * t;
    }
    for (std::size_t i = 0; i + 1 < 2 * (n - 1); ++i) {
        if (!(from[i] < to[i]) || !(from[i] >= 0.0) || !(to[i] <= 1.0)) return false;
    }
    if (!(from.back() < to.back())) return false;

    std::vector<Vec2>& ring = mScratch;
    ring.clear();
    const auto turnArc = [&](Vec2 b, Vec2 s, Vec2 e) {
        ring.push_back(s);
        const double start = angleOf(s - b);
        double sweep = angleOf(e - b) - start;
        while (sweep <= 0.0) sweep += 2.0 * std::numbers::pi;
        arc(b, r, line.segments, line.phase, start, sweep, ring);
        ring.push_back(e);
    };
    ring.push_back(pts[0] - off[0]);
    for (std::size_t i = 1; i + 1 < n; ++i) {  // the right side, forward
        const Vec2 b = pts[i], o0 = off[i - 1], o1 = off[i];
        const double turn = cross(o0, o1);
        if (turn == 0.0) {
            ring.push_back(b - o0);
        } else if (turn > 0.0) {
            turnArc(b, b - o0, b - o1);
        } else {
            ring.push_back(join[i]);
        }
    }
    {
        const Vec2 b = pts[n - 1], o = off[n - 2];
        ring.push_back(b - o);
        arc(b, r, line.segments, line.phase, angleOf(Vec2{} - o), std::numbers::pi, ring);
        ring.push_back(b + o);
    }
    for (std::size_t i = n - 2; i >= 1; --i) {  // the left side, back
        const Vec2 b = pts[i], o0 = off[i - 1], o1 = off[i];
        const double turn = cross(o0, o1);
        if (turn == 0.0) {
            ring.push_back(b + o1);
        } else if (turn < 0.0) {
            turnArc(b, b + o1, b + o0);
        } else {
            ring.push_back(join[i]);
        }
    }
    {
        const Vec2 a = pts[0], o = off[0];
        ring.push_back(a + o);
        arc(a, r, line.segments, line.phase, angleOf(o), std::numbers::pi, ring);
    }
    for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 a = ring[i], b = ring[(i + 1) % ring.size()];
        if (a == b) continue;
        mOutlineEdges.push_back({a, b, -1, owner});
        mBounds.extend(a);
    }
    return true;
}

bool BufferUnion::keeps(const Edge& e, Vec2 a, Vec2 b) const {
    const Vec2 m = (a + b) * 0.5;
    const Vec2 dir = e.b - e.a;
    const int cx = std::clamp(static_cast<int>((m.x - mBounds.min.x) / mCell), 0, mCellsWide - 1);
    const int cy = std::clamp(static_cast<int>((m.y - mBounds.min.y) / mCell), 0, mCellsHigh - 1);
    const std::size_t cell = static_cast<std::size_t>(cy) * static_cast<std::size_t>(mCellsWide) + std::size_t(cx);
    for (std::uint32_t k = mPieceCellStart[cell]; k < mPieceCellStart[cell + 1]; ++k) {
        const Piece& q = mPieces[mPieceCellItems[k]];
        if (q.owner == e.owner) continue;
        if (m.x < q.box.min.x - kOnEdge || m.x > q.box.max.x + kOnEdge || m.y < q.box.min.y - kOnEdge ||
            m.y > q.box.max.y + kOnEdge) {
            continue;
        }
        double nearest = std::numeric_limits<double>::infinity();
        std::uint32_t side = 0;
        for (std::uint32_t v = 0; v < q.count; ++v) {
            const Halfplane& h = mHalfplanes[q.first + v];
            const double d = h.nx * m.x + h.ny * m.y - h.c;
            if (d < nearest) {
                nearest = d;
                side = v;
                if (nearest < -kOnEdge) break;
            }
        }
        if (nearest < -kOnEdge) continue;     // outside q
        if (nearest > kOnEdge) return false;  // inside q
        // On q's edge: inside the union when q lies on the other side, else one of the two keeps it.
        const Vec2 qa = mCorners[q.first + side], qb = mCorners[q.first + (side + 1) % q.count];
        if (dot(qb - qa, dir) < 0.0) return false;
        if (q.owner < e.owner) return false;
    }
    return true;
}

namespace {

/// How far apart a piece's end and the next one's start may be (cells): crossings computed at
/// (almost) a corner land within a few ulps of it, corners of two features at one node within
/// a few 1e-7.
constexpr double kSnap = 1e-6;

/// The start in `starting` nearest to `at` within kSnap, or its end(). A scan: it serves only
/// where the exact lookup failed, a few times a tile at most.
template <class Map>
typename Map::iterator nearestStart(Map& starting, Vec2 at) {
    auto best = starting.end();
    double bestDistance = kSnap;
    for (auto it = starting.begin(); it != starting.end(); ++it) {
        const double d = length(it->first - at);
        if (d <= bestDistance) bestDistance = d, best = it;
    }
    return best;
}

}  // namespace

bool BufferUnion::evaluate(std::vector<Vec2>& outline, std::vector<std::uint32_t>& ringEnds) {
    mCorners.clear();
    mPieces.clear();
    mEdges.clear();
    mOutlineEdges.clear();
    mOwnerLine.clear();
    mOwners = 0;
    mBounds = {};
    for (const Line& line : mLines) build(line);
    for (const Area& area : mAreas) build(area);
    if (mPieces.empty()) return true;

    // Each piece's edges as half-planes, for the inside tests; the boundary's candidate edges.
    mHalfplanes.resize(mCorners.size());
    for (const Piece& p : mPieces) {
        for (std::uint32_t i = 0; i < p.count; ++i) {
            const Vec2 a = mCorners[p.first + i], b = mCorners[p.first + (i + 1) % p.count];
            const Vec2 d = b - a;
            const double len = length(d);
            if (len == 0.0) {
                mHalfplanes[p.first + i] = {0.0, 0.0, -std::numeric_limits<double>::infinity()};
                continue;
            }
            const double nx = -d.y / len, ny = d.x / len;
            mHalfplanes[p.first + i] = {nx, ny, nx * a.x + ny * a.y};
            if (p.edges) mEdges.push_back({a, b, static_cast<int>(&p - mPieces.data()), p.owner});
        }
    }
    mEdges.insert(mEdges.end(), mOutlineEdges.begin(), mOutlineEdges.end());

    // The uniform grid: edges and pieces in every cell their box touches.
    mCellsWide = std::max(1, static_cast<int>(mBounds.width() / mCell) + 1);
    mCellsHigh = std::max(1, static_cast<int>(mBounds.height() / mCell) + 1);
    const std::size_t cells = static_cast<std::size_t>(mCellsWide) * static_cast<std::size_t>(mCellsHigh);
    const auto cellRange = [&](Vec2 lo, Vec2 hi, auto&& visit) {
        const int x0 = std::clamp(static_cast<int>((lo.x - mBounds.min.x) / mCell), 0, mCellsWide - 1);
        const int x1 = std::clamp(static_cast<int>((hi.x - mBounds.min.x) / mCell), 0, mCellsWide - 1);
        const int y0 = std::clamp(static_cast<int>((lo.y - mBounds.min.y) / mCell), 0, mCellsHigh - 1);
        const int y1 = std::clamp(static_cast<int>((hi.y - mBounds.min.y) / mCell), 0, mCellsHigh - 1);
        for (int y = y0; y <= y1; ++y) {
            for (int x = x0; x <= x1; ++x)
                visit(static_cast<std::size_t>(y) * std::size_t(mCellsWide) + std::size_t(x));
        }
    };
    const auto fill = [&](std::size_t count, auto&& boxOf, std::vector<std::uint32_t>& start,
                          std::vector<std::uint32_t>& items) {
        start.assign(cells + 1, 0);
        for (std::size_t i = 0; i < count; ++i) {
            const Box2 b = boxOf(i);
            cellRange(b.min, b.max, [&](std::size_t c) { ++start[c + 1]; });
        }
        for (std::size_t c = 0; c < cells; ++c) start[c + 1] += start[c];
        items.resize(start[cells]);
        std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
        for (std::size_t i = 0; i < count; ++i) {
            const Box2 b = boxOf(i);
            cellRange(b.min, b.max, [&](std::size_t c) { items[next[c]++] = static_cast<std::uint32_t>(i); });
        }
    };
    const auto edgeBox = [&](std::size_t i) {
        Box2 b;
        b.extend(mEdges[i].a);
        b.extend(mEdges[i].b);
        return b;
    };
    fill(mEdges.size(), edgeBox, mEdgeCellStart, mEdgeCellItems);
    fill(
        mPieces.size(), [&](std::size_t i) { return mPieces[i].box; }, mPieceCellStart, mPieceCellItems);

    // Crossings: each pair once, in the cell of its crossing (clamped to the cells both share).
    mSplits.resize(mEdges.size());
    for (std::size_t i = 0; i < mEdges.size(); ++i) mSplits[i].clear();
    const auto cellX = [&](double x) {
        return std::clamp(static_cast<int>((x - mBounds.min.x) / mCell), 0, mCellsWide - 1);
    };
    const auto cellY = [&](double y) {
        return std::clamp(static_cast<int>((y - mBounds.min.y) / mCell), 0, mCellsHigh - 1);
    };
    const auto minX = [&](std::uint32_t i) { return std::min(mEdges[i].a.x, mEdges[i].b.x); };
    for (std::size_t c = 0; c < cells; ++c) {
        // The cell's edges by their west end: a pair is looked at only while their x ranges meet.
        const auto cellBegin = mEdgeCellItems.begin() + mEdgeCellStart[c];
        const auto cellEnd = mEdgeCellItems.begin() + mEdgeCellStart[c + 1];
        std::sort(cellBegin, cellEnd, [&](std::uint32_t a, std::uint32_t b) {
            const double xa = minX(a), xb = minX(b);
            return xa < xb || (xa == xb && a < b);
        });
        for (std::uint32_t ii = mEdgeCellStart[c]; ii < mEdgeCellStart[c + 1]; ++ii) {
            const double eastEnd = std::max(mEdges[mEdgeCellItems[ii]].a.x, mEdges[mEdgeCellItems[ii]].b.x);
            for (std::uint32_t jj = ii + 1; jj < mEdgeCellStart[c + 1]; ++jj) {
                const std::uint32_t i = mEdgeCellItems[ii], j = mEdgeCellItems[jj];
                if (minX(j) > eastEnd) break;
                const Edge& e = mEdges[i];
                const Edge& f = mEdges[j];
                if (e.piece >= 0 && e.piece == f.piece) continue;
                if (boxesApart(e.a, e.b, f.a, f.b)) continue;
                if (e.a == f.a || e.a == f.b || e.b == f.a || e.b == f.b) continue;
                const bool eFirst = before(e.a, e.b, f.a, f.b);
                const Edge& p = eFirst ? e : f;
                const Edge& q = eFirst ? f : e;
                const Vec2 r = p.b - p.a, s = q.b - q.a;
                const double den = cross(r, s);
                if (den == 0.0) continue;  // parallel: a shared stretch is settled by keeps()
                const Vec2 w = q.a - p.a;
                const double t = cross(w, s) / den, u = cross(w, r) / den;
                if (!(t > 0.0 && t < 1.0 && u > 0.0 && u < 1.0)) continue;
                const Vec2 at = p.a + r * t;
                const int x =
                    std::clamp(cellX(at.x), std::max(cellX(std::min(e.a.x, e.b.x)), cellX(std::min(f.a.x, f.b.x))),
                               std::min(cellX(std::max(e.a.x, e.b.x)), cellX(std::max(f.a.x, f.b.x))));
                const int y =
                    std::clamp(cellY(at.y), std::max(cellY(std::min(e.a.y, e.b.y)), cellY(std::min(f.a.y, f.b.y))),
                               std::min(cellY(std::max(e.a.y, e.b.y)), cellY(std::max(f.a.y, f.b.y))));
                if (static_cast<std::size_t>(y) * std::size_t(mCellsWide) + std::size_t(x) != c) continue;
                if (e.piece < 0 && f.piece < 0 && e.owner == f.owner) mSelfCrossed.push_back(e.owner);
                mSplits[i].push_back({eFirst ? t : u, at});
                mSplits[j].push_back({eFirst ? u : t, at});
            }
        }
    }
    if (!mSelfCrossed.empty()) {
        std::sort(mSelfCrossed.begin(), mSelfCrossed.end());
        mSelfCrossed.erase(std::unique(mSelfCrossed.begin(), mSelfCrossed.end()), mSelfCrossed.end());
        return false;
    }

    // The kept pieces of edges, then linked by their end points.
    struct Kept {
        Vec2 a, b;
    };
    std::vector<Kept> kept;
    for (std::size_t i = 0; i < mEdges.size(); ++i) {
        const Edge& e = mEdges[i];
        std::vector<Split>& splits = mSplits[i];
        std::sort(splits.begin(), splits.end(), [](const Split& x, const Split& y) { return x.t < y.t; });
        Vec2 from = e.a;
        for (const Split& s : splits) {
            if (s.at == from) continue;
            if (keeps(e, from, s.at)) kept.push_back({from, s.at});
            from = s.at;
        }
        if (!(e.b == from) && keeps(e, from, e.b)) kept.push_back({from, e.b});
    }
    // Pieces by their first point; where two boundaries touch at a point, several start there.
    std::unordered_map<Vec2, std::uint32_t, PointHash> starting;
    starting.reserve(kept.size() * 2);
    std::vector<std::uint32_t> alsoStarting(kept.size(), kNone);  // the next piece from the same point
    for (std::uint32_t k = 0; k < kept.size(); ++k) {
        const auto [it, fresh] = starting.emplace(kept[k].a, k);
        if (!fresh) {
            alsoStarting[k] = it->second;
            it->second = k;
        }
    }
    std::vector<char> used(kept.size(), 0);
    for (std::uint32_t first = 0; first < kept.size(); ++first) {
        if (used[first]) continue;
        const std::size_t ringStart = outline.size();
        std::uint32_t k = first;
        for (;;) {
            used[k] = 1;
            outline.push_back(kept[k].a);
            auto found = starting.find(kept[k].b);
            if (found == starting.end()) {
                // Three edges through one point, or two corners a hair apart: the crossing
                // computed is a few ulps off the corner. The nearest start within kSnap serves.
                found = nearestStart(starting, kept[k].b);
                if (found == starting.end()) return false;  // a piece leads nowhere
            }
            // Of the pieces from that point, the one turning most to the left (the interior's
            // side): where two rings touch, each stays one ring.
            const Vec2 in = kept[k].b - kept[k].a;
            std::uint32_t best = kNone;
            double bestTurn = -std::numeric_limits<double>::infinity();
            for (std::uint32_t c = found->second; c != kNone; c = alsoStarting[c]) {
                if (used[c] && c != first) continue;
                const Vec2 out = kept[c].b - kept[c].a;
                const double turn = std::atan2(cross(in, out), dot(in, out));
                if (turn > bestTurn) bestTurn = turn, best = c;
            }
            if (best == kNone) return false;
            if (best == first) break;
            k = best;
        }
        if (outline.size() - ringStart < 3) {  // two pieces there and back: no area
            outline.resize(ringStart);
            continue;
        }
        ringEnds.push_back(static_cast<std::uint32_t>(outline.size()));
    }
    return true;
}

}  // namespace terrabit::core::placement::detail
