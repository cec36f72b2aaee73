#pragma once
// Private helpers shared by the overlays (heat map, tile grid, highlight, probes): unlit,
// translucent geometry drawn after the scene, always visible.

#include <osg/BlendFunc>
#include <osg/Depth>
#include <osg/Geometry>
#include <osg/StateSet>

namespace terrabit::render::detail {

/// Render bins of the overlays, after the opaque scene (bin 0) and OSG's transparent bin (10).
inline constexpr int kHeatBin = 20;
inline constexpr int kGridBin = 30;
inline constexpr int kHighlightBin = 40;
inline constexpr int kProbeBin = 50;

/// Unlit, alpha-blended, no depth writes; with `onTop`, no depth test either, so the overlay shows
/// through buildings (a probe or a highlight must never hide behind what it points at).
inline void overlayState(osg::StateSet& state, int bin, bool onTop) {
    state.setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
    state.setMode(GL_CULL_FACE, osg::StateAttribute::OFF);
    state.setMode(GL_BLEND, osg::StateAttribute::ON);
    state.setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA), osg::StateAttribute::ON);
    state.setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 1.0, false), osg::StateAttribute::ON);
    if (onTop) state.setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
    state.setRenderBinDetails(bin, "RenderBin");
}

/// A geometry with one overall colour, vertex buffer objects on.
inline osg::ref_ptr<osg::Geometry> colouredGeometry(osg::ref_ptr<osg::Vec3Array> vertices, const osg::Vec4& colour,
                                                    osg::ref_ptr<osg::PrimitiveSet> primitives) {
    osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
    g->setVertexArray(vertices);
    osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array(1);
    (*c)[0] = colour;
    g->setColorArray(c, osg::Array::BIND_OVERALL);
    g->addPrimitiveSet(primitives);
    g->setUseDisplayList(false);
    g->setUseVertexBufferObjects(true);
    return g;
}

}  // namespace terrabit::render::detail
