#pragma once
/// The runtime collision grid file: the blocking bit layers of a baked scene in a small binary
/// format a game loads to run the same probes Terrabit runs (README.md, "Collision grid file
/// format"). This header reads it back into a CollisionGrid and names the format's constants;
/// terrabit::export writes it. Reading needs neither GDAL nor any other library.
///
/// Layout (every integer little-endian, offsets in bytes from the start of the file):
///
///     header, 48 bytes
///       0  char[8]  magic "TBCOLGRD"
///       8  u32      format version: 1 (no heights) or 2 (with heights)
///      12  u32      zoom of the tiles (0..30)
///      16  u32      region x0: column of the region's west tile
///      20  u32      region y0: row of the region's north tile
///      24  u32      region width, tiles (>= 1 when there are tiles)
///      28  u32      region height, tiles
///      32  u32      layer count L (1..64)
///      36  u32      tile count T (entries of the tile index)
///      40  u64      data offset D: where the first bit tile starts (a multiple of 32)
///     layer names, L times: u16 byte length n (1..255), then n bytes of UTF-8 (no terminator)
///     tile index, T entries of 48 bytes, sorted by (y, x), no duplicates:
///       0  u32      x (column), inside the region
///       4  u32      y (row), inside the region
///       8  u64      layer mask: bit l set when the file stores layer l's bits for this tile
///                   (a clear bit: the layer has no set cell there)
///      16  char[32] the tile's quadkey, ASCII, padded with zero bytes
///     zero bytes up to D
///     bit tiles, at D: for each index entry in order, for each set bit of its mask from bit 0
///       up, one BitTile of 8192 bytes — 256 rows north to south, 4 u64 words per row, cell x of
///       a row is bit (x & 63) of word (x >> 6), least significant bit westmost
///     version 2 only — height blocks, right after the bit tiles: one per index entry, in index
///       order, each starting at a multiple of 32 bytes:
///       0  u32      encoding (CollisionHeightEncoding): 0 none, 1 int16 deltas, 2 float32
///       4  i32      base: encoding 1, the running value's start in 1/1024 m; otherwise 0
///       8  samples  the tile's 257 × 257 heights at its cell corners, row-major from the
///                   north-west corner (terrain::HeightTile's layout): encoding 0 none;
///                   encoding 1 257 × 257 i16 deltas; encoding 2 257 × 257 float32 metres (NaN:
///                   no height, never infinite)
///       zero bytes up to the next multiple of 32
///       Encoding 1 (kCollisionHeightQuantum = 1/1024 m): delta -32768 marks a sample without a
///       height and adds nothing; column 0 runs down from `base` (q[r][0] = q[r-1][0] + d[r][0],
///       with q[-1][0] = base) and each row runs east from its column 0 (q[r][c] = q[r][c-1] +
///       d[r][c]), where a sample without a height passes the running value on unchanged; the
///       height is the float32 nearest to q / 1024 (exact below 16,384 m). The writer rounds each
///       height to the nearest 1/1024 m (error ≤ 0.49 mm) and uses encoding 2 for a tile whose
///       steps do not fit (a jump of 32 m between neighbouring corners, a height beyond 16,384 m).
///     trailer, 4 bytes: u32 CRC-32 (ISO-HDLC, the checksum of zlib's crc32() and of PNG) of
///       every byte before it
///
/// Region tiles that the index does not list read as clear, as do tiles outside the region; they
/// and tiles with encoding 0 have no ground height. A grid without heights is written as
/// version 1, byte for byte what this format was before heights.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "terrabit/core/collision/collision_grid.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

/// The eight bytes every collision grid file starts with.
inline constexpr char kCollisionFileMagic[8] = {'T', 'B', 'C', 'O', 'L', 'G', 'R', 'D'};
/// The newest format version: what this build writes for a grid with heights. It reads 1 and 2.
inline constexpr std::uint32_t kCollisionFileVersion = 2;
/// The version written for a grid without heights: the original layout, no height blocks.
inline constexpr std::uint32_t kCollisionFileVersionFlat = 1;
/// How a version 2 height block stores its samples (its first u32).
enum class CollisionHeightEncoding : std::uint32_t {
    None = 0,     ///< the tile has no heights: no samples follow
    Delta16 = 1,  ///< int16 deltas in kCollisionHeightQuantum steps from the block's base
    Float32 = 2,  ///< float32 metres, NaN for no height
};
/// The step of encoding 1, metres (1/1024 m: every step below 16,384 m is an exact float32).
inline constexpr double kCollisionHeightQuantum = 1.0 / 1024.0;
/// The encoding 1 delta of a sample without a height.
inline constexpr std::int16_t kCollisionNoHeightDelta = -32768;
/// Size of a height block's header (encoding, base), bytes.
inline constexpr std::size_t kCollisionHeightHeaderSize = 8;
/// Alignment of every height block, bytes.
inline constexpr std::size_t kCollisionHeightAlignment = 32;
/// Size of the fixed header, bytes.
inline constexpr std::size_t kCollisionFileHeaderSize = 48;
/// Size of one tile index entry, bytes.
inline constexpr std::size_t kCollisionFileIndexEntrySize = 48;
/// The largest region (width × height, tiles) a file may declare: CollisionGrid's own limit.
inline constexpr std::uint64_t kMaxCollisionFileTiles = 1u << 16;
/// Alignment of the bit tile data, bytes (a 256-bit row can be loaded in place).
inline constexpr std::size_t kCollisionFileDataAlignment = 32;

/// The CRC-32 (ISO-HDLC: polynomial 0x04C11DB7 reflected, initial and final XOR 0xFFFFFFFF) of
/// the bytes, the same value as zlib's crc32(0, data, size). `crc` continues an earlier value.
std::uint32_t collisionFileChecksum(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);

/// Parses a collision grid file held in memory. `sourceName` is what errors call it (usually
/// the path). The grid answers every probe as the grid that was written did. Errors name the
/// source, the byte offset and what is wrong: bad magic, an unknown version, a truncated file, a
/// checksum mismatch, a region larger than kMaxCollisionFileTiles, a tile outside the region or
/// out of order, a quadkey that does not match its x/y, an empty or duplicate layer name; in
/// version 2 an unknown height encoding, a height block cut short, an infinite height, non-zero
/// padding. A version 2 grid answers groundHeight with the stored heights (hasHeights()).
Result<CollisionGrid> parseCollisionFile(std::span<const std::uint8_t> bytes, std::string_view sourceName);

/// Reads a collision grid file. Errors as parseCollisionFile, plus a missing or unreadable file.
Result<CollisionGrid> readCollisionFile(const std::filesystem::path& file);

}  // namespace terrabit::core
