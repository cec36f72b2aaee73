#include "terrabit/core/collision/collision_file.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::core {

namespace {

// Slicing-by-8 tables for the reflected CRC-32 polynomial 0xEDB88320: eight bytes per step,
// several times faster than the byte-wise loop on 8 KiB tiles.
constexpr std::array<std::array<std::uint32_t, 256>, 8> makeCrcTables() {
    std::array<std::array<std::uint32_t, 256>, 8> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
        t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i) {
        for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xffu];
    }
    return t;
}
constexpr auto kCrcTables = makeCrcTables();

/// Little-endian field reader over the file bytes that remembers the offset for messages.
class Reader {
public:
    Reader(std::span<const std::uint8_t> bytes, std::string_view source) : mBytes(bytes), mSource(source) {}

    std::size_t offset() const { return mOffset; }
    bool has(std::size_t n) const { return mBytes.size() - mOffset >= n; }
    void seek(std::size_t offset) { mOffset = offset; }

    std::uint16_t u16() { return static_cast<std::uint16_t>(uint(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(uint(4)); }
    std::uint64_t u64() { return uint(8); }
    std::string_view text(std::size_t n) {
        std::string_view s(reinterpret_cast<const char*>(mBytes.data() + mOffset), n);
        mOffset += n;
        return s;
    }

    Error error(std::size_t at, const std::string& what) const {
        return Error{"collision grid file '" + std::string(mSource) + "', byte " + std::to_string(at) + ": " + what};
    }
    Error truncated(const std::string& what) const {
        return Error{"collision grid file '" + std::string(mSource) + "': truncated at byte " +
                     std::to_string(mBytes.size()) + " while reading " + what};
    }

private:
    std::uint64_t uint(int n) {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) v |= std::uint64_t{mBytes[mOffset + i]} << (8 * i);
        mOffset += static_cast<std::size_t>(n);
        return v;
    }

    std::span<const std::uint8_t> mBytes;
    std::string_view mSource;
    std::size_t mOffset = 0;
};

/// The parsed tiles as a LayerSource, so CollisionGrid::build lays them out exactly as it did
/// for the grid that was written.
class ParsedLayers final : public LayerSource {
public:
    std::vector<std::string> names;
    std::map<std::pair<TileId, int>, std::size_t> index;  // (tile, layer) → position in bits
    std::vector<BitTile> bits;
    std::map<TileId, terrain::HeightTile> heightTiles;  // version 2: the tiles with a height block

    const std::vector<std::string>& layerNames() const override { return names; }
    const BitTile* tile(const TileId& id, int layer) const override {
        const auto it = index.find({id, layer});
        return it == index.end() ? nullptr : &bits[it->second];
    }
    const terrain::HeightTile* heights(const TileId& id) const override {
        const auto it = heightTiles.find(id);
        return it == heightTiles.end() ? nullptr : &it->second;
    }
};

}  // namespace

std::uint32_t collisionFileChecksum(std::span<const std::uint8_t> bytes, std::uint32_t crc) {
    std::uint32_t c = ~crc;
    const std::uint8_t* p = bytes.data();
    std::size_t n = bytes.size();
    // Hot on big grids: eight bytes per table round.
    while (n >= 8) {
        const std::uint32_t lo = c ^ (std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
                                      std::uint32_t{p[3]} << 24);
        c = kCrcTables[7][lo & 0xffu] ^ kCrcTables[6][(lo >> 8) & 0xffu] ^ kCrcTables[5][(lo >> 16) & 0xffu] ^
            kCrcTables[4][lo >> 24] ^ kCrcTables[3][p[4]] ^ kCrcTables[2][p[5]] ^ kCrcTables[1][p[6]] ^
            kCrcTables[0][p[7]];
        p += 8;
        n -= 8;
    }
    while (n-- > 0) c = kCrcTables[0][(c ^ *p++) & 0xffu] ^ (c >> 8);
    return ~c;
}

namespace {

/// The fixed fields of a collision grid file, after its magic and version.
struct FileHeader {
    std::uint32_t version = 0;  ///< 1 or 2
    std::uint32_t zoom = 0;
    std::uint32_t x0 = 0, y0 = 0;      ///< the region's north-west tile
    std::uint32_t wide = 0, high = 0;  ///< the region's size in tiles
    std::uint32_t layerCount = 0;
    std::uint32_t tileCount = 0;   ///< entries in the tile index
    std::uint64_t dataOffset = 0;  ///< where the bit tiles start
    std::size_t body = 0;          ///< the file's bytes before the checksum
};

/// The magic, the version and the checksum: checked first, so a damaged file says so rather
/// than naming whichever field the damage hit.
Result<std::uint32_t> checkFileFrame(Reader& r, std::span<const std::uint8_t> bytes, std::string_view sourceName) {
    if (!r.has(kCollisionFileHeaderSize + 4)) return r.truncated("the header");
    if (std::memcmp(bytes.data(), kCollisionFileMagic, sizeof kCollisionFileMagic) != 0) {
        return r.error(0, "not a Terrabit collision grid (the file does not start with \"TBCOLGRD\")");
    }
    r.seek(8);
    const std::uint32_t version = r.u32();
    if (version != kCollisionFileVersionFlat && version != kCollisionFileVersion) {
        return r.error(8, "format version " + std::to_string(version) + " is not supported (this build reads " +
                              std::to_string(kCollisionFileVersionFlat) + " and " +
                              std::to_string(kCollisionFileVersion) + ")");
    }
    const std::size_t body = bytes.size() - 4;
    Reader trailer(bytes, sourceName);
    trailer.seek(body);
    const std::uint32_t stored = trailer.u32();
    const std::uint32_t actual = collisionFileChecksum(bytes.first(body));
    if (stored != actual) {
        return r.error(body, "checksum mismatch (stored " + std::to_string(stored) + ", computed " +
                                 std::to_string(actual) + "): the file is damaged or truncated");
    }
    return version;
}

/// The header's fields after the version, each checked against what a grid can hold.
Result<FileHeader> readHeader(Reader& r, std::uint32_t version, std::size_t body) {
    FileHeader h;
    h.version = version;
    h.body = body;
    h.zoom = r.u32();
    h.x0 = r.u32();
    h.y0 = r.u32();
    h.wide = r.u32();
    h.high = r.u32();
    h.layerCount = r.u32();
    h.tileCount = r.u32();
    h.dataOffset = r.u64();
    if (h.zoom > static_cast<std::uint32_t>(kMaxZoom)) return r.error(12, "zoom " + std::to_string(h.zoom) + " > 30");
    const std::uint64_t side = std::uint64_t{1} << h.zoom;
    if (std::uint64_t{h.x0} + h.wide > side || std::uint64_t{h.y0} + h.high > side) {
        return r.error(16, "the region of " + std::to_string(h.wide) + " x " + std::to_string(h.high) + " tiles at (" +
                               std::to_string(h.x0) + ", " + std::to_string(h.y0) + ") leaves the zoom-" +
                               std::to_string(h.zoom) + " world");
    }
    // CollisionGrid keeps a table entry per region slot and layer: a damaged or hostile header
    // must not make it allocate terabytes.
    if (std::uint64_t{h.wide} * h.high > kMaxCollisionFileTiles) {
        return r.error(24, "the region of " + std::to_string(h.wide) + " x " + std::to_string(h.high) +
                               " tiles is larger than the " + std::to_string(kMaxCollisionFileTiles) +
                               " tiles a collision grid holds");
    }
    if (h.layerCount < 1 || h.layerCount > static_cast<std::uint32_t>(kMaxCollisionLayers)) {
        return r.error(32, "layer count " + std::to_string(h.layerCount) + " is outside 1..64");
    }
    if (std::uint64_t{h.tileCount} > std::uint64_t{h.wide} * h.high) {
        return r.error(36, "the index lists " + std::to_string(h.tileCount) + " tiles, more than the region holds");
    }
    if (h.dataOffset % kCollisionFileDataAlignment != 0 || h.dataOffset > body) {
        return r.error(40, "data offset " + std::to_string(h.dataOffset) + " is not a multiple of 32 inside the file");
    }
    return h;
}

/// The layer names, each non-empty and named once, into layers.names.
Status readLayerNames(Reader& r, const FileHeader& h, ParsedLayers& layers) {
    for (std::uint32_t l = 0; l < h.layerCount; ++l) {
        const std::size_t at = r.offset();
        if (!r.has(2)) return r.truncated("layer names");
        const std::uint16_t n = r.u16();
        if (n == 0) return r.error(at, "layer " + std::to_string(l) + " has an empty name");
        if (!r.has(n) || r.offset() + n > h.body) return r.truncated("layer names");
        std::string name(r.text(n));
        if (std::find(layers.names.begin(), layers.names.end(), name) != layers.names.end()) {
            return r.error(at, "layer name '" + name + "' appears twice");
        }
        layers.names.push_back(std::move(name));
    }
    return Status::success();
}

/// One entry of the tile index: a tile of the region, named by its quadkey, after the last
/// entry in (y, x) order, with layers only among those the file names.
Status readIndexEntry(Reader& r, const FileHeader& h, std::vector<TileId>& tiles, std::vector<std::uint64_t>& masks) {
    const std::size_t at = r.offset();
    if (at + kCollisionFileIndexEntrySize > h.dataOffset) return r.error(at, "the tile index runs into the data");
    const std::uint32_t x = r.u32();
    const std::uint32_t y = r.u32();
    const std::uint64_t mask = r.u64();
    std::string_view qk = r.text(32);
    const std::size_t end = std::min(qk.find('\0'), qk.size());
    if (qk.find_first_not_of('\0', end) != std::string_view::npos) {
        return r.error(at + 16, "the quadkey field is not padded with zero bytes");
    }
    qk = qk.substr(0, end);
    if (x < h.x0 || y < h.y0 || x - h.x0 >= h.wide || y - h.y0 >= h.high) {
        return r.error(at, "tile (" + std::to_string(x) + ", " + std::to_string(y) + ") is outside the region");
    }
    const TileId t{static_cast<int>(h.zoom), x, y};
    if (t.quadkey() != qk) {
        return r.error(at + 16, "quadkey '" + std::string(qk) + "' does not name tile (" + std::to_string(x) + ", " +
                                    std::to_string(y) + ") at zoom " + std::to_string(h.zoom) + " (expected '" +
                                    t.quadkey() + "')");
    }
    if (!tiles.empty() && !(std::pair{tiles.back().y, tiles.back().x} < std::pair{y, x})) {
        return r.error(at, "tile " + t.quadkey() + " is out of (y, x) order or listed twice");
    }
    if (h.layerCount < 64 && (mask >> h.layerCount) != 0) {
        return r.error(at + 8, "tile " + t.quadkey() + " claims layers beyond the " + std::to_string(h.layerCount) +
                                   " the file names");
    }
    tiles.push_back(t);
    masks.push_back(mask);
    return Status::success();
}

/// The bit tiles the index announces, after zero padding, into layers.bits and layers.index.
Status readBitTiles(const Reader& r, std::span<const std::uint8_t> bytes, const FileHeader& h,
                    std::span<const TileId> tiles, std::span<const std::uint64_t> masks, ParsedLayers& layers) {
    for (std::size_t at = r.offset(); at < h.dataOffset; ++at) {
        if (bytes[at] != 0) return r.error(at, "the padding before the bit tiles is not zero");
    }
    std::size_t stored = 0;
    for (std::uint64_t m : masks) stored += static_cast<std::size_t>(std::popcount(m));
    // Version 1 ends with the bit tiles; in version 2 the height blocks follow them.
    const std::size_t bitBytes = stored * sizeof(BitTile);
    const std::size_t room = h.body - h.dataOffset;
    if (h.version == kCollisionFileVersionFlat ? bitBytes != room : bitBytes > room) {
        return r.error(h.dataOffset, "the index announces " + std::to_string(stored) + " bit tiles (" +
                                         std::to_string(bitBytes) + " bytes) but " + std::to_string(room) +
                                         " bytes follow");
    }
    layers.bits.resize(stored);
    std::size_t next = 0;
    const std::uint8_t* data = bytes.data() + h.dataOffset;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        for (int l = 0; l < static_cast<int>(h.layerCount); ++l) {
            if (((masks[i] >> l) & 1u) == 0) continue;
            BitTile& bits = layers.bits[next];
            std::memcpy(bits.words().data(), data + next * sizeof(BitTile), sizeof(BitTile));
            if constexpr (std::endian::native == std::endian::big) {
                for (std::uint64_t& w : bits.words()) w = __builtin_bswap64(w);
            }
            layers.index[{tiles[i], l}] = next;
            ++next;
        }
    }
    return Status::success();
}

std::size_t alignedHeightBlock(std::size_t n) {
    return (n + kCollisionHeightAlignment - 1) / kCollisionHeightAlignment * kCollisionHeightAlignment;
}

/// Encoding 1's samples at `data` (257 × 257 i16 deltas) into metres, NaN for the marked ones:
/// column 0 runs down from `base`, each row runs east from its column 0; a marked sample adds
/// nothing to the running value.
void decodeDeltas(const std::uint8_t* data, std::int32_t base, std::vector<float>& out) {
    std::int64_t column = base;  // the running value down column 0
    for (int r = 0; r < terrain::kHeightSamples; ++r) {
        std::int64_t* running = &column;  // column 0 continues the column's chain
        std::int64_t row = 0;
        for (int c = 0; c < terrain::kHeightSamples; ++c) {
            const std::size_t i = terrain::HeightTile::index(r, c);
            const auto d = static_cast<std::int16_t>(static_cast<std::uint16_t>(data[2 * i] | (data[2 * i + 1] << 8)));
            if (c == 1) {
                row = column;  // the row's chain starts from its column 0
                running = &row;
            }
            if (d == kCollisionNoHeightDelta) {
                out[i] = terrain::kNoHeight;
                continue;
            }
            *running += d;
            out[i] = static_cast<float>(static_cast<double>(*running) * kCollisionHeightQuantum);
        }
    }
}

/// Version 2: the height block of every index entry, after the bit tiles, into layers.heightTiles.
Status readHeights(const Reader& r, std::span<const std::uint8_t> bytes, const FileHeader& h,
                   std::span<const TileId> tiles, std::span<const std::uint64_t> masks, ParsedLayers& layers) {
    std::size_t stored = 0;
    for (std::uint64_t m : masks) stored += static_cast<std::size_t>(std::popcount(m));
    std::size_t at = h.dataOffset + stored * sizeof(BitTile);
    const auto u32At = [&](std::size_t o) {
        return std::uint32_t{bytes[o]} | std::uint32_t{bytes[o + 1]} << 8 | std::uint32_t{bytes[o + 2]} << 16 |
               std::uint32_t{bytes[o + 3]} << 24;
    };
    for (const TileId& t : tiles) {
        const std::string what = "the height block of tile " + t.quadkey() + " (at byte " + std::to_string(at) + ")";
        if (h.body - at < kCollisionHeightHeaderSize) {
            return r.error(at, what + " is cut short: the file ends at byte " + std::to_string(h.body));
        }
        const std::uint32_t encoding = u32At(at);
        const auto base = static_cast<std::int32_t>(u32At(at + 4));
        std::size_t sampleBytes = 0;
        switch (static_cast<CollisionHeightEncoding>(encoding)) {
            case CollisionHeightEncoding::None:
                break;
            case CollisionHeightEncoding::Delta16:
                sampleBytes = 2 * terrain::kHeightSampleCount;
                break;
            case CollisionHeightEncoding::Float32:
                sampleBytes = 4 * terrain::kHeightSampleCount;
                break;
            default:
                return r.error(at, what + ": height encoding " + std::to_string(encoding) +
                                       " is not 0 (none), 1 (int16 deltas) or 2 (float32)");
        }
        if (encoding != static_cast<std::uint32_t>(CollisionHeightEncoding::Delta16) && base != 0) {
            return r.error(at + 4, what + ": the base of height encoding " + std::to_string(encoding) + " must be 0");
        }
        const std::size_t size = alignedHeightBlock(kCollisionHeightHeaderSize + sampleBytes);
        if (h.body - at < size) {
            return r.error(at, what + " needs " + std::to_string(size) + " bytes but the file ends at byte " +
                                   std::to_string(h.body) + ": the heights are truncated");
        }
        const std::uint8_t* data = bytes.data() + at + kCollisionHeightHeaderSize;
        for (std::size_t p = kCollisionHeightHeaderSize + sampleBytes; p < size; ++p) {
            if (bytes[at + p] != 0) return r.error(at + p, what + ": the padding after the heights is not zero");
        }
        if (encoding != static_cast<std::uint32_t>(CollisionHeightEncoding::None)) {
            terrain::HeightTile& tile = layers.heightTiles[t];
            tile.reset(t);
            if (encoding == static_cast<std::uint32_t>(CollisionHeightEncoding::Delta16)) {
                decodeDeltas(data, base, tile.heights);
            } else {
                for (std::size_t i = 0; i < terrain::kHeightSampleCount; ++i) {
                    const std::uint32_t word = u32At(at + kCollisionHeightHeaderSize + 4 * i);
                    const float v = std::bit_cast<float>(word);
                    if (std::isinf(v)) {
                        return r.error(at + kCollisionHeightHeaderSize + 4 * i,
                                       what + ": sample " + std::to_string(i) + " is infinite");
                    }
                    tile.heights[i] = std::isnan(v) ? terrain::kNoHeight : v;
                }
            }
        }
        at += size;
    }
    if (at != h.body) {
        return r.error(at, std::to_string(h.body - at) + " bytes follow the last height block");
    }
    return Status::success();
}

}  // namespace

Result<CollisionGrid> parseCollisionFile(std::span<const std::uint8_t> bytes, std::string_view sourceName) {
    Reader r(bytes, sourceName);
    Result<std::uint32_t> version = checkFileFrame(r, bytes, sourceName);
    if (!version) return version.error();
    auto header = readHeader(r, *version, bytes.size() - 4);
    if (!header) return header.error();
    const FileHeader& h = *header;
    ParsedLayers layers;
    if (Status s = readLayerNames(r, h, layers); !s) return s.error();
    std::vector<TileId> tiles;
    std::vector<std::uint64_t> masks;
    tiles.reserve(h.tileCount);
    for (std::uint32_t i = 0; i < h.tileCount; ++i) {
        if (Status s = readIndexEntry(r, h, tiles, masks); !s) return s.error();
    }
    if (Status s = readBitTiles(r, bytes, h, tiles, masks, layers); !s) return s.error();
    if (h.version == kCollisionFileVersion) {
        if (Status s = readHeights(r, bytes, h, tiles, masks, layers); !s) return s.error();
    }

    if (h.wide == 0 || h.high == 0) return CollisionGrid{};
    // The region's corner tiles pin the grid's extent even when they hold nothing.
    std::vector<TileId> extent = tiles;
    extent.push_back(TileId{static_cast<int>(h.zoom), h.x0, h.y0});
    extent.push_back(TileId{static_cast<int>(h.zoom), h.x0 + h.wide - 1, h.y0 + h.high - 1});
    Result<CollisionGrid> grid = CollisionGrid::build(layers, extent, layers.names, kMaxCollisionFileTiles);
    if (!grid) return r.error(0, grid.message());
    return grid;
}

Result<CollisionGrid> readCollisionFile(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) {
        std::error_code ec;
        const bool exists = std::filesystem::exists(file, ec);
        return Error{"cannot open the collision grid file '" + file.string() +
                     "': " + (exists ? "permission denied or not a regular file" : "no such file")};
    }
    const std::streamoff size = in.tellg();
    std::vector<std::uint8_t> bytes(size > 0 ? static_cast<std::size_t>(size) : 0);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!in) return Error{"cannot read the collision grid file '" + file.string() + "'"};
    return parseCollisionFile(bytes, file.string());
}

}  // namespace terrabit::core
