#pragma once
/// `terrabit-cli bake`: read a map, rasterize its tiles, run the placement passes of the rules
/// document and write the scene (the manifest by default) — as a library function main.cpp and
/// tests call. The formats are written by terrabit::export; a streamed bake's batches are joined
/// by terrabit::scale.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <vector>

#include "terrabit/cli/map_commands.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/scale/shard_plan.h"
#include "terrabit/core/terrain/ground_mesh.h"

namespace terrabit::cli {

/// What a bake held at once, for tests that show a streamed bake stays bounded.
struct BakeFootprint {
    std::size_t batches = 0;          ///< 1 when the whole bake ran at once
    std::size_t tiles = 0;            ///< tiles of the bake
    std::size_t peakRasterTiles = 0;  ///< most tiles' layers held at once
    std::size_t peakSceneTiles = 0;   ///< most tiles in one Scene
    std::size_t peakInstances = 0;    ///< most instances in one Scene
    /// Most bytes of encoded scene.glb data held in memory between a streamed bake's batches
    /// (the rest waits in unnamed files); 0 when no GLB was streamed.
    std::uint64_t peakGlbHeldBytes = 0;
};

/// Tiles per batch of a streamed bake by default. Streaming costs time — each batch bakes its
/// halo again, and the join writes the manifest a second time: the Monaco region (1,608 tiles
/// at zoom 17, 2.2 million instances) takes 4.5 s in batches of 256 against 3.9 s at once, and
/// 5.8 s in batches of 64, to save a third (a half) of its 570 MB — so a city-sized map bakes
/// at once and only bigger maps stream, in batches of a dense city's size, where the halo is a
/// small share of each batch.
inline constexpr std::size_t kDefaultBatchTiles = 2048;

struct BakeCommand {
    MapInput input;           ///< the map and the rules document (layers, expressions, passes)
    TileSelection selection;  ///< zoom and tiles (default: every tile with content)
    int threads = 0;          ///< 0: one per core; any count gives the same scene
    std::uint64_t seed = 0;   ///< the scene seed
    int blockCells = 32;      ///< instance blocks of n × n cells
    std::filesystem::path outDir;
    std::vector<core::ExportFormat> formats{core::ExportFormat::Manifest};
    /// glb: one node per instance instead of EXT_mesh_gpu_instancing, for engines without it.
    bool plainNodes = false;
    /// manifest: the instances as JSON lines or as instances.bin beside it (manifest_writer.h).
    /// Auto writes instances.bin above `binaryInstancesAbove` instances, at once or streamed (a
    /// streamed bake's batches write binary and their join picks by the total); a shard does not
    /// know the whole bake's count, so under Auto it writes JSON unless asked for binary.
    core::InstanceEncoding instances = core::InstanceEncoding::Auto;
    /// Auto's threshold (core::kBinaryInstancesAbove; tests lower it).
    std::uint64_t binaryInstancesAbove = core::kBinaryInstancesAbove;
    /// The asset catalogue; empty: <resources>/assets/catalogue.yaml beside the rules' resources
    /// (resolved by main).
    std::filesystem::path catalogue;
    /// Writes the osgb format (render::sceneGraphFileWriter, when the render module is built).
    core::SceneGraphWriter sceneGraphWriter;
    /// Writes it a batch at a time in a streamed bake (render::sceneGraphFileStream); without
    /// one, a bake asking for osgb holds every tile's scene at once.
    core::SceneGraphStreamOpener sceneGraphStream;
    /// Writes the osgb root for the group files of joined shards (render::sceneGraphRootWriter):
    /// what `--mpi` merges its units with.
    core::SceneGraphRootWriter sceneGraphRoot;
    /// Part K of N of the tiles (scale/shard_plan.h); the default (count 0) is the whole bake. A shard
    /// bakes its tiles plus the halo they depend on in the whole bake's frame, writes its own
    /// tiles only and, last, <outDir>/shard.json for `terrabit-cli merge`.
    core::scale::ShardSpec shard;
    /// Streaming: the tiles are baked in batches of at most this many (runs of consecutive
    /// quadkeys, each with its halo, like shards), rasterized per batch and dropped after it, and
    /// the batches joined (scale::mergeParts) — the same files, byte for byte, as one bake of
    /// everything. The joinable formats (manifest, 3dtiles, layers, collision) are written per
    /// batch and joined; glb and osgb are written a batch at a time into their one file (osgb:
    /// one file per group of tiles, so with osgb the batches hold whole groups and may be up to
    /// 64 tiles larger; without sceneGraphStream a bake asking for osgb holds the whole scene).
    /// A shard streams its own tiles. 0: never stream.
    std::size_t batchTiles = kDefaultBatchTiles;
    /// Most batches whose parts are joined at once (scale::mergeParts' maxOpen).
    std::size_t joinMaxOpen = 256;
    /// Elevation (SessionInput::dems): buildings, plants and plinths stand on the terrain and the
    /// scene's y = 0 is its originHeight. Empty: the flat world, byte for byte as before.
    std::vector<std::filesystem::path> dems;
    /// With DEMs: the vertical error bound of the ground meshes, metres (BakeOptions); unset:
    /// the rules' `ground_error`.
    std::optional<float> groundError;
    /// When set, filled with what the bake held at once.
    BakeFootprint* footprint = nullptr;
};

/// Bakes and writes the scene. On `out`: the tiles, what the passes did (tiles run, time), the
/// buildings placed / blocked / unmatched, instances per asset, requested against achieved
/// vegetation density, and the files written. On `err`: progress (through `progress`), warnings
/// about the data and the bake, and errors. Returns 0 when a scene was written, 1 when nothing
/// usable was read, nothing could be baked or a file could not be written, 2 for bad arguments,
/// rules or catalogue. A streamed bake works in <outDir>/.terrabit-batches, removed at the end.
int runBake(const BakeCommand& command, std::ostream& out, std::ostream& err, const ProgressCallback& progress = {});

}  // namespace terrabit::cli
