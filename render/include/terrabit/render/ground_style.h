#pragma once
/// GroundStyle: how a tile's ground is coloured from its layers, and the images made from it.

#include <osg/Image>
#include <osg/ref_ptr>

#include <span>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::render {

struct GroundStyle {
    /// The layers to paint, with their colours, in painting order: a later layer covers an
    /// earlier one where both are set. The rules' order (RuleSet::layerInfos(): water, vegetation
    /// and its classes, road, building…) draws a class over its parent and buildings last.
    /// Layers the source does not have are skipped.
    std::vector<core::LayerInfo> layers;
    core::Rgb bare{196, 186, 160};  ///< cells no painted layer covers (bare earth), sRGB
};

/// A 256×256 RGBA ground image of one tile: `style.bare` everywhere, then each styled layer's
/// set cells in its colour, in style order; alpha 255. Image row 0 is the tile's south row, as
/// OpenGL textures expect. A tile the source holds nothing of is bare.
osg::ref_ptr<osg::Image> makeGroundImage(const core::LayerSource& source, const core::TileId& tile,
                                         const GroundStyle& style);

/// A ground image showing one mask (an evaluated expression): `on` where set, `style.bare`
/// elsewhere; alpha 255, row 0 south.
osg::ref_ptr<osg::Image> makeMaskGroundImage(const core::BitTile& mask, core::Rgb on, const GroundStyle& style);

/// Makes the cells of `rects` transparent (alpha 0) in a ground image laid out as above: the
/// holes through which a surface below the ground (water) shows. Colours stay, so filtered
/// texels at a hole's edge do not darken.
void cutGroundHoles(osg::Image& image, std::span<const core::CellRect> rects);

/// A ground image as above, `side` texels a side (a power of two from 1 to 256): each texel the
/// mean of the 256 / side squared texels it covers, channel by channel (alpha too), as the
/// texture's own mipmap of that size is. What a tile seen from afar needs of its ground.
osg::ref_ptr<osg::Image> shrinkGroundImage(const osg::Image& image, int side);

}  // namespace terrabit::render
