#include "terrabit/render/lighting.h"

#include <osg/LightModel>

#include <cmath>
#include <numbers>

namespace terrabit::render {

osg::Vec3 Lighting::sunDirection() const {
    constexpr double kDeg = std::numbers::pi / 180.0;
    const double az = sunAzimuthDeg * kDeg;
    const double el = sunElevationDeg * kDeg;
    // North is -z, east is +x.
    osg::Vec3 d(static_cast<float>(std::cos(el) * std::sin(az)), static_cast<float>(std::sin(el)),
                static_cast<float>(-std::cos(el) * std::cos(az)));
    d.normalize();
    return d;
}

osg::ref_ptr<osg::LightSource> makeSunLight(const Lighting& lighting) {
    osg::ref_ptr<osg::Light> light = new osg::Light(0);
    const osg::Vec3 d = lighting.sunDirection();
    light->setPosition(osg::Vec4(d, 0.0f));  // w = 0: directional
    light->setDiffuse(osg::Vec4(lighting.sunColour, 1.0f));
    // The ambient part lives in the light model, so shaders and fixed function agree on one sum.
    light->setAmbient(osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
    light->setSpecular(osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
    osg::ref_ptr<osg::LightSource> source = new osg::LightSource;
    source->setLight(light);
    // Relative to the scene (the default reference frame): the sun stays put as the camera moves.
    return source;
}

void applyLighting(osg::StateSet& state, const Lighting& lighting) {
    osg::ref_ptr<osg::LightModel> model = new osg::LightModel;
    model->setAmbientIntensity(osg::Vec4(lighting.ambient, 1.0f));
    model->setTwoSided(false);
    state.setAttributeAndModes(model, osg::StateAttribute::ON);
    state.setMode(GL_LIGHTING, osg::StateAttribute::ON);
    state.setMode(GL_LIGHT0, osg::StateAttribute::ON);
    // Nothing else may add to the sun (a viewer should also run with osg::View::NO_LIGHT, or its
    // head light competes for light 0).
    for (int i = 1; i < 8; ++i) state.setMode(GL_LIGHT0 + i, osg::StateAttribute::OFF);
}

}  // namespace terrabit::render
