// The default library's style kit: the façade and roof parts the default buildings and the
// generated buildings share (style_kit.h).

#include "terrabit/core/assets/style_kit.h"

#include <algorithm>
#include <cmath>

namespace terrabit::core::style {

Facade edgeFacade(Vec3 p, Vec3 q, double y0, double height) {
    const Vec3 d{q.x - p.x, 0, q.z - p.z};
    const double len = std::sqrt(d.x * d.x + d.z * d.z);
    Facade f;
    f.origin = {p.x, y0, p.z};
    f.right = d * (1.0 / len);
    f.out = {-f.right.z, 0, f.right.x};
    f.width = len;
    f.height = height;
    return f;
}

void addQuadFacing(MeshBuilder& b, Vec3 a, Vec3 c1, Vec3 c2, Vec3 d, Vec3 towards) {
    const Vec3 n = cross(c1 - a, c2 - a) + cross(c2 - a, d - a);
    if (dot(n, towards) >= 0) {
        b.addQuad(a, c1, c2, d);
    } else {
        b.addQuad(d, c2, c1, a);
    }
}

// A window: a frame panel and a glass pane just in front of it.
void window(MeshBuilder& b, const Facade& f, double uc, double v0, double w, double h, Rgb frame, Rgb glass) {
    const double o = MeshBuilder::kPanelOffset;
    b.setColour(frame);
    b.addQuad(f.at(uc - w / 2, v0, o), f.at(uc + w / 2, v0, o), f.at(uc + w / 2, v0 + h, o),
              f.at(uc - w / 2, v0 + h, o));
    const double inset = std::min(0.08, w * 0.15);
    b.setColour(glass);
    b.addQuad(f.at(uc - w / 2 + inset, v0 + inset, 2 * o), f.at(uc + w / 2 - inset, v0 + inset, 2 * o),
              f.at(uc + w / 2 - inset, v0 + h - inset, 2 * o), f.at(uc - w / 2 + inset, v0 + h - inset, 2 * o));
}

// A plain panel (door, sign, band) `depth` metres in front of the wall.
void panel(MeshBuilder& b, const Facade& f, double u0, double v0, double u1, double v1, Rgb colour, double depth) {
    b.setColour(colour);
    b.addQuad(f.at(u0, v0, depth), f.at(u1, v0, depth), f.at(u1, v1, depth), f.at(u0, v1, depth));
}

// Windows evenly spread along a façade, one row per floor; `skipU` keeps a gap (a door) free on
// the ground floor.
void windowGrid(MeshBuilder& b, const Facade& f, int floors, double firstSill, double floorHeight, double w, double h,
                double spacing, Rgb frame, Rgb glass, double skipU, double skipHalfWidth) {
    const int count = std::max(1, static_cast<int>(std::floor((f.width - 0.6) / spacing)));
    const double step = f.width / count;
    for (int floor = 0; floor < floors; ++floor) {
        for (int i = 0; i < count; ++i) {
            const double uc = step * (i + 0.5);
            if (floor == 0 && skipU >= 0 && std::abs(uc - skipU) < skipHalfWidth + w / 2) continue;
            window(b, f, uc, firstSill + floor * floorHeight, w, h, frame, glass);
        }
    }
}

// Moves every vertex of the outline `t` metres inwards (mitred corners).
Outline inset(const Outline& poly, double t) {
    const std::size_t n = poly.size();
    Outline out(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3& prev = poly[(i + n - 1) % n];
        const Vec3& cur = poly[i];
        const Vec3& next = poly[(i + 1) % n];
        const Vec3 d1 = normalized(Vec3{cur.x - prev.x, 0, cur.z - prev.z});
        const Vec3 d2 = normalized(Vec3{next.x - cur.x, 0, next.z - cur.z});
        // Inward normal of an edge of a counter-clockwise outline: the outward one is (-dz, dx).
        const Vec3 n1{d1.z, 0, -d1.x};
        const Vec3 n2{d2.z, 0, -d2.x};
        const double k = 1.0 + dot(n1, n2);
        const Vec3 miter = (n1 + n2) * (t / k);
        out[i] = {cur.x + miter.x, 0, cur.z + miter.z};
    }
    return out;
}

Outline reversed(Outline p) {
    std::reverse(p.begin(), p.end());
    return p;
}

// The band between two outlines with matching corners, facing up at height y.
void ringCap(MeshBuilder& b, const Outline& outer, const Outline& inner, double y) {
    const std::size_t n = outer.size();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t j = (i + 1) % n;
        addQuadFacing(b, {outer[i].x, y, outer[i].z}, {outer[j].x, y, outer[j].z}, {inner[j].x, y, inner[j].z},
                      {inner[i].x, y, inner[i].z}, {0, 1, 0});
    }
}

// A flat roof at `y` with a parapet `h` high and `t` thick along a counter-clockwise outline.
void parapetRoof(MeshBuilder& b, const Outline& outline, double y, double h, double t, Rgb wall, Rgb roof) {
    const Outline in = inset(outline, t);
    b.setColour(wall);
    b.addWalls(outline, y, y + h);
    b.addWalls(reversed(in), y, y + h);
    ringCap(b, outline, in, y + h);
    b.setColour(roof);
    b.addFlatCap(in, y);
}

Outline rectangle(double x0, double x1, double z0, double z1) {
    return {{x0, 0, z0}, {x0, 0, z1}, {x1, 0, z1}, {x1, 0, z0}};
}

// The four façades of a rectangle's walls: front (+Z), right (+X), back (-Z), left (-X).
std::array<Facade, 4> boxFacades(double x0, double x1, double z0, double z1, double y0, double h) {
    return {edgeFacade({x0, 0, z1}, {x1, 0, z1}, y0, h), edgeFacade({x1, 0, z1}, {x1, 0, z0}, y0, h),
            edgeFacade({x1, 0, z0}, {x0, 0, z0}, y0, h), edgeFacade({x0, 0, z0}, {x0, 0, z1}, y0, h)};
}

}  // namespace terrabit::core::style
