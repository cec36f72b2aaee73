#pragma once
/// The map commands of terrabit-cli (info, tiles, rasterize) as library functions: main.cpp
/// only parses arguments into these structs and calls them, and tests call them directly.
/// Each takes its streams: results on `out`, messages and progress on `err`. Each returns the
/// process exit code: 0 when something usable was read and processed (warnings or not), 1 when
/// nothing usable was read or an output could not be written, 2 for bad arguments or rules.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "terrabit/core/map/map_data.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/result.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/tiling/layer_store.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::io {

/// Exit codes of the map commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitNothingUsable = 1;
inline constexpr int kExitBadArguments = 2;

/// What every map command reads.
struct MapInput {
    std::filesystem::path file;            ///< map file or vector-tile folder
    std::filesystem::path rules;           ///< rules document (main fills in the default)
    std::vector<std::string> openOptions;  ///< GDAL open options, "KEY=VALUE"
};

/// Which tiles to work on at a zoom.
struct TileSelection {
    int zoom = 17;
    /// Quadkeys; one shorter than `zoom` stands for all its descendants at `zoom`.
    std::vector<std::string> quadkeys;
    /// Longitude/latitude box (x = lon, y = lat): every tile it touches. Ignored when empty.
    Box2 bboxLonLat;
    /// More tiles than this is an error (protects against a typo in the zoom).
    std::size_t maxTiles = 65536;
};

/// Everything the pipeline made from one map: read, classified, indexed, rasterized.
/// Not movable: the later stages point into the earlier ones.
struct MapLayers {
    MapData map;
    RuleSet rules;
    ClassifiedMap classified;
    TileIndex index;
    LayerStore store;
    /// Milliseconds spent per stage.
    double readMs = 0, classifyMs = 0, indexMs = 0, rasterizeMs = 0;

    MapLayers() = default;
    MapLayers(const MapLayers&) = delete;
    MapLayers& operator=(const MapLayers&) = delete;
};

/// Reads `input`, classifies it by its rules and rasterizes the selected tiles (with no
/// quadkeys and no box: every tile some layer reaches, keeping only tiles with a set cell).
/// `threads` 0 means one per hardware thread. Progress stages: "reading", "rasterizing".
/// Fails when the rules are invalid, nothing usable was read, the selection is bad, or the job
/// was cancelled; warnings about the data are in map.warnings and classified.warnings.
Result<std::unique_ptr<MapLayers>> buildMapLayers(const MapInput& input, const TileSelection& selection, int threads,
                                                  const ProgressCallback& progress);

/// buildMapLayers without the rasterized tiles: the map read, classified and indexed over the
/// same tiles (with no quadkeys and no box, those with content, found by rasterizing a chunk of
/// tiles at a time and dropping it), `store` left empty. For a bake that rasterizes its tiles a
/// batch at a time, so a whole country's layers are never held at once.
Result<std::unique_ptr<MapLayers>> readMapIndex(const MapInput& input, const TileSelection& selection, int threads,
                                                const ProgressCallback& progress);

/// The tiles a selection names (quadkeys expanded, box covered), sorted north to south; empty
/// when it names none. Errors name the bad quadkey or box.
Result<std::vector<TileId>> selectedTiles(const TileSelection& selection);

/// The zoom to suggest for data with this extent (EPSG:3857 metres): the one whose cells are
/// nearest 1 m on the ground at the extent's centre latitude, lowered until the extent needs at
/// most 4096 tiles; within 0..20.
int suggestedZoom(const Box2& extentMercator);

struct InfoCommand {
    MapInput input;
};
/// Prints the file's format, extent, source layers with feature counts, the features per rules
/// layer and class, the unclassified count, a suggested zoom and the warnings.
int runInfo(const InfoCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress = {});

struct TilesCommand {
    MapInput input;
    TileSelection selection;
    int threads = 0;
};
/// Prints, one per line, the quadkeys of the tiles that hold content (a set cell in some layer).
int runTiles(const TilesCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress = {});

struct RasterizeCommand {
    MapInput input;
    TileSelection selection;
    std::filesystem::path outDir;
    int threads = 0;
};
/// Writes per tile <out>/<quadkey>/preview.png and <out>/<quadkey>/<layer>.tif, and
/// <out>/summary.json (source, rules, zoom, per-layer features and coverage, per-tile coverage
/// and files, warnings, timings). Prints where everything went.
int runRasterize(const RasterizeCommand& command, std::ostream& out, std::ostream& err,
                 const ProgressCallback& progress = {});

}  // namespace terrabit::core::io
