#include "terrabit/core/placement/target_box.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace terrabit::core::placement {

void convexHull(std::span<const Vec2> points, std::vector<Vec2>& hull) {
    hull.clear();
    for (const Vec2 p : points) {
        if (isFinite(p)) hull.push_back(p);
    }
    std::sort(hull.begin(), hull.end(), [](Vec2 a, Vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    hull.erase(std::unique(hull.begin(), hull.end()), hull.end());
    const std::size_t n = hull.size();
    if (n < 3) return;

    // Monotone chain in place: the sorted points are copied to the tail, the chain is built at
    // the head. Each point is pushed at most twice, so the chain never reaches the tail. Turns
    // that are not strictly left (cross <= 0) are popped, so collinear points go.
    hull.resize(3 * n);
    std::copy_backward(hull.begin(), hull.begin() + static_cast<std::ptrdiff_t>(n), hull.end());
    const std::size_t src = 2 * n;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2 p = hull[src + i];
        while (k >= 2 && cross(hull[k - 1] - hull[k - 2], p - hull[k - 2]) <= 0) --k;
        hull[k++] = p;
    }
    for (std::size_t i = n - 1, lower = k + 1; i-- > 0;) {
        const Vec2 p = hull[src + i];
        while (k >= lower && cross(hull[k - 1] - hull[k - 2], p - hull[k - 2]) <= 0) --k;
        hull[k++] = p;
    }
    hull.resize(k - 1);  // the last point repeats the first
    if (hull.size() < 3) {
        // All points collinear: the chain collapses to its two ends.
        hull.resize(std::min<std::size_t>(hull.size(), 2));
    }
}

namespace {

/// Turns a box so its angle lies in (-pi/4, pi/4], swapping width and depth per quarter turn.
OrientedBox normalised(OrientedBox box) {
    constexpr double kQuarter = std::numbers::pi / 2;
    double a = std::remainder(box.angle, std::numbers::pi);  // (-pi/2, pi/2]: a half turn is the same box
    if (a > kQuarter / 2) {
        a -= kQuarter;
        box.halfExtents = {box.halfExtents.y, box.halfExtents.x};
    } else if (a <= -kQuarter / 2) {
        a += kQuarter;
        box.halfExtents = {box.halfExtents.y, box.halfExtents.x};
    }
    box.angle = a;
    return box;
}

}  // namespace

OrientedBox minimumAreaBox(std::span<const Vec2> hull) {
    const std::size_t n = hull.size();
    OrientedBox best;
    if (n == 0) return best;
    if (n == 1) {
        best.centre = hull[0];
        return best;
    }
    if (n == 2) {
        const Vec2 d = hull[1] - hull[0];
        best.centre = (hull[0] + hull[1]) * 0.5;
        best.halfExtents = {length(d) * 0.5, 0.0};
        best.angle = std::atan2(d.y, d.x);
        return normalised(best);
    }

    const auto at = [&](std::size_t i) { return hull[i % n]; };
    double bestArea = 0.0;
    bool found = false;
    // Support points: r maximises the projection on the edge direction u, t on the inward
    // normal v, l minimises on u. They start at the first edge and only move forward.
    std::size_t r = 0, t = 0, l = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2 a = hull[i];
        const Vec2 e = at(i + 1) - a;
        const double len = length(e);
        if (!(len > 0.0)) continue;
        const Vec2 u = e * (1.0 / len);
        const Vec2 v{-u.y, u.x};  // left of a counter-clockwise edge: inwards
        if (i == 0) {
            r = 1;
        }
        // Each loop is bounded by n steps so degenerate input cannot spin.
        for (std::size_t s = 0; s < n && dot(at(r + 1) - at(r), u) > 0.0; ++s) ++r;
        if (i == 0) t = r;
        for (std::size_t s = 0; s < n && dot(at(t + 1) - at(t), v) > 0.0; ++s) ++t;
        if (i == 0) l = t;
        for (std::size_t s = 0; s < n && dot(at(l + 1) - at(l), u) < 0.0; ++s) ++l;

        const double uMax = dot(at(r) - a, u);
        const double uMin = dot(at(l) - a, u);
        const double vMax = dot(at(t) - a, v);
        const double area = (uMax - uMin) * vMax;
        if (!found || area < bestArea) {
            found = true;
            bestArea = area;
            best.halfExtents = {(uMax - uMin) * 0.5, vMax * 0.5};
            best.centre = a + u * ((uMax + uMin) * 0.5) + v * (vMax * 0.5);
            best.angle = std::atan2(u.y, u.x);
        }
    }
    if (!found) {
        best.centre = hull[0];
        return best;
    }
    return normalised(best);
}

OrientedBox axisAlignedBox(std::span<const Vec2> points) {
    Box2 b;
    for (const Vec2 p : points) {
        if (isFinite(p)) b.extend(p);
    }
    OrientedBox box;
    if (b.empty()) return box;
    box.centre = b.centre();
    box.halfExtents = {b.width() * 0.5, b.height() * 0.5};
    return box;
}

std::array<Vec2, 4> boxCorners(const OrientedBox& box) {
    const Vec2 u{std::cos(box.angle), std::sin(box.angle)};
    const Vec2 v{-u.y, u.x};
    const Vec2 w = u * box.halfExtents.x;
    const Vec2 d = v * box.halfExtents.y;
    return {box.centre - w - d, box.centre + w - d, box.centre + w + d, box.centre - w + d};
}

}  // namespace terrabit::core::placement
