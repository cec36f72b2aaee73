#include "instance_file_join_p.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "terrabit/core/export/instance_file.h"
#include "terrabit/core/export/output_file.h"

namespace terrabit::core::scale {

namespace {

namespace fs = std::filesystem;

/// A part checked against its header and size, its sources' places in the united table.
struct CheckedPart {
    std::vector<InstanceBlockEntry> blocks;
    std::vector<std::string> sourceIds;
    std::vector<std::uint32_t> place;  ///< by the part's source index
    std::ifstream in;
};

Status checkPart(const InstanceFilePart& part, CheckedPart& out) {
    const std::string name = part.file.string();
    out.in.open(part.file, std::ios::binary);
    if (!out.in) return Error{name + ": cannot read (the manifest beside it indexes it)"};
    std::string head(kInstanceHeaderBytes, '\0');
    out.in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(out.in.gcount()));
    auto header = InstanceFileHeader::decode(head);
    if (!header) return Error{name + ": " + header.message()};
    std::uint64_t expected = kInstanceHeaderBytes;
    for (const std::string& line : part.blocks) {
        auto entry = InstanceBlockEntry::parse(line);
        if (!entry) return Error{name + ": the manifest's index: " + entry.message()};
        if (entry->offset != expected) {
            return Error{name + ": the manifest's index has a block at byte " + std::to_string(entry->offset) +
                         " where one should start at " + std::to_string(expected)};
        }
        // The blocks together must fit a file (each alone does): no sum wraps around.
        constexpr std::uint64_t kMostBytes = kInstanceHeaderBytes + kInstanceMaxRecords * kInstanceRecordBytes;
        if (entry->count > (kMostBytes - expected) / kInstanceRecordBytes) {
            return Error{name + ": the manifest's index counts more records than a file can hold"};
        }
        expected += entry->count * kInstanceRecordBytes;
        out.blocks.push_back(std::move(*entry));
    }
    if (header->blocks != out.blocks.size() || header->fileBytes() != expected) {
        return Error{name + ": its header counts " + std::to_string(header->instances) + " instances in " +
                     std::to_string(header->blocks) + " blocks, the manifest beside it " +
                     std::to_string((expected - kInstanceHeaderBytes) / kInstanceRecordBytes) + " in " +
                     std::to_string(out.blocks.size()) + ": not this manifest's instance file"};
    }
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(part.file, ec);
    if (ec) return Error{name + ": " + ec.message()};
    if (size != expected) {
        return Error{name + ": " + std::to_string(size) + " bytes where its header says " + std::to_string(expected) +
                     (size < expected ? ": truncated" : ": bytes after the last record")};
    }
    try {
        for (const std::string& s : part.sources) out.sourceIds.push_back(nlohmann::json::parse(s).get<std::string>());
    } catch (const std::exception& e) {
        return Error{name + ": the manifest's instanceSources: " + e.what()};
    }
    return Status::success();
}

}  // namespace

Result<JoinedInstanceFile> joinInstanceFiles(const std::vector<InstanceFilePart>& parts, const fs::path& destination) {
    std::vector<CheckedPart> checked(parts.size());
    for (std::size_t p = 0; p < parts.size(); ++p) {
        if (Status s = checkPart(parts[p], checked[p]); !s) return s.error();
    }
    // The united source table, sorted, and each part's sources' places in it.
    std::vector<std::string> ids;
    for (const CheckedPart& c : checked) ids.insert(ids.end(), c.sourceIds.begin(), c.sourceIds.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (CheckedPart& c : checked) {
        for (const std::string& id : c.sourceIds) {
            c.place.push_back(static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin()));
        }
    }
    // The blocks in the scene's tile order; the parts' tiles do not overlap.
    struct Ref {
        std::size_t part, block;
    };
    std::vector<Ref> order;
    JoinedInstanceFile joined;
    for (std::size_t p = 0; p < checked.size(); ++p) {
        for (std::size_t b = 0; b < checked[p].blocks.size(); ++b) {
            order.push_back({p, b});
            joined.instances += checked[p].blocks[b].count;
        }
    }
    std::stable_sort(order.begin(), order.end(), [&](const Ref& a, const Ref& b) {
        return northToSouth(checked[a.part].blocks[a.block].tile, checked[b.part].blocks[b.block].tile);
    });

    auto output = OutputFile::create(destination);
    if (!output) return output.error();
    std::string buffer = InstanceFileHeader{joined.instances, static_cast<std::uint32_t>(order.size())}.encode();
    std::uint64_t offset = kInstanceHeaderBytes;
    std::size_t lastPart = parts.size();
    for (const Ref& r : order) {
        CheckedPart& c = checked[r.part];
        InstanceBlockEntry entry = c.blocks[r.block];
        const std::size_t bytes = static_cast<std::size_t>(entry.count * kInstanceRecordBytes);
        const std::size_t at = buffer.size();
        buffer.resize(at + bytes);
        c.in.clear();
        c.in.seekg(static_cast<std::streamoff>(entry.offset));
        c.in.read(buffer.data() + at, static_cast<std::streamsize>(bytes));
        if (static_cast<std::size_t>(c.in.gcount()) != bytes) {
            return Error{parts[r.part].file.string() + ": read failed at byte " + std::to_string(entry.offset)};
        }
        for (std::size_t k = at; k < buffer.size(); k += kInstanceRecordBytes) {
            const std::uint32_t source = instanceRecordSource(buffer.data() + k);
            if (source == kInstanceNoSource) continue;
            if (source >= c.place.size()) {
                return Error{parts[r.part].file.string() + ": a record names source " + std::to_string(source) +
                             " of a table of " + std::to_string(c.place.size())};
            }
            setInstanceRecordSource(buffer.data() + k, c.place[source]);
        }
        entry.offset = offset;
        offset += bytes;
        joined.blocks.push_back(entry.encode());
        joined.runs += r.part != lastPart ? 1 : 0;
        lastPart = r.part;
        if (buffer.size() >= (std::size_t{1} << 20)) {
            if (Status s = output->write(buffer); !s) return s.error();
            buffer.clear();
        }
    }
    if (Status s = output->write(buffer); !s) return s.error();
    if (Status s = output->commit(); !s) return s.error();
    for (const std::string& id : ids) joined.sources.push_back(nlohmann::json(id).dump());
    joined.bytes = offset;
    return joined;
}

}  // namespace terrabit::core::scale
