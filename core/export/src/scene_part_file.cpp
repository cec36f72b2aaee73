#include "terrabit/core/export/scene_part_file.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

namespace terrabit::core {

namespace {

constexpr char kFileMagic[8] = {'T', 'B', 'S', 'C', 'P', 'A', 'R', 'T'};
constexpr std::uint32_t kVersion = 1;
constexpr char kPartTag[4] = {'P', 'A', 'R', 'T'};
constexpr char kEndTag[4] = {'D', 'O', 'N', 'E'};

/// Bytes in the file's order: numbers little-endian one byte at a time, so the file does not
/// depend on the host.
class Out {
public:
    std::vector<std::uint8_t> bytes;

    void raw(const void* data, std::size_t n) {
        const auto* b = static_cast<const std::uint8_t*>(data);
        bytes.insert(bytes.end(), b, b + n);
    }
    void u8(std::uint8_t v) { bytes.push_back(v); }
    void u16(std::uint16_t v) { le(v, 2); }
    void u32(std::uint32_t v) { le(v, 4); }
    void u64(std::uint64_t v) { le(v, 8); }
    void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
    void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
    void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
    void str(std::string_view s) {
        u32(static_cast<std::uint32_t>(s.size()));
        raw(s.data(), s.size());
    }
    void tile(const TileId& t) {
        i32(t.zoom);
        u32(t.x);
        u32(t.y);
    }
    void vec2(Vec2 v) {
        f64(v.x);
        f64(v.y);
    }
    void vec3f(Vec3f v) {
        f32(v.x);
        f32(v.y);
        f32(v.z);
    }
    template <class Range, class Each>
    void array(const Range& items, Each&& each) {
        u64(static_cast<std::uint64_t>(std::size(items)));
        for (const auto& item : items) each(item);
    }

private:
    void le(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
};

/// Reads what Out wrote. Running out of bytes, or a count that cannot fit in what is left, marks
/// the reader failed (every later read gives zeros) and keeps where it happened.
class In {
public:
    explicit In(std::span<const std::uint8_t> bytes) : mBytes(bytes) {}

    bool failed() const { return mFailed; }
    /// Where the bytes stopped making sense: where a read failed, or else how far they were read.
    std::size_t failedAt() const { return mFailed ? mFailedAt : mAt; }
    /// Marks the bytes corrupt here (a value out of its range).
    void fail() {
        if (!mFailed) mFailedAt = mAt;
        mFailed = true;
    }

    std::uint8_t u8() { return static_cast<std::uint8_t>(le(1)); }
    std::uint16_t u16() { return static_cast<std::uint16_t>(le(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(le(4)); }
    std::uint64_t u64() { return le(8); }
    std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
    float f32() { return std::bit_cast<float>(u32()); }
    double f64() { return std::bit_cast<double>(u64()); }
    std::string str() {
        const std::uint32_t n = u32();
        if (!take(n)) return {};
        std::string s(reinterpret_cast<const char*>(mBytes.data() + mAt - n), n);
        return s;
    }
    /// A tile, which must be one (zoom 0..30, x and y within it): a quadkey is made of any.
    TileId tile() {
        const std::int32_t zoom = i32();
        const std::uint32_t x = u32();
        const std::uint32_t y = u32();
        Result<TileId> t = TileId::fromZxy(zoom, x, y);
        if (!t) {
            fail();
            return {};
        }
        return *t;
    }
    Vec2 vec2() {
        const double x = f64();
        return {x, f64()};
    }
    Vec3f vec3f() {
        Vec3f v;
        v.x = f32();
        v.y = f32();
        v.z = f32();
        return v;
    }
    /// An array's count, each element at least `minBytes`: no more than the bytes left allow, so
    /// a corrupt count cannot ask for gigabytes.
    std::size_t count(std::size_t minBytes) {
        const std::uint64_t n = u64();
        if (mFailed) return 0;
        if (n > (mBytes.size() - mAt) / std::max<std::size_t>(1, minBytes)) {
            fail();
            return 0;
        }
        return static_cast<std::size_t>(n);
    }
    template <class T, class Each>
    std::vector<T> array(std::size_t minBytes, Each&& each) {
        std::vector<T> out(count(minBytes));
        for (T& item : out) item = each();
        return out;
    }
    bool atEnd() const { return mAt == mBytes.size(); }

private:
    bool take(std::size_t n) {
        if (mFailed || n > mBytes.size() - mAt) {
            fail();
            return false;
        }
        mAt += n;
        return true;
    }
    std::uint64_t le(int n) {
        if (!take(static_cast<std::size_t>(n))) return 0;
        std::uint64_t v = 0;
        for (int i = n - 1; i >= 0; --i) v = (v << 8) | mBytes[mAt - static_cast<std::size_t>(n) + i];
        return v;
    }
    std::span<const std::uint8_t> mBytes;
    std::size_t mAt = 0;
    bool mFailed = false;
    std::size_t mFailedAt = 0;
};

void writeMesh(Out& o, const AssetMesh& m) {
    for (const std::vector<float>* v : {&m.positions, &m.normals, &m.colours}) {
        o.array(*v, [&](float f) { o.f32(f); });
    }
    o.array(m.indices, [&](std::uint32_t i) { o.u32(i); });
}

AssetMesh readMesh(In& in) {
    AssetMesh m;
    for (std::vector<float>* v : {&m.positions, &m.normals, &m.colours}) {
        *v = in.array<float>(4, [&] { return in.f32(); });
    }
    m.indices = in.array<std::uint32_t>(4, [&] { return in.u32(); });
    return m;
}

template <class T, class Each>
SharedVector<T> readShared(In& in, std::size_t minBytes, Each&& each) {
    return SharedVector<T>(in.array<T>(minBytes, std::forward<Each>(each)));
}

void writeScene(Out& o, const Scene& s) {
    o.f64(s.frame.origin.lon);
    o.f64(s.frame.origin.lat);
    o.i32(s.frame.zoom);
    o.u64(s.seed);
    o.i32(s.blockCells);
    o.u8(s.terrain ? 1 : 0);
    o.f64(s.originHeight);
    o.array(s.tiles, [&](const TileId& t) { o.tile(t); });
    o.array(s.assets, [&](const std::string& a) { o.str(a); });
    o.array(s.sources, [&](const std::string& a) { o.str(a); });
    o.array(s.blocks, [&](const InstanceBlock& b) {
        o.i32(b.asset);
        o.tile(b.tile);
        o.i32(b.blockX);
        o.i32(b.blockY);
        o.vec3f(b.bounds.min);
        o.vec3f(b.bounds.max);
        o.array(b.instances, [&](const Instance& in) {
            o.vec3f(in.position);
            o.f32(in.yaw);
            o.vec3f(in.scale);
            o.u32(in.source);
        });
    });
    const auto vec2s = [&](std::span<const Vec2> v) { o.array(v, [&](Vec2 p) { o.vec2(p); }); };
    const auto u32s = [&](std::span<const std::uint32_t> v) { o.array(v, [&](std::uint32_t x) { o.u32(x); }); };
    o.array(s.surfaces, [&](const SurfacePatch& p) {
        o.tile(p.tile);
        o.str(p.layer);
        o.f32(p.elevation);
        for (std::uint8_t c : p.colour) o.u8(c);
        o.u8(static_cast<std::uint8_t>(p.texture));
        vec2s(p.markings);
        vec2s(p.paving);
        vec2s(p.gravel);
        vec2s(p.sidewalks);
        o.array(std::span<const CellRect>(p.rects), [&](const CellRect& r) {
            o.u16(r.x0);
            o.u16(r.y0);
            o.u16(r.x1);
            o.u16(r.y1);
        });
        vec2s(p.roadUv);
        vec2s(p.shape.outline);  // the ground around a sunken surface follows it
        u32s(p.shape.ringEnds);
        u32s(p.shape.polygonEnds);
        vec2s(p.shape.triangles);
    });
    const auto box = [&](const OrientedBox& b) {
        o.vec2(b.centre);
        o.vec2(b.halfExtents);
        o.f64(b.angle);
    };
    o.array(s.plinths, [&](const Plinth& p) {
        o.tile(p.tile);
        o.u32(p.source);
        box(p.box);
        o.f32(p.bottom);
        o.f32(p.top);
    });
    o.array(s.bridges, [&](const BridgeDeck& b) {
        o.tile(b.tile);
        o.str(b.id);
        o.array(b.centreline, [&](Vec3f v) { o.vec3f(v); });
        o.f32(b.width);
    });
    o.array(s.generated, [&](const GeneratedBuilding& g) {
        o.tile(g.tile);
        o.u32(g.source);
        vec2s(g.outline);
        o.array(g.courtyards, [&](const std::vector<Vec2>& c) { vec2s(c); });
        o.f32(g.base);
        o.f32(g.wallHeight);
        o.f32(g.roofHeight);
        o.str(g.roofShape);
    });
    o.array(s.ground, [&](const GroundTile& g) {
        o.tile(g.mesh.tile);
        o.array(g.mesh.vertices, [&](const terrain::GroundVertex& v) {
            o.u16(v.column);
            o.u16(v.row);
            o.f32(v.height);
        });
        u32s(g.mesh.indices);
        o.array(g.normals, [&](Vec3f v) { o.vec3f(v); });
    });
}

/// Whether a shape's rings and polygons are as SurfaceShape keeps them: each ends after the one
/// before (a ring of at least one point, a polygon of at least one ring), the last at the end of
/// the outline (of the rings).
bool wellNested(const SurfaceShape& shape) {
    const auto ends = [](std::span<const std::uint32_t> e, std::size_t total) {
        for (std::size_t k = 0; k < e.size(); ++k) {
            if (e[k] > total || (k > 0 && e[k] <= e[k - 1]) || (k == 0 && e[k] == 0)) return false;
        }
        return e.empty() ? total == 0 : e.back() == total;
    };
    return ends(shape.ringEnds, shape.outline.size()) && ends(shape.polygonEnds, shape.ringEnds.size());
}

/// Reads a scene as writeScene wrote it; `in` is failed when the bytes do not hold one. The
/// values are not checked here (checkSceneForExport does, before encoding), only the enum.
Scene readScene(In& in) {
    Scene s;
    s.frame.origin.lon = in.f64();
    s.frame.origin.lat = in.f64();
    s.frame.zoom = in.i32();
    s.seed = in.u64();
    s.blockCells = in.i32();
    s.terrain = in.u8() != 0;
    s.originHeight = in.f64();
    s.tiles = in.array<TileId>(12, [&] { return in.tile(); });
    s.assets = in.array<std::string>(4, [&] { return in.str(); });
    s.sources = in.array<std::string>(4, [&] { return in.str(); });
    s.blocks = in.array<InstanceBlock>(52, [&] {
        InstanceBlock b;
        b.asset = in.i32();
        b.tile = in.tile();
        b.blockX = in.i32();
        b.blockY = in.i32();
        b.bounds.min = in.vec3f();
        b.bounds.max = in.vec3f();
        b.instances = readShared<Instance>(in, 32, [&] {
            Instance i;
            i.position = in.vec3f();
            i.yaw = in.f32();
            i.scale = in.vec3f();
            i.source = in.u32();
            return i;
        });
        return b;
    });
    const auto vec2s = [&] { return readShared<Vec2>(in, 16, [&] { return in.vec2(); }); };
    const auto u32s = [&] { return readShared<std::uint32_t>(in, 4, [&] { return in.u32(); }); };
    s.surfaces = in.array<SurfacePatch>(104, [&] {
        SurfacePatch p;
        p.tile = in.tile();
        p.layer = in.str();
        p.elevation = in.f32();
        for (std::uint8_t& c : p.colour) c = in.u8();
        const std::uint8_t texture = in.u8();
        if (texture >= kSurfaceTextureWords.size()) in.fail();
        p.texture = static_cast<SurfaceTexture>(texture);
        p.markings = vec2s();
        p.paving = vec2s();
        p.gravel = vec2s();
        p.sidewalks = vec2s();
        p.rects = readShared<CellRect>(in, 8, [&] {
            CellRect r;
            r.x0 = in.u16();
            r.y0 = in.u16();
            r.x1 = in.u16();
            r.y1 = in.u16();
            return r;
        });
        p.roadUv = vec2s();
        p.shape.outline = vec2s();
        p.shape.ringEnds = u32s();
        p.shape.polygonEnds = u32s();
        if (!wellNested(p.shape)) in.fail();
        p.shape.triangles = vec2s();
        return p;
    });
    const auto box = [&] {
        OrientedBox b;
        b.centre = in.vec2();
        b.halfExtents = in.vec2();
        b.angle = in.f64();
        return b;
    };
    s.plinths = in.array<Plinth>(60, [&] {
        Plinth p;
        p.tile = in.tile();
        p.source = in.u32();
        p.box = box();
        p.bottom = in.f32();
        p.top = in.f32();
        return p;
    });
    s.bridges = in.array<BridgeDeck>(28, [&] {
        BridgeDeck b;
        b.tile = in.tile();
        b.id = in.str();
        b.centreline = in.array<Vec3f>(12, [&] { return in.vec3f(); });
        b.width = in.f32();
        return b;
    });
    s.generated = in.array<GeneratedBuilding>(48, [&] {
        GeneratedBuilding g;
        g.tile = in.tile();
        g.source = in.u32();
        g.outline = in.array<Vec2>(16, [&] { return in.vec2(); });
        g.courtyards = in.array<std::vector<Vec2>>(8, [&] { return in.array<Vec2>(16, [&] { return in.vec2(); }); });
        g.base = in.f32();
        g.wallHeight = in.f32();
        g.roofHeight = in.f32();
        g.roofShape = in.str();
        return g;
    });
    s.ground = in.array<GroundTile>(28, [&] {
        GroundTile g;
        g.mesh.tile = in.tile();
        g.mesh.vertices = in.array<terrain::GroundVertex>(8, [&] {
            terrain::GroundVertex v;
            v.column = in.u16();
            v.row = in.u16();
            v.height = in.f32();
            return v;
        });
        g.mesh.indices = in.array<std::uint32_t>(4, [&] { return in.u32(); });
        g.normals = in.array<Vec3f>(12, [&] { return in.vec3f(); });
        return g;
    });
    return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ScenePartWriter

struct ScenePartWriter::Impl {
    std::optional<OutputFile> file;
    std::set<std::string> written;  ///< the asset ids whose model the file already holds
    std::uint64_t parts = 0;
    bool spent = false;
};

ScenePartWriter::ScenePartWriter() : mImpl(std::make_unique<Impl>()) {}
ScenePartWriter::ScenePartWriter(ScenePartWriter&&) noexcept = default;
ScenePartWriter& ScenePartWriter::operator=(ScenePartWriter&&) noexcept = default;
ScenePartWriter::~ScenePartWriter() = default;

Result<ScenePartWriter> ScenePartWriter::open(const std::filesystem::path& file, const GlbSceneOptions& options,
                                              WriteFaults* faults) {
    Result<OutputFile> out = OutputFile::create(file, faults);
    if (!out) return out.error();
    ScenePartWriter w;
    w.mImpl->file.emplace(std::move(*out));
    Out o;
    o.raw(kFileMagic, sizeof kFileMagic);
    o.u32(kVersion);
    o.u8(options.plainNodes ? 1 : 0);
    for (std::uint8_t c : options.groundColour) o.u8(c);
    o.str(options.generator);
    o.str(options.copyright);
    if (Status s = w.mImpl->file->write(o.bytes); !s) return s.error();
    return w;
}

Status ScenePartWriter::add(const Scene& part, std::span<const AssetMesh> meshes) {
    if (!mImpl || mImpl->spent) return Error{"scene.part: the file was finished or failed"};
    if (meshes.size() != part.assets.size()) {
        return Error{"scene.part: " + std::to_string(meshes.size()) + " models for " +
                     std::to_string(part.assets.size()) + " assets"};
    }
    Out o;
    o.raw(kPartTag, sizeof kPartTag);
    o.u64(0);  // the payload's size, filled in below
    std::vector<std::size_t> fresh;
    for (std::size_t k = 0; k < part.assets.size(); ++k) {
        if (!mImpl->written.contains(part.assets[k])) fresh.push_back(k);
    }
    o.u32(static_cast<std::uint32_t>(fresh.size()));
    for (std::size_t k : fresh) {
        o.str(part.assets[k]);
        writeMesh(o, meshes[k]);
    }
    writeScene(o, part);
    const std::uint64_t payload = o.bytes.size() - sizeof kPartTag - 8;
    for (int i = 0; i < 8; ++i) o.bytes[sizeof kPartTag + i] = static_cast<std::uint8_t>(payload >> (8 * i));
    if (Status s = mImpl->file->write(o.bytes); !s) {
        mImpl->spent = true;
        return s;
    }
    for (std::size_t k : fresh) mImpl->written.insert(part.assets[k]);
    ++mImpl->parts;
    return Status::success();
}

Result<std::uint64_t> ScenePartWriter::finish() {
    if (!mImpl || mImpl->spent) return Error{"scene.part: the file was finished or failed"};
    mImpl->spent = true;
    Out o;
    o.raw(kEndTag, sizeof kEndTag);
    o.u64(mImpl->parts);
    if (Status s = mImpl->file->write(o.bytes); !s) return s.error();
    if (Status s = mImpl->file->commit(); !s) return s.error();
    return mImpl->file->size();
}

// ---------------------------------------------------------------------------------------------
// ScenePartReader

struct ScenePartReader::Impl {
    std::filesystem::path path;
    std::ifstream in;
    std::uint64_t size = 0;  ///< the file's bytes
    std::uint64_t at = 0;    ///< where the next part starts
    GlbSceneOptions options;
    std::map<std::string, AssetMesh, std::less<>> meshes;  ///< every model given so far
    std::uint64_t parts = 0;
    bool done = false;
    std::vector<std::uint8_t> buffer;

    Error error(const std::string& what) const { return Error{path.string() + ": " + what}; }
    /// Reads `n` bytes at `at` into `buffer`; false when the file ends first.
    bool read(std::uint64_t n) {
        if (n > size - std::min(size, at)) return false;
        buffer.resize(static_cast<std::size_t>(n));
        in.seekg(static_cast<std::streamoff>(at));
        in.read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(n));
        if (!in) return false;
        at += n;
        return true;
    }
};

ScenePartReader::ScenePartReader() : mImpl(std::make_unique<Impl>()) {}
ScenePartReader::ScenePartReader(ScenePartReader&&) noexcept = default;
ScenePartReader& ScenePartReader::operator=(ScenePartReader&&) noexcept = default;
ScenePartReader::~ScenePartReader() = default;

Result<ScenePartReader> ScenePartReader::open(const std::filesystem::path& file) {
    ScenePartReader r;
    Impl& m = *r.mImpl;
    m.path = file;
    std::error_code ec;
    m.size = std::filesystem::file_size(file, ec);
    if (ec) return m.error("cannot read it: " + ec.message());
    m.in.open(file, std::ios::binary);
    if (!m.in) return m.error("cannot open it");
    // The header: magic, version, options (two strings of at most what the file holds).
    constexpr std::uint64_t kFixed = sizeof kFileMagic + 4 + 4;  // magic, version, options
    if (!m.read(kFixed)) return m.error("not a scene.part, or one cut short (" + std::to_string(m.size) + " bytes)");
    if (std::memcmp(m.buffer.data(), kFileMagic, sizeof kFileMagic) != 0) {
        return m.error("not a scene.part (no \"TBSCPART\" at its start)");
    }
    In in(m.buffer);
    for (std::size_t i = 0; i < sizeof kFileMagic; ++i) in.u8();
    if (const std::uint32_t v = in.u32(); v != kVersion) {
        return m.error("scene.part version " + std::to_string(v) + " (this program reads version " +
                       std::to_string(kVersion) + "): bake the shards again with this terrabit-cli");
    }
    m.options.plainNodes = in.u8() != 0;
    for (std::uint8_t& c : m.options.groundColour) c = in.u8();
    std::string* strings[] = {&m.options.generator, &m.options.copyright};
    for (std::string* s : strings) {
        if (!m.read(4)) return m.error("truncated in its header");
        In length(m.buffer);
        const std::uint32_t n = length.u32();
        if (n > (1u << 20) || !m.read(n)) return m.error("truncated or corrupt header");
        s->assign(m.buffer.begin(), m.buffer.end());
    }
    return r;
}

const GlbSceneOptions& ScenePartReader::options() const { return mImpl->options; }

Result<bool> ScenePartReader::next(Scene& part, std::vector<AssetMesh>& meshes) {
    Impl& m = *mImpl;
    if (m.done) return false;
    const std::string which = "part " + std::to_string(m.parts + 1);
    if (!m.read(12)) {
        return m.error("ends after " + std::to_string(m.parts) +
                       " parts without its end mark: the shard did not finish writing it; bake the shard again");
    }
    In head(m.buffer);
    char tag[4];
    for (char& c : tag) c = static_cast<char>(head.u8());
    const std::uint64_t n = head.u64();
    if (std::memcmp(tag, kEndTag, 4) == 0) {
        if (n != m.parts || m.at != m.size) return m.error("corrupt end mark");
        m.done = true;
        return false;
    }
    if (std::memcmp(tag, kPartTag, 4) != 0) return m.error(which + ": corrupt (no part mark)");
    if (!m.read(n)) return m.error(which + ": truncated (it says " + std::to_string(n) + " bytes)");
    In in(m.buffer);
    const std::uint32_t fresh = in.u32();
    for (std::uint32_t k = 0; k < fresh && !in.failed(); ++k) {
        std::string id = in.str();
        AssetMesh mesh = readMesh(in);
        if (in.failed()) break;
        if (Status valid = mesh.validate(); !valid) {
            return m.error(which + ": the model of '" + id + "': " + valid.message());
        }
        m.meshes.insert_or_assign(std::move(id), std::move(mesh));
    }
    part = readScene(in);
    if (in.failed() || !in.atEnd()) {
        return m.error(which + ": corrupt at byte " + std::to_string(in.failedAt()) + " of its " + std::to_string(n));
    }
    meshes.clear();
    meshes.reserve(part.assets.size());
    for (const std::string& id : part.assets) {
        const auto it = m.meshes.find(id);
        if (it == m.meshes.end()) return m.error(which + ": asset '" + id + "' has no model before it");
        meshes.push_back(it->second);
    }
    ++m.parts;
    return true;
}

}  // namespace terrabit::core
