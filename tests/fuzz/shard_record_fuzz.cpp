// Fuzzes a shard record (shard.json), which `terrabit-cli merge` reads from every shard folder
// before it copies the files the record names: decodeShardRecord, and the record's own encoding.
// Contracts beyond "no crash, no UB": a refused record names its file; a record read names only
// files inside its shard's folder (merge reads and writes them at those paths); and a record
// read is a fixed point of encoding (written, read again and written, the same text).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "terrabit/core/scale/shard_record.h"

using namespace terrabit;
using fuzz::require;

namespace {

/// What merge needs of a path a record names: relative, and neither leaving the folder nor
/// wandering inside it (no "..", ".", empty part or NUL).
bool staysInside(const std::string& file) {
    if (file.empty() || file.find('\0') != std::string::npos) return false;
    const std::filesystem::path p(file);
    if (!p.is_relative() || p.lexically_normal() != p) return false;
    for (const std::filesystem::path& part : p) {
        if (part == ".." || part == "." || part.empty()) return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 16)) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const core::Result<core::scale::ShardRecord> record = core::scale::decodeShardRecord(text, "fuzz/shard.json");
    if (!record) {
        require(record.message().starts_with("fuzz/shard.json: "), "a refused record names its file");
        return 0;
    }
    for (const std::string& f : record->files) require(staysInside(f), "a record read names files inside its folder");
    const std::string written = core::scale::encodeShardRecord(*record);
    const core::Result<core::scale::ShardRecord> again = core::scale::decodeShardRecord(written, "again");
    require(again.ok(), "a record written reads back");
    require(core::scale::encodeShardRecord(*again) == written, "a record read back writes the same text");
    return 0;
}
