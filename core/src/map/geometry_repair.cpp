#include "terrabit/core/map/geometry_repair.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "geometry_repair_p.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

namespace {

double orient(Vec2 a, Vec2 b, Vec2 c) { return cross(b - a, c - a); }

}  // namespace

bool segmentsCross(Vec2 a, Vec2 b, Vec2 c, Vec2 d) {
    const double d1 = orient(a, b, c);
    const double d2 = orient(a, b, d);
    const double d3 = orient(c, d, a);
    const double d4 = orient(c, d, b);
    return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

std::string GeometryRepair::describe() const {
    std::string out;
    auto add = [&out](const std::string& s) {
        if (!out.empty()) out += "; ";
        out += s;
    };
    if (!usable) add("no drawable geometry (empty or fully degenerate); skipped");
    if (unclosedRings > 0) {
        add(std::to_string(unclosedRings) + (unclosedRings == 1 ? " ring was" : " rings were") +
            " not closed (closed them)");
    }
    if (droppedParts > 0) {
        add(std::to_string(droppedParts) + " degenerate " + (droppedParts == 1 ? "part" : "parts") +
            " (too few distinct points or a NaN coordinate) dropped");
    }
    if (selfIntersects) {
        const LonLat ll = mercatorToLonLat(crossing);
        char where[64];
        std::snprintf(where, sizeof where, "%.6f,%.6f", ll.lon, ll.lat);
        add(std::string("ring edges cross near lon,lat ") + where +
            " (self-intersection; drawn with the even-odd rule)");
    }
    return out;
}

GeometryRepair repairGeometry(Feature& f, GeometryRepairScratch& scratch) {
    GeometryRepair repair;
    auto& pts = scratch.points;
    auto& ends = scratch.partEnds;
    pts.clear();
    ends.clear();

    const bool area = f.kind == FeatureKind::Area;
    const std::size_t minPoints = area ? 3 : (f.kind == FeatureKind::Line ? 2 : 1);
    std::uint32_t begin = 0;
    for (std::size_t part = 0; part < f.partEnds.size(); ++part) {
        const std::uint32_t end = f.partEnds[part];
        if (end < begin || end > f.points.size()) {
            // A malformed part list: what follows cannot be trusted, so drop it.
            repair.droppedParts += static_cast<int>(f.partEnds.size() - part);
            break;
        }
        const std::size_t partStart = pts.size();
        bool finite = true;
        for (std::uint32_t i = begin; i < end; ++i) {
            const Vec2 p = f.points[i];
            if (!isFinite(p)) {
                finite = false;
                break;
            }
            // Repeated consecutive points add zero-length edges and nothing else.
            if (pts.size() > partStart && pts.back() == p && f.kind != FeatureKind::Point) continue;
            pts.push_back(p);
        }
        begin = end;
        std::size_t n = pts.size() - partStart;
        if (finite && area && n >= 2) {
            if (pts.back() == pts[partStart]) {
                pts.pop_back();
                --n;
            } else if (n >= 3) {
                ++repair.unclosedRings;
            }
        }
        if (!finite || n < minPoints) {
            pts.resize(partStart);
            ++repair.droppedParts;
            continue;
        }
        ends.push_back(static_cast<std::uint32_t>(pts.size()));
    }
    f.points.assign(pts.begin(), pts.end());
    f.partEnds.assign(ends.begin(), ends.end());
    f.updateBounds();
    repair.usable = !f.points.empty();
    if (!area || !repair.usable) return repair;

    // Crossing edges: sweep the segments sorted by west end, testing only those whose x ranges
    // overlap, so a building costs a few dozen tests and a long river bank O(n log n) on
    // real shapes.
    auto& segs = scratch.segments;
    segs.clear();
    std::uint32_t ringBegin = 0;
    for (std::uint32_t r = 0; r < f.partEnds.size(); ++r) {
        const std::uint32_t ringEnd = f.partEnds[r];
        const std::uint32_t n = ringEnd - ringBegin;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t a = ringBegin + i;
            const std::uint32_t b = ringBegin + (i + 1) % n;
            const Vec2 pa = f.points[a];
            const Vec2 pb = f.points[b];
            segs.push_back(
                {std::fmin(pa.x, pb.x), std::fmax(pa.x, pb.x), std::fmin(pa.y, pb.y), std::fmax(pa.y, pb.y), a, b, r});
        }
        ringBegin = ringEnd;
    }
    std::sort(segs.begin(), segs.end(),
              [](const auto& s, const auto& t) { return s.minX < t.minX || (s.minX == t.minX && s.a < t.a); });
    for (std::size_t i = 0; i < segs.size() && !repair.selfIntersects; ++i) {
        const auto& s = segs[i];
        for (std::size_t j = i + 1; j < segs.size() && segs[j].minX <= s.maxX; ++j) {
            const auto& t = segs[j];
            if (t.maxY < s.minY || t.minY > s.maxY) continue;
            // Neighbouring edges share a vertex; segmentsCross ignores touching ends anyway.
            const Vec2 a = f.points[s.a], b = f.points[s.b], c = f.points[t.a], d = f.points[t.b];
            if (segmentsCross(a, b, c, d)) {
                repair.selfIntersects = true;
                const double denom = cross(b - a, d - c);
                const double u = cross(c - a, d - c) / denom;
                repair.crossing = a + (b - a) * u;
                break;
            }
        }
    }
    return repair;
}

}  // namespace terrabit::core
