#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <numbers>

#include "terrabit/core/scene/bridge_deck.h"
#include "terrabit/core/scene/scene.h"

using namespace terrabit::core;

namespace {
/// Applies a column-major 4×4 matrix to a point.
Vec3f transformPoint(const std::array<float, 16>& m, Vec3f p) {
    return {m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12], m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
            m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]};
}
/// Rotates a point by a unit quaternion (x, y, z, w).
Vec3f rotate(const std::array<float, 4>& q, Vec3f p) {
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    // v' = v + 2w (q × v) + 2 q × (q × v)
    const float cx = y * p.z - z * p.y, cy = z * p.x - x * p.z, cz = x * p.y - y * p.x;
    const float ccx = y * cz - z * cy, ccy = z * cx - x * cz, ccz = x * cy - y * cx;
    return {p.x + 2 * (w * cx + ccx), p.y + 2 * (w * cy + ccy), p.z + 2 * (w * cz + ccz)};
}
}  // namespace

TEST(Scene, GroundNorthIsMinusZ) {
    const Vec3f p = groundToScene({3.0, 5.0}, 2.0);
    EXPECT_EQ(p, (Vec3f{3.0f, 2.0f, -5.0f}));
}

TEST(Scene, QuarterTurnYawPointsTheModelWidthAxisNorth) {
    Instance i;
    i.yaw = static_cast<float>(std::numbers::pi / 2);
    const Vec3f east = transformPoint(transformMatrix(i), {1, 0, 0});
    EXPECT_NEAR(east.x, 0.0f, 1e-6f);
    EXPECT_NEAR(east.z, -1.0f, 1e-6f);  // north
}

TEST(Scene, MatrixAndQuaternionAgree) {
    for (float yaw : {0.0f, 0.3f, 1.0f, 2.5f, -1.2f}) {
        Instance i;
        i.yaw = yaw;
        i.scale = {2, 3, 4};
        i.position = {10, 1, -7};
        const Vec3f p{0.5f, 1.5f, -2.0f};
        const Vec3f viaMatrix = transformPoint(transformMatrix(i), p);
        const Vec3f r = rotate(rotationQuaternion(i), {p.x * 2, p.y * 3, p.z * 4});
        EXPECT_NEAR(viaMatrix.x, r.x + 10, 1e-5f);
        EXPECT_NEAR(viaMatrix.y, r.y + 1, 1e-5f);
        EXPECT_NEAR(viaMatrix.z, r.z - 7, 1e-5f);
    }
}

TEST(Scene, TheShortQuaternionTurnsAsTheFloatOneWithinTwoMillimetresAtFortyMetres) {
    // Every yaw around the circle, the decoded shorts (value / 32767, as glTF reads them).
    for (int k = -3600; k <= 3600; ++k) {
        Instance i;
        i.yaw = static_cast<float>(k * std::numbers::pi / 3600.0);
        const std::array<float, 4> q = rotationQuaternion(i);
        const std::array<std::int16_t, 4> s = rotationQuaternionSnorm16(i);
        std::array<float, 4> d{};
        for (std::size_t c = 0; c < 4; ++c) {
            d[c] = std::max(static_cast<float>(s[c]) / 32767.0f, -1.0f);
            ASSERT_LE(std::abs(d[c] - q[c]), 0.5f / 32767.0f) << "yaw " << i.yaw << " component " << c;
        }
        // The turn the decoded quaternion makes, against the yaw: each component within half a
        // step, so the half angle within √2 half steps, the angle within 0.000045 rad.
        const double angle = 2.0 * std::atan2(static_cast<double>(d[1]), static_cast<double>(d[3]));
        const double off = std::remainder(angle - static_cast<double>(i.yaw), 2.0 * std::numbers::pi);
        ASSERT_LE(std::abs(off), 4.5e-5) << "yaw " << i.yaw;
    }
}

TEST(Scene, InstanceCountSumsBlocks) {
    Scene s;
    s.blocks.resize(2);
    s.blocks[0].instances.resize(3);
    s.blocks[1].instances.resize(4);
    EXPECT_EQ(s.instanceCount(), 7u);
}

TEST(SharedVector, CopiesShareUntilOneIsChanged) {
    SharedVector<int> empty;
    EXPECT_TRUE(empty.empty());
    EXPECT_EQ(empty.capacityBytes(), 0u);
    EXPECT_FALSE(empty.sharesWith(SharedVector<int>{}));

    SharedVector<int> a = std::vector<int>{1, 2, 3};
    SharedVector<int> b = a;
    EXPECT_TRUE(b.sharesWith(a));
    EXPECT_EQ(b.data(), a.data()) << "a copy holds the same buffer";
    b.push_back(4);  // copies first: a is untouched
    EXPECT_FALSE(b.sharesWith(a));
    EXPECT_TRUE(a == (std::vector<int>{1, 2, 3}));
    EXPECT_TRUE(b == (std::vector<int>{1, 2, 3, 4}));
    const int* own = b.data();
    b.edit()[0] = 7;  // its own now: changed in place
    EXPECT_EQ(b.data(), own);
    EXPECT_EQ(b[0], 7);
    b.pop_back();
    EXPECT_TRUE(b == (std::vector<int>{7, 2, 3}));
    b.resize(2);
    b.shrink_to_fit();
    EXPECT_TRUE(b == (std::vector<int>{7, 2}));
    EXPECT_EQ(b.capacityBytes(), 2 * sizeof(int));
    b.clear();
    EXPECT_TRUE(b.empty());
    EXPECT_EQ(a.size(), 3u);
    // Equal elements are equal whether shared or not.
    EXPECT_TRUE(a == SharedVector<int>(std::vector<int>{1, 2, 3}));
    EXPECT_FALSE(a == SharedVector<int>(std::vector<int>{1, 2}));
}

TEST(Scene, APlinthsFacesCloseItsFootprintGrownByTheOutsetAndFaceOutwards) {
    Plinth p;
    p.box.centre = {100.0, -40.0};
    p.box.halfExtents = {6.0, 4.0};
    p.box.angle = 0.7;
    p.bottom = -3.0f;
    p.top = 2.5f;
    const std::array<PlinthFace, 5> faces = plinthFaces(p);
    const Vec3f centre = groundToScene(p.box.centre, 0.5 * (p.bottom + p.top));
    for (const PlinthFace& f : faces) {
        const Vec3f& a = f.corners[0];
        const Vec3f& b = f.corners[1];
        const Vec3f& c = f.corners[2];
        const Vec3f ab{b.x - a.x, b.y - a.y, b.z - a.z}, ac{c.x - a.x, c.y - a.y, c.z - a.z};
        // Counter-clockwise seen from outside: the winding's normal is the face's normal.
        const Vec3f n{ab.y * ac.z - ab.z * ac.y, ab.z * ac.x - ab.x * ac.z, ab.x * ac.y - ab.y * ac.x};
        const float len = std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
        ASSERT_GT(len, 0.0f);
        EXPECT_NEAR(n.x / len, f.normal.x, 1e-5f);
        EXPECT_NEAR(n.y / len, f.normal.y, 1e-5f);
        EXPECT_NEAR(n.z / len, f.normal.z, 1e-5f);
        // Outwards: from the box's centre to the face.
        EXPECT_GT((a.x - centre.x) * f.normal.x + (a.y - centre.y) * f.normal.y + (a.z - centre.z) * f.normal.z, 0.0f);
        for (const Vec3f& q : f.corners) {
            EXPECT_TRUE(q.y == p.bottom || q.y == p.top);
            // Every corner lies on the grown rectangle: |along| = half width + outset, or depth.
            const double dx = q.x - p.box.centre.x, dn = -q.z - p.box.centre.y;
            const double along = dx * std::cos(p.box.angle) + dn * std::sin(p.box.angle);
            const double across = -dx * std::sin(p.box.angle) + dn * std::cos(p.box.angle);
            EXPECT_NEAR(std::abs(along), 6.0 + kPlinthOutsetMetres, 1e-4);
            EXPECT_NEAR(std::abs(across), 4.0 + kPlinthOutsetMetres, 1e-4);
        }
    }
    EXPECT_EQ(faces[4].normal, (Vec3f{0.0f, 1.0f, 0.0f})) << "the last face is the top";
    for (const Vec3f& q : faces[4].corners) EXPECT_EQ(q.y, p.top);
}

namespace {

Vec3f minus(Vec3f a, Vec3f b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3f crossOf(Vec3f a, Vec3f b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
float dotOf(Vec3f a, Vec3f b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/// Expects a face wound counter-clockwise seen from outside (the corners' own normal is the
/// face's) with a unit normal, and returns its centre.
Vec3f woundCentre(const PlinthFace& f) {
    const Vec3f n = crossOf(minus(f.corners[1], f.corners[0]), minus(f.corners[3], f.corners[0]));
    EXPECT_GT(dotOf(n, f.normal), 0.0f);
    EXPECT_NEAR(std::sqrt(dotOf(f.normal, f.normal)), 1.0f, 1e-5f);
    Vec3f centre{};
    for (const Vec3f& c : f.corners) centre = {centre.x + c.x / 4, centre.y + c.y / 4, centre.z + c.z / 4};
    return centre;
}

}  // namespace

TEST(BridgeDeck, AStraightDeckIsASlabOfItsWidthUnderItsTopWoundOutwards) {
    BridgeDeck deck;
    deck.width = 8.0f;
    deck.centreline = {{0, 10, 0}, {20, 11, 0}, {40, 12, 0}};  // eastwards, rising 5 %
    const std::vector<PlinthFace> faces = bridgeDeckFaces(deck);
    ASSERT_EQ(faces.size(), 2u * 4u + 2u) << "top, bottom and sides per piece, and two caps";
    const Vec3f middle{20, 11 - 0.5f * kBridgeDeckThicknessMetres, 0};
    int tops = 0;
    for (const PlinthFace& f : faces) {
        // Counter-clockwise seen from outside, pointing away from the slab's middle line.
        const Vec3f centre = woundCentre(f);
        const Vec3f out = minus(centre, Vec3f{centre.x, middle.y + (centre.x - 20) * 0.05f, 0});
        if (std::abs(centre.x - 20) < 19.0f) {
            EXPECT_GT(dotOf(out, f.normal), 0.0f) << "a face turned inwards";
        }
        if (f.normal.y > 0.9f) {
            ++tops;
            for (const Vec3f& c : f.corners) {
                EXPECT_NEAR(c.y, 10.0f + c.x * 0.05f, 1e-4f) << "the top is the deck's height";
                EXPECT_NEAR(std::abs(c.z), 4.0f, 1e-4f) << "half the width either side";
            }
        }
    }
    EXPECT_EQ(tops, 2);
}

TEST(BridgeDeck, RailingsStandOnBothEdgesOfTheTopWoundOutwards) {
    BridgeDeck deck;
    deck.width = 8.0f;
    deck.centreline = {{0, 10, 0}, {20, 11, 0}, {40, 12, 0}};  // eastwards, rising 5 %
    const std::vector<PlinthFace> railings = bridgeRailingFaces(deck);
    ASSERT_EQ(railings.size(), 2u * (2u * 3u + 2u)) << "per side: outer, inner and top per piece, and two caps";
    const float top = kBridgeRailingHeightMetres, inner = 4.0f - kBridgeRailingWidthMetres;
    int tops = 0;
    for (const PlinthFace& f : railings) {
        const Vec3f centre = woundCentre(f);
        // Outwards from the railing's own middle line: its side's, half its height up.
        const float deckTop = 10.0f + centre.x * 0.05f;
        const float middleZ =
            centre.z > 0 ? 4.0f - 0.5f * kBridgeRailingWidthMetres : -(4.0f - 0.5f * kBridgeRailingWidthMetres);
        const Vec3f out = minus(centre, Vec3f{std::clamp(centre.x, 0.5f, 39.5f), deckTop + 0.5f * top, middleZ});
        EXPECT_GT(dotOf(out, f.normal), 0.0f) << "a railing face turned inwards at " << centre.x << ", " << centre.z;
        for (const Vec3f& c : f.corners) {
            // Between the deck's top and the railing's, between the inner and the outer edge.
            EXPECT_GE(c.y, 10.0f + c.x * 0.05f - 1e-4f);
            EXPECT_LE(c.y, 10.0f + c.x * 0.05f + top + 1e-4f);
            EXPECT_GE(std::abs(c.z), inner - 1e-4f);
            EXPECT_LE(std::abs(c.z), 4.0f + 1e-4f);
        }
        if (f.normal.y > 0.9f) {
            ++tops;
            for (const Vec3f& c : f.corners) EXPECT_NEAR(c.y, 10.0f + c.x * 0.05f + top, 1e-4f);
        }
    }
    EXPECT_EQ(tops, 4) << "a top per piece on each side";
    // Every export draws the deck, then the railings.
    const std::vector<PlinthFace> all = bridgeFaces(deck);
    EXPECT_EQ(all.size(), bridgeDeckFaces(deck).size() + railings.size());
    // No railing on a deck too narrow for two and a metre between them.
    deck.width = 1.4f;
    EXPECT_TRUE(bridgeRailingFaces(deck).empty());
    EXPECT_FALSE(bridgeDeckFaces(deck).empty());
}

TEST(BridgeDeck, ABendKeepsTheWidthAndADegenerateDeckDrawsNothing) {
    BridgeDeck deck;
    deck.width = 6.0f;
    deck.centreline = {{0, 5, 0}, {30, 5, 0}, {30, 5, -30}};  // east, then north
    const std::vector<PlinthFace> faces = bridgeDeckFaces(deck);
    ASSERT_FALSE(faces.empty());
    // The first piece's top ends at the bend's mitre: its far corners lie 3 m from both pieces'
    // centrelines (the mitre's diagonal).
    const PlinthFace& top = faces[0];
    for (const Vec3f& c : top.corners) {
        if (c.x < 15.0f) continue;
        EXPECT_NEAR(std::abs(c.z), 3.0f, 1e-4f);
        EXPECT_NEAR(std::abs(c.x - 30.0f), 3.0f, 1e-4f);
    }
    deck.width = 0.0f;
    EXPECT_TRUE(bridgeDeckFaces(deck).empty());
    deck.width = 6.0f;
    deck.centreline.resize(1);
    EXPECT_TRUE(bridgeDeckFaces(deck).empty());
}
