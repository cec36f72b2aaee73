// Fuzzes the model reader (readAssetMesh): the bytes as a user's model file in a folder of its
// own, binary glTF when they start with the GLB magic, JSON glTF when they start with '{', else
// Wavefront OBJ. Contracts beyond "no crash, no UB": an error names the file; a model that reads
// has triangles and passes AssetMesh::validate (every index in range, every value finite), since
// its bounds become a prefab's footprint and its arrays the viewport's and every export's.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "terrabit/core/assets/asset_mesh.h"

using namespace terrabit;
using fuzz::require;

namespace {

/// A folder only this process writes in: a .gltf's relative buffer and an .obj's material
/// library resolve against it and find nothing there.
const std::filesystem::path& folder() {
    static const std::filesystem::path dir = fuzz::scratchFolder("terrabit-model-fuzz");
    return dir;
}

std::string_view extensionOf(std::string_view bytes) {
    if (bytes.starts_with("glTF")) return ".glb";
    const std::size_t first = bytes.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && bytes[first] == '{' ? ".gltf" : ".obj";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 256 * 1024) return 0;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const std::filesystem::path file = folder() / ("model" + std::string(extensionOf(bytes)));
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        require(out.good(), "the fuzz input is written");
    }
    const core::Result<core::AssetMesh> mesh = core::readAssetMesh(file);
    if (!mesh) {
        require(mesh.message().starts_with("model '" + file.string() + "'"), "a model error names the file");
        return 0;
    }
    require(!mesh->empty(), "a model that reads has triangles");
    const core::Status valid = mesh->validate();
    if (!valid) std::fprintf(stderr, "%s\n", valid.message().c_str());
    require(valid.ok(), "a model that reads is a valid mesh");
    const core::ModelBounds b = mesh->bounds();
    require(!b.empty(), "a model that reads has bounds");
    return 0;
}
