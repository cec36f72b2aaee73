#include "terrabit/core/assets/mesh_builder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>
#include <utility>

namespace terrabit::core {

double snapToMeshGrid(double metres) {
    constexpr double kGrid = 4096.0;
    return std::round(metres * kGrid) / kGrid;
}

namespace {

/// A byte's linear value, looked up: three pow() calls a vertex were a tenth of encoding a
/// region's generated buildings. The table holds srgbToLinear's own results.
float toLinear(std::uint8_t c) {
    static const std::array<float, 256> kTable = [] {
        std::array<float, 256> t{};
        for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(srgbToLinear(double(i) / 255.0));
        return t;
    }();
    return kTable[c];
}

// Shoelace area in (x, z); negative for polygons counter-clockwise seen from above.
double signedAreaXZ(std::span<const Vec3> poly) {
    double a = 0.0;
    for (std::size_t i = 0; i < poly.size(); ++i) {
        const Vec3& p = poly[i];
        const Vec3& q = poly[(i + 1) % poly.size()];
        a += p.x * q.z - q.x * p.z;
    }
    return 0.5 * a;
}

// Twice the signed area of triangle (a, b, c) in (x, z), same sign convention as above.
double orientXZ(Vec3 a, Vec3 b, Vec3 c) { return (b.x - a.x) * (c.z - a.z) - (c.x - a.x) * (b.z - a.z); }

bool insideTriangleXZ(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
    // Points on an edge count as inside so that collinear vertices never make a bad ear.
    const double d1 = orientXZ(a, b, p);
    const double d2 = orientXZ(b, c, p);
    const double d3 = orientXZ(c, a, p);
    const bool hasNeg = d1 < 0 || d2 < 0 || d3 < 0;
    const bool hasPos = d1 > 0 || d2 > 0 || d3 > 0;
    return !(hasNeg && hasPos);
}

}  // namespace

Vec3 normalized(Vec3 v) {
    const double len = std::sqrt(dot(v, v));
    return len > 0.0 ? v * (1.0 / len) : v;
}

Rgb mix(Rgb a, Rgb b, double t) {
    t = std::clamp(t, 0.0, 1.0);
    auto channel = [t](std::uint8_t x, std::uint8_t y) {
        return static_cast<std::uint8_t>(std::lround(x + (static_cast<double>(y) - x) * t));
    };
    return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b)};
}

Affine Affine::operator*(const Affine& o) const {
    Affine r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
            double s = (j == 3) ? m[i][3] : 0.0;
            for (int k = 0; k < 3; ++k) s += m[i][k] * o.m[k][j];
            r.m[i][j] = s;
        }
    }
    return r;
}

Affine Affine::translation(Vec3 t) {
    Affine a;
    a.m[0][3] = t.x;
    a.m[1][3] = t.y;
    a.m[2][3] = t.z;
    return a;
}

Affine Affine::rotationY(double radians) {
    // Counter-clockwise seen from above takes +X towards -Z, the right-hand rule about +Y.
    const double c = std::cos(radians);
    const double s = std::sin(radians);
    Affine a;
    a.m[0][0] = c;
    a.m[0][2] = s;
    a.m[2][0] = -s;
    a.m[2][2] = c;
    return a;
}

Affine Affine::rotationX(double radians) {
    const double c = std::cos(radians);
    const double s = std::sin(radians);
    Affine a;
    a.m[1][1] = c;
    a.m[1][2] = -s;
    a.m[2][1] = s;
    a.m[2][2] = c;
    return a;
}

Affine Affine::rotationZ(double radians) {
    const double c = std::cos(radians);
    const double s = std::sin(radians);
    Affine a;
    a.m[0][0] = c;
    a.m[0][1] = -s;
    a.m[1][0] = s;
    a.m[1][1] = c;
    return a;
}

Affine Affine::scale(Vec3 s) {
    Affine a;
    a.m[0][0] = s.x;
    a.m[1][1] = s.y;
    a.m[2][2] = s.z;
    return a;
}

std::uint64_t SeededRandom::next() {
    std::uint64_t z = (mState += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double SeededRandom::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

Vec3 MeshBuilder::place(Vec3 p) const {
    const Vec3 q = mTransform.apply(p);
    return {snapToMeshGrid(q.x), snapToMeshGrid(q.y), snapToMeshGrid(q.z)};
}

std::uint32_t MeshBuilder::addVertex(Vec3 p, Vec3 n, Rgb c) {
    const auto index = static_cast<std::uint32_t>(mMesh.vertexCount());
    mMesh.positions.insert(mMesh.positions.end(),
                           {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)});
    mMesh.normals.insert(mMesh.normals.end(),
                         {static_cast<float>(n.x), static_cast<float>(n.y), static_cast<float>(n.z)});
    mMesh.colours.insert(mMesh.colours.end(), {toLinear(c.r), toLinear(c.g), toLinear(c.b), 1.0f});
    return index;
}

void MeshBuilder::addTriangle(Vec3 a, Vec3 b, Vec3 c) { addTriangle(a, b, c, mColour, mColour, mColour); }

void MeshBuilder::addTriangle(Vec3 a, Vec3 b, Vec3 c, Rgb ca, Rgb cb, Rgb cc) {
    const Vec3 pa = place(a);
    const Vec3 pb = place(b);
    const Vec3 pc = place(c);
    const Vec3 n = cross(pb - pa, pc - pa);
    // Below ~1 mm² the face is invisible and its normal meaningless.
    if (dot(n, n) < 1e-12) return;
    const Vec3 unit = normalized(n);
    const std::uint32_t ia = addVertex(pa, unit, ca);
    const std::uint32_t ib = addVertex(pb, unit, cb);
    const std::uint32_t ic = addVertex(pc, unit, cc);
    mMesh.indices.insert(mMesh.indices.end(), {ia, ib, ic});
}

void MeshBuilder::addQuad(Vec3 a, Vec3 b, Vec3 c, Vec3 d) {
    const std::array<Vec3, 4> pts{a, b, c, d};
    addConvexPolygon(pts);
}

void MeshBuilder::addConvexPolygon(std::span<const Vec3> points) {
    if (points.size() < 3) return;
    std::array<Vec3, 64> placedStorage;
    std::vector<Vec3> placedHeap;
    Vec3* placed = placedStorage.data();
    if (points.size() > placedStorage.size()) {
        placedHeap.resize(points.size());
        placed = placedHeap.data();
    }
    // Newell's normal is robust when the first corners are collinear or coincide (a quad whose
    // top edge shrank to a point, as at a cone's tip).
    Vec3 normal;
    for (std::size_t i = 0; i < points.size(); ++i) placed[i] = place(points[i]);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Vec3& p = placed[i];
        const Vec3& q = placed[(i + 1) % points.size()];
        normal = normal + Vec3{(p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x), (p.x - q.x) * (p.y + q.y)};
    }
    if (dot(normal, normal) < 1e-12) return;
    const Vec3 unit = normalized(normal);
    // A warped polygon (a roof quad with one corner lifted) has no single normal: its fan
    // triangles are emitted on their own, each with its own flat normal.
    for (std::size_t i = 1; i + 1 < points.size(); ++i) {
        const Vec3 n = cross(placed[i] - placed[0], placed[i + 1] - placed[0]);
        if (dot(n, n) < 1e-12) continue;
        if (dot(normalized(n), unit) < 0.99999) {
            const Rgb c = mColour;
            for (std::size_t k = 1; k + 1 < points.size(); ++k) {
                // Through addTriangle, whose positions are placed again: undo by emitting the
                // already placed corners with an identity transform.
                const Affine saved = mTransform;
                mTransform = Affine{};
                addTriangle(placed[0], placed[k], placed[k + 1], c, c, c);
                mTransform = saved;
            }
            return;
        }
    }
    const auto first = static_cast<std::uint32_t>(mMesh.vertexCount());
    for (std::size_t i = 0; i < points.size(); ++i) addVertex(placed[i], unit, mColour);
    for (std::size_t i = 1; i + 1 < points.size(); ++i) {
        const Vec3 n = cross(placed[i] - placed[0], placed[i + 1] - placed[0]);
        if (dot(n, n) < 1e-12) continue;
        mMesh.indices.insert(mMesh.indices.end(),
                             {first, first + static_cast<std::uint32_t>(i), first + static_cast<std::uint32_t>(i + 1)});
    }
}

void MeshBuilder::addDoubleSidedQuad(Vec3 a, Vec3 b, Vec3 c, Vec3 d) {
    addQuad(a, b, c, d);
    addQuad(d, c, b, a);
}

void MeshBuilder::addDoubleSidedTriangle(Vec3 a, Vec3 b, Vec3 c) {
    addTriangle(a, b, c);
    addTriangle(c, b, a);
}

void MeshBuilder::addBox(Vec3 lo, Vec3 hi, bool bottom) {
    const std::array<Vec3, 4> base{Vec3{lo.x, 0, lo.z}, Vec3{lo.x, 0, hi.z}, Vec3{hi.x, 0, hi.z}, Vec3{hi.x, 0, lo.z}};
    addWalls(base, lo.y, hi.y);
    addFlatCap(base, hi.y, false);
    if (bottom) addFlatCap(base, lo.y, true);
}

void MeshBuilder::addWalls(std::span<const Vec3> polygon, double y0, double y1) {
    const std::size_t n = polygon.size();
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3& p = polygon[i];
        const Vec3& q = polygon[(i + 1) % n];
        addQuad({p.x, y0, p.z}, {q.x, y0, q.z}, {q.x, y1, q.z}, {p.x, y1, p.z});
    }
}

void MeshBuilder::addFlatCap(std::span<const Vec3> polygon, double y, bool down) {
    const std::size_t n = polygon.size();
    if (n < 3) return;
    // Ear clipping on a counter-clockwise (seen from above) copy; O(n²), fine for the tens of
    // corners a building outline has.
    std::vector<Vec3> ring(polygon.begin(), polygon.end());
    if (signedAreaXZ(ring) > 0) std::reverse(ring.begin(), ring.end());
    std::vector<std::array<Vec3, 3>> triangles;
    std::size_t guard = 0;
    while (ring.size() > 3 && guard++ < n * n) {
        bool clipped = false;
        for (std::size_t i = 0; i < ring.size(); ++i) {
            const Vec3& a = ring[(i + ring.size() - 1) % ring.size()];
            const Vec3& b = ring[i];
            const Vec3& c = ring[(i + 1) % ring.size()];
            if (orientXZ(a, b, c) >= 0) continue;  // reflex or straight: not an ear
            bool empty = true;
            for (std::size_t j = 0; j < ring.size() && empty; ++j) {
                const Vec3& p = ring[j];
                if (p == a || p == b || p == c) continue;
                if (insideTriangleXZ(p, a, b, c)) empty = false;
            }
            if (!empty) continue;
            triangles.push_back({a, b, c});
            ring.erase(ring.begin() + static_cast<std::ptrdiff_t>(i));
            clipped = true;
            break;
        }
        if (!clipped) break;  // degenerate outline: emit what is left as a fan below
    }
    if (ring.size() >= 3) {
        for (std::size_t i = 1; i + 1 < ring.size(); ++i) triangles.push_back({ring[0], ring[i], ring[i + 1]});
    }
    for (const auto& t : triangles) {
        const Vec3 a{t[0].x, y, t[0].z};
        const Vec3 b{t[1].x, y, t[1].z};
        const Vec3 c{t[2].x, y, t[2].z};
        if (down) {
            addTriangle(c, b, a);
        } else {
            addTriangle(a, b, c);
        }
    }
}

void MeshBuilder::addPrism(std::span<const Vec3> polygon, double y0, double y1) {
    addWalls(polygon, y0, y1);
    addFlatCap(polygon, y1, false);
}

void MeshBuilder::addGableRoof(double x0, double x1, double z0, double z1, double base, double rise, bool ridgeAlongX,
                               double overhang, Rgb gableColour) {
    // Built along X around the origin, then turned and moved into place by the transform.
    const Affine saved = mTransform;
    const Vec3 centre{(x0 + x1) * 0.5, 0.0, (z0 + z1) * 0.5};
    double length = x1 - x0;
    double span = z1 - z0;
    Affine local = Affine::translation(centre);
    if (!ridgeAlongX) {
        std::swap(length, span);
        local = local * Affine::rotationY(std::numbers::pi / 2);
    }
    mTransform = saved * local;
    const double hx = length * 0.5;
    const double hz = span * 0.5;
    const double ridge = base + rise;
    // The slopes run on past the walls, so the eave sits lower than the wall top.
    const double eave = base - rise * overhang / hz;
    const double ox = hx + overhang;
    const double oz = hz + overhang;
    const Rgb slope = mColour;
    // Outside of the slopes, then their undersides a shade darker.
    addQuad({-ox, eave, oz}, {ox, eave, oz}, {ox, ridge, 0}, {-ox, ridge, 0});
    addQuad({ox, eave, -oz}, {-ox, eave, -oz}, {-ox, ridge, 0}, {ox, ridge, 0});
    mColour = mix(slope, Rgb{0, 0, 0}, 0.45);
    addQuad({-ox, ridge, 0}, {ox, ridge, 0}, {ox, eave, oz}, {-ox, eave, oz});
    addQuad({ox, ridge, 0}, {-ox, ridge, 0}, {-ox, eave, -oz}, {ox, eave, -oz});
    mColour = gableColour;
    addTriangle({-hx, base, -hz}, {-hx, base, hz}, {-hx, ridge, 0});
    addTriangle({hx, base, hz}, {hx, base, -hz}, {hx, ridge, 0});
    mColour = slope;
    mTransform = saved;
}

void MeshBuilder::addHipRoof(double x0, double x1, double z0, double z1, double base, double rise, double overhang) {
    const Affine saved = mTransform;
    const Vec3 centre{(x0 + x1) * 0.5, 0.0, (z0 + z1) * 0.5};
    double length = x1 - x0;
    double span = z1 - z0;
    Affine local = Affine::translation(centre);
    if (span > length) {
        std::swap(length, span);
        local = local * Affine::rotationY(std::numbers::pi / 2);
    }
    mTransform = saved * local;
    const double hz = span * 0.5;
    const double r = (length - span) * 0.5;
    const double ridge = base + rise;
    const double eave = base - rise * overhang / hz;
    const double ox = length * 0.5 + overhang;
    const double oz = hz + overhang;
    addQuad({-ox, eave, oz}, {ox, eave, oz}, {r, ridge, 0}, {-r, ridge, 0});
    addQuad({ox, eave, -oz}, {-ox, eave, -oz}, {-r, ridge, 0}, {r, ridge, 0});
    addTriangle({ox, eave, oz}, {ox, eave, -oz}, {r, ridge, 0});
    addTriangle({-ox, eave, -oz}, {-ox, eave, oz}, {-r, ridge, 0});
    const Rgb slope = mColour;
    mColour = mix(slope, Rgb{0, 0, 0}, 0.45);
    const std::array<Vec3, 4> soffit{Vec3{-ox, 0, -oz}, Vec3{-ox, 0, oz}, Vec3{ox, 0, oz}, Vec3{ox, 0, -oz}};
    addFlatCap(soffit, eave, true);
    mColour = slope;
    mTransform = saved;
}

void MeshBuilder::addFrustum(double cx, double cz, double y0, double y1, double r0, double r1, int segments,
                             bool capBottom, bool capTop, double phase) {
    segments = std::max(segments, 3);
    std::vector<Vec3> bottom(static_cast<std::size_t>(segments));
    std::vector<Vec3> top(static_cast<std::size_t>(segments));
    for (int i = 0; i < segments; ++i) {
        const double a = phase + 2.0 * std::numbers::pi * i / segments;
        // Increasing angle walks counter-clockwise seen from above: +X towards -Z.
        bottom[static_cast<std::size_t>(i)] = {cx + r0 * std::cos(a), y0, cz - r0 * std::sin(a)};
        top[static_cast<std::size_t>(i)] = {cx + r1 * std::cos(a), y1, cz - r1 * std::sin(a)};
    }
    for (int i = 0; i < segments; ++i) {
        const auto j = static_cast<std::size_t>((i + 1) % segments);
        const auto k = static_cast<std::size_t>(i);
        addQuad(bottom[k], bottom[j], top[j], top[k]);
    }
    if (capTop && r1 > 0) addConvexPolygon(top);
    if (capBottom && r0 > 0) {
        std::reverse(bottom.begin(), bottom.end());
        addConvexPolygon(bottom);
    }
}

void MeshBuilder::addFrustumBetween(Vec3 base, Vec3 tip, double r0, double r1, int segments, bool capTop) {
    const Vec3 axis = tip - base;
    const double length = std::sqrt(dot(axis, axis));
    if (length <= 0.0) return;
    const Vec3 up = axis * (1.0 / length);
    // Any vector not parallel to the axis gives the ring's frame; (u, up, w) is right-handed
    // like (x, y, z), so the frustum's faces keep facing outwards.
    const Vec3 helper = std::abs(up.y) < 0.9 ? Vec3{0, 1, 0} : Vec3{1, 0, 0};
    const Vec3 u = normalized(cross(up, helper));
    const Vec3 w = cross(u, up);
    Affine frame;
    frame.m[0][0] = u.x;
    frame.m[1][0] = u.y;
    frame.m[2][0] = u.z;
    frame.m[0][1] = up.x;
    frame.m[1][1] = up.y;
    frame.m[2][1] = up.z;
    frame.m[0][2] = w.x;
    frame.m[1][2] = w.y;
    frame.m[2][2] = w.z;
    frame.m[0][3] = base.x;
    frame.m[1][3] = base.y;
    frame.m[2][3] = base.z;
    const Affine saved = mTransform;
    mTransform = saved * frame;
    addFrustum(0, 0, 0, length, r0, r1, segments, false, capTop);
    mTransform = saved;
}

void MeshBuilder::addBlob(Vec3 centre, Vec3 radii, int subdivisions, double jitter, double colourJitter,
                          SeededRandom& random) {
    // Icosahedron, then each subdivision splits every face in four (midpoints shared through
    // a map so neighbouring faces get the same jittered vertex and the blob stays closed).
    const double t = (1.0 + std::sqrt(5.0)) / 2.0;
    std::vector<Vec3> v{{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
                        {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
    for (Vec3& p : v) p = normalized(p);
    std::vector<std::array<std::uint32_t, 3>> faces{{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                                    {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                                    {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                                    {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    for (int s = 0; s < subdivisions; ++s) {
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> midpoints;
        auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
            const auto key = std::minmax(a, b);
            const auto it = midpoints.find(key);
            if (it != midpoints.end()) return it->second;
            v.push_back(normalized((v[a] + v[b]) * 0.5));
            const auto index = static_cast<std::uint32_t>(v.size() - 1);
            midpoints.emplace(key, index);
            return index;
        };
        std::vector<std::array<std::uint32_t, 3>> next;
        next.reserve(faces.size() * 4);
        for (const auto& f : faces) {
            const std::uint32_t ab = midpoint(f[0], f[1]);
            const std::uint32_t bc = midpoint(f[1], f[2]);
            const std::uint32_t ca = midpoint(f[2], f[0]);
            next.push_back({f[0], ab, ca});
            next.push_back({f[1], bc, ab});
            next.push_back({f[2], ca, bc});
            next.push_back({ab, bc, ca});
        }
        faces = std::move(next);
    }
    for (Vec3& p : v) {
        const double k = 1.0 + jitter * random.uniform(-1.0, 1.0);
        p = centre + Vec3{p.x * radii.x * k, p.y * radii.y * k, p.z * radii.z * k};
    }
    const Rgb base = mColour;
    for (const auto& f : faces) {
        const double shade = random.uniform(-colourJitter, colourJitter);
        mColour = shade < 0 ? mix(base, Rgb{0, 0, 0}, -shade) : mix(base, Rgb{255, 255, 255}, shade);
        const Vec3 a = v[f[0]];
        const Vec3 b = v[f[1]];
        const Vec3 c = v[f[2]];
        // The listed faces are wound one way; check against the centre rather than trust it.
        const Vec3 n = cross(b - a, c - a);
        if (dot(n, (a + b + c) * (1.0 / 3.0) - centre) >= 0) {
            addTriangle(a, b, c);
        } else {
            addTriangle(a, c, b);
        }
    }
    mColour = base;
}

void MeshBuilder::addPanel(const Facade& f, double u0, double v0, double u1, double v1) {
    addQuad(f.at(u0, v0, kPanelOffset), f.at(u1, v0, kPanelOffset), f.at(u1, v1, kPanelOffset),
            f.at(u0, v1, kPanelOffset));
}

void MeshBuilder::addWindowRow(const Facade& f, double v, double w, double h, int count, double margin) {
    if (count <= 0) return;
    const double usable = f.width - 2.0 * margin;
    const double step = usable / count;
    for (int i = 0; i < count; ++i) {
        const double centre = margin + step * (i + 0.5);
        addPanel(f, centre - w * 0.5, v, centre + w * 0.5, v + h);
    }
}

AssetMesh MeshBuilder::take() {
    AssetMesh out = std::move(mMesh);
    mMesh = AssetMesh{};
    return out;
}

}  // namespace terrabit::core
