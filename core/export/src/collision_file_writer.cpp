#include "terrabit/core/export/collision_file_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "terrabit/core/collision/collision_file.h"

namespace terrabit::core {

namespace {

void putU16(std::vector<std::uint8_t>& out, std::uint16_t v) {
    out.push_back(static_cast<std::uint8_t>(v));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
}
void putU32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void putU64(std::vector<std::uint8_t>& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
// resize + memcpy rather than vector::insert from a char range: GCC 12 warns falsely
// (-Wstringop-overflow) on the latter.
void putBytes(std::vector<std::uint8_t>& out, const void* data, std::size_t n) {
    const std::size_t at = out.size();
    out.resize(at + n);
    if (n > 0) std::memcpy(out.data() + at, data, n);
}

/// What a file can hold: a layer or more, names of 1 to 255 bytes, a region of at most
/// kMaxCollisionFileTiles tiles.
Status checkWritable(const CollisionGrid& grid) {
    if (grid.layerCount() == 0) return Error{"collision grid file: the grid has no layers to write"};
    for (const std::string& name : grid.layerNames()) {
        if (name.empty() || name.size() > 255) {
            return Error{"collision grid file: layer name '" + name + "' must be 1 to 255 bytes long"};
        }
    }
    if (std::uint64_t(grid.tilesWide()) * std::uint64_t(grid.tilesHigh()) > kMaxCollisionFileTiles) {
        return Error{"collision grid file: the region of " + std::to_string(grid.tilesWide()) + " x " +
                     std::to_string(grid.tilesHigh()) + " tiles is larger than the " +
                     std::to_string(kMaxCollisionFileTiles) + " a file may hold"};
    }
    return Status::success();
}

/// The tiles of the grid's region where some layer has a cell or that have heights, in (y, x)
/// order.
std::vector<TileId> occupiedTiles(const CollisionGrid& grid) {
    const TileId origin = grid.origin();
    std::vector<TileId> listed;
    for (int ty = 0; ty < grid.tilesHigh(); ++ty) {
        for (int tx = 0; tx < grid.tilesWide(); ++tx) {
            const TileId t{grid.zoom(), origin.x + static_cast<std::uint32_t>(tx),
                           origin.y + static_cast<std::uint32_t>(ty)};
            bool any = !grid.tileHeights(t).empty();
            for (int l = 0; l < grid.layerCount() && !any; ++l) any = grid.tileBits(l, t).any();
            if (any) listed.push_back(t);
        }
    }
    return listed;
}

/// The tiles asked for, in (y, x) order: each in the grid's region, each once.
Result<std::vector<TileId>> givenTiles(const CollisionGrid& grid, std::span<const TileId> tiles) {
    const TileId origin = grid.origin();
    const auto insideRegion = [&](const TileId& t) {
        return t.zoom == grid.zoom() && t.x >= origin.x && t.y >= origin.y &&
               t.x - origin.x < static_cast<std::uint32_t>(grid.tilesWide()) &&
               t.y - origin.y < static_cast<std::uint32_t>(grid.tilesHigh());
    };
    std::vector<TileId> listed(tiles.begin(), tiles.end());
    for (const TileId& t : listed) {
        if (!insideRegion(t)) {
            return Error{"collision grid file: tile " + t.quadkey() + " (zoom " + std::to_string(t.zoom) +
                         ") is outside the grid's region"};
        }
    }
    std::sort(listed.begin(), listed.end(), [](const TileId& a, const TileId& b) {
        return std::pair{a.y, a.x} < std::pair{b.y, b.x};
    });
    const auto dup = std::adjacent_find(listed.begin(), listed.end());
    if (dup != listed.end()) return Error{"collision grid file: tile " + dup->quadkey() + " is listed twice"};
    return listed;
}

/// Per listed tile: bit l set when layer l has a cell there.
std::vector<CollisionIndexEntry> indexEntries(const CollisionGrid& grid, std::span<const TileId> listed) {
    std::vector<CollisionIndexEntry> entries;
    entries.reserve(listed.size());
    for (const TileId& t : listed) {
        CollisionIndexEntry e{t, 0};
        for (int l = 0; l < grid.layerCount(); ++l) {
            if (grid.tileBits(l, t).any()) e.layerMask |= std::uint64_t{1} << l;
        }
        entries.push_back(e);
    }
    return entries;
}

/// The bit tiles the masks name, tile by tile, layer by layer, words little-endian.
void putBitTiles(std::vector<std::uint8_t>& out, const CollisionGrid& grid,
                 std::span<const CollisionIndexEntry> entries) {
    for (const CollisionIndexEntry& e : entries) {
        for (int l = 0; l < grid.layerCount(); ++l) {
            if (((e.layerMask >> l) & 1u) == 0) continue;
            const BitTile bits = grid.tileBits(l, e.tile);
            const std::size_t at = out.size();
            out.resize(at + sizeof(BitTile));
            if constexpr (std::endian::native == std::endian::little) {
                std::memcpy(out.data() + at, bits.words().data(), sizeof(BitTile));
            } else {
                std::size_t k = at;
                for (std::uint64_t w : bits.words()) {
                    for (int b = 0; b < 8; ++b) out[k++] = static_cast<std::uint8_t>(w >> (8 * b));
                }
            }
        }
    }
}

/// Encoding 1 of a tile's heights: the deltas (README.md, "Collision grid file format") and the
/// base, each height rounded to the nearest 1/1024 m. False when a step does not fit an int16 or
/// a height lies beyond 16,384 m (where a 1/1024 m step is no longer an exact float32).
bool encodeDeltas(std::span<const float> heights, std::vector<std::int16_t>& deltas, std::int32_t& base) {
    constexpr double kLimit = 16384.0 / kCollisionHeightQuantum;  // 2^24 steps
    const auto quantize = [](float h) { return std::nearbyint(static_cast<double>(h) / kCollisionHeightQuantum); };
    deltas.assign(heights.size(), kCollisionNoHeightDelta);
    const auto first = std::find_if(heights.begin(), heights.end(), [](float h) { return !std::isnan(h); });
    base = first == heights.end() ? 0 : static_cast<std::int32_t>(quantize(*first));
    std::int64_t column = base;
    for (int r = 0; r < terrain::kHeightSamples; ++r) {
        std::int64_t row = 0;
        for (int c = 0; c < terrain::kHeightSamples; ++c) {
            const std::size_t i = terrain::HeightTile::index(r, c);
            std::int64_t& running = c == 0 ? column : row;
            if (c == 1) row = column;
            if (std::isnan(heights[i])) continue;
            const double q = quantize(heights[i]);
            if (!(std::fabs(q) <= kLimit)) return false;
            const std::int64_t d = static_cast<std::int64_t>(q) - running;
            if (d < -32767 || d > 32767) return false;
            deltas[i] = static_cast<std::int16_t>(d);
            running += d;
        }
    }
    return true;
}

/// Version 2's height blocks: one per listed tile, each padded to kCollisionHeightAlignment.
void putHeights(std::vector<std::uint8_t>& out, const CollisionGrid& grid, std::span<const TileId> listed) {
    std::vector<std::int16_t> deltas;
    for (const TileId& t : listed) {
        const std::span<const float> heights = grid.tileHeights(t);
        std::int32_t base = 0;
        if (heights.empty()) {
            putU32(out, static_cast<std::uint32_t>(CollisionHeightEncoding::None));
            putU32(out, 0);
        } else if (encodeDeltas(heights, deltas, base)) {
            putU32(out, static_cast<std::uint32_t>(CollisionHeightEncoding::Delta16));
            putU32(out, static_cast<std::uint32_t>(base));
            for (std::int16_t d : deltas) putU16(out, static_cast<std::uint16_t>(d));
        } else {
            putU32(out, static_cast<std::uint32_t>(CollisionHeightEncoding::Float32));
            putU32(out, 0);
            for (float h : heights) putU32(out, std::bit_cast<std::uint32_t>(std::isnan(h) ? terrain::kNoHeight : h));
        }
        while (out.size() % kCollisionHeightAlignment != 0) out.push_back(0);
    }
}

}  // namespace

std::vector<std::uint8_t> encodeCollisionFileHead(std::uint32_t version, const TileId& origin, int tilesWide,
                                                  int tilesHigh, std::span<const std::string> layerNames,
                                                  std::span<const CollisionIndexEntry> entries) {
    std::vector<std::uint8_t> out;
    out.reserve(kCollisionFileHeaderSize + 256 * layerNames.size() + entries.size() * kCollisionFileIndexEntrySize +
                kCollisionFileDataAlignment);
    putBytes(out, kCollisionFileMagic, sizeof kCollisionFileMagic);
    putU32(out, version);
    putU32(out, static_cast<std::uint32_t>(origin.zoom));
    putU32(out, origin.x);
    putU32(out, origin.y);
    putU32(out, static_cast<std::uint32_t>(tilesWide));
    putU32(out, static_cast<std::uint32_t>(tilesHigh));
    putU32(out, static_cast<std::uint32_t>(layerNames.size()));
    putU32(out, static_cast<std::uint32_t>(entries.size()));
    const std::size_t dataOffsetAt = out.size();
    putU64(out, 0);  // patched below, once the names' length is known
    for (const std::string& name : layerNames) {
        putU16(out, static_cast<std::uint16_t>(name.size()));
        putBytes(out, name.data(), name.size());
    }
    for (const CollisionIndexEntry& e : entries) {
        putU32(out, e.tile.x);
        putU32(out, e.tile.y);
        putU64(out, e.layerMask);
        char quadkey[32] = {};
        const std::string qk = e.tile.quadkey();
        std::memcpy(quadkey, qk.data(), std::min<std::size_t>(qk.size(), sizeof quadkey));
        putBytes(out, quadkey, sizeof quadkey);
    }
    while (out.size() % kCollisionFileDataAlignment != 0) out.push_back(0);
    const std::uint64_t dataOffset = out.size();
    for (int i = 0; i < 8; ++i) out[dataOffsetAt + i] = static_cast<std::uint8_t>(dataOffset >> (8 * i));
    return out;
}

Result<std::vector<std::uint8_t>> encodeCollisionFile(const CollisionGrid& grid, std::span<const TileId> tiles) {
    if (Status s = checkWritable(grid); !s) return s.error();
    auto listed = tiles.empty() ? Result<std::vector<TileId>>(occupiedTiles(grid)) : givenTiles(grid, tiles);
    if (!listed) return listed.error();
    const std::vector<CollisionIndexEntry> entries = indexEntries(grid, *listed);
    std::size_t stored = 0;
    for (const CollisionIndexEntry& e : entries) stored += static_cast<std::size_t>(std::popcount(e.layerMask));

    bool heights = false;
    for (const TileId& t : *listed) heights = heights || !grid.tileHeights(t).empty();

    std::vector<std::uint8_t> out =
        encodeCollisionFileHead(heights ? kCollisionFileVersion : kCollisionFileVersionFlat, grid.origin(),
                                grid.tilesWide(), grid.tilesHigh(), grid.layerNames(), entries);
    out.reserve(out.size() + stored * sizeof(BitTile) +
                (heights ? listed->size() * (4 * terrain::kHeightSampleCount + 64) : 0) + 4);
    putBitTiles(out, grid, entries);
    if (heights) putHeights(out, grid, *listed);
    putU32(out, collisionFileChecksum(out));
    return out;
}

}  // namespace terrabit::core
