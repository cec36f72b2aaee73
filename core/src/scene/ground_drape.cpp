#include "terrabit/core/scene/ground_drape.h"
#include "ground_drape_p.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

namespace terrabit::core {

namespace {

using terrain::GroundMesh;
using terrain::GroundVertex;
using terrain::HeightTile;
using terrain::kHeightSamples;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

/// A height with NaN as 0 m, as the ground mesh counts it.
float orZero(float h) { return h == h ? h : 0.0f; }

/// A point of a piece being clipped: cells, height above the datum, the interpolated normal.
struct ClipVertex {
    double x = 0.0, y = 0.0, h = 0.0;
    double nx = 0.0, ny = 1.0, nz = 0.0;
};

ClipVertex lerp(const ClipVertex& a, const ClipVertex& b, double t) {
    return {a.x + (b.x - a.x) * t,    a.y + (b.y - a.y) * t,    a.h + (b.h - a.h) * t,
            a.nx + (b.nx - a.nx) * t, a.ny + (b.ny - a.ny) * t, a.nz + (b.nz - a.nz) * t};
}

/// Keeps the part of `in` where sign · (coordinate − bound) ≥ 0 (Sutherland–Hodgman, one edge).
/// `axis` 0 is x, 1 is y. Keeps the polygon's orientation.
void clipEdge(const std::vector<ClipVertex>& in, int axis, double bound, double sign, std::vector<ClipVertex>& out) {
    out.clear();
    const std::size_t n = in.size();
    for (std::size_t i = 0; i < n; ++i) {
        const ClipVertex& a = in[i];
        const ClipVertex& b = in[(i + 1) % n];
        const double da = sign * ((axis == 0 ? a.x : a.y) - bound);
        const double db = sign * ((axis == 0 ? b.x : b.y) - bound);
        if (da >= 0) out.push_back(a);
        if ((da >= 0) != (db >= 0)) {
            ClipVertex v = lerp(a, b, da / (da - db));
            // Exactly on the bound: the rectangle's edge lies on integer cell lines.
            (axis == 0 ? v.x : v.y) = bound;
            out.push_back(v);
        }
    }
}

class Emitter {
public:
    Emitter(const Scene& scene, const TileId& tile, double offset, GroundTriangles& out)
        : mScene(scene), mTile(tile), mOffset(offset), mOut(out) {}

    /// The surface triangle (tile cells) and its corners' road coordinates that the next
    /// polygons are pieces of: their vertices get the coordinates interpolated in it.
    void setSource(Vec2 a, Vec2 b, Vec2 c, Vec2 ua, Vec2 ub, Vec2 uc) {
        mSource = {a, b, c};
        mSourceUv = {ua, ub, uc};
        mHasSource = true;
    }

    std::uint32_t vertex(const ClipVertex& v) {
        const Vec3f p = groundVertexPosition(mScene, mTile, v.x, v.y, v.h + mOffset);
        const double len = std::sqrt(v.nx * v.nx + v.ny * v.ny + v.nz * v.nz);
        const double s = len > 0 ? 1.0 / len : 0.0;
        mOut.positions.insert(mOut.positions.end(), {p.x, p.y, p.z});
        if (len > 0) {
            mOut.normals.insert(mOut.normals.end(), {static_cast<float>(v.nx * s), static_cast<float>(v.ny * s),
                                                     static_cast<float>(v.nz * s)});
        } else {
            mOut.normals.insert(mOut.normals.end(), {0.0f, 1.0f, 0.0f});
        }
        mOut.cells.insert(mOut.cells.end(), {static_cast<float>(v.x), static_cast<float>(v.y)});
        if (mHasSource) {
            const Vec2 uv = sourceUv({v.x, v.y});
            mOut.roadUv.insert(mOut.roadUv.end(), {static_cast<float>(uv.x), static_cast<float>(uv.y)});
        }
        return static_cast<std::uint32_t>(mOut.positions.size() / 3 - 1);
    }

    /// A convex polygon, fanned from its first corner; nothing for one without area.
    void polygon(const std::vector<ClipVertex>& poly) {
        if (poly.size() < 3) return;
        double area = 0.0;
        for (std::size_t i = 0; i < poly.size(); ++i) {
            const ClipVertex& a = poly[i];
            const ClipVertex& b = poly[(i + 1) % poly.size()];
            area += a.x * b.y - b.x * a.y;
        }
        if (std::abs(area) < 1e-9) return;
        const std::uint32_t first = vertex(poly[0]);
        std::uint32_t previous = vertex(poly[1]);
        for (std::size_t i = 2; i < poly.size(); ++i) {
            const std::uint32_t next = vertex(poly[i]);
            mOut.indices.insert(mOut.indices.end(), {first, previous, next});
            previous = next;
        }
    }

private:
    /// The source triangle's coordinates at q by barycentric weights (NaN when a corner has none).
    Vec2 sourceUv(Vec2 q) const {
        const auto& [a, b, c] = mSource;
        const double area = cross(b - a, c - a);
        if (area == 0.0) return mSourceUv[0];
        const double w0 = cross(b - q, c - q) / area;
        const double w1 = cross(c - q, a - q) / area;
        const double w2 = 1.0 - w0 - w1;
        return mSourceUv[0] * w0 + mSourceUv[1] * w1 + mSourceUv[2] * w2;
    }

    const Scene& mScene;
    TileId mTile;
    double mOffset;
    GroundTriangles& mOut;
    std::array<Vec2, 3> mSource{}, mSourceUv{};
    bool mHasSource = false;
};

ClipVertex clipVertex(const GroundTile& ground, std::uint32_t index) {
    const GroundVertex& v = ground.mesh.vertices[index];
    ClipVertex c;
    c.x = v.column;
    c.y = v.row;
    c.h = v.height;
    if (index < ground.normals.size()) {
        const Vec3f& n = ground.normals[index];
        c.nx = n.x;
        c.ny = n.y;
        c.nz = n.z;
    }
    return c;
}

}  // namespace

Vec3f groundVertexPosition(const Scene& scene, const TileId& tile, double column, double row, double height) {
    const Vec2 cell{double(tile.x) * kTileCells + column, double(tile.y) * kTileCells + row};
    return groundToScene(scene.frame.cellToGround(cell), height - scene.originHeight);
}

GroundTile makeGroundTile(terrain::GroundMesh mesh, const HeightTile& heights,
                          const std::array<const HeightTile*, 4>& neighbours, double metresPerCell) {
    GroundTile g;
    const auto usable = [](const HeightTile* h) { return h && h->heights.size() == terrain::kHeightSampleCount; };
    const HeightTile* north = usable(neighbours[0]) ? neighbours[0] : nullptr;
    const HeightTile* east = usable(neighbours[1]) ? neighbours[1] : nullptr;
    const HeightTile* south = usable(neighbours[2]) ? neighbours[2] : nullptr;
    const HeightTile* west = usable(neighbours[3]) ? neighbours[3] : nullptr;
    const int last = kHeightSamples - 1;
    g.normals.reserve(mesh.vertices.size());
    for (const GroundVertex& v : mesh.vertices) {
        const int r = v.row, c = v.column;
        const float here = orZero(heights.at(r, c));
        // West and east of the sample, then north and south, across the tile's edges where
        // there is a neighbour; one-sided at an edge without.
        float hw = here, he = here, hn = here, hs = here;
        double dx = 0.0, dz = 0.0;
        if (c > 0) {
            hw = orZero(heights.at(r, c - 1)), dx += 1.0;
        } else if (west) {
            hw = orZero(west->at(r, last - 1)), dx += 1.0;
        }
        if (c < last) {
            he = orZero(heights.at(r, c + 1)), dx += 1.0;
        } else if (east) {
            he = orZero(east->at(r, 1)), dx += 1.0;
        }
        if (r > 0) {
            hn = orZero(heights.at(r - 1, c)), dz += 1.0;
        } else if (north) {
            hn = orZero(north->at(last - 1, c)), dz += 1.0;
        }
        if (r < last) {
            hs = orZero(heights.at(r + 1, c)), dz += 1.0;
        } else if (south) {
            hs = orZero(south->at(1, c)), dz += 1.0;
        }
        const double gx = dx > 0 ? (double(he) - double(hw)) / (dx * metresPerCell) : 0.0;
        const double gz = dz > 0 ? (double(hs) - double(hn)) / (dz * metresPerCell) : 0.0;
        const double len = std::sqrt(gx * gx + 1.0 + gz * gz);
        g.normals.push_back(
            {static_cast<float>(-gx / len), static_cast<float>(1.0 / len), static_cast<float>(-gz / len)});
    }
    g.mesh = std::move(mesh);
    return g;
}

GroundTriangles groundTriangles(const Scene& scene, const GroundTile& ground) {
    GroundTriangles out;
    Emitter emit(scene, ground.mesh.tile, 0.0, out);
    out.positions.reserve(ground.mesh.vertices.size() * 3);
    for (std::uint32_t i = 0; i < ground.mesh.vertices.size(); ++i) emit.vertex(clipVertex(ground, i));
    out.indices = ground.mesh.indices;
    return out;
}

GroundTriangles drapeRects(const Scene& scene, const GroundTile& ground, std::span<const CellRect> rects,
                           float offset) {
    GroundTriangles out;
    if (rects.empty() || ground.mesh.empty()) return out;
    // Which rectangle holds each cell.
    std::vector<std::uint32_t> rectOf(std::size_t{kTileCells} * kTileCells, kNone);
    for (std::uint32_t k = 0; k < rects.size(); ++k) {
        const CellRect& r = rects[k];
        for (int y = r.y0; y < std::min<int>(r.y1, kTileCells); ++y) {
            for (int x = r.x0; x < std::min<int>(r.x1, kTileCells); ++x) {
                rectOf[std::size_t(y) * kTileCells + std::size_t(x)] = k;
            }
        }
    }
    Emitter emit(scene, ground.mesh.tile, offset, out);
    std::vector<std::uint32_t> stamp(rects.size(), kNone);
    std::vector<std::uint32_t> touched;
    std::vector<ClipVertex> poly, scratch;
    const auto& idx = ground.mesh.indices;
    const auto& vs = ground.mesh.vertices;
    for (std::uint32_t t = 0; t * 3 + 2 < idx.size(); ++t) {
        const GroundVertex& a = vs[idx[t * 3]];
        const GroundVertex& b = vs[idx[t * 3 + 1]];
        const GroundVertex& c = vs[idx[t * 3 + 2]];
        const int x0 = std::min({a.column, b.column, c.column}), x1 = std::max({a.column, b.column, c.column});
        const int y0 = std::min({a.row, b.row, c.row}), y1 = std::max({a.row, b.row, c.row});
        touched.clear();
        bool whole = true;
        for (int y = y0; y < y1; ++y) {
            for (int x = x0; x < x1; ++x) {
                const std::uint32_t k = rectOf[std::size_t(y) * kTileCells + std::size_t(x)];
                if (k == kNone) {
                    whole = false;
                } else if (stamp[k] != t) {
                    stamp[k] = t;
                    touched.push_back(k);
                }
            }
        }
        if (touched.empty()) continue;
        const ClipVertex tri[3] = {clipVertex(ground, idx[t * 3]), clipVertex(ground, idx[t * 3 + 1]),
                                   clipVertex(ground, idx[t * 3 + 2])};
        if (whole) {
            poly.assign(tri, tri + 3);
            emit.polygon(poly);
            continue;
        }
        std::sort(touched.begin(), touched.end());  // rectangle order: the same bytes every run
        for (const std::uint32_t k : touched) {
            const CellRect& r = rects[k];
            poly.assign(tri, tri + 3);
            clipEdge(poly, 0, r.x0, 1.0, scratch);
            clipEdge(scratch, 0, r.x1, -1.0, poly);
            clipEdge(poly, 1, r.y0, 1.0, scratch);
            clipEdge(scratch, 1, r.y1, -1.0, poly);
            emit.polygon(poly);
        }
    }
    return out;
}

namespace {

/// Keeps the part of convex `in` on the left of the line p→q (side ≥ 0 times `sign`), cutting
/// each crossing edge from its lexicographically smaller end: two pieces sharing an edge cut it
/// at the same point.
void clipLine(const std::vector<ClipVertex>& in, Vec2 p, Vec2 q, double sign, std::vector<ClipVertex>& out) {
    out.clear();
    const std::size_t n = in.size();
    const auto side = [&](const ClipVertex& v) { return sign * cross(q - p, Vec2{v.x, v.y} - p); };
    for (std::size_t i = 0; i < n; ++i) {
        const ClipVertex& a = in[i];
        const ClipVertex& b = in[(i + 1) % n];
        const double da = side(a), db = side(b);
        if (da >= 0) out.push_back(a);
        if ((da >= 0) != (db >= 0)) {
            const bool swap = std::tie(b.x, b.y) < std::tie(a.x, a.y);
            const ClipVertex& u = swap ? b : a;
            const ClipVertex& v = swap ? a : b;
            const double du = swap ? db : da, dv = swap ? da : db;
            out.push_back(lerp(u, v, du / (du - dv)));
        }
    }
}

/// The ground triangles of a mesh in square buckets of kBucketCells, so a surface triangle
/// looks at the few it may meet.
constexpr int kBucketCells = 8;
constexpr int kBuckets = kTileCells / kBucketCells;

/// Mesh triangle t: its corners as clip vertices, their points (cells) and its doubled signed area.
struct MeshTriangle {
    ClipVertex g[3];
    Vec2 p[3];
    double area = 0.0;
};
MeshTriangle meshTriangle(const GroundTile& ground, const std::uint32_t* idx, std::uint32_t t) {
    MeshTriangle m;
    for (std::uint32_t k = 0; k < 3; ++k) {
        m.g[k] = clipVertex(ground, idx[t * 3 + k]);
        m.p[k] = {m.g[k].x, m.g[k].y};
    }
    m.area = cross(m.p[1] - m.p[0], m.p[2] - m.p[0]);
    return m;
}

class MeshBuckets {
public:
    explicit MeshBuckets(const GroundTile& ground)
        : mBuckets(std::size_t{kBuckets} * kBuckets), mStamp(ground.mesh.indices.size() / 3, kNone) {
        const auto& idx = ground.mesh.indices;
        const auto& vs = ground.mesh.vertices;
        const auto count = static_cast<std::uint32_t>(idx.size() / 3);
        for (std::uint32_t t = 0; t < count; ++t) {
            const GroundVertex& a = vs[idx[t * 3]];
            const GroundVertex& b = vs[idx[t * 3 + 1]];
            const GroundVertex& c = vs[idx[t * 3 + 2]];
            const int x0 = bucketOf(std::min({a.column, b.column, c.column}));
            const int x1 = bucketOf(std::max({a.column, b.column, c.column}) - 1e-9);
            const int y0 = bucketOf(std::min({a.row, b.row, c.row}));
            const int y1 = bucketOf(std::max({a.row, b.row, c.row}) - 1e-9);
            for (int y = y0; y <= y1; ++y) {
                for (int x = x0; x <= x1; ++x) mBuckets[std::size_t(y) * kBuckets + std::size_t(x)].push_back(t);
            }
        }
    }

    /// The mesh triangles whose buckets the box [lo, hi] (cells) touches, in mesh order (the
    /// same bytes every run), into `out`; `query` is new for each call.
    void candidates(Vec2 lo, Vec2 hi, std::uint32_t query, std::vector<std::uint32_t>& out) {
        out.clear();
        for (int y = bucketOf(lo.y); y <= bucketOf(hi.y); ++y) {
            for (int x = bucketOf(lo.x); x <= bucketOf(hi.x); ++x) {
                for (const std::uint32_t t : mBuckets[std::size_t(y) * kBuckets + std::size_t(x)]) {
                    if (mStamp[t] != query) mStamp[t] = query, out.push_back(t);
                }
            }
        }
        std::sort(out.begin(), out.end());
    }

private:
    static int bucketOf(double v) {
        return std::clamp(static_cast<int>(std::floor(v / kBucketCells)), 0, kBuckets - 1);
    }

    std::vector<std::vector<std::uint32_t>> mBuckets;
    std::vector<std::uint32_t> mStamp;
};

}  // namespace

GroundTriangles drapeTriangles(const Scene& scene, const TileId& tile, const GroundTile* ground,
                               std::span<const Vec2> triangles, float offset, std::span<const Vec2> roadUv) {
    GroundTriangles out;
    const bool withUv = !roadUv.empty() && roadUv.size() == triangles.size();
    if (ground && ground->mesh.empty()) ground = nullptr;
    Emitter emit(scene, tile, offset, out);
    std::vector<ClipVertex> poly, scratch;
    if (!ground) {
        // Flat: y = offset wherever the scene's origin height puts the datum.
        for (std::size_t i = 0; i + 2 < triangles.size(); i += 3) {
            if (withUv) {
                emit.setSource(triangles[i], triangles[i + 1], triangles[i + 2], roadUv[i], roadUv[i + 1],
                               roadUv[i + 2]);
            }
            poly.clear();
            for (std::size_t k = 0; k < 3; ++k) {
                ClipVertex v;
                v.x = triangles[i + k].x, v.y = triangles[i + k].y, v.h = scene.originHeight;
                poly.push_back(v);
            }
            emit.polygon(poly);
        }
        return out;
    }
    const std::uint32_t* idx = ground->mesh.indices.data();
    MeshBuckets buckets(*ground);
    std::vector<std::uint32_t> candidates;
    for (std::uint32_t i = 0; i + 2 < triangles.size(); i += 3) {
        const Vec2 a = triangles[i], b = triangles[i + 1], c = triangles[i + 2];
        if (withUv) emit.setSource(a, b, c, roadUv[i], roadUv[i + 1], roadUv[i + 2]);
        buckets.candidates({std::min({a.x, b.x, c.x}), std::min({a.y, b.y, c.y})},
                           {std::max({a.x, b.x, c.x}), std::max({a.y, b.y, c.y})}, i, candidates);
        for (const std::uint32_t t : candidates) {
            const MeshTriangle m = meshTriangle(*ground, idx, t);
            const ClipVertex(&g)[3] = m.g;
            const Vec2(&p)[3] = m.p;
            const double area = m.area;
            if (area == 0.0) continue;
            const double sign = area > 0 ? 1.0 : -1.0;
            poly.clear();
            for (const Vec2& v : {a, b, c}) {
                ClipVertex cv;
                cv.x = v.x, cv.y = v.y;
                poly.push_back(cv);
            }
            for (int e = 0; e < 3 && poly.size() >= 3; ++e) {
                clipLine(poly, p[e], p[(e + 1) % 3], sign, scratch);
                std::swap(poly, scratch);
            }
            if (poly.size() < 3) continue;
            // The piece lies in the ground triangle's plane: heights and normals by barycentric
            // weights.
            for (ClipVertex& v : poly) {
                const Vec2 q{v.x, v.y};
                const double w0 = cross(p[1] - q, p[2] - q) / area;
                const double w1 = cross(p[2] - q, p[0] - q) / area;
                const double w2 = 1.0 - w0 - w1;
                v.h = w0 * g[0].h + w1 * g[1].h + w2 * g[2].h;
                v.nx = w0 * g[0].nx + w1 * g[1].nx + w2 * g[2].nx;
                v.ny = w0 * g[0].ny + w1 * g[1].ny + w2 * g[2].ny;
                v.nz = w0 * g[0].nz + w1 * g[1].nz + w2 * g[2].nz;
            }
            emit.polygon(poly);
        }
    }
    return out;
}

namespace {

/// The edges of `triangles` no other of them shares, each as (a, b) in its triangle's turn with
/// c, the triangle's third corner; but those lying on the tile's border.
struct OutlineEdge {
    Vec2 a, b, c;
};
std::vector<OutlineEdge> outlineEdges(std::span<const Vec2> triangles) {
    struct Use {
        OutlineEdge edge;
        std::array<double, 4> key;  ///< the ends in a fixed order
    };
    std::vector<Use> uses;
    for (std::size_t i = 0; i + 2 < triangles.size(); i += 3) {
        for (std::size_t k = 0; k < 3; ++k) {
            const Vec2 a = triangles[i + k], b = triangles[i + (k + 1) % 3], c = triangles[i + (k + 2) % 3];
            const bool forward = a.x < b.x || (a.x == b.x && a.y < b.y);
            const Vec2 lo = forward ? a : b, hi = forward ? b : a;
            uses.push_back({{a, b, c}, {lo.x, lo.y, hi.x, hi.y}});
        }
    }
    std::sort(uses.begin(), uses.end(), [](const Use& x, const Use& y) { return x.key < y.key; });
    const auto onBorder = [](Vec2 a, Vec2 b) {
        for (const double edge : {0.0, double(kTileCells)}) {
            if ((a.x == edge && b.x == edge) || (a.y == edge && b.y == edge)) return true;
        }
        return false;
    };
    std::vector<OutlineEdge> out;
    for (std::size_t i = 0; i < uses.size();) {
        std::size_t j = i;
        while (j < uses.size() && uses[j].key == uses[i].key) ++j;
        const OutlineEdge& e = uses[i].edge;
        if (j - i == 1 && !(e.a == e.b) && !onBorder(e.a, e.b)) out.push_back(e);
        i = j;
    }
    return out;
}

}  // namespace

GroundTriangles drapeWalls(const Scene& scene, const TileId& tile, const GroundTile* ground,
                           std::span<const Vec2> triangles, float bottom, float top) {
    GroundTriangles out;
    if (ground && ground->mesh.empty()) ground = nullptr;
    const std::vector<OutlineEdge> edges = outlineEdges(triangles);
    if (edges.empty()) return out;
    std::optional<MeshBuckets> buckets;
    if (ground) buckets.emplace(*ground);
    const std::uint32_t* idx = ground ? ground->mesh.indices.data() : nullptr;
    std::vector<std::uint32_t> candidates;
    std::uint32_t query = 0;
    // A wall piece from p to q (cells) on ground heights hp, hq above the datum.
    const auto piece = [&](Vec2 p, Vec2 q, double hp, double hq, Vec2 outward) {
        const Vec3f corners[4] = {groundVertexPosition(scene, tile, p.x, p.y, hp + bottom),
                                  groundVertexPosition(scene, tile, q.x, q.y, hq + bottom),
                                  groundVertexPosition(scene, tile, q.x, q.y, hq + top),
                                  groundVertexPosition(scene, tile, p.x, p.y, hp + top)};
        // Scene x is east and z south, as the cells' x and y.
        const double len = length(outward);
        const float nx = static_cast<float>(outward.x / len), nz = static_cast<float>(outward.y / len);
        const auto first = static_cast<std::uint32_t>(out.positions.size() / 3);
        const Vec2 at[4] = {p, q, q, p};
        for (std::size_t k = 0; k < 4; ++k) {
            out.positions.insert(out.positions.end(), {corners[k].x, corners[k].y, corners[k].z});
            out.normals.insert(out.normals.end(), {nx, 0.0f, nz});
            out.cells.insert(out.cells.end(), {static_cast<float>(at[k].x), static_cast<float>(at[k].y)});
        }
        // Front faces counter-clockwise seen from outside: the turn of (0, 1, 2) about the
        // outward normal decides.
        const Vec3f e1{corners[1].x - corners[0].x, corners[1].y - corners[0].y, corners[1].z - corners[0].z};
        const Vec3f e2{corners[2].x - corners[0].x, corners[2].y - corners[0].y, corners[2].z - corners[0].z};
        const double facing = (e1.y * e2.z - e1.z * e2.y) * nx + (e1.x * e2.y - e1.y * e2.x) * nz;
        const std::array<std::uint32_t, 6> order = facing > 0 ? std::array<std::uint32_t, 6>{0, 1, 2, 0, 2, 3}
                                                              : std::array<std::uint32_t, 6>{0, 2, 1, 0, 3, 2};
        for (const std::uint32_t k : order) out.indices.push_back(first + k);
    };
    for (const OutlineEdge& e : edges) {
        // Away from the third corner.
        Vec2 outward{e.b.y - e.a.y, e.a.x - e.b.x};
        if (dot(outward, e.c - e.a) > 0) outward = Vec2{} - outward;
        if (!ground) {
            piece(e.a, e.b, scene.originHeight, scene.originHeight, outward);
            continue;
        }
        // On terrain: the edge in pieces, one per mesh triangle it crosses, heights in its plane.
        buckets->candidates({std::min(e.a.x, e.b.x), std::min(e.a.y, e.b.y)},
                            {std::max(e.a.x, e.b.x), std::max(e.a.y, e.b.y)}, query++, candidates);
        for (const std::uint32_t t : candidates) {
            const MeshTriangle m = meshTriangle(*ground, idx, t);
            const ClipVertex(&g)[3] = m.g;
            const Vec2(&v)[3] = m.p;
            const double area = m.area;
            if (area == 0.0) continue;
            // The part of a + (b − a) s, s in [0, 1], on the inner side of every edge.
            double s0 = 0.0, s1 = 1.0;
            for (int k = 0; k < 3 && s0 < s1; ++k) {
                const Vec2 p = v[k], q = v[(k + 1) % 3];
                const double fa = cross(q - p, e.a - p) * area, fb = cross(q - p, e.b - p) * area;
                if (fa < 0 && fb < 0)
                    s1 = -1.0;
                else if (fa < 0)
                    s0 = std::max(s0, fa / (fa - fb));
                else if (fb < 0)
                    s1 = std::min(s1, fa / (fa - fb));
            }
            if (!(s1 - s0 > 1e-9)) continue;
            const auto heightAt = [&](Vec2 x) {
                const double w0 = cross(v[1] - x, v[2] - x) / area, w1 = cross(v[2] - x, v[0] - x) / area;
                return w0 * g[0].h + w1 * g[1].h + (1.0 - w0 - w1) * g[2].h;
            };
            const Vec2 p = e.a + (e.b - e.a) * s0, q = e.a + (e.b - e.a) * s1;
            piece(p, q, heightAt(p), heightAt(q), outward);
        }
    }
    return out;
}

std::vector<float> surfaceTextureCoordinates(std::span<const float> positions, std::span<const float> roadUv,
                                             double repeatMetres) {
    const std::size_t count = positions.size() / 3;
    std::vector<float> uv(count * 2);
    const bool road = roadUv.size() == uv.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (road && std::isfinite(roadUv[i * 2]) && std::isfinite(roadUv[i * 2 + 1])) {
            uv[i * 2] = static_cast<float>(roadUv[i * 2] / repeatMetres);
            uv[i * 2 + 1] = static_cast<float>(roadUv[i * 2 + 1] / repeatMetres);
        } else {
            uv[i * 2] = static_cast<float>(positions[i * 3] / repeatMetres);
            uv[i * 2 + 1] = static_cast<float>(positions[i * 3 + 2] / repeatMetres);
        }
    }
    return uv;
}

double groundMeshHeight(const terrain::GroundMesh& mesh, Vec2 cell) {
    const auto& idx = mesh.indices;
    const auto& vs = mesh.vertices;
    for (std::size_t t = 0; t + 2 < idx.size(); t += 3) {
        const GroundVertex& a = vs[idx[t]];
        const GroundVertex& b = vs[idx[t + 1]];
        const GroundVertex& c = vs[idx[t + 2]];
        const double ax = a.column, ay = a.row, bx = b.column, by = b.row, cx = c.column, cy = c.row;
        const double d = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy);
        if (d == 0) continue;
        const double l0 = ((by - cy) * (cell.x - cx) + (cx - bx) * (cell.y - cy)) / d;
        const double l1 = ((cy - ay) * (cell.x - cx) + (ax - cx) * (cell.y - cy)) / d;
        const double l2 = 1.0 - l0 - l1;
        constexpr double kEps = -1e-9;
        if (l0 >= kEps && l1 >= kEps && l2 >= kEps) {
            return l0 * a.height + l1 * b.height + l2 * c.height;
        }
    }
    return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace terrabit::core
