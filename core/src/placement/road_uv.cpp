#include "terrabit/core/placement/road_uv.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

#include "terrabit/core/terrain/ground_grading.h"

namespace terrabit::core::placement {

namespace {

/// Buckets (kBucketCells square) the tile's segments and mitres are sorted into.
constexpr int kBucketCells = 16;
constexpr int kBuckets = kTileCells / kBucketCells;
constexpr std::size_t kBucketCount = static_cast<std::size_t>(kBuckets * kBuckets);
/// The steepest mitre kept, as the tangent of its angle to the segment's normal (about 76°):
/// at sharper bends the mitre lines of a wide way cross near the road, and the segment's own
/// normal is used instead (a seam at that bend only).
constexpr double kMostMitreTangent = 4.0;
/// Bends whose mitre's tangent is below this (a turn under about 1°) cut no triangle: the two
/// segments' coordinates differ there by less than 1 % of the offset across the road.
constexpr double kLeastCutTangent = 0.01;

/// One segment of a way near the tile, in tile cells.
struct Segment {
    Vec2 a;                  ///< its first vertex
    Vec2 d, n;               ///< unit direction and unit left normal (x east, y south: n = (d.y, −d.x))
    double length = 0.0;     ///< cells
    double along = 0.0;      ///< cells from its part's first vertex to a
    double tanStart = 0.0;   ///< the mitre line at a: along-offset per cell of left offset
    double tanEnd = 0.0;     ///< the same at its end
    double halfWidth = 0.0;  ///< its way's, cells
    std::uint32_t way = 0;   ///< index into the tile's ways
};

/// A way's segments near the tile: [begin, end) of the segment list.
struct Way {
    std::uint32_t begin = 0, end = 0;
};

/// The mitre line across a way at one of its bends, where the road is: the points a + line · o
/// for left offsets o in [lo, hi] (cells) — the points of the line within the way's half width
/// and kRoadUvReachCells of its two segments, a stretch the tile index holds the way for in
/// every tile it crosses.
struct Mitre {
    Vec2 a;
    Vec2 line;  ///< n + d · t of the segment after the bend: one cell of offset per unit
    double lo = 0.0, hi = 0.0;
    /// The segments it lies between: their maps, which meet on it, are the coordinates around
    /// the bend, the same in every tile (the tile's own segments near a point differ).
    Segment before, after;

    /// Positive ahead of the line (along the way), negative behind it, zero on it.
    double side(Vec2 p) const { return cross(line, p - a); }
};

/// The distance (cells) from p to the segment.
double distanceTo(const Segment& s, Vec2 p) {
    const Vec2 r = p - s.a;
    const double x = std::clamp(dot(r, s.d), 0.0, s.length);
    return length(r - s.d * x);
}

/// Where p lies along the segment between its two mitre lines: 0 on the first, 1 on the second
/// (outside [0, 1] beyond them), and its left offset (cells).
std::pair<double, double> mitreFraction(const Segment& s, Vec2 p) {
    const Vec2 r = p - s.a;
    const double x = dot(r, s.d), o = dot(r, s.n);
    const double start = o * s.tanStart, end = s.length + o * s.tanEnd;
    // Far out on the inside of a sharp bend the two mitre lines cross: plain projection there.
    if (end - start < 0.25 * s.length) return {x / s.length, o};
    return {(x - start) / (end - start), o};
}

/// The mitre tangent of the bend between segments with left normals n0 and n1, seen from the
/// segment with direction d and normal n: the bisector b = n0 + n1 meets offset o at along o·t.
double mitreTangent(Vec2 n0, Vec2 n1, Vec2 d, Vec2 n) {
    const Vec2 b = n0 + n1;
    const double bn = dot(b, n);
    if (!(bn > 1e-6)) return 0.0;  // a U-turn: no bisector between them
    const double t = dot(b, d) / bn;
    return std::abs(t) <= kMostMitreTangent ? t : 0.0;
}

/// (along, across) in cells of p by the segment's map.
Vec2 onSegment(const Segment& s, Vec2 p) {
    const auto [f, across] = mitreFraction(s, p);
    return {s.along + f * s.length, across};
}

/// The coordinates around a bend: the map of the segment on p's side of its mitre line.
Vec2 aroundBend(const Mitre& m, Vec2 p) { return onSegment(m.side(p) >= 0.0 ? m.after : m.before, p); }

int bucketOf(double v) { return std::clamp(static_cast<int>(std::floor(v / kBucketCells)), 0, kBuckets - 1); }

/// Adds item i to every bucket the box [lo, hi] (tile cells) touches.
void addToBuckets(std::array<std::vector<std::uint32_t>, kBucketCount>& buckets, Vec2 lo, Vec2 hi, std::uint32_t i) {
    for (int y = bucketOf(lo.y); y <= bucketOf(hi.y); ++y) {
        for (int x = bucketOf(lo.x); x <= bucketOf(hi.x); ++x)
            buckets[static_cast<std::size_t>(y * kBuckets + x)].push_back(i);
    }
}

class Ways {
public:
    /// The line features of `inLayer` whose segments come near the tile.
    Ways(const TileIndex& index, std::size_t slot, const TileId& tile, const std::vector<char>& inLayer,
         bool leaveOutBridges) {
        const Vec2 offset{double(tile.x) * kTileCells, double(tile.y) * kTileCells};
        for (const TileIndex::EntryInfo& info : index.entryInfos(slot)) {
            if (info.kind != FeatureKind::Line || info.layer >= inLayer.size() || !inLayer[info.layer]) continue;
            if (!(info.sizeCells > 0.0)) continue;  // no width: no surface
            if (leaveOutBridges && terrain::isBridgeWay(*index.map().entries[info.entry].feature)) continue;
            const std::span<const Vec2> cells = index.cells(info);
            std::uint32_t begin = 0;
            for (const std::uint32_t end : index.partEnds(info)) {
                addPart(cells.subspan(begin, end - begin), offset, info.sizeCells);
                begin = end;
            }
        }
        // Each segment in the buckets its reach (half width and kRoadUvReachCells) touches, each
        // mitre in those its extent touches.
        for (std::uint32_t i = 0; i < mSegments.size(); ++i) {
            const Segment& s = mSegments[i];
            const Vec2 b = s.a + s.d * s.length;
            const double grow = s.halfWidth + kRoadUvReachCells;
            addToBuckets(mSegmentBuckets, Vec2{std::min(s.a.x, b.x) - grow, std::min(s.a.y, b.y) - grow},
                         Vec2{std::max(s.a.x, b.x) + grow, std::max(s.a.y, b.y) + grow}, i);
        }
        // Mitres in the order they cut (by where they stand, the same in every tile: an edge two
        // tiles share must be cut alike), so a triangle's are in index order.
        std::sort(mMitres.begin(), mMitres.end(), [](const Mitre& a, const Mitre& b) {
            return std::tie(a.a.x, a.a.y, a.line.x, a.line.y) < std::tie(b.a.x, b.a.y, b.line.x, b.line.y);
        });
        mSeen.assign(mMitres.size(), std::numeric_limits<std::size_t>::max());
        for (std::uint32_t i = 0; i < mMitres.size(); ++i) {
            const Mitre& m = mMitres[i];
            const Vec2 p = m.a + m.line * m.lo, q = m.a + m.line * m.hi;
            addToBuckets(mMitreBuckets, Vec2{std::min(p.x, q.x), std::min(p.y, q.y)},
                         Vec2{std::max(p.x, q.x), std::max(p.y, q.y)}, i);
        }
    }

    /// The way a point (tile cells) lies deepest in: the least distance to its centreline less
    /// its half width, no more than kRoadUvReachCells; -1 for none. Ties go to the earlier way.
    int deepestAt(Vec2 p) const {
        if (!(p.x >= 0.0 && p.y >= 0.0 && p.x <= kTileCells && p.y <= kTileCells)) return -1;
        double best = kRoadUvReachCells;
        int way = -1;
        for (const std::uint32_t i : mSegmentBuckets[bucketIndex(p)]) {
            const Segment& s = mSegments[i];
            // Most segments of a bucket lie further than the best so far: the squared distance
            // tells without a root.
            const Vec2 r = p - s.a;
            const double x = std::clamp(dot(r, s.d), 0.0, s.length);
            const Vec2 foot = r - s.d * x;
            const double reach = best + s.halfWidth;
            if (reach < 0.0 || dot(foot, foot) > reach * reach) continue;
            const double depth = length(foot) - s.halfWidth;
            if (depth < best || (depth == best && way >= 0 && static_cast<int>(s.way) < way)) {
                best = depth;
                way = static_cast<int>(s.way);
            }
        }
        return way;
    }

    /// (along, across) in cells of p on way w: by the map of the segment whose mitre lines
    /// enclose it (the nearest such), else of the nearest segment. Two segments meeting at a
    /// bend give a point on its mitre line the same coordinates, so they are continuous.
    Vec2 coordinates(int w, Vec2 p) const {
        // The segment whose mitre lines enclose p, the nearest such, else the nearest.
        struct Choice {
            const Segment* segment = nullptr;
            bool enclosed = false;
            double distance = 0.0;
            void consider(const Segment& s, Vec2 q) {
                const double f = mitreFraction(s, q).first;
                const bool e = f >= 0.0 && f <= 1.0;
                const double d = distanceTo(s, q);
                if (!segment || (e && !enclosed) || (e == enclosed && d < distance)) *this = {&s, e, d};
            }
        };
        // First the way's segments whose reach holds p's bucket (a point on the road lies
        // within its segment's reach); all of the way's when none of those encloses it.
        Choice choice;
        if (p.x >= 0.0 && p.y >= 0.0 && p.x <= kTileCells && p.y <= kTileCells) {
            for (const std::uint32_t i : mSegmentBuckets[bucketIndex(p)]) {
                if (static_cast<int>(mSegments[i].way) == w) choice.consider(mSegments[i], p);
            }
        }
        if (!choice.enclosed) {
            const Way& way = mWays[static_cast<std::size_t>(w)];
            choice = {};
            for (std::uint32_t i = way.begin; i < way.end; ++i) choice.consider(mSegments[i], p);
        }
        return onSegment(*choice.segment, p);
    }

    /// The mitres whose extent the triangle (number `id`, new for each) meets, in the order
    /// they cut, into `out`.
    void mitresAcross(const std::array<Vec2, 3>& t, std::size_t id, std::vector<std::uint32_t>& out) {
        out.clear();
        const Vec2 lo{std::min({t[0].x, t[1].x, t[2].x}), std::min({t[0].y, t[1].y, t[2].y})};
        const Vec2 hi{std::max({t[0].x, t[1].x, t[2].x}), std::max({t[0].y, t[1].y, t[2].y})};
        for (int y = bucketOf(lo.y); y <= bucketOf(hi.y); ++y) {
            for (int x = bucketOf(lo.x); x <= bucketOf(hi.x); ++x) {
                for (const std::uint32_t i : mMitreBuckets[static_cast<std::size_t>(y * kBuckets + x)]) {
                    if (mSeen[i] == id) continue;
                    mSeen[i] = id;
                    if (meets(mMitres[i], t)) out.push_back(i);
                }
            }
        }
        std::sort(out.begin(), out.end());
    }

    const Mitre& mitre(std::uint32_t i) const { return mMitres[i]; }

private:
    static std::size_t bucketIndex(Vec2 p) {
        return static_cast<std::size_t>(bucketOf(p.y) * kBuckets + bucketOf(p.x));
    }

    /// Whether the mitre's extent crosses the triangle's interior: its line has corners strictly
    /// on both sides, and where it crosses the triangle comes within the extent.
    static bool meets(const Mitre& m, const std::array<Vec2, 3>& t) {
        const std::array<double, 3> f{m.side(t[0]), m.side(t[1]), m.side(t[2])};
        if (!(std::min({f[0], f[1], f[2]}) < 0.0 && std::max({f[0], f[1], f[2]}) > 0.0)) return false;
        const double unit = dot(m.line, m.line);
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (std::size_t k = 0; k < 3; ++k) {
            const std::size_t j = (k + 1) % 3;
            if ((f[k] >= 0.0) == (f[j] >= 0.0)) continue;
            const Vec2 x = t[k] + (t[j] - t[k]) * (f[k] / (f[k] - f[j]));
            const double o = dot(x - m.a, m.line) / unit;
            lo = std::min(lo, o);
            hi = std::max(hi, o);
        }
        return hi >= m.lo && lo <= m.hi;
    }

    /// One part of a line (global cells): its segments that come near the tile, with their
    /// distances along it and the mitre lines at their ends, and its bends' mitres there.
    void addPart(std::span<const Vec2> part, Vec2 offset, double halfWidth) {
        // The part's non-degenerate segments, all of them: a bend's mitre needs both sides, and
        // the distance along needs every segment before.
        mPart.clear();
        double along = 0.0;
        for (std::size_t i = 0; i + 1 < part.size(); ++i) {
            const Vec2 a = part[i] - offset, b = part[i + 1] - offset;
            const double len = length(b - a);
            if (!(len > 1e-9) || !std::isfinite(len)) continue;
            Segment s;
            s.a = a;
            s.d = (b - a) * (1.0 / len);
            s.n = {s.d.y, -s.d.x};
            s.length = len;
            s.along = along;
            s.halfWidth = halfWidth;
            s.way = static_cast<std::uint32_t>(mWays.size());
            mPart.push_back(s);
            along += len;
        }
        for (std::size_t i = 0; i < mPart.size(); ++i) {
            Segment& s = mPart[i];
            if (i > 0) s.tanStart = mitreTangent(mPart[i - 1].n, s.n, s.d, s.n);
            if (i + 1 < mPart.size()) s.tanEnd = mitreTangent(s.n, mPart[i + 1].n, s.d, s.n);
        }
        Way way;
        way.begin = static_cast<std::uint32_t>(mSegments.size());
        const double reach = halfWidth + kRoadUvReachCells;
        const auto near = [&](Vec2 a, Vec2 b, double grow) {
            return std::max(a.x, b.x) >= -grow && std::min(a.x, b.x) <= kTileCells + grow &&
                   std::max(a.y, b.y) >= -grow && std::min(a.y, b.y) <= kTileCells + grow;
        };
        for (std::size_t i = 0; i < mPart.size(); ++i) {
            const Segment& s = mPart[i];
            if (near(s.a, s.a + s.d * s.length, reach)) mSegments.push_back(s);
            if (i == 0 || !(std::abs(s.tanStart) >= kLeastCutTangent)) continue;
            // On the bend's inner side (left for a left turn, t > 0) the line's points lie
            // |o| from both segments; on the outer side |o| √(1 + t²) from the vertex.
            const double outer = reach / std::sqrt(1.0 + s.tanStart * s.tanStart);
            Mitre m{s.a,
                    s.n + s.d * s.tanStart,
                    s.tanStart > 0.0 ? -outer : -reach,
                    s.tanStart > 0.0 ? reach : outer,
                    mPart[i - 1],
                    s};
            if (near(m.a + m.line * m.lo, m.a + m.line * m.hi, 1.0)) mMitres.push_back(m);
        }
        way.end = static_cast<std::uint32_t>(mSegments.size());
        if (way.end > way.begin) mWays.push_back(way);
    }

    std::vector<Segment> mSegments;
    std::vector<Way> mWays;
    std::vector<Mitre> mMitres;
    std::vector<std::size_t> mSeen;  ///< per mitre: the last triangle mitresAcross looked at it for
    std::vector<Segment> mPart;      ///< addPart's scratch
    std::array<std::vector<std::uint32_t>, kBucketCount> mSegmentBuckets, mMitreBuckets;
};

/// A corner of a triangle on a way, exactly: the key of its coordinates.
struct CornerKey {
    std::uint64_t x = 0, y = 0;
    int way = 0;
    friend bool operator==(const CornerKey&, const CornerKey&) = default;
};
struct CornerHash {
    std::size_t operator()(const CornerKey& k) const {
        return std::hash<std::uint64_t>{}((k.x * 0x9e3779b97f4a7c15ULL) ^
                                          (k.y + 0x632be59bd9b4e019ULL * std::uint64_t(k.way)));
    }
};

/// Convex polygons, their storage kept from one triangle to the next (no allocation once grown).
struct Pieces {
    std::vector<std::vector<Vec2>> polygons;
    std::size_t count = 0;

    void reset(std::span<const Vec2> first) {
        count = 0;
        add(first);
    }
    void add(std::span<const Vec2> polygon) {
        if (count == polygons.size()) polygons.emplace_back();
        polygons[count++].assign(polygon.begin(), polygon.end());
    }
};

/// Cuts the convex polygons of `pieces` at a mitre: where the line crosses a polygon's two
/// edges within the mitre's extent, into its parts behind and ahead of it; where it crosses one
/// edge within the extent and one beyond (a triangle reaching out of the road at a junction),
/// only that edge gets the crossing as a corner. So whether an edge is cut, and where, depends
/// on the edge alone: the polygon on its other side, in this tile or the next, cuts it at the
/// same point (computed from its ends in a fixed order) or not at all. Orientation is kept.
void cutPieces(const Mitre& m, double toleranceCells, Pieces& pieces, std::vector<Vec2>& behind,
               std::vector<Vec2>& ahead) {
    const double unit = dot(m.line, m.line);
    // Where the line crosses edge ab, and whether the edge needs a corner there: the crossing
    // lies within the mitre's extent, and the way's coordinates there are further than the
    // tolerance from what the edge's ends interpolate (a slight bend over a short edge needs
    // none). Both depend on the edge alone.
    struct Crossing {
        Vec2 at;
        bool needed = false;
    };
    const auto crossing = [&](Vec2 a, Vec2 b, double fa, double fb) {
        const bool forward = a.x < b.x || (a.x == b.x && a.y < b.y);
        const Vec2 e0 = forward ? a : b, e1 = forward ? b : a;
        const double f0 = forward ? fa : fb, f1 = forward ? fb : fa;
        const double t = f0 / (f0 - f1);
        Crossing c{e0 + (e1 - e0) * t, false};
        // Through a corner: cutting there adds no corner to anyone's edge.
        if (f0 == 0.0 || f1 == 0.0) {
            c.at = f0 == 0.0 ? e0 : e1;
            c.needed = true;
            return c;
        }
        const double o = dot(c.at - m.a, m.line) / unit;
        if (!(o >= m.lo && o <= m.hi)) return c;
        const Vec2 u0 = aroundBend(m, e0), u1 = aroundBend(m, e1);
        c.needed = !(length(aroundBend(m, c.at) - (u0 + (u1 - u0) * t)) <= toleranceCells);
        return c;
    };
    const std::size_t count = pieces.count;
    for (std::size_t p = 0; p < count; ++p) {
        std::vector<Vec2>& poly = pieces.polygons[p];
        bool before = false, after = false;
        for (const Vec2& v : poly) {
            const double f = m.side(v);
            before = before || f < 0.0;
            after = after || f > 0.0;
        }
        if (!before || !after) continue;
        // The two edges the line crosses, and whether each crossing lies within the extent.
        std::size_t edges[2] = {0, 0}, found = 0;
        Vec2 points[2];
        bool inside[2] = {false, false};
        for (std::size_t k = 0; k < poly.size() && found < 2; ++k) {
            const Vec2 a = poly[k], b = poly[(k + 1) % poly.size()];
            const double fa = m.side(a), fb = m.side(b);
            if ((fa >= 0.0) == (fb >= 0.0)) continue;
            edges[found] = k;
            const Crossing c = crossing(a, b, fa, fb);
            points[found] = c.at;
            inside[found] = c.needed;
            ++found;
        }
        if (found < 2 || (!inside[0] && !inside[1])) continue;
        if (inside[0] != inside[1]) {
            // The needed crossing becomes a corner, and the piece is split along the chord from
            // it to the corner nearest the other crossing: close to the mitre line, and no
            // corner on the other edge.
            const std::size_t at = inside[0] ? 0 : 1, other = 1 - at;
            const std::size_t p1 = edges[at] + 1;
            poly.insert(poly.begin() + static_cast<std::ptrdiff_t>(p1), points[at]);
            const std::size_t n = poly.size();
            const std::size_t e = edges[other] + (edges[other] > edges[at] ? 1 : 0);
            const std::size_t v =
                length(poly[e] - points[other]) <= length(poly[(e + 1) % n] - points[other]) ? e : (e + 1) % n;
            if (v == p1 || v == (p1 + 1) % n || (v + 1) % n == p1) continue;  // the chord is an edge
            ahead.clear();
            behind.clear();
            for (std::size_t k = p1;; k = (k + 1) % n) {
                ahead.push_back(poly[k]);
                if (k == v) break;
            }
            for (std::size_t k = v;; k = (k + 1) % n) {
                behind.push_back(poly[k]);
                if (k == p1) break;
            }
            poly.assign(behind.begin(), behind.end());
            pieces.add(ahead);
            continue;
        }
        behind.clear();
        ahead.clear();
        for (std::size_t k = 0; k < poly.size(); ++k) {
            const Vec2 a = poly[k];
            (m.side(a) >= 0.0 ? ahead : behind).push_back(a);
            for (std::size_t e = 0; e < 2; ++e) {
                if (edges[e] != k) continue;
                ahead.push_back(points[e]);
                behind.push_back(points[e]);
            }
        }
        poly.assign(behind.begin(), behind.end());
        pieces.add(ahead);
    }
}

}  // namespace

void roadTextureCoordinates(const TileIndex& index, const TileId& tile, const std::vector<char>& inLayer,
                            double metresPerCell, bool leaveOutBridges, std::vector<Vec2>& triangles,
                            std::vector<Vec2>& out) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    out.assign(triangles.size(), Vec2{kNaN, kNaN});
    const std::optional<std::size_t> slot = index.slot(tile);
    if (!slot || !(metresPerCell > 0.0)) return;
    Ways ways(index, *slot, tile, inLayer, leaveOutBridges);
    const double tolerance = kRoadUvToleranceMetres / metresPerCell;
    std::vector<Vec2> cut, uv;
    cut.reserve(triangles.size());
    uv.reserve(triangles.size());
    std::vector<std::uint32_t> mitres;
    Pieces pieces;
    std::unordered_map<CornerKey, Vec2, CornerHash> known;
    known.reserve(triangles.size());
    std::vector<Vec2> behind, ahead;
    for (std::size_t i = 0; i + 2 < triangles.size(); i += 3) {
        const std::array<Vec2, 3> corners{triangles[i], triangles[i + 1], triangles[i + 2]};
        // Cut at the bends' mitre lines the triangle spans: each piece then lies on one segment's
        // stretch of its way, where the coordinates are nearly linear (interpolating one map
        // across a bend would turn the texture with the triangle instead of the road).
        ways.mitresAcross(corners, i, mitres);
        pieces.reset(corners);
        for (const std::uint32_t m : mitres) cutPieces(ways.mitre(m), tolerance, pieces, behind, ahead);
        for (std::size_t n = 0; n < pieces.count; ++n) {
            const std::vector<Vec2>& piece = pieces.polygons[n];
            Vec2 centroid{};
            for (const Vec2& v : piece) centroid = centroid + v;
            centroid = centroid * (1.0 / static_cast<double>(piece.size()));
            const int way = ways.deepestAt(centroid);
            const auto add = [&](Vec2 a, Vec2 b, Vec2 c) {
                if (cross(b - a, c - a) == 0.0) return;
                for (const Vec2 v : {a, b, c}) {
                    cut.push_back(v);
                    if (way < 0) {
                        uv.push_back(Vec2{kNaN, kNaN});
                        continue;
                    }
                    // A corner is shared by several triangles of its way: computed once.
                    const CornerKey key{std::bit_cast<std::uint64_t>(v.x), std::bit_cast<std::uint64_t>(v.y), way};
                    auto [it, added] = known.try_emplace(key);
                    if (added) it->second = ways.coordinates(way, v) * metresPerCell;
                    uv.push_back(it->second);
                }
            };
            // A piece with a corner in the middle of an edge (a crossing cutPieces only added)
            // is fanned from its centroid, so that corner is one of a triangle's; any other from
            // its first corner. Either keeps the triangle's turn.
            bool straight = false;
            for (std::size_t k = 0; k < piece.size() && !straight; ++k) {
                const Vec2 a = piece[(k + piece.size() - 1) % piece.size()], b = piece[k],
                           c = piece[(k + 1) % piece.size()];
                straight = cross(b - a, c - b) == 0.0;
            }
            for (std::size_t k = 0; k < piece.size(); ++k) {
                if (straight) {
                    add(centroid, piece[k], piece[(k + 1) % piece.size()]);
                } else if (k >= 1 && k + 1 < piece.size()) {
                    add(piece[0], piece[k], piece[k + 1]);
                }
            }
        }
    }
    triangles.swap(cut);
    out.swap(uv);
}

}  // namespace terrabit::core::placement
