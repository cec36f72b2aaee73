// A model's ground outline measured from its mesh (groundOutline): the wings of L, U and
// courtyard blocks as exact rectangles, a box (with or without a porch's worth of overhang) as the
// box, ground paving left out, a round model bounded by at most the allowed rectangles that
// still cover all of it, and the shipped irregular models' outlines.

#include "terrabit/core/assets/ground_outline.h"

#include <gtest/gtest.h>

#include <cmath>

#include "terrabit/core/assets/default_asset_library.h"
#include "terrabit/core/assets/mesh_builder.h"

namespace terrabit::core {
namespace {

using Rects = std::vector<OutlineRect>;

AssetMesh boxes(std::initializer_list<std::pair<Vec3, Vec3>> parts) {
    MeshBuilder b;
    for (const auto& [lo, hi] : parts) b.addBox(lo, hi);
    return b.take();
}

bool inside(const Rects& rects, double x, double z) {
    for (const OutlineRect& r : rects) {
        if (x >= r.x0 && x <= r.x1 && z >= r.z0 && z <= r.z1) return true;
    }
    return false;
}

TEST(GroundOutline, LShapedBlockIsItsTwoWings) {
    // A back wing 24 × 9 m and a side wing 9 × 11 m down to the front: bounds -12..12 × -10..10.
    const AssetMesh m = boxes({{{-12, 0, -10}, {12, 12, -1}}, {{-12, 0, -1}, {-3, 12, 10}}});
    EXPECT_EQ(groundOutline(m), (Rects{{-12, -10, 12, -1}, {-12, -1, -3, 10}}));
}

TEST(GroundOutline, AModelKilometresAcrossIsRasterizedCoarserAndStillCoversItsWings) {
    // The L above, a thousand times larger: at the 0.25 m step its grid would be 96,000 ×
    // 80,000 cells. The step grows to keep 4,096 a side, and the wings are still covered.
    const AssetMesh m = boxes({{{-12000, 0, -10000}, {12000, 12, -1000}}, {{-12000, 0, -1000}, {-3000, 12, 10000}}});
    const Rects rects = groundOutline(m);
    ASSERT_FALSE(rects.empty());
    for (const auto& [x, z] : {std::pair{-11999.0, -9999.0}, {11999.0, -1001.0}, {-3001.0, 9999.0}, {-11999.0, 9999.0}})
        EXPECT_TRUE(inside(rects, x, z)) << x << ", " << z;
    // Coarser, not careless: the empty corner stays out beyond a step of 24,000 / 4,096 m.
    EXPECT_FALSE(inside(rects, 11000.0, 9000.0));
    for (const OutlineRect& r : rects) {
        EXPECT_GE(r.x0, -12000.0);
        EXPECT_LE(r.x1, 12000.0);
        EXPECT_GE(r.z0, -10000.0);
        EXPECT_LE(r.z1, 10000.0);
    }
}

TEST(GroundOutline, UShapedBlockIsItsThreeWings) {
    const AssetMesh m =
        boxes({{{-13, 0, -10}, {13, 12, -2}}, {{-13, 0, -2}, {-5, 12, 10}}, {{5, 0, -2}, {13, 12, 10}}});
    EXPECT_EQ(groundOutline(m), (Rects{{-13, -10, 13, -2}, {-13, -2, -5, 10}, {5, -2, 13, 10}}));
}

TEST(GroundOutline, CourtyardRingIsFourBandsAndItsPavingIsLeftOut) {
    MeshBuilder b;
    b.addBox({-16, 0, -14}, {16, 15, -6});
    b.addBox({-16, 0, 6}, {16, 15, 14});
    b.addBox({-16, 0, -6}, {-8, 15, 6});
    b.addBox({8, 0, -6}, {16, 15, 6});
    // The courtyard's lawn, 2 cm above the ground: paving, not building.
    const std::vector<Vec3> lawn{{-8, 0, -6}, {8, 0, -6}, {8, 0, 6}, {-8, 0, 6}};
    b.addFlatCap(lawn, 0.02);
    const Rects want{{-16, -14, 16, -6}, {-16, -6, -8, 6}, {8, -6, 16, 6}, {-16, 6, 16, 14}};
    EXPECT_EQ(groundOutline(b.take()), want);
}

TEST(GroundOutline, OffCentreStepsKeepTheirCoordinatesAboutTheBoundsCentre) {
    // Walls on whole steps from the bounds' centre (10, 3) give exact rectangles, though not
    // from the origin; a wall off the grid (x = 6.1, 3.9 m left of the centre) is rounded
    // outwards to the next grid line (3.75 m).
    const AssetMesh m = boxes({{{0, 0, 0}, {20, 5, 4}}, {{0, 0, 4}, {6.1, 5, 6}}});
    EXPECT_EQ(groundOutline(m), (Rects{{-10, -3, 10, 1}, {-10, 1, -3.75, 3}}));
}

TEST(GroundOutline, BoxAndBoxWithAPorchAreTheBox) {
    EXPECT_TRUE(groundOutline(boxes({{{-4, 0, -5}, {4, 6, 5}}})).empty());
    // A porch 3 × 1.2 m in front of an 8 × 10 m house: 93 % of its bounds.
    EXPECT_TRUE(groundOutline(boxes({{{-4, 0, -5}, {4, 6, 5}}, {{-1.5, 0, 5}, {1.5, 0.3, 6.2}}})).empty());
    // Walls only (seen edge-on from above) and an empty mesh measure nothing: the box.
    MeshBuilder walls;
    const std::vector<Vec3> square{{-2, 0, -2}, {2, 0, -2}, {2, 0, 2}, {-2, 0, 2}};
    walls.addWalls(square, 0, 3);
    EXPECT_TRUE(groundOutline(walls.take()).empty());
    EXPECT_TRUE(groundOutline(AssetMesh{}).empty());
}

TEST(GroundOutline, RoundTowerIsAtMostEightRectanglesCoveringAllOfIt) {
    MeshBuilder b;
    b.addFrustum(0, 0, 0, 10, 5, 5, 32, false, true);
    const AssetMesh m = b.take();
    GroundOutlineOptions options;
    options.boxShare = 0.95;  // a disc is 79 % of its box; 8 rectangles cover more
    const Rects rects = groundOutline(m, options);
    ASSERT_FALSE(rects.empty());
    EXPECT_LE(rects.size(), 8u);
    // Conservative: every point of the disc is in some rectangle.
    for (int i = 0; i < 64; ++i) {
        for (double r : {0.0, 2.5, 4.9}) {
            const double a = 2.0 * 3.141592653589793 * i / 64;
            EXPECT_TRUE(inside(rects, r * std::cos(a), r * std::sin(a))) << r << " at " << a;
        }
    }
    options.maxRects = 3;
    EXPECT_LE(groundOutline(m, options).size(), 3u);
}

TEST(GroundOutline, ShippedIrregularBlocksGetTheirWingsAndTheRestTheirBoxes) {
    for (const DefaultAsset& a : buildDefaultAssetLibrary()) {
        SCOPED_TRACE(a.info.id);
        if (a.info.id == "apartment_l") {
            EXPECT_EQ(a.info.outline, (Rects{{-12, -10, 12, -1}, {-12, -1, -3, 10}}));
        } else if (a.info.id == "apartment_u") {
            EXPECT_EQ(a.info.outline, (Rects{{-13, -10, 13, -2}, {-13, -2, -5, 10}, {5, -2, 13, 10}}));
        } else if (a.info.id == "courtyard_block") {
            EXPECT_EQ(a.info.outline, (Rects{{-16, -14, 16, -6}, {-16, -6, -8, 6}, {8, -6, 16, 6}, {-16, 6, 16, 14}}));
        } else if (a.info.category == "building") {
            EXPECT_TRUE(a.info.outline.empty()) << "a box with eaves, porches, steps or balconies";
        }
        // Every outline lies in its footprint box and is what the mesh measures (to the mm).
        for (const OutlineRect& r : a.info.outline) {
            EXPECT_GE(r.x0, -0.5 * a.info.footprint.width - 1e-3);
            EXPECT_LE(r.x1, 0.5 * a.info.footprint.width + 1e-3);
            EXPECT_GE(r.z0, -0.5 * a.info.footprint.depth - 1e-3);
            EXPECT_LE(r.z1, 0.5 * a.info.footprint.depth + 1e-3);
        }
        EXPECT_EQ(groundOutline(a.mesh).size(), a.info.outline.size());
    }
}

}  // namespace
}  // namespace terrabit::core
