#include "terrabit/render/camera_pose.h"
#include "camera_pose_p.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string>

namespace terrabit::render {

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

std::optional<double> parseNumber(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

}  // namespace

osg::Matrixd CameraPose::viewMatrix() const { return osg::Matrixd::lookAt(eye, centre, up); }

osg::Matrixd CameraPose::projectionMatrix(double aspect, double zNear, double zFar) const {
    return osg::Matrixd::perspective(fovyDeg, aspect, zNear, zFar);
}

CameraPose frameBox(const osg::BoundingBox& box, ViewDirection direction, double aspect, double fovyDeg,
                    double margin) {
    osg::BoundingBox b = box;
    if (!b.valid()) b.set(-50.0, -50.0, -50.0, 50.0, 50.0, 50.0);
    const double az = direction.azimuthDeg * kDeg;
    const double el = std::clamp(direction.elevationDeg, 1.0, 90.0) * kDeg;
    // Unit vector from the centre towards the eye (north is -z, east +x).
    const osg::Vec3d toEye(std::cos(el) * std::sin(az), std::sin(el), -std::cos(el) * std::cos(az));
    const osg::Vec3d forward = -toEye;
    // Straight down, "up" cannot be +y; it is then the horizontal direction away from the eye's
    // bearing, which keeps north up for the default azimuth.
    osg::Vec3d upHint =
        direction.elevationDeg >= 89.999 ? osg::Vec3d(-std::sin(az), 0.0, std::cos(az)) : osg::Vec3d(0.0, 1.0, 0.0);
    osg::Vec3d right = forward ^ upHint;
    right.normalize();
    osg::Vec3d up = right ^ forward;
    up.normalize();

    const double tanY = std::tan(0.5 * fovyDeg * kDeg);
    const double tanX = tanY * aspect;
    const osg::Vec3d centre = b.center();
    // A corner p (relative to the centre) seen from eye = centre + d·toEye has depth d + p·forward;
    // it is inside the view when |p·right| <= depth·tanX and |p·up| <= depth·tanY. The smallest d
    // satisfying every corner is the max of the per-corner bounds below.
    double distance = 0.0;
    for (unsigned i = 0; i < 8; ++i) {
        const osg::Vec3d p = b.corner(i) - centre;
        const double depthOffset = p * forward;
        distance = std::max(distance, std::abs(p * right) / tanX - depthOffset);
        distance = std::max(distance, std::abs(p * up) / tanY - depthOffset);
    }
    distance = std::max(distance, 1.0) * std::max(margin, 1.0);
    CameraPose pose;
    pose.centre = centre;
    pose.eye = centre + toEye * distance;
    pose.up = up;
    pose.fovyDeg = fovyDeg;
    return pose;
}

core::Result<ViewDirection> parseViewDirection(std::string_view text) {
    if (text == "top") return ViewDirection::top();
    if (text == "oblique") return ViewDirection::oblique();
    const auto comma = text.find(',');
    const std::string kForms = "expected top, oblique or AZIMUTH,ELEVATION in degrees (e.g. 135,30)";
    if (comma == std::string_view::npos) return core::Error{"camera '" + std::string(text) + "': " + kForms};
    const auto az = parseNumber(text.substr(0, comma));
    const auto el = parseNumber(text.substr(comma + 1));
    if (!az || !el) return core::Error{"camera '" + std::string(text) + "': " + kForms};
    if (*el < 1.0 || *el > 90.0) {
        return core::Error{"camera '" + std::string(text) + "': elevation must be within 1..90 degrees"};
    }
    return ViewDirection{*az, *el};
}

std::optional<osg::Vec2d> projectToImage(const CameraPose& pose, int width, int height, const osg::Vec3d& point) {
    const osg::Vec3d eyeSpace = point * pose.viewMatrix();
    if (eyeSpace.z() >= 0.0) return std::nullopt;  // OpenGL eyes look down -z
    const osg::Matrixd projection = pose.projectionMatrix(static_cast<double>(width) / height);
    const osg::Vec3d ndc = eyeSpace * projection;  // osg::Matrixd's operator* divides by w
    return osg::Vec2d((ndc.x() + 1.0) * 0.5 * width, (1.0 - ndc.y()) * 0.5 * height);
}

}  // namespace terrabit::render
