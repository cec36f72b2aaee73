#include "terrabit/core/raster/rasterizer.h"

#include <array>
#include <numbers>
#include <string>

namespace terrabit::core {

namespace raster_detail {

Status validate(const PolygonView& shape) {
    std::uint32_t previous = 0;
    for (std::size_t r = 0; r < shape.ringEnds.size(); ++r) {
        const std::uint32_t end = shape.ringEnds[r];
        if (end < previous || end > shape.points.size()) {
            return Error{"polygon ring " + std::to_string(r) + " ends at point " + std::to_string(end) +
                         ", outside the " + std::to_string(shape.points.size()) + " points given"};
        }
        previous = end;
    }
    for (std::size_t i = 0; i < shape.points.size(); ++i) {
        if (!isFinite(shape.points[i])) {
            return Error{"polygon point " + std::to_string(i) + " has a NaN or infinite coordinate"};
        }
    }
    return {};
}

}  // namespace raster_detail

namespace {

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

/// Emits the spans of a disk under a coverage rule, clipped to the grid.
void diskSpans(Vec2 c, double r, Coverage coverage, BitGridView grid) {
    const int width = grid.width();
    if (r <= 0.0) return;
    if (coverage == Coverage::CellCentre) {
        // Rows whose centre line is within r of the centre; on each, centres within the chord.
        const int r0 = raster_detail::clampToInt(std::ceil(c.y - r - 0.5), 0, grid.height);
        const int r1 = raster_detail::clampToInt(std::floor(c.y + r - 0.5), -1, grid.height - 1);
        for (int j = r0; j <= r1; ++j) {
            const double d = j + 0.5 - c.y;
            const double h2 = r * r - d * d;
            if (h2 < 0.0) continue;
            const double h = std::sqrt(h2);
            // Centres in [c.x - h, c.x + h]: first i with i + 0.5 >= c.x - h.
            const int x0 = raster_detail::clampToInt(std::ceil(c.x - h - 0.5), 0, width);
            const int x1 = raster_detail::clampToInt(std::floor(c.x + h - 0.5) + 1.0, 0, width);
            if (x0 < x1) grid.fillSpan(j, x0, x1);
        }
    } else {
        // Rows whose open strip (j, j+1) comes within r of the centre; the chord is widest at
        // the strip's y nearest the centre.
        const int r0 = raster_detail::clampToInt(std::floor(c.y - r), 0, grid.height);
        const int r1 = raster_detail::clampToInt(std::ceil(c.y + r), 0, grid.height);
        for (int j = r0; j < r1; ++j) {
            const double nearest = std::fmin(std::fmax(c.y, static_cast<double>(j)), static_cast<double>(j + 1));
            const double d = nearest - c.y;
            const double h2 = r * r - d * d;
            if (h2 <= 0.0) continue;
            const double h = std::sqrt(h2);
            const int x0 = raster_detail::clampToInt(std::floor(c.x - h), 0, width);
            const int x1 = raster_detail::clampToInt(std::ceil(c.x + h), 0, width);
            if (x0 < x1) grid.fillSpan(j, x0, x1);
        }
    }
}

}  // namespace

Status Rasterizer::polygon(const PolygonView& shape, RasterOptions options, BitGridView target) {
    return polygonSpans(shape, options, target.width(), target.height, GridSink{target});
}

Status Rasterizer::polyline(std::span<const Vec2> points, double widthCells, Coverage coverage, BitGridView target) {
    if (Status s = checkFinite({widthCells}, "polyline width"); !s) return s;
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (!isFinite(points[i])) {
            return Error{"polyline point " + std::to_string(i) + " has a NaN or infinite coordinate"};
        }
    }
    const double half = std::fmax(widthCells, 0.0) * 0.5;
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
        (void)polygonSpans(PolygonView{quad, ringEnd}, options, target.width(), target.height, GridSink{target});
    }
    // Round joins and caps. A zero-width line in conservative mode still touches its cells
    // through the degenerate quads above; a lone point does so through its own cell.
    for (const Vec2& p : points) diskSpans(p, half, coverage, target);
    if (points.size() == 1 && coverage == Coverage::Conservative) return point(points[0], half, coverage, target);
    return {};
}

Status Rasterizer::disk(Vec2 centre, double radiusCells, Coverage coverage, BitGridView target) {
    if (Status s = checkFinite({centre.x, centre.y, radiusCells}, "disk"); !s) return s;
    diskSpans(centre, radiusCells, coverage, target);
    return {};
}

Status Rasterizer::point(Vec2 p, double radiusCells, Coverage coverage, BitGridView target) {
    if (Status s = checkFinite({p.x, p.y, radiusCells}, "point"); !s) return s;
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
    const std::array<std::uint32_t, 1> ringEnd{4};
    return polygon(PolygonView{pts, ringEnd}, {FillRule::EvenOdd, coverage}, target);
}

}  // namespace terrabit::core
