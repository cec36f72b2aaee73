// MeshBuilder: caps cover exactly their outline, solids are closed with faces turned outwards,
// and transforms move parts where they are asked to go.

#include "terrabit/core/assets/mesh_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>

namespace terrabit::core {
namespace {

Vec3 vertex(const AssetMesh& m, std::uint32_t i) {
    return {m.positions[i * 3], m.positions[i * 3 + 1], m.positions[i * 3 + 2]};
}

Vec3 triangleNormal(const AssetMesh& m, std::size_t t) {
    const Vec3 a = vertex(m, m.indices[t * 3]), b = vertex(m, m.indices[t * 3 + 1]),
               c = vertex(m, m.indices[t * 3 + 2]);
    return cross(b - a, c - a);  // length = twice the area
}

// Every edge (by position) is used exactly once in each direction: a closed, consistently
// wound surface.
void expectClosed(const AssetMesh& m) {
    std::map<std::array<float, 6>, int> edges;
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t a = m.indices[t * 3 + static_cast<std::size_t>(k)];
            const std::uint32_t b = m.indices[t * 3 + static_cast<std::size_t>((k + 1) % 3)];
            edges[{m.positions[a * 3], m.positions[a * 3 + 1], m.positions[a * 3 + 2], m.positions[b * 3],
                   m.positions[b * 3 + 1], m.positions[b * 3 + 2]}] += 1;
        }
    }
    for (const auto& [e, count] : edges) {
        EXPECT_EQ(count, 1);
        const auto reverse = edges.find({e[3], e[4], e[5], e[0], e[1], e[2]});
        ASSERT_NE(reverse, edges.end()) << "open edge";
        EXPECT_EQ(reverse->second, 1);
    }
}

// Every face points away from `centre` (true for convex solids).
void expectOutward(const AssetMesh& m, Vec3 centre) {
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        const Vec3 a = vertex(m, m.indices[t * 3]);
        EXPECT_GT(dot(triangleNormal(m, t), a - centre), 0.0) << "triangle " << t;
    }
}

TEST(MeshBuilder, FlatCapOfAnLShapeCoversExactlyItsArea) {
    // The L of 24 × 20 m with a 15 × 11 m notch: 480 - 165 = 315 m² by hand.
    const std::vector<Vec3> outline{{-12, 0, -10}, {-12, 0, 10}, {-3, 0, 10}, {-3, 0, -1}, {12, 0, -1}, {12, 0, -10}};
    for (bool down : {false, true}) {
        MeshBuilder b;
        b.addFlatCap(outline, 5.0, down);
        const AssetMesh& m = b.mesh();
        EXPECT_EQ(m.triangleCount(), outline.size() - 2);
        double area = 0;
        for (std::size_t t = 0; t < m.triangleCount(); ++t) {
            const Vec3 n = triangleNormal(m, t);
            EXPECT_GT(down ? -n.y : n.y, 0.0) << "triangle " << t;
            area += std::sqrt(dot(n, n)) / 2;
            // Each triangle's centre lies inside the L (not in the notch).
            const Vec3 c =
                (vertex(m, m.indices[t * 3]) + vertex(m, m.indices[t * 3 + 1]) + vertex(m, m.indices[t * 3 + 2])) *
                (1.0 / 3.0);
            EXPECT_FALSE(c.x > -3 && c.z > -1) << "triangle " << t << " covers the notch";
        }
        EXPECT_NEAR(area, 315.0, 1e-6);
    }
}

TEST(MeshBuilder, ClockwiseOutlinesGiveTheSameCap) {
    const std::vector<Vec3> ccw{{0, 0, 0}, {0, 0, 4}, {3, 0, 4}, {3, 0, 0}};
    const std::vector<Vec3> cw(ccw.rbegin(), ccw.rend());
    MeshBuilder b;
    b.addFlatCap(cw, 1.0);
    for (std::size_t t = 0; t < b.mesh().triangleCount(); ++t) EXPECT_GT(triangleNormal(b.mesh(), t).y, 0.0);
}

TEST(MeshBuilder, BoxIsClosedAndFacesOutwards) {
    MeshBuilder b;
    b.addBox({-1, 0, -2}, {3, 5, 2}, true);
    EXPECT_EQ(b.mesh().triangleCount(), 12u);
    expectClosed(b.mesh());
    expectOutward(b.mesh(), {1, 2.5, 0});
}

TEST(MeshBuilder, CappedFrustumIsClosedAndFacesOutwards) {
    MeshBuilder b;
    b.addFrustum(2, -1, 1, 4, 1.5, 0.5, 9, true, true);
    expectClosed(b.mesh());
    expectOutward(b.mesh(), {2, 2.5, -1});
}

TEST(MeshBuilder, ConeAlongAnAxisEndsAtItsTip) {
    MeshBuilder b;
    const Vec3 base{1, 1, 1};
    const Vec3 tip{3, 2, -1};
    b.addFrustumBetween(base, tip, 0.5, 0.0, 8, false);
    const ModelBounds box = b.mesh().bounds();
    // The tip is a vertex; the base ring lies in the plane through `base` normal to the axis.
    bool tipFound = false;
    const Vec3 axis = normalized(tip - base);
    for (std::size_t i = 0; i < b.mesh().vertexCount(); ++i) {
        const Vec3 v = vertex(b.mesh(), static_cast<std::uint32_t>(i));
        if (std::sqrt(dot(v - tip, v - tip)) < 1e-3) {
            tipFound = true;
        } else {
            EXPECT_NEAR(dot(v - base, axis), 0.0, 1e-3);
            EXPECT_NEAR(std::sqrt(dot(v - base, v - base)), 0.5, 1e-3);
        }
    }
    EXPECT_TRUE(tipFound);
    EXPECT_LE(box.max[0], 3.0 + 1e-3);
    expectOutward(b.mesh(), base + (tip - base) * 0.25);
}

TEST(MeshBuilder, BlobIsClosedOutwardAndSeeded) {
    SeededRandom r1(99), r2(99), r3(100);
    MeshBuilder a, b, c;
    a.addBlob({0, 3, 0}, {2, 1.5, 2}, 1, 0.15, 0.2, r1);
    b.addBlob({0, 3, 0}, {2, 1.5, 2}, 1, 0.15, 0.2, r2);
    c.addBlob({0, 3, 0}, {2, 1.5, 2}, 1, 0.15, 0.2, r3);
    EXPECT_EQ(a.mesh().triangleCount(), 80u);
    expectClosed(a.mesh());
    expectOutward(a.mesh(), {0, 3, 0});
    EXPECT_EQ(a.mesh().positions, b.mesh().positions);
    EXPECT_NE(a.mesh().positions, c.mesh().positions);
}

TEST(MeshBuilder, GableRoofReachesItsRidgeAndOverhangs) {
    MeshBuilder b;
    b.addGableRoof(-4, 4, -5, 5, 6.0, 3.0, false, 0.5, {200, 200, 200});
    const ModelBounds box = b.mesh().bounds();
    EXPECT_NEAR(box.max[1], 9.0, 1e-3);
    EXPECT_NEAR(box.min[0], -4.5, 1e-3);  // ridge along Z: slopes fall towards ±X
    EXPECT_NEAR(box.max[2], 5.5, 1e-3);
    // Eaves continue the 3 m over 4 m pitch 0.5 m further out and down.
    EXPECT_NEAR(box.min[1], 6.0 - 3.0 * 0.5 / 4.0, 1e-3);
}

TEST(MeshBuilder, TransformMovesAndTurnsParts) {
    MeshBuilder b;
    b.setTransform(Affine::translation({10, 0, 0}) * Affine::rotationY(std::numbers::pi / 2));
    b.addBox({0, 0, -0.5}, {4, 1, 0.5});  // 4 m along +X before turning
    const ModelBounds box = b.mesh().bounds();
    // Counter-clockwise seen from above, +X turns to -Z.
    EXPECT_NEAR(box.min[2], -4.0, 1e-3);
    EXPECT_NEAR(box.max[2], 0.0, 1e-3);
    EXPECT_NEAR(box.min[0], 9.5, 1e-3);
    EXPECT_NEAR(box.max[0], 10.5, 1e-3);
    expectOutward(b.mesh(), {10, 0.5, -2});
}

TEST(MeshBuilder, PositionsAreSnappedToTheGrid) {
    MeshBuilder b;
    b.addTriangle({0.1, 0, 0}, {1.0 / 3.0, 0, 1}, {0, 0.7, 0.2});
    for (float v : b.mesh().positions) EXPECT_EQ(std::round(v * 4096.0), v * 4096.0) << v;
}

TEST(MeshBuilder, DegenerateTrianglesAreDropped) {
    MeshBuilder b;
    b.addTriangle({0, 0, 0}, {1, 0, 0}, {2, 0, 0});
    b.addTriangle({0, 0, 0}, {0, 0, 0}, {0, 1, 0});
    EXPECT_TRUE(b.mesh().empty());
}

TEST(SeededRandom, SameSeedSameSequenceInRange) {
    SeededRandom a(7), b(7);
    for (int i = 0; i < 1000; ++i) {
        const double x = a.uniform();
        EXPECT_EQ(x, b.uniform());
        EXPECT_GE(x, 0.0);
        EXPECT_LT(x, 1.0);
    }
}

}  // namespace
}  // namespace terrabit::core
