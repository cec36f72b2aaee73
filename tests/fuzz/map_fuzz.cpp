// Fuzzes reading a vector map and making its layers (io::buildMapLayers: GDAL's reading, our
// geometry repair, coastline closing, classification by the default rules, the tile index and
// rasterization) on bytes written to a GDAL /vsimem/ GeoJSON file. GDAL's own parsers are fuzzed
// upstream; what this target looks for is a feature, coordinate system or geometry that our code
// after GDAL does not survive. Contracts beyond "no crash, no UB": an error says something and is
// not an internal one; made layers hold a tile set within the selection's limit, every tile in
// the index at the zoom asked for.

#include <cpl_vsi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/io/map_reader.h"

using namespace terrabit;
using fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    core::io::initGdal();
    const std::string path = "/vsimem/map_fuzz.geojson";
    VSILFILE* f = VSIFileFromMemBuffer(path.c_str(), const_cast<GByte*>(data), size, FALSE);
    if (!f) return 0;
    VSIFCloseL(f);
    core::io::MapInput input;
    input.file = path;
    input.rules = std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml";
    core::io::TileSelection selection;
    selection.zoom = 15;
    selection.maxTiles = 64;  // the fuzzer's bound: a feature across the world is 2^30 tiles
    auto layers = core::io::buildMapLayers(input, selection, 1, {});
    if (!layers) {
        require(!layers.message().empty(), "an error says what went wrong");
        require(layers.error().kind != core::ErrorKind::Internal, "bad map bytes are no internal error");
    } else {
        const auto& tiles = (*layers)->store.tiles();
        require(tiles.size() <= selection.maxTiles, "the tiles stay within the selection's limit");
        for (const core::TileId& t : tiles) require(t.zoom == selection.zoom, "every tile is at the zoom asked for");
    }
    VSIUnlink(path.c_str());
    return 0;
}
