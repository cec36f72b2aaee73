#pragma once
/// A quick structural check of OpenStreetMap PBF files: GDAL's reader stops at a truncated or
/// corrupt block, sometimes silently; this walks the block framing first so the user hears
/// which block is broken and where.

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <string_view>

#include "terrabit/core/result.h"

namespace terrabit::core::io {

/// What the framing walk found in a PBF file that passed.
struct PbfFraming {
    std::uint64_t blocks = 0;  ///< OSMHeader and OSMData blocks
    std::uint64_t bytes = 0;   ///< file size, bytes
};

/// Walks the blocks of a PBF file (4-byte length, BlobHeader, Blob) without decompressing them.
/// Fails, naming the file, the block number and the byte offset, when the file ends inside a
/// block (truncated), a block header is not a valid BlobHeader, or the first block is not an
/// OSMHeader. Cheap: reads only the block headers. When it fails and `complete` is given, that
/// receives the blocks before the broken one and the bytes they span from the file's start
/// (what a reader can still use).
Result<PbfFraming> checkPbfFraming(const std::filesystem::path& file, PbfFraming* complete = nullptr);
/// The same walk over a stream of `size` bytes (a file, or bytes in memory); messages name
/// `sourceName`. Reads nothing beyond `size`, whatever the block headers declare.
Result<PbfFraming> checkPbfFraming(std::istream& in, std::uint64_t size, std::string_view sourceName,
                                   PbfFraming* complete = nullptr);

/// `v` with thousands separators, "470,838".
std::string withCommas(std::uint64_t v);

/// True when the file starts like an OSM PBF file (a BlobHeader of type "OSMHeader").
bool looksLikePbf(const std::filesystem::path& file);
/// The same test on the stream's next bytes.
bool looksLikePbf(std::istream& in);

}  // namespace terrabit::core::io
