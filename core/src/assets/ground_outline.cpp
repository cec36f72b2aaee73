#include "terrabit/core/assets/ground_outline.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace terrabit::core {

namespace {

/// How far a projected triangle must enter a raster cell to cover it, metres: edges that lie
/// on a grid line (a wall at a whole number of steps from the centre) up to float rounding
/// cover no cell beyond it.
constexpr double kEnter = 1e-4;
/// The most raster cells along either axis of a model's ground (see groundOutline).
constexpr double kMaxCellsPerAxis = 4096.0;

/// The grid lines along one axis: the bounds' ends and every multiple of `step` from the
/// centre strictly between them, so the cells are whole steps save the two at the ends.
std::vector<double> gridLines(double lo, double hi, double step) {
    const double centre = 0.5 * (lo + hi);
    std::vector<double> lines{lo};
    const auto first = static_cast<std::int64_t>(std::floor((lo - centre) / step)) + 1;
    for (std::int64_t k = first;; ++k) {
        const double x = centre + static_cast<double>(k) * step;
        if (x >= hi - kEnter) break;
        if (x > lo + kEnter) lines.push_back(x);
    }
    lines.push_back(hi);
    return lines;
}

/// The cells [first, last) along one axis whose span meets [lo, hi].
std::pair<std::size_t, std::size_t> cellRange(const std::vector<double>& lines, double lo, double hi) {
    const auto a = std::upper_bound(lines.begin(), lines.end(), lo);
    const auto b = std::lower_bound(lines.begin(), lines.end(), hi);
    const std::size_t first = a == lines.begin() ? 0 : static_cast<std::size_t>(a - lines.begin()) - 1;
    const std::size_t last = std::min(static_cast<std::size_t>(b - lines.begin()), lines.size() - 1);
    return {first, last};
}

struct Tri {
    std::array<double, 3> x, z;
};

/// Separating-axis test: the triangle enters the open cell [x0, x1] × [z0, z1] by more than
/// kEnter along every axis (the cell's two and the triangle's three edge normals).
bool enters(const Tri& t, double x0, double x1, double z0, double z1) {
    const auto [txMin, txMax] = std::minmax({t.x[0], t.x[1], t.x[2]});
    const auto [tzMin, tzMax] = std::minmax({t.z[0], t.z[1], t.z[2]});
    if (txMax <= x0 + kEnter || txMin >= x1 - kEnter || tzMax <= z0 + kEnter || tzMin >= z1 - kEnter) return false;
    const double cx = 0.5 * (x0 + x1), cz = 0.5 * (z0 + z1), hx = 0.5 * (x1 - x0), hz = 0.5 * (z1 - z0);
    for (std::size_t e = 0; e < 3; ++e) {
        const std::size_t f = (e + 1) % 3;
        double nx = t.z[f] - t.z[e], nz = t.x[e] - t.x[f];
        const double len = std::hypot(nx, nz);
        if (len == 0.0) continue;
        nx /= len;
        nz /= len;
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (std::size_t k = 0; k < 3; ++k) {
            const double p = t.x[k] * nx + t.z[k] * nz;
            lo = std::min(lo, p);
            hi = std::max(hi, p);
        }
        const double c = cx * nx + cz * nz, r = hx * std::abs(nx) + hz * std::abs(nz);
        if (c + r <= lo + kEnter || c - r >= hi - kEnter) return false;
    }
    return true;
}

/// Cell rectangle [i0, i1) × [j0, j1) of the raster.
struct RasterRect {
    std::size_t i0 = 0, j0 = 0, i1 = 0, j1 = 0;
    std::size_t cells() const { return (i1 - i0) * (j1 - j0); }
};

/// The largest rectangle (by cell count) of cells marked 1 in `free` (nx × nz, row-major by z),
/// the first in row then column order among equals; empty when no cell is free. Histogram of
/// free runs above each row and a stack per row: O(nx × nz).
RasterRect largestFree(const std::vector<std::uint8_t>& free, std::size_t nx, std::size_t nz) {
    RasterRect best;
    std::vector<std::size_t> height(nx, 0);
    std::vector<std::size_t> stack;
    for (std::size_t j = 0; j < nz; ++j) {
        for (std::size_t i = 0; i < nx; ++i) height[i] = free[j * nx + i] ? height[i] + 1 : 0;
        stack.clear();
        for (std::size_t i = 0; i <= nx; ++i) {
            const std::size_t h = i < nx ? height[i] : 0;
            while (!stack.empty() && height[stack.back()] >= h) {
                const std::size_t top = stack.back();
                stack.pop_back();
                const std::size_t left = stack.empty() ? 0 : stack.back() + 1;
                const RasterRect r{left, j + 1 - height[top], i, j + 1};
                if (height[top] > 0 && r.cells() > best.cells()) best = r;
            }
            stack.push_back(i);
        }
    }
    return best;
}

OutlineRect boundingBox(const OutlineRect& a, const OutlineRect& b) {
    return {std::min(a.x0, b.x0), std::min(a.z0, b.z0), std::max(a.x1, b.x1), std::max(a.z1, b.z1)};
}

}  // namespace

std::vector<OutlineRect> groundOutline(const AssetMesh& mesh, const GroundOutlineOptions& options) {
    const ModelBounds bounds = mesh.bounds();
    if (bounds.empty() || !(bounds.size(0) > 0.0) || !(bounds.size(2) > 0.0) || !(options.stepMetres > 0.0)) return {};
    if (!std::isfinite(bounds.size(0)) || !std::isfinite(bounds.size(2))) return {};
    // A model so large that the step would make a grid of more than kMaxCellsPerAxis a side is
    // rasterized coarser: its outline is still conservative, and the grid stays small.
    const double step =
        std::max({options.stepMetres, bounds.size(0) / kMaxCellsPerAxis, bounds.size(2) / kMaxCellsPerAxis});
    const std::vector<double> xs = gridLines(bounds.min[0], bounds.max[0], step);
    const std::vector<double> zs = gridLines(bounds.min[2], bounds.max[2], step);
    const std::size_t nx = xs.size() - 1, nz = zs.size() - 1;
    std::vector<std::uint8_t> covered(nx * nz, 0);
    for (std::size_t t = 0; t < mesh.triangleCount(); ++t) {
        Tri tri;
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < 3; ++k) {
            const std::size_t v = mesh.indices[t * 3 + k];
            tri.x[k] = mesh.positions[v * 3];
            tri.z[k] = mesh.positions[v * 3 + 2];
            top = std::max(top, double(mesh.positions[v * 3 + 1]));
        }
        // Paving or a lawn lying on the ground (a courtyard's floor) is not where the model stands.
        if (top <= bounds.min[1] + options.groundSkinMetres) continue;
        // Seen edge-on from above (a wall): no ground of its own.
        const double twiceArea =
            (tri.x[1] - tri.x[0]) * (tri.z[2] - tri.z[0]) - (tri.x[2] - tri.x[0]) * (tri.z[1] - tri.z[0]);
        if (std::abs(twiceArea) < 1e-9) continue;
        const auto [xi0, xi1] =
            cellRange(xs, std::min({tri.x[0], tri.x[1], tri.x[2]}), std::max({tri.x[0], tri.x[1], tri.x[2]}));
        const auto [zj0, zj1] =
            cellRange(zs, std::min({tri.z[0], tri.z[1], tri.z[2]}), std::max({tri.z[0], tri.z[1], tri.z[2]}));
        for (std::size_t j = zj0; j < zj1; ++j) {
            for (std::size_t i = xi0; i < xi1; ++i) {
                std::uint8_t& c = covered[j * nx + i];
                if (!c && enters(tri, xs[i], xs[i + 1], zs[j], zs[j + 1])) c = 1;
            }
        }
    }

    // Greedy decomposition: the largest rectangle of covered cells not yet claimed, again and
    // again. Exact for the few wings of a building; a round model gives many, merged below.
    const double cx = 0.5 * (bounds.min[0] + bounds.max[0]), cz = 0.5 * (bounds.min[2] + bounds.max[2]);
    std::vector<std::uint8_t> free = covered;
    std::vector<OutlineRect> rects;
    for (;;) {
        const RasterRect r = largestFree(free, nx, nz);
        if (r.cells() == 0) break;
        for (std::size_t j = r.j0; j < r.j1; ++j)
            std::fill_n(free.begin() + static_cast<std::ptrdiff_t>(j * nx + r.i0), r.i1 - r.i0, 0);
        rects.push_back({xs[r.i0] - cx, zs[r.j0] - cz, xs[r.i1] - cx, zs[r.j1] - cz});
    }
    if (rects.empty()) return {};
    // Too many: merge the pair whose bounding box adds the least area until the count fits.
    const auto maxRects = static_cast<std::size_t>(std::max(1, options.maxRects));
    while (rects.size() > maxRects) {
        std::size_t bestA = 0, bestB = 1;
        double bestCost = std::numeric_limits<double>::infinity();
        for (std::size_t a = 0; a < rects.size(); ++a) {
            for (std::size_t b = a + 1; b < rects.size(); ++b) {
                const double cost = boundingBox(rects[a], rects[b]).area() - rects[a].area() - rects[b].area();
                if (cost < bestCost) {
                    bestCost = cost;
                    bestA = a;
                    bestB = b;
                }
            }
        }
        rects[bestA] = boundingBox(rects[bestA], rects[bestB]);
        rects.erase(rects.begin() + static_cast<std::ptrdiff_t>(bestB));
    }
    // The share of the box the rectangles cover, counted on the raster (merged boxes overlap).
    double coveredArea = 0.0;
    for (std::size_t j = 0; j < nz; ++j) {
        for (std::size_t i = 0; i < nx; ++i) {
            const double mx = 0.5 * (xs[i] + xs[i + 1]) - cx, mz = 0.5 * (zs[j] + zs[j + 1]) - cz;
            const bool in = std::any_of(rects.begin(), rects.end(), [&](const OutlineRect& r) {
                return mx > r.x0 && mx < r.x1 && mz > r.z0 && mz < r.z1;
            });
            if (in) coveredArea += (xs[i + 1] - xs[i]) * (zs[j + 1] - zs[j]);
        }
    }
    if (coveredArea >= options.boxShare * bounds.size(0) * bounds.size(2)) return {};
    std::sort(rects.begin(), rects.end(),
              [](const OutlineRect& a, const OutlineRect& b) { return a.z0 != b.z0 ? a.z0 < b.z0 : a.x0 < b.x0; });
    return rects;
}

}  // namespace terrabit::core
