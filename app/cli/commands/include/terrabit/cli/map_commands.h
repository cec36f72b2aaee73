#pragma once
/// The map commands of terrabit-cli (info, tiles, rasterize) as library functions: main.cpp
/// only parses arguments into these structs and calls them, and tests call them directly.
/// Each takes its streams: results on `out`, messages and progress on `err`. Each returns the
/// process exit code (exit_codes.h): 0 when something usable was read and processed (warnings
/// or not), 1 when nothing usable was read or an output could not be written, 2 for bad
/// arguments or rules.

#include <filesystem>
#include <ostream>
#include <vector>

#include "terrabit/cli/exit_codes.h"
#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/progress.h"

namespace terrabit::cli {

using core::ProgressCallback;
using core::io::MapInput;
using core::io::TileSelection;

struct InfoCommand {
    MapInput input;
    /// Raster DEMs or terrain-RGB tile sets (core/io/dem_reader.h) to describe beside the map.
    std::vector<std::filesystem::path> dems;
};
/// Prints the file's format, extent, source layers with feature counts, the features per rules
/// layer and class, the unclassified count, a suggested zoom and the warnings. With DEMs also,
/// per DEM in the order given: its CRS, raster size, pixel size, nodata and holes, and over the
/// map's extent the heights it holds, how much of the map it reaches and where. The DEMs are
/// opened (and refused) as every command opens them, before the map is read.
int runInfo(const InfoCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress = {});

struct TilesCommand {
    MapInput input;
    TileSelection selection;
    int threads = 0;
    /// Elevation (core/io/dem_reader.h), opened as every command opens it: a DEM that does not
    /// reach the tiles is a warning.
    std::vector<std::filesystem::path> dems;
};
/// Prints, one per line, the quadkeys of the tiles that hold content (a set cell in some layer).
int runTiles(const TilesCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress = {});

struct RasterizeCommand {
    MapInput input;
    TileSelection selection;
    std::filesystem::path outDir;
    int threads = 0;
    /// Raster DEMs (core/io/dem_reader.h): when given, each tile also gets height.tif.
    std::vector<std::filesystem::path> dems;
};
/// Writes per tile <out>/<quadkey>/preview.png and <out>/<quadkey>/<layer>.tif (with DEMs also
/// <out>/<quadkey>/height.tif, io::writeHeightTiff), and <out>/summary.json (source, rules,
/// zoom, per-layer features and coverage, per-tile coverage and files — with DEMs each tile's
/// height file, lowest and highest height in metres and samples without a height — warnings,
/// timings). Prints where everything went.
int runRasterize(const RasterizeCommand& command, std::ostream& out, std::ostream& err,
                 const ProgressCallback& progress = {});

/// Prints up to 20 warnings, then how many more there are (`where`: where the rest are, or null).
void printWarnings(std::ostream& err, const std::vector<std::string>& warnings, const char* where);

}  // namespace terrabit::cli
