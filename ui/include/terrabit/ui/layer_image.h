#pragma once
/// Bit layers as QImages, for the map browser and the layer previews.

#include <QColor>
#include <QImage>

#include "terrabit/core/raster/bit_tile.h"

namespace terrabit::ui {

/// A 256×256 ARGB32 image of a tile's layer, north row first: `on` where a cell is set, `off`
/// (transparent by default) elsewhere.
QImage layerImage(const core::BitTile& tile, QColor on, QColor off = Qt::transparent);

}  // namespace terrabit::ui
