#include "terrabit/core/raster/rasterizer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

// The scan conversion is compiled twice on x86-64: for x86-64-v3 (AVX2, BMI2: one-uop variable
// shifts for the span masks, three-operand arithmetic) and for the baseline; the loader picks
// one for the running CPU. The v3 clone may fuse the stepped crossing estimates into FMAs, which
// changes them in the last bits; that cannot change a cell, since any estimate within the guard
// of a cell boundary is recomputed with the division formula (nothing there to fuse), so both
// clones give identical bits.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define TERRABIT_SCAN_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
// The helpers the cloned loops call are inlined into them, or the clones would call the
// baseline helper.
#define TERRABIT_INLINE [[gnu::always_inline]] inline
#define TERRABIT_LAMBDA_INLINE __attribute__((always_inline))
#else
#define TERRABIT_SCAN_CLONES
#define TERRABIT_INLINE inline
#define TERRABIT_LAMBDA_INLINE
#endif

namespace terrabit::core {

namespace {

constexpr double kMaxDouble = std::numeric_limits<double>::max();

/// The grid grown by Rasterizer::kReachCells on every side: where points are used as they are.
Box2 reachOf(int width, int height) {
    constexpr double kReach = Rasterizer::kReachCells;
    return {{-kReach, -kReach}, {width + kReach, height + kReach}};
}

/// True when some point lies more than `halfWidth` / `halfHeight` from `centre` or is not finite
/// (a NaN fails the comparison, an infinity is beyond). One branch-free pass that vectorizes:
/// every polygon and polyline goes through it.
TERRABIT_INLINE bool anyBeyond(std::span<const Vec2> points, Vec2 centre, double halfWidth, double halfHeight) {
    std::uint64_t flagged = 0;
    for (const Vec2& p : points) {
        flagged |= !(std::abs(p.x - centre.x) <= halfWidth);
        flagged |= !(std::abs(p.y - centre.y) <= halfHeight);
    }
    return flagged != 0;
}

bool within(const Box2& box, Vec2 p) {
    return p.x >= box.min.x && p.x <= box.max.x && p.y >= box.min.y && p.y <= box.max.y;  // false for NaN
}

/// The point where the segment a-b crosses coordinate Axis = bound, bound strictly between the
/// ends' coordinates. Worked out from the ends in a fixed order, so an edge walked either way (a
/// two-point ring) gives the same point, and on halved coordinates, so that no difference of two
/// finite coordinates overflows.
template <int Axis>
Vec2 crossingAt(Vec2 a, Vec2 b, double bound) {
    if (b.x < a.x || (b.x == a.x && b.y < a.y)) std::swap(a, b);
    const double aAlong = Axis == 0 ? a.x : a.y, bAlong = Axis == 0 ? b.x : b.y;
    const double aAcross = Axis == 0 ? a.y : a.x, bAcross = Axis == 0 ? b.y : b.x;
    const double t = (0.5 * bound - 0.5 * aAlong) / (0.5 * bAlong - 0.5 * aAlong);  // in [0, 1]
    const double across =
        std::clamp(2.0 * (0.5 * aAcross + t * (0.5 * bAcross - 0.5 * aAcross)), -kMaxDouble, kMaxDouble);
    return Axis == 0 ? Vec2{bound, across} : Vec2{across, bound};
}

/// One Sutherland–Hodgman pass: the closed ring `in` clipped to the half plane where coordinate
/// Axis is >= bound (Lower) or <= bound, appended to out. For every point of that half plane
/// the clipped ring winds as the ring did: what is cut away, closed by pieces of the bound's
/// line, lies in the other half plane.
template <int Axis, bool Lower>
void clipRingPass(std::span<const Vec2> in, double bound, std::vector<Vec2>& out) {
    if (in.empty()) return;
    auto inside = [bound](Vec2 p) {
        const double v = Axis == 0 ? p.x : p.y;
        return Lower ? v >= bound : v <= bound;
    };
    Vec2 previous = in.back();
    bool previousInside = inside(previous);
    for (const Vec2 p : in) {
        const bool pInside = inside(p);
        if (pInside != previousInside) out.push_back(crossingAt<Axis>(previous, p, bound));
        if (pInside) out.push_back(p);
        previous = p;
        previousInside = pInside;
    }
}

/// Clips the segment a-b to box (Liang–Barsky on halved coordinates, so that b - a cannot
/// overflow); false when nothing of it is left. An end inside the box is kept as it is.
bool clipSegment(Vec2& a, Vec2& b, const Box2& box) {
    const Vec2 ha = a * 0.5, hb = b * 0.5;
    const Vec2 d = hb - ha;
    double t0 = 0.0, t1 = 1.0;
    auto side = [&](double p, double q) {  // p t <= q
        if (p == 0.0) return q >= 0.0;
        const double t = q / p;
        if (p < 0.0) {
            if (t > t1) return false;
            t0 = std::max(t0, t);
        } else {
            if (t < t0) return false;
            t1 = std::min(t1, t);
        }
        return true;
    };
    if (!side(-d.x, ha.x - 0.5 * box.min.x) || !side(d.x, 0.5 * box.max.x - ha.x) ||
        !side(-d.y, ha.y - 0.5 * box.min.y) || !side(d.y, 0.5 * box.max.y - ha.y)) {
        return false;
    }
    auto at = [&](double t) {
        const Vec2 p = (ha + d * t) * 2.0;
        return Vec2{std::clamp(p.x, box.min.x, box.max.x), std::clamp(p.y, box.min.y, box.max.y)};
    };
    if (t0 > 0.0) a = at(t0);
    if (t1 < 1.0) b = at(t1);
    return true;
}

}  // namespace

Status Rasterizer::preparePolygon(const PolygonView& shape, int width, int height, PolygonView& scan) {
    scan = shape;
    std::uint32_t previous = 0;
    for (std::size_t r = 0; r < shape.ringEnds.size(); ++r) {
        const std::uint32_t end = shape.ringEnds[r];
        if (end < previous || end > shape.points.size()) {
            return Error{"polygon ring " + std::to_string(r) + " ends at point " + std::to_string(end) +
                         ", outside the " + std::to_string(shape.points.size()) + " points given"};
        }
        previous = end;
    }
    const Vec2 offset = shape.offset;
    if (!isFinite(offset)) return Error{"polygon offset has a NaN or infinite coordinate"};
    // Measured from the reach box's centre in the shape's own frame; the slow search for the
    // culprit only when there is one.
    const double halfWidth = 0.5 * std::max(width, 0) + kReachCells;
    const double halfHeight = 0.5 * std::max(height, 0) + kReachCells;
    const Vec2 centre = offset + Vec2{0.5 * std::max(width, 0), 0.5 * std::max(height, 0)};
    if (!anyBeyond(shape.points, centre, halfWidth, halfHeight)) return {};
    for (std::size_t i = 0; i < shape.points.size(); ++i) {
        if (!isFinite(shape.points[i])) {
            return Error{"polygon point " + std::to_string(i) + " has a NaN or infinite coordinate"};
        }
    }
    if (width <= 0 || height <= 0) return {};

    // The slow path, for shapes no real map has: a point beyond kReachCells. Its moved point
    // must be finite (a finite point minus a finite offset can overflow).
    for (std::size_t i = 0; i < shape.points.size(); ++i) {
        if (!isFinite(shape.points[i] - offset)) {
            return Error{"polygon point " + std::to_string(i) + " minus the offset overflows a double"};
        }
    }
    const Box2 reach = reachOf(width, height);
    // Every ring clipped to the reach box, one half plane at a time. What is cut away lies
    // beyond the box, kReachCells from the grid, so the fill inside the grid is the shape's, and
    // the box's sides, being that far away, touch no cell of it.
    mClipPoints.clear();
    mClipEnds.clear();
    std::uint32_t begin = 0;
    for (const std::uint32_t end : shape.ringEnds) {
        mClipPass.clear();
        for (std::uint32_t i = begin; i < end; ++i) mClipPass.push_back(shape.points[i] - offset);
        begin = end;
        std::vector<Vec2>& a = mClipPass;
        std::vector<Vec2>& b = mClipSwap;
        b.clear();
        clipRingPass<0, true>(a, reach.min.x, b);
        a.clear();
        clipRingPass<0, false>(b, reach.max.x, a);
        b.clear();
        clipRingPass<1, true>(a, reach.min.y, b);
        a.clear();
        clipRingPass<1, false>(b, reach.max.y, a);
        mClipPoints.insert(mClipPoints.end(), a.begin(), a.end());
        mClipEnds.push_back(static_cast<std::uint32_t>(mClipPoints.size()));
    }
    scan = PolygonView{mClipPoints, mClipEnds};
    return {};
}

namespace {

/// Clamps a coordinate to [lo, hi] before converting, so far-away vertices cannot overflow int.
inline int clampToInt(double v, int lo, int hi) {
    if (!(v > lo)) return lo;  // also catches NaN
    if (v > hi) return hi;
    return static_cast<int>(v);
}

/// The first cell whose centre is right of xa: floor(xa + 0.5), clamped.
inline int firstCentreRight(double xa, int width) { return clampToInt(std::floor(xa + 0.5), 0, width); }

/// floor(v) and ceil(v) for v already clamped into int range. std::floor is one instruction in
/// the x86-64-v3 clones of the scan loops and a call into libm (itself picking SSE4.1 code at
/// load time) in the baseline build.
inline int floorToInt(double v) { return static_cast<int>(std::floor(v)); }
inline int ceilToInt(double v) { return static_cast<int>(std::ceil(v)); }
/// floor(v) clamped to [lo, hi]; v may be far outside (a million cells) but not NaN.
inline int floorClamped(double v, int lo, int hi) { return clampToInt(std::floor(v), lo, hi); }
inline int ceilClamped(double v, int lo, int hi) { return clampToInt(std::ceil(v), lo, hi); }

Status checkFinite(std::initializer_list<double> values, const char* what) {
    for (double v : values) {
        if (!std::isfinite(v)) return Error{std::string(what) + " has a NaN or infinite value"};
    }
    return {};
}

struct GridSink {
    BitGridView grid;
    void operator()(int y, int x0, int x1) const { grid.fillSpan(y, x0, x1); }
};

/// The rows of a disk whose centre line lies in [yFrom, yTo] and within r of its centre.
TERRABIT_INLINE Rasterizer::DiskRows diskRowsOf(Vec2 c, double r, double yFrom, double yTo, int height) {
    return {c, clampToInt(std::ceil(std::max(c.y - r, yFrom) - 0.5), 0, height),
            clampToInt(std::floor(std::min(c.y + r, yTo) - 0.5), -1, height - 1)};
}

/// Writes the spans [x0[k], x1[k]) of rows row[k], k < n; empty ones (x0 >= x1) write nothing.
/// The spans lie within the grid's columns. (A branch-free version that makes a tile row's four
/// word masks at once with vector shifts was measured 10 % slower.)
TERRABIT_INLINE void fillSpans(BitGridView grid, std::size_t n, const int* row, const int* x0, const int* x1) {
    for (std::size_t k = 0; k < n; ++k) {
        if (x0[k] < x1[k]) grid.fillSpan(row[k], x0[k], x1[k]);
    }
}

/// The cell-centre spans of a disk of radius r on the given rows (the centres within the chord),
/// worked out but not written: row[k], x0[k] and x1[k] for k < the count returned. In a loop with
/// no branch, which the compiler turns into vector code.
TERRABIT_INLINE int diskCentreRowSpans(const Rasterizer::DiskRows& disk, double r, int gridWidth, int* __restrict row,
                                       int* __restrict x0, int* __restrict x1) {
    const double width = gridWidth;
    const Vec2 c = disk.centre;
    const int first = disk.first;  // a local: the int stores below might alias disk's fields
    const int n = disk.last - first + 1;
    // Worked out for a multiple of four rows (up to three past the last, which the caller
    // leaves room for and ignores): the vector loop then needs no scalar tail, which cost more
    // than the loop itself on the few rows of a join.
    const int padded = (n + 3) & ~3;
// GCC's pragma; clang (the fuzz build's compiler) has none.
#if !defined(__clang__)
#pragma GCC ivdep
#endif
    for (int k = 0; k < padded; ++k) {
        const double d = (first + k) + 0.5 - c.y;
        const double h2 = r * r - d * d;
        const double h = std::sqrt(std::max(h2, 0.0));
        // Centres in [c.x - h, c.x + h]: first i with i + 0.5 >= c.x - h. A row the disk
        // misses (h2 < 0) gets an empty span.
        const double lo = std::min(std::max(std::ceil(c.x - h - 0.5), 0.0), width);
        const double hi = std::min(std::max(std::floor(c.x + h - 0.5) + 1.0, 0.0), width);
        row[k] = first + k;
        x0[k] = static_cast<int>(lo);
        x1[k] = h2 < 0.0 ? 0 : static_cast<int>(hi);
    }
    return std::max(n, 0);
}

/// The spans of a lone disk's rows (a point, disk()), worked out and written 64 rows at a time
/// in scratch on the stack.
TERRABIT_INLINE void diskCentreSpans(const Rasterizer::DiskRows& disk, double r, BitGridView grid) {
    constexpr int kRows = 64;
    int row[kRows + 3], x0[kRows + 3], x1[kRows + 3];  // + the padding
    for (int j = disk.first; j <= disk.last; j += kRows) {
        const int n =
            diskCentreRowSpans({disk.centre, j, std::min(disk.last, j + kRows - 1)}, r, grid.width(), row, x0, x1);
        fillSpans(grid, static_cast<std::size_t>(n), row, x0, x1);
    }
}

/// Emits the spans of a disk under a coverage rule, clipped to the grid.
TERRABIT_INLINE void diskSpans(Vec2 c, double r, Coverage coverage, BitGridView grid) {
    if (r <= 0.0) return;
    if (coverage == Coverage::CellCentre) {
        diskCentreSpans(diskRowsOf(c, r, c.y - r, c.y + r, grid.height), r, grid);
    } else {
        const int width = grid.width();
        // Rows whose open strip (j, j+1) comes within r of the centre; the chord is widest at
        // the strip's y nearest the centre.
        const int r0 = clampToInt(std::floor(c.y - r), 0, grid.height);
        const int r1 = clampToInt(std::ceil(c.y + r), 0, grid.height);
        for (int j = r0; j < r1; ++j) {
            const double nearest = std::fmin(std::fmax(c.y, static_cast<double>(j)), static_cast<double>(j + 1));
            const double d = nearest - c.y;
            const double h2 = r * r - d * d;
            if (h2 <= 0.0) continue;
            const double h = std::sqrt(h2);
            const int x0 = clampToInt(std::floor(c.x - h), 0, width);
            const int x1 = clampToInt(std::ceil(c.x + h), 0, width);
            if (x0 < x1) grid.fillSpan(j, x0, x1);
        }
    }
}

/// The band of segment a–b (a != b), set up for bandCentreSpans: the points whose projection
/// falls on the segment and whose distance to its line is at most r (the capsule without its
/// round ends). The band is convex, so on a row's centre line it is one interval, the
/// intersection of two intervals in closed form: between the side lines and between the end
/// lines.
TERRABIT_INLINE Rasterizer::Band bandOf(Vec2 a, Vec2 b, double r, int height) {
    Rasterizer::Band band;
    band.a = a;
    Vec2 d = b - a;
    // A segment within 2^-900 of horizontal or vertical (only ends that differ by a denormal get
    // there) is taken as exactly so: its slopes below would overflow and make its band empty,
    // and the turn moves no point of it by a measurable amount. Real segments never get here.
    if (std::abs(d.y) < std::abs(d.x) * 0x1p-900) {
        d.y = 0.0;
    } else if (std::abs(d.x) < std::abs(d.y) * 0x1p-900) {
        d.x = 0.0;
    }
    band.d = d;
    const double len = length(d);
    band.len2 = len * len;
    band.rLen = r * len;
    // In u = x - a.x, with dy = yc - a.y:
    //   |d.x dy - d.y u| <= r |d|          u between dy d.x/d.y -+ r |d|/d.y   (d.y != 0)
    //   0 <= d.x u + d.y dy <= |d|^2       u between -dy d.y/d.x and (|d|^2 - dy d.y)/d.x   (d.x != 0)
    band.sideSlope = d.y != 0.0 ? d.x / d.y : 0.0;
    band.sideHalf = d.y != 0.0 ? std::abs(band.rLen / d.y) : 0.0;
    band.endSlope = d.x != 0.0 ? -d.y / d.x : 0.0;
    band.endLength = d.x != 0.0 ? band.len2 / d.x : 0.0;
    // The band's corners are a +- n and b +- n with |n.y| = r |d.x| / |d|; the rows beyond them
    // hold nothing. The guard keeps a centre exactly on a corner's row for the closed-form test.
    const double reach = r * std::abs(d.x) / len + 1e-9 * (1.0 + r);
    band.first = ceilClamped(std::min(a.y, b.y) - reach - 0.5, 0, height);
    band.last = floorClamped(std::max(a.y, b.y) + reach - 0.5, -1, height - 1);
    return band;
}

/// The cell-centre spans of a band, row by row, worked out as for a disk; returns the row count.
TERRABIT_INLINE int bandCentreRowSpans(const Rasterizer::Band& band, int gridWidth, int* __restrict row,
                                       int* __restrict x0, int* __restrict x1) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double width = gridWidth;
    const Vec2 a = band.a;
    const Vec2 d = band.d;
    const int n = band.last - band.first + 1;
    if (d.x != 0.0 && d.y != 0.0) {
        // A slanted segment, nearly every one on a real map. Both intervals are linear in the
        // row, and which end line bounds which side is fixed by the sign of d.x: the end line
        // terms differ by len2 / d.x, and rounding is monotone, so their order never flips.
        // (std::min/max, not fmin/fmax: everything here is finite, and fmin is a library call.)
        // Locals, since the int stores below might alias band's fields.
        const double loEnd = d.x > 0.0 ? 0.0 : band.endLength;
        const double hiEnd = d.x > 0.0 ? band.endLength : 0.0;
        const double sideSlope = band.sideSlope, sideHalf = band.sideHalf, endSlope = band.endSlope;
        const int first = band.first;
        const int padded = (n + 3) & ~3;  // as for a disk
// GCC's pragma; clang (the fuzz build's compiler) has none.
#if !defined(__clang__)
#pragma GCC ivdep
#endif
        for (int k = 0; k < padded; ++k) {
            const double dy = (first + k) + 0.5 - a.y;
            const double ulo = std::max(dy * sideSlope - sideHalf, loEnd + dy * endSlope);
            const double uhi = std::min(dy * sideSlope + sideHalf, hiEnd + dy * endSlope);
            // Centres i + 0.5 in [a.x + ulo, a.x + uhi]; none when ulo > uhi (or either is
            // NaN, from a slope that overflowed on a segment a hair from horizontal).
            const bool some = ulo <= uhi;
            const double lo = std::min(std::max(std::ceil(a.x + ulo - 0.5), 0.0), width);
            const double hi = std::min(std::max(std::floor(a.x + uhi - 0.5) + 1.0, 0.0), width);
            row[k] = first + k;
            x0[k] = some ? static_cast<int>(lo) : 0;
            x1[k] = some ? static_cast<int>(hi) : 0;
        }
        return std::max(n, 0);
    }
    // A horizontal or vertical segment: one of the intervals is all or nothing per row.
    for (int k = 0; k < n; ++k) {
        const double dy = (band.first + k) + 0.5 - a.y;
        row[k] = band.first + k;
        x0[k] = 0;
        x1[k] = 0;
        double ulo = -kInf;
        double uhi = kInf;
        if (d.y != 0.0) {
            ulo = dy * band.sideSlope - band.sideHalf;
            uhi = dy * band.sideSlope + band.sideHalf;
        } else if (std::abs(d.x * dy) > band.rLen) {
            continue;
        }
        if (d.x != 0.0) {
            const double u0 = dy * band.endSlope, u1 = band.endLength + dy * band.endSlope;
            ulo = std::max(ulo, std::min(u0, u1));
            uhi = std::min(uhi, std::max(u0, u1));
        } else {
            const double k2 = d.y * dy;
            if (k2 < 0.0 || k2 > band.len2) continue;
        }
        if (!(ulo <= uhi)) continue;
        x0[k] = static_cast<int>(std::min(std::max(std::ceil(a.x + ulo - 0.5), 0.0), width));
        x1[k] = static_cast<int>(std::min(std::max(std::floor(a.x + uhi - 0.5) + 1.0, 0.0), width));
    }
    return std::max(n, 0);
}

/// The rows of a polyline's joint v whose cells its round join may add to the bands of the
/// segments p–v and v–n around it, as [yFrom, yTo]; false when the whole disk must be drawn.
/// When both segments are at least r long, the disk's points with (w = x - v) w·u1 <= 0 lie in
/// the first band and those with w·u2 >= 0 in the second (u1, u2 the segments' directions), so
/// only the sector w·u1 > 0, w·u2 < 0 on the outside of the turn is left: an arc of the turn's
/// angle from the normal of u1 to the normal of u2. Its rows are the arc's and the apex's,
/// grown by a guard so that rows with centres on the sector's border are still drawn.
TERRABIT_INLINE bool joinRows(Vec2 p, Vec2 v, Vec2 n, double r, double& yFrom, double& yTo) {
    const Vec2 d1 = v - p;
    const Vec2 d2 = n - v;
    const double l1 = length(d1);
    const double l2 = length(d2);
    if (l1 < r || l2 < r) return false;
    const Vec2 u1 = d1 * (1.0 / l1);
    const Vec2 u2 = d2 * (1.0 / l2);
    if (dot(u1, u2) < 0.0) return false;  // a sharp turn: the sector is most of a half disk
    // The arc's ends: the normal of u1 on the side u2 turns away from, the normal of u2 on
    // the side u1 comes from.
    Vec2 e1{-u1.y, u1.x};
    if (dot(e1, u2) > 0.0) e1 = e1 * -1.0;
    Vec2 e2{-u2.y, u2.x};
    if (dot(e2, u1) < 0.0) e2 = e2 * -1.0;
    double lo = std::min({0.0, e1.y, e2.y});
    double hi = std::max({0.0, e1.y, e2.y});
    if (u1.y <= 0.0 && u2.y >= 0.0) lo = -1.0;  // the arc passes straight north
    if (u1.y >= 0.0 && u2.y <= 0.0) hi = 1.0;   // ... or straight south
    const double guard = 1e-9 * (1.0 + r);
    yFrom = v.y + r * lo - guard;
    yTo = v.y + r * hi + guard;
    return true;
}

}  // namespace

/// The cell-centre spans of the points within r of a polyline (r > 0): the band of every
/// segment and the disk of every vertex, which are the round joins and caps. Each piece is
/// spanned on its own and OR-ed: a vertex shared by two segments is one disk, not two, of
/// which only the rows outside the turn are drawn (joinRows), and no row tests pieces that
/// cannot reach it. Every piece is set up first and spanned after, so that the set-ups' long
/// chains (square roots, divisions) overlap the spanning loops instead of starting over after
/// each loop's mispredicted exit.
TERRABIT_SCAN_CLONES void Rasterizer::thickLineCentreSpans(std::span<const Vec2> points, double r, BitGridView grid) {
    const std::size_t n = points.size();
    if (mBands.size() < n) mBands.resize(n);
    if (mDisks.size() < n) mDisks.resize(n);
    std::size_t bands = 0;
    std::size_t disks = 0;
    const Vec2* previous = nullptr;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2& v = points[i];
        if (previous && v == *previous) continue;
        std::size_t next = i + 1;
        while (next < n && points[next] == v) ++next;
        double yFrom = v.y - r;
        double yTo = v.y + r;
        if (previous && next < n && !joinRows(*previous, v, points[next], r, yFrom, yTo)) {
            yFrom = v.y - r;
            yTo = v.y + r;
        }
        // A piece wholly east or west of the grid's columns (the caps where the tile's clipping
        // cut a road, beyond the tile by the clip margin) has no cell to give: no rows.
        const double width = grid.width();
        DiskRows& disk = mDisks[disks++];
        disk = diskRowsOf(v, r, yFrom, yTo, grid.height);
        if (v.x + r < 0.0 || v.x - r > width) disk.last = disk.first - 1;
        if (previous) {
            Band& band = mBands[bands++];
            band = bandOf(*previous, v, r, grid.height);
            if (std::max(previous->x, v.x) + r < 0.0 || std::min(previous->x, v.x) - r > width) {
                band.last = band.first - 1;
            }
        }
        previous = &v;
    }
    // Every piece's spans into one list, written by one loop: a loop per piece ends in a
    // mispredicted exit, and a road's pieces are a few rows each.
    std::size_t rows = 0;
    for (std::size_t k = 0; k < disks; ++k)
        rows += static_cast<std::size_t>(std::max(mDisks[k].last - mDisks[k].first + 1, 0));
    for (std::size_t k = 0; k < bands; ++k)
        rows += static_cast<std::size_t>(std::max(mBands[k].last - mBands[k].first + 1, 0));
    if (mSpanRow.size() < rows + 3) {  // + the padding rows of the last piece
        mSpanRow.resize(rows + 3);
        mSpanX0.resize(rows + 3);
        mSpanX1.resize(rows + 3);
    }
    int* const row = mSpanRow.data();
    int* const x0 = mSpanX0.data();
    int* const x1 = mSpanX1.data();
    const int width = grid.width();
    std::size_t at = 0;
    for (std::size_t k = 0; k < disks; ++k) at += diskCentreRowSpans(mDisks[k], r, width, row + at, x0 + at, x1 + at);
    for (std::size_t k = 0; k < bands; ++k) at += bandCentreRowSpans(mBands[k], width, row + at, x0 + at, x1 + at);
    fillSpans(grid, at, row, x0, x1);
}

namespace {

/// How far a stepped crossing estimate may stray from GDAL's division formula, in cells: far
/// more than the rounding it can gather over 256 steps, far less than anything real data
/// resolves.
inline double stepGuard(double xa, double xb) { return 1e-10 * (1.0 + std::fabs(xa) + std::fabs(xb)); }

/// Calls edge(a, b) for every edge of every ring, moved by -offset; rings close implicitly, so
/// each starts with its closing edge.
template <class Edge>
TERRABIT_INLINE void forEachRingEdge(const PolygonView& shape, Edge&& edge) {
    std::uint32_t begin = 0;
    const Vec2 offset = shape.offset;
    for (const std::uint32_t end : shape.ringEnds) {
        if (end > begin) {
            Vec2 a = shape.points[end - 1] - offset;
            for (std::uint32_t i = begin; i < end; ++i) {
                const Vec2 b = shape.points[i] - offset;
                edge(a, b);
                a = b;
            }
        }
        begin = end;
    }
}

/// An edge oriented to run south (lo.y < hi.y) with the rows whose centre line it crosses,
/// lo.y <= j + 0.5 < hi.y, clipped to the grid. winding is +1 when the ring runs south along it.
struct CentreRows {
    Vec2 lo, hi;
    int first, last;
    int winding;
};

/// False when the edge crosses no row's centre line in the grid.
TERRABIT_INLINE bool centreRowsOf(Vec2 a, Vec2 b, int height, CentreRows& e) {
    if (a.y == b.y) return false;
    const bool south = a.y < b.y;
    e.lo = south ? a : b;
    e.hi = south ? b : a;
    e.winding = south ? +1 : -1;
    e.first = std::max(ceilToInt(std::clamp(e.lo.y - 0.5, -1.0, double(height))), 0);
    e.last = std::min(ceilToInt(std::clamp(e.hi.y - 0.5, -1.0, double(height))) - 1, height - 1);
    return e.first <= e.last;
}

/// The cell of a stepped crossing t (the crossing + 0.5) of an edge that may leave the grid's
/// columns, clamped to 0..width; exact() gives it by the division formula when t lies within
/// the guard (0.5 - inner) of a cell boundary.
template <class Exact>
TERRABIT_INLINE int clampedCrossingCell(double t, double inner, int width, Exact&& exact) {
    if (!(t > 0.0)) return 0;
    if (t >= width + 1.0) return width;
    const int i = static_cast<int>(t);
    return std::fabs(t - i - 0.5) > inner ? exact() : std::min(i, width);
}

}  // namespace

TERRABIT_SCAN_CLONES void Rasterizer::buildCrossings(const PolygonView& shape, FillRule rule, int width, int height) {
    // Edges crossing some row's centre line inside the grid, and the rows they span.
    std::vector<Edge>& edges = mEdges;
    edges.clear();
    int rowMin = height;
    int rowMax = -1;
    forEachRingEdge(shape, [&](Vec2 a, Vec2 b) TERRABIT_LAMBDA_INLINE {
        CentreRows e;
        // An edge east of the grid only closes spans there.
        if (!centreRowsOf(a, b, height, e) || std::min(e.lo.x, e.hi.x) >= width) return;
        const int first = e.first, last = e.last;
        edges.push_back({e.lo.x, e.lo.y, e.hi.x, e.hi.y, first, last, e.winding});
        rowMin = std::min(rowMin, first);
        rowMax = std::max(rowMax, last);
    });
    mRowMin = rowMin;
    mRowMax = rowMax;
    mHasEntry = false;
    if (edges.empty()) return;

    // Bucket the crossings by row without sorting edges: count per row through a difference
    // array, turn the counts into end offsets, then place each crossing at --end[row]; afterwards
    // mRowStart[r] is the start of row r and mRowStart[r + 1] its end. Edges wholly west of the
    // grid add no crossings: they only change the state a row starts in (mRowEntry).
    const std::size_t rows = static_cast<std::size_t>(rowMax - rowMin + 1);
    mRowStart.assign(rows + 1, 0);
    for (const Edge& e : edges) {
        const std::size_t f = static_cast<std::size_t>(e.firstRow - rowMin);
        const std::size_t l = static_cast<std::size_t>(e.lastRow - rowMin) + 1;
        if (std::max(e.x0, e.x1) < 0.0) {
            if (!mHasEntry) {
                mRowEntry.assign(rows + 1, 0);
                mHasEntry = true;
            }
            const int step = rule == FillRule::EvenOdd ? 1 : e.winding;
            mRowEntry[f] += step;
            mRowEntry[l] -= step;
        } else {
            ++mRowStart[f];
            --mRowStart[l];
        }
    }
    int count = 0;
    int total = 0;
    int entry = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        count += mRowStart[r];
        total += count;
        mRowStart[r] = total;
        if (mHasEntry) {
            entry += mRowEntry[r];
            mRowEntry[r] = entry;
        }
    }
    mRowStart[rows] = total;
    if (mCrossings.size() < static_cast<std::size_t>(total)) mCrossings.resize(static_cast<std::size_t>(total));
    Crossing* crossings = mCrossings.data();

    // This code is extremely hot: once per edge and covered row of every shape. The crossing
    // moves by the slope from row to row; only when it lands within a guard of a cell boundary
    // (never, in practice, for real data) is it recomputed with the division formula GDAL uses,
    // so that ties are decided exactly as documented. The guard is far wider than the rounding
    // error the steps can gather over 256 rows.
    // GDAL's crossing formula, and the first cell whose centre lies right of the crossing.
    auto exactCell = [width](const Edge& e, double yc) {
        return firstCentreRight((yc - e.y0) * (e.x1 - e.x0) / (e.y1 - e.y0) + e.x0, width);
    };
    for (const Edge& e : edges) {
        if (std::max(e.x0, e.x1) < 0.0) continue;
        const double slope = (e.x1 - e.x0) / (e.y1 - e.y0);
        const double inner = 0.5 - stepGuard(e.x0, e.x1);
        double yc = e.firstRow + 0.5;
        double t = e.x0 + (yc - e.y0) * slope + 0.5;  // crossing + 0.5: its floor is the cell
        int* end = mRowStart.data() + (e.firstRow - rowMin);
        const int rowsOfEdge = e.lastRow - e.firstRow + 1;
        if (std::min(e.x0, e.x1) >= 0.0 && std::max(e.x0, e.x1) <= width) {
            // Wholly inside the grid's columns: t stays in (0, width + 1), no clamping.
            for (int k = 0; k < rowsOfEdge; ++k) {
                const int i = static_cast<int>(t);
                int cell = i;
                if (std::fabs(t - i - 0.5) > inner) [[unlikely]]
                    cell = exactCell(e, yc);
                crossings[--end[k]] = {cell, e.winding};
                t += slope;
                yc += 1.0;
            }
        } else {
            for (int k = 0; k < rowsOfEdge; ++k) {
                const int cell = clampedCrossingCell(t, inner, width, [&] { return exactCell(e, yc); });
                crossings[--end[k]] = {cell, e.winding};
                t += slope;
                yc += 1.0;
            }
        }
    }
}

TERRABIT_SCAN_CLONES void Rasterizer::buildTouchSpans(const PolygonView& shape, int width, int height) {
    mSpanCount = 0;
    auto reserveSpans = [&](int more) {
        const std::size_t need = mSpanCount + static_cast<std::size_t>(more);
        if (mSpans.size() < need) mSpans.resize(std::max(need, 2 * mSpans.size()));
        return mSpans.data() + mSpanCount;
    };
    forEachRingEdge(shape, [&](Vec2 a, Vec2 b) TERRABIT_LAMBDA_INLINE {
        const bool south = a.y <= b.y;
        const Vec2 lo = south ? a : b;
        const Vec2 hi = south ? b : a;
        // Rows j whose open strip (j, j + 1) the closed edge enters: j < hi.y, j + 1 > lo.y.
        const int r0 = floorClamped(lo.y, 0, height);
        const int r1 = ceilClamped(hi.y, 0, height);  // exclusive
        if (r0 >= r1) return;
        const double xMin = std::min(lo.x, hi.x);
        const double xMax = std::max(lo.x, hi.x);
        if (xMax <= 0.0 || xMin >= width) return;  // touches no column of the grid
        Span* out = reserveSpans(r1 - r0);
        Span* const first = out;
        if (lo.y == hi.y) {
            const int x0 = floorClamped(xMin, 0, width);
            const int x1 = ceilClamped(xMax, 0, width);
            if (x0 < x1) *out++ = {r0, x0, x1};
            mSpanCount += static_cast<std::size_t>(out - first);
            return;
        }
        // On each row the edge covers x between its crossings of the row's top and bottom
        // borders (or its end points); the cells are those whose open interval meets that
        // closed range: floor(xmin) .. ceil(xmax). The crossing moves by the slope from
        // border to border; within a guard of an integer it is recomputed with the
        // division formula, as for the centre rule.
        const double slope = (hi.x - lo.x) / (hi.y - lo.y);
        const double guard = stepGuard(lo.x, hi.x);
        auto exactAt = [&](double y) { return (y - lo.y) * (hi.x - lo.x) / (hi.y - lo.y) + lo.x; };
        double y = r0 + 1.0;
        double x = lo.x + (y - lo.y) * slope;           // at the bottom border of row r0
        double xTop = lo.y >= r0 ? lo.x : exactAt(r0);  // where the edge enters row r0
        if (xMin >= 0.0 && xMax <= width) {
            // This code is hot. Wholly inside the grid's columns: x stays in [0, width]
            // up to rounding, so the int conversion is a floor (a hair below 0 still
            // gives cell 0) and only the east end needs a clamp.
            for (int j = r0; j < r1; ++j) {
                double xBottom = hi.x;
                if (y < hi.y) {
                    const double frac = x - static_cast<int>(x);
                    xBottom = (frac < guard || frac > 1.0 - guard) ? exactAt(y) : x;
                }
                const double l = std::min(xTop, xBottom);
                const double r = std::max(xTop, xBottom);
                const int x0 = static_cast<int>(l);
                const int x1 = std::min(ceilToInt(r), width);  // rounding may step past width
                if (x0 < x1) *out++ = {j, x0, x1};
                xTop = xBottom;
                x += slope;
                y += 1.0;
            }
        } else {
            for (int j = r0; j < r1; ++j) {
                double xBottom = hi.x;
                if (y < hi.y) {
                    const double c = std::clamp(x, -1.0, width + 1.0);
                    const double frac = c - floorToInt(c);
                    xBottom = (frac < guard || frac > 1.0 - guard) ? exactAt(y) : x;
                }
                const int x0 = floorClamped(std::min(xTop, xBottom), 0, width);
                const int x1 = ceilClamped(std::max(xTop, xBottom), 0, width);
                if (x0 < x1) *out++ = {j, x0, x1};
                xTop = xBottom;
                x += slope;
                y += 1.0;
            }
        }
        mSpanCount += static_cast<std::size_t>(out - first);
    });
}

namespace {

constexpr double kFixedOne = 4294967296.0;  ///< 1.0 in 32.32 fixed point
/// Steeper edges step in floating point: their fixed-point slope could overflow.
constexpr double kFixedSlopeMax = 1 << 20;
/// 2^-20 cells (about 1e-6) in 32.32 fixed point: far above what rounding gathers, far below
/// anything real data resolves.
constexpr std::uint32_t kFixedGuard = 1u << 12;

}  // namespace

TERRABIT_SCAN_CLONES void Rasterizer::parityFill(const PolygonView& shape, BitGridView target) {
    const int width = target.width();
    const int height = target.height;
    // One word more than a row holds: a crossing clamped to the east border (cell == width)
    // toggles it and so changes no cell.
    const std::size_t stride = static_cast<std::size_t>(target.wordsPerRow) + 1;
    if (mParity.size() < stride * static_cast<std::size_t>(height)) mParity.assign(stride * height, 0);
    std::uint64_t* const parity = mParity.data();
    int rowMin = height;
    int rowMax = -1;
    double xMin = std::numeric_limits<double>::infinity();
    double xMax = -xMin;
    auto toggle = [&](int row, int cell) {
        parity[static_cast<std::size_t>(row) * stride + static_cast<std::size_t>(cell >> 6)] ^= std::uint64_t{1}
                                                                                                << (cell & 63);
    };
    if (mFixedEdges.size() < shape.points.size()) mFixedEdges.resize(shape.points.size());
    FixedEdge* const fixed = mFixedEdges.data();
    std::size_t fixedCount = 0;
    // The crossing arithmetic is buildCrossings', step for step (see there for the guard).
    forEachRingEdge(shape, [&](Vec2 a, Vec2 b) TERRABIT_LAMBDA_INLINE {
        CentreRows e;
        if (!centreRowsOf(a, b, height, e)) return;
        const Vec2 lo = e.lo, hi = e.hi;
        const int first = e.first, last = e.last;
        if (std::min(lo.x, hi.x) >= width) {
            // An edge east of the grid would only toggle the spare word, but the rows it
            // crosses may be inside up to the east border.
            xMax = std::max(xMax, double(width));
            return;
        }
        rowMin = std::min(rowMin, first);
        rowMax = std::max(rowMax, last);
        xMin = std::min(xMin, std::min(lo.x, hi.x));
        xMax = std::max(xMax, std::max(lo.x, hi.x));
        const double slope = (hi.x - lo.x) / (hi.y - lo.y);
        const double inner = 0.5 - stepGuard(lo.x, hi.x);
        double yc = first + 0.5;
        double t = lo.x + (yc - lo.y) * slope + 0.5;  // crossing + 0.5: its floor is the cell
        auto exactCell = [&](double y) {
            return firstCentreRight((y - lo.y) * (hi.x - lo.x) / (hi.y - lo.y) + lo.x, width);
        };
        if (std::min(lo.x, hi.x) >= 0.0 && std::max(lo.x, hi.x) <= width && std::abs(slope) < kFixedSlopeMax) {
            // Wholly inside the grid's columns: t stays in (0, width + 1), no clamping,
            // and steps in 32.32 fixed point (an integer add a row), in the second pass.
            fixed[fixedCount++] = {static_cast<std::int64_t>(t * kFixedOne),
                                   static_cast<std::int64_t>(slope * kFixedOne),
                                   first,
                                   last,
                                   lo,
                                   hi};
        } else {
            for (int row = first; row <= last; ++row) {
                toggle(row, clampedCrossingCell(t, inner, width, [&] { return exactCell(yc); }));
                t += slope;
                yc += 1.0;
            }
        }
    });
    // Second pass: the fixed-point steps. Kept apart from the edge set-up above so that the
    // set-up's long chains (a division, conversions) of later edges overlap these loops instead
    // of starting over after each loop's mispredicted exit. The fixed steps stray less than
    // 1e-7 cells over 256 rows; a crossing nearer than kFixedGuard to a cell boundary is
    // recomputed with the division formula.
    for (std::size_t k = 0; k < fixedCount; ++k) {
        const FixedEdge& e = fixed[k];
        std::int64_t ft = e.t;
        for (int row = e.first; row <= e.last; ++row) {
            int cell = static_cast<int>(ft >> 32);
            if (static_cast<std::uint32_t>(ft + kFixedGuard) < 2 * kFixedGuard) [[unlikely]] {
                const double y = row + 0.5;
                cell = firstCentreRight((y - e.lo.y) * (e.hi.x - e.lo.x) / (e.hi.y - e.lo.y) + e.lo.x, width);
            }
            toggle(row, cell);
            ft += e.slope;
        }
    }
    if (rowMin > rowMax) return;
    // Prefix XOR along each row: a cell is inside when an odd number of crossings lie at or west
    // of it. Within a word by doubling shifts, across words by carrying the last bit's state.
    // Only the words between the westmost and eastmost crossing can change: west of them no
    // crossing has been passed, east of them every row has passed an even number.
    const int wordLo = firstCentreRight(xMin, width) >> 6;
    const int wordHi = std::min(firstCentreRight(xMax, width) >> 6, target.wordsPerRow - 1);
    for (int row = rowMin; row <= rowMax; ++row) {
        std::uint64_t* toggles = parity + static_cast<std::size_t>(row) * stride;
        std::uint64_t* out = target.row(row);
        std::uint64_t carry = 0;
        for (int w = wordLo; w <= wordHi; ++w) {
            std::uint64_t x = toggles[w];
            toggles[w] = 0;
            x ^= x << 1;
            x ^= x << 2;
            x ^= x << 4;
            x ^= x << 8;
            x ^= x << 16;
            x ^= x << 32;
            x ^= carry;
            carry = std::uint64_t{0} - (x >> 63);
            out[w] |= x;
        }
        toggles[target.wordsPerRow] = 0;
    }
}

TERRABIT_SCAN_CLONES Status Rasterizer::polygon(const PolygonView& input, RasterOptions options, BitGridView target) {
    if (options.fillRule != FillRule::EvenOdd) {
        return polygonSpans(input, options, target.width(), target.height, GridSink{target});
    }
    PolygonView shape;
    if (Status s = preparePolygon(input, target.width(), target.height, shape); !s) return s;
    if (target.width() <= 0 || target.height <= 0) return {};
    parityFill(shape, target);
    if (options.coverage == Coverage::Conservative) {
        buildTouchSpans(shape, target.width(), target.height);
        for (std::size_t i = 0; i < mSpanCount; ++i) target.fillSpan(mSpans[i].y, mSpans[i].x0, mSpans[i].x1);
    }
    return {};
}

Status Rasterizer::polyline(std::span<const Vec2> points, double widthCells, Coverage coverage, BitGridView target) {
    if (Status s = checkFinite({widthCells}, "polyline width"); !s) return s;
    if (widthCells > 2.0 * kMaxRadiusCells) {
        return Error{"polyline width " + std::to_string(widthCells) + " cells is above the " +
                     std::to_string(2.0 * kMaxRadiusCells) + " the rasterizer draws"};
    }
    // As for a polygon: the slow search for a NaN only when some point is flagged.
    const Box2 reach = reachOf(target.width(), target.height);
    const Vec2 centre = reach.centre();
    const double halfWidth = 0.5 * reach.width(), halfHeight = 0.5 * reach.height();
    const double half = std::max(widthCells, 0.0) * 0.5;  // finite: checked above (fmax is a call)
    if (!anyBeyond(points, centre, halfWidth, halfHeight)) {
        polylineWithinReach(points, half, coverage, target);
        return {};
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (!isFinite(points[i])) {
            return Error{"polyline point " + std::to_string(i) + " has a NaN or infinite coordinate"};
        }
    }
    // The slow path, for lines no real map has: a point beyond kReachCells of the grid. The line
    // is cut into the runs of its segments clipped to that reach. What is cut away, and the caps
    // at the cuts, lie at least kReachCells - kMaxRadiusCells from the grid, and a join between
    // two kept segments stays a join.
    mRunPoints.clear();
    mRunEnds.clear();
    auto endRun = [&] {
        const auto size = static_cast<std::uint32_t>(mRunPoints.size());
        if (size > (mRunEnds.empty() ? 0u : mRunEnds.back())) mRunEnds.push_back(size);
    };
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
        Vec2 a = points[i], b = points[i + 1];
        if (!clipSegment(a, b, reach)) {
            endRun();
            continue;
        }
        // Continue the run when this segment starts where the last one ended unclipped.
        const bool runOpen = mRunPoints.size() > (mRunEnds.empty() ? 0u : mRunEnds.back());
        if (!runOpen || !(a == points[i]) || !(mRunPoints.back() == a)) {
            endRun();
            mRunPoints.push_back(a);
        }
        mRunPoints.push_back(b);
        if (!(b == points[i + 1])) endRun();
    }
    endRun();
    std::uint32_t begin = 0;
    for (const std::uint32_t end : mRunEnds) {
        polylineWithinReach(std::span<const Vec2>(mRunPoints).subspan(begin, end - begin), half, coverage, target);
        begin = end;
    }
    return {};
}

void Rasterizer::polylineWithinReach(std::span<const Vec2> points, double half, Coverage coverage, BitGridView target) {
    if (coverage == Coverage::CellCentre && half > 0.0) {
        thickLineCentreSpans(points, half, target);
        return;
    }
    const RasterOptions options{FillRule::NonZero, coverage};
    const std::array<std::uint32_t, 1> ringEnd{4};
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
        const Vec2 a = points[i];
        const Vec2 b = points[i + 1];
        const Vec2 d = b - a;
        const double len = length(d);
        if (len == 0.0) continue;
        const Vec2 n{-d.y / len * half, d.x / len * half};
        const std::array<Vec2, 4> quad{a + n, b + n, b - n, a - n};
        // Cannot fail: the corners are finite, within kReachCells + kMaxRadiusCells.
        (void)polygonSpans(PolygonView{quad, ringEnd}, options, target.width(), target.height, GridSink{target});
    }
    // Round joins and caps. A zero-width line in conservative mode still touches its cells
    // through the degenerate quads above; a lone point does so through its own cell.
    for (const Vec2& p : points) diskSpans(p, half, coverage, target);
    if (points.size() == 1 && coverage == Coverage::Conservative) (void)point(points[0], half, coverage, target);
}

namespace {

/// The checks disk() and point() share: an error for a NaN or infinite value or a radius above
/// kMaxRadiusCells; reaches is false when the centre lies beyond kReachCells of the grid, so the
/// disk cannot reach it.
Status checkDisk(Vec2 centre, double radiusCells, BitGridView target, const char* what, bool& reaches) {
    if (Status s = checkFinite({centre.x, centre.y, radiusCells}, what); !s) return s;
    if (radiusCells > Rasterizer::kMaxRadiusCells) {
        return Error{std::string(what) + " radius " + std::to_string(radiusCells) + " cells is above the " +
                     std::to_string(Rasterizer::kMaxRadiusCells) + " the rasterizer draws"};
    }
    reaches = within(reachOf(target.width(), target.height), centre);
    return {};
}

}  // namespace

Status Rasterizer::disk(Vec2 centre, double radiusCells, Coverage coverage, BitGridView target) {
    bool reaches = false;
    if (Status s = checkDisk(centre, radiusCells, target, "disk", reaches); !s) return s;
    if (reaches) diskSpans(centre, radiusCells, coverage, target);
    return {};
}

Status Rasterizer::point(Vec2 p, double radiusCells, Coverage coverage, BitGridView target) {
    bool reaches = false;
    if (Status s = checkDisk(p, radiusCells, target, "point", reaches); !s) return s;
    if (!reaches) return {};  // nor is its own cell in the grid
    diskSpans(p, radiusCells, coverage, target);
    const double fx = std::floor(p.x);
    const double fy = std::floor(p.y);
    if (fx >= 0.0 && fx < target.width() && fy >= 0.0 && fy < target.height) {
        const int x = static_cast<int>(fx);
        target.fillSpan(static_cast<int>(fy), x, x + 1);
    }
    return {};
}

Status Rasterizer::triangle(Vec2 a, Vec2 b, Vec2 c, Coverage coverage, BitGridView target) {
    const std::array<Vec2, 3> pts{a, b, c};
    const std::array<std::uint32_t, 1> ringEnd{3};
    return polygon(PolygonView{pts, ringEnd}, {FillRule::EvenOdd, coverage}, target);
}

Status Rasterizer::rectangle(const Box2& box, Coverage coverage, BitGridView target) {
    const std::array<Vec2, 4> pts{box.min, Vec2{box.max.x, box.min.y}, box.max, Vec2{box.min.x, box.max.y}};
    const std::array<std::uint32_t, 1> ringEnd{4};
    return polygon(PolygonView{pts, ringEnd}, {FillRule::EvenOdd, coverage}, target);
}

Status Rasterizer::orientedRectangle(Vec2 centre, Vec2 halfExtents, double angleRadians, Coverage coverage,
                                     BitGridView target) {
    if (Status s = checkFinite({centre.x, centre.y, halfExtents.x, halfExtents.y, angleRadians}, "oriented rectangle");
        !s) {
        return s;
    }
    // Counter-clockwise in a y-up frame is clockwise on the y-down cell grid.
    const double c = std::cos(angleRadians);
    const double s = std::sin(angleRadians);
    const Vec2 u{c * halfExtents.x, -s * halfExtents.x};
    const Vec2 v{s * halfExtents.y, c * halfExtents.y};
    const std::array<Vec2, 4> pts{centre - u - v, centre + u - v, centre + u + v, centre - u + v};
    for (const Vec2& p : pts) {
        if (!isFinite(p)) return Error{"oriented rectangle: a corner overflows a double"};
    }
    const std::array<std::uint32_t, 1> ringEnd{4};
    return polygon(PolygonView{pts, ringEnd}, {FillRule::EvenOdd, coverage}, target);
}

}  // namespace terrabit::core
