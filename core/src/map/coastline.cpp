#include "terrabit/core/map/coastline.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <utility>

namespace terrabit::core {

namespace {

/// How far inside the extent (metres) a chain may end before it is worth a warning: extracts cut
/// by a polygon leave the coastline's ends a little inside their bounding box.
constexpr double kFarInsideFraction = 0.05;

struct Chain {
    std::vector<Vec2> points;
    std::string firstId;  ///< the way the chain starts with
    std::string lastId;   ///< the way the chain ends with
};

using PointKey = std::pair<double, double>;
PointKey keyOf(Vec2 p) { return {p.x, p.y}; }

double signedArea(const std::vector<Vec2>& ring) {
    double a = 0.0;
    for (std::size_t i = 0, n = ring.size(); i < n; ++i) a += cross(ring[i], ring[(i + 1) % n]);
    return 0.5 * a;
}

/// A point on the box border, by its clockwise distance from the north-west corner (y up).
struct BorderPoint {
    Vec2 at;
    double param = 0.0;
    double distance = 0.0;  ///< from the point it was projected from, metres
};

class Border {
public:
    explicit Border(const Box2& box) : mBox(box), mW(box.width()), mH(box.height()) {}

    double perimeter() const { return 2.0 * (mW + mH); }

    BorderPoint project(Vec2 p) const {
        const double dTop = mBox.max.y - p.y;
        const double dRight = mBox.max.x - p.x;
        const double dBottom = p.y - mBox.min.y;
        const double dLeft = p.x - mBox.min.x;
        const double d = std::fmin(std::fmin(dTop, dRight), std::fmin(dBottom, dLeft));
        if (d == dTop) return {{p.x, mBox.max.y}, p.x - mBox.min.x, d};
        if (d == dRight) return {{mBox.max.x, p.y}, mW + (mBox.max.y - p.y), d};
        if (d == dBottom) return {{p.x, mBox.min.y}, mW + mH + (mBox.max.x - p.x), d};
        return {{mBox.min.x, p.y}, 2.0 * mW + mH + (p.y - mBox.min.y), d};
    }

    /// The corners met going clockwise from param a to param b (exclusive), appended in order.
    void cornersBetween(double a, double b, std::vector<Vec2>& out) const {
        const double corners[4] = {0.0, mW, mW + mH, 2.0 * mW + mH};
        const Vec2 at[4] = {{mBox.min.x, mBox.max.y}, mBox.max, {mBox.max.x, mBox.min.y}, mBox.min};
        const double span = clockwise(a, b);
        // Corners sorted by their clockwise distance from a.
        std::pair<double, int> order[4];
        for (int i = 0; i < 4; ++i) order[i] = {clockwise(a, corners[i]), i};
        std::sort(order, order + 4);
        for (const auto& [d, i] : order) {
            if (d > 0.0 && d < span) out.push_back(at[i]);
        }
    }

    /// Clockwise distance along the border from param a to param b, in [0, perimeter).
    double clockwise(double a, double b) const {
        double d = std::fmod(b - a, perimeter());
        if (d < 0.0) d += perimeter();
        return d;
    }

private:
    Box2 mBox;
    double mW, mH;
};

std::string metres(double m) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f m", m);
    return buf;
}

}  // namespace

SeaArea buildSea(std::span<const Feature> features, const Box2& extent, std::string_view source) {
    SeaArea out;
    out.sea.id = "sea";
    out.sea.sourceLayer = "coastline";
    out.sea.kind = FeatureKind::Area;
    out.sea.tags = {{"natural", "sea"}};

    std::vector<Chain> pieces;
    std::vector<std::vector<Vec2>> rings;
    bool land = false;  // some closed ring is land, so the sea may surround it
    Box2 box = extent;
    for (const Feature& f : features) {
        const auto natural = f.tag("natural");
        if (!natural || *natural != "coastline" || f.points.empty()) continue;
        ++out.coastlineWays;
        for (std::size_t i = 0; i < f.partCount(); ++i) {
            const auto part = f.part(i);
            for (const Vec2& p : part) box.extend(p);
            if (f.kind == FeatureKind::Area) {
                // GDAL files closed coastline ways as areas; they are islands (land inside).
                rings.emplace_back(part.begin(), part.end());
                land = true;
                ++out.closedRings;
            } else if (f.kind == FeatureKind::Line && part.size() >= 2) {
                pieces.push_back({std::vector<Vec2>(part.begin(), part.end()), f.id, f.id});
            }
        }
    }
    if (out.coastlineWays == 0 || box.empty()) return out;

    // Join pieces end to start. Ways of one coastline share their end nodes, so the end points
    // are bit-identical after the same projection; an exact key is right.
    std::multimap<PointKey, std::size_t> byStart;
    std::multimap<PointKey, std::size_t> byEnd;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        byStart.emplace(keyOf(pieces[i].points.front()), i);
        byEnd.emplace(keyOf(pieces[i].points.back()), i);
    }
    std::vector<bool> used(pieces.size(), false);
    auto takeUnused = [&used](std::multimap<PointKey, std::size_t>& index, Vec2 at) -> std::ptrdiff_t {
        auto [lo, hi] = index.equal_range(keyOf(at));
        std::ptrdiff_t best = -1;
        for (auto it = lo; it != hi; ++it) {
            if (!used[it->second] && (best < 0 || static_cast<std::ptrdiff_t>(it->second) < best)) {
                best = static_cast<std::ptrdiff_t>(it->second);
            }
        }
        if (best >= 0) used[static_cast<std::size_t>(best)] = true;
        return best;
    };
    std::vector<Chain> open;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (used[i]) continue;
        used[i] = true;
        Chain chain = pieces[i];
        for (;;) {
            if (chain.points.back() == chain.points.front()) break;
            const std::ptrdiff_t next = takeUnused(byStart, chain.points.back());
            if (next < 0) break;
            const Chain& n = pieces[static_cast<std::size_t>(next)];
            chain.points.insert(chain.points.end(), n.points.begin() + 1, n.points.end());
            chain.lastId = n.lastId;
        }
        for (;;) {
            if (chain.points.back() == chain.points.front()) break;
            const std::ptrdiff_t prev = takeUnused(byEnd, chain.points.front());
            if (prev < 0) break;
            const Chain& p = pieces[static_cast<std::size_t>(prev)];
            chain.points.insert(chain.points.begin(), p.points.begin(), p.points.end() - 1);
            chain.firstId = p.firstId;
        }
        if (chain.points.size() >= 4 && chain.points.back() == chain.points.front()) {
            chain.points.pop_back();
            // Land on the left: a counter-clockwise ring (y up) is an island, a clockwise one
            // encloses sea. Under the even-odd rule both are simply rings.
            land = land || signedArea(chain.points) > 0.0;
            rings.push_back(std::move(chain.points));
            ++out.closedRings;
        } else if (chain.points.back() != chain.points.front()) {
            open.push_back(std::move(chain));
        }
    }
    out.openChains = static_cast<int>(open.size());

    const std::string where = std::string(source) + ": ";
    const Border border(box);
    const double farInside = kFarInsideFraction * std::fmin(box.width(), box.height());
    std::vector<BorderPoint> starts(open.size()), ends(open.size());
    for (std::size_t i = 0; i < open.size(); ++i) {
        starts[i] = border.project(open[i].points.front());
        ends[i] = border.project(open[i].points.back());
        if (starts[i].distance > farInside) {
            out.warnings.push_back(where + "coastline " + open[i].firstId + " starts " + metres(starts[i].distance) +
                                   " inside the data extent; the sea is closed with a straight line to the border");
        }
        if (ends[i].distance > farInside) {
            out.warnings.push_back(where + "coastline " + open[i].lastId + " ends " + metres(ends[i].distance) +
                                   " inside the data extent; the sea is closed with a straight line to the border");
        }
    }

    // Walk: chain, then clockwise along the border to the nearest chain start, until the ring
    // returns to the chain it began with.
    std::vector<bool> walked(open.size(), false);
    for (std::size_t first = 0; first < open.size(); ++first) {
        if (walked[first]) continue;
        std::vector<Vec2> ring;
        std::size_t c = first;
        for (;;) {
            walked[c] = true;
            if (starts[c].distance > 0.0) ring.push_back(starts[c].at);
            ring.insert(ring.end(), open[c].points.begin(), open[c].points.end());
            if (ends[c].distance > 0.0) ring.push_back(ends[c].at);
            std::size_t next = first;
            double best = border.clockwise(ends[c].param, starts[first].param);
            for (std::size_t j = 0; j < open.size(); ++j) {
                if (walked[j]) continue;
                const double d = border.clockwise(ends[c].param, starts[j].param);
                if (d < best) {
                    best = d;
                    next = j;
                }
            }
            border.cornersBetween(ends[c].param, starts[next].param, ring);
            if (next == first) break;
            c = next;
        }
        rings.push_back(std::move(ring));
    }

    if (open.empty() && !rings.empty()) {
        // Only closed rings: if any is land, the extract is an island and the sea is the extent
        // around it.
        if (land) rings.push_back({{box.min.x, box.max.y}, box.max, {box.max.x, box.min.y}, box.min});
    }

    for (const auto& r : rings) {
        if (r.size() < 3) continue;
        out.sea.points.insert(out.sea.points.end(), r.begin(), r.end());
        out.sea.partEnds.push_back(static_cast<std::uint32_t>(out.sea.points.size()));
    }
    out.sea.updateBounds();
    return out;
}

}  // namespace terrabit::core
