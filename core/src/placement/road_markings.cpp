#include "terrabit/core/placement/road_markings.h"

#include "ear_cutter_p.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <numbers>
#include <optional>
#include <span>
#include <unordered_map>

#include "terrabit/core/terrain/ground_grading.h"

namespace terrabit::core::placement {

namespace {

/// A vertex's exact coordinates as a key: ways meeting at a node share its coordinates bit for bit.
struct VertexKey {
    std::uint64_t x = 0, y = 0;
    explicit VertexKey(Vec2 v) : x(std::bit_cast<std::uint64_t>(v.x)), y(std::bit_cast<std::uint64_t>(v.y)) {}
    friend bool operator==(const VertexKey&, const VertexKey&) = default;
};
struct VertexHash {
    std::size_t operator()(const VertexKey& k) const {
        return std::hash<std::uint64_t>{}(k.x * 0x9e3779b97f4a7c15ULL ^ k.y);
    }
};
/// How many way vertices lie on a node, and the widest of those ways' half widths (cells).
struct Meeting {
    int ways = 0;
    double widestHalf = 0.0;
};

/// Cuts a convex polygon to the box [x0, x1] × [y0, y1] (Sutherland–Hodgman).
void clipToBox(std::vector<Vec2>& poly, std::vector<Vec2>& scratch, double x0, double y0, double x1, double y1) {
    const auto clipEdge = [&](auto inside, auto cut) {
        scratch.clear();
        for (std::size_t i = 0; i < poly.size(); ++i) {
            const Vec2 a = poly[i], b = poly[(i + 1) % poly.size()];
            const bool ina = inside(a), inb = inside(b);
            if (ina) scratch.push_back(a);
            if (ina != inb) scratch.push_back(cut(a, b));
        }
        poly.swap(scratch);
    };
    const auto atX = [](Vec2 a, Vec2 b, double x) { return Vec2{x, a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x)}; };
    const auto atY = [](Vec2 a, Vec2 b, double y) { return Vec2{a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y}; };
    clipEdge([&](Vec2 p) { return p.x >= x0; }, [&](Vec2 a, Vec2 b) { return atX(a, b, x0); });
    if (poly.empty()) return;
    clipEdge([&](Vec2 p) { return p.x <= x1; }, [&](Vec2 a, Vec2 b) { return atX(a, b, x1); });
    if (poly.empty()) return;
    clipEdge([&](Vec2 p) { return p.y >= y0; }, [&](Vec2 a, Vec2 b) { return atY(a, b, y0); });
    if (poly.empty()) return;
    clipEdge([&](Vec2 p) { return p.y <= y1; }, [&](Vec2 a, Vec2 b) { return atY(a, b, y1); });
}

/// Cuts a convex polygon to the tile's square [0, kTileCells]².
void clipToTile(std::vector<Vec2>& poly, std::vector<Vec2>& scratch) {
    clipToBox(poly, scratch, 0.0, 0.0, kTileCells, kTileCells);
}

class Painter {
public:
    Painter(Vec2 offset, const BitTile& cells) : mOffset(offset), mCells(cells) {}

    /// A straight stroke from p to q (global cells), `halfWidth` cells to each side, into `out`:
    /// clipped to the tile and kept when its middle lies on a surface cell.
    void stroke(Vec2 p, Vec2 q, Vec2 normal, double halfWidth, std::vector<Vec2>& out) {
        const Vec2 side = normal * halfWidth;
        mPoly = {p - side - mOffset, q - side - mOffset, q + side - mOffset, p + side - mOffset};
        keep(out);
    }

    /// A convex quadrilateral (global cells, in turn), into `out`, as stroke() keeps its pieces.
    void quad(Vec2 p0, Vec2 p1, Vec2 p2, Vec2 p3, std::vector<Vec2>& out) {
        mPoly = {p0 - mOffset, p1 - mOffset, p2 - mOffset, p3 - mOffset};
        keep(out);
    }

    /// A convex polygon (global cells), into `out`, as stroke() keeps its pieces, unless
    /// `accept` refuses its middle (global cells).
    template <class Accept>
    void convex(std::span<const Vec2> poly, Accept&& accept, std::vector<Vec2>& out) {
        Vec2 mid{};
        for (const Vec2& v : poly) mid = mid + v;
        if (poly.size() < 3 || !accept(mid * (1.0 / static_cast<double>(poly.size())))) return;
        mPoly.clear();
        for (const Vec2& v : poly) mPoly.push_back(v - mOffset);
        keep(out);
    }

    /// A regular octagon inside the circle of `radius` about c (global cells), into `out`, as
    /// stroke() keeps its pieces: what fills a way's round join at a bend.
    void disk(Vec2 c, double radius, std::vector<Vec2>& out) {
        mPoly.clear();
        for (int k = 0; k < 8; ++k) {
            const double a = k * (std::numbers::pi / 4.0);
            mPoly.push_back(c + Vec2{std::cos(a), std::sin(a)} * radius - mOffset);
        }
        keep(out);
    }

private:
    /// Clips mPoly to the tile and, when its middle lies on a surface cell, fans it into `out`.
    void keep(std::vector<Vec2>& out) {
        clipToTile(mPoly, mScratch);
        if (mPoly.size() < 3) return;
        Vec2 mid{};
        for (const Vec2& v : mPoly) mid = mid + v;
        mid = mid * (1.0 / static_cast<double>(mPoly.size()));
        const int x = std::clamp(static_cast<int>(std::floor(mid.x)), 0, kTileCells - 1);
        const int y = std::clamp(static_cast<int>(std::floor(mid.y)), 0, kTileCells - 1);
        if (!mCells.test(x, y)) return;
        for (std::size_t i = 1; i + 1 < mPoly.size(); ++i) {
            Vec2 a = mPoly[0], b = mPoly[i], c = mPoly[i + 1];
            const double turn = cross(b - a, c - a);
            if (turn == 0.0) continue;
            if (turn > 0.0) std::swap(b, c);  // counter-clockwise seen from above: y runs south
            out.insert(out.end(), {a, b, c});
        }
    }

    Vec2 mOffset;
    const BitTile& mCells;
    std::vector<Vec2> mPoly, mScratch;
};

/// What covers a whole way: paving for footways and the like, gravel for tracks.
enum class Cover : std::uint8_t { Asphalt, Paving, Gravel };
Cover coverOf(const Feature& f) {
    const auto highway = f.tag("highway");
    if (!highway) return Cover::Asphalt;
    for (const std::string_view paved : {"footway", "path", "steps", "pedestrian", "cycleway", "bridleway"}) {
        if (*highway == paved) return Cover::Paving;
    }
    return *highway == "track" ? Cover::Gravel : Cover::Asphalt;
}

/// Whether a path is a marked crossing: `crossing` set to anything but unmarked or no (zebra,
/// marked, uncontrolled, traffic_signals…), or `crossing_ref` zebra.
bool markedCrossing(const Feature& f) {
    if (const auto c = f.tag("crossing")) return *c != "unmarked" && *c != "no";
    return f.tag("crossing_ref") == std::optional<std::string_view>("zebra");
}

/// The lanes a way's `lanes` tag gives (a whole number 1..8), else two: one each way.
int lanesOf(const Feature& f) {
    if (const auto text = f.tag("lanes")) {
        int n = 0;
        const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
        if (ec == std::errc{} && end == text->data() + text->size() && n >= 1) return std::min(n, 8);
    }
    return 2;
}

/// Which sides of a way (in its direction) have a sidewalk: `sidewalk` both, left, right or
/// yes (both), or `sidewalk:both|left|right` yes. A separately mapped sidewalk ("separate") is
/// its own way, so none here.
struct Sides {
    bool left = false, right = false;
};
Sides sidewalksOf(const Feature& f) {
    Sides s;
    if (const auto v = f.tag("sidewalk")) {
        s.left = *v == "both" || *v == "left" || *v == "yes";
        s.right = *v == "both" || *v == "right" || *v == "yes";
    }
    const auto yes = [&](std::string_view key) { return f.tag(key) == std::optional<std::string_view>("yes"); };
    s.left = s.left || yes("sidewalk:both") || yes("sidewalk:left");
    s.right = s.right || yes("sidewalk:both") || yes("sidewalk:right");
    return s;
}

/// The carriageways near a tile (asphalt ways at least the markings' width): their segments,
/// bucketed over the tile and a margin, since a way's whole geometry is listed and most of it
/// lies far off. What paths, paved areas and zebra bars test against.
class CarriagewayIndex {
public:
    explicit CarriagewayIndex(Vec2 offset) : mOffset(offset), mBuckets(static_cast<std::size_t>(kBuckets * kBuckets)) {}

    /// A segment of a carriageway of half width `half` (global cells), with sidewalk strips
    /// `leftWalk` and `rightWalk` cells wide along its sides (0: none).
    void add(Vec2 a, Vec2 b, double half, double leftWalk = 0.0, double rightWalk = 0.0) {
        const auto k = static_cast<std::uint32_t>(mSegments.size());
        mSegments.push_back({a, b, half, leftWalk, rightWalk});
        const Vec2 lo = a - mOffset, hi = b - mOffset;
        const int x0 = std::max(0, bucketOf(std::min(lo.x, hi.x) - half));
        const int x1 = std::min(kBuckets - 1, bucketOf(std::max(lo.x, hi.x) + half));
        const int y0 = std::max(0, bucketOf(std::min(lo.y, hi.y) - half));
        const int y1 = std::min(kBuckets - 1, bucketOf(std::max(lo.y, hi.y) + half));
        for (int y = y0; y <= y1; ++y) {
            for (int x = x0; x <= x1; ++x) mBuckets[static_cast<std::size_t>(y * kBuckets + x)].push_back(k);
        }
    }

    /// Whether p (global cells) lies on a carriageway; false beyond what the tile draws.
    bool covers(Vec2 p) const {
        const std::vector<std::uint32_t>* near = bucket(p);
        return near && std::any_of(near->begin(), near->end(), [&](std::uint32_t k) {
                   const Segment& c = mSegments[k];
                   return distance2(p, c.a, c.b) < c.half * c.half;
               });
    }

    /// Whether p (global cells) lies on a carriageway between its sidewalk strips: where the
    /// vehicles run, and a zebra's bars stand.
    bool coversRoadway(Vec2 p) const {
        const std::vector<std::uint32_t>* near = bucket(p);
        return near && std::any_of(near->begin(), near->end(), [&](std::uint32_t k) {
                   const Segment& c = mSegments[k];
                   if (!(distance2(p, c.a, c.b) < c.half * c.half)) return false;
                   const Vec2 ab = c.b - c.a;
                   const double len = std::sqrt(dot(ab, ab));
                   if (!(len > 0.0)) return true;
                   const double across = cross(ab, p - c.a) / len;  // + to the right (+n), as the lanes count
                   return across > -c.half + c.leftWalk && across < c.half - c.rightWalk;
               });
    }

    /// The carriageway a point on its centreline (global cells, within `tolerance`) lies on: its
    /// direction there (the segments through it turned alike and summed, the bisector at a bend;
    /// zero when none) and its widest half width.
    std::pair<Vec2, double> through(Vec2 p, double tolerance) const {
        Vec2 along{};
        double half = 0.0;
        const std::vector<std::uint32_t>* near = bucket(p);
        if (!near) return {along, half};
        for (const std::uint32_t k : *near) {
            const Segment& c = mSegments[k];
            const double len = std::sqrt(dot(c.b - c.a, c.b - c.a));
            if (!(len > 0.0) || distance2(p, c.a, c.b) > tolerance * tolerance) continue;
            Vec2 u = (c.b - c.a) * (1.0 / len);
            if (dot(u, along) < 0.0) u = Vec2{} - u;
            along = along + u;
            half = std::max(half, c.half);
        }
        return {along, half};
    }

    /// The squared distance from q to the segment ab.
    static double distance2(Vec2 q, Vec2 a, Vec2 b) {
        const Vec2 ab = b - a;
        const double len2 = dot(ab, ab);
        const double t = len2 > 0.0 ? std::clamp(dot(q - a, ab) / len2, 0.0, 1.0) : 0.0;
        const Vec2 e = q - (a + ab * t);
        return dot(e, e);
    }

private:
    static constexpr int kBucketCells = 16, kMargin = 32, kBuckets = (kTileCells + 2 * kMargin) / kBucketCells;
    static int bucketOf(double local) { return static_cast<int>(std::floor((local + kMargin) / kBucketCells)); }
    const std::vector<std::uint32_t>* bucket(Vec2 p) const {
        const int x = bucketOf(p.x - mOffset.x), y = bucketOf(p.y - mOffset.y);
        if (x < 0 || y < 0 || x >= kBuckets || y >= kBuckets) return nullptr;
        return &mBuckets[static_cast<std::size_t>(y * kBuckets + x)];
    }

    struct Segment {
        Vec2 a, b;
        double half;
        double leftWalk, rightWalk;
    };
    Vec2 mOffset;
    std::vector<Segment> mSegments;
    std::vector<std::vector<std::uint32_t>> mBuckets;
};

/// An area's rings (global cells, as the index keeps them) less `offset`, cut into triangles
/// appended to `out`, under the even-odd rule as the layer draws areas: a ring inside an even
/// number of others is a shell, with the rings directly inside it as its holes. A shell the ear
/// cutter cannot cut is left out.
void areaTriangles(std::span<const Vec2> cells, std::span<const std::uint32_t> partEnds, Vec2 offset,
                   detail::EarCutter& ears, std::vector<Vec2>& out) {
    std::vector<std::vector<Vec2>> rings;
    std::uint32_t begin = 0;
    for (const std::uint32_t end : partEnds) {
        std::vector<Vec2> ring;
        for (std::uint32_t i = begin; i < end; ++i) {
            if (ring.empty() || !(cells[i] - offset == ring.back())) ring.push_back(cells[i] - offset);
        }
        while (ring.size() > 1 && ring.front() == ring.back()) ring.pop_back();
        if (ring.size() >= 3) rings.push_back(std::move(ring));
        begin = end;
    }
    const auto inside = [](Vec2 p, const std::vector<Vec2>& r) {
        bool in = false;
        for (std::size_t i = 0, j = r.size() - 1; i < r.size(); j = i++) {
            if ((r[i].y > p.y) != (r[j].y > p.y) &&
                p.x < (r[j].x - r[i].x) * (p.y - r[i].y) / (r[j].y - r[i].y) + r[i].x) {
                in = !in;
            }
        }
        return in;
    };
    std::vector<int> depth(rings.size(), 0);
    for (std::size_t i = 0; i < rings.size(); ++i) {
        for (std::size_t j = 0; j < rings.size(); ++j) depth[i] += i != j && inside(rings[i][0], rings[j]);
    }
    std::vector<std::span<const Vec2>> views;
    for (std::size_t i = 0; i < rings.size(); ++i) {
        if (depth[i] % 2 != 0) continue;
        views.assign(1, rings[i]);
        for (std::size_t j = 0; j < rings.size(); ++j) {
            if (depth[j] == depth[i] + 1 && inside(rings[j][0], rings[i])) views.push_back(rings[j]);
        }
        const std::size_t before = out.size();
        if (!ears.cut(views, out)) out.resize(before);
    }
}

}  // namespace

void roadMarkings(const TileIndex& index, const TileId& tile, const std::vector<char>& inLayer, double metresPerCell,
                  const BitTile& surfaceCells, bool leaveOutBridges, const RoadMarkingStyle& style, RoadPaint& out) {
    const std::optional<std::size_t> slot = index.slot(tile);
    if (!slot || !(metresPerCell > 0.0) || surfaceCells.none()) return;
    const Vec2 offset{double(tile.x) * kTileCells, double(tile.y) * kTileCells};
    const auto lines = [&](auto&& each) {
        for (const TileIndex::EntryInfo& info : index.entryInfos(*slot)) {
            if (info.kind != FeatureKind::Line || info.layer >= inLayer.size() || !inLayer[info.layer]) continue;
            if (leaveOutBridges && terrain::isBridgeWay(*index.map().entries[info.entry].feature)) continue;
            each(info);
        }
    };
    // Junctions: nodes two ways (or one way twice) pass through. A node trims the lines within
    // the widest way's half width and a metre of it; none is wider than this margin.
    constexpr double kNodeMargin = 64.0;
    std::unordered_map<VertexKey, Meeting, VertexHash> meetings;
    lines([&](const TileIndex::EntryInfo& info) {
        const std::span<const Vec2> cells = index.cells(info);
        std::uint32_t begin = 0;
        for (const std::uint32_t end : index.partEnds(info)) {
            for (std::uint32_t i = begin; i < end; ++i) {
                if (i > begin && cells[i] == cells[i - 1]) continue;
                // Only nodes near the tile trim what it draws (a long way's far vertices do not).
                const Vec2 local = cells[i] - offset;
                if (local.x < -kNodeMargin || local.y < -kNodeMargin || local.x > kTileCells + kNodeMargin ||
                    local.y > kTileCells + kNodeMargin) {
                    continue;
                }
                Meeting& m = meetings[VertexKey(cells[i])];
                ++m.ways;
                m.widestHalf = std::max(m.widestHalf, info.sizeCells);
            }
            begin = end;
        }
    });
    const double perMetre = 1.0 / metresPerCell;
    const double minHalf = 0.5 * style.minWidthMetres * perMetre;
    const double line = 0.5 * style.lineWidthMetres * perMetre;
    const double dash = style.dashMetres * perMetre, period = (style.dashMetres + style.gapMetres) * perMetre;
    const double clear = style.junctionClearMetres * perMetre;
    constexpr double kPieceCells = 8.0;  // long strokes are painted in pieces, each kept or not on its own
    const double zebraPitch = (style.zebraBarMetres + style.zebraGapMetres) * perMetre;
    const double zebraHalfBar = 0.5 * style.zebraBarMetres * perMetre;
    const double zebraHalfLength = 0.5 * style.zebraLengthMetres * perMetre;
    // A sidewalk strip's width (cells) on a way of half width `half`.
    const auto sidewalkWidth = [&](double half) {
        return std::min(style.sidewalkMetres * perMetre, style.sidewalkShare * 2.0 * half);
    };
    // The path segments that painted zebra bars: the carriageways' lines stop short of them, up
    // to zebraReach from the path (the bars' half length on a path crossing at 17°, the
    // shallowest counted, and a lane line's width).
    std::vector<std::pair<Vec2, Vec2>> zebras;
    constexpr double kShallowestCrossing = 0.3;  // the sine of the angle
    constexpr double kOnWayCells = 0.01;         // a crossing node lies on its road's way, up to rounding
    const double zebraReach = zebraHalfLength / kShallowestCrossing + 2.0 * line;
    Painter paint(offset, surfaceCells);
    const auto clearance = [&](Vec2 v) {
        const auto it = meetings.find(VertexKey(v));
        return it != meetings.end() && it->second.ways >= 2 ? it->second.widestHalf + clear : 0.0;
    };
    // Paths, tracks and paved areas are paved or gravelled, but not across a carriageway (whose
    // asphalt and markings go on); zebra bars stand only on one.
    CarriagewayIndex carriageways(offset);
    lines([&](const TileIndex::EntryInfo& info) {
        const Feature& feature = *index.map().entries[info.entry].feature;
        if (info.sizeCells < minHalf || coverOf(feature) != Cover::Asphalt) return;
        const Sides sides = sidewalksOf(feature);
        const double walk = sidewalkWidth(info.sizeCells);
        const std::span<const Vec2> cells = index.cells(info);
        std::uint32_t begin = 0;
        for (const std::uint32_t end : index.partEnds(info)) {
            for (std::uint32_t i = begin; i + 1 < end; ++i) {
                carriageways.add(cells[i], cells[i + 1], info.sizeCells, sides.left ? walk : 0.0,
                                 sides.right ? walk : 0.0);
            }
            begin = end;
        }
    });
    const auto onCarriageway = [&](Vec2 p) { return carriageways.covers(p); };
    // Zebra bars across a carriageway along a path from a to b: one per pitch from a, each
    // along the road where it stands on a carriageway between its sidewalks (lowered there, see
    // below); the path is kept for the carriageways' lines to stop short of it.
    const auto barsAcross = [&](Vec2 a, Vec2 b) {
        const double length = std::sqrt(dot(b - a, b - a));
        if (!(length > 0.0) || !(zebraPitch > 0.0)) return;
        const Vec2 d = (b - a) * (1.0 / length);
        const Vec2 n{-d.y, d.x};
        bool barred = false;
        for (double t = 0.5 * zebraPitch; t < length; t += zebraPitch) {
            const Vec2 c = a + d * t;
            if (!carriageways.coversRoadway(c)) continue;  // not on a sidewalk, lowered or not
            if (!barred) zebras.push_back({a, b});
            barred = true;
            paint.stroke(c - n * zebraHalfLength, c + n * zebraHalfLength, d, zebraHalfBar, out.markings);
        }
    };
    const auto nearTile = [&](Vec2 a, Vec2 b, double reach) {
        const Vec2 lo = a - offset, hi = b - offset;
        return std::max(lo.x, hi.x) >= -reach && std::min(lo.x, hi.x) <= kTileCells + reach &&
               std::max(lo.y, hi.y) >= -reach && std::min(lo.y, hi.y) <= kTileCells + reach;
    };
    lines([&](const TileIndex::EntryInfo& info) {
        const Cover cover = coverOf(*index.map().entries[info.entry].feature);
        if (cover == Cover::Asphalt) return;
        std::vector<Vec2>& into = cover == Cover::Paving ? out.paving : out.gravel;
        const double half = info.sizeCells;
        const bool zebra = zebraPitch > 0.0 && markedCrossing(*index.map().entries[info.entry].feature);
        const std::span<const Vec2> cells = index.cells(info);
        std::uint32_t begin = 0;
        for (const std::uint32_t end : index.partEnds(info)) {
            for (std::uint32_t i = begin; i < end; ++i) {
                const Vec2 a = cells[i];
                if (nearTile(a, a, half) && !onCarriageway(a)) paint.disk(a, half, into);
                if (i + 1 == end) break;
                const Vec2 b = cells[i + 1];
                const double length = std::sqrt(dot(b - a, b - a));
                // A crossing's bars reach a road's lines (zebraReach) further than its paving.
                if (!(length > 0.0) || !nearTile(a, b, zebra ? std::max(half, zebraReach) : half)) continue;
                const Vec2 d = (b - a) * (1.0 / length);
                const Vec2 n{-d.y, d.x};
                if (zebra) barsAcross(a, b);  // a marked crossing, from its vertex
                if (!nearTile(a, b, half)) continue;
                for (double s0 = 0.0; s0 < length; s0 += kPieceCells) {
                    const double s1 = std::min(s0 + kPieceCells, length);
                    if (!onCarriageway(a + d * s0) && !onCarriageway(a + d * (0.5 * (s0 + s1))) &&
                        !onCarriageway(a + d * s1)) {
                        paint.stroke(a + d * s0, a + d * s1, n, half, into);
                        continue;
                    }
                    // Where it meets a carriageway: a cell at a time, up to its edge.
                    for (double t0 = s0; t0 < s1; t0 += 1.0) {
                        const double t1 = std::min(t0 + 1.0, s1);
                        if (!onCarriageway(a + d * (0.5 * (t0 + t1))))
                            paint.stroke(a + d * t0, a + d * t1, n, half, into);
                    }
                }
            }
            begin = end;
        }
    });
    // Paved areas of the layer (a pedestrian square, highway=pedestrian with area=yes; a track's
    // area gravelled): over their shape, cut into triangles and those into the pieces of a
    // kPieceCells grid, each kept unless a carriageway crosses it there (its asphalt goes on).
    detail::EarCutter ears;
    std::vector<Vec2> triangles, piece, cell, pieceScratch;
    for (const TileIndex::EntryInfo& info : index.entryInfos(*slot)) {
        if (info.kind != FeatureKind::Area || info.layer >= inLayer.size() || !inLayer[info.layer]) continue;
        const Cover cover = coverOf(*index.map().entries[info.entry].feature);
        if (cover == Cover::Asphalt) continue;
        triangles.clear();
        areaTriangles(index.cells(info), index.partEnds(info), offset, ears, triangles);
        std::vector<Vec2>& into = cover == Cover::Paving ? out.paving : out.gravel;
        const auto offCarriageway = [&](Vec2 middle) { return !onCarriageway(middle); };
        for (std::size_t t = 0; t + 2 < triangles.size(); t += 3) {
            const Vec2 a = triangles[t] + offset, b = triangles[t + 1] + offset, c = triangles[t + 2] + offset;
            const double x0 = std::max(std::floor(std::min({a.x, b.x, c.x}) / kPieceCells) * kPieceCells, offset.x);
            const double y0 = std::max(std::floor(std::min({a.y, b.y, c.y}) / kPieceCells) * kPieceCells, offset.y);
            const double x1 = std::min(std::max({a.x, b.x, c.x}), offset.x + kTileCells);
            const double y1 = std::min(std::max({a.y, b.y, c.y}), offset.y + kTileCells);
            for (double y = y0; y < y1; y += kPieceCells) {
                for (double x = x0; x < x1; x += kPieceCells) {
                    const Vec2 lo{x, y}, hi{x + kPieceCells, y + kPieceCells};
                    piece.assign({a, b, c});
                    clipToBox(piece, pieceScratch, lo.x, lo.y, hi.x, hi.y);
                    if (piece.size() < 3) continue;
                    if (!onCarriageway(lo) && !onCarriageway(hi) && !onCarriageway({lo.x, hi.y}) &&
                        !onCarriageway({hi.x, lo.y}) && !onCarriageway((lo + hi) * 0.5)) {
                        paint.convex(piece, offCarriageway, into);
                        continue;
                    }
                    // Where a carriageway crosses it: a cell at a time, up to its edge.
                    Box2 bounds;
                    for (const Vec2& v : piece) bounds.extend(v);
                    for (double v = std::floor(bounds.min.y); v < bounds.max.y; v += 1.0) {
                        for (double u = std::floor(bounds.min.x); u < bounds.max.x; u += 1.0) {
                            cell.assign(piece.begin(), piece.end());
                            clipToBox(cell, pieceScratch, u, v, u + 1.0, v + 1.0);
                            paint.convex(cell, offCarriageway, into);
                        }
                    }
                }
            }
        }
    }
    // Marked crossings mapped as a node of the road: bars across the carriageway the node lies
    // on, as a path crossing it there square would have, centred on the node — unless a marked
    // crossing path passes by it (a crossing mapped both ways), whose bars are painted already.
    const std::size_t pathZebras = zebras.size();
    for (const std::uint32_t i : zebraPitch > 0.0 ? index.crossings(*slot) : std::span<const std::uint32_t>{}) {
        if (!markedCrossing(*index.map().crossings[i])) continue;
        const Vec2 p = index.crossingCell(i);
        if (std::any_of(zebras.begin(), zebras.begin() + static_cast<std::ptrdiff_t>(pathZebras), [&](const auto& z) {
                return CarriagewayIndex::distance2(p, z.first, z.second) < zebraHalfLength * zebraHalfLength;
            })) {
            continue;
        }
        const auto [along, half] = carriageways.through(p, kOnWayCells);
        const double len = std::sqrt(dot(along, along));
        if (!(len > 0.0)) continue;  // on no carriageway: a path's own crossing node, or a road too narrow
        const Vec2 across{-along.y / len, along.x / len};
        const double reach = std::ceil((half + zebraPitch) / zebraPitch) * zebraPitch;
        barsAcross(p - across * reach, p + across * reach);
    }
    lines([&](const TileIndex::EntryInfo& info) {
        const double half = info.sizeCells;
        if (half < minHalf) return;
        const Feature& feature = *index.map().entries[info.entry].feature;
        if (coverOf(feature) != Cover::Asphalt) return;  // paved or gravelled above: no markings
        // Across the way (cells from its centreline, +n to its right): sidewalks on the sides
        // its tags say, the carriageway between them with an edge line along each side, and
        // dashed lines between its lanes, evenly across it.
        const Sides sides = sidewalksOf(feature);
        const double walk = sidewalkWidth(half);
        const double left = -half + (sides.left ? walk : 0.0), right = half - (sides.right ? walk : 0.0);
        const double inset = style.edgeInsetMetres * perMetre + line;
        const int lanes = lanesOf(feature);
        std::vector<std::pair<double, double>> zones, kerbs;
        const std::span<const Vec2> cells = index.cells(info);
        std::uint32_t begin = 0;
        for (const std::uint32_t end : index.partEnds(info)) {
            double along = 0.0;  // cells from the part's first vertex: the same in every tile
            // The last segment's right normal, when its strips reach its end (else none).
            bool hasPrevious = false;
            Vec2 previous{};
            for (std::uint32_t i = begin; i + 1 < end; ++i) {
                const Vec2 a = cells[i], b = cells[i + 1];
                const double length = std::sqrt(dot(b - a, b - a));
                if (!(length > 0.0)) continue;
                const double from = clearance(a), to = length - clearance(b);
                const Vec2 d = (b - a) * (1.0 / length);
                const Vec2 n{-d.y, d.x};
                // At a bend (not a junction) the sidewalks of the two segments meet: on the
                // outside of the turn a wedge fills the gap between their ends.
                if (hasPrevious && from == 0.0 && from < to && nearTile(a, a, half)) {
                    const double turn = dot(d, previous);  // > 0: turning to the right (+n)
                    if (sides.left && turn > 0.0) {
                        paint.quad(a + previous * -half, a + previous * (-half + walk), a + n * (-half + walk),
                                   a + n * -half, out.sidewalks);
                    }
                    if (sides.right && turn < 0.0) {
                        paint.quad(a + previous * (half - walk), a + previous * half, a + n * half,
                                   a + n * (half - walk), out.sidewalks);
                    }
                }
                hasPrevious = from < to && to == length;
                previous = n;
                const Vec2 lo = a - offset, hi = b - offset;
                const bool near = std::max(lo.x, hi.x) >= -half && std::min(lo.x, hi.x) <= kTileCells + half &&
                                  std::max(lo.y, hi.y) >= -half && std::min(lo.y, hi.y) <= kTileCells + half;
                if (near && from < to) {
                    const auto at = [&](double t) { return a + d * t; };
                    // Where a zebra crossing lies on the segment (cells along it), its lines stop:
                    // the bars' half length along the road, and a lane line's width.
                    // and there the kerbs are lowered: the sidewalks' strip is paving at the
                    // road's level across the bars' length.
                    zones.clear();
                    kerbs.clear();
                    for (const auto& [p, q] : zebras) {
                        const Vec2 pq = q - p;
                        const double denom = cross(d, pq);
                        if (!(std::abs(denom) > 1e-9)) continue;
                        const double t = cross(p - a, pq) / denom, u = cross(p - a, d) / denom;
                        if (u < 0.0 || u > 1.0) continue;
                        const double across = std::abs(denom) / std::sqrt(dot(pq, pq));  // |sin| of the angle
                        const double bars = zebraHalfLength / std::max(across, kShallowestCrossing);
                        zones.push_back({t - bars - 2.0 * line, t + bars + 2.0 * line});
                        kerbs.push_back({t - bars, t + bars});
                    }
                    std::sort(zones.begin(), zones.end());
                    std::sort(kerbs.begin(), kerbs.end());
                    // Paints [s0, s1] (cells along the segment) split by the zones of `list`: what
                    // lies outside them with `outside`, within them with `within`.
                    const auto byZones = [&](const auto& list, double s0, double s1, auto&& outside, auto&& within) {
                        for (const auto& [z0, z1] : list) {
                            if (z1 <= s0 || z0 >= s1) continue;
                            if (z0 > s0) outside(s0, z0);
                            within(std::max(s0, z0), std::min(s1, z1));
                            s0 = std::max(s0, z1);
                        }
                        if (s0 < s1) outside(s0, s1);
                    };
                    const auto outsideZones = [&](double s0, double s1, auto&& paintPiece) {
                        byZones(zones, s0, s1, paintPiece, [](double, double) {});
                    };
                    // The lane lines' dashes that fall on [from, to].
                    for (double k = std::floor((along + from) / period); k * period < along + to; k += 1.0) {
                        const double s0 = std::max(k * period - along, from);
                        const double s1 = std::min(k * period + dash - along, to);
                        if (!(s0 < s1)) continue;
                        for (int lane = 1; lane < lanes; ++lane) {
                            const Vec2 shift = n * (left + (right - left) * lane / lanes);
                            outsideZones(s0, s1, [&](double x0, double x1) {
                                paint.stroke(at(x0) + shift, at(x1) + shift, n, line, out.markings);
                            });
                        }
                    }
                    // The edge lines and the sidewalks, in pieces.
                    // On a fixed grid along the segment, so a tile's pieces do not depend on how
                    // far a junction trims the segment's other end.
                    for (double g = std::floor(from / kPieceCells) * kPieceCells; g < to; g += kPieceCells) {
                        const double s0 = std::max(g, from), s1 = std::min(g + kPieceCells, to);
                        if (right - left > 2.0 * inset + 2.0 * line) {
                            for (const double across : {left + inset, right - inset}) {
                                outsideZones(s0, s1, [&](double x0, double x1) {
                                    paint.stroke(at(x0) + n * across, at(x1) + n * across, n, line, out.markings);
                                });
                            }
                        }
                        for (const auto& [side, centre] :
                             {std::pair{sides.left, -half + 0.5 * walk}, std::pair{sides.right, half - 0.5 * walk}}) {
                            if (!side) continue;
                            const Vec2 shift = n * centre;
                            const auto strip = [&](std::vector<Vec2>* into) {
                                return [&, shift, into](double x0, double x1) {
                                    paint.stroke(at(x0) + shift, at(x1) + shift, n, 0.5 * walk, *into);
                                };
                            };
                            byZones(kerbs, s0, s1, strip(&out.sidewalks), strip(&out.paving));
                        }
                    }
                }
                along += length;
            }
            begin = end;
        }
    });
}

}  // namespace terrabit::core::placement
