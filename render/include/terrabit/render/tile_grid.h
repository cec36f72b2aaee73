#pragma once
/// The tile grid overlay: each tile's border and its quadkey, so a designer can tell which tile
/// is which in the viewport and pick tiles by name.

#include <osg/Group>
#include <osg/Vec4>
#include <osg/ref_ptr>

#include <filesystem>
#include <optional>
#include <span>

#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::render {

struct TileGridStyle {
    osg::Vec4 lineColour{1.0f, 1.0f, 1.0f, 0.85f};  ///< border lines, RGBA 0..1
    osg::Vec4 textColour{1.0f, 1.0f, 1.0f, 1.0f};   ///< quadkey labels
    float heightMetres = 0.6f;                      ///< of the lines above the ground
    /// Label character height as a fraction of the tile's edge (a z17 quadkey has 17 digits,
    /// so 0.045 keeps it within the tile).
    float textSize = 0.045f;
};

/// The font labels use: DejaVu Sans from Debian's fonts-dejavu-core when installed; nothing
/// otherwise (labels then use OSG's built-in font).
std::optional<std::filesystem::path> labelFontFile();

/// Lines along every tile's border and, at each tile's centre, its quadkey as an osgText label
/// facing the screen, drawn over the scene. Tiles must be at the frame's zoom. The returned
/// group holds two children: a Geode of lines (one drawable) and a Geode of labels (one
/// osgText::Text per tile, in the order of `tiles`).
osg::ref_ptr<osg::Group> makeTileGrid(const core::GroundFrame& frame, std::span<const core::TileId> tiles,
                                      const TileGridStyle& style = {});

}  // namespace terrabit::render
