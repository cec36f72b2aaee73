#pragma once
// Hand-built glTF files for the reader tests, written with nlohmann::json and raw bytes so that
// they do not depend on Terrabit's own GLB writer.

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "asset_test_support.h"

namespace terrabit::core::test {

/// One glTF mesh primitive and the node tree that places it.
struct GltfFixture {
    std::vector<float> positions;        ///< x, y, z per vertex
    std::vector<float> normals;          ///< empty: no NORMAL attribute
    std::vector<std::uint16_t> indices;  ///< empty: non-indexed
    int mode = 4;                        ///< TRIANGLES
    std::array<double, 4> baseColour{1, 1, 1, 1};
    nlohmann::json nodes = nlohmann::json::array();  ///< node 0.. ; the mesh is mesh 0
    nlohmann::json sceneRoots = nlohmann::json::array({0});
    int positionCountOverride = -1;  ///< > 0: claim this many positions (a corrupt file)
};

/// A unit cube centred on the origin: 24 vertices (4 per face, outward normals), 36 indices,
/// faces counter-clockwise seen from outside.
inline GltfFixture unitCube() {
    GltfFixture f;
    for (int axis = 0; axis < 3; ++axis) {
        for (int sign : {1, -1}) {
            // Tangents u, v with u × v = sign · e_axis.
            std::array<float, 3> n{0, 0, 0}, u{0, 0, 0}, v{0, 0, 0};
            n[static_cast<std::size_t>(axis)] = static_cast<float>(sign);
            u[static_cast<std::size_t>((axis + 1) % 3)] = 1;
            v[static_cast<std::size_t>((axis + 2) % 3)] = static_cast<float>(sign);
            const auto base = static_cast<std::uint16_t>(f.positions.size() / 3);
            const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
            for (const auto& c : corners) {
                for (std::size_t k = 0; k < 3; ++k) {
                    f.positions.push_back(0.5f * n[k] + 0.5f * c[0] * u[k] + 0.5f * c[1] * v[k]);
                    f.normals.push_back(n[k]);
                }
            }
            for (int i : {0, 1, 2, 0, 2, 3}) f.indices.push_back(static_cast<std::uint16_t>(base + i));
        }
    }
    return f;
}

/// Writes `name`.gltf with its buffer in `name`.bin beside it; returns the .gltf path.
inline std::filesystem::path writeGltf(const std::filesystem::path& dir, const std::string& name,
                                       const GltfFixture& f) {
    std::vector<std::uint8_t> bin;
    auto append = [&bin](const void* data, std::size_t size) {
        while (bin.size() % 4) bin.push_back(0);
        const std::size_t offset = bin.size();
        const auto* p = static_cast<const std::uint8_t*>(data);
        bin.insert(bin.end(), p, p + size);
        return offset;
    };
    nlohmann::json views = nlohmann::json::array();
    nlohmann::json accessors = nlohmann::json::array();
    nlohmann::json attributes;
    const std::size_t count = f.positions.size() / 3;
    {
        const std::size_t off = append(f.positions.data(), f.positions.size() * 4);
        views.push_back({{"buffer", 0}, {"byteOffset", off}, {"byteLength", f.positions.size() * 4}});
        std::array<float, 3> lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
        for (std::size_t i = 0; i < count; ++i) {
            for (std::size_t k = 0; k < 3; ++k) {
                lo[k] = std::min(lo[k], f.positions[i * 3 + k]);
                hi[k] = std::max(hi[k], f.positions[i * 3 + k]);
            }
        }
        const std::size_t claimed =
            f.positionCountOverride > 0 ? static_cast<std::size_t>(f.positionCountOverride) : count;
        accessors.push_back({{"bufferView", views.size() - 1},
                             {"componentType", 5126},
                             {"count", claimed},
                             {"type", "VEC3"},
                             {"min", lo},
                             {"max", hi}});
        attributes["POSITION"] = accessors.size() - 1;
    }
    if (!f.normals.empty()) {
        const std::size_t off = append(f.normals.data(), f.normals.size() * 4);
        views.push_back({{"buffer", 0}, {"byteOffset", off}, {"byteLength", f.normals.size() * 4}});
        accessors.push_back(
            {{"bufferView", views.size() - 1}, {"componentType", 5126}, {"count", count}, {"type", "VEC3"}});
        attributes["NORMAL"] = accessors.size() - 1;
    }
    nlohmann::json primitive{{"attributes", attributes}, {"mode", f.mode}, {"material", 0}};
    if (!f.indices.empty()) {
        const std::size_t off = append(f.indices.data(), f.indices.size() * 2);
        views.push_back({{"buffer", 0}, {"byteOffset", off}, {"byteLength", f.indices.size() * 2}});
        accessors.push_back({{"bufferView", views.size() - 1},
                             {"componentType", 5123},
                             {"count", f.indices.size()},
                             {"type", "SCALAR"}});
        primitive["indices"] = accessors.size() - 1;
    }
    while (bin.size() % 4) bin.push_back(0);
    nlohmann::json doc{
        {"asset", {{"version", "2.0"}, {"generator", "terrabit tests"}}},
        {"buffers", nlohmann::json::array({{{"uri", name + ".bin"}, {"byteLength", bin.size()}}})},
        {"bufferViews", views},
        {"accessors", accessors},
        {"materials", nlohmann::json::array({{{"pbrMetallicRoughness", {{"baseColorFactor", f.baseColour}}}}})},
        {"meshes", nlohmann::json::array({{{"primitives", nlohmann::json::array({primitive})}}})},
        {"nodes", f.nodes},
        {"scenes", nlohmann::json::array({{{"nodes", f.sceneRoots}}})},
        {"scene", 0},
    };
    writeBytes(dir / (name + ".bin"), bin);
    const std::filesystem::path file = dir / (name + ".gltf");
    writeText(file, doc.dump(2));
    return file;
}

}  // namespace terrabit::core::test
