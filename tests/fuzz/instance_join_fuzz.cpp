// Fuzzes the join of shards' binary instance files (instances.bin, joinInstanceFiles), as merge
// runs it: a fixed, valid part beside one made from the bytes. The bytes choose that part's
// header counts, its index (each block's tile, count and offset: the counts any 64-bit value,
// the offsets following one another as a writer would lay them, or chosen outright), its
// source table and its records. Contracts beyond "no crash, no UB": a refused join names the
// part's file; a join that succeeds counts no more records than a file can hold (64-bit sizes
// never wrap), wrote exactly the bytes its header counts, and its index runs without gaps from
// the header to the end.

#include <fuzzer/FuzzedDataProvider.h>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "fuzz_check.h"
#include "instance_file_join_p.h"
#include "terrabit/core/export/instance_file.h"

using namespace terrabit;
using fuzz::require;
namespace fs = std::filesystem;

namespace {

fs::path gRoot;
core::scale::InstanceFilePart gFixed;

core::TileId tile(std::uint32_t x, std::uint32_t y) { return *core::TileId::fromZxy(4, x, y); }

/// Row 0's part: two blocks of two records, one source.
void writeFixedPart() {
    gFixed.file = gRoot / "fixed.bin";
    std::string bytes = core::InstanceFileHeader{4, 2}.encode();
    std::uint64_t offset = core::kInstanceHeaderBytes;
    for (std::uint32_t x = 3; x < 5; ++x) {
        gFixed.blocks.push_back(core::InstanceBlockEntry{"palm", tile(x, 0), 0, 0, offset, 2}.encode());
        for (int k = 0; k < 2; ++k) {
            core::appendInstanceRecord(bytes, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
                                       k == 0 ? 0 : core::kInstanceNoSource);
        }
        offset += 2 * core::kInstanceRecordBytes;
    }
    gFixed.sources = {"\"w1\""};
    std::ofstream(gFixed.file, std::ios::binary) << bytes;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    gRoot = fuzz::scratchFolder("terrabit-instance-fuzz");
    writeFixedPart();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 16)) return 0;
    FuzzedDataProvider in(data, size);
    core::scale::InstanceFilePart part;
    part.file = gRoot / "fuzzed.bin";
    // The index: blocks in rows 1 and 2, offsets laid out one after another (wrapping as 64-bit
    // sums do) unless the bytes pick one.
    const int blocks = in.ConsumeIntegralInRange(0, 6);
    std::uint64_t offset = core::kInstanceHeaderBytes, instances = 0;
    for (int b = 0; b < blocks; ++b) {
        const bool small = in.ConsumeBool();
        const std::uint64_t count =
            small ? in.ConsumeIntegralInRange<std::uint64_t>(0, 4) : in.ConsumeIntegral<std::uint64_t>();
        const std::uint64_t at = in.ConsumeBool() ? offset : in.ConsumeIntegral<std::uint64_t>();
        part.blocks.push_back(core::InstanceBlockEntry{
            "palm", tile(3 + static_cast<std::uint32_t>(b % 3), 1 + static_cast<std::uint32_t>(b / 3)), 0, 0, at, count}
                                  .encode());
        offset = at + count * core::kInstanceRecordBytes;
        instances += count;
    }
    if (in.ConsumeBool()) part.blocks.push_back(in.ConsumeRandomLengthString(120));  // any line
    const int sources = in.ConsumeIntegralInRange(0, 3);
    for (int k = 0; k < sources; ++k) part.sources.push_back(in.ConsumeRandomLengthString(24));
    // The header: the index's counts, or the bytes' own.
    const core::InstanceFileHeader header =
        in.ConsumeBool()
            ? core::InstanceFileHeader{instances, static_cast<std::uint32_t>(part.blocks.size())}
            : core::InstanceFileHeader{in.ConsumeIntegral<std::uint64_t>(), in.ConsumeIntegral<std::uint32_t>()};
    std::string bytes = in.ConsumeBool() ? header.encode() : in.ConsumeBytesAsString(32);
    if (instances <= 64 && in.ConsumeBool()) {
        // Records as a writer lays them, their sources within the table or one past it.
        for (std::uint64_t r = 0; r < instances; ++r) {
            const int source = in.ConsumeIntegralInRange(-1, sources);
            core::appendInstanceRecord(bytes, {},
                                       source < 0 ? core::kInstanceNoSource : static_cast<std::uint32_t>(source));
        }
    }
    bytes += in.ConsumeRemainingBytesAsString();
    std::ofstream(part.file, std::ios::binary | std::ios::trunc) << bytes;

    const fs::path joinedFile = gRoot / "joined.bin";
    const auto joined = core::scale::joinInstanceFiles({gFixed, part}, joinedFile);
    if (!joined) {
        require(joined.message().starts_with(part.file.string() + ": "), "a refused join names the part's file");
        return 0;
    }
    std::error_code ec;
    require(fs::file_size(joinedFile, ec) == joined->bytes && !ec, "the joined file has the bytes the join says");
    require(joined->instances <= core::kInstanceMaxRecords, "the joined file counts no more records than it can hold");
    require(joined->bytes == core::kInstanceHeaderBytes + joined->instances * core::kInstanceRecordBytes,
            "the joined file holds the records its header counts");
    std::uint64_t expected = core::kInstanceHeaderBytes;
    for (const std::string& line : joined->blocks) {
        const auto entry = core::InstanceBlockEntry::parse(line);
        require(entry.ok(), "a joined index line reads back");
        require(entry->offset == expected, "the joined blocks follow one another");
        expected += entry->count * core::kInstanceRecordBytes;
    }
    require(expected == joined->bytes, "the joined blocks end at the file's end");
    fs::remove(joinedFile, ec);
    return 0;
}
