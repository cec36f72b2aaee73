#pragma once
/// The "layers" export: per baked tile, a georeferenced GeoTIFF per layer and a PNG preview,
/// written by terrabit::io's tile writer (GDAL), staged so that a failure leaves nothing behind.

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/progress.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

/// The layers to write with their preview colours: `styles` when given (their names must be
/// layers of the source), otherwise every layer of the source in id order with a fixed palette.
/// Errors name the unknown layer.
Result<std::vector<LayerInfo>> layerStylesFor(const LayerSource& source, std::span<const LayerInfo> styles);

/// Writes `folder`/<quadkey>/<layer>.tif (1-bit GeoTIFF, EPSG:3857, the tile's bounds) and
/// `folder`/<quadkey>/preview.png for every tile. Everything is first written into a hidden
/// staging folder inside `folder`, flushed to disk, and only then moved into place tile by tile
/// (replacing an earlier export of the same tile); on any failure or cancellation the staging
/// folder is removed. Returns the files written, relative to `folder`, in tile then layer order.
/// Errors name the file (with its final path) and the reason. The tiles are encoded on
/// `threads` threads (0: one per hardware thread), a run of them at a time; the files, the
/// errors and the progress are the same for any count.
Result<std::vector<std::string>> writeLayerFiles(const LayerSource& source, std::span<const TileId> tiles,
                                                 const std::vector<LayerInfo>& styles,
                                                 const std::filesystem::path& folder,
                                                 const ProgressCallback& progress = {}, int threads = 1);

}  // namespace terrabit::core
