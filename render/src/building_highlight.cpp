#include "terrabit/render/building_highlight.h"

#include <osg/Geode>
#include <osg/LineWidth>

#include <array>
#include <cmath>

#include "overlay_state_p.h"

namespace terrabit::render {

osg::ref_ptr<osg::Group> makeBuildingHighlight(const core::BuildingRecord& record, const core::AssetInfo* asset,
                                               const HighlightStyle& style) {
    osg::ref_ptr<osg::Group> group = new osg::Group;
    group->setName("building highlight");

    // The target box: its width axis is turned by `angle` counter-clockwise from east.
    const core::OrientedBox& box = record.target;
    const double c = std::cos(box.angle), s = std::sin(box.angle);
    const core::Vec2 u{c * box.halfExtents.x, s * box.halfExtents.x};
    const core::Vec2 v{-s * box.halfExtents.y, c * box.halfExtents.y};
    osg::ref_ptr<osg::Vec3Array> outline = new osg::Vec3Array;
    for (const core::Vec2 corner : {box.centre - u - v, box.centre + u - v, box.centre + u + v, box.centre - u + v}) {
        const core::Vec3f p = core::groundToScene(corner, style.heightMetres);
        outline->push_back({p.x, p.y, p.z});
    }
    osg::ref_ptr<osg::Geode> outlineGeode = new osg::Geode;
    outlineGeode->addDrawable(
        detail::colouredGeometry(outline, style.targetColour, new osg::DrawArrays(GL_LINE_LOOP, 0, 4)));
    outlineGeode->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(3.0f), osg::StateAttribute::ON);
    detail::overlayState(*outlineGeode->getOrCreateStateSet(), detail::kHighlightBin + 1, true);
    group->addChild(outlineGeode);

    if (record.outcome != core::BuildingOutcome::Placed || !asset) return group;
    core::ModelBounds bounds = asset->bounds;
    if (bounds.empty()) {
        bounds.extend(-asset->footprint.width / 2, 0.0, -asset->footprint.depth / 2);
        bounds.extend(asset->footprint.width / 2, asset->height, asset->footprint.depth / 2);
    }
    const std::array<float, 16> m = core::transformMatrix(record.placement);
    osg::ref_ptr<osg::Vec3Array> corners = new osg::Vec3Array;
    for (int i = 0; i < 8; ++i) {
        const double x = (i & 1) ? bounds.max[0] : bounds.min[0];
        const double y = (i & 2) ? bounds.max[1] : bounds.min[1];
        const double z = (i & 4) ? bounds.max[2] : bounds.min[2];
        corners->push_back(osg::Vec3(static_cast<float>(m[0] * x + m[4] * y + m[8] * z + m[12]),
                                     static_cast<float>(m[1] * x + m[5] * y + m[9] * z + m[13]),
                                     static_cast<float>(m[2] * x + m[6] * y + m[10] * z + m[14])));
    }
    // Corner i has x from bit 0, y from bit 1, z from bit 2: the six faces as triangle pairs.
    static const GLushort kFaces[] = {0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1,
                                      2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3};
    osg::ref_ptr<osg::Geode> modelGeode = new osg::Geode;
    modelGeode->addDrawable(
        detail::colouredGeometry(corners, style.modelColour, new osg::DrawElementsUShort(GL_TRIANGLES, 36, kFaces)));
    detail::overlayState(*modelGeode->getOrCreateStateSet(), detail::kHighlightBin, true);
    group->addChild(modelGeode);
    return group;
}

}  // namespace terrabit::render
