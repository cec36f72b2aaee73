#include "terrabit/core/scene/bridge_deck.h"

#include <algorithm>
#include <cmath>

namespace terrabit::core {

namespace {

Vec3f sub(Vec3f a, Vec3f b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3f cross(Vec3f a, Vec3f b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
float dot(Vec3f a, Vec3f b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/// The quad a-b-c-d as a face whose normal points along `outward`: the corners turned round
/// when they wind the other way. A degenerate quad is left out.
void addFace(std::vector<PlinthFace>& out, Vec3f a, Vec3f b, Vec3f c, Vec3f d, Vec3f outward) {
    Vec3f n = cross(sub(b, a), sub(d, a));
    if (dot(n, n) < 1e-12f) n = cross(sub(c, b), sub(a, b));
    const float length = std::sqrt(dot(n, n));
    if (!(length > 1e-6f)) return;
    n = {n.x / length, n.y / length, n.z / length};
    if (dot(n, outward) < 0.0f) {
        out.push_back({{a, d, c, b}, {-n.x, -n.y, -n.z}});
    } else {
        out.push_back({{a, b, c, d}, n});
    }
}

}  // namespace

std::vector<PlinthFace> bridgeDeckFaces(const BridgeDeck& deck) {
    std::vector<PlinthFace> faces;
    const std::vector<Vec3f>& p = deck.centreline;
    if (p.size() < 2 || !(deck.width > 0.0f)) return faces;
    const float half = 0.5f * deck.width;
    // Per point, the horizontal offset to the deck's left edge (seen along the deck): the mean
    // of the neighbouring pieces' left normals, lengthened to keep the width at a bend (at most
    // twice, so a hairpin does not spike).
    std::vector<Vec3f> left(p.size());
    const auto leftOf = [&](std::size_t i) -> Vec3f {
        const float dx = p[i + 1].x - p[i].x, dz = p[i + 1].z - p[i].z;
        const float l = std::hypot(dx, dz);
        return l > 0.0f ? Vec3f{dz / l, 0.0f, -dx / l} : Vec3f{};
    };
    for (std::size_t i = 0; i < p.size(); ++i) {
        const Vec3f a = i > 0 ? leftOf(i - 1) : leftOf(i);
        const Vec3f b = i + 1 < p.size() ? leftOf(i) : leftOf(i - 1);
        Vec3f m{a.x + b.x, 0.0f, a.z + b.z};
        const float l = std::hypot(m.x, m.z);
        if (l < 1e-6f) {
            m = a;
        } else {
            const float cosHalf = std::max(0.5f, dot(m, a) / l);
            m = {m.x / l / cosHalf, 0.0f, m.z / l / cosHalf};
        }
        left[i] = {m.x * half, 0.0f, m.z * half};
    }
    const Vec3f down{0.0f, -kBridgeDeckThicknessMetres, 0.0f};
    const auto plus = [](Vec3f a, Vec3f b) { return Vec3f{a.x + b.x, a.y + b.y, a.z + b.z}; };
    for (std::size_t i = 0; i + 1 < p.size(); ++i) {
        const Vec3f l0 = plus(p[i], left[i]), l1 = plus(p[i + 1], left[i + 1]);
        const Vec3f r0 = sub(p[i], left[i]), r1 = sub(p[i + 1], left[i + 1]);
        const Vec3f side = leftOf(i);
        addFace(faces, l0, r0, r1, l1, {0.0f, 1.0f, 0.0f});                                                   // top
        addFace(faces, plus(l0, down), plus(l1, down), plus(r1, down), plus(r0, down), {0.0f, -1.0f, 0.0f});  // bottom
        addFace(faces, l0, l1, plus(l1, down), plus(l0, down), side);                                         // left
        addFace(faces, r0, plus(r0, down), plus(r1, down), r1, {-side.x, 0.0f, -side.z});                     // right
    }
    // The ends' caps, facing away from the deck.
    const Vec3f first = sub(p[0], p[1]), last = sub(p.back(), p[p.size() - 2]);
    addFace(faces, plus(p[0], left[0]), plus(plus(p[0], left[0]), down), plus(sub(p[0], left[0]), down),
            sub(p[0], left[0]), {first.x, 0.0f, first.z});
    const std::size_t e = p.size() - 1;
    addFace(faces, plus(p[e], left[e]), sub(p[e], left[e]), plus(sub(p[e], left[e]), down),
            plus(plus(p[e], left[e]), down), {last.x, 0.0f, last.z});
    return faces;
}

}  // namespace terrabit::core
