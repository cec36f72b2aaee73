#include "generated_shape_p.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "terrabit/core/placement/target_box.h"
#include "terrabit/core/scene/generated_building_mesh.h"

namespace terrabit::core::placement::detail {

namespace {

/// A ring of the footprint in ground metres, without repeated points, not closed.
void ringInGround(FootprintRings rings, std::uint32_t begin, std::uint32_t end, const GroundFrame& frame,
                  std::vector<Vec2>& out) {
    out.clear();
    for (std::uint32_t i = begin; i < end; ++i) {
        const Vec2 p = frame.cellToGround(rings.cells[i]);
        if (!out.empty() && out.back().x == p.x && out.back().y == p.y) continue;
        out.push_back(p);
    }
    while (out.size() > 1 && out.front().x == out.back().x && out.front().y == out.back().y) out.pop_back();
}

/// Twice a ring's signed area (counter-clockwise positive).
double twiceSignedArea(std::span<const Vec2> ring) {
    double twice = 0.0;
    for (std::size_t i = 0; i < ring.size(); ++i) twice += cross(ring[i], ring[(i + 1) % ring.size()]);
    return twice;
}

/// The footprint's inner rings that lie within its outline become the building's courtyards
/// (clockwise), each only when it can be drawn (checkGeneratedBuilding): a yard that touches
/// the outline or another yard stays roofed over. Its cells are free either way.
void addCourtyards(FootprintRings rings, const GroundFrame& frame, GeneratedBuilding& out) {
    if (rings.ends.size() < 2) return;  // the outline alone
    std::uint32_t begin = 0;
    for (const std::uint32_t end : rings.ends) {
        std::vector<Vec2> yard;
        ringInGround(rings, begin, end, frame, yard);
        begin = end;
        // The outer ring itself meets the outline, so the check below refuses it too.
        if (twiceSignedArea(yard) > 0.0) std::reverse(yard.begin(), yard.end());
        out.courtyards.push_back(std::move(yard));
        if (!checkGeneratedBuilding(out)) out.courtyards.pop_back();
    }
}

}  // namespace

bool credibleHeight(double metres) { return metres > 0.0 && metres <= kGeneratedMaxHeightMetres; }

double numberTag(const Feature& f, std::string_view key) {
    const auto text = f.tag(key);
    if (!text) return 0.0;
    double n = 0.0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    return ec == std::errc{} && end == text->data() + text->size() && std::isfinite(n) && n > 0.0 ? n : 0.0;
}

double taggedHeight(const Feature& f, double storeyHeight) {
    if (const auto h = f.metresTag("height"); h && credibleHeight(*h)) return *h;
    if (const double levels = numberTag(f, "building:levels"); credibleHeight(levels * storeyHeight)) {
        return levels * storeyHeight;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

void outerRing(FootprintRings rings, const GroundFrame& frame, std::vector<Vec2>& out) {
    double best = 0.0;
    std::uint32_t bestBegin = 0, bestEnd = 0, begin = 0;
    for (const std::uint32_t end : rings.ends) {
        double area = 0.0;
        for (std::uint32_t i = begin; i < end; ++i) {
            const Vec2 a = rings.cells[i], c = rings.cells[i + 1 < end ? i + 1 : begin];
            area += cross(a, c);
        }
        if (std::abs(area) > best) {
            best = std::abs(area);
            bestBegin = begin;
            bestEnd = end;
        }
        begin = end;
    }
    ringInGround(rings, bestBegin, bestEnd, frame, out);
    if (twiceSignedArea(out) < 0.0) std::reverse(out.begin(), out.end());
}

bool shapeGeneratedBuilding(const Feature& f, FootprintRings rings, const GroundFrame& frame, Vec2 boxHalfExtents,
                            const UntaggedHeights& heights, GeneratedBuilding& out) {
    outerRing(rings, frame, out.outline);
    out.courtyards.clear();
    if (out.outline.size() < 3) return false;
    out.roofShape = std::string(f.tag("roof:shape").value_or("flat"));
    if (out.roofShape.empty()) out.roofShape = "flat";
    const double storey = heights.storey;
    double roof = 0.0;
    if (const auto h = f.metresTag("roof:height"); h && credibleHeight(*h)) {
        roof = *h;
    } else if (const auto levels = numberTag(f, "roof:levels"); credibleHeight(levels * storey)) {
        roof = levels * storey;
    } else if (out.roofShape != "flat") {
        // Untagged pitched roofs rise about 30° over half the shorter side, at most two storeys.
        roof = std::min(0.58 * std::min(boxHalfExtents.x, boxHalfExtents.y), 2.0 * storey);
    }
    double wall = heights.wall;
    if (const auto h = f.metresTag("height"); h && credibleHeight(*h)) {
        wall = *h - roof;  // OSM's height is to the top of the roof
    } else if (const auto levels = numberTag(f, "building:levels"); credibleHeight(levels * storey)) {
        wall = levels * storey;
    }
    wall = std::max(wall, std::min(1.0, heights.wall));
    out.wallHeight = static_cast<float>(wall);
    out.roofHeight = static_cast<float>(roof);
    if (!checkGeneratedBuilding(out)) {
        // A mapped ring may touch itself (a pinched courtyard, a node used twice: Monaco's
        // w62664330); the exporters draw simple rings only, so such a building is drawn on
        // its convex hull. Its cells, and so placement and collision, stay the footprint's.
        std::vector<Vec2> hull;
        convexHull(out.outline, hull);
        out.outline = std::move(hull);
        // Its courtyards may cross the hull's ring: drawn as a solid block.
        return static_cast<bool>(checkGeneratedBuilding(out));
    }
    addCourtyards(rings, frame, out);
    return true;
}

}  // namespace terrabit::core::placement::detail
