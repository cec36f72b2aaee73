#pragma once
// Reading exported GLB files back with tinygltf, for the export tests.

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace terrabit::test {

/// Parses GLB bytes; a parse failure fails the calling test.
inline tinygltf::Model loadGlb(const std::vector<std::uint8_t>& bytes) {
    tinygltf::TinyGLTF loader;
    tinygltf::Model model;
    std::string err, warn;
    const bool ok = loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), static_cast<unsigned>(bytes.size()));
    EXPECT_TRUE(ok) << err;
    EXPECT_TRUE(err.empty()) << err;
    return model;
}

/// The elements of a tightly packed accessor as T (float, uint16_t or uint32_t as stored).
template <class T>
std::vector<T> accessorData(const tinygltf::Model& model, int index) {
    const tinygltf::Accessor& a = model.accessors.at(static_cast<std::size_t>(index));
    const tinygltf::BufferView& v = model.bufferViews.at(static_cast<std::size_t>(a.bufferView));
    const tinygltf::Buffer& b = model.buffers.at(static_cast<std::size_t>(v.buffer));
    const std::size_t components = static_cast<std::size_t>(tinygltf::GetNumComponentsInType(a.type));
    EXPECT_EQ(static_cast<std::size_t>(tinygltf::GetComponentSizeInBytes(a.componentType)), sizeof(T));
    EXPECT_TRUE(v.byteStride == 0 || v.byteStride == components * sizeof(T));
    std::vector<T> out(a.count * components);
    const std::size_t offset = v.byteOffset + a.byteOffset;
    EXPECT_LE(offset + out.size() * sizeof(T), b.data.size());
    EXPECT_EQ(offset % sizeof(T), 0u);  // glTF alignment rule
    std::memcpy(out.data(), b.data.data() + offset, out.size() * sizeof(T));
    return out;
}

/// The triangle indices of a primitive, whatever their stored width.
inline std::vector<std::uint32_t> indexData(const tinygltf::Model& model, int index) {
    const tinygltf::Accessor& a = model.accessors.at(static_cast<std::size_t>(index));
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) {
        const auto small = accessorData<std::uint16_t>(model, index);
        return std::vector<std::uint32_t>(small.begin(), small.end());
    }
    return accessorData<std::uint32_t>(model, index);
}

/// A NORMAL accessor's unit vectors as floats, x, y, z per vertex: as stored when float, decoded
/// when normalised signed bytes (KHR_mesh_quantization, 4-byte stride, value / 127 clamped at -1).
inline std::vector<float> normalData(const tinygltf::Model& model, int index) {
    const tinygltf::Accessor& a = model.accessors.at(static_cast<std::size_t>(index));
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT) return accessorData<float>(model, index);
    EXPECT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_BYTE);
    EXPECT_TRUE(a.normalized);
    EXPECT_EQ(a.type, TINYGLTF_TYPE_VEC3);
    const tinygltf::BufferView& v = model.bufferViews.at(static_cast<std::size_t>(a.bufferView));
    const tinygltf::Buffer& b = model.buffers.at(static_cast<std::size_t>(v.buffer));
    EXPECT_EQ(v.byteStride, 4u);
    std::vector<float> out;
    out.reserve(a.count * 3);
    const std::size_t offset = v.byteOffset + a.byteOffset;
    EXPECT_LE(offset + a.count * 4, b.data.size());
    for (std::size_t i = 0; i < a.count; ++i) {
        for (std::size_t c = 0; c < 3; ++c) {
            const auto q = static_cast<std::int8_t>(b.data[offset + i * 4 + c]);
            out.push_back(std::max(static_cast<float>(q) / 127.0f, -1.0f));
        }
    }
    return out;
}

/// An instance ROTATION accessor's quaternions as floats, x, y, z, w per instance: normalised
/// signed shorts (EXT_mesh_gpu_instancing), decoded as glTF says (value / 32767 clamped at -1).
inline std::vector<float> rotationData(const tinygltf::Model& model, int index) {
    const tinygltf::Accessor& a = model.accessors.at(static_cast<std::size_t>(index));
    EXPECT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_SHORT);
    EXPECT_TRUE(a.normalized);
    EXPECT_EQ(a.type, TINYGLTF_TYPE_VEC4);
    std::vector<float> out;
    for (const std::int16_t q : accessorData<std::int16_t>(model, index)) {
        out.push_back(std::max(static_cast<float>(q) / 32767.0f, -1.0f));
    }
    return out;
}

/// The node indices under `node` in depth-first order (the node itself first).
inline void collectNodes(const tinygltf::Model& model, int node, std::vector<int>& out) {
    out.push_back(node);
    for (int c : model.nodes.at(static_cast<std::size_t>(node)).children) collectNodes(model, c, out);
}

}  // namespace terrabit::test
