// The home position: every corner of the framed box lands inside the image, the framing is
// tight (some corner reaches an edge), and a top view has north up and east to the right.

#include "terrabit/render/camera_pose.h"
#include "camera_pose_p.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace terrabit::render {
namespace {

struct Extent {
    double minX = 1e9, maxX = -1e9, minY = 1e9, maxY = -1e9;
};

Extent projectedCorners(const CameraPose& pose, const osg::BoundingBox& box, int w, int h) {
    Extent e;
    for (unsigned i = 0; i < 8; ++i) {
        const auto p = projectToImage(pose, w, h, box.corner(i));
        EXPECT_TRUE(p.has_value());
        if (!p) continue;
        e.minX = std::min(e.minX, p->x());
        e.maxX = std::max(e.maxX, p->x());
        e.minY = std::min(e.minY, p->y());
        e.maxY = std::max(e.maxY, p->y());
    }
    return e;
}

TEST(CameraPose, FramingKeepsEveryCornerInsideAndReachesAnEdge) {
    const osg::BoundingBox box(-1200, 0, -800, 1500, 180, 2600);  // a city with towers
    const int w = 1280, h = 800;
    for (const ViewDirection d : {ViewDirection::top(), ViewDirection::oblique(), ViewDirection{135, 30},
                                  ViewDirection{10, 70}, ViewDirection{270, 5}}) {
        SCOPED_TRACE(testing::Message() << d.azimuthDeg << "," << d.elevationDeg);
        const CameraPose pose = frameBox(box, d, double(w) / h, 30.0, 1.0);
        const Extent e = projectedCorners(pose, box, w, h);
        EXPECT_GE(e.minX, -0.5);
        EXPECT_LE(e.maxX, w + 0.5);
        EXPECT_GE(e.minY, -0.5);
        EXPECT_LE(e.maxY, h + 0.5);
        const double touch = std::min({e.minX, w - e.maxX, e.minY, h - e.maxY});
        EXPECT_LT(touch, 1.0) << "the nearest distance that fits touches an edge";
        // The eye is on the requested side of the centre.
        const osg::Vec3d toEye = pose.eye - pose.centre;
        EXPECT_NEAR(std::asin(toEye.y() / toEye.length()) * 180.0 / 3.14159265358979, d.elevationDeg, 1e-6);
    }
}

TEST(CameraPose, TopViewHasNorthUpAndEastRight) {
    const osg::BoundingBox box(-100, 0, -100, 100, 10, 100);
    const CameraPose pose = frameBox(box, ViewDirection::top(), 1.0);
    const auto centre = projectToImage(pose, 500, 500, {0, 0, 0});
    const auto north = projectToImage(pose, 500, 500, {0, 0, -50});  // north is -z
    const auto east = projectToImage(pose, 500, 500, {50, 0, 0});
    ASSERT_TRUE(centre && north && east);
    EXPECT_NEAR(centre->x(), 250.0, 1e-6);
    EXPECT_NEAR(centre->y(), 250.0, 1e-6);
    EXPECT_LT(north->y(), centre->y() - 50.0);
    EXPECT_NEAR(north->x(), centre->x(), 1e-6);
    EXPECT_GT(east->x(), centre->x() + 50.0);
    EXPECT_NEAR(east->y(), centre->y(), 1e-6);
}

TEST(CameraPose, ObliqueFromTheSouthLooksNorthWithUpUp) {
    const CameraPose pose = frameBox(osg::BoundingBox(-10, 0, -10, 10, 10, 10), ViewDirection::oblique(), 1.5);
    EXPECT_GT(pose.eye.z(), pose.centre.z()) << "the eye stands south (+z) of the centre";
    EXPECT_GT(pose.eye.y(), pose.centre.y());
    EXPECT_GT(pose.up.y(), 0.5);
    const auto low = projectToImage(pose, 600, 400, {0, 0, 0});
    const auto high = projectToImage(pose, 600, 400, {0, 10, 0});
    ASSERT_TRUE(low && high);
    EXPECT_LT(high->y(), low->y()) << "higher points are higher on the screen";
}

TEST(CameraPose, PointsBehindTheEyeDoNotProject) {
    const CameraPose pose = frameBox(osg::BoundingBox(-10, 0, -10, 10, 10, 10), ViewDirection::top(), 1.0);
    EXPECT_FALSE(projectToImage(pose, 100, 100, pose.eye + osg::Vec3d(0, 10, 0)).has_value());
}

TEST(CameraPose, ParsesViewDirectionsAndNamesBadOnes) {
    EXPECT_EQ(parseViewDirection("top")->elevationDeg, 90.0);
    EXPECT_EQ(parseViewDirection("oblique")->elevationDeg, 45.0);
    const auto custom = parseViewDirection("135, 30");
    ASSERT_TRUE(custom) << custom.message();
    EXPECT_EQ(custom->azimuthDeg, 135.0);
    EXPECT_EQ(custom->elevationDeg, 30.0);
    for (const char* bad : {"side", "135", "135,x", "1,95", "1,0", ""}) {
        const auto r = parseViewDirection(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_NE(r.message().find(std::string("'") + bad + "'"), std::string::npos) << r.message();
    }
}

}  // namespace
}  // namespace terrabit::render
