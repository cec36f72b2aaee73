#pragma once
/// scene.part: a shard's share of scene.glb, kept for `terrabit-cli merge` to encode the whole
/// file from (GlbSceneStream). A GLB cannot be joined from other GLBs — its meshes, accessors and
/// nodes are numbered across the whole file — so a shard keeps what the GLB encoder reads of its
/// scene instead: the parts it baked (one, or a streamed shard's batches, in its tile order), and
/// each asset model the first time a part uses it. Merging the shards' parts in quadkey order
/// gives the bytes one machine writes.
///
/// Layout: every number little-endian; floats IEEE 754; a string is a uint32 byte count and its
/// UTF-8 bytes; an array is a uint64 element count and its elements.
///
///     header
///       char[8]    "TBSCPART"
///       uint32     version (1)
///       uint8      plain nodes (GlbSceneOptions::plainNodes), uint8[3] ground colour (sRGB)
///       string     generator, string copyright
///     parts, each
///       char[4]    "PART", uint64 payload bytes, then the payload:
///         models first used by this part: uint32 count, each an asset id and its mesh (float32
///           arrays positions, normals, colours; uint32 array indices)
///         the scene: origin lon, lat (float64), zoom (int32), seed (uint64), block cells (int32),
///           terrain (uint8), origin height (float64); tiles (zoom int32, x, y uint32); asset ids;
///           source ids; instance blocks; surface patches; plinths; bridge decks; generated
///           buildings; ground meshes — the fields of Scene (scene.h) the GLB encoder reads
///     end
///       char[4]    "DONE", uint64 parts
/// The file is internal to a bake and its merge: a reader of another version refuses it.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/output_file.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

inline constexpr const char* kScenePartFile = "scene.part";

/// Writes a scene.part a part at a time, through an OutputFile (whole or not at all).
class ScenePartWriter {
public:
    /// Opens `file` for writing with the GLB options the merge is to encode with. Errors name the
    /// file and the OS reason.
    static Result<ScenePartWriter> open(const std::filesystem::path& file, const GlbSceneOptions& options,
                                        WriteFaults* faults = nullptr);
    ScenePartWriter(ScenePartWriter&&) noexcept;
    ScenePartWriter& operator=(ScenePartWriter&&) noexcept;
    ~ScenePartWriter();

    /// Appends a part: `meshes` index-aligned with part.assets. Parts go in the GLB's tile order.
    Status add(const Scene& part, std::span<const AssetMesh> meshes);
    /// Ends the file and puts it in place; returns its size in bytes.
    Result<std::uint64_t> finish();

private:
    ScenePartWriter();
    struct Impl;
    std::unique_ptr<Impl> mImpl;
};

/// Reads a scene.part back, a part at a time.
class ScenePartReader {
public:
    /// Opens `file` and reads its header. Errors name the file: missing, not a scene.part, of
    /// another version.
    static Result<ScenePartReader> open(const std::filesystem::path& file);
    ScenePartReader(ScenePartReader&&) noexcept;
    ScenePartReader& operator=(ScenePartReader&&) noexcept;
    ~ScenePartReader();

    /// The GLB options the shard was baked with (plainNodes, groundColour, generator, copyright).
    const GlbSceneOptions& options() const;
    /// Reads the next part into `part` and `meshes` (index-aligned with part.assets): true, or
    /// false after the last one. Errors name the file and the part: a truncated file (a shard
    /// that did not finish), a count or size beyond the file, a model used before it was given.
    /// The scene itself is checked by whoever encodes it (checkSceneForExport).
    Result<bool> next(Scene& part, std::vector<AssetMesh>& meshes);

private:
    ScenePartReader();
    struct Impl;
    std::unique_ptr<Impl> mImpl;
};

}  // namespace terrabit::core
