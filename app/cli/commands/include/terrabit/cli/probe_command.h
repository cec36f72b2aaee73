#pragma once
/// `terrabit-cli probe`: collision probes read from a stream against a map's layers.

#include <filesystem>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "terrabit/cli/exit_codes.h"
#include "terrabit/core/io/map_layers.h"

namespace terrabit::cli {

struct ProbeCommand {
    core::io::MapInput input;
    /// The tiles to load; none named means every tile that holds content.
    core::io::TileSelection selection;
    int threads = 0;
    /// An optional layer expression ("building | water"): when given, each probe answers whether
    /// it hits the expression's cells ("hit") or not ("clear"), followed by the layers it touched.
    std::string expression;
    /// Raster DEMs (core/io/dem_reader.h): when given, each answer ends with ` ground H m`, the
    /// terrain height at the probe's first position (metres above the DEM's datum, one decimal),
    /// or ` ground none` where no DEM has a height.
    std::vector<std::filesystem::path> dems;
};

/// Reads probes from `in`, one per line (see core/collision/probe_spec.h for the forms), and
/// writes one line per probe to `out`: the names of the layers it hit, separated by commas, or
/// `clear`; with an expression `hit` or `clear`, then ` <layers>` when any were touched. A line
/// that is not a valid probe prints `error` and a message naming the line on `err`; blank and
/// comment lines print nothing. Exit code: 0, 1 when the map gave nothing usable, 2 for bad
/// arguments, a bad expression (printed with its caret) or any bad probe line.
int runProbe(const ProbeCommand& command, std::istream& in, std::ostream& out, std::ostream& err,
             const core::ProgressCallback& progress = {});

}  // namespace terrabit::cli
