#include "terrabit/core/export/glb_scene_writer.h"

#include <tiny_gltf.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <tuple>
#include <variant>

#include "spill_bytes_p.h"
#include "terrabit/core/export/cell_rects.h"
#include "terrabit/core/placement/surface_shape.h"
#include "terrabit/core/scene/bridge_deck.h"
#include "terrabit/core/scene/generated_building_mesh.h"
#include "terrabit/core/scene/ground_drape.h"
#include "terrabit/core/scene/surface_paint.h"

namespace terrabit::core {

namespace {

constexpr int kArrayBuffer = TINYGLTF_TARGET_ARRAY_BUFFER;
constexpr int kElementArrayBuffer = TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER;
constexpr int kNoTarget = 0;
constexpr const char* kInstancing = "EXT_mesh_gpu_instancing";
constexpr const char* kQuantization = "KHR_mesh_quantization";

bool finite(Vec3f v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

std::string where(const InstanceBlock& b) {
    return "tile " + b.tile.quadkey() + ", block " + std::to_string(b.blockX) + "," + std::to_string(b.blockY);
}

/// An output stream buffer appending to a byte vector.
class VectorStreamBuf : public std::streambuf {
public:
    explicit VectorStreamBuf(std::vector<std::uint8_t>& out) : mOut(out) {}

protected:
    int_type overflow(int_type c) override {
        if (!traits_type::eq_int_type(c, traits_type::eof())) mOut.push_back(static_cast<std::uint8_t>(c));
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        mOut.insert(mOut.end(), reinterpret_cast<const std::uint8_t*>(s), reinterpret_cast<const std::uint8_t*>(s) + n);
        return n;
    }

private:
    std::vector<std::uint8_t>& mOut;
};

/// tinygltf's JSON text, produced a piece at a time: never the JSON tree of a whole model, which
/// tinygltf builds first (for monaco-region's 240,727 accessors and 76,903 nodes that tree was
/// some 350 MB on top of the model).
class GltfText {
public:
    GltfText() {
        tinygltf::Model bare;  // holds nothing: its text is {"asset":{...}}
        mBare = of(bare).value_or(std::string());
    }
    bool ok() const { return mBare.size() >= 2; }

    /// The text tinygltf writes for `m` (as its GLB's JSON chunk holds it, unpadded); nothing when
    /// tinygltf fails.
    static std::optional<std::string> of(tinygltf::Model& m) {
        std::vector<std::uint8_t> glb;
        VectorStreamBuf buffer(glb);
        std::ostream stream(&buffer);
        tinygltf::TinyGLTF writer;
        if (!writer.WriteGltfSceneToStream(&m, stream, false, true) || !stream || glb.size() < kGlbHeadBytes) {
            return std::nullopt;
        }
        std::uint32_t length = 0;
        for (int k = 0; k < 4; ++k) length |= std::uint32_t{glb[12 + std::size_t(k)]} << (8 * k);
        if (glb.size() < kGlbHeadBytes + length) return std::nullopt;
        std::string text(glb.begin() + kGlbHeadBytes, glb.begin() + std::ptrdiff_t(kGlbHeadBytes + length));
        while (!text.empty() && text.back() == ' ') text.pop_back();  // the chunk's padding
        return text;
    }

    /// The elements' text as they stand in their array, "e0,e1,…" (without brackets): the text of
    /// a model holding them alone, {"key":[...],"asset":{...}} for a key before "asset",
    /// {"asset":{...},"key":[...]} for one after it, less what surrounds them. The elements are
    /// consumed.
    template <class T>
    std::optional<std::string> elements(std::vector<T> tinygltf::Model::*member, const std::string& key,
                                        std::vector<T>&& items) const {
        const bool beforeAsset = key < std::string("asset");
        const std::string head =
            beforeAsset ? "{\"" + key + "\":[" : mBare.substr(0, mBare.size() - 1) + ",\"" + key + "\":[";
        const std::string tail = beforeAsset ? "]," + mBare.substr(1) : "]}";
        tinygltf::Model chunk;
        chunk.*member = std::move(items);
        std::optional<std::string> text = of(chunk);
        if (!text || text->size() < head.size() + tail.size() || text->compare(0, head.size(), head) != 0 ||
            text->compare(text->size() - tail.size(), tail.size(), tail) != 0) {
            return std::nullopt;
        }
        return text->substr(head.size(), text->size() - head.size() - tail.size());
    }

    /// The GLB header (magic, version, length) and the JSON chunk's header (length, type).
    static constexpr std::size_t kGlbHeadBytes = 12 + 8;

private:
    std::string mBare;
};

/// One of the model's large arrays (accessors, buffer views, meshes, nodes), whose elements are
/// turned into JSON text a part of the scene at a time (flush) and dropped: only what the current
/// part added is held as objects. The few elements changed after the part that made them (the
/// root node, the instance views) are held apart (hold) and written in their places at the end.
template <class T>
class StreamedArray {
public:
    StreamedArray(std::vector<T> tinygltf::Model::*member, std::string key, detail::SpillBytes text)
        : mMember(member), mKey(std::move(key)), mText(std::move(text)) {}

    std::size_t size() const { return mBase + mPending.size(); }
    int push(T v) {
        mPending.push_back(std::move(v));
        return static_cast<int>(size() - 1);
    }
    int hold(T v) {
        const int index = push(T{});
        mHeld.emplace(static_cast<std::size_t>(index), std::move(v));
        return index;
    }
    /// An element held, or one of the current part's.
    T& at(int index) {
        const auto i = static_cast<std::size_t>(index);
        if (const auto it = mHeld.find(i); it != mHeld.end()) return it->second;
        return mPending[i - mBase];
    }

    /// Turns the current part's elements into text, in runs of up to 8,192 between held ones.
    Status flush(const GltfText& json) {
        constexpr std::size_t kRun = 8192;
        const std::size_t end = size();
        for (std::size_t i = mBase; i < end;) {
            if (mHeld.count(i)) {
                mHoles.push_back({mText.size(), i});
                ++i;
                continue;
            }
            std::size_t j = i;
            while (j < end && j - i < kRun && !mHeld.count(j)) ++j;
            std::vector<T> run(std::make_move_iterator(mPending.begin() + std::ptrdiff_t(i - mBase)),
                               std::make_move_iterator(mPending.begin() + std::ptrdiff_t(j - mBase)));
            std::optional<std::string> text = json.elements(mMember, mKey, std::move(run));
            if (!text) return Error{"tinygltf failed to encode the " + mKey};
            if (i > 0) mText.append(",", 1);
            mText.append(text->data(), text->size());
            i = j;
        }
        mPending.clear();
        mBase = end;
        return mText.status();
    }

    /// The text of the held elements, each with its comma, and the whole array's length.
    struct Written {
        std::vector<std::string> held;  ///< each held element's text, with its comma
        std::uint64_t bytes = 0;        ///< the whole array's
    };
    /// Every element flushed: the held ones' text, to be given to write.
    Result<Written> heldText(const GltfText& json) {
        Written w;
        w.bytes = 2 + mText.size();
        for (const Hole& h : mHoles) {
            std::vector<T> one;
            one.push_back(std::move(mHeld.at(h.index)));
            std::optional<std::string> text = json.elements(mMember, mKey, std::move(one));
            if (!text) return Error{"tinygltf failed to encode the " + mKey};
            w.held.push_back((h.index > 0 ? "," : "") + *text);
            w.bytes += w.held.back().size();
        }
        return w;
    }
    /// The array's text, "[...]", in pieces handed to `sink` in order.
    Status write(const std::vector<std::string>& held, const detail::SpillBytes::Sink& sink) {
        const auto text = [&](const std::string& s) {
            return sink({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
        };
        if (Status s = text("["); !s) return s;
        std::uint64_t at = 0;
        for (std::size_t k = 0; k < mHoles.size(); ++k) {
            if (Status s = mText.replay(at, mHoles[k].textOffset, sink); !s) return s;
            if (Status s = text(held[k]); !s) return s;
            at = mHoles[k].textOffset;
        }
        if (Status s = mText.replay(at, mText.size(), sink); !s) return s;
        return text("]");
    }

    const std::string& key() const { return mKey; }
    std::uint64_t heldBytes() const { return mText.heldBytes(); }
    std::uint64_t textBytes() const { return mText.size(); }

private:
    struct Hole {
        std::uint64_t textOffset;  ///< where in mText the element goes
        std::size_t index;
    };
    std::vector<T> tinygltf::Model::*mMember;
    std::string mKey;
    std::vector<T> mPending;  ///< elements [mBase, size())
    std::size_t mBase = 0;
    std::map<std::size_t, T> mHeld;
    detail::SpillBytes mText;  ///< the flushed elements' text, each but element 0's after a comma
    std::vector<Hole> mHoles;  ///< the held elements' places, in index order
};

/// Where an encoder keeps what it has encoded until the GLB is written: its binary data (and
/// the instance attributes, which go at its end), and its large arrays' text.
struct EncoderStores {
    detail::SpillBytes bin;
    /// TRANSLATION and SCALE floats, ROTATION normalised shorts
    std::array<detail::SpillBytes, 3> instances;
    std::array<detail::SpillBytes, 4> arrays;  ///< accessors, bufferViews, meshes, nodes

    /// In memory, or in unnamed files of `folder`.
    static Result<EncoderStores> make(const std::filesystem::path& folder) {
        EncoderStores s;
        if (folder.empty()) return s;
        const auto one = [&](detail::SpillBytes& b) {
            Result<detail::SpillBytes> made = detail::SpillBytes::inFolder(folder);
            if (made) b = std::move(*made);
            return made ? Status::success() : Status{made.error()};
        };
        if (Status st = one(s.bin); !st) return st.error();
        for (detail::SpillBytes& b : s.instances) {
            if (Status st = one(b); !st) return st.error();
        }
        for (detail::SpillBytes& b : s.arrays) {
            if (Status st = one(b); !st) return st.error();
        }
        return s;
    }
};

/// Builds one tinygltf model: its large arrays streamed (StreamedArray) and its binary buffer
/// kept apart from the model's, which stays empty until the GLB is written (see finish).
class ModelBuilder {
public:
    explicit ModelBuilder(EncoderStores& stores)
        : accessors(&tinygltf::Model::accessors, "accessors", std::move(stores.arrays[0])),
          views(&tinygltf::Model::bufferViews, "bufferViews", std::move(stores.arrays[1])),
          meshes(&tinygltf::Model::meshes, "meshes", std::move(stores.arrays[2])),
          nodes(&tinygltf::Model::nodes, "nodes", std::move(stores.arrays[3])),
          bin(std::move(stores.bin)) {
        model.buffers.emplace_back();
    }

    tinygltf::Model model;  ///< all but the streamed arrays
    StreamedArray<tinygltf::Accessor> accessors;
    StreamedArray<tinygltf::BufferView> views;
    StreamedArray<tinygltf::Mesh> meshes;
    StreamedArray<tinygltf::Node> nodes;
    detail::SpillBytes bin;

    /// Appends data aligned to 4 bytes (every component we write is at most 4 bytes wide) and
    /// returns the index of a new buffer view over it.
    int view(const void* data, std::size_t bytes, int target) {
        bin.pad4();
        const std::size_t offset = bin.size();
        bin.append(data, bytes);
        tinygltf::BufferView v;
        v.buffer = 0;
        v.byteOffset = offset;
        v.byteLength = bytes;
        v.target = target;
        return views.push(std::move(v));
    }
    /// An empty view, held to be pointed at data appended at the end (the instance views).
    int heldView(int target) {
        bin.pad4();
        tinygltf::BufferView v;
        v.buffer = 0;
        v.byteOffset = bin.size();
        v.byteLength = 0;
        v.target = target;
        return views.hold(std::move(v));
    }

    int accessor(int view, int componentType, int type, std::size_t count, bool normalized = false) {
        tinygltf::Accessor a;
        a.bufferView = view;
        a.byteOffset = 0;
        a.componentType = componentType;
        a.type = type;
        a.count = count;
        a.normalized = normalized;
        return accessors.push(std::move(a));
    }

    /// A VEC3 float accessor; with bounds, min/max are the exact stored floats (glTF requires
    /// them on POSITION, and validators compare them bit for bit).
    int vec3(const std::vector<float>& v, int target, bool bounds) {
        const int a = accessor(view(v.data(), v.size() * 4, target), TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3,
                               v.size() / 3);
        if (bounds) {
            std::vector<double> lo(3, std::numeric_limits<double>::infinity());
            std::vector<double> hi(3, -std::numeric_limits<double>::infinity());
            for (std::size_t i = 0; i < v.size(); ++i) {
                lo[i % 3] = std::min(lo[i % 3], static_cast<double>(v[i]));
                hi[i % 3] = std::max(hi[i % 3], static_cast<double>(v[i]));
            }
            accessors.at(a).minValues = lo;
            accessors.at(a).maxValues = hi;
        }
        return a;
    }

    /// Unit normals as normalised signed bytes (KHR_mesh_quantization): four bytes a vertex (x, y,
    /// z and a pad byte, as the extension's 4-byte stride asks) instead of twelve, within half a
    /// degree of the float normal. A third of a scene's bytes were its normals.
    /// Floats when quantizeNormals is off (a file without any extension).
    int normals(const std::vector<float>& n) {
        if (!quantizeNormals) return vec3(n, kArrayBuffer, false);
        const std::size_t count = n.size() / 3;
        std::vector<std::int8_t> q(count * 4, 0);
        for (std::size_t v = 0; v < count; ++v) {
            for (std::size_t c = 0; c < 3; ++c) {
                q[v * 4 + c] = static_cast<std::int8_t>(std::lround(std::clamp(n[v * 3 + c], -1.0f, 1.0f) * 127.0f));
            }
        }
        const int v = view(q.data(), q.size(), kArrayBuffer);
        views.at(v).byteStride = 4;
        usesQuantization = true;
        return accessor(v, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_TYPE_VEC3, count, true);
    }
    bool quantizeNormals = true;
    bool usesQuantization = false;  ///< normals() stored bytes: the file needs KHR_mesh_quantization

    /// Texture coordinates, two floats per vertex (surfaceTextureCoordinates).
    int texCoords(const std::vector<float>& uv) {
        return accessor(view(uv.data(), uv.size() * 4, kArrayBuffer), TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC2,
                        uv.size() / 2);
    }

    /// Triangle indices, 16-bit when every index fits.
    int indices(const std::vector<std::uint32_t>& idx, std::size_t vertexCount) {
        if (vertexCount <= std::numeric_limits<std::uint16_t>::max()) {
            std::vector<std::uint16_t> small(idx.begin(), idx.end());
            return accessor(view(small.data(), small.size() * 2, kElementArrayBuffer),
                            TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TYPE_SCALAR, small.size());
        }
        return accessor(view(idx.data(), idx.size() * 4, kElementArrayBuffer), TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT,
                        TINYGLTF_TYPE_SCALAR, idx.size());
    }

    int material(const std::string& name, std::array<double, 4> linearColour, double roughness) {
        tinygltf::Material m;
        m.name = name;
        m.pbrMetallicRoughness.baseColorFactor = {linearColour[0], linearColour[1], linearColour[2], linearColour[3]};
        m.pbrMetallicRoughness.metallicFactor = 0.0;
        m.pbrMetallicRoughness.roughnessFactor = roughness;
        model.materials.push_back(std::move(m));
        return static_cast<int>(model.materials.size() - 1);
    }

    int node(tinygltf::Node n) { return nodes.push(std::move(n)); }
};

/// Quads (flat ones facing +Y unless told), accumulated into one primitive.
struct QuadMesh {
    std::vector<float> positions;
    std::vector<float> normals;
    std::vector<std::uint32_t> indices;

    /// The rectangle's corners are scene points; a (north-west), b (south-west), c (south-east),
    /// d (north-east) — counter-clockwise seen from above.
    void add(Vec3f a, Vec3f b, Vec3f c, Vec3f d, Vec3f normal = {0.0f, 1.0f, 0.0f}) {
        const auto base = static_cast<std::uint32_t>(positions.size() / 3);
        for (const Vec3f& p : {a, b, c, d}) {
            positions.insert(positions.end(), {p.x, p.y, p.z});
            normals.insert(normals.end(), {normal.x, normal.y, normal.z});
        }
        indices.insert(indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
    }
    bool empty() const { return indices.empty(); }
};

std::array<double, 4> linearColour(const std::array<std::uint8_t, 3>& srgb) {
    return {srgbToLinear(srgb[0] / 255.0), srgbToLinear(srgb[1] / 255.0), srgbToLinear(srgb[2] / 255.0), 1.0};
}

/// What the georeference of a file says: the same in every part of a scene.
struct Georeference {
    LonLat origin;
    int zoom = 0;
    std::uint64_t seed = 0;
    bool terrain = false;
    double originHeight = 0.0;

    explicit Georeference(const Scene& scene)
        : origin(scene.frame.origin),
          zoom(scene.frame.zoom),
          seed(scene.seed),
          terrain(scene.terrain),
          originHeight(scene.originHeight) {}
    bool operator==(const Georeference&) const = default;
};

/// The georeference every file carries, in `extras.terrabit`.
tinygltf::Value georeference(const Georeference& scene, const std::vector<TileId>& tiles) {
    tinygltf::Value::Array quadkeys;
    for (const TileId& t : tiles) quadkeys.emplace_back(t.quadkey());
    tinygltf::Value::Object geo;
    geo["originLon"] = tinygltf::Value(scene.origin.lon);
    geo["originLat"] = tinygltf::Value(scene.origin.lat);
    geo["zoom"] = tinygltf::Value(scene.zoom);
    geo["quadkeys"] = tinygltf::Value(std::move(quadkeys));
    geo["seed"] = tinygltf::Value(std::to_string(scene.seed));
    geo["crs"] = tinygltf::Value(std::string("EPSG:3857"));
    geo["frame"] = tinygltf::Value(
        std::string("metres on the ground (EPSG:3857 metres times cos(originLat)); +X east, +Y up, +Z south; origin at "
                    "(originLon, originLat), height 0"));
    if (scene.terrain) {
        // Only on terrain: a flat scene's file keeps its bytes.
        geo["originHeight"] = tinygltf::Value(scene.originHeight);
        geo["frame"] = tinygltf::Value(
            std::string("metres on the ground (EPSG:3857 metres times cos(originLat)); +X east, +Y up, +Z south; "
                        "origin at (originLon, originLat), height originHeight metres above the DEM's vertical "
                        "datum (Y is the height above the datum less originHeight)"));
    }
    tinygltf::Value::Object extras;
    extras["terrabit"] = tinygltf::Value(std::move(geo));
    return tinygltf::Value(std::move(extras));
}

/// Encodes a scene given a part at a time (add), its tiles in quadkey order, then writes the GLB
/// (finish). What a part added is text and bytes in the stores once add returns.
class SceneEncoder {
public:
    SceneEncoder(const GlbSceneOptions& options, EncoderStores stores)
        : mOptions(options), mBuilder(stores), mInstanceData(std::move(stores.instances)) {
        // Plain nodes are for engines without extensions: floats there.
        mBuilder.quantizeNormals = !options.plainNodes;
    }

    /// Every tile of `scene`, or only `only` (its share looked up in `items` when given).
    Status add(const Scene& scene, std::span<const AssetMesh> meshes, std::optional<TileId> only,
               const SceneTileItems* items) {
        mScene = &scene;
        mMeshes = meshes;
        std::vector<TileId> tiles;
        for (const TileId& t : scene.tiles) {
            if (!only || t == *only) tiles.push_back(t);
        }
        if (only && tiles.empty()) tiles.push_back(*only);
        // Quadkey order: the order in which a streamed bake's batches come (runs of consecutive
        // quadkeys), so that writing the scene a batch at a time gives the same file.
        std::vector<std::pair<std::string, TileId>> keyed;
        keyed.reserve(tiles.size());
        for (const TileId& t : tiles) keyed.emplace_back(t.quadkey(), t);
        std::sort(keyed.begin(), keyed.end());
        if (!keyed.empty() && !mTiles.empty() && keyed.front().first <= mLastQuadkey) {
            return Error{"the parts of a scene must come in quadkey order: tile " + keyed.front().first +
                         " comes after tile " + mLastQuadkey};
        }
        if (!mGeoreference) {
            mGeoreference = Georeference(scene);
            mGroundMaterial = mBuilder.material("ground", linearColour(mOptions.groundColour), 0.95);
            tinygltf::Node root;
            root.name = "terrabit scene";
            mRoot = mBuilder.nodes.hold(std::move(root));
        } else if (!(*mGeoreference == Georeference(scene))) {
            return Error{"the parts of a scene must share its origin, zoom, seed and terrain"};
        }

        // Each tile's share of blocks and surfaces, in the scene's order (which the Scene keeps
        // deterministic).
        mPlinthsOf.clear(), mGeneratedOf.clear(), mBridgesOf.clear();
        std::map<TileId, std::vector<const InstanceBlock*>> blocksOf;
        std::map<TileId, std::vector<const SurfacePatch*>> surfacesOf;
        if (only && items) {  // the tile's share looked up, not the scene scanned
            // Only kinds the tile has get an entry, as the scan below makes them: an entry, even
            // empty, adds its material.
            const TileItems& mine = items->of(*only);
            if (!mine.plinths.empty()) mPlinthsOf[*only] = mine.plinths;
            if (!mine.generated.empty()) mGeneratedOf[*only] = mine.generated;
            if (!mine.bridges.empty()) mBridgesOf[*only] = mine.bridges;
            blocksOf[*only] = mine.blocks;
            surfacesOf[*only] = mine.surfaces;
        } else {
            for (const Plinth& p : scene.plinths) {
                if (!only || p.tile == *only) mPlinthsOf[p.tile].push_back(&p);
            }
            for (const GeneratedBuilding& g : scene.generated) {
                if (!only || g.tile == *only) mGeneratedOf[g.tile].push_back(&g);
            }
            for (const BridgeDeck& b : scene.bridges) {
                if (!only || b.tile == *only) mBridgesOf[b.tile].push_back(&b);
            }
            for (const InstanceBlock& b : scene.blocks) {
                if (!only || b.tile == *only) blocksOf[b.tile].push_back(&b);
            }
            for (const SurfacePatch& p : scene.surfaces) {
                if (!only || p.tile == *only) surfacesOf[p.tile].push_back(&p);
            }
        }
        for (const auto& [quadkey, tile] : keyed) {
            const int tileNode = addTile(tile, surfacesOf[tile], blocksOf[tile]);
            mBuilder.nodes.at(mRoot).children.push_back(tileNode);
            mTiles.push_back(tile);
            mLastQuadkey = quadkey;
        }
        mScene = nullptr;
        if (!mStatus) return mStatus.error();
        for (Status s : {mBuilder.accessors.flush(mJson), mBuilder.views.flush(mJson), mBuilder.meshes.flush(mJson),
                         mBuilder.nodes.flush(mJson), mBuilder.bin.status()}) {
            if (!s) return s;
        }
        for (const detail::SpillBytes& data : mInstanceData) {
            if (!data.status()) return data.status();
        }
        if (binaryBytes() > 0xF0000000u) {
            return Error{"the GLB would hold " + std::to_string(binaryBytes()) +
                         " bytes of binary data, beyond the 4 GiB limit of the format: export fewer tiles per file"};
        }
        return Status::success();
    }

    /// Completes the model and writes the GLB of every part added to `sink` (emit): byte for byte
    /// what tinygltf writes for the whole model, without its copies of the binary chunk (tinygltf copies the buffer to
    /// write it, and its stream was a third copy) nor its JSON tree of the whole model. The JSON's large arrays come
    /// from their streamed text, the rest from tinygltf; members in tinygltf's order (nlohmann's objects keep their
    /// keys sorted).
    Status finish(const GlbSink& sink) {
        if (!mJson.ok()) return Error{"tinygltf failed to encode the GLB"};
        if (!mGeoreference) return Error{"nothing to encode"};
        tinygltf::Model& model = mBuilder.model;
        model.asset.version = "2.0";
        model.asset.generator = mOptions.generator;
        model.asset.copyright = mOptions.copyright;
        model.asset.extras = georeference(*mGeoreference, mTiles);
        mBuilder.nodes.at(mRoot).extras = georeference(*mGeoreference, mTiles);
        tinygltf::Scene gltfScene;
        gltfScene.name = "terrabit";
        gltfScene.nodes.push_back(mRoot);
        model.scenes.push_back(std::move(gltfScene));
        model.defaultScene = 0;
        if (mUsesInstancing) {
            model.extensionsUsed.push_back(kInstancing);
            // Required: a viewer that ignores the extension would draw each block's mesh once at
            // the origin, a wrong scene rather than a degraded one. plainNodes is the fallback.
            model.extensionsRequired.push_back(kInstancing);
        }
        if (mBuilder.usesQuantization) {
            // Required: the normals are bytes, which a viewer without the extension refuses.
            model.extensionsUsed.push_back(kQuantization);
            model.extensionsRequired.push_back(kQuantization);
        }
        mBuilder.bin.pad4();
        if (mInstanceViews[0] >= 0) {
            // The instance attributes of every block go at the end of the binary data.
            std::uint64_t at = mBuilder.bin.size();
            for (int kind = 0; kind < 3; ++kind) {
                tinygltf::BufferView& v = mBuilder.views.at(mInstanceViews[kind]);
                v.byteOffset = at;
                v.byteLength = mInstanceData[kind].size();
                at += v.byteLength;
            }
        }
        return emit(sink);
    }

    /// Bytes encoded so far: the binary data's and the large arrays' text.
    std::uint64_t encodedBytes() const {
        return binaryBytes() + mBuilder.accessors.textBytes() + mBuilder.views.textBytes() +
               mBuilder.meshes.textBytes() + mBuilder.nodes.textBytes();
    }

    /// Bytes of encoded data held in memory now: everything, or the stores' write buffers.
    std::uint64_t heldBytes() const {
        std::uint64_t held = mBuilder.bin.heldBytes() + mBuilder.accessors.heldBytes() + mBuilder.views.heldBytes() +
                             mBuilder.meshes.heldBytes() + mBuilder.nodes.heldBytes();
        for (const detail::SpillBytes& data : mInstanceData) held += data.heldBytes();
        return held;
    }

private:
    /// The GLB of the finished model: header, JSON chunk (the rest of the model from tinygltf,
    /// the streamed arrays from their text), binary chunk (the stores replayed).
    Status emit(const GlbSink& sink) {
        const std::uint64_t binBytes = binaryBytes();
        // The rest of the model (the streamed arrays are not in it), member by member.
        std::optional<std::string> restText = GltfText::of(mBuilder.model);
        if (!restText) return Error{"tinygltf failed to encode the GLB"};
        const nlohmann::json rest = nlohmann::json::parse(*restText, nullptr, false);
        if (!rest.is_object()) return Error{"tinygltf failed to encode the GLB"};
        using Array = std::variant<StreamedArray<tinygltf::Accessor>*, StreamedArray<tinygltf::BufferView>*,
                                   StreamedArray<tinygltf::Mesh>*, StreamedArray<tinygltf::Node>*>;
        struct Member {
            std::string text;  ///< the value's text, or empty for an array
            std::optional<Array> array;
            std::vector<std::string> held;  ///< the array's held elements' text
        };
        std::map<std::string, Member> members;  // key: its value
        for (const auto& [key, value] : rest.items()) members[key].text = value.dump();
        if (binBytes > 0) {
            // The model's buffer is empty (its bytes are in the stores): it gets the real length.
            Member& buffers = members["buffers"];
            if (buffers.text != "[{\"byteLength\":0}]") {
                return Error{"tinygltf wrote the GLB's buffer in an unexpected form"};
            }
            buffers.text = "[{\"byteLength\":" + std::to_string(binBytes) + "}]";
        }
        std::uint64_t jsonBytes = 2;  // {}
        Status status;
        const auto addArray = [&](auto* array) {
            if (!status || array->size() == 0) return;  // tinygltf leaves an empty array out
            if (members.count(array->key())) {
                status = Error{"tinygltf wrote the " + array->key() + " twice"};
                return;
            }
            auto written = array->heldText(mJson);
            if (!written) {
                status = written.error();
                return;
            }
            Member& m = members[array->key()];
            m.array = Array(array);
            m.held = std::move(written->held);
            jsonBytes += written->bytes;
        };
        addArray(&mBuilder.accessors);
        addArray(&mBuilder.views);
        addArray(&mBuilder.meshes);
        addArray(&mBuilder.nodes);
        if (!status) return status;
        for (const auto& [key, m] : members) jsonBytes += nlohmann::json(key).dump().size() + 1 + m.text.size();
        jsonBytes += members.empty() ? 0 : members.size() - 1;  // commas
        const std::uint64_t padding = (4 - jsonBytes % 4) % 4;
        jsonBytes += padding;

        // The builder pads the binary data to 4 bytes: the binary chunk needs no padding.
        const std::uint64_t total = 12 + 8 + jsonBytes + (binBytes == 0 ? 0 : 8 + binBytes);
        std::vector<std::uint8_t> start;
        const auto u32 = [&](std::uint64_t v) {
            for (int k = 0; k < 4; ++k) start.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
        };
        const auto text = [&](const std::string& s) {
            return sink({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
        };
        start.insert(start.end(), {'g', 'l', 'T', 'F'});
        u32(2);
        u32(total);
        u32(jsonBytes);
        start.insert(start.end(), {'J', 'S', 'O', 'N'});
        if (Status s = sink(start); !s) return s;
        std::string piece = "{";
        bool first = true;
        for (auto& [key, m] : members) {
            if (!first) piece += ',';
            first = false;
            piece += nlohmann::json(key).dump();
            piece += ':';
            if (!m.array) {
                piece += m.text;
                continue;
            }
            if (Status s = text(piece); !s) return s;
            piece.clear();
            // A named copy: clang 14 cannot capture a structured binding in a lambda.
            const auto& held = m.held;
            const Status s = std::visit([&](auto* array) { return array->write(held, sink); }, *m.array);
            if (!s) return s;
        }
        piece += '}';
        piece.append(padding, ' ');
        if (Status s = text(piece); !s) return s;
        if (binBytes == 0) return Status::success();  // no binary chunk, as tinygltf writes it
        start.clear();
        u32(binBytes);
        start.insert(start.end(), {'B', 'I', 'N', 0});
        if (Status s = sink(start); !s) return s;
        if (Status s = mBuilder.bin.replay(sink); !s) return s;
        if (mInstanceViews[0] < 0) return Status::success();
        for (detail::SpillBytes& data : mInstanceData) {
            if (Status s = data.replay(sink); !s) return s;
        }
        return Status::success();
    }

    /// The binary chunk's bytes: the builder's, then the instance attributes'.
    std::uint64_t binaryBytes() const {
        std::uint64_t bytes = mBuilder.bin.size();
        if (mInstanceViews[0] >= 0) {
            bytes += (4 - bytes % 4) % 4;
            for (const detail::SpillBytes& data : mInstanceData) bytes += data.size();
        }
        return bytes;
    }

    /// The scene point of a global cell corner at a height.
    Vec3f corner(std::int64_t gx, std::int64_t gy, double height) const {
        return groundToScene(mScene->frame.cellToGround({static_cast<double>(gx), static_cast<double>(gy)}), height);
    }

    void addRects(QuadMesh& mesh, const TileId& tile, std::span<const CellRect> rects, double height) const {
        const std::int64_t ox = std::int64_t{tile.x} * kTileCells;
        const std::int64_t oy = std::int64_t{tile.y} * kTileCells;
        for (const CellRect& r : rects) {
            mesh.add(corner(ox + r.x0, oy + r.y0, height), corner(ox + r.x0, oy + r.y1, height),
                     corner(ox + r.x1, oy + r.y1, height), corner(ox + r.x1, oy + r.y0, height));
        }
    }

    /// `roadUv` as GroundTriangles::roadUv (empty: none).
    tinygltf::Primitive primitive(const std::vector<float>& positions, const std::vector<float>& normals,
                                  const std::vector<std::uint32_t>& indices, int material,
                                  const std::vector<float>& roadUv = {}) {
        tinygltf::Primitive p;
        p.attributes["POSITION"] = mBuilder.vec3(positions, kArrayBuffer, true);
        p.attributes["NORMAL"] = mBuilder.normals(normals);
        if (const auto repeat = mTextureRepeat.find(material); repeat != mTextureRepeat.end()) {
            p.attributes["TEXCOORD_0"] =
                mBuilder.texCoords(surfaceTextureCoordinates(positions, roadUv, repeat->second));
        }
        p.indices = mBuilder.indices(indices, positions.size() / 3);
        p.material = material;
        p.mode = TINYGLTF_MODE_TRIANGLES;
        return p;
    }
    tinygltf::Primitive primitive(const QuadMesh& mesh, int material) {
        return primitive(mesh.positions, mesh.normals, mesh.indices, material);
    }
    tinygltf::Primitive primitive(const GroundTriangles& mesh, int material) {
        return primitive(mesh.positions, mesh.normals, mesh.indices, material, mesh.roadUv);
    }

    int surfaceMaterial(const SurfacePatch& s) {
        // Water reads as water only when it is glossy; everything else on the ground is matte.
        const double roughness = isWaterSurface(s) ? kWaterRoughness : 0.9;
        return groundMaterial(s.layer, s.colour, s.texture, roughness);
    }

    /// A material for something lying on the ground, in its colour or its texture (whose mean is
    /// the colour; the factor stays white), once per file.
    int groundMaterial(const std::string& name, std::array<std::uint8_t, 3> colour, SurfaceTexture texture,
                       double roughness) {
        const auto key = std::tuple(name, colour, texture);
        const auto it = mSurfaceMaterials.find(key);
        if (it != mSurfaceMaterials.end()) return it->second;
        const int picture = texture == SurfaceTexture::None ? -1 : surfaceTexture(texture, colour);
        const int m = mBuilder.material(
            name, picture >= 0 ? std::array<double, 4>{1.0, 1.0, 1.0, 1.0} : linearColour(colour), roughness);
        if (picture >= 0) {
            mBuilder.model.materials[static_cast<std::size_t>(m)].pbrMetallicRoughness.baseColorTexture.index = picture;
            mTextureRepeat.emplace(m, surfaceTextureRepeatMetres(texture));
        }
        mSurfaceMaterials.emplace(key, m);
        return m;
    }

    /// A surface texture in a colour: its JPEG in the binary chunk and its texture, once per
    /// file; every texture repeats (the sampler's default wrap) and is mipmapped. -1, with the
    /// encoder's status set, when the picture cannot be encoded.
    int surfaceTexture(SurfaceTexture kind, std::array<std::uint8_t, 3> colour) {
        const auto key = std::tuple(kind, colour);
        if (const auto it = mTextures.find(key); it != mTextures.end()) return it->second;
        const auto jpeg = surfaceTextureJpeg(kind, colour);
        if (!jpeg) {
            mStatus = jpeg.error();
            return -1;
        }
        tinygltf::Model& model = mBuilder.model;
        if (model.samplers.empty()) {
            tinygltf::Sampler sampler;
            sampler.magFilter = TINYGLTF_TEXTURE_FILTER_LINEAR;
            sampler.minFilter = TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR;
            model.samplers.push_back(sampler);
        }
        tinygltf::Image image;
        image.name = std::string(kSurfaceTextureWords[static_cast<std::size_t>(kind)]);
        image.mimeType = "image/jpeg";
        image.bufferView = mBuilder.view((*jpeg)->data(), (*jpeg)->size(), 0);
        model.images.push_back(std::move(image));
        tinygltf::Texture texture;
        texture.sampler = 0;
        texture.source = static_cast<int>(model.images.size() - 1);
        model.textures.push_back(texture);
        const int index = static_cast<int>(model.textures.size() - 1);
        mTextures.emplace(key, index);
        return index;
    }

    int addTile(const TileId& tile, const std::vector<const SurfacePatch*>& surfaces,
                const std::vector<const InstanceBlock*>& blocks) {
        // Ground: every cell not under a surface that lies below it (water), so sunken surfaces
        // show through holes instead of hiding under the ground plane.
        BitTile sunken;
        std::vector<const SurfaceShape*> sunkenShapes;
        bool sunkenShaped = true;
        for (const SurfacePatch* s : surfaces) {
            if (s->elevation >= 0.0f) continue;
            sunken |= cellsOfRects(s->rects);
            sunkenShaped = sunkenShaped && !s->shape.empty();
            sunkenShapes.push_back(&s->shape);
        }
        tinygltf::Mesh mesh;
        mesh.name = "ground " + tile.quadkey();
        // On terrain: the tile's ground mesh, and the surfaces draped on it.
        const GroundTile* terrain = mScene->terrain ? mScene->groundOf(tile) : nullptr;
        if (terrain && terrain->mesh.empty()) terrain = nullptr;
        // Around sunken surfaces in their real shapes the ground has their outline (a staircase
        // of cells would show instead of the shore).
        SurfaceShape around;
        if (!sunkenShapes.empty() && sunkenShaped) {
            if (Status st = mShaper.groundAround(sunkenShapes, around); !st) mStatus = st;
        }
        if (!around.empty()) {
            const GroundTriangles ground = drapeTriangles(*mScene, tile, terrain, around.triangles, 0.0f);
            if (!ground.empty()) mesh.primitives.push_back(primitive(ground, mGroundMaterial));
        } else if (terrain) {
            const GroundTriangles ground = sunken.none()
                                               ? groundTriangles(*mScene, *terrain)
                                               : drapeRects(*mScene, *terrain, mergeCellsIntoRects(~sunken), 0.0f);
            if (!ground.empty()) mesh.primitives.push_back(primitive(ground, mGroundMaterial));
        } else {
            QuadMesh ground;
            addRects(ground, tile, mergeCellsIntoRects(~sunken), 0.0);
            if (!ground.empty()) mesh.primitives.push_back(primitive(ground, mGroundMaterial));
        }
        for (const SurfacePatch* s : surfaces) {
            if (!s->shape.empty()) {
                const GroundTriangles t =
                    drapeTriangles(*mScene, tile, terrain, s->shape.triangles, s->elevation, s->roadUv);
                if (!t.empty()) mesh.primitives.push_back(primitive(t, surfaceMaterial(*s)));
                for (const SurfacePaint& paint : kSurfacePaints) {
                    const GroundTriangles laid =
                        drapeTriangles(*mScene, tile, terrain, (*s).*paint.triangles, s->elevation + paint.liftMetres);
                    if (laid.empty()) continue;
                    mesh.primitives.push_back(
                        primitive(laid, groundMaterial(paint.name, paint.colour, paint.texture, paint.roughness)));
                    if (!paint.kerbed) continue;
                    const GroundTriangles kerbs = drapeWalls(*mScene, tile, terrain, (*s).*paint.triangles,
                                                             s->elevation, s->elevation + paint.liftMetres);
                    if (!kerbs.empty()) {
                        mesh.primitives.push_back(
                            primitive(kerbs, groundMaterial(kKerbName, kKerbColour, SurfaceTexture::None, 0.9)));
                    }
                }
                continue;
            }
            if (s->rects.empty()) continue;
            if (terrain) {
                const GroundTriangles draped = drapeRects(*mScene, *terrain, s->rects, s->elevation);
                if (!draped.empty()) mesh.primitives.push_back(primitive(draped, surfaceMaterial(*s)));
                continue;
            }
            QuadMesh quads;
            addRects(quads, tile, s->rects, s->elevation);
            mesh.primitives.push_back(primitive(quads, surfaceMaterial(*s)));
        }
        // On terrain: the tile's plinths, one primitive.
        if (const auto it = mPlinthsOf.find(tile); it != mPlinthsOf.end()) {
            QuadMesh plinths;
            for (const Plinth* p : it->second) {
                for (const PlinthFace& f : plinthFaces(*p)) {
                    plinths.add(f.corners[0], f.corners[1], f.corners[2], f.corners[3], f.normal);
                }
            }
            if (mPlinthMaterial < 0) mPlinthMaterial = mBuilder.material("plinth", linearColour({150, 140, 125}), 0.9);
            mesh.primitives.push_back(primitive(plinths, mPlinthMaterial));
        }
        // On terrain: the decks of the tile's bridges, one primitive.
        if (const auto it = mBridgesOf.find(tile); it != mBridgesOf.end()) {
            QuadMesh decks;
            for (const BridgeDeck* b : it->second) {
                for (const PlinthFace& f : bridgeFaces(*b)) {
                    decks.add(f.corners[0], f.corners[1], f.corners[2], f.corners[3], f.normal);
                }
            }
            if (mBridgeMaterial < 0) mBridgeMaterial = mBuilder.material("bridge", linearColour(kBridgeColour), 0.85);
            if (!decks.empty()) mesh.primitives.push_back(primitive(decks, mBridgeMaterial));
        }

        tinygltf::Node node;
        node.name = "tile " + tile.quadkey();
        if (!mesh.primitives.empty()) {
            node.mesh = mBuilder.meshes.push(std::move(mesh));
        }
        std::vector<int> children;
        for (const InstanceBlock* b : blocks) {
            if (b->instances.empty()) continue;
            children.push_back(mOptions.plainNodes ? addPlainBlock(*b) : addInstancedBlock(*b));
        }
        if (const auto it = mGeneratedOf.find(tile); it != mGeneratedOf.end()) {
            if (const int g = addGeneratedBuildings(tile, it->second); g >= 0) children.push_back(g);
        }
        node.children = std::move(children);
        return mBuilder.node(std::move(node));
    }

    /// The glTF mesh of a scene asset, added on first use (by its id: each part of a scene
    /// numbers the assets it uses).
    int assetMesh(int asset) {
        const std::string& id = mScene->assets[static_cast<std::size_t>(asset)];
        const auto it = mAssetMeshes.find(id);
        if (it != mAssetMeshes.end()) return it->second;
        tinygltf::Mesh mesh;
        mesh.name = id;
        mesh.primitives.push_back(colouredPrimitive(mMeshes[static_cast<std::size_t>(asset)]));
        const int index = mBuilder.meshes.push(std::move(mesh));
        mAssetMeshes.emplace(id, index);
        return index;
    }

    /// A tile's generated buildings (core/scene/generated_building_mesh.h) as one node
    /// "generated buildings <quadkey>" whose mesh holds them all, in scene coordinates, with
    /// their source ids in its extras; -1 when none has a triangle.
    int addGeneratedBuildings(const TileId& tile, const std::vector<const GeneratedBuilding*>& buildings) {
        const AssetMesh all = generatedBuildingsMesh(buildings);
        if (all.empty()) return -1;
        const std::string name = "generated buildings " + tile.quadkey();
        tinygltf::Mesh mesh;
        mesh.name = name;
        mesh.primitives.push_back(colouredPrimitive(all));
        tinygltf::Node node;
        node.name = name;
        node.mesh = mBuilder.meshes.push(std::move(mesh));
        tinygltf::Value::Array ids;
        for (const GeneratedBuilding* g : buildings) {
            ids.emplace_back(g->source != Instance::kNoSource ? mScene->sources[g->source] : std::string());
        }
        tinygltf::Value::Object extras;
        extras["sources"] = tinygltf::Value(std::move(ids));
        node.extras = tinygltf::Value(std::move(extras));
        return mBuilder.node(std::move(node));
    }

    /// One primitive of a mesh with vertex colours (a model, a tile's generated buildings) in the
    /// material they all share.
    tinygltf::Primitive colouredPrimitive(const AssetMesh& m) {
        if (mAssetMaterial < 0) mAssetMaterial = mBuilder.material("asset vertex colours", {1, 1, 1, 1}, 0.9);
        tinygltf::Primitive p;
        p.attributes["POSITION"] = mBuilder.vec3(m.positions, kArrayBuffer, true);
        p.attributes["NORMAL"] = mBuilder.normals(m.normals);
        // Colours as normalised 16-bit: half the bytes of floats, no visible banding.
        std::vector<std::uint16_t> colours(m.colours.size());
        for (std::size_t i = 0; i < colours.size(); ++i) {
            colours[i] = static_cast<std::uint16_t>(std::lround(std::clamp(m.colours[i], 0.0f, 1.0f) * 65535.0));
        }
        p.attributes["COLOR_0"] =
            mBuilder.accessor(mBuilder.view(colours.data(), colours.size() * 2, kArrayBuffer),
                              TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TYPE_VEC4, m.vertexCount(), true);
        p.indices = mBuilder.indices(m.indices, m.vertexCount());
        p.material = mAssetMaterial;
        p.mode = TINYGLTF_MODE_TRIANGLES;
        return p;
    }

    std::string blockName(const InstanceBlock& b) const {
        return mScene->assets[static_cast<std::size_t>(b.asset)] + " block " + std::to_string(b.blockX) + "," +
               std::to_string(b.blockY);
    }

    /// The source feature ids of a block's instances ("" for none), or nothing when no instance
    /// has one (vegetation), to keep the JSON small.
    std::optional<tinygltf::Value> sources(const InstanceBlock& b) const {
        bool any = false;
        tinygltf::Value::Array ids;
        ids.reserve(b.instances.size());
        for (const Instance& i : b.instances) {
            const bool has = i.source != Instance::kNoSource;
            any = any || has;
            ids.emplace_back(has ? mScene->sources[i.source] : std::string());
        }
        if (!any) return std::nullopt;
        tinygltf::Value::Object extras;
        extras["sources"] = tinygltf::Value(std::move(ids));
        return tinygltf::Value(std::move(extras));
    }

    int addInstancedBlock(const InstanceBlock& b) {
        const std::size_t n = b.instances.size();
        if (mInstanceViews[0] < 0) {
            // Three buffer views shared by every block (placed at the end, see finish): a view
            // per block would add three JSON objects to each of what can be a hundred thousand
            // nodes. Instance attributes are not vertex data, so the views carry no target.
            for (int& v : mInstanceViews) v = mBuilder.heldView(kNoTarget);
        }
        const std::uint64_t t0 = mInstanceData[0].size(), r0 = mInstanceData[1].size(), s0 = mInstanceData[2].size();
        for (const Instance& i : b.instances) {
            const std::array<float, 3> t{i.position.x, i.position.y, i.position.z};
            const std::array<std::int16_t, 4> q = rotationQuaternionSnorm16(i);
            const std::array<float, 3> s{i.scale.x, i.scale.y, i.scale.z};
            mInstanceData[0].append(t.data(), sizeof t);
            mInstanceData[1].append(q.data(), sizeof q);
            mInstanceData[2].append(s.data(), sizeof s);
        }
        const auto shared = [&](int kind, std::uint64_t firstByte, int componentType, int type, bool normalized) {
            const int a = mBuilder.accessor(mInstanceViews[kind], componentType, type, n, normalized);
            mBuilder.accessors.at(a).byteOffset = firstByte;
            return a;
        };
        const int t = shared(0, t0, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, false);
        const int r = shared(1, r0, TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_TYPE_VEC4, true);
        const int s = shared(2, s0, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, false);

        tinygltf::Value::Object attributes;
        attributes["TRANSLATION"] = tinygltf::Value(t);
        attributes["ROTATION"] = tinygltf::Value(r);
        attributes["SCALE"] = tinygltf::Value(s);
        tinygltf::Value::Object extension;
        extension["attributes"] = tinygltf::Value(std::move(attributes));

        tinygltf::Node node;
        node.name = blockName(b);
        node.mesh = assetMesh(b.asset);
        node.extensions[kInstancing] = tinygltf::Value(std::move(extension));
        if (auto extras = sources(b)) node.extras = std::move(*extras);
        mUsesInstancing = true;
        return mBuilder.node(std::move(node));
    }

    int addPlainBlock(const InstanceBlock& b) {
        const int mesh = assetMesh(b.asset);
        const std::string& id = mScene->assets[static_cast<std::size_t>(b.asset)];
        std::vector<int> children;
        children.reserve(b.instances.size());
        for (std::size_t k = 0; k < b.instances.size(); ++k) {
            const Instance& i = b.instances[k];
            tinygltf::Node node;
            node.name = id + " " + std::to_string(k);
            node.mesh = mesh;
            node.translation = {i.position.x, i.position.y, i.position.z};
            const std::array<float, 4> q = rotationQuaternion(i);
            node.rotation = {q[0], q[1], q[2], q[3]};
            node.scale = {i.scale.x, i.scale.y, i.scale.z};
            if (i.source != Instance::kNoSource) {
                tinygltf::Value::Object extras;
                extras["source"] = tinygltf::Value(mScene->sources[i.source]);
                node.extras = tinygltf::Value(std::move(extras));
            }
            children.push_back(mBuilder.node(std::move(node)));
        }
        tinygltf::Node group;
        group.name = blockName(b);
        group.children = std::move(children);
        return mBuilder.node(std::move(group));
    }

    GlbSceneOptions mOptions;
    GltfText mJson;
    ModelBuilder mBuilder;
    std::array<detail::SpillBytes, 3> mInstanceData;  ///< as EncoderStores::instances, in block order
    const Scene* mScene = nullptr;                    ///< the part being added
    std::span<const AssetMesh> mMeshes;               ///< its assets' meshes
    std::optional<Georeference> mGeoreference;        ///< the first part's
    int mRoot = -1;                                   ///< the root node (held)
    std::vector<TileId> mTiles;                       ///< the tiles written, in order
    std::string mLastQuadkey;
    int mGroundMaterial = -1;
    int mAssetMaterial = -1;
    bool mUsesInstancing = false;
    int mInstanceViews[3] = {-1, -1, -1};     ///< TRANSLATION, ROTATION, SCALE (held)
    std::map<std::string, int> mAssetMeshes;  ///< asset id → glTF mesh index
    std::map<std::tuple<std::string, std::array<std::uint8_t, 3>, SurfaceTexture>, int> mSurfaceMaterials;
    std::map<std::tuple<SurfaceTexture, std::array<std::uint8_t, 3>>, int> mTextures;  ///< glTF texture indices
    std::map<int, double> mTextureRepeat;  ///< per textured material: metres one copy of its texture covers
    std::map<TileId, std::vector<const Plinth*>> mPlinthsOf;               ///< the plinths of each tile written
    std::map<TileId, std::vector<const GeneratedBuilding*>> mGeneratedOf;  ///< its generated buildings
    int mPlinthMaterial = -1;
    std::map<TileId, std::vector<const BridgeDeck*>> mBridgesOf;  ///< the bridge decks of each tile written
    int mBridgeMaterial = -1;
    placement::SurfaceShaper mShaper;  ///< the ground around sunken real-shape surfaces
    Status mStatus;                    ///< the first failure of a tile
};

/// A part's checks before it is encoded.
Status checkPart(const Scene& scene, std::span<const AssetMesh> meshes, const GlbSceneOptions& options) {
    if (!options.sceneChecked) {
        if (Status s = checkSceneForExport(scene); !s) return s;
    }
    if (meshes.size() != scene.assets.size()) {
        return Error{"glb: " + std::to_string(meshes.size()) + " asset meshes for the scene's " +
                     std::to_string(scene.assets.size()) + " assets"};
    }
    for (std::size_t a = 0; a < meshes.size(); ++a) {
        if (meshes[a].empty()) return Error{"glb: the mesh of asset '" + scene.assets[a] + "' has no triangles"};
    }
    return Status::success();
}

/// Runs one step of an encoder: its errors get the "glb: " prefix; a sink's own errors name
/// their file and are passed on as they are.
template <class Step>
Status guarded(bool& sinkFailed, Step&& step) {
    try {
        Status s = step();
        if (!s && !sinkFailed) return Error{"glb: " + s.message(), s.error().kind};
        return s;
    } catch (const std::exception& e) {
        // tinygltf and the containers may throw (bad_alloc on a huge scene); core never does.
        return Error{std::string("glb: ") + e.what()};
    }
}

GlbSink tracked(const GlbSink& sink, bool& sinkFailed) {
    return [&sink, &sinkFailed](std::span<const std::uint8_t> bytes) {
        Status s = sink(bytes);
        sinkFailed = !s;
        return s;
    };
}

Status encode(const Scene& scene, std::optional<TileId> only, std::span<const AssetMesh> meshes,
              const GlbSceneOptions& options, const SceneTileItems* items, const GlbSink& sink) {
    if (Status s = checkPart(scene, meshes, options); !s) return s;
    bool sinkFailed = false;
    return guarded(sinkFailed, [&] {
        SceneEncoder encoder(options, EncoderStores{});
        if (Status s = encoder.add(scene, meshes, only, items); !s) return s;
        return encoder.finish(tracked(sink, sinkFailed));
    });
}

/// encode into a byte vector.
Result<std::vector<std::uint8_t>> encodeBytes(const Scene& scene, std::optional<TileId> only,
                                              std::span<const AssetMesh> meshes, const GlbSceneOptions& options,
                                              const SceneTileItems* items) {
    std::vector<std::uint8_t> out;
    Status s = encode(scene, only, meshes, options, items, [&](std::span<const std::uint8_t> bytes) {
        out.insert(out.end(), bytes.begin(), bytes.end());
        return Status::success();
    });
    if (!s) return s.error();
    return out;
}

}  // namespace

bool isWaterSurface(const SurfacePatch& patch) {
    return patch.layer == "water" || patch.texture == SurfaceTexture::Water;
}

Result<std::vector<std::uint8_t>> encodeSceneGlb(const Scene& scene, std::span<const AssetMesh> assetMeshes,
                                                 const GlbSceneOptions& options) {
    return encodeBytes(scene, std::nullopt, assetMeshes, options, nullptr);
}

Status writeSceneGlb(const Scene& scene, std::span<const AssetMesh> assetMeshes, const GlbSink& sink,
                     const GlbSceneOptions& options) {
    return encode(scene, std::nullopt, assetMeshes, options, nullptr, sink);
}

struct GlbSceneStream::Impl {
    GlbSceneOptions options;
    std::optional<SceneEncoder> encoder;
    bool spent = false;
};

Result<GlbSceneStream> GlbSceneStream::open(const GlbSceneOptions& options, const std::filesystem::path& spillFolder) {
    Result<EncoderStores> stores = EncoderStores::make(spillFolder);
    if (!stores) return Error{"glb: " + stores.error().message, stores.error().kind};
    GlbSceneStream stream;
    stream.mImpl = std::make_unique<Impl>();
    stream.mImpl->options = options;
    stream.mImpl->encoder.emplace(stream.mImpl->options, std::move(*stores));
    return stream;
}

GlbSceneStream::GlbSceneStream() = default;
GlbSceneStream::GlbSceneStream(GlbSceneStream&&) noexcept = default;
GlbSceneStream& GlbSceneStream::operator=(GlbSceneStream&&) noexcept = default;
GlbSceneStream::~GlbSceneStream() = default;

Status GlbSceneStream::add(const Scene& part, std::span<const AssetMesh> assetMeshes) {
    if (!mImpl || mImpl->spent) return Error{"glb: the stream was finished or failed"};
    if (Status s = checkPart(part, assetMeshes, mImpl->options); !s) return s;
    bool sinkFailed = false;
    Status s = guarded(sinkFailed, [&] { return mImpl->encoder->add(part, assetMeshes, std::nullopt, nullptr); });
    mImpl->spent = !s;
    return s;
}

Status GlbSceneStream::finish(const GlbSink& sink) {
    if (!mImpl || mImpl->spent) return Error{"glb: the stream was finished or failed"};
    mImpl->spent = true;
    bool sinkFailed = false;
    Status s = guarded(sinkFailed, [&] { return mImpl->encoder->finish(tracked(sink, sinkFailed)); });
    mImpl->encoder.reset();  // its stores (and files) go now
    return s;
}

std::uint64_t GlbSceneStream::heldBytes() const { return mImpl && mImpl->encoder ? mImpl->encoder->heldBytes() : 0; }

std::uint64_t GlbSceneStream::encodedBytes() const {
    return mImpl && mImpl->encoder ? mImpl->encoder->encodedBytes() : 0;
}

Result<std::vector<std::uint8_t>> encodeTileGlb(const Scene& scene, const TileId& tile,
                                                std::span<const AssetMesh> assetMeshes, const GlbSceneOptions& options,
                                                const SceneTileItems* items) {
    return encodeBytes(scene, tile, assetMeshes, options, items);
}

Status checkSceneForExport(const Scene& scene) {
    const int zoom = scene.frame.zoom;
    if (zoom < 0 || zoom > kMaxZoom) return Error{"scene: zoom " + std::to_string(zoom) + " is outside 0..30"};
    if (!std::isfinite(scene.frame.origin.lon) || !std::isfinite(scene.frame.origin.lat) ||
        std::abs(scene.frame.origin.lat) > kMaxLatitude || std::abs(scene.frame.origin.lon) > 180.0) {
        return Error{"scene: the origin (" + std::to_string(scene.frame.origin.lon) + ", " +
                     std::to_string(scene.frame.origin.lat) + ") is not a Web Mercator longitude/latitude"};
    }
    std::vector<TileId> sorted = scene.tiles;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const TileId& t = sorted[i];
        if (t.zoom != zoom) {
            return Error{"scene: tile " + t.quadkey() + " is at zoom " + std::to_string(t.zoom) + ", the scene at " +
                         std::to_string(zoom)};
        }
        if (i > 0 && sorted[i - 1] == t) return Error{"scene: tile " + t.quadkey() + " is listed twice"};
    }
    const auto known = [&](const TileId& t) { return std::binary_search(sorted.begin(), sorted.end(), t); };
    const auto sourceOk = [&](std::uint32_t s) { return s == Instance::kNoSource || s < scene.sources.size(); };
    const int blocksPerSide = scene.blockCells > 0 ? (kTileCells + scene.blockCells - 1) / scene.blockCells : 0;
    if (blocksPerSide == 0 && !scene.blocks.empty()) {
        return Error{"scene: block size " + std::to_string(scene.blockCells) + " cells is not positive"};
    }
    for (std::size_t k = 0; k < scene.blocks.size(); ++k) {
        const InstanceBlock& b = scene.blocks[k];
        if (!known(b.tile)) return Error{"scene: " + where(b) + " is in a tile the scene does not list"};
        if (b.asset < 0 || static_cast<std::size_t>(b.asset) >= scene.assets.size()) {
            return Error{"scene: " + where(b) + " names asset " + std::to_string(b.asset) + " of " +
                         std::to_string(scene.assets.size())};
        }
        if (b.blockX < 0 || b.blockY < 0 || b.blockX >= blocksPerSide || b.blockY >= blocksPerSide) {
            return Error{"scene: " + where(b) + " is outside the tile's " + std::to_string(blocksPerSide) + " x " +
                         std::to_string(blocksPerSide) + " blocks"};
        }
        for (std::size_t i = 0; i < b.instances.size(); ++i) {
            const Instance& in = b.instances[i];
            if (!finite(in.position) || !finite(in.scale) || !std::isfinite(in.yaw)) {
                return Error{"scene: " + where(b) + ", instance " + std::to_string(i) + " of '" +
                             scene.assets[static_cast<std::size_t>(b.asset)] + "' has a non-finite transform"};
            }
            if (!sourceOk(in.source)) {
                return Error{"scene: " + where(b) + ", instance " + std::to_string(i) + " names source " +
                             std::to_string(in.source) + " of " + std::to_string(scene.sources.size())};
            }
        }
    }
    for (std::size_t k = 0; k < scene.surfaces.size(); ++k) {
        const SurfacePatch& s = scene.surfaces[k];
        const std::string at = "scene: surface '" + s.layer + "' of tile " + s.tile.quadkey();
        if (!known(s.tile)) return Error{at + " is in a tile the scene does not list"};
        if (!std::isfinite(s.elevation)) return Error{at + " has a non-finite elevation"};
        for (const CellRect& r : s.rects) {
            if (r.x0 >= r.x1 || r.y0 >= r.y1 || r.x1 > kTileCells || r.y1 > kTileCells) {
                return Error{at + ": rectangle [" + std::to_string(r.x0) + ", " + std::to_string(r.x1) + ") x [" +
                             std::to_string(r.y0) + ", " + std::to_string(r.y1) + ") is empty or leaves the tile"};
            }
        }
        if (!s.roadUv.empty() && s.roadUv.size() != s.shape.triangles.size()) {
            return Error{at + " has " + std::to_string(s.roadUv.size()) + " road texture coordinates for " +
                         std::to_string(s.shape.triangles.size()) + " triangle corners"};
        }
        // The shape's triangles and the paint's: whole triangles of points of the tile.
        std::vector<std::pair<std::span<const Vec2>, const char*>> layers{{s.shape.triangles, "triangle"}};
        for (const SurfacePaint& paint : kSurfacePaints) layers.emplace_back(s.*paint.triangles, paint.name);
        for (const auto& [corners, what] : layers) {
            if (corners.size() % 3 != 0) return Error{at + " has an incomplete " + what};
            for (const Vec2& v : corners) {
                if (!(v.x >= 0.0 && v.x <= kTileCells && v.y >= 0.0 && v.y <= kTileCells)) {
                    return Error{at + ": " + what + " corner (" + std::to_string(v.x) + ", " + std::to_string(v.y) +
                                 ") is not a finite point of the tile"};
                }
            }
        }
    }
    if (!std::isfinite(scene.originHeight)) return Error{"scene: the origin height is not finite"};
    for (std::size_t k = 0; k < scene.ground.size(); ++k) {
        const GroundTile& g = scene.ground[k];
        const std::string at = "scene: the ground of tile " + g.mesh.tile.quadkey();
        if (!known(g.mesh.tile)) return Error{at + " is in a tile the scene does not list"};
        if (k > 0 && !northToSouth(scene.ground[k - 1].mesh.tile, g.mesh.tile)) {
            return Error{at + " is out of order (the ground is sorted like the tiles, north to south)"};
        }
        if (g.normals.size() != g.mesh.vertices.size()) return Error{at + " has not one normal per vertex"};
        if (g.mesh.indices.size() % 3 != 0) return Error{at + " has an incomplete triangle"};
        for (const std::uint32_t i : g.mesh.indices) {
            if (i >= g.mesh.vertices.size()) return Error{at + " names a vertex it does not have"};
        }
        for (const terrain::GroundVertex& v : g.mesh.vertices) {
            if (v.column > kTileCells || v.row > kTileCells || !std::isfinite(v.height)) {
                return Error{at + " has a vertex outside the tile or without a finite height"};
            }
        }
    }
    for (const BridgeDeck& b : scene.bridges) {
        const std::string at = "scene: bridge '" + b.id + "' of tile " + b.tile.quadkey();
        if (!known(b.tile)) return Error{at + " is in a tile the scene does not list"};
        if (b.centreline.size() < 2 || !std::isfinite(b.width) || b.width < 0.0f) {
            return Error{at + " has fewer than two points or a bad width"};
        }
        for (const Vec3f& p : b.centreline) {
            if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
                return Error{at + " has a non-finite point"};
        }
    }
    for (const Plinth& p : scene.plinths) {
        const std::string at = "scene: a plinth of tile " + p.tile.quadkey();
        if (!known(p.tile)) return Error{at + " is in a tile the scene does not list"};
        if (!sourceOk(p.source)) return Error{at + " names a source outside the scene's"};
        if (!isFinite(p.box.centre) || !isFinite(p.box.halfExtents) || !std::isfinite(p.box.angle) ||
            !std::isfinite(p.bottom) || !std::isfinite(p.top) || p.bottom > p.top) {
            return Error{at + " has a non-finite or upside-down box"};
        }
    }
    for (const GeneratedBuilding& g : scene.generated) {
        const std::string at =
            "scene: generated building " +
            (g.source < scene.sources.size() ? "'" + scene.sources[g.source] + "'" : std::to_string(g.source)) +
            " of tile " + g.tile.quadkey();
        if (!known(g.tile)) return Error{at + " is in a tile the scene does not list"};
        if (!sourceOk(g.source)) return Error{at + " names a source outside the scene's"};
        if (Status s = checkGeneratedBuilding(g); !s) return Error{at + ": " + s.message()};
    }
    for (const BuildingRecord& b : scene.buildings) {
        const std::string at =
            "scene: building " +
            (b.source < scene.sources.size() ? "'" + scene.sources[b.source] + "'" : std::to_string(b.source));
        if (!sourceOk(b.source))
            return Error{at + " names a source outside the scene's " + std::to_string(scene.sources.size())};
        if (b.asset < -1 || (b.asset >= 0 && static_cast<std::size_t>(b.asset) >= scene.assets.size())) {
            return Error{at + " names asset " + std::to_string(b.asset) + " of " + std::to_string(scene.assets.size())};
        }
        if (b.outcome == BuildingOutcome::Placed && b.asset < 0) return Error{at + " is placed but names no asset"};
        if (b.outcome == BuildingOutcome::Placed &&
            (!finite(b.placement.position) || !finite(b.placement.scale) || !std::isfinite(b.placement.yaw))) {
            return Error{at + " has a non-finite placement"};
        }
    }
    return Status::success();
}

}  // namespace terrabit::core
