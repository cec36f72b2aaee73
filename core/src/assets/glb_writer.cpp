#include "terrabit/core/assets/glb_writer.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace terrabit::core {

namespace {

constexpr int kArrayBuffer = 34962;         // GL_ARRAY_BUFFER
constexpr int kElementArrayBuffer = 34963;  // GL_ELEMENT_ARRAY_BUFFER

// Appends raw bytes to the buffer, first padding it to a 4-byte boundary (glTF wants every
// vertex attribute aligned to its component size, and 4 covers all of ours).
std::size_t appendAligned(std::vector<unsigned char>& buffer, const void* data, std::size_t size) {
    while (buffer.size() % 4 != 0) buffer.push_back(0);
    const std::size_t offset = buffer.size();
    const auto* bytes = static_cast<const unsigned char*>(data);
    buffer.insert(buffer.end(), bytes, bytes + size);
    return offset;
}

int addView(tinygltf::Model& model, std::size_t offset, std::size_t length, int target) {
    tinygltf::BufferView view;
    view.buffer = 0;
    view.byteOffset = offset;
    view.byteLength = length;
    view.target = target;
    model.bufferViews.push_back(view);
    return static_cast<int>(model.bufferViews.size() - 1);
}

int addAccessor(tinygltf::Model& model, int view, int componentType, int type, std::size_t count, bool normalized) {
    tinygltf::Accessor acc;
    acc.bufferView = view;
    acc.byteOffset = 0;
    acc.componentType = componentType;
    acc.type = type;
    acc.count = count;
    acc.normalized = normalized;
    model.accessors.push_back(acc);
    return static_cast<int>(model.accessors.size() - 1);
}

}  // namespace

Result<std::vector<std::uint8_t>> encodeGlb(const AssetMesh& mesh, const GlbWriteOptions& options) {
    if (Status s = mesh.validate(); !s) return Error{"cannot write '" + options.name + "': " + s.message()};
    if (mesh.empty()) return Error{"cannot write '" + options.name + "': the mesh has no triangles"};
    try {
        tinygltf::Model model;
        model.asset.version = "2.0";
        model.asset.generator = options.generator;
        if (!options.copyright.empty()) model.asset.copyright = options.copyright;

        tinygltf::Buffer buffer;
        const std::size_t n = mesh.vertexCount();
        const std::size_t posOffset = appendAligned(buffer.data, mesh.positions.data(), mesh.positions.size() * 4);
        const std::size_t nrmOffset = appendAligned(buffer.data, mesh.normals.data(), mesh.normals.size() * 4);
        // Colours as normalised 16-bit: half the bytes of floats and no visible banding even in
        // dark linear values.
        std::vector<std::uint16_t> colours(mesh.colours.size());
        for (std::size_t i = 0; i < colours.size(); ++i) {
            colours[i] = static_cast<std::uint16_t>(std::lround(std::clamp(mesh.colours[i], 0.0f, 1.0f) * 65535.0));
        }
        const std::size_t colOffset = appendAligned(buffer.data, colours.data(), colours.size() * 2);
        std::size_t idxOffset = 0;
        std::size_t idxLength = 0;
        int idxType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
        if (n <= std::numeric_limits<std::uint16_t>::max()) {
            std::vector<std::uint16_t> small(mesh.indices.begin(), mesh.indices.end());
            idxLength = small.size() * 2;
            idxOffset = appendAligned(buffer.data, small.data(), idxLength);
            idxType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
        } else {
            idxLength = mesh.indices.size() * 4;
            idxOffset = appendAligned(buffer.data, mesh.indices.data(), idxLength);
        }
        while (buffer.data.size() % 4 != 0) buffer.data.push_back(0);
        model.buffers.push_back(std::move(buffer));

        const int posView = addView(model, posOffset, mesh.positions.size() * 4, kArrayBuffer);
        const int nrmView = addView(model, nrmOffset, mesh.normals.size() * 4, kArrayBuffer);
        const int colView = addView(model, colOffset, colours.size() * 2, kArrayBuffer);
        const int idxView = addView(model, idxOffset, idxLength, kElementArrayBuffer);

        const int pos = addAccessor(model, posView, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, n, false);
        // glTF requires min/max on POSITION; they must equal the stored floats exactly.
        std::vector<double> lo(3, std::numeric_limits<double>::infinity());
        std::vector<double> hi(3, -std::numeric_limits<double>::infinity());
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t c = 0; c < 3; ++c) {
                lo[c] = std::min(lo[c], static_cast<double>(mesh.positions[i * 3 + c]));
                hi[c] = std::max(hi[c], static_cast<double>(mesh.positions[i * 3 + c]));
            }
        }
        model.accessors[static_cast<std::size_t>(pos)].minValues = lo;
        model.accessors[static_cast<std::size_t>(pos)].maxValues = hi;
        const int nrm = addAccessor(model, nrmView, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, n, false);
        const int col =
            addAccessor(model, colView, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TYPE_VEC4, n, true);
        const int idx = addAccessor(model, idxView, idxType, TINYGLTF_TYPE_SCALAR, mesh.indices.size(), false);

        tinygltf::Material material;
        material.name = options.name;
        material.pbrMetallicRoughness.baseColorFactor = {1.0, 1.0, 1.0, 1.0};
        material.pbrMetallicRoughness.metallicFactor = 0.0;
        material.pbrMetallicRoughness.roughnessFactor = 0.9;
        model.materials.push_back(material);

        tinygltf::Primitive primitive;
        primitive.attributes["POSITION"] = pos;
        primitive.attributes["NORMAL"] = nrm;
        primitive.attributes["COLOR_0"] = col;
        primitive.indices = idx;
        primitive.material = 0;
        primitive.mode = TINYGLTF_MODE_TRIANGLES;
        tinygltf::Mesh gltfMesh;
        gltfMesh.name = options.name;
        gltfMesh.primitives.push_back(primitive);
        model.meshes.push_back(gltfMesh);

        tinygltf::Node node;
        node.name = options.name;
        node.mesh = 0;
        model.nodes.push_back(node);
        tinygltf::Scene scene;
        scene.name = options.name;
        scene.nodes.push_back(0);
        model.scenes.push_back(scene);
        model.defaultScene = 0;

        std::ostringstream stream;
        tinygltf::TinyGLTF writer;
        if (!writer.WriteGltfSceneToStream(&model, stream, false, true)) {
            return Error{"cannot write '" + options.name + "': tinygltf failed to encode the GLB"};
        }
        const std::string bytes = stream.str();
        return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
    } catch (const std::exception& e) {
        return Error{"cannot write '" + options.name + "': " + e.what()};
    }
}

Status writeGlb(const AssetMesh& mesh, const std::filesystem::path& file, const GlbWriteOptions& options) {
    Result<std::vector<std::uint8_t>> bytes = encodeGlb(mesh, options);
    if (!bytes) return Error{"'" + file.string() + "': " + bytes.message()};
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out) return Error{"cannot open '" + file.string() + "' for writing"};
    out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
    out.close();
    if (!out) return Error{"cannot write '" + file.string() + "' (disk full?)"};
    return Status::success();
}

}  // namespace terrabit::core
