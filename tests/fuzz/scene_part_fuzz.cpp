// Fuzzes the scene.part reader (ScenePartReader), which `terrabit-cli merge` runs on every
// shard's file, then what merge does with a part read: checkSceneForExport and the GLB encoder.
// Contracts beyond "no crash, no UB, no allocation beyond the input": every reader error names
// the file; a part read has one model per asset; the encoder either encodes a part or refuses it
// with a message, and a stream that took every part finishes.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/scene_part_file.h"

using namespace terrabit;
using fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 18)) return 0;
    static const std::filesystem::path file = fuzz::scratchFolder("terrabit-scene-part-fuzz") / "scene.part";
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    auto reader = core::ScenePartReader::open(file);
    if (!reader) {
        require(reader.message().find(file.string()) != std::string::npos, "an open error names the file");
        return 0;
    }
    auto stream = core::GlbSceneStream::open(reader->options());
    require(stream.ok(), "an in-memory GLB stream opens");
    bool streamOk = true;
    core::Scene part;
    std::vector<core::AssetMesh> meshes;
    for (int parts = 0; parts < 64; ++parts) {
        auto more = reader->next(part, meshes);
        if (!more) {
            require(more.message().find(file.string()) != std::string::npos, "a read error names the file");
            return 0;
        }
        if (!*more) break;
        require(meshes.size() == part.assets.size(), "a part read has a model per asset");
        // Big parts are left to the reader's checks: encoding them is slow, not interesting.
        if (!streamOk || part.tiles.size() > 16 || part.blocks.size() > 256) continue;
        const core::Status added = stream->add(part, meshes);
        require(added.ok() || !added.message().empty(), "a refused part says why");
        streamOk = added.ok();
    }
    if (streamOk) {
        std::size_t bytes = 0;
        const core::Status finished = stream->finish([&](std::span<const std::uint8_t> b) {
            bytes += b.size();
            return core::Status::success();
        });
        require(finished.ok() || !finished.message().empty(), "a failed finish says why");
    }
    return 0;
}
