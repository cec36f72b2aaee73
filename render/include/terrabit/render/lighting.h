#pragma once
/// Lighting: one directional sun, an ambient term and the sky colour every view of a scene uses.

#include <osg/LightSource>
#include <osg/StateSet>
#include <osg/Vec3>
#include <osg/Vec4>
#include <osg/ref_ptr>

namespace terrabit::render {

/// The scene's light, in the scene frame (x east, y up, z south). Colours are display (sRGB)
/// values 0..1, as fixed-function GL and the instancing shader use them.
struct Lighting {
    /// Compass bearing the sunlight comes from, degrees clockwise from north. 315 (north-west) is
    /// the cartographic convention: shaded slopes face south-east, and relief reads as raised.
    double sunAzimuthDeg = 315.0;
    /// Height of the sun above the horizon, degrees, 0..90.
    double sunElevationDeg = 55.0;
    osg::Vec3 sunColour{0.72f, 0.71f, 0.68f};  ///< diffuse colour of the sun
    osg::Vec3 ambient{0.40f, 0.40f, 0.43f};    ///< light every surface gets, whatever its orientation
    osg::Vec4 sky{0.62f, 0.76f, 0.90f, 1.0f};  ///< the background (camera clear colour)

    /// Unit vector towards the sun in the scene frame.
    osg::Vec3 sunDirection() const;
};

/// A LightSource holding light 0 as a directional light along lighting.sunDirection(), with no
/// specular part. Add it anywhere in the scene without a transform above it. A viewer showing the
/// scene should use osg::View::NO_LIGHT, so its head light does not replace the sun.
osg::ref_ptr<osg::LightSource> makeSunLight(const Lighting& lighting);

/// Sets the ambient light model, turns lighting and light 0 on, and turns light 1..7 off in a
/// state set (the root's): one sun, nothing else, whatever the viewer's defaults.
void applyLighting(osg::StateSet& state, const Lighting& lighting);

}  // namespace terrabit::render
