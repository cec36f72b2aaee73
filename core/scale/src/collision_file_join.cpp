#include "collision_file_join_p.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <string>

#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/export/collision_file_writer.h"
#include "terrabit/core/export/output_file.h"

namespace terrabit::core::scale {

namespace {

namespace fs = std::filesystem;

/// Bytes of a height block of each encoding (collision_file.h), padding included.
constexpr std::uint64_t heightBlockBytes(std::uint32_t encoding) {
    const std::uint64_t samples = encoding == static_cast<std::uint32_t>(CollisionHeightEncoding::Delta16)   ? 2
                                  : encoding == static_cast<std::uint32_t>(CollisionHeightEncoding::Float32) ? 4
                                                                                                             : 0;
    const std::uint64_t raw = kCollisionHeightHeaderSize + samples * terrain::kHeightSampleCount;
    return (raw + kCollisionHeightAlignment - 1) / kCollisionHeightAlignment * kCollisionHeightAlignment;
}

std::uint32_t u32At(std::span<const std::uint8_t> b, std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{b[at + static_cast<std::size_t>(i)]} << (8 * i);
    return v;
}
std::uint64_t u64At(std::span<const std::uint8_t> b, std::size_t at) {
    return std::uint64_t{u32At(b, at)} | std::uint64_t{u32At(b, at + 4)} << 32;
}

/// One listed tile of a part: where its bit tiles and its height block lie in the part's file.
struct PartTile {
    TileId tile;
    std::uint64_t mask = 0;
    std::uint64_t bitsAt = 0;
    std::uint64_t heightAt = 0;     ///< version 2 parts
    std::uint64_t heightBytes = 0;  ///< 0 for a version 1 part
    std::size_t part = 0;
};

/// A part's fields that must agree with the others'.
struct PartHead {
    std::uint32_t version = 0;
    int zoom = 0;
    std::vector<std::string> names;
};

/// Reads a part whole, checks it as a reader would (parseCollisionFile) and lists its tiles. The
/// offsets follow from the checked index: bit tiles in index order, then the height blocks.
Status readPart(const fs::path& file, std::size_t part, PartHead& head, std::vector<PartTile>& tiles) {
    const std::string name = file.string();
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return Error{name + ": cannot read"};
    const std::streamoff size = in.tellg();
    std::vector<std::uint8_t> bytes(size > 0 ? static_cast<std::size_t>(size) : 0);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!in) return Error{name + ": cannot read"};
    if (auto grid = parseCollisionFile(bytes, name); !grid) return grid.error();

    head.version = u32At(bytes, 8);
    head.zoom = static_cast<int>(u32At(bytes, 12));
    const std::uint32_t layerCount = u32At(bytes, 32), tileCount = u32At(bytes, 36);
    std::uint64_t bitsAt = u64At(bytes, 40);
    std::size_t at = kCollisionFileHeaderSize;
    for (std::uint32_t l = 0; l < layerCount; ++l) {
        const std::size_t n = std::size_t{bytes[at]} | std::size_t{bytes[at + 1]} << 8;
        head.names.emplace_back(reinterpret_cast<const char*>(bytes.data() + at + 2), n);
        at += 2 + n;
    }
    const std::size_t first = tiles.size();
    for (std::uint32_t i = 0; i < tileCount; ++i, at += kCollisionFileIndexEntrySize) {
        PartTile t;
        t.tile = TileId{head.zoom, u32At(bytes, at), u32At(bytes, at + 4)};
        t.mask = u64At(bytes, at + 8);
        t.bitsAt = bitsAt;
        t.part = part;
        bitsAt += static_cast<std::uint64_t>(std::popcount(t.mask)) * sizeof(BitTile);
        tiles.push_back(t);
    }
    if (head.version == kCollisionFileVersion) {
        std::uint64_t heightAt = bitsAt;
        for (std::size_t i = first; i < tiles.size(); ++i) {
            tiles[i].heightAt = heightAt;
            tiles[i].heightBytes = heightBlockBytes(u32At(bytes, static_cast<std::size_t>(heightAt)));
            heightAt += tiles[i].heightBytes;
        }
    }
    return Status::success();
}

/// Writes bytes to the output, a megabyte at a time, keeping the checksum of all of them.
class ChecksummedOutput {
public:
    explicit ChecksummedOutput(OutputFile& file) : mFile(file) {}
    std::vector<std::uint8_t>& buffer() { return mBuffer; }
    Status flushIfFull() { return mBuffer.size() >= (std::size_t{1} << 20) ? flush() : Status::success(); }
    Status flush() {
        mCrc = collisionFileChecksum(mBuffer, mCrc);
        mBytes += mBuffer.size();
        Status s = mFile.write(mBuffer);
        mBuffer.clear();
        return s;
    }
    std::uint32_t crc() const { return mCrc; }
    std::uint64_t bytes() const { return mBytes; }

private:
    OutputFile& mFile;
    std::vector<std::uint8_t> mBuffer;
    std::uint32_t mCrc = 0;
    std::uint64_t mBytes = 0;
};

/// Appends `bytes` bytes of a part from `at`.
Status copyFrom(std::ifstream& in, const fs::path& file, std::uint64_t at, std::uint64_t bytes,
                std::vector<std::uint8_t>& out) {
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(bytes));
    in.clear();
    in.seekg(static_cast<std::streamoff>(at));
    in.read(reinterpret_cast<char*>(out.data() + start), static_cast<std::streamsize>(bytes));
    if (static_cast<std::uint64_t>(in.gcount()) != bytes) {
        return Error{file.string() + ": read failed at byte " + std::to_string(at)};
    }
    return Status::success();
}

}  // namespace

Result<JoinedCollisionFile> joinCollisionFiles(const std::vector<fs::path>& parts, const fs::path& destination) {
    if (parts.empty()) return Error{"collision grid join: no parts"};
    std::vector<PartTile> tiles;
    PartHead joined;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        PartHead head;
        if (Status s = readPart(parts[p], p, head, tiles); !s) return s.error();
        if (p == 0) {
            joined = head;
            continue;
        }
        if (head.zoom != joined.zoom || head.names != joined.names) {
            return Error{parts[p].string() + " and " + parts[0].string() +
                         " hold different layers or zooms: parts of different bakes"};
        }
        joined.version = std::max(joined.version, head.version);
    }
    if (tiles.empty()) return Error{"collision grid join: the parts list no tiles"};
    std::sort(tiles.begin(), tiles.end(), [](const PartTile& a, const PartTile& b) {
        return std::pair{a.tile.y, a.tile.x} < std::pair{b.tile.y, b.tile.x};
    });
    std::uint32_t x0 = tiles.front().tile.x, x1 = x0;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        x0 = std::min(x0, tiles[i].tile.x);
        x1 = std::max(x1, tiles[i].tile.x);
        if (i > 0 && tiles[i].tile == tiles[i - 1].tile) {
            return Error{parts[tiles[i - 1].part].string() + " and " + parts[tiles[i].part].string() +
                         " both hold tile " + tiles[i].tile.quadkey()};
        }
    }
    const std::uint32_t y0 = tiles.front().tile.y, y1 = tiles.back().tile.y;
    const std::uint64_t wide = std::uint64_t{x1} - x0 + 1, high = std::uint64_t{y1} - y0 + 1;
    if (wide * high > kMaxCollisionFileTiles) {
        return Error{"collision grid join: the parts' tiles span " + std::to_string(wide) + " x " +
                     std::to_string(high) + " tiles, more than the " + std::to_string(kMaxCollisionFileTiles) +
                     " a file may hold"};
    }

    std::vector<CollisionIndexEntry> entries;
    entries.reserve(tiles.size());
    for (const PartTile& t : tiles) entries.push_back({t.tile, t.mask});
    auto file = OutputFile::create(destination);
    if (!file) return file.error();
    ChecksummedOutput out(*file);
    out.buffer() = encodeCollisionFileHead(joined.version, TileId{joined.zoom, x0, y0}, static_cast<int>(wide),
                                           static_cast<int>(high), joined.names, entries);
    std::vector<std::ifstream> in;
    for (const fs::path& p : parts) in.emplace_back(p, std::ios::binary);
    for (const PartTile& t : tiles) {
        const std::uint64_t bytes = static_cast<std::uint64_t>(std::popcount(t.mask)) * sizeof(BitTile);
        if (Status s = copyFrom(in[t.part], parts[t.part], t.bitsAt, bytes, out.buffer()); !s) return s.error();
        if (Status s = out.flushIfFull(); !s) return s.error();
    }
    if (joined.version == kCollisionFileVersion) {
        for (const PartTile& t : tiles) {
            if (t.heightBytes == 0) {  // a version 1 part: no heights, encoding 0 and zero padding
                out.buffer().resize(out.buffer().size() + heightBlockBytes(0), 0);
            } else if (Status s = copyFrom(in[t.part], parts[t.part], t.heightAt, t.heightBytes, out.buffer()); !s) {
                return s.error();
            }
            if (Status s = out.flushIfFull(); !s) return s.error();
        }
    }
    if (Status s = out.flush(); !s) return s.error();
    const std::uint32_t crc = out.crc();
    for (int i = 0; i < 4; ++i) out.buffer().push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
    if (Status s = file->write(out.buffer()); !s) return s.error();
    if (Status s = file->commit(); !s) return s.error();
    return JoinedCollisionFile{tiles.size(), out.bytes() + 4};
}

}  // namespace terrabit::core::scale
