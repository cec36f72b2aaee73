#pragma once
/// Slow, obviously-correct references for the rasterizer tests: every cell is decided on its own
/// by a point-in-polygon or segment/square predicate, with no scanline, no sorting and no
/// clipping. They follow the rules documented in rasterizer.h literally:
///  - centre rule: a crossing of the row's centre line counts when ymin <= yc < ymax, and a
///    centre counts the crossings strictly to its left (so a centre on a crossing belongs to the
///    span left of it);
///  - conservative: a cell is covered when the closed shape meets the cell's open square.
/// The predicates use only products and differences, so with coordinates on a coarse dyadic grid
/// (multiples of 1/64 below a few thousand) they are exact, ties included.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/raster/bit_grid.h"
#include "terrabit/core/raster/rasterizer.h"

namespace terrabit::test {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

using core::FillRule;
using core::Vec2;

/// Calls f(a, b) for every edge of every ring (rings close implicitly; a 1-point ring has one
/// zero-length edge, an empty ring none).
template <class F>
void forEachEdge(const core::PolygonView& shape, F&& f) {
    std::uint32_t begin = 0;
    for (std::uint32_t end : shape.ringEnds) {
        const std::uint32_t n = end - begin;
        for (std::uint32_t i = 0; i < n; ++i) f(shape.points[begin + i], shape.points[begin + (i + 1) % n]);
        begin = end;
    }
}

/// The cross product (b - a) x (p - a): its sign tells which side of the line a -> b p is on; 0
/// on the line.
inline double side(Vec2 a, Vec2 b, Vec2 p) { return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x); }

/// True when the point p is inside under the fill rule and the documented tie rule.
inline bool centreInside(const core::PolygonView& shape, FillRule rule, Vec2 p) {
    int winding = 0;
    int crossings = 0;
    forEachEdge(shape, [&](Vec2 a, Vec2 b) {
        if (a.y == b.y) return;  // horizontal edges never cross a centre line
        const int w = a.y < b.y ? +1 : -1;
        const Vec2 lo = a.y < b.y ? a : b;
        const Vec2 hi = a.y < b.y ? b : a;
        if (!(lo.y <= p.y && p.y < hi.y)) return;
        // The crossing is strictly left of p when p is strictly right of the upward-sorted edge:
        // (p.x - lo.x) * (hi.y - lo.y) > (p.y - lo.y) * (hi.x - lo.x), with hi.y > lo.y.
        if ((p.x - lo.x) * (hi.y - lo.y) - (p.y - lo.y) * (hi.x - lo.x) > 0.0) {
            ++crossings;
            winding += w;
        }
    });
    return rule == FillRule::EvenOdd ? (crossings & 1) != 0 : winding != 0;
}

/// True when the closed segment a-b meets the open square (x0, x0+1) x (y0, y0+1).
inline bool segmentMeetsOpenCell(Vec2 a, Vec2 b, int x0, int y0) {
    const double lx = x0, hx = x0 + 1.0, ly = y0, hy = y0 + 1.0;
    if (a.x == b.x && a.y == b.y) return a.x > lx && a.x < hx && a.y > ly && a.y < hy;
    // Separating axes of a segment and a box: x, y and the segment's normal. The open square
    // projects to open intervals, the closed segment to closed ones.
    if (std::max(a.x, b.x) <= lx || std::min(a.x, b.x) >= hx) return false;
    if (std::max(a.y, b.y) <= ly || std::min(a.y, b.y) >= hy) return false;
    const double s[4] = {side(a, b, {lx, ly}), side(a, b, {hx, ly}), side(a, b, {hx, hy}), side(a, b, {lx, hy})};
    const bool allNonNegative = s[0] >= 0 && s[1] >= 0 && s[2] >= 0 && s[3] >= 0;
    const bool allNonPositive = s[0] <= 0 && s[1] <= 0 && s[2] <= 0 && s[3] <= 0;
    return !(allNonNegative || allNonPositive);
}

/// True when the closed shape meets the open square of cell (x, y).
inline bool cellTouched(const core::PolygonView& shape, FillRule rule, int x, int y) {
    bool touched = false;
    forEachEdge(shape, [&](Vec2 a, Vec2 b) { touched = touched || segmentMeetsOpenCell(a, b, x, y); });
    // No boundary inside the open square: the square is wholly inside or wholly outside, and its
    // centre (not on the boundary) says which.
    return touched || centreInside(shape, rule, {x + 0.5, y + 0.5});
}

/// A row-major grid of bools, the reference's output.
struct RefGrid {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> cells;

    RefGrid(int w, int h) : width(w), height(h), cells(static_cast<std::size_t>(w) * h, 0) {}
    bool at(int x, int y) const { return cells[static_cast<std::size_t>(y) * width + x] != 0; }
    void set(int x, int y, bool on) { cells[static_cast<std::size_t>(y) * width + x] = on; }
    int count() const { return static_cast<int>(std::count(cells.begin(), cells.end(), 1)); }
};

/// The cells of a width x height grid that could possibly be covered: the shape's bounding box
/// grown by one cell, clipped to the grid. Cells outside it are decided as "not covered" without
/// evaluating the predicates, which keeps the reference fast enough for thousands of shapes.
struct CellRange {
    int x0, y0, x1, y1;  ///< half-open
};
inline CellRange candidateCells(const core::PolygonView& shape, int width, int height) {
    if (shape.points.empty()) return {0, 0, 0, 0};
    double minX = shape.points[0].x, maxX = minX, minY = shape.points[0].y, maxY = minY;
    for (Vec2 p : shape.points) {
        minX = std::min(minX, p.x);
        maxX = std::max(maxX, p.x);
        minY = std::min(minY, p.y);
        maxY = std::max(maxY, p.y);
    }
    auto clampTo = [](double v, int hi) { return static_cast<int>(std::clamp(v, 0.0, static_cast<double>(hi))); };
    return {clampTo(std::floor(minX) - 1, width), clampTo(std::floor(minY) - 1, height),
            clampTo(std::ceil(maxX) + 1, width), clampTo(std::ceil(maxY) + 1, height)};
}

/// The reference raster of a polygon under the centre rule.
inline RefGrid referenceCentre(const core::PolygonView& shape, FillRule rule, int width = 256, int height = 256) {
    RefGrid g(width, height);
    const CellRange r = candidateCells(shape, width, height);
    for (int y = r.y0; y < r.y1; ++y)
        for (int x = r.x0; x < r.x1; ++x) g.set(x, y, centreInside(shape, rule, {x + 0.5, y + 0.5}));
    return g;
}

/// The reference raster of a polygon under the conservative rule.
inline RefGrid referenceConservative(const core::PolygonView& shape, FillRule rule, int width = 256, int height = 256) {
    RefGrid g(width, height);
    const CellRange r = candidateCells(shape, width, height);
    for (int y = r.y0; y < r.y1; ++y)
        for (int x = r.x0; x < r.x1; ++x) g.set(x, y, cellTouched(shape, rule, x, y));
    return g;
}

/// Number of cells where a BitTile, BitGrid or BitGridView differs from a reference.
template <class Grid>
int mismatches(const Grid& grid, const RefGrid& ref) {
    int n = 0;
    for (int y = 0; y < ref.height; ++y)
        for (int x = 0; x < ref.width; ++x) n += grid.test(x, y) != ref.at(x, y);
    return n;
}

/// A polygon owning its points, for building test shapes.
struct Shape {
    std::vector<Vec2> points;
    std::vector<std::uint32_t> ringEnds;

    Shape() = default;
    explicit Shape(std::vector<Vec2> ring) { addRing(std::move(ring)); }
    Shape& addRing(std::vector<Vec2> ring) {
        points.insert(points.end(), ring.begin(), ring.end());
        ringEnds.push_back(static_cast<std::uint32_t>(points.size()));
        return *this;
    }
    core::PolygonView view() const { return {points, ringEnds}; }
};

}  // namespace terrabit::test
