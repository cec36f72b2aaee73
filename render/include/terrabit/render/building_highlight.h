#pragma once
/// The highlight of a selected building: the target box its model had to fit, and the box of the
/// model placed there, drawn over the scene.

#include <osg/Group>
#include <osg/Vec4>
#include <osg/ref_ptr>

#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::render {

struct HighlightStyle {
    osg::Vec4 targetColour{1.0f, 0.85f, 0.1f, 1.0f};  ///< outline of the target box
    osg::Vec4 modelColour{1.0f, 0.85f, 0.1f, 0.35f};  ///< translucent box around the placed model
    float heightMetres = 0.3f;                        ///< of the outline above the ground
};

/// The highlight of one building record: the outline of its target box (ground metres, turned by
/// its angle) and, when a model was placed and `asset` describes it, a translucent box around the
/// model as placed (its bounds, or footprint and height, through the instance's transform), both
/// drawn over the scene. A record whose model is not given gets the outline only.
osg::ref_ptr<osg::Group> makeBuildingHighlight(const core::BuildingRecord& record, const core::AssetInfo* asset,
                                               const HighlightStyle& style = {});

}  // namespace terrabit::render
