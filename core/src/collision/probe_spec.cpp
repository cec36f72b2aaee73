#include "terrabit/core/collision/probe_spec.h"

#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "terrabit/core/tile/ground_frame.h"

namespace terrabit::core {

namespace {

std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == ',')) ++i;
        const std::size_t start = i;
        while (i < line.size() && !(line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == ',')) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

Result<double> number(std::string_view text) {
    double v = 0.0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || !std::isfinite(v))
        return Error{"'" + std::string(text) + "' is not a number"};
    return v;
}

/// The largest size or radius a probe may have, metres: more than the Earth's circumference
/// (40,075 km), so no real probe is refused, and small enough that the size in cells stays far
/// inside what a double and the query's 64-bit cell arithmetic hold at every zoom (at zoom 30,
/// about 2.8e11 cells).
constexpr double kMaxProbeMetres = 4.1e7;

Status checkSize(const char* what, double metres) {
    if (metres < 0) return Error{std::string(what) + " must not be negative"};
    if (metres > kMaxProbeMetres) {
        std::ostringstream text;
        text << what << " of " << metres << " m is larger than the Earth (the limit is 41,000,000 m)";
        return Error{text.str()};
    }
    return {};
}

Status checkLonLat(LonLat ll) {
    // %g, not std::to_string: 1e308 would print 309 digits.
    const auto number = [](double v) {
        std::ostringstream text;
        text << v;
        return text.str();
    };
    if (ll.lon < -180.0 || ll.lon > 180.0) return Error{"longitude " + number(ll.lon) + " is outside -180..180"};
    if (ll.lat < -kMaxLatitude || ll.lat > kMaxLatitude) {
        return Error{"latitude " + number(ll.lat) + " is outside -85.05..85.05"};
    }
    return {};
}

}  // namespace

Result<ProbeSpec> parseProbe(std::string_view line) {
    const std::vector<std::string_view> w = words(line);
    if (w.empty() || w[0].front() == '#') return Error{""};
    struct Form {
        std::string_view name;
        ProbeSpec::Shape shape;
        int points;  // lon/lat pairs
        int extra;   // numbers after them
    };
    static constexpr Form kForms[] = {
        {"point", ProbeSpec::Shape::Point, 1, 0},        {"rect", ProbeSpec::Shape::Rect, 1, 2},
        {"orect", ProbeSpec::Shape::OrientedRect, 1, 3}, {"disk", ProbeSpec::Shape::Disk, 1, 1},
        {"segment", ProbeSpec::Shape::Segment, 2, 0},    {"tri", ProbeSpec::Shape::Triangle, 3, 0},
    };
    const Form* form = nullptr;
    for (const Form& f : kForms) {
        if (f.name == w[0]) form = &f;
    }
    if (!form) {
        return Error{"unknown probe '" + std::string(w[0]) + "' (expected point, rect, orect, disk, segment or tri)"};
    }
    const std::size_t want = static_cast<std::size_t>(form->points * 2 + form->extra);
    if (w.size() - 1 != want) {
        return Error{std::string(form->name) + " needs " + std::to_string(want) + " numbers, got " +
                     std::to_string(w.size() - 1)};
    }
    std::vector<double> v;
    for (std::size_t i = 1; i < w.size(); ++i) {
        Result<double> n = number(w[i]);
        if (!n) return n.error();
        v.push_back(*n);
    }
    ProbeSpec p;
    p.shape = form->shape;
    for (int i = 0; i < form->points; ++i) {
        p.at[i] = {v[2 * i], v[2 * i + 1]};
        if (Status s = checkLonLat(p.at[i]); !s) return s.error();
    }
    const double* extra = v.data() + form->points * 2;
    switch (p.shape) {
        case ProbeSpec::Shape::Rect:
        case ProbeSpec::Shape::OrientedRect:
            p.width = extra[0];
            p.height = extra[1];
            if (Status st = checkSize("a rectangle's width", p.width); !st) return st.error();
            if (Status st = checkSize("a rectangle's height", p.height); !st) return st.error();
            if (p.shape == ProbeSpec::Shape::OrientedRect) p.angleDeg = extra[2];
            break;
        case ProbeSpec::Shape::Disk:
            p.radius = extra[0];
            if (Status st = checkSize("a disk's radius", p.radius); !st) return st.error();
            break;
        default:
            break;
    }
    return p;
}

ProbeResult runProbe(CollisionQuery& query, const ProbeSpec& probe, std::vector<CellHit>* hits) {
    const GroundFrame frame{probe.at[0], query.grid().zoom()};
    const Vec2 c0 = frame.lonLatToCell(probe.at[0]);
    const double cellsPerMetre = 1.0 / frame.metresPerCell();  // at the probe's own latitude
    switch (probe.shape) {
        case ProbeSpec::Shape::Point: {
            ProbeResult r = query.point(c0);
            if (hits && r.hit()) {
                hits->push_back({static_cast<std::int64_t>(std::floor(c0.x)),
                                 static_cast<std::int64_t>(std::floor(c0.y)), r.layers});
            }
            return r;
        }
        case ProbeSpec::Shape::Rect: {
            const Vec2 half{probe.width * 0.5 * cellsPerMetre, probe.height * 0.5 * cellsPerMetre};
            return query.rectangle(Box2{c0 - half, c0 + half}, kAllLayers, hits);
        }
        case ProbeSpec::Shape::OrientedRect: {
            const Vec2 half{probe.width * 0.5 * cellsPerMetre, probe.height * 0.5 * cellsPerMetre};
            return query.orientedRectangle(c0, half, probe.angleDeg * std::numbers::pi / 180.0, kAllLayers, hits);
        }
        case ProbeSpec::Shape::Disk:
            return query.disk(c0, probe.radius * cellsPerMetre, kAllLayers, hits);
        case ProbeSpec::Shape::Segment:
            return query.segment(c0, frame.lonLatToCell(probe.at[1]), kAllLayers, hits);
        case ProbeSpec::Shape::Triangle:
            return query.triangle(c0, frame.lonLatToCell(probe.at[1]), frame.lonLatToCell(probe.at[2]), kAllLayers,
                                  hits);
    }
    return {};
}

}  // namespace terrabit::core
