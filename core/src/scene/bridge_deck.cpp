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

Vec3f plus(Vec3f a, Vec3f b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3f times(Vec3f a, float f) { return {a.x * f, a.y * f, a.z * f}; }

/// The horizontal unit normal to the left of the piece from point i to i + 1 (seen along it),
/// zero for a piece of no length.
Vec3f leftOf(const std::vector<Vec3f>& p, std::size_t i) {
    const float dx = p[i + 1].x - p[i].x, dz = p[i + 1].z - p[i].z;
    const float l = std::hypot(dx, dz);
    return l > 0.0f ? Vec3f{dz / l, 0.0f, -dx / l} : Vec3f{};
}

/// Per point, the horizontal offset to the deck's left edge (seen along the deck): the mean of
/// the neighbouring pieces' left normals, lengthened to keep the width at a bend (at most twice,
/// so a hairpin does not spike).
std::vector<Vec3f> leftEdgeOffsets(const std::vector<Vec3f>& p, float half) {
    std::vector<Vec3f> left(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
        const Vec3f a = i > 0 ? leftOf(p, i - 1) : leftOf(p, i);
        const Vec3f b = i + 1 < p.size() ? leftOf(p, i) : leftOf(p, i - 1);
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
    return left;
}

bool drawable(const BridgeDeck& deck) { return deck.centreline.size() >= 2 && deck.width > 0.0f; }

}  // namespace

std::vector<PlinthFace> bridgeDeckFaces(const BridgeDeck& deck) {
    std::vector<PlinthFace> faces;
    const std::vector<Vec3f>& p = deck.centreline;
    if (!drawable(deck)) return faces;
    const float half = 0.5f * deck.width;
    const std::vector<Vec3f> left = leftEdgeOffsets(p, half);
    const Vec3f down{0.0f, -kBridgeDeckThicknessMetres, 0.0f};
    for (std::size_t i = 0; i + 1 < p.size(); ++i) {
        const Vec3f l0 = plus(p[i], left[i]), l1 = plus(p[i + 1], left[i + 1]);
        const Vec3f r0 = sub(p[i], left[i]), r1 = sub(p[i + 1], left[i + 1]);
        const Vec3f side = leftOf(p, i);
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

std::vector<PlinthFace> bridgeRailingFaces(const BridgeDeck& deck) {
    std::vector<PlinthFace> faces;
    const std::vector<Vec3f>& p = deck.centreline;
    if (!drawable(deck) || deck.width < 2.0f * kBridgeRailingWidthMetres + 1.0f) return faces;
    const float half = 0.5f * deck.width;
    const std::vector<Vec3f> left = leftEdgeOffsets(p, half);
    // The inner edge lies on the same mitred offsets, shortened by the railing's width.
    const float inward = (half - kBridgeRailingWidthMetres) / half;
    const Vec3f up{0.0f, kBridgeRailingHeightMetres, 0.0f};
    const std::size_t e = p.size() - 1;
    const Vec3f first = sub(p[0], p[1]), last = sub(p[e], p[e - 1]);
    for (const float s : {1.0f, -1.0f}) {  // the left railing, then the right one
        const auto outer = [&](std::size_t i) { return plus(p[i], times(left[i], s)); };
        const auto inner = [&](std::size_t i) { return plus(p[i], times(left[i], s * inward)); };
        for (std::size_t i = 0; i < e; ++i) {
            const Vec3f away = times(leftOf(p, i), s);  // from the deck's middle towards this edge
            const Vec3f o0 = outer(i), o1 = outer(i + 1), i0 = inner(i), i1 = inner(i + 1);
            addFace(faces, o0, o1, plus(o1, up), plus(o0, up), away);
            addFace(faces, i0, plus(i0, up), plus(i1, up), i1, times(away, -1.0f));
            addFace(faces, plus(o0, up), plus(i0, up), plus(i1, up), plus(o1, up), {0.0f, 1.0f, 0.0f});
        }
        addFace(faces, outer(0), inner(0), plus(inner(0), up), plus(outer(0), up), {first.x, 0.0f, first.z});
        addFace(faces, outer(e), inner(e), plus(inner(e), up), plus(outer(e), up), {last.x, 0.0f, last.z});
    }
    return faces;
}

std::vector<PlinthFace> bridgeFaces(const BridgeDeck& deck) {
    std::vector<PlinthFace> faces = bridgeDeckFaces(deck);
    const std::vector<PlinthFace> railings = bridgeRailingFaces(deck);
    faces.insert(faces.end(), railings.begin(), railings.end());
    return faces;
}

}  // namespace terrabit::core
