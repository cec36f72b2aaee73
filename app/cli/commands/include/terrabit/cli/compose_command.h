#pragma once
/// `terrabit-cli compose`: a layer expression over a map's tiles, written as files. Part of
/// terrabit::io (it reads maps and writes GeoTIFF/PNG through GDAL); main.cpp only parses the
/// command line into a ComposeCommand, and tests call runComposeCommand directly.

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "terrabit/cli/exit_codes.h"
#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/progress.h"

namespace terrabit::cli {

struct ComposeCommand {
    core::io::MapInput input;           ///< the map and its rules (the rules name the layers)
    core::io::TileSelection selection;  ///< the tiles; none named means every tile with content
    std::string expression;             ///< the expression document (see expression_ast.h)
    /// Where the expression came from, for messages: "--expr" (empty) or the file it was read from.
    std::string expressionSource;
    std::filesystem::path outDir;
    std::uint64_t seed = 0;  ///< the scene seed for random() and noise()
    int threads = 0;         ///< 0: one per hardware thread; any count gives the same bits
    /// Raster DEMs (any GDAL raster, any CRS; the finest wins where they overlap) that height(),
    /// slope() and aspect() read; none: the flat world, where every relief layer is empty.
    std::vector<std::filesystem::path> dems;
};

/// Checks the expression against the rules' layers before reading the map, reads and
/// rasterizes the map, evaluates the expression on every selected tile and writes
///   <out>/<quadkey>/result.tif   the mask (GeoTIFF, 1 bit per cell, EPSG:3857, DEFLATE)
///   <out>/<quadkey>/preview.png  the mask in colour over a light background
///   <out>/coverage.json          expression, zoom, seed, the latitude metres were converted at,
///                                the DEMs (when given), per tile and total: cells, square
///                                metres, fraction covered
/// and prints a one-line summary on `out`. Exit codes as the map commands: 0 done; 1 nothing
/// usable was read or a file could not be written; 2 bad arguments or rules, or a bad
/// expression, whose message (line, column, the line and a caret under the spot) goes to `err`.
/// An expression that reads relief without a DEM is composed (every relief layer is empty) and
/// a note on `err` says so.
int runComposeCommand(const ComposeCommand& command, std::ostream& out, std::ostream& err,
                      const core::ProgressCallback& progress = {});

}  // namespace terrabit::cli
