#include "terrabit/core/terrain/ground_mesh.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>

// The hierarchy is walked by level rather than by Martini's triangle ids. A midpoint is of one of
// two kinds, by the lowest set bit s of its coordinates:
//  - an edge midpoint (one coordinate an odd multiple of s, the other a multiple of 2s): the
//    midpoint of an axis-aligned hypotenuse of length 2s, shared by the triangles on either side
//    (apex at distance s; one of them outside the tile on its edge). Its children's midpoints
//    are the centres of the squares of side s at (±s/2, ±s/2).
//  - a square centre (both coordinates odd multiples of s): the midpoint of the diagonal of the
//    square of side 2s around it, shared by the square's two halves. Its children's midpoints
//    are the square's edge midpoints at (±s, 0) and (0, ±s), whichever diagonal it has.
// A square's diagonal runs through the centre of the square one level up (the apex of the edge
// triangles it came from), so with (x0, y0) its north-west corner and w its side it runs
// north-west to south-east when x0 / w + y0 / w is even and north-east to south-west when odd;
// the root square's diagonal is (0, 0)–(256, 256), as in Martini. Levels run finest first, edge
// midpoints of s before the square centres of s, so every child is final before its parent.

namespace terrabit::core::terrain {
namespace {

constexpr int kN = kHeightSamples;  // samples per side, 257
constexpr int kC = kTileCells;      // cells per side, 256

/// A sample position: column x, row y.
struct Pt {
    int x = 0;
    int y = 0;
};

int sampleIndex(int x, int y) { return y * kN + x; }

float cleanHeight(float h) { return std::isfinite(h) ? h : 0.0F; }

/// `d` as a float no smaller than `d`, so a stored error never understates the deviation.
float roundUp(double d) {
    float f = static_cast<float>(d);
    if (static_cast<double>(f) < d) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

/// The largest |value − plane| over the points of one lattice inside or on the closed triangle
/// with hypotenuse (a, b) and right angle at c. The plane passes through (a, ha), (b, hb),
/// (c, hc). Parity 0 is the samples (`grid` 257 wide, point i at x = i), parity 1 the cell
/// centres (`grid` 256 wide, point i at x = i + 0.5). Works in half cells, where both lattices
/// are integers and every edge has slope 0 or ±1, so each row's span is exact.
double latticeDeviation(const float* grid, int stride, int parity, Pt a, Pt b, Pt c, double ha, double hb, double hc) {
    const int ax = 2 * a.x, ay = 2 * a.y, bx = 2 * b.x, by = 2 * b.y, cx = 2 * c.x, cy = 2 * c.y;
    // The legs c→a and c→b are orthogonal and of equal length, so the gradient is the sum of
    // the two legs' slopes (in metres per half cell).
    const double legSquared = static_cast<double>((ax - cx) * (ax - cx) + (ay - cy) * (ay - cy));
    const double gx = ((ha - hc) * (ax - cx) + (hb - hc) * (bx - cx)) / legSquared;
    const double gy = ((ha - hc) * (ay - cy) + (hb - hc) * (by - cy)) / legSquared;
    const int yMin = std::min({ay, by, cy}), yMax = std::max({ay, by, cy});
    double dev0 = 0.0, dev1 = 0.0, dev2 = 0.0, dev3 = 0.0;
    for (int y = yMin + parity; y <= yMax; y += 2) {  // corners are even: the first row of the lattice
        int lo = INT_MAX, hi = INT_MIN;
        const auto edge = [&](int px, int py, int qx, int qy) {
            if (y < std::min(py, qy) || y > std::max(py, qy)) return;
            if (py == qy) {
                lo = std::min({lo, px, qx});
                hi = std::max({hi, px, qx});
                return;
            }
            const int x = px + (y - py) * ((qx - px) / (qy - py));  // slope 0 or ±1: exact
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        };
        edge(ax, ay, bx, by);
        edge(bx, by, cx, cy);
        edge(cx, cy, ax, ay);
        if ((lo & 1) != parity) ++lo;
        if ((hi & 1) != parity) --hi;
        if (lo > hi) continue;
        const float* row = grid + static_cast<std::ptrdiff_t>((y - parity) / 2) * stride;
        // Point i of the row is at half-cell x = 2 i + parity.
        const double base = hc + gx * (parity - cx) + gy * (y - cy);
        const double step = 2.0 * gx;
        // Four running maxima, so that consecutive points do not wait on each other.
        int i = (lo - parity) / 2;
        const int end = (hi - parity) / 2;
        for (; i + 3 <= end; i += 4) {
            const double p = base + step * i;
            dev0 = std::max(dev0, std::fabs(static_cast<double>(row[i]) - p));
            dev1 = std::max(dev1, std::fabs(static_cast<double>(row[i + 1]) - (p + step)));
            dev2 = std::max(dev2, std::fabs(static_cast<double>(row[i + 2]) - (p + 2.0 * step)));
            dev3 = std::max(dev3, std::fabs(static_cast<double>(row[i + 3]) - (p + 3.0 * step)));
        }
        for (; i <= end; ++i) dev0 = std::max(dev0, std::fabs(static_cast<double>(row[i]) - (base + step * i)));
    }
    return std::max(std::max(dev0, dev1), std::max(dev2, dev3));
}

/// A point of a small triangle as weights of its corners a, b, c, in quarters.
struct Weights {
    int a = 0;
    int b = 0;
    int c = 0;
};

/// dev(T) of a small triangle from its few points, listed as weights of its corners (each
/// lattice point in or on it other than the corners, which lie on the plane).
template <std::size_t S, std::size_t C>
double smallDeviation(const RtinScratch& s, Pt a, Pt b, Pt c, double ha, double hb, double hc,
                      const std::array<Weights, S>& samples, const std::array<Weights, C>& centres) {
    double dev = 0.0;
    for (const Weights& w : samples) {
        const int x = (w.a * a.x + w.b * b.x + w.c * c.x) / 4, y = (w.a * a.y + w.b * b.y + w.c * c.y) / 4;
        const double plane = 0.25 * (w.a * ha + w.b * hb + w.c * hc);
        dev = std::max(dev, std::fabs(s.samples[sampleIndex(x, y)] - plane));
    }
    for (const Weights& w : centres) {
        // In half cells the centre is at (sum / 2), an odd number on both axes.
        const int x = ((w.a * a.x + w.b * b.x + w.c * c.x) / 2 - 1) / 2;
        const int y = ((w.a * a.y + w.b * b.y + w.c * c.y) / 2 - 1) / 2;
        const double plane = 0.25 * (w.a * ha + w.b * hb + w.c * hc);
        dev = std::max(dev, std::fabs(s.centres[static_cast<std::size_t>(y) * kC + x] - plane));
    }
    return dev;
}

/// dev(T) of the triangle with hypotenuse (a, b) and right angle at c, samples and centres.
double triangleDeviation(const RtinScratch& s, Pt a, Pt b, Pt c) {
    const double ha = s.samples[sampleIndex(a.x, a.y)];
    const double hb = s.samples[sampleIndex(b.x, b.y)];
    const double hc = s.samples[sampleIndex(c.x, c.y)];
    const int leg = std::abs(a.x - c.x) + std::abs(a.y - c.y);
    if (leg == 2) {  // the two finest levels, three quarters of all triangles: their points listed
        if (a.x != c.x && a.y != c.y) {
            // Legs along two cell diagonals: the hypotenuse's midpoint, and a centre on each leg.
            static constexpr std::array<Weights, 1> kSamples = {{{2, 2, 0}}};
            static constexpr std::array<Weights, 2> kCentres = {{{2, 0, 2}, {0, 2, 2}}};
            return smallDeviation(s, a, b, c, ha, hb, hc, kSamples, kCentres);
        }
        // Legs of two cells: the three edge midpoints; one centre inside, two on the hypotenuse.
        static constexpr std::array<Weights, 3> kSamples = {{{2, 0, 2}, {0, 2, 2}, {2, 2, 0}}};
        static constexpr std::array<Weights, 3> kCentres = {{{1, 1, 2}, {3, 1, 0}, {1, 3, 0}}};
        return smallDeviation(s, a, b, c, ha, hb, hc, kSamples, kCentres);
    }
    return std::max(latticeDeviation(s.samples.data(), kN, 0, a, b, c, ha, hb, hc),
                    latticeDeviation(s.centres.data(), kC, 1, a, b, c, ha, hb, hc));
}

/// The largest error among the children's midpoints of the triangles whose hypotenuse midpoint
/// is the edge midpoint (x, y) of level s (horizontal: the hypotenuse runs east–west).
float edgeChildren(const float* e, int x, int y, int s, bool horizontal) {
    if (s < 2) return 0.0F;  // the children are unit triangles: no midpoint
    const int h = s / 2;
    float m = 0.0F;
    if (horizontal) {
        if (y >= s) m = std::max({m, e[sampleIndex(x - h, y - h)], e[sampleIndex(x + h, y - h)]});
        if (y + s <= kC) m = std::max({m, e[sampleIndex(x - h, y + h)], e[sampleIndex(x + h, y + h)]});
    } else {
        if (x >= s) m = std::max({m, e[sampleIndex(x - h, y - h)], e[sampleIndex(x - h, y + h)]});
        if (x + s <= kC) m = std::max({m, e[sampleIndex(x + h, y - h)], e[sampleIndex(x + h, y + h)]});
    }
    return m;
}

/// The largest error among the edge midpoints of the square of half side s around (x, y).
float squareChildren(const float* e, int x, int y, int s) {
    return std::max(
        {e[sampleIndex(x - s, y)], e[sampleIndex(x + s, y)], e[sampleIndex(x, y - s)], e[sampleIndex(x, y + s)]});
}

/// Raises every midpoint's error to at least its children's (Martini's upward propagation).
void propagate(float* e) {
    for (int s = 1; s < kC; s *= 2) {
        for (int y = 0; y <= kC; y += 2 * s)
            for (int x = s; x < kC; x += 2 * s)
                e[sampleIndex(x, y)] = std::max(e[sampleIndex(x, y)], edgeChildren(e, x, y, s, true));
        for (int x = 0; x <= kC; x += 2 * s)
            for (int y = s; y < kC; y += 2 * s)
                e[sampleIndex(x, y)] = std::max(e[sampleIndex(x, y)], edgeChildren(e, x, y, s, false));
        for (int y = s; y < kC; y += 2 * s)
            for (int x = s; x < kC; x += 2 * s)
                e[sampleIndex(x, y)] = std::max(e[sampleIndex(x, y)], squareChildren(e, x, y, s));
    }
}

/// Splits or emits the triangle with hypotenuse (a, b) and right angle at c. Emitted triangles
/// go to `out` as sample indices, counter-clockwise seen from above; their corners are marked.
void refine(const float* e, float maxError, Pt a, Pt b, Pt c, std::vector<std::uint32_t>& out,
            std::vector<std::uint32_t>& mark) {
    const Pt m{(a.x + b.x) / 2, (a.y + b.y) / 2};
    const bool unit = std::abs(a.x - c.x) + std::abs(a.y - c.y) == 1;
    if (!unit && e[sampleIndex(m.x, m.y)] > maxError) {
        refine(e, maxError, c, a, m, out, mark);
        refine(e, maxError, b, c, m, out, mark);
        return;
    }
    // Counter-clockwise from above (north up) is a negative signed area with y pointing south.
    const long cross = static_cast<long>(b.x - a.x) * (c.y - a.y) - static_cast<long>(b.y - a.y) * (c.x - a.x);
    if (cross > 0) std::swap(b, c);
    for (const Pt p : {a, b, c}) {
        const auto i = static_cast<std::uint32_t>(sampleIndex(p.x, p.y));
        out.push_back(i);
        mark[i] = 1;
    }
}

}  // namespace

void rtinErrors(const HeightTile& heights, RtinErrors& out, RtinScratch& scratch) {
    if (heights.heights.size() != kHeightSampleCount) {
        out.errors.clear();
        return;
    }
    scratch.samples.resize(kHeightSampleCount);
    scratch.centres.resize(std::size_t{kC} * kC);
    for (std::size_t i = 0; i < kHeightSampleCount; ++i) scratch.samples[i] = cleanHeight(heights.heights[i]);
    for (int y = 0; y < kC; ++y) {
        const float* north = scratch.samples.data() + sampleIndex(0, y);
        const float* south = north + kN;
        float* centre = scratch.centres.data() + static_cast<std::ptrdiff_t>(y) * kC;
        for (int x = 0; x < kC; ++x) centre[x] = 0.25F * ((north[x] + north[x + 1]) + (south[x] + south[x + 1]));
    }
    out.errors.assign(kHeightSampleCount, 0.0F);
    float* e = out.errors.data();

    for (int s = 1; s < kC; s *= 2) {
        // Edge midpoints of level s: hypotenuses of length 2s along rows, then along columns.
        for (int y = 0; y <= kC; y += 2 * s) {
            for (int x = s; x < kC; x += 2 * s) {
                const Pt a{x - s, y}, b{x + s, y};
                double dev = 0.0;
                if (y >= s) dev = std::max(dev, triangleDeviation(scratch, a, b, {x, y - s}));
                if (y + s <= kC) dev = std::max(dev, triangleDeviation(scratch, a, b, {x, y + s}));
                e[sampleIndex(x, y)] = std::max(roundUp(dev), edgeChildren(e, x, y, s, true));
            }
        }
        for (int x = 0; x <= kC; x += 2 * s) {
            for (int y = s; y < kC; y += 2 * s) {
                const Pt a{x, y - s}, b{x, y + s};
                double dev = 0.0;
                if (x >= s) dev = std::max(dev, triangleDeviation(scratch, a, b, {x - s, y}));
                if (x + s <= kC) dev = std::max(dev, triangleDeviation(scratch, a, b, {x + s, y}));
                e[sampleIndex(x, y)] = std::max(roundUp(dev), edgeChildren(e, x, y, s, false));
            }
        }
        // Square centres of half side s: the two halves of the square either side of its diagonal.
        for (int y = s; y < kC; y += 2 * s) {
            for (int x = s; x < kC; x += 2 * s) {
                const int x0 = x - s, y0 = y - s, x1 = x + s, y1 = y + s;
                const bool nwToSe = ((x0 / (2 * s) + y0 / (2 * s)) & 1) == 0;
                double dev = 0.0;
                if (nwToSe) {
                    dev = std::max(triangleDeviation(scratch, {x0, y0}, {x1, y1}, {x1, y0}),
                                   triangleDeviation(scratch, {x0, y0}, {x1, y1}, {x0, y1}));
                } else {
                    dev = std::max(triangleDeviation(scratch, {x1, y0}, {x0, y1}, {x0, y0}),
                                   triangleDeviation(scratch, {x1, y0}, {x0, y1}, {x1, y1}));
                }
                e[sampleIndex(x, y)] = std::max(roundUp(dev), squareChildren(e, x, y, s));
            }
        }
    }
}

RtinErrors rtinErrors(const HeightTile& heights) {
    RtinErrors out;
    RtinScratch scratch;
    rtinErrors(heights, out, scratch);
    return out;
}

void buildGroundMesh(const HeightTile& heights, const RtinErrors& self,
                     const std::array<const RtinErrors*, 4>& neighbours, float maxErrorMetres, GroundMesh& out,
                     GroundMeshScratch& scratch) {
    out.tile = heights.tile;
    out.vertices.clear();
    out.indices.clear();
    const std::vector<float>& h = heights.heights;
    if (h.size() != kHeightSampleCount || std::none_of(h.begin(), h.end(), [](float v) { return std::isfinite(v); }))
        return;
    assert(self.errors.size() == kHeightSampleCount && "self must be rtinErrors(heights)");
    if (self.errors.size() != kHeightSampleCount) return;

    // Force in the neighbours' errors along the shared edges, then let the forced vertices raise
    // their ancestors.
    scratch.errors.assign(self.errors.begin(), self.errors.end());
    float* e = scratch.errors.data();
    for (int side = 0; side < 4; ++side) {
        const RtinErrors* n = neighbours[static_cast<std::size_t>(side)];
        if (n == nullptr || n->errors.size() != kHeightSampleCount) continue;
        for (int i = 1; i < kC; ++i) {
            // (mine, theirs) as (column, row) pairs: N row 0 ↔ their row 256, E column 256 ↔
            // their column 0, S row 256 ↔ their row 0, W column 0 ↔ their column 256.
            int mine = 0, theirs = 0;
            switch (side) {
                case 0:
                    mine = sampleIndex(i, 0), theirs = sampleIndex(i, kC);
                    break;
                case 1:
                    mine = sampleIndex(kC, i), theirs = sampleIndex(0, i);
                    break;
                case 2:
                    mine = sampleIndex(i, kC), theirs = sampleIndex(i, 0);
                    break;
                default:
                    mine = sampleIndex(0, i), theirs = sampleIndex(kC, i);
                    break;
            }
            e[mine] = std::max(e[mine], n->errors[static_cast<std::size_t>(theirs)]);
        }
    }
    // The corners couple the four tiles around them. A vertex on an edge at distance d from a
    // corner and of level d (d = 1, 2, 4 … 128) shares its diamonds with the other edge at that
    // corner: keeping one keeps vertices of the same kind on both edges (the square between
    // them is split from both), and a vertex the tile across the other edge forces there
    // reaches this edge the same way. Those tiles' errors are not at hand, so wherever a
    // neighbour meets a corner every such vertex at that corner is kept, in both tiles alike.
    // Any other edge vertex has its descendants and ancestors on its own edge and inside, which
    // the forcing above keeps identical across the edge.
    constexpr std::array<std::array<int, 4>, 4> kCorners = {{
        // corner x, y, and the two sides meeting there
        {0, 0, 0, 3},
        {kC, 0, 0, 1},
        {kC, kC, 1, 2},
        {0, kC, 2, 3},
    }};
    for (const auto& [x, y, sideA, sideB] : kCorners) {
        const auto has = [&](int side) {
            const RtinErrors* n = neighbours[static_cast<std::size_t>(side)];
            return n != nullptr && n->errors.size() == kHeightSampleCount;
        };
        if (!has(sideA) && !has(sideB)) continue;
        const int dx = x == 0 ? 1 : -1, dy = y == 0 ? 1 : -1;
        for (int d = 1; d < kC; d *= 2) {
            e[sampleIndex(x + dx * d, y)] = std::numeric_limits<float>::infinity();
            e[sampleIndex(x, y + dy * d)] = std::numeric_limits<float>::infinity();
        }
    }
    propagate(e);

    scratch.vertex.assign(kHeightSampleCount, 0);  // 1 marks a sample the triangles use
    refine(e, maxErrorMetres, {0, 0}, {kC, kC}, {kC, 0}, out.indices, scratch.vertex);
    refine(e, maxErrorMetres, {kC, kC}, {0, 0}, {0, kC}, out.indices, scratch.vertex);

    // Number the vertices in sample order, then turn the sample indices into vertex indices.
    std::uint32_t next = 0;
    for (int y = 0; y <= kC; ++y) {
        for (int x = 0; x <= kC; ++x) {
            const auto i = static_cast<std::size_t>(sampleIndex(x, y));
            if (scratch.vertex[i] == 0) continue;
            scratch.vertex[i] = next++;
            out.vertices.push_back({static_cast<std::uint16_t>(x), static_cast<std::uint16_t>(y), cleanHeight(h[i])});
        }
    }
    for (std::uint32_t& i : out.indices) i = scratch.vertex[i];
}

GroundMesh buildGroundMesh(const HeightTile& heights, const RtinErrors& self,
                           const std::array<const RtinErrors*, 4>& neighbours, float maxErrorMetres) {
    GroundMesh out;
    GroundMeshScratch scratch;
    buildGroundMesh(heights, self, neighbours, maxErrorMetres, out, scratch);
    return out;
}

}  // namespace terrabit::core::terrain
