#include "terrabit/core/collision/collision_query.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace terrabit::core {

namespace {
// floor and ceil to integers without a libm call (the baseline x86-64 target has no roundsd);
// callers clamp first, so the conversion is in range.
inline std::int64_t floorToInt64(double v) {
    const auto i = static_cast<std::int64_t>(v);
    return i - (v < static_cast<double>(i));
}
inline std::int64_t ceilToInt64(double v) {
    const auto i = static_cast<std::int64_t>(v);
    return i + (v > static_cast<double>(i));
}
}  // namespace

std::uint64_t CollisionQuery::spanLayers(int y, std::int64_t x0, std::int64_t x1, std::uint64_t mask,
                                         std::vector<CellHit>* hits) const {
    // Hot: every probe ends here, one call per covered row. Works word by word: a span of a
    // 4 m rectangle is one or two words per layer.
    const CollisionGrid& g = *mGrid;
    std::uint64_t result = 0;
    const int layers = g.layerCount();
    for (std::int64_t wx = x0 & ~std::int64_t{63}; wx < x1; wx += 64) {
        const std::int64_t lo = std::max(x0, wx);
        const std::int64_t hi = std::min(x1, wx + 64);
        const std::uint64_t spanMask = spanWordMask(0, static_cast<int>(lo - wx), static_cast<int>(hi - wx));
        std::uint64_t any = 0;
        for (int layer = 0; layer < layers; ++layer) {
            if (!((mask >> layer) & 1u)) continue;
            const std::uint64_t w = g.word(layer, wx, y) & spanMask;
            if (w) {
                result |= std::uint64_t{1} << layer;
                any |= w;
            }
        }
        if (hits && any) {
            for (std::uint64_t bits = any; bits; bits &= bits - 1) {
                const std::int64_t lx = wx + std::countr_zero(bits);
                hits->push_back({lx + g.cellX0(), y + g.cellY0(), g.layersAt(lx + g.cellX0(), y + g.cellY0(), mask)});
            }
        }
    }
    return result;
}

ProbeResult CollisionQuery::polygonProbe(std::span<const Vec2> localPoints, Coverage coverage, std::uint64_t mask,
                                         std::vector<CellHit>* hits) {
    const CollisionGrid& g = *mGrid;
    if (g.layerCount() == 0 || g.cellWidth() == 0) return {};
    const std::array<std::uint32_t, 1> ringEnd{static_cast<std::uint32_t>(localPoints.size())};
    std::uint64_t result = 0;
    const Status s = mRaster.polygonSpans(PolygonView{localPoints, ringEnd}, RasterOptions{FillRule::NonZero, coverage},
                                          static_cast<int>(g.cellWidth()), static_cast<int>(g.cellHeight()),
                                          [&](int y, int x0, int x1) { result |= spanLayers(y, x0, x1, mask, hits); });
    if (!s) return {};  // NaN or infinite coordinates: such a probe touches nothing
    return {result};
}

ProbeResult CollisionQuery::segment(Vec2 a, Vec2 b, std::uint64_t mask, std::vector<CellHit>* hits) {
    const std::array<Vec2, 2> pts{toLocal(a), toLocal(b)};
    return polygonProbe(pts, Coverage::Conservative, mask, hits);
}

ProbeResult CollisionQuery::triangle(Vec2 a, Vec2 b, Vec2 c, std::uint64_t mask, std::vector<CellHit>* hits,
                                     Coverage coverage) {
    const std::array<Vec2, 3> pts{toLocal(a), toLocal(b), toLocal(c)};
    return polygonProbe(pts, coverage, mask, hits);
}

ProbeResult CollisionQuery::rectangle(const Box2& box, std::uint64_t mask, std::vector<CellHit>* hits,
                                      Coverage coverage) {
    // Axis-aligned: no scan conversion, the covered cells are a range per axis.
    // Conservative: cells whose open interior meets the closed box; centre: centres in the box
    // under the rasterizer's tie rule (x in (lo, hi], y in [lo, hi)).
    const CollisionGrid& g = *mGrid;
    std::int64_t ix0, ix1, iy0, iy1;
    if (coverage == Coverage::Conservative) {
        if (!localCellRange(box, ix0, ix1, iy0, iy1)) return {};
    } else {
        const Vec2 lo = toLocal(box.min);
        const Vec2 hi = toLocal(box.max);
        if (!(lo.x <= hi.x && lo.y <= hi.y) || !isFinite(lo) || !isFinite(hi)) return {};
        const double w = static_cast<double>(g.cellWidth());
        const double h = static_cast<double>(g.cellHeight());
        // Clamped first (no NaN here), so the conversions cannot overflow.
        ix0 = std::max<std::int64_t>(floorToInt64(std::clamp(lo.x + 0.5, -1.0, w + 1.0)), 0);
        ix1 = std::min<std::int64_t>(floorToInt64(std::clamp(hi.x + 0.5, -1.0, w + 1.0)), g.cellWidth());
        iy0 = std::max<std::int64_t>(ceilToInt64(std::clamp(lo.y - 0.5, -1.0, h + 1.0)), 0);
        iy1 = std::min<std::int64_t>(ceilToInt64(std::clamp(hi.y - 0.5, -1.0, h + 1.0)), g.cellHeight());
        if (!(ix0 < ix1 && iy0 < iy1)) return {};
    }
    std::uint64_t result = 0;
    if (hits == nullptr) {
        const std::uint64_t layers = g.layerCount() >= 64 ? kAllLayers : (std::uint64_t{1} << g.layerCount()) - 1;
        for (std::uint64_t todo = mask & layers; todo; todo &= todo - 1) {
            const int layer = std::countr_zero(todo);
            if (anyInCells(layer, ix0, ix1, iy0, iy1)) result |= std::uint64_t{1} << layer;
        }
        return {result};
    }
    for (std::int64_t y = iy0; y < iy1; ++y) result |= spanLayers(static_cast<int>(y), ix0, ix1, mask, hits);
    return {result};
}

ProbeResult CollisionQuery::orientedRectangle(Vec2 centre, Vec2 halfExtents, double angleRadians, std::uint64_t mask,
                                              std::vector<CellHit>* hits, Coverage coverage) {
    // Counter-clockwise with north up is clockwise on the y-down cell grid.
    const double c = std::cos(angleRadians);
    const double s = std::sin(angleRadians);
    const Vec2 u{c * halfExtents.x, -s * halfExtents.x};
    const Vec2 v{s * halfExtents.y, c * halfExtents.y};
    const Vec2 m = toLocal(centre);
    const std::array<Vec2, 4> pts{m - u - v, m + u - v, m + u + v, m - u + v};
    return polygonProbe(pts, coverage, mask, hits);
}

ProbeResult CollisionQuery::disk(Vec2 centre, double radius, std::uint64_t mask, std::vector<CellHit>* hits,
                                 Coverage coverage) {
    const CollisionGrid& g = *mGrid;
    const Vec2 c = toLocal(centre);
    if (!isFinite(c) || !std::isfinite(radius) || radius < 0.0 || g.layerCount() == 0) return {};
    if (radius == 0.0) return coverage == Coverage::Conservative ? ProbeResult{point(centre, mask)} : ProbeResult{};
    const double h = static_cast<double>(g.cellHeight());
    const double w = static_cast<double>(g.cellWidth());
    std::uint64_t result = 0;
    // The same row/chord rules as Rasterizer::disk: conservative rows take the chord where the
    // open strip comes nearest the centre; centre rows take it on the row's centre line.
    const double rowLo =
        std::fmax(coverage == Coverage::Conservative ? std::floor(c.y - radius) : std::ceil(c.y - radius - 0.5), 0.0);
    const double rowHi = std::fmin(std::ceil(c.y + radius), h);
    for (double j = rowLo; j < rowHi; j += 1.0) {
        double d, x0, x1;
        if (coverage == Coverage::Conservative) {
            d = std::fmin(std::fmax(c.y, j), j + 1.0) - c.y;
            const double h2 = radius * radius - d * d;
            if (h2 <= 0.0) continue;
            const double half = std::sqrt(h2);
            x0 = std::floor(c.x - half);
            x1 = std::ceil(c.x + half);
        } else {
            d = j + 0.5 - c.y;
            const double h2 = radius * radius - d * d;
            if (h2 < 0.0) continue;
            const double half = std::sqrt(h2);
            x0 = std::ceil(c.x - half - 0.5);
            x1 = std::floor(c.x + half - 0.5) + 1.0;
        }
        x0 = std::fmax(x0, 0.0);
        x1 = std::fmin(x1, w);
        if (x0 < x1) {
            result |= spanLayers(static_cast<int>(j), static_cast<std::int64_t>(x0), static_cast<std::int64_t>(x1),
                                 mask, hits);
        }
    }
    return {result};
}

}  // namespace terrabit::core
