#pragma once
// Private to terrabit::io: a layer's GeoTIFF encoded without making a GDAL dataset.
//
// A layers export writes one small file per tile and layer (22,512 for monaco-region), and GDAL
// spent about 3 M instructions on each: a GTiff dataset in a memory file, libtiff's field table
// sorted per file, zlib state reset, and our bits spread into bytes for GDAL to pack back. The
// file itself is always the same shape, so it is laid out here once, in the layout GDAL's GTiff
// driver gives it (NBITS=1, COMPRESS=DEFLATE, EPSG:3857), and only the bits and the tile's
// corner change. tile_writer_test holds the two byte for byte against each other.
//
// The layout (classic little-endian TIFF, offsets from the file's start):
//   0      header: "II", 42, the IFD's offset (8)
//   8      the IFD: 16 entries in tag order, then a zero "next IFD" offset
//   206    ModelPixelScale: cell, cell, 0 (3 doubles)
//   230    ModelTiepoint: raster (0, 0, 0) at (west, north, 0) in EPSG:3857 metres (6 doubles)
//   278    GeoKeyDirectory: 7 keys (32 shorts): projected, pixel is area, EPSG:3857, metres,
//          degrees, and the two citations GDAL writes
//   342    GeoAsciiParams: "WGS 84 / Pseudo-Mercator|WGS 84|" and its NUL (33 bytes)
//   375    the one strip: 256 rows of 32 bytes, the first cell of a byte in its top bit, 1 where
//          set, as a zlib stream (libdeflate at level 7: the bytes GDAL 3.6 writes here at its
//          default ZLEVEL, libtiff compressing with libdeflate)

#include <cstdint>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::io::detail {

/// The GeoTIFF of one tile's bit layer (`bits` null: no cell set), appended to `out` (cleared
/// first). Returns false only when compressing fails (it cannot with a working libdeflate).
bool encodeBitGeoTiff(const BitTile* bits, const TileId& tile, std::vector<std::uint8_t>& out);

}  // namespace terrabit::core::io::detail
