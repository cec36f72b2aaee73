#pragma once
/// instances.bin: a scene's instances as fixed-size little-endian records beside manifest.json,
/// for scenes too big for a JSON line per instance (README, "Binary instance file format"). The manifest
/// then holds, instead of its "instances" array, the file's index: "instanceFile" (name, size),
/// "instanceBlocks" (where each block's records lie) and "instanceSources" (the source table).
///
/// Layout: every number little-endian, every offset a multiple of 4.
///
///     header, 32 bytes
///       0   char[4]      "TBIN"
///       4   uint32       version (1)
///       8   uint32       header bytes (32): where the first record starts
///       12  uint32       record bytes (68)
///       16  uint64       instances (records)
///       24  uint32       blocks
///       28  uint32       0x01020304, the byte-order mark (bytes 04 03 02 01 on disk)
///     records, 68 bytes each, block after block in the order of "instanceBlocks"
///       0   float32[16]  transform, column-major: the 4×4 matrix the JSON manifest writes
///       64  uint32       source: index into "instanceSources", 0xFFFFFFFF for none
///
/// "instanceBlocks" is one line per block: {asset (catalogue id), block [x, y], count
/// (records), offset (bytes from the file's start), tile (quadkey)}; the blocks follow one
/// another without gaps. "instanceSources" is the sorted list of the source feature ids the
/// records name.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "terrabit/core/result.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

inline constexpr std::string_view kInstanceFileName = "instances.bin";
inline constexpr std::uint32_t kInstanceFileVersion = 1;
inline constexpr std::size_t kInstanceHeaderBytes = 32;
inline constexpr std::size_t kInstanceRecordBytes = 68;
/// The most records a file may count: its size in bytes then still fits a signed 64-bit file
/// offset, and no count times the record size wraps around (a count read from a damaged or
/// hostile file could otherwise pass every size check).
inline constexpr std::uint64_t kInstanceMaxRecords = (std::uint64_t{1} << 63) / kInstanceRecordBytes - 1;
/// A record's source when the instance has none.
inline constexpr std::uint32_t kInstanceNoSource = 0xffffffffu;

/// The manifest keys of the file's index.
inline constexpr std::string_view kManifestInstanceFile = "instanceFile";
inline constexpr std::string_view kManifestInstanceBlocks = "instanceBlocks";
inline constexpr std::string_view kManifestInstanceSources = "instanceSources";

/// The counts of instances.bin's header.
struct InstanceFileHeader {
    std::uint64_t instances = 0;  ///< records
    std::uint32_t blocks = 0;     ///< entries of "instanceBlocks"

    /// The 32 header bytes.
    std::string encode() const;
    /// Reads a header. Errors (without the file's name): fewer than 32 bytes, another magic,
    /// version, header or record size, or byte-order mark; more than kInstanceMaxRecords.
    static Result<InstanceFileHeader> decode(std::string_view bytes);
    /// The file's size in bytes: header and records.
    std::uint64_t fileBytes() const { return kInstanceHeaderBytes + instances * kInstanceRecordBytes; }
};

/// Appends one 68-byte record.
void appendInstanceRecord(std::string& out, const std::array<float, 16>& transform, std::uint32_t source);
/// The transform of the record at `record` (68 bytes).
std::array<float, 16> instanceRecordTransform(const char* record);
/// The source of the record at `record`.
std::uint32_t instanceRecordSource(const char* record);
/// Sets the source of the record at `record` (a merge renumbers the source table).
void setInstanceRecordSource(char* record, std::uint32_t source);

/// One element of "instanceBlocks": a run of records of one asset in one block of a tile.
struct InstanceBlockEntry {
    std::string asset;  ///< catalogue id
    TileId tile;
    int blockX = 0;            ///< block column within the tile
    int blockY = 0;            ///< block row within the tile
    std::uint64_t offset = 0;  ///< bytes from the file's start to the first record
    std::uint64_t count = 0;   ///< records

    /// The line: compact JSON, keys sorted.
    std::string encode() const;
    /// Reads a line. Errors: not JSON, a key missing or of the wrong type, an invalid tile, an
    /// offset that is not a record's, a count above kInstanceMaxRecords.
    static Result<InstanceBlockEntry> parse(std::string_view line);
};

/// The value of "instanceFile" for a file of `bytes` bytes.
std::string instanceFileEntry(std::uint64_t bytes);

}  // namespace terrabit::core
