#pragma once
// Private to terrabit::io: a tile's paletted preview PNG encoded with libdeflate.
//
// The layers export writes a preview per tile (1,608 for monaco-region), and after the layer
// GeoTIFFs stopped going through GDAL (bit_geotiff_p.h) the previews' zlib compression inside
// GDAL's PNG driver was most of that export's time. The file is the one GDAL wrote: the
// signature, IHDR (8-bit indices, colour type 3), PLTE, one IDAT of unfiltered rows (filter
// byte 0, as libpng writes a paletted image), IEND; only the compressor differs.
// tile_writer_test holds the decoded pixels and palette to GDAL's own encoding.

#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/colour.h"

namespace terrabit::core::io::detail {

/// A `side` × `side` image of palette indices (row-major, north first) with its palette (at most
/// 256 colours, all opaque) as a PNG, into `out` (cleared first). False when an index has no
/// colour, the palette is empty or too long, or compressing fails.
bool encodePalettePng(std::span<const std::uint8_t> indices, int side, std::span<const Rgb> palette,
                      std::vector<std::uint8_t>& out);

}  // namespace terrabit::core::io::detail
