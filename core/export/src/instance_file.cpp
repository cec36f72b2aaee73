#include "terrabit/core/export/instance_file.h"
#include "terrabit/core/json_number.h"

#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>

namespace terrabit::core {

namespace {

constexpr char kMagic[4] = {'T', 'B', 'I', 'N'};
constexpr std::uint32_t kByteOrderMark = 0x01020304u;

// Bytes are put in little-endian order one by one: the file's bytes do not depend on the host.
void putU32(char* at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) at[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}
void putU64(char* at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) at[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}
std::uint32_t getU32(const char* at) {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(at[i]);
    return v;
}
std::uint64_t getU64(const char* at) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(at[i]);
    return v;
}

}  // namespace

std::string InstanceFileHeader::encode() const {
    std::string out(kInstanceHeaderBytes, '\0');
    std::memcpy(out.data(), kMagic, 4);
    putU32(out.data() + 4, kInstanceFileVersion);
    putU32(out.data() + 8, static_cast<std::uint32_t>(kInstanceHeaderBytes));
    putU32(out.data() + 12, static_cast<std::uint32_t>(kInstanceRecordBytes));
    putU64(out.data() + 16, instances);
    putU32(out.data() + 24, blocks);
    putU32(out.data() + 28, kByteOrderMark);
    return out;
}

Result<InstanceFileHeader> InstanceFileHeader::decode(std::string_view bytes) {
    if (bytes.size() < kInstanceHeaderBytes) {
        return Error{"shorter than the 32-byte header (" + std::to_string(bytes.size()) + " bytes)"};
    }
    if (std::memcmp(bytes.data(), kMagic, 4) != 0) return Error{"not a Terrabit instance file (no \"TBIN\")"};
    if (const std::uint32_t v = getU32(bytes.data() + 4); v != kInstanceFileVersion) {
        return Error{"instance file version " + std::to_string(v) + " (this program reads version " +
                     std::to_string(kInstanceFileVersion) + ")"};
    }
    if (getU32(bytes.data() + 8) != kInstanceHeaderBytes || getU32(bytes.data() + 12) != kInstanceRecordBytes) {
        return Error{"unexpected header or record size"};
    }
    if (getU32(bytes.data() + 28) != kByteOrderMark) return Error{"wrong byte-order mark"};
    InstanceFileHeader h;
    h.instances = getU64(bytes.data() + 16);
    if (h.instances > kInstanceMaxRecords) {
        return Error{"counts " + std::to_string(h.instances) + " instances, more than a file can hold"};
    }
    h.blocks = getU32(bytes.data() + 24);
    return h;
}

void appendInstanceRecord(std::string& out, const std::array<float, 16>& transform, std::uint32_t source) {
    const std::size_t at = out.size();
    out.resize(at + kInstanceRecordBytes);
    char* p = out.data() + at;
    for (std::size_t k = 0; k < 16; ++k) putU32(p + 4 * k, std::bit_cast<std::uint32_t>(transform[k]));
    putU32(p + 64, source);
}

std::array<float, 16> instanceRecordTransform(const char* record) {
    std::array<float, 16> m{};
    for (std::size_t k = 0; k < 16; ++k) m[k] = std::bit_cast<float>(getU32(record + 4 * k));
    return m;
}

std::uint32_t instanceRecordSource(const char* record) { return getU32(record + 64); }

void setInstanceRecordSource(char* record, std::uint32_t source) { putU32(record + 64, source); }

std::string InstanceBlockEntry::encode() const {
    return "{\"asset\":" + nlohmann::json(asset).dump() + ",\"block\":[" + std::to_string(blockX) + "," +
           std::to_string(blockY) + "],\"count\":" + std::to_string(count) + ",\"offset\":" + std::to_string(offset) +
           ",\"tile\":\"" + tile.quadkey() + "\"}";
}

Result<InstanceBlockEntry> InstanceBlockEntry::parse(std::string_view line) {
    try {
        const nlohmann::json j = nlohmann::json::parse(line);
        InstanceBlockEntry e;
        e.asset = j.at("asset").get<std::string>();
        e.blockX = wholeNumber<int>(j.at("block").at(0), "a block's column");
        e.blockY = wholeNumber<int>(j.at("block").at(1), "a block's row");
        e.count = wholeNumber<std::uint64_t>(j.at("count"), "a block's count", 0, kInstanceMaxRecords);
        e.offset = wholeNumber<std::uint64_t>(j.at("offset"), "a block's offset", 0,
                                              kInstanceHeaderBytes + kInstanceMaxRecords * kInstanceRecordBytes);
        auto tile = TileId::fromQuadkey(j.at("tile").get<std::string>());
        if (!tile) return Error{"an instance block with an invalid tile: " + std::string(line.substr(0, 80))};
        e.tile = *tile;
        if (e.offset < kInstanceHeaderBytes || (e.offset - kInstanceHeaderBytes) % kInstanceRecordBytes != 0) {
            return Error{"an instance block whose offset is not a record's: " + std::string(line.substr(0, 80))};
        }
        return e;
    } catch (const std::exception& e) {
        return Error{std::string("an instance block: ") + e.what()};
    }
}

std::string instanceFileEntry(std::uint64_t bytes) {
    return "{\"byteOrder\":\"little\",\"bytes\":" + std::to_string(bytes) + ",\"name\":\"" +
           std::string(kInstanceFileName) + "\",\"version\":" + std::to_string(kInstanceFileVersion) + "}";
}

}  // namespace terrabit::core
