#pragma once
/// Bit layers as OSG images, for ground textures and translucent overlays.

#include <osg/Image>
#include <osg/ref_ptr>

#include "terrabit/core/raster/bit_tile.h"

namespace terrabit::render {

/// An 8-bit RGBA colour.
struct Rgba {
    unsigned char r = 0, g = 0, b = 0, a = 255;
};

/// A 256×256 RGBA image of a tile's layer: `on` where a cell is set, `off` elsewhere. Image row 0
/// is the tile's south row, as OpenGL textures expect (the BitTile's row 0 is north).
osg::ref_ptr<osg::Image> makeLayerImage(const core::BitTile& tile, Rgba on, Rgba off = {0, 0, 0, 0});

}  // namespace terrabit::render
