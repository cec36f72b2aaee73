#pragma once
/// Internal to render: what only the tests ask of camera_pose.h (not API; the tests include it
/// from the source folder).

#include <osg/Vec2d>
#include <osg/Vec3d>

#include <optional>

#include "terrabit/render/camera_pose.h"

namespace terrabit::render {

/// Where a scene point lands in a width × height image seen through a pose: x to the right and
/// y downwards from the top-left pixel corner, in pixels. Nothing for points behind the eye.
std::optional<osg::Vec2d> projectToImage(const CameraPose& pose, int width, int height, const osg::Vec3d& point);

}  // namespace terrabit::render
