#pragma once
/// exportScene: writes a baked Scene in the formats a designer asks for — what `terrabit-cli
/// bake … --format glb,3dtiles,manifest,layers,collision` calls.
///
/// Files, relative to ExportOptions::outDir:
///   glb        scene.glb                      the whole scene (glb_scene_writer.h)
///   3dtiles    3dtiles/tileset.json           3D Tiles 1.1 (tileset_writer.h)
///              3dtiles/tiles/<quadkey>.glb    one content per baked tile, and a coarse one per
///                                             inner tile of the tree (tileset_levels.h)
///   manifest   manifest.json                  instances, buildings, statistics (manifest_writer.h)
///              instances.bin                  with binary instances (ExportOptions::instances):
///                                             the instances, indexed by the manifest (instance_file.h)
///   layers     layers/<quadkey>/<layer>.tif   GeoTIFF per layer, and layers/<quadkey>/preview.png
///   collision  collision.tbcg                 runtime collision grid (collision/collision_file.h)
///   osgb       scene.osgb                     OpenSceneGraph binary of the render module's scene
///                                             graph (written through ExportOptions::sceneGraphWriter):
///              scene/<quadkey>.osgb           its tiles, a file per group of them (render/scene_export.h)
/// Every file is written to a temporary name in its folder, fsync'd and renamed: a failure (full
/// disk, unwritable folder, cancelled job) leaves no partial file, and the error names the file
/// and the OS reason. Files of formats finished before the failure stay (they are whole).

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/manifest_writer.h"
#include "terrabit/core/export/output_file.h"
#include "terrabit/core/export/scene_part_file.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// One output format.
enum class ExportFormat : std::uint8_t {
    Glb,        ///< "glb": binary glTF 2.0 of the whole scene
    Tiles3d,    ///< "3dtiles": 3D Tiles 1.1 tileset with a GLB per tile
    Manifest,   ///< "manifest": JSON record of instances, buildings, statistics, rules hash, seed
    Layers,     ///< "layers": GeoTIFF per layer and PNG preview per tile
    Collision,  ///< "collision": the runtime collision grid file
    Osgb,       ///< "osgb": the OpenSceneGraph scene graph, as the viewport draws it
};

/// The format's name on the command line: "glb", "3dtiles", "manifest", "layers", "collision",
/// "osgb".
std::string_view exportFormatName(ExportFormat format);

/// Parses a comma-separated list of format names ("glb,3dtiles"); spaces around names are
/// ignored, duplicates collapse, the result is in the enum's order. "all" names every format,
/// osgb only when `withSceneGraph` (the caller can write it: see SceneGraphWriter).
/// Errors: an empty list, an unknown name (the message lists the known ones).
Result<std::vector<ExportFormat>> parseExportFormats(std::string_view list, bool withSceneGraph = false);

struct ExportOptions;

/// Writes a scene as OpenSceneGraph files: `file` and whatever it refers to, its ground painted
/// in options.layerStyles. Returns the files written, relative to `file`'s folder (`file`'s own
/// name among them). Reports its progress (0..1) to `progress`, from the calling thread; when
/// that returns false it stops, leaves what was there before, and returns a Cancelled error.
/// The render module provides it (render/scene_export.h): core knows no OSG, so the osgb
/// format is written through this.
using SceneGraphWriter = std::function<Result<std::vector<std::filesystem::path>>(
    const Scene& scene, const ExportOptions& options, const AssetCatalogue& catalogue, const LayerSource* layers,
    const std::filesystem::path& file, const ProgressCallback& progress)>;

/// The osgb files group a scene's tiles under their ancestor this many levels up (at most 8 × 8
/// tiles a file): a streamed bake that writes osgb cuts its batches only between such groups.
inline constexpr int kSceneGraphGroupLevels = 3;

/// The osgb format written a part of a scene at a time (a streamed bake's batches, each made of
/// whole groups: kSceneGraphGroupLevels): `add` writes the group files of the part's tiles,
/// `finish` the root file that refers to every group written, and only then are they in place.
/// Dropped unfinished, it removes what it wrote. The render module provides it
/// (render/scene_export.h).
class SceneGraphStream {
public:
    virtual ~SceneGraphStream() = default;
    /// Errors: a group some of whose tiles came in an earlier part, and those of the writer.
    virtual Status add(const Scene& part, const LayerSource* layers) = 0;
    /// The files written, relative to the root file's folder (the root's own name among them).
    virtual Result<std::vector<std::filesystem::path>> finish() = 0;
};

/// Opens a SceneGraphStream writing `file` (and its group folder beside it) with `options`'
/// layer styles and threads.
using SceneGraphStreamOpener = std::function<Result<std::unique_ptr<SceneGraphStream>>(
    const ExportOptions& options, const AssetCatalogue& catalogue, const std::filesystem::path& file)>;

/// Writes the osgb root file `file` referring to group files already in place in its group
/// folder (`file`'s stem beside it), one per quadkey in `groups` (ascending): what
/// SceneGraphStream::finish writes, for group files that shards wrote (terrabit-cli merge). The
/// render module provides it (render/scene_export.h).
using SceneGraphRootWriter =
    std::function<Status(std::span<const std::string> groups, const std::filesystem::path& file)>;

/// What to export and how.
struct ExportOptions {
    std::vector<ExportFormat> formats;  ///< what to write (any order; each once)
    std::filesystem::path outDir;       ///< created when missing
    /// glb: one node per instance instead of EXT_mesh_gpu_instancing, for engines without it.
    /// (3D Tiles content always uses the extension, which CesiumJS and Cesium for Unreal/Unity read.)
    bool plainNodes = false;
    /// manifest: the text of the rules document the scene was baked with; its SHA-256 is recorded.
    std::string rulesDocument;
    /// manifest: the instances as JSON lines in the manifest or as instances.bin beside it; Auto
    /// writes instances.bin for more than `binaryInstancesAbove` instances.
    InstanceEncoding instances = InstanceEncoding::Auto;
    std::uint64_t binaryInstancesAbove = kBinaryInstancesAbove;
    /// collision: the blocking layers to write, by name; empty = every layer of the source (at
    /// most 64).
    std::vector<std::string> collisionLayers;
    /// layers: which layers, with preview colours (usually RuleSet layers); empty = every layer
    /// of the source with a fixed palette.
    std::vector<LayerInfo> layerStyles;
    /// 3dtiles: also write each baked tile's level source (3dtiles/levels/<quadkey>.json,
    /// tileset_levels.h), from which a merge rebuilds the coarse levels: set for the parts of a
    /// bake (shards, a streamed bake's batches).
    bool levelSources = false;
    /// glb: write the scene's share of scene.glb as scene.part (scene_part_file.h) instead of a
    /// GLB of its tiles alone: set for shards, whose merge encodes scene.glb from every shard's.
    bool scenePart = false;
    /// 3dtiles, osgb: tile contents (osgb: groups of tiles) encoded at once; 0: one per hardware
    /// thread. Any count writes the same files.
    int threads = 0;
    /// glb, 3dtiles: the ground's colour, sRGB.
    std::array<std::uint8_t, 3> groundColour{124, 133, 98};
    /// For tests of the failure paths: faults injected into every file written through
    /// OutputFile (glb, 3dtiles, manifest, collision). Null in normal use.
    WriteFaults* faults = nullptr;
    /// osgb: the writer of the scene graph file; without one, asking for osgb is an error that
    /// says the tool was built without the render module.
    SceneGraphWriter sceneGraphWriter;
    /// osgb a part at a time (a streamed bake); empty when the tool has no render module.
    SceneGraphStreamOpener sceneGraphStream;
};

/// One file written.
struct ExportedFile {
    ExportFormat format = ExportFormat::Glb;
    std::filesystem::path path;  ///< relative to ExportOptions::outDir
    std::uint64_t bytes = 0;     ///< size on disk
};

/// What an export wrote, in writing order.
struct ExportReport {
    std::vector<ExportedFile> files;
    /// Total bytes of the files of one format.
    std::uint64_t bytesOf(ExportFormat format) const;
};

/// Writes the scene in every requested format. `catalogue` resolves Scene::assets to model
/// files (glb, 3dtiles); `layers` provides the bit layers (layers, collision; may be null when
/// neither is asked for). Progress goes from 0 to 1 over all formats; a false return from the
/// callback cancels the export ("export cancelled"), removing the file being written.
/// Errors: nothing to export, a scene that fails checkSceneForExport, an asset missing from the
/// catalogue or whose model file is missing or corrupt (naming asset and file), a layer source
/// missing or without a requested layer, any write failure (naming the file and the OS reason).
Result<ExportReport> exportScene(const Scene& scene, const ExportOptions& options, const AssetCatalogue& catalogue,
                                 const LayerSource* layers, const ProgressCallback& progress = {});

/// scene.glb of a bake written a part at a time (a streamed bake's batches, in their order): the
/// file exportScene writes for the whole scene, byte for byte (GlbSceneStream), holding in memory
/// only the part being added; or, with ExportOptions::scenePart (a streamed shard), its
/// scene.part. Asset models are read once, when a part first uses them.
class GlbExportStream {
public:
    /// `spillFolder`: where the encoded data waits until finish (unnamed files). Uses the glb
    /// options of `options` (plainNodes, groundColour, faults, outDir, scenePart).
    static Result<GlbExportStream> open(const ExportOptions& options, const std::filesystem::path& spillFolder);
    /// Encodes every tile of `part` (GlbSceneStream::add), or appends it to scene.part. Errors
    /// also name an asset the catalogue does not know or whose model cannot be read.
    Status add(const Scene& part, const AssetCatalogue& catalogue);
    /// Writes scene.glb (or puts scene.part in place) in options.outDir (temporary name, fsync,
    /// rename), reporting the share written to `progress` ("writing scene.glb"); a false return
    /// cancels, leaving no file.
    Result<ExportedFile> finish(const ProgressCallback& progress = {});
    /// Bytes of encoded data held in memory (GlbSceneStream::heldBytes; none for scene.part).
    std::uint64_t heldBytes() const { return mStream ? mStream->heldBytes() : 0; }

private:
    GlbExportStream(std::optional<GlbSceneStream> stream, std::optional<ScenePartWriter> part,
                    std::filesystem::path outDir, WriteFaults* faults)
        : mStream(std::move(stream)), mPart(std::move(part)), mOutDir(std::move(outDir)), mFaults(faults) {}
    std::optional<GlbSceneStream> mStream;
    std::optional<ScenePartWriter> mPart;  ///< instead of mStream, for a shard
    std::filesystem::path mOutDir;
    WriteFaults* mFaults = nullptr;
    std::map<std::string, AssetMesh> mMeshes;  ///< the models read so far, by asset id
};

}  // namespace terrabit::core
