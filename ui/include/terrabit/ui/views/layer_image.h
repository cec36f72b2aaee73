#pragma once
/// Bit layers as QImages, for the map browser and the layer previews.

#include <QColor>
#include <QImage>

namespace terrabit::core {
struct TileId;
}

namespace terrabit::ui {

class MapDocument;

/// A tile of the document as the map browser shows it: the visible base layers painted in id
/// order (later on top) over `background`, one pixel per cell, north row first. Where the tile
/// has terrain heights, the background is shaded by its relief (terrain::hillshadeTile, light
/// from the north-west 45° up): flat ground keeps `background`, slopes facing the light are
/// lighter, slopes facing away darker; without heights nothing changes.
QImage tileComposite(const MapDocument& document, const core::TileId& tile, QColor background);

/// The document's overlay layer in a tile, in its colour at `alpha` (0..255) over transparency;
/// a null image when there is no overlay or it is empty there.
QImage tileOverlay(const MapDocument& document, const core::TileId& tile, int alpha);

}  // namespace terrabit::ui
