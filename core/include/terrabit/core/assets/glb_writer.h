#pragma once
/// Writes an AssetMesh as a binary glTF 2.0 file (GLB) with tinygltf: one scene, one node, one
/// mesh with one triangle primitive carrying POSITION (float, with min/max), NORMAL (float),
/// COLOR_0 (normalised unsigned short RGBA, linear) and 16- or 32-bit indices, and one plain
/// PBR material (white base colour, not metallic, rough) so viewers show the vertex colours.
/// The output depends only on the mesh and the options: the same input gives the same bytes.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

/// What goes into the file besides the geometry.
struct GlbWriteOptions {
    std::string name;                    ///< node, mesh and material name, e.g. the asset id
    std::string generator = "Terrabit";  ///< asset.generator
    std::string copyright;               ///< asset.copyright; omitted when empty
};

/// Encodes the mesh as GLB bytes. Errors: an empty or invalid mesh (see AssetMesh::validate).
Result<std::vector<std::uint8_t>> encodeGlb(const AssetMesh& mesh, const GlbWriteOptions& options = {});

/// Encodes the mesh and writes it to `file` (replacing it). Errors name the file.
Status writeGlb(const AssetMesh& mesh, const std::filesystem::path& file, const GlbWriteOptions& options = {});

}  // namespace terrabit::core
