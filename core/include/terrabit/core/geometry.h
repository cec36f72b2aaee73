#pragma once
/// Plain 2-D geometry types shared by every core module.

#include <cmath>

namespace terrabit::core {

/// A 2-D point or vector. Units depend on the space it lives in and are stated where it is used
/// (cells, EPSG:3857 metres, ground metres, degrees).
struct Vec2 {
    double x = 0.0;
    double y = 0.0;

    friend constexpr Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
    friend constexpr Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
    friend constexpr Vec2 operator*(Vec2 a, double s) { return {a.x * s, a.y * s}; }
    friend constexpr bool operator==(Vec2 a, Vec2 b) = default;
};

constexpr double dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
constexpr double cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
inline double length(Vec2 a) { return std::sqrt(dot(a, a)); }
inline bool isFinite(Vec2 a) { return std::isfinite(a.x) && std::isfinite(a.y); }

/// An axis-aligned box; empty when min > max on either axis. Units as for Vec2.
struct Box2 {
    Vec2 min{1.0, 1.0};
    Vec2 max{0.0, 0.0};

    bool empty() const { return min.x > max.x || min.y > max.y; }
    double width() const { return max.x - min.x; }
    double height() const { return max.y - min.y; }
    Vec2 centre() const { return {(min.x + max.x) * 0.5, (min.y + max.y) * 0.5}; }
    void extend(Vec2 p) {
        if (empty()) {
            min = max = p;
            return;
        }
        min.x = std::fmin(min.x, p.x);
        min.y = std::fmin(min.y, p.y);
        max.x = std::fmax(max.x, p.x);
        max.y = std::fmax(max.y, p.y);
    }
    bool intersects(const Box2& o) const {
        return !empty() && !o.empty() && min.x <= o.max.x && o.min.x <= max.x && min.y <= o.max.y && o.min.y <= max.y;
    }
    bool contains(Vec2 p) const { return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y; }
};

/// Longitude and latitude in degrees (WGS 84), longitude first.
struct LonLat {
    double lon = 0.0;
    double lat = 0.0;
    friend constexpr bool operator==(LonLat a, LonLat b) = default;
};

}  // namespace terrabit::core
