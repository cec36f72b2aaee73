#include "terrabit/core/placement/surface_shape.h"
#include "surface_shape_p.h"

#include "buffer_union_p.h"
#include "ear_cutter_p.h"
#include "ring_nesting_p.h"

#include "../tiling/far_chunks_p.h"

#include <geos_c.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <string>

#include "terrabit/core/placement/greedy_mesh.h"
#include "terrabit/core/terrain/ground_grading.h"

namespace terrabit::core::placement {

namespace {

/// Cells beyond the tile's edge that shapes keep until the final clip: what TileIndex keeps.
constexpr double kWindowCells = kClipMarginCells;

/// The step (cells) lines' half widths are rounded to before buffering (bufferRadius): 2^-10, so
/// a buffer's width is off by at most 2^-11 cells — far below the arcs' tolerance, and a sliver
/// of area (0.05 % of a road 2 cells wide).
constexpr double kRadiusStepCells = 1.0 / 1024.0;

/// GEOS's message for the last error of a context, kept by its handler.
void keepMessage(const char* message, void* userdata) { *static_cast<std::string*>(userdata) = message; }

/// Quarter-circle segments for a buffer of radius r whose chords lie within kArcToleranceCells
/// of the circle: the sagitta of a chord over angle a is r (1 − cos(a/2)).
int quadrantSegments(double r) {
    if (r <= kArcToleranceCells) return 1;
    const double half = std::acos(1.0 - kArcToleranceCells / r);
    return std::clamp(static_cast<int>(std::ceil(std::numbers::pi / 4.0 / half)), 1, 32);
}

/// The half width (cells) a line of half width r is buffered by: r rounded to a multiple of
/// kRadiusStepCells. A rule's width in cells differs a little from feature to feature (cells
/// shrink towards the poles); rounded, a tile's lines of one rule buffer together, which costs
/// far less than uniting one buffer per width, and every tile rounds a line alike.
double bufferRadius(double r) { return std::round(r / kRadiusStepCells) * kRadiusStepCells; }

/// The angle (radians) of the first arc corner of feature 0 (BufferUnion::add): odd, so that no
/// arc edge runs along an axis, where straight ways have theirs; and the step between features'
/// angular grids: the golden ratio's fraction, so near entries fall far apart.
constexpr double kArcPhase = 0.3183098861837907;
constexpr double kArcPhaseStep = 0.6180339887498949;

}  // namespace

struct SurfaceShaper::Impl {
    GEOSContextHandle_t ctx = GEOS_init_r();
    std::string message;
    bool leaveOutBridges = false;  ///< setLeaveOutBridges
    // Scratch, kept between tiles: no allocation once grown.
    std::vector<double> coords;
    std::vector<Vec2> reduced;
    std::vector<GEOSGeometry*> geoms;
    std::vector<CellRect> rects;
    BitTile meshScratch;
    std::vector<std::span<const Vec2>> ringViews;
    detail::EarCutter ears;
    /// A tile's runs of line segments (and single points) to buffer: points in runPoints.
    struct Run {
        std::uint32_t begin, end;
        double radius;            ///< bufferRadius of the feature's half width
        std::uint32_t entry = 0;  ///< the feature's map entry
    };
    std::vector<Run> runs;
    std::vector<Vec2> runPoints;
    detail::BufferUnion lineUnion;
    std::vector<Vec2> unionOutline;
    std::vector<std::uint32_t> unionRingEnds;
    std::vector<Vec2> areaCorners, areaTriangles;
    std::vector<std::uint32_t> areaRingEnds;
    detail::RingNesting nesting;
    std::vector<Vec2> nestedOutline;
    std::vector<std::uint32_t> nestedRingEnds;
    std::vector<int> ringParent;

    Impl() { GEOSContext_setErrorMessageHandler_r(ctx, keepMessage, &message); }
    ~Impl() { GEOS_finish_r(ctx); }

    /// An owned GEOS geometry.
    struct Geom {
        GEOSContextHandle_t ctx = nullptr;
        GEOSGeometry* g = nullptr;
        Geom() = default;
        Geom(GEOSContextHandle_t c, GEOSGeometry* p) : ctx(c), g(p) {}
        Geom(Geom&& o) noexcept : ctx(o.ctx), g(o.g) { o.g = nullptr; }
        Geom& operator=(Geom&& o) noexcept {
            std::swap(ctx, o.ctx);
            std::swap(g, o.g);
            return *this;
        }
        ~Geom() {
            if (g) GEOSGeom_destroy_r(ctx, g);
        }
        GEOSGeometry* release() { return std::exchange(g, nullptr); }
        explicit operator bool() const { return g != nullptr; }
    };

    std::map<int, Geom> layerShapes;  ///< this tile's shape of each layer asked for

    Geom own(GEOSGeometry* g) { return {ctx, g}; }
    Geom empty() { return own(GEOSGeom_createEmptyPolygon_r(ctx)); }
    Geom box(double lo, double hi) { return own(GEOSGeom_createRectangle_r(ctx, lo, lo, hi, hi)); }

    GEOSCoordSequence* sequence(std::span<const Vec2> points, Vec2 offset, bool close) {
        coords.clear();
        for (const Vec2& p : points) coords.insert(coords.end(), {p.x - offset.x, p.y - offset.y});
        if (close) coords.insert(coords.end(), {points.front().x - offset.x, points.front().y - offset.y});
        return GEOSCoordSeq_copyFromBuffer_r(ctx, coords.data(), coords.size() / 2, 0, 0);
    }

    /// Every geometry of `parts` united (consumed): buffered by nothing, which nodes all their
    /// rings in one pass and keeps what lies inside any of them — several times faster than
    /// the cascade of pairwise overlays of GEOSUnaryUnion on buffers of many vertices.
    Geom unite(std::vector<GEOSGeometry*>& parts) {
        if (parts.empty()) return empty();
        Geom all = own(GEOSGeom_createCollection_r(ctx, GEOS_GEOMETRYCOLLECTION, parts.data(),
                                                   static_cast<unsigned>(parts.size())));
        parts.clear();
        if (!all) return {};
        return own(GEOSBuffer_r(ctx, all.g, 0.0, 8));
    }

    /// An area feature's rings under the even-odd rule, clipped to the window. Runs of a large
    /// ring far beyond one side of the window become their chord (as the rasterizer does): both
    /// lie beyond that side, so the clip leaves the same shape, and a sea of thousands of
    /// vertices costs a tile little more than its nearby ones.
    Geom area(std::span<const Vec2> cells, std::span<const std::uint32_t> partEnds, std::span<const Box2> chunks,
              Vec2 offset) {
        const Box2 window{{offset.x - kWindowCells, offset.y - kWindowCells},
                          {offset.x + kTileCells + kWindowCells, offset.y + kTileCells + kWindowCells}};
        Geom shape;
        std::uint32_t begin = 0;
        std::size_t chunk = 0;
        for (const std::uint32_t end : partEnds) {
            std::span<const Vec2> ring = cells.subspan(begin, end - begin);
            begin = end;
            if (!chunks.empty()) {
                core::detail::reduceFarChunks(ring, chunks, chunk, window, reduced);
                reduced.erase(std::unique(reduced.begin(), reduced.end()), reduced.end());
                ring = reduced;
            }
            if (ring.size() < 3) continue;
            const bool closed = ring.front() == ring.back();
            if (closed && ring.size() < 4) continue;
            GEOSGeometry* shell = GEOSGeom_createLinearRing_r(ctx, sequence(ring, offset, !closed));
            if (!shell) return {};
            Geom polygon = own(GEOSGeom_createPolygon_r(ctx, shell, nullptr, 0));
            if (!polygon) return {};
            // Clipped first: a ring's trouble far away (a chord across a bay) does not count.
            Geom clipped = own(GEOSClipByRect_r(ctx, polygon.g, -kWindowCells, -kWindowCells, kTileCells + kWindowCells,
                                                kTileCells + kWindowCells));
            if (!clipped) return {};
            if (GEOSisValid_r(ctx, clipped.g) != 1) {
                clipped = own(GEOSMakeValid_r(ctx, clipped.g));
                if (!clipped) return {};
            }
            shape = shape ? own(GEOSSymDifference_r(ctx, shape.g, clipped.g)) : std::move(clipped);
            if (!shape) return {};
        }
        return shape ? std::move(shape) : empty();
    }

    /// A line feature's runs of segments that come within r and the window of the tile, each
    /// unchanged (so two tiles buffer the same segments), into `runs` (tile cells; a one-point
    /// part is a run of one point), to be buffered by `radius`.
    void line(std::span<const Vec2> cells, std::span<const std::uint32_t> partEnds, Vec2 offset, double r,
              double radius, std::uint32_t entry) {
        if (!(r > 0.0)) return;  // a line of no width covers no cell centre
        const double lo = -kWindowCells - r, hi = kTileCells + kWindowCells + r;
        const auto near = [&](Vec2 a, Vec2 b) {
            a = a - offset, b = b - offset;
            return std::max(a.x, b.x) >= lo && std::min(a.x, b.x) <= hi && std::max(a.y, b.y) >= lo &&
                   std::min(a.y, b.y) <= hi;
        };
        const auto add = [&](std::span<const Vec2> run) {
            const auto begin = static_cast<std::uint32_t>(runPoints.size());
            for (const Vec2& p : run) runPoints.push_back(p - offset);
            runs.push_back({begin, static_cast<std::uint32_t>(runPoints.size()), radius, entry});
        };
        std::uint32_t begin = 0;
        for (const std::uint32_t end : partEnds) {
            const std::span<const Vec2> part = cells.subspan(begin, end - begin);
            begin = end;
            if (part.size() == 1) {
                if (near(part[0], part[0])) add(part);
                continue;
            }
            std::size_t runStart = 0;
            bool inRun = false;
            for (std::size_t i = 0; i + 1 < part.size(); ++i) {
                const bool keep = near(part[i], part[i + 1]);
                if (keep && !inRun) runStart = i, inRun = true;
                if (!keep && inRun) {
                    add(part.subspan(runStart, i + 1 - runStart));
                    inRun = false;
                }
            }
            if (inRun) add(part.subspan(runStart));
        }
    }

    /// The runs buffered with round caps and joins and united with the polygonal geometries in
    /// `areas`: by BufferUnion, which then consumes `areas`; or the runs alone, by BufferUnion or
    /// where it cannot tell by GEOS from BufferUnion::pieces, leaving `areas` for the caller to
    /// unite with them. Null on a GEOS failure.
    Geom bufferRuns(std::vector<GEOSGeometry*>& areas) {
        lineUnion.clear();
        for (const Run& run : runs) {
            // Each feature's arcs on its own angular grid (the same in every tile): where two
            // ways end at one node their caps cross instead of sharing stretches of edge.
            lineUnion.add({runPoints.data() + run.begin, run.end - run.begin}, run.radius, quadrantSegments(run.radius),
                          kArcPhase + kArcPhaseStep * double(run.entry % 97));
        }
        // Areas whose ears BufferUnion cannot trust stay out: the lines alone then, as below.
        const bool withAreas = addAreas(areas);
        if (!withAreas) lineUnion.clearAreas();
        if (lineUnion.unite(unionOutline, unionRingEnds)) {
            if (Geom g = polygonsOf(unionOutline, unionRingEnds)) {
                if (withAreas) {
                    for (GEOSGeometry* a : areas) GEOSGeom_destroy_r(ctx, a);
                    areas.clear();
                }
                return g;
            }
        }
        // GEOS unites the same outlines and pieces: a neighbour whose union BufferUnion could
        // tell meets this tile's on their common edge at the same corners.
        lineUnion.pieces(unionOutline, unionRingEnds);
        std::vector<GEOSGeometry*> parts;
        std::uint32_t begin = 0;
        for (const std::uint32_t end : unionRingEnds) {
            GEOSGeometry* ring =
                GEOSGeom_createLinearRing_r(ctx, sequence({unionOutline.data() + begin, end - begin}, {}, true));
            GEOSGeometry* piece = ring ? GEOSGeom_createPolygon_r(ctx, ring, nullptr, 0) : nullptr;
            begin = end;
            if (!piece) {
                if (ring) GEOSGeom_destroy_r(ctx, ring);
                for (GEOSGeometry* g : parts) GEOSGeom_destroy_r(ctx, g);
                return {};
            }
            parts.push_back(piece);
        }
        return unite(parts);
    }

    /// Hands the polygons of `areas` to lineUnion: their rings turned as it wants them, and their
    /// ears. False when a polygon's ears do not cover it exactly (their areas or turns disagree
    /// with its rings'): the inside tests would then be wrong.
    bool addAreas(const std::vector<GEOSGeometry*>& areas) {
        for (const GEOSGeometry* part : areas) {
            const int count = GEOSGetNumGeometries_r(ctx, part);
            for (int i = 0; i < count; ++i) {
                const GEOSGeometry* polygon = GEOSGetGeometryN_r(ctx, part, i);
                if (GEOSGeomTypeId_r(ctx, polygon) != GEOS_POLYGON || GEOSisEmpty_r(ctx, polygon)) continue;
                areaCorners.clear();
                areaRingEnds.clear();
                double ringsArea = 0.0;  // twice
                const auto take = [&](const GEOSGeometry* ring, bool shell) {
                    const GEOSCoordSequence* seq = GEOSGeom_getCoordSeq_r(ctx, ring);
                    unsigned n = 0;
                    if (!seq || !GEOSCoordSeq_getSize_r(ctx, seq, &n) || n < 4) return false;
                    coords.resize(std::size_t{n} * 2);
                    if (!GEOSCoordSeq_copyToBuffer_r(ctx, seq, coords.data(), 0, 0)) return false;
                    const std::size_t begin = areaCorners.size();
                    for (unsigned k = 0; k + 1 < n; ++k) areaCorners.push_back({coords[2 * k], coords[2 * k + 1]});
                    double twice = 0.0;
                    for (std::size_t k = begin, j = areaCorners.size() - 1; k < areaCorners.size(); j = k++) {
                        twice += cross(areaCorners[j], areaCorners[k]);
                    }
                    if ((twice < 0.0) == shell)
                        std::reverse(areaCorners.begin() + std::ptrdiff_t(begin), areaCorners.end());
                    ringsArea += shell ? std::abs(twice) : -std::abs(twice);
                    areaRingEnds.push_back(static_cast<std::uint32_t>(areaCorners.size()));
                    return true;
                };
                if (!take(GEOSGetExteriorRing_r(ctx, polygon), true)) return false;
                const int holes = GEOSGetNumInteriorRings_r(ctx, polygon);
                for (int h = 0; h < holes; ++h) {
                    if (!take(GEOSGetInteriorRingN_r(ctx, polygon, h), false)) return false;
                }
                ringViews.clear();
                std::uint32_t begin = 0;
                for (const std::uint32_t end : areaRingEnds) {
                    ringViews.emplace_back(areaCorners.data() + begin, end - begin);
                    begin = end;
                }
                areaTriangles.clear();
                if (!ears.cut(ringViews, areaTriangles)) return false;
                double trianglesArea = 0.0;
                for (std::size_t t = 0; t + 2 < areaTriangles.size(); t += 3) {
                    const double turn =
                        cross(areaTriangles[t + 1] - areaTriangles[t], areaTriangles[t + 2] - areaTriangles[t]);
                    if (turn < 0.0) return false;  // the shell turns counter-clockwise: so must every ear
                    trianglesArea += turn;
                }
                if (!(std::abs(trianglesArea - ringsArea) <= 1e-9 * std::max(1.0, ringsArea))) return false;
                lineUnion.addArea(areaCorners, areaRingEnds, areaTriangles);
            }
        }
        return true;
    }

    /// BufferUnion's rings as GEOS polygons: each shell with the holes RingNesting finds in it.
    /// Null when the rings are not a valid shape by RingNesting's check (the caller then has
    /// GEOS unite the pieces).
    Geom polygonsOf(const std::vector<Vec2>& rawOutline, const std::vector<std::uint32_t>& rawRingEnds) {
        // A crossing computed a few ulps off a corner leaves an edge of 1e-13 there: dropped.
        std::vector<Vec2>& outline = nestedOutline;
        std::vector<std::uint32_t>& ringEnds = nestedRingEnds;
        outline.clear();
        ringEnds.clear();
        std::uint32_t rawBegin = 0;
        for (const std::uint32_t rawEnd : rawRingEnds) {
            const std::size_t begin = outline.size();
            for (std::uint32_t i = rawBegin; i < rawEnd; ++i) {
                if (outline.size() > begin && length(rawOutline[i] - outline.back()) < detail::RingNesting::kApart)
                    continue;
                outline.push_back(rawOutline[i]);
            }
            while (outline.size() > begin + 1 &&
                   length(outline.back() - outline[begin]) < detail::RingNesting::kApart) {
                outline.pop_back();
            }
            ringEnds.push_back(static_cast<std::uint32_t>(outline.size()));
            rawBegin = rawEnd;
        }
        if (!nesting.nest(outline, ringEnds, ringParent)) return {};
        const auto ringOf = [&](std::size_t r) {
            const std::uint32_t begin = r == 0 ? 0 : ringEnds[r - 1];
            return GEOSGeom_createLinearRing_r(ctx, sequence({outline.data() + begin, ringEnds[r] - begin}, {}, true));
        };
        std::vector<std::vector<std::size_t>> holesOf(ringEnds.size());
        for (std::size_t r = 0; r < ringEnds.size(); ++r) {
            const int p = ringParent[r];
            if (p >= 0 && nesting.isShell(std::size_t(p))) holesOf[std::size_t(p)].push_back(r);
        }
        std::vector<GEOSGeometry*> polygons;
        bool ok = true;
        for (std::size_t k = 0; k < ringEnds.size() && ok; ++k) {
            if (!nesting.isShell(k)) continue;
            GEOSGeometry* shell = ringOf(k);
            std::vector<GEOSGeometry*> inner;
            for (const std::size_t h : holesOf[k]) {
                if (GEOSGeometry* g = ringOf(h))
                    inner.push_back(g);
                else
                    ok = false;
            }
            GEOSGeometry* polygon =
                shell && ok ? GEOSGeom_createPolygon_r(ctx, shell, inner.data(), static_cast<unsigned>(inner.size()))
                            : nullptr;
            if (!polygon) {
                if (shell) GEOSGeom_destroy_r(ctx, shell);
                for (GEOSGeometry* g : inner) GEOSGeom_destroy_r(ctx, g);
                ok = false;
                break;
            }
            polygons.push_back(polygon);
        }
        if (!ok) {
            for (GEOSGeometry* g : polygons) GEOSGeom_destroy_r(ctx, g);
            return {};
        }
        return own(GEOSGeom_createCollection_r(ctx, GEOS_MULTIPOLYGON, polygons.data(),
                                               static_cast<unsigned>(polygons.size())));
    }

    /// The shape of `layer` (with its classes) in this tile, built once per shapeTile call.
    const GEOSGeometry* shapeOf(const TileIndex& index, std::size_t slot, Vec2 offset, int layer) {
        auto it = layerShapes.find(layer);
        if (it == layerShapes.end()) {
            Geom g = layerShape(index, slot, offset, familyOf(index.map(), layer));
            if (!g) return nullptr;
            it = layerShapes.emplace(layer, std::move(g)).first;
        }
        return it->second.g;
    }

    /// The shape of every feature of `layer` and its classes in the tile's window.
    Geom layerShape(const TileIndex& index, std::size_t slot, Vec2 offset, const std::vector<char>& inLayer) {
        std::vector<GEOSGeometry*> parts;
        runs.clear();
        runPoints.clear();
        for (const TileIndex::EntryInfo& info : index.entryInfos(slot)) {
            if (!inLayer[info.layer]) continue;
            if (leaveOutBridges && terrain::isBridgeWay(*index.map().entries[info.entry].feature)) continue;
            const std::span<const Vec2> cells = index.cells(info);
            const std::span<const std::uint32_t> partEnds = index.partEnds(info);
            bool ok = true;
            switch (info.kind) {
                case FeatureKind::Area: {
                    Geom a = area(cells, partEnds, index.chunks(info), offset);
                    ok = static_cast<bool>(a);
                    if (ok) parts.push_back(a.release());
                    break;
                }
                case FeatureKind::Line:
                    line(cells, partEnds, offset, info.sizeCells, bufferRadius(info.sizeCells),
                         std::uint32_t(info.entry));
                    break;
                case FeatureKind::Point:
                    for (const Vec2& c : cells) {
                        line(std::span<const Vec2>(&c, 1), std::array<std::uint32_t, 1>{1}, offset, info.sizeCells,
                             bufferRadius(info.sizeCells), std::uint32_t(info.entry));
                    }
                    break;
            }
            if (!ok) {
                for (GEOSGeometry* g : parts) GEOSGeom_destroy_r(ctx, g);
                message = "feature " + index.map().entries[info.entry].feature->id + ": " + message;
                return {};
            }
        }
        if (!runs.empty()) {
            Geom lines = bufferRuns(parts);  // with the areas, when it can
            if (!lines) {
                for (GEOSGeometry* g : parts) GEOSGeom_destroy_r(ctx, g);
                return {};
            }
            parts.push_back(lines.release());
        }
        if (parts.size() == 1) return own(parts[0]);  // one buffer or area: valid already
        return unite(parts);
    }

    /// The set cells of `bits` as unit squares, united.
    Geom cellsShape(const BitTile& bits) {
        greedyMesh(bits, rects, meshScratch);
        std::vector<GEOSGeometry*> parts;
        for (const CellRect& r : rects) parts.push_back(GEOSGeom_createRectangle_r(ctx, r.x0, r.y0, r.x1, r.y1));
        return unite(parts);
    }

    /// Writes a polygonal geometry's rings into `out` (outline) and a triangulation of them
    /// (triangles), with corners on the kSurfaceGridCells grid. The corners are rounded to the
    /// grid and the rings cut into ears; a shape whose rounding left it self-touching in a way
    /// the ears cannot cover exactly (the triangles' area or turn disagree with the rings') is
    /// snap-rounded by GEOS instead and given its constrained Delaunay triangulation.
    bool write(GEOSGeometry* shape, SurfaceShape& out) {
        out = {};
        if (GEOSisEmpty_r(ctx, shape)) return true;
        if (earCut(shape, out)) return true;
        out = {};
        Geom snapped = own(GEOSGeom_setPrecision_r(ctx, shape, kSurfaceGridCells, 0));
        if (!snapped) return false;
        if (GEOSisEmpty_r(ctx, snapped.g)) return true;
        if (!outline(snapped.g, out, false)) return false;
        const int count = GEOSGetNumGeometries_r(ctx, snapped.g);
        for (int i = 0; i < count; ++i) {
            const GEOSGeometry* polygon = GEOSGetGeometryN_r(ctx, snapped.g, i);
            if (GEOSGeomTypeId_r(ctx, polygon) != GEOS_POLYGON || GEOSisEmpty_r(ctx, polygon)) continue;
            if (!triangulate(polygon, out.triangles.edit(), 0)) return false;
        }
        return true;
    }

    /// v rounded to the kSurfaceGridCells grid, but a corner inside the tile stays inside: only
    /// the corners the clip put on the tile's edge lie on it, and the neighbour has the same.
    static double onGrid(double v) {
        const double g = std::round(v / kSurfaceGridCells) * kSurfaceGridCells;
        if (g == 0.0 && v > 0.0) return kSurfaceGridCells;
        if (g == kTileCells && v < kTileCells) return kTileCells - kSurfaceGridCells;
        return g;
    }

    /// `shape`'s polygons into out's outline, their corners rounded to the grid when `round`
    /// (repeated corners dropped, and rings left without area).
    bool outline(const GEOSGeometry* shape, SurfaceShape& out, bool round) {
        // The shape's own lists (a shape being made shares them with nothing).
        std::vector<Vec2>& corners = out.outline.edit();
        std::vector<std::uint32_t>& ringEnds = out.ringEnds.edit();
        const auto ringOf = [&](const GEOSGeometry* ring) {
            const GEOSCoordSequence* seq = GEOSGeom_getCoordSeq_r(ctx, ring);
            unsigned n = 0;
            if (!seq || !GEOSCoordSeq_getSize_r(ctx, seq, &n)) return false;
            coords.resize(std::size_t{n} * 2);
            if (n > 0 && !GEOSCoordSeq_copyToBuffer_r(ctx, seq, coords.data(), 0, 0)) return false;
            const std::size_t begin = corners.size();
            for (unsigned i = 0; i + 1 < n; ++i) {
                Vec2 v{coords[2 * i], coords[2 * i + 1]};
                if (round) {
                    v = {onGrid(v.x), onGrid(v.y)};
                    if (corners.size() > begin && corners.back() == v) continue;
                }
                corners.push_back(v);
            }
            if (round) {
                while (corners.size() > begin + 1 && corners.back() == corners[begin]) {
                    corners.pop_back();
                }
                double twiceArea = 0.0;
                for (std::size_t i = begin, j = corners.size() - 1; i < corners.size(); j = i++) {
                    twiceArea += cross(corners[j], corners[i]);
                }
                if (corners.size() < begin + 3 || twiceArea == 0.0) {  // a sliver thinner than the grid
                    corners.resize(begin);
                    return true;
                }
            }
            ringEnds.push_back(static_cast<std::uint32_t>(corners.size()));
            return true;
        };
        const int count = GEOSGetNumGeometries_r(ctx, shape);
        for (int i = 0; i < count; ++i) {
            const GEOSGeometry* polygon = GEOSGetGeometryN_r(ctx, shape, i);
            if (GEOSGeomTypeId_r(ctx, polygon) != GEOS_POLYGON || GEOSisEmpty_r(ctx, polygon)) continue;
            const std::size_t rings = ringEnds.size();
            if (!ringOf(GEOSGetExteriorRing_r(ctx, polygon))) return false;
            if (ringEnds.size() == rings) continue;  // its shell rounded away: so did its holes
            const int holes = GEOSGetNumInteriorRings_r(ctx, polygon);
            for (int h = 0; h < holes; ++h) {
                if (!ringOf(GEOSGetInteriorRingN_r(ctx, polygon, h))) return false;
            }
            out.polygonEnds.push_back(static_cast<std::uint32_t>(ringEnds.size()));
        }
        return true;
    }

    /// The rounded outline of `shape` and its ears, when they cover it exactly: every triangle
    /// turns the way the shells do, and their areas add up to the rings' area.
    bool earCut(const GEOSGeometry* shape, SurfaceShape& out) {
        if (!outline(shape, out, true)) return false;
        std::uint32_t ring = 0, begin = 0;
        double ringsArea = 0.0;  // twice, signed as the shells turn
        for (const std::uint32_t polygonEnd : out.polygonEnds) {
            ringViews.clear();
            for (; ring < polygonEnd; ++ring) {
                const std::uint32_t end = out.ringEnds[ring];
                const std::span<const Vec2> pts(out.outline.data() + begin, end - begin);
                begin = end;
                double twice = 0.0;
                for (std::size_t i = 0, j = pts.size() - 1; i < pts.size(); j = i++) twice += cross(pts[j], pts[i]);
                ringsArea += (ringViews.empty() ? 1.0 : -1.0) * std::abs(twice);
                ringViews.push_back(pts);
            }
            if (!ears.cut(ringViews, out.triangles.edit())) return false;
        }
        // The ears all turn one way (as the cutter orients every shell); each is written
        // counter-clockwise seen from above (y runs south: a negative turn).
        double trianglesArea = 0.0;
        std::size_t kept = 0, positive = 0;
        std::vector<Vec2>& triangles = out.triangles.edit();
        for (std::size_t i = 0; i + 2 < triangles.size(); i += 3) {
            Vec2 a = triangles[i], b = triangles[i + 1], d = triangles[i + 2];
            const double turn = cross(b - a, d - a);
            if (turn == 0.0) continue;
            positive += turn > 0.0;
            if (turn > 0.0) std::swap(b, d);
            trianglesArea += std::abs(turn);
            triangles[kept++] = a, triangles[kept++] = b, triangles[kept++] = d;
        }
        triangles.resize(kept);
        if (positive != 0 && positive != kept / 3) return false;
        return std::abs(trianglesArea - ringsArea) <= 1e-9 * std::max(1.0, ringsArea);
    }

    /// Appends the constrained Delaunay triangulation of `polygon` to `triangles`, three
    /// corners each, counter-clockwise seen from above. GEOS 3.11's triangulator gives up on some
    /// polygons whose holes touch their shell ("Unable to find a convex corner"); such a polygon
    /// is cut in two halves along a grid line, and each half triangulated, a few times at most.
    bool triangulate(const GEOSGeometry* polygon, std::vector<Vec2>& triangles, int depth) {
        Geom cdt = own(GEOSConstrainedDelaunayTriangulation_r(ctx, polygon));
        if (cdt) {
            const int n = GEOSGetNumGeometries_r(ctx, cdt.g);
            for (int i = 0; i < n; ++i) {
                const GEOSGeometry* t = GEOSGetGeometryN_r(ctx, cdt.g, i);
                const GEOSCoordSequence* seq = GEOSGeom_getCoordSeq_r(ctx, GEOSGetExteriorRing_r(ctx, t));
                double c[8];
                GEOSCoordSeq_copyToBuffer_r(ctx, seq, c, 0, 0);
                Vec2 a{c[0], c[1]}, b{c[2], c[3]}, d{c[4], c[5]};
                const double turn = cross(b - a, d - a);
                if (turn == 0.0) continue;
                if (turn > 0.0) std::swap(b, d);  // counter-clockwise seen from above: y runs south
                triangles.insert(triangles.end(), {a, b, d});
            }
            return true;
        }
        if (depth >= 8) return false;
        double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        if (!GEOSGeom_getXMin_r(ctx, polygon, &x0) || !GEOSGeom_getYMin_r(ctx, polygon, &y0) ||
            !GEOSGeom_getXMax_r(ctx, polygon, &x1) || !GEOSGeom_getYMax_r(ctx, polygon, &y1)) {
            return false;
        }
        const bool alongX = x1 - x0 >= y1 - y0;
        const double mid = std::round((alongX ? x0 + x1 : y0 + y1) * 0.5 / kSurfaceGridCells) * kSurfaceGridCells;
        for (int half = 0; half < 2; ++half) {
            const double hx0 = alongX && half ? mid : x0, hx1 = alongX && !half ? mid : x1;
            const double hy0 = !alongX && half ? mid : y0, hy1 = !alongX && !half ? mid : y1;
            Geom piece = own(GEOSClipByRect_r(ctx, polygon, hx0, hy0, hx1, hy1));
            if (!piece) return false;
            Geom fixed = own(GEOSGeom_setPrecision_r(ctx, piece.g, kSurfaceGridCells, 0));
            if (!fixed) return false;
            const int n = GEOSGetNumGeometries_r(ctx, fixed.g);
            for (int i = 0; i < n; ++i) {
                const GEOSGeometry* p = GEOSGetGeometryN_r(ctx, fixed.g, i);
                if (GEOSGeomTypeId_r(ctx, p) != GEOS_POLYGON || GEOSisEmpty_r(ctx, p)) continue;
                if (!triangulate(p, triangles, depth + 1)) return false;
            }
        }
        return true;
    }

    /// The shape of a mask node, or nothing when it holds a function without an exact shape.
    Geom maskShape(const algebra::ExpressionAst& ast, int node, const TileIndex& index, std::size_t slot, Vec2 offset,
                   bool& exact) {
        using algebra::ExprOp;
        const algebra::ExprNode& n = ast.nodes[static_cast<std::size_t>(node)];
        const std::size_t mapLayers = index.map().layers.size();
        const auto sub = [&](int child) { return maskShape(ast, child, index, slot, offset, exact); };
        const auto binary = [&](auto op) -> Geom {
            Geom a = sub(n.a);
            Geom b = sub(n.b);
            if (!exact || !a || !b) return {};
            return own(op(ctx, a.g, b.g));
        };
        switch (n.op) {
            case ExprOp::Layer:
                if (n.layer < 0 || static_cast<std::size_t>(n.layer) >= mapLayers) break;
                if (const GEOSGeometry* g = shapeOf(index, slot, offset, n.layer)) return own(GEOSGeom_clone_r(ctx, g));
                return {};
            case ExprOp::All:
                return box(-kWindowCells, kTileCells + kWindowCells);
            case ExprOp::None:
                return empty();
            case ExprOp::Not: {
                Geom a = sub(n.a);
                if (!exact || !a) return {};
                Geom all = box(-kWindowCells, kTileCells + kWindowCells);
                return own(GEOSDifference_r(ctx, all.g, a.g));
            }
            case ExprOp::Or:
                return binary(GEOSUnion_r);
            case ExprOp::And:
                return binary(GEOSIntersection_r);
            case ExprOp::AndNot:
                return binary(GEOSDifference_r);
            case ExprOp::Xor:
                return binary(GEOSSymDifference_r);
            default:
                break;
        }
        exact = false;
        return {};
    }

    /// A part's shape within the mask. The usual masks need no overlay of their own: the
    /// part's layer itself is the part, and `layer - other` is the part less the other's shape.
    template <class MaskShape>
    Geom cut(const GEOSGeometry* shape, int layer, MaskShape&& maskShape, const algebra::ExpressionAst& ast,
             std::size_t slot, Vec2 offset, const TileIndex& index) {
        using algebra::ExprOp;
        const auto& nodes = ast.nodes;
        const algebra::ExprNode& root = nodes[static_cast<std::size_t>(ast.root)];
        const auto isLayer = [&](int node) {
            const algebra::ExprNode& n = nodes[static_cast<std::size_t>(node)];
            return n.op == ExprOp::Layer && n.layer == layer;
        };
        if (isLayer(ast.root)) return own(GEOSGeom_clone_r(ctx, shape));
        if (root.op == ExprOp::AndNot && isLayer(root.a)) {
            const algebra::ExprNode& b = nodes[static_cast<std::size_t>(root.b)];
            if (b.op == ExprOp::Layer && b.layer >= 0 &&
                static_cast<std::size_t>(b.layer) < index.map().layers.size()) {
                if (const GEOSGeometry* other = shapeOf(index, slot, offset, b.layer)) {
                    // Both clipped to the tile first (what shapeTile keeps of the result): the
                    // overlay then nodes only the tile's edges.
                    Geom mine = own(GEOSClipByRect_r(ctx, shape, 0.0, 0.0, kTileCells, kTileCells));
                    Geom theirs = own(GEOSClipByRect_r(ctx, other, 0.0, 0.0, kTileCells, kTileCells));
                    if (!mine || !theirs) return {};
                    return own(GEOSDifference_r(ctx, mine.g, theirs.g));
                }
                return {};
            }
        }
        const GEOSGeometry* mask = maskShape();
        if (!mask) return {};
        return own(GEOSIntersection_r(ctx, shape, mask));
    }

    static std::vector<char> familyOf(const ClassifiedMap& map, int layer) { return layerFamily(map.layers, layer); }
};

std::vector<char> layerFamily(std::span<const LayerInfo> layers, int layer) {
    std::vector<char> in(layers.size(), 0);
    std::vector<int> todo{layer};
    while (!todo.empty()) {
        const int l = todo.back();
        todo.pop_back();
        if (l < 0 || static_cast<std::size_t>(l) >= layers.size() || in[static_cast<std::size_t>(l)]) continue;
        in[static_cast<std::size_t>(l)] = 1;
        for (const int c : layers[static_cast<std::size_t>(l)].classes) todo.push_back(c);
    }
    return in;
}

SurfaceShaper::SurfaceShaper() : mImpl(std::make_unique<Impl>()) {}
SurfaceShaper::~SurfaceShaper() = default;
SurfaceShaper::SurfaceShaper(SurfaceShaper&&) noexcept = default;
SurfaceShaper& SurfaceShaper::operator=(SurfaceShaper&&) noexcept = default;

void SurfaceShaper::setLeaveOutBridges(bool leaveOut) { mImpl->leaveOutBridges = leaveOut; }

Status SurfaceShaper::shapeTile(const TileIndex& index, const TileId& tile, std::span<const int> parts,
                                const algebra::ExpressionAst* maskAst, const BitTile& maskBits,
                                std::vector<SurfaceShape>& out) {
    Impl& m = *mImpl;
    using Geom = Impl::Geom;
    out.assign(parts.size(), SurfaceShape{});
    const auto failed = [&](const std::string& what) {
        return Error{"tile " + tile.quadkey() + ": " + what + ": " + m.message, ErrorKind::BadInput};
    };
    const std::optional<std::size_t> slot = index.slot(tile);
    if (!slot) return Status::success();  // the index holds nothing for it: no feature reaches it
    const Vec2 offset{double(tile.x) * kTileCells, double(tile.y) * kTileCells};
    m.layerShapes.clear();

    // The mask's own shape, built only when a part needs it (Impl::cut).
    Geom mask;
    bool maskBuilt = false;
    const auto maskShape = [&]() -> const GEOSGeometry* {
        if (!maskBuilt) {
            maskBuilt = true;
            bool exact = true;
            mask = m.maskShape(*maskAst, maskAst->root, index, *slot, offset, exact);
            if (!exact) mask = m.cellsShape(maskBits);
        }
        return mask.g;
    };
    const bool masked = maskAst && maskAst->root >= 0;
    Geom taken = m.empty();
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const GEOSGeometry* base = m.shapeOf(index, *slot, offset, parts[k]);
        Geom shape = base ? m.own(GEOSGeom_clone_r(m.ctx, base)) : Geom{};
        if (!shape) return failed("the shape of layer '" + index.map().layers[std::size_t(parts[k])].name + "'");
        if (GEOSisEmpty_r(m.ctx, shape.g)) continue;
        if (masked) shape = m.cut(shape.g, parts[k], maskShape, *maskAst, *slot, offset, index);
        if (shape && k > 0) shape = m.own(GEOSDifference_r(m.ctx, shape.g, taken.g));
        if (!shape) return failed("cutting a surface by its mask");
        if (k + 1 < parts.size()) {
            taken = m.own(GEOSUnion_r(m.ctx, taken.g, shape.g));
            if (!taken) return failed("uniting the surfaces");
        }
        Geom clipped = m.own(GEOSClipByRect_r(m.ctx, shape.g, 0.0, 0.0, kTileCells, kTileCells));
        if (!clipped || !m.write(clipped.g, out[k])) return failed("triangulating a surface");
    }
    return Status::success();
}

Status SurfaceShaper::groundAround(std::span<const SurfaceShape* const> holes, SurfaceShape& out) {
    Impl& m = *mImpl;
    std::vector<GEOSGeometry*> parts;
    bool ok = true;
    for (const SurfaceShape* s : holes) {
        std::uint32_t ring = 0, begin = 0;
        for (const std::uint32_t polygonEnd : s->polygonEnds) {
            std::vector<GEOSGeometry*> rings;
            for (; ring < polygonEnd; ++ring) {
                const std::uint32_t end = s->ringEnds[ring];
                const std::span<const Vec2> pts(s->outline.data() + begin, end - begin);
                begin = end;
                GEOSGeometry* r =
                    pts.size() >= 3 ? GEOSGeom_createLinearRing_r(m.ctx, m.sequence(pts, {}, true)) : nullptr;
                if (r) rings.push_back(r);
                ok = ok && r;
            }
            if (rings.empty()) continue;
            GEOSGeometry* p =
                GEOSGeom_createPolygon_r(m.ctx, rings[0], rings.data() + 1, static_cast<unsigned>(rings.size() - 1));
            if (p) parts.push_back(p);
            ok = ok && p;
        }
    }
    Impl::Geom all = m.unite(parts);
    Impl::Geom square = m.box(0.0, kTileCells);
    Impl::Geom ground = all ? m.own(GEOSDifference_r(m.ctx, square.g, all.g)) : Impl::Geom{};
    if (!ok || !ground || !m.write(ground.g, out)) {
        return Error{"the ground around the sunken surfaces: " + m.message, ErrorKind::Internal};
    }
    return Status::success();
}

double staircaseShare(std::span<const SurfacePatch* const> patches, const Box2& cutCells) {
    double total = 0.0, staircase = 0.0;
    // Corners lie on the kSurfaceGridCells grid, so a corner on a cut is within half a step of it.
    const auto on = [](double v, double line) { return std::abs(v - line) <= kSurfaceGridCells; };
    for (const SurfacePatch* p : patches) {
        const SurfaceShape& s = p->shape;
        const Vec2 offset{double(p->tile.x) * kTileCells, double(p->tile.y) * kTileCells};
        const auto cut = [&](Vec2 a, Vec2 b) {
            if (a.x == b.x && (a.x == 0.0 || a.x == kTileCells)) return true;
            if (a.y == b.y && (a.y == 0.0 || a.y == kTileCells)) return true;
            if (cutCells.empty()) return false;
            a = a + offset, b = b + offset;
            return (on(a.x, cutCells.min.x) && on(b.x, cutCells.min.x)) ||
                   (on(a.x, cutCells.max.x) && on(b.x, cutCells.max.x)) ||
                   (on(a.y, cutCells.min.y) && on(b.y, cutCells.min.y)) ||
                   (on(a.y, cutCells.max.y) && on(b.y, cutCells.max.y));
        };
        std::uint32_t begin = 0;
        for (const std::uint32_t end : s.ringEnds) {
            for (std::uint32_t i = begin; i < end; ++i) {
                const Vec2 a = s.outline[i];
                const Vec2 b = s.outline[i + 1 == end ? begin : i + 1];
                if (cut(a, b)) continue;
                const double len = length(b - a);
                total += len;
                if (a.x == b.x || a.y == b.y) staircase += len;
            }
            begin = end;
        }
    }
    return total > 0.0 ? staircase / total : 0.0;
}

}  // namespace terrabit::core::placement
