#pragma once
/// Writing a tile's bit layers as files: a georeferenced 1-bit GeoTIFF per layer and a PNG
/// preview with the layers in colour. Files are written under a temporary name and renamed, so
/// a reader never sees half a file.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "terrabit/core/result.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tiling/layer_store.h"

namespace terrabit::core::io {

/// The files written for one tile, relative to the output folder.
struct TileFiles {
    std::string preview;              ///< "<quadkey>/preview.png"
    std::vector<std::string> layers;  ///< per layer id: "<quadkey>/<layer>.tif"
    std::string height;               ///< "<quadkey>/height.tif" when heights were written
};

/// Writes the tile in `slot` of `store` into `outDir`/<quadkey>/: `<layer>.tif` for every layer
/// (GeoTIFF, 256×256, 1 bit per cell, value 1 where set, DEFLATE, EPSG:3857 with the tile's
/// bounds) and `preview.png` (paletted, layers painted in id order over a light background in their
/// colours, so later layers are on top). `layers` gives names and colours in id order.
/// Creates the folder; fails naming the file that could not be written.
Result<TileFiles> writeTile(const LayerStore& store, std::size_t slot, const std::vector<LayerInfo>& layers,
                            const std::filesystem::path& outDir);

/// Writes a tile's heights as a GeoTIFF: 257 × 257 Float32 samples whose pixel centres are the
/// tile's cell corners (so the raster reaches half a cell beyond the tile on every side),
/// EPSG:3857, metres, nodata NaN where there is no height, DEFLATE. Fails naming the file.
Status writeHeightTiff(const terrain::HeightTile& heights, const std::filesystem::path& file);

}  // namespace terrabit::core::io
