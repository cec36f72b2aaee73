#pragma once
/// AssetMesh: a model flattened into one indexed triangle list in model space, the form
/// placement measures, the renderer draws and exporters write. Reading glTF/GLB/OBJ files into
/// it is the only place Terrabit parses model files, so every consumer sees the same triangles.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/colour.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

/// Indexed triangles with one normal and one colour per vertex. Every node transform of the
/// source file is applied, so positions are in model space: metres, Y up, the conventions of
/// asset_info.h. A default-constructed mesh is empty and valid.
struct AssetMesh {
    std::vector<float> positions;  ///< x, y, z per vertex, metres
    std::vector<float> normals;    ///< unit x, y, z per vertex, pointing out of the front face
    /// Linear-light r, g, b, a per vertex in [0, 1] (the glTF colour space; a renderer without
    /// sRGB framebuffers converts to sRGB before display).
    std::vector<float> colours;
    /// Three vertex indices per triangle, counter-clockwise seen from the front (glTF's rule).
    std::vector<std::uint32_t> indices;

    /// Number of vertices (positions / 3).
    std::size_t vertexCount() const { return positions.size() / 3; }
    /// Number of triangles (indices / 3).
    std::size_t triangleCount() const { return indices.size() / 3; }
    /// True when there is no triangle.
    bool empty() const { return indices.empty(); }
    /// The box over every vertex used by a triangle, metres; empty for an empty mesh.
    ModelBounds bounds() const;
    /// Footprint and height measured from bounds(): width = X extent, depth = Z extent,
    /// height = Y extent (all metres; zero for an empty mesh).
    AssetFootprint footprint() const { return {bounds().size(0), bounds().size(2)}; }
    double height() const { return bounds().size(1); }
    /// Appends another mesh (indices are offset).
    void append(const AssetMesh& other);
    /// Checks the arrays agree: sizes are multiples of 3 (4 for colours) and match the vertex
    /// count, every index is in range, every value is finite. The error says which array and
    /// which element.
    Status validate() const;
};

/// Reads a model file into one mesh. The format is found from the content: a file that starts
/// with the GLB magic "glTF" is binary glTF, a ".gltf" file is JSON glTF (external buffers are
/// resolved against its folder), a ".obj" file is Wavefront OBJ (its .mtl files beside it).
/// glTF: the default scene (else the first, else every root node) is walked with node matrices
/// and TRS applied; triangle lists, strips and fans are read, points and lines skipped; colours
/// are COLOR_0 times baseColorFactor; missing normals become flat face normals. OBJ: polygons
/// are triangulated, colours are vertex colours times Kd (read as sRGB, stored linear).
/// Errors name the file and what is wrong (missing, unreadable, corrupt, an accessor out of its
/// buffer, no triangles); a damaged file never crashes the reader.
Result<AssetMesh> readAssetMesh(const std::filesystem::path& file);

/// A building's colours as seen from afar: its walls' and its roof's.
struct FacadeColours {
    Rgb walls;
    Rgb roof;
    friend constexpr bool operator==(FacadeColours, FacadeColours) = default;
};

/// The colours of a building whose model says none: a light stone.
inline constexpr FacadeColours kStoneFacade{{196, 188, 176}, {196, 188, 176}};

/// The mean colour of a model's walls (faces within 30° of vertical) and of its roof (faces
/// turned up more than that), each weighted by area and averaged in linear light; faces turned
/// down are left out. A model without one of them takes the other's for it, and one with
/// neither (no triangle, no colours) `fallback`.
FacadeColours facadeColours(const AssetMesh& mesh, FacadeColours fallback);

/// Converts an sRGB-encoded channel value in [0, 1] to linear light.
double srgbToLinear(double c);
/// Converts a linear-light channel value in [0, 1] to sRGB encoding.
double linearToSrgb(double c);
/// A linear-light channel value (clamped to [0, 1]) as an sRGB byte, rounded.
std::uint8_t linearToSrgbByte(double c);

}  // namespace terrabit::core
