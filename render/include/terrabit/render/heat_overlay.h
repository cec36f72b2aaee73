#pragma once
/// The heat-map overlay: any layer or expression drawn translucent over the ground, either as
/// its cells in one colour or as the density of set cells around each cell on a colour ramp.

#include <osg/Geode>
#include <osg/Image>
#include <osg/ref_ptr>

#include <functional>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/tile/tile_id.h"
#include "terrabit/render/tile_geometry.h"

namespace terrabit::render {

struct HeatOverlayStyle {
    /// 0: each set cell in `colour`. > 0: each cell shows the fraction of set cells within a
    /// (2r+1) × (2r+1) window around it (cells of neighbouring tiles included), on a ramp from
    /// blue (few) through yellow to red (all); cells with none stay clear. At most 256.
    int radiusCells = 0;
    core::Rgb colour{230, 40, 30};  ///< the colour of set cells when radiusCells is 0, sRGB
    float opacity = 0.6f;           ///< alpha of a fully covered cell, 0..1
    float heightMetres = 0.4f;      ///< above the ground, metres
};

/// Where the overlay reads a mask: the bits of a tile, or nullptr when clear there.
using MaskLookup = std::function<const core::BitTile*(const core::TileId&)>;

/// The overlay image of one tile (256 × 256 RGBA, row 0 south), reading the tile and, for a
/// radius, its eight neighbours through `mask`.
osg::ref_ptr<osg::Image> makeHeatImage(const MaskLookup& mask, const core::TileId& tile, const HeatOverlayStyle& style);

/// The heat-ramp colour of a covered fraction 0..1 (blue, yellow, red), alpha from `opacity`;
/// fully clear (alpha 0) for 0.
osg::Vec4 heatColour(double fraction, float opacity);

/// A translucent, unlit quad over a tile at a height, textured with an overlay image, drawn after
/// the scene without writing depth.
osg::ref_ptr<osg::Geode> makeOverlayQuad(const TilePlacement& placement, osg::ref_ptr<osg::Image> image,
                                         float heightMetres);

}  // namespace terrabit::render
