#pragma once
/// `terrabit-cli bake`: read a map, rasterize its tiles, run the placement passes of the rules
/// document and write the scene (the manifest by default) — as a library function main.cpp and
/// tests call. The export formats are written by terrabit::export, which itself builds on
/// terrabit::io; so the exporter is passed in (main passes exportScene) instead of linked here.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/io/map_commands.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scale/shard_plan.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core::io {

/// Writes a scene: the shape of terrabit::core::exportScene.
using SceneExporter = std::function<Result<ExportReport>(const Scene&, const ExportOptions&, const AssetCatalogue&,
                                                         const LayerSource*, const ProgressCallback&)>;

struct BakeCommand {
    MapInput input;           ///< the map and the rules document (layers, expressions, passes)
    TileSelection selection;  ///< zoom and tiles (default: every tile with content)
    int threads = 0;          ///< 0: one per core; any count gives the same scene
    std::uint64_t seed = 0;   ///< the scene seed
    int blockCells = 32;      ///< instance blocks of n × n cells
    std::filesystem::path outDir;
    std::vector<ExportFormat> formats{ExportFormat::Manifest};
    /// glb: one node per instance instead of EXT_mesh_gpu_instancing, for engines without it.
    bool plainNodes = false;
    /// The asset catalogue; empty: <resources>/assets/catalogue.yaml beside the rules' resources
    /// (resolved by main).
    std::filesystem::path catalogue;
    SceneExporter exporter;  ///< required: writes the formats
    /// Part K of N of the tiles (scale/shard_plan.h); the default (count 0) is the whole bake. A shard
    /// bakes its tiles plus the halo they depend on in the whole bake's frame, writes its own
    /// tiles only and, last, <outDir>/shard.json for `terrabit-cli merge`.
    scale::ShardSpec shard;
};

/// Bakes and writes the scene. On `out`: the tiles, what the passes did (tiles run, time), the
/// buildings placed / blocked / unmatched, instances per asset, requested against achieved
/// vegetation density, and the files written. On `err`: progress (through `progress`), warnings
/// about the data and the bake, and errors. Returns 0 when a scene was written, 1 when nothing
/// usable was read, nothing could be baked or a file could not be written, 2 for bad arguments,
/// rules or catalogue.
int runBake(const BakeCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress = {});

}  // namespace terrabit::core::io
