#pragma once
/// CameraPose: where a camera stands and looks, and the home position that frames a scene. The
/// scene frame is x east, y up, z south (core/scene/scene.h), in metres.

#include <osg/BoundingBox>
#include <osg/Matrixd>
#include <osg/Vec2d>
#include <osg/Vec3d>

#include <optional>
#include <string_view>

#include "terrabit/core/result.h"

namespace terrabit::render {

/// A perspective camera. The default looks down the -y axis from 100 m, north (-z) up.
struct CameraPose {
    osg::Vec3d eye{0.0, 100.0, 0.0};  ///< metres, scene frame
    osg::Vec3d centre;                ///< the point looked at, metres
    osg::Vec3d up{0.0, 0.0, -1.0};    ///< unit vector that points up on the screen
    double fovyDeg = 30.0;            ///< vertical field of view, degrees, 1..170

    /// The view matrix (world to eye).
    osg::Matrixd viewMatrix() const;
    /// A perspective projection for this pose at an aspect ratio (width / height), with the given
    /// clip distances (metres; OSG recomputes them per frame from the scene's bounds).
    osg::Matrixd projectionMatrix(double aspect, double zNear = 1.0, double zFar = 1.0e5) const;
};

/// Which direction a framing looks from.
struct ViewDirection {
    /// Compass bearing from the framed centre to the eye, degrees clockwise from north: 180
    /// puts the eye south of the scene looking north, so north is up on the screen.
    double azimuthDeg = 180.0;
    /// Angle of the eye above the horizon seen from the centre, degrees, 1..90. At 90 (a top
    /// view) the screen's up is the direction opposite to the azimuth (north for 180).
    double elevationDeg = 90.0;

    /// A top view, north up.
    static ViewDirection top() { return {180.0, 90.0}; }
    /// A 45° oblique view from the south.
    static ViewDirection oblique() { return {180.0, 45.0}; }
};

/// The home position: a camera looking from `direction` at the centre of `box` from the nearest
/// distance at which all eight corners of the box lie inside the view at this aspect ratio
/// (width / height) and field of view, times `margin` (>= 1). An empty box is framed as a 100 m
/// cube around the origin.
CameraPose frameBox(const osg::BoundingBox& box, ViewDirection direction, double aspect, double fovyDeg = 30.0,
                    double margin = 1.05);

/// Parses a view direction as the command line writes it: "top", "oblique", or
/// "AZIMUTH,ELEVATION" in degrees ("135,30"). The error names the text and the allowed forms.
core::Result<ViewDirection> parseViewDirection(std::string_view text);

}  // namespace terrabit::render
