#include "terrabit/core/assets/asset_mesh.h"

#include <tiny_gltf.h>
#include <tiny_obj_loader.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

namespace terrabit::core {

namespace {

using Matrix4 = std::array<double, 16>;  // column-major, as glTF stores it

constexpr Matrix4 kIdentity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
// Deeper node hierarchies than this are treated as corrupt: it also stops a cyclic hierarchy.
constexpr int kMaxNodeDepth = 128;

Matrix4 multiply(const Matrix4& a, const Matrix4& b) {
    Matrix4 r{};
    for (int c = 0; c < 4; ++c) {
        for (int rI = 0; rI < 4; ++rI) {
            double s = 0.0;
            for (int k = 0; k < 4; ++k) s += a[k * 4 + rI] * b[c * 4 + k];
            r[c * 4 + rI] = s;
        }
    }
    return r;
}

Matrix4 nodeMatrix(const tinygltf::Node& node) {
    if (node.matrix.size() == 16) {
        Matrix4 m;
        std::copy(node.matrix.begin(), node.matrix.end(), m.begin());
        return m;
    }
    // T * R * S, as the glTF specification composes them.
    double t[3] = {0, 0, 0};
    double q[4] = {0, 0, 0, 1};
    double s[3] = {1, 1, 1};
    if (node.translation.size() == 3) std::copy(node.translation.begin(), node.translation.end(), t);
    if (node.rotation.size() == 4) std::copy(node.rotation.begin(), node.rotation.end(), q);
    if (node.scale.size() == 3) std::copy(node.scale.begin(), node.scale.end(), s);
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    Matrix4 m{};
    for (int c = 0; c < 3; ++c) {
        for (int rI = 0; rI < 3; ++rI) m[c * 4 + rI] = r[c * 3 + rI] * s[c];
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1.0;
    return m;
}

// Reads one accessor into doubles, `components` per element, normalising integer data when
// the accessor says so. Every byte read is checked against its buffer: a corrupt file gives an
// error, never an out-of-bounds read.
Status readAccessor(const tinygltf::Model& model, int index, const char* what, std::vector<double>& out,
                    int& components) {
    if (index < 0 || static_cast<std::size_t>(index) >= model.accessors.size()) {
        return Error{std::string(what) + " accessor " + std::to_string(index) + " does not exist"};
    }
    const tinygltf::Accessor& acc = model.accessors[static_cast<std::size_t>(index)];
    const std::string name = std::string(what) + " accessor " + std::to_string(index);
    if (acc.sparse.isSparse) return Error{name + " is sparse, which Terrabit does not read"};
    if (acc.bufferView < 0 || static_cast<std::size_t>(acc.bufferView) >= model.bufferViews.size()) {
        return Error{name + " has no valid buffer view"};
    }
    const tinygltf::BufferView& view = model.bufferViews[static_cast<std::size_t>(acc.bufferView)];
    if (view.buffer < 0 || static_cast<std::size_t>(view.buffer) >= model.buffers.size()) {
        return Error{name + ": its buffer view points to no buffer"};
    }
    const std::vector<unsigned char>& data = model.buffers[static_cast<std::size_t>(view.buffer)].data;
    components = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(acc.type));
    const int size = tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(acc.componentType));
    if (components <= 0 || components > 4 || size <= 0) return Error{name + " has an unknown type"};
    const int stride = acc.ByteStride(view);
    if (stride <= 0) return Error{name + " has an invalid byte stride"};
    const std::size_t element = static_cast<std::size_t>(components) * static_cast<std::size_t>(size);
    const std::size_t begin = view.byteOffset + acc.byteOffset;
    // Checked before any multiplication so a corrupt count cannot overflow the bound below.
    if (acc.count > data.size()) {
        return Error{name + " claims " + std::to_string(acc.count) + " elements, more than its buffer's bytes"};
    }
    if (acc.count > 0) {
        const std::size_t last = begin + (acc.count - 1) * static_cast<std::size_t>(stride) + element;
        if (last > data.size() || last > view.byteOffset + view.byteLength || last < begin) {
            return Error{name + " reads past the end of its buffer (" + std::to_string(last) + " > " +
                         std::to_string(std::min(data.size(), view.byteOffset + view.byteLength)) + " bytes)"};
        }
    }
    out.resize(acc.count * static_cast<std::size_t>(components));
    for (std::size_t i = 0; i < acc.count; ++i) {
        const unsigned char* p = data.data() + begin + i * static_cast<std::size_t>(stride);
        for (int c = 0; c < components; ++c) {
            const unsigned char* q = p + c * size;
            double v = 0.0;
            switch (acc.componentType) {
                case TINYGLTF_COMPONENT_TYPE_FLOAT: {
                    float f;
                    std::memcpy(&f, q, 4);
                    v = f;
                    break;
                }
                case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
                    v = *q;
                    if (acc.normalized) v /= 255.0;
                    break;
                case TINYGLTF_COMPONENT_TYPE_BYTE:
                    v = static_cast<signed char>(*q);
                    if (acc.normalized) v = std::max(v / 127.0, -1.0);
                    break;
                case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
                    std::uint16_t u;
                    std::memcpy(&u, q, 2);
                    v = u;
                    if (acc.normalized) v /= 65535.0;
                    break;
                }
                case TINYGLTF_COMPONENT_TYPE_SHORT: {
                    std::int16_t s;
                    std::memcpy(&s, q, 2);
                    v = s;
                    if (acc.normalized) v = std::max(v / 32767.0, -1.0);
                    break;
                }
                case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
                    std::uint32_t u;
                    std::memcpy(&u, q, 4);
                    v = u;
                    break;
                }
                default:
                    return Error{name + " has an unsupported component type " + std::to_string(acc.componentType)};
            }
            out[i * static_cast<std::size_t>(components) + static_cast<std::size_t>(c)] = v;
        }
    }
    return Status::success();
}

class GltfFlattener {
public:
    GltfFlattener(const tinygltf::Model& model, AssetMesh& out) : mModel(model), mOut(out) {}

    Status walk(int nodeIndex, const Matrix4& parent, int depth) {
        if (nodeIndex < 0 || static_cast<std::size_t>(nodeIndex) >= mModel.nodes.size()) {
            return Error{"node " + std::to_string(nodeIndex) + " does not exist"};
        }
        if (depth > kMaxNodeDepth) return Error{"the node hierarchy is deeper than " + std::to_string(kMaxNodeDepth)};
        const tinygltf::Node& node = mModel.nodes[static_cast<std::size_t>(nodeIndex)];
        const Matrix4 world = multiply(parent, nodeMatrix(node));
        if (node.mesh >= 0) {
            if (static_cast<std::size_t>(node.mesh) >= mModel.meshes.size()) {
                return Error{"node " + std::to_string(nodeIndex) + " uses mesh " + std::to_string(node.mesh) +
                             ", which does not exist"};
            }
            const tinygltf::Mesh& mesh = mModel.meshes[static_cast<std::size_t>(node.mesh)];
            for (std::size_t p = 0; p < mesh.primitives.size(); ++p) {
                Status s = addPrimitive(mesh.primitives[p], world);
                if (!s) {
                    return Error{"mesh " + std::to_string(node.mesh) + " primitive " + std::to_string(p) + ": " +
                                 s.message()};
                }
            }
        }
        for (int child : node.children) {
            Status s = walk(child, world, depth + 1);
            if (!s) return s;
        }
        return Status::success();
    }

private:
    Status addPrimitive(const tinygltf::Primitive& prim, const Matrix4& m) {
        const int mode = prim.mode < 0 ? TINYGLTF_MODE_TRIANGLES : prim.mode;
        if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP &&
            mode != TINYGLTF_MODE_TRIANGLE_FAN) {
            return Status::success();  // points and lines have no surface to place or draw
        }
        const auto posIt = prim.attributes.find("POSITION");
        if (posIt == prim.attributes.end()) return Error{"has no POSITION attribute"};
        int comps = 0;
        Status s = readAccessor(mModel, posIt->second, "POSITION", mPos, comps);
        if (!s) return s;
        if (comps != 3) return Error{"POSITION is not a 3-component vector"};
        const std::size_t count = mPos.size() / 3;

        bool haveNormals = false;
        if (auto it = prim.attributes.find("NORMAL"); it != prim.attributes.end()) {
            s = readAccessor(mModel, it->second, "NORMAL", mNrm, comps);
            if (!s) return s;
            if (comps != 3 || mNrm.size() != count * 3) return Error{"NORMAL does not match POSITION"};
            haveNormals = true;
        }
        int colourComps = 0;
        bool haveColours = false;
        if (auto it = prim.attributes.find("COLOR_0"); it != prim.attributes.end()) {
            s = readAccessor(mModel, it->second, "COLOR_0", mCol, colourComps);
            if (!s) return s;
            if ((colourComps != 3 && colourComps != 4) || mCol.size() != count * colourComps) {
                return Error{"COLOR_0 does not match POSITION"};
            }
            haveColours = true;
        }
        double baseColour[4] = {1, 1, 1, 1};
        if (prim.material >= 0 && static_cast<std::size_t>(prim.material) < mModel.materials.size()) {
            const auto& f =
                mModel.materials[static_cast<std::size_t>(prim.material)].pbrMetallicRoughness.baseColorFactor;
            for (std::size_t i = 0; i < 4 && i < f.size(); ++i) baseColour[i] = f[i];
        }

        mIdx.clear();
        if (prim.indices >= 0) {
            s = readAccessor(mModel, prim.indices, "indices", mIdxRaw, comps);
            if (!s) return s;
            if (comps != 1) return Error{"the index accessor is not scalar"};
            mIdx.reserve(mIdxRaw.size());
            for (double v : mIdxRaw) {
                if (v < 0 || v >= static_cast<double>(count)) {
                    return Error{"index " + std::to_string(static_cast<long long>(v)) + " is out of range (" +
                                 std::to_string(count) + " vertices)"};
                }
                mIdx.push_back(static_cast<std::uint32_t>(v));
            }
        } else {
            mIdx.resize(count);
            for (std::size_t i = 0; i < count; ++i) mIdx[i] = static_cast<std::uint32_t>(i);
        }
        // Strips and fans become lists; every other strip triangle swaps two corners to keep
        // the winding.
        mTri.clear();
        if (mode == TINYGLTF_MODE_TRIANGLES) {
            mTri.assign(mIdx.begin(), mIdx.begin() + static_cast<std::ptrdiff_t>(mIdx.size() / 3 * 3));
        } else if (mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
            for (std::size_t i = 2; i < mIdx.size(); ++i) {
                if (i % 2 == 0) {
                    mTri.insert(mTri.end(), {mIdx[i - 2], mIdx[i - 1], mIdx[i]});
                } else {
                    mTri.insert(mTri.end(), {mIdx[i - 1], mIdx[i - 2], mIdx[i]});
                }
            }
        } else {
            for (std::size_t i = 2; i < mIdx.size(); ++i) mTri.insert(mTri.end(), {mIdx[0], mIdx[i - 1], mIdx[i]});
        }

        // Normals go through the inverse transpose of the upper 3×3; a mirroring transform
        // (negative determinant) also flips the winding so front faces stay front faces.
        const double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], k = m[10];
        const double det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
        if (!std::isfinite(det) || det == 0.0) return Status::success();  // collapsed to nothing
        const double inv[9] = {(e * k - f * h) / det, (c * h - b * k) / det, (b * f - c * e) / det,
                               (f * g - d * k) / det, (a * k - c * g) / det, (c * d - a * f) / det,
                               (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det};
        // inv is row-major inverse; the normal matrix is its transpose: n' = inv^T n.
        auto transformNormal = [&](double x, double y, double z) {
            const double nx = inv[0] * x + inv[3] * y + inv[6] * z;
            const double ny = inv[1] * x + inv[4] * y + inv[7] * z;
            const double nz = inv[2] * x + inv[5] * y + inv[8] * z;
            const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
            return len > 0 ? std::array<double, 3>{nx / len, ny / len, nz / len} : std::array<double, 3>{0, 1, 0};
        };
        auto transformPoint = [&](std::size_t v) {
            const double x = mPos[v * 3], y = mPos[v * 3 + 1], z = mPos[v * 3 + 2];
            return std::array<double, 3>{m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13],
                                         m[2] * x + m[6] * y + m[10] * z + m[14]};
        };
        auto colourOf = [&](std::size_t v) {
            std::array<double, 4> col{baseColour[0], baseColour[1], baseColour[2], baseColour[3]};
            if (haveColours) {
                for (int i = 0; i < colourComps; ++i) {
                    col[static_cast<std::size_t>(i)] *= mCol[v * static_cast<std::size_t>(colourComps) + i];
                }
            }
            return col;
        };
        const bool flip = det < 0;
        auto emitVertex = [&](const std::array<double, 3>& p, const std::array<double, 3>& n, std::size_t v) {
            const auto col = colourOf(v);
            mOut.positions.insert(mOut.positions.end(),
                                  {static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])});
            mOut.normals.insert(mOut.normals.end(),
                                {static_cast<float>(n[0]), static_cast<float>(n[1]), static_cast<float>(n[2])});
            for (double channel : col) mOut.colours.push_back(static_cast<float>(std::clamp(channel, 0.0, 1.0)));
        };
        if (haveNormals) {
            // Shared vertices stay shared: each is transformed once and the triangles keep
            // their indices, offset past the vertices already in the mesh.
            const auto base = static_cast<std::uint32_t>(mOut.vertexCount());
            for (std::size_t v = 0; v < count; ++v) {
                const auto p = transformPoint(v);
                if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) {
                    return Error{"vertex " + std::to_string(v) + " is not a finite position"};
                }
                emitVertex(p, transformNormal(mNrm[v * 3], mNrm[v * 3 + 1], mNrm[v * 3 + 2]), v);
            }
            for (std::size_t t = 0; t + 2 < mTri.size(); t += 3) {
                if (flip) {
                    mOut.indices.insert(mOut.indices.end(), {base + mTri[t], base + mTri[t + 2], base + mTri[t + 1]});
                } else {
                    mOut.indices.insert(mOut.indices.end(), {base + mTri[t], base + mTri[t + 1], base + mTri[t + 2]});
                }
            }
            return Status::success();
        }
        // glTF asks for flat normals when a primitive has none: every triangle gets its own
        // three vertices carrying its face normal.
        for (std::size_t t = 0; t + 2 < mTri.size(); t += 3) {
            std::uint32_t corner[3] = {mTri[t], mTri[t + 1], mTri[t + 2]};
            if (flip) std::swap(corner[1], corner[2]);
            std::array<double, 3> p[3];
            for (int i = 0; i < 3; ++i) p[i] = transformPoint(corner[i]);
            for (const auto& q : p) {
                if (!std::isfinite(q[0]) || !std::isfinite(q[1]) || !std::isfinite(q[2])) {
                    return Error{"a vertex position is not a finite number"};
                }
            }
            std::array<double, 3> faceNormal{0, 1, 0};
            const double ux = p[1][0] - p[0][0], uy = p[1][1] - p[0][1], uz = p[1][2] - p[0][2];
            const double vx = p[2][0] - p[0][0], vy = p[2][1] - p[0][1], vz = p[2][2] - p[0][2];
            const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
            const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
            if (len > 0) faceNormal = {nx / len, ny / len, nz / len};
            const auto base = static_cast<std::uint32_t>(mOut.vertexCount());
            for (int i = 0; i < 3; ++i) emitVertex(p[i], faceNormal, corner[i]);
            mOut.indices.insert(mOut.indices.end(), {base, base + 1, base + 2});
        }
        return Status::success();
    }

    const tinygltf::Model& mModel;
    AssetMesh& mOut;
    // Scratch reused across primitives.
    std::vector<double> mPos, mNrm, mCol, mIdxRaw;
    std::vector<std::uint32_t> mIdx, mTri;
};

// Images are not used (colours come from vertices and base colour factors), so they are not
// decoded: a model with a large or broken texture still loads, quickly.
bool skipImage(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
    return true;
}

// OBJ corners are emitted one per face corner; identical ones are welded back together.
void weld(AssetMesh& mesh) {
    struct Key {
        std::array<float, 10> v;
        bool operator<(const Key& o) const { return std::memcmp(v.data(), o.v.data(), sizeof(v)) < 0; }
    };
    std::map<Key, std::uint32_t> seen;
    AssetMesh out;
    out.indices.reserve(mesh.indices.size());
    for (std::uint32_t i : mesh.indices) {
        Key key;
        std::copy_n(mesh.positions.begin() + i * 3, 3, key.v.begin());
        std::copy_n(mesh.normals.begin() + i * 3, 3, key.v.begin() + 3);
        std::copy_n(mesh.colours.begin() + i * 4, 4, key.v.begin() + 6);
        const auto [it, inserted] = seen.emplace(key, static_cast<std::uint32_t>(out.vertexCount()));
        if (inserted) {
            out.positions.insert(out.positions.end(), key.v.begin(), key.v.begin() + 3);
            out.normals.insert(out.normals.end(), key.v.begin() + 3, key.v.begin() + 6);
            out.colours.insert(out.colours.end(), key.v.begin() + 6, key.v.end());
        }
        out.indices.push_back(it->second);
    }
    mesh = std::move(out);
}

Result<AssetMesh> readGltf(const std::filesystem::path& file, const std::vector<unsigned char>& bytes, bool binary) {
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(&skipImage, nullptr);
    tinygltf::Model model;
    std::string err;
    std::string warn;
    const std::string baseDir = file.parent_path().string();
    if (bytes.size() > 0xFFFFFFFFu) return Error{"model '" + file.string() + "' is larger than 4 GiB"};
    const auto length = static_cast<unsigned int>(bytes.size());
    const bool ok = binary ? loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), length, baseDir)
                           : loader.LoadASCIIFromString(&model, &err, &warn,
                                                        reinterpret_cast<const char*>(bytes.data()), length, baseDir);
    if (!ok) {
        while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
        return Error{"model '" + file.string() + "' is not valid glTF: " + (err.empty() ? "unknown error" : err)};
    }
    std::vector<int> roots;
    if (!model.scenes.empty()) {
        const int scene =
            (model.defaultScene >= 0 && static_cast<std::size_t>(model.defaultScene) < model.scenes.size())
                ? model.defaultScene
                : 0;
        roots = model.scenes[static_cast<std::size_t>(scene)].nodes;
    } else {
        // No scene: every node that is nobody's child is a root.
        std::vector<bool> isChild(model.nodes.size(), false);
        for (const auto& n : model.nodes) {
            for (int c : n.children) {
                if (c >= 0 && static_cast<std::size_t>(c) < isChild.size()) isChild[static_cast<std::size_t>(c)] = true;
            }
        }
        for (std::size_t i = 0; i < model.nodes.size(); ++i) {
            if (!isChild[i]) roots.push_back(static_cast<int>(i));
        }
    }
    AssetMesh mesh;
    GltfFlattener flattener(model, mesh);
    for (int root : roots) {
        Status s = flattener.walk(root, kIdentity, 0);
        if (!s) return Error{"model '" + file.string() + "': " + s.message()};
    }
    return mesh;
}

Result<AssetMesh> readObj(const std::filesystem::path& file) {
    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = true;
    config.mtl_search_path = file.parent_path().string();
    tinyobj::ObjReader reader;
    if (!reader.ParseFromFile(file.string(), config)) {
        std::string err = reader.Error();
        while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
        return Error{"model '" + file.string() + "' is not valid OBJ: " + (err.empty() ? "unknown error" : err)};
    }
    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    const auto& materials = reader.GetMaterials();
    const std::size_t vertexCount = attrib.vertices.size() / 3;
    const std::size_t normalCount = attrib.normals.size() / 3;
    const bool haveColours = attrib.colors.size() == attrib.vertices.size();
    AssetMesh mesh;
    for (const tinyobj::shape_t& shape : reader.GetShapes()) {
        const auto& ids = shape.mesh.indices;
        const auto& faceVerts = shape.mesh.num_face_vertices;
        std::size_t offset = 0;
        for (std::size_t f = 0; f < faceVerts.size(); ++f) {
            const std::size_t n = faceVerts[f];
            if (offset + n > ids.size()) return Error{"model '" + file.string() + "': a face runs past its indices"};
            if (n != 3) {
                offset += n;
                continue;  // triangulation leaves only lines and points here
            }
            double kd[3] = {1, 1, 1};
            if (f < shape.mesh.material_ids.size()) {
                const int mat = shape.mesh.material_ids[f];
                if (mat >= 0 && static_cast<std::size_t>(mat) < materials.size()) {
                    for (int c = 0; c < 3; ++c) kd[c] = materials[static_cast<std::size_t>(mat)].diffuse[c];
                }
            }
            std::array<double, 3> p[3];
            for (std::size_t i = 0; i < 3; ++i) {
                const int v = ids[offset + i].vertex_index;
                if (v < 0 || static_cast<std::size_t>(v) >= vertexCount) {
                    return Error{"model '" + file.string() + "': face " + std::to_string(f) + " of shape '" +
                                 shape.name + "' uses vertex " + std::to_string(v + 1) + ", which does not exist"};
                }
                for (int c = 0; c < 3; ++c)
                    p[i][static_cast<std::size_t>(c)] = attrib.vertices[static_cast<std::size_t>(v) * 3 + c];
            }
            const double ux = p[1][0] - p[0][0], uy = p[1][1] - p[0][1], uz = p[1][2] - p[0][2];
            const double vx = p[2][0] - p[0][0], vy = p[2][1] - p[0][1], vz = p[2][2] - p[0][2];
            double fn[3] = {uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx};
            const double flen = std::sqrt(fn[0] * fn[0] + fn[1] * fn[1] + fn[2] * fn[2]);
            if (flen > 0) {
                for (double& c : fn) c /= flen;
            } else {
                fn[0] = 0, fn[1] = 1, fn[2] = 0;
            }
            for (std::size_t i = 0; i < 3; ++i) {
                const tinyobj::index_t& id = ids[offset + i];
                double nrm[3] = {fn[0], fn[1], fn[2]};
                if (id.normal_index >= 0 && static_cast<std::size_t>(id.normal_index) < normalCount) {
                    const auto ni = static_cast<std::size_t>(id.normal_index) * 3;
                    const double nx = attrib.normals[ni], ny = attrib.normals[ni + 1], nz = attrib.normals[ni + 2];
                    const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
                    if (len > 0 && std::isfinite(len)) nrm[0] = nx / len, nrm[1] = ny / len, nrm[2] = nz / len;
                }
                const auto vi = static_cast<std::size_t>(id.vertex_index) * 3;
                double col[3] = {kd[0], kd[1], kd[2]};
                if (haveColours) {
                    for (int c = 0; c < 3; ++c) col[c] *= attrib.colors[vi + static_cast<std::size_t>(c)];
                }
                for (int c = 0; c < 3; ++c) {
                    if (!std::isfinite(p[i][static_cast<std::size_t>(c)])) {
                        return Error{"model '" + file.string() + "': vertex " + std::to_string(id.vertex_index + 1) +
                                     " is not a finite number"};
                    }
                }
                mesh.positions.insert(mesh.positions.end(), {static_cast<float>(p[i][0]), static_cast<float>(p[i][1]),
                                                             static_cast<float>(p[i][2])});
                mesh.normals.insert(mesh.normals.end(), {static_cast<float>(nrm[0]), static_cast<float>(nrm[1]),
                                                         static_cast<float>(nrm[2])});
                // OBJ colours are display (sRGB) values; AssetMesh holds linear light like glTF.
                mesh.colours.insert(mesh.colours.end(),
                                    {static_cast<float>(srgbToLinear(std::clamp(col[0], 0.0, 1.0))),
                                     static_cast<float>(srgbToLinear(std::clamp(col[1], 0.0, 1.0))),
                                     static_cast<float>(srgbToLinear(std::clamp(col[2], 0.0, 1.0))), 1.0f});
                mesh.indices.push_back(static_cast<std::uint32_t>(mesh.indices.size()));
            }
            offset += n;
        }
    }
    weld(mesh);
    return mesh;
}

}  // namespace

ModelBounds AssetMesh::bounds() const {
    ModelBounds b;
    for (std::uint32_t i : indices) {
        if (static_cast<std::size_t>(i) * 3 + 2 >= positions.size()) continue;
        b.extend(positions[i * 3], positions[i * 3 + 1], positions[i * 3 + 2]);
    }
    return b;
}

void AssetMesh::append(const AssetMesh& other) {
    const auto base = static_cast<std::uint32_t>(vertexCount());
    positions.insert(positions.end(), other.positions.begin(), other.positions.end());
    normals.insert(normals.end(), other.normals.begin(), other.normals.end());
    colours.insert(colours.end(), other.colours.begin(), other.colours.end());
    for (std::uint32_t i : other.indices) indices.push_back(base + i);
}

Status AssetMesh::validate() const {
    if (positions.size() % 3 != 0)
        return Error{"positions: size " + std::to_string(positions.size()) + " is not a multiple of 3"};
    const std::size_t n = vertexCount();
    if (normals.size() != n * 3) {
        return Error{"normals: " + std::to_string(normals.size() / 3) + " for " + std::to_string(n) + " vertices"};
    }
    if (colours.size() != n * 4) {
        return Error{"colours: " + std::to_string(colours.size() / 4) + " for " + std::to_string(n) + " vertices"};
    }
    if (indices.size() % 3 != 0)
        return Error{"indices: size " + std::to_string(indices.size()) + " is not a multiple of 3"};
    for (std::size_t i = 0; i < indices.size(); ++i) {
        if (indices[i] >= n) {
            return Error{"indices[" + std::to_string(i) + "] = " + std::to_string(indices[i]) + " is out of range (" +
                         std::to_string(n) + " vertices)"};
        }
    }
    auto finite = [](const std::vector<float>& v, const char* what) -> Status {
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (!std::isfinite(v[i])) return Error{std::string(what) + "[" + std::to_string(i) + "] is not finite"};
        }
        return Status::success();
    };
    if (Status s = finite(positions, "positions"); !s) return s;
    if (Status s = finite(normals, "normals"); !s) return s;
    return finite(colours, "colours");
}

namespace {
Result<AssetMesh> readAssetMeshUnguarded(const std::filesystem::path& file);
}  // namespace

FacadeColours facadeColours(const AssetMesh& mesh, FacadeColours fallback) {
    // Per kind (walls, roof): the area-weighted sum of the corners' mean colour, and the area.
    std::array<std::array<double, 4>, 2> sum{};
    for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const std::uint32_t i[3] = {mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]};
        if (std::max({i[0], i[1], i[2]}) >= mesh.vertexCount() || mesh.colours.size() < 4 * mesh.vertexCount()) {
            continue;
        }
        const auto at = [&](std::uint32_t v, int c) { return double(mesh.positions[3 * v + c]); };
        const double ax = at(i[1], 0) - at(i[0], 0), ay = at(i[1], 1) - at(i[0], 1), az = at(i[1], 2) - at(i[0], 2);
        const double bx = at(i[2], 0) - at(i[0], 0), by = at(i[2], 1) - at(i[0], 1), bz = at(i[2], 2) - at(i[0], 2);
        const double nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
        const double twiceArea = std::sqrt(nx * nx + ny * ny + nz * nz);
        if (!(twiceArea > 0.0)) continue;
        // Turned down more than 30° from vertical: under the model, never seen from afar.
        if (ny < -0.5 * twiceArea) continue;
        // Turned up more than 30°: roof.
        auto& s = sum[ny > 0.5 * twiceArea ? 1 : 0];
        for (int c = 0; c < 3; ++c) {
            for (const std::uint32_t v : i) s[std::size_t(c)] += twiceArea * double(mesh.colours[4 * v + c]) / 3.0;
        }
        s[3] += twiceArea;
    }
    const auto mean = [](const std::array<double, 4>& s) {
        const auto channel = [&](int c) { return linearToSrgbByte(s[std::size_t(c)] / s[3]); };
        return Rgb{channel(0), channel(1), channel(2)};
    };
    const bool walls = sum[0][3] > 0.0, roof = sum[1][3] > 0.0;
    if (!walls && !roof) return fallback;
    return {mean(walls ? sum[0] : sum[1]), mean(roof ? sum[1] : sum[0])};
}

double srgbToLinear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

double linearToSrgb(double c) { return c <= 0.0031308 ? c * 12.92 : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055; }

std::uint8_t linearToSrgbByte(double c) {
    const double srgb = linearToSrgb(std::clamp(c, 0.0, 1.0));
    return static_cast<std::uint8_t>(std::lround(255.0 * std::clamp(srgb, 0.0, 1.0)));
}

Result<AssetMesh> readAssetMesh(const std::filesystem::path& file) {
    // Nothing below should throw, but the parsers are third-party and the input is a user's
    // file: whatever escapes them becomes an error naming the file, never a crash.
    try {
        return readAssetMeshUnguarded(file);
    } catch (const std::exception& e) {
        return Error{"model '" + file.string() + "' could not be read: " + e.what()};
    } catch (...) {
        return Error{"model '" + file.string() + "' could not be read"};
    }
}

namespace {
Result<AssetMesh> readAssetMeshUnguarded(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return Error{"model '" + file.string() + "' does not exist"};
    if (std::filesystem::is_directory(file, ec)) return Error{"model '" + file.string() + "' is a folder, not a file"};
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    Result<AssetMesh> mesh = Error{""};
    if (ext == ".obj") {
        mesh = readObj(file);
    } else {
        std::ifstream in(file, std::ios::binary);
        if (!in) return Error{"model '" + file.string() + "' cannot be opened"};
        const std::uintmax_t size = std::filesystem::file_size(file, ec);
        if (ec) return Error{"model '" + file.string() + "' cannot be read: " + ec.message()};
        std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
        in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (in.gcount() != static_cast<std::streamsize>(bytes.size())) {
            return Error{"model '" + file.string() + "' cannot be read"};
        }
        const bool binary = bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
        if (!binary && ext != ".gltf") {
            return Error{"model '" + file.string() + "' is neither binary glTF (no 'glTF' magic) nor .gltf nor .obj"};
        }
        mesh = readGltf(file, bytes, binary);
    }
    if (!mesh) return mesh;
    if (mesh->empty()) return Error{"model '" + file.string() + "' has no triangles"};
    // A coordinate beyond float range (a node scaled by 1e200, say) reads as infinite: its
    // bounds would become a prefab's footprint, and its vertices every export's.
    if (Status s = mesh->validate(); !s) {
        return Error{"model '" + file.string() + "' makes no usable mesh: " + s.message() +
                     " (a value beyond float range once the node transforms are applied?)"};
    }
    return mesh;
}
}  // namespace

}  // namespace terrabit::core
