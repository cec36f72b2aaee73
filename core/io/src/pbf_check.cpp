#include "terrabit/core/io/pbf_check.h"

#include <array>
#include <fstream>
#include <string>
#include <vector>

namespace terrabit::core::io {

namespace {

// The PBF format: repeated { uint32 big-endian header length; BlobHeader; Blob }, where
// BlobHeader is a protobuf message { 1: string type; 2: bytes indexdata; 3: int32 datasize }.
constexpr std::uint32_t kMaxHeaderBytes = 64 * 1024;       // the format's limit
constexpr std::uint64_t kMaxBlobBytes = 32 * 1024 * 1024;  // the format's limit

struct BlobHeader {
    std::string type;
    std::uint64_t dataSize = 0;
    bool hasDataSize = false;
};

bool readVarint(const std::vector<unsigned char>& b, std::size_t& i, std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && i < b.size(); shift += 7) {
        const unsigned char c = b[i++];
        v |= std::uint64_t(c & 0x7f) << shift;
        if (!(c & 0x80)) return true;
    }
    return false;
}

bool parseBlobHeader(const std::vector<unsigned char>& b, BlobHeader& h) {
    std::size_t i = 0;
    while (i < b.size()) {
        std::uint64_t key = 0;
        if (!readVarint(b, i, key)) return false;
        const std::uint64_t field = key >> 3;
        const unsigned wire = static_cast<unsigned>(key & 7);
        if (wire == 0) {
            std::uint64_t v = 0;
            if (!readVarint(b, i, v)) return false;
            if (field == 3) {
                h.dataSize = v;
                h.hasDataSize = true;
            }
        } else if (wire == 2) {
            std::uint64_t len = 0;
            if (!readVarint(b, i, len) || len > b.size() - i) return false;
            if (field == 1)
                h.type.assign(b.begin() + static_cast<std::ptrdiff_t>(i),
                              b.begin() + static_cast<std::ptrdiff_t>(i + len));
            i += static_cast<std::size_t>(len);
        } else {
            return false;  // BlobHeader has no other wire types
        }
    }
    return h.hasDataSize && !h.type.empty();
}

}  // namespace

std::string withCommas(std::uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

bool looksLikePbf(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return looksLikePbf(in);
}

bool looksLikePbf(std::istream& in) {
    std::array<unsigned char, 4> len{};
    if (!in.read(reinterpret_cast<char*>(len.data()), 4)) return false;
    const std::uint32_t n =
        (std::uint32_t(len[0]) << 24) | (std::uint32_t(len[1]) << 16) | (std::uint32_t(len[2]) << 8) | len[3];
    if (n == 0 || n > kMaxHeaderBytes) return false;
    std::vector<unsigned char> header(n);
    if (!in.read(reinterpret_cast<char*>(header.data()), n)) {
        // A file cut inside its first header still looks like PBF if it starts like one.
        header.resize(static_cast<std::size_t>(in.gcount()));
        const std::string start(header.begin(), header.end());
        return start.find("OSMHeader") != std::string::npos;
    }
    BlobHeader h;
    return parseBlobHeader(header, h) && h.type == "OSMHeader";
}

Result<PbfFraming> checkPbfFraming(const std::filesystem::path& file, PbfFraming* complete) {
    const std::string name = file.string();
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(file, ec);
    if (ec) return Error{name + ": cannot read the file size (" + ec.message() + ")"};
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{name + ": cannot open the file"};
    return checkPbfFraming(in, size, name, complete);
}

Result<PbfFraming> checkPbfFraming(std::istream& in, std::uint64_t size, std::string_view sourceName,
                                   PbfFraming* complete) {
    const std::string name(sourceName);
    PbfFraming framing;
    framing.bytes = size;
    std::uint64_t offset = 0;
    // Every failure hands back what precedes the broken block.
    const auto fail = [&](std::string message) {
        if (complete) *complete = PbfFraming{framing.blocks, offset};
        return Error{std::move(message)};
    };
    std::vector<unsigned char> header;
    while (offset < size) {
        const std::string block = "block " + std::to_string(framing.blocks + 1) + " at byte " + withCommas(offset);
        if (size - offset < 4) {
            return fail(name + ": truncated PBF: the file ends inside the length of " + block);
        }
        std::array<unsigned char, 4> len{};
        in.seekg(static_cast<std::streamoff>(offset));
        in.read(reinterpret_cast<char*>(len.data()), 4);
        const std::uint32_t n =
            (std::uint32_t(len[0]) << 24) | (std::uint32_t(len[1]) << 16) | (std::uint32_t(len[2]) << 8) | len[3];
        if (n == 0 || n > kMaxHeaderBytes) {
            return fail(name + ": corrupt PBF: " + block + " declares a header of " + withCommas(n) + " bytes");
        }
        if (size - offset - 4 < n) {
            return fail(name + ": truncated PBF: the file ends inside the header of " + block);
        }
        header.resize(n);
        in.read(reinterpret_cast<char*>(header.data()), n);
        BlobHeader h;
        if (!in || !parseBlobHeader(header, h))
            return fail(name + ": corrupt PBF: " + block + " has an unreadable header");
        if (framing.blocks == 0 && h.type != "OSMHeader") {
            return fail(name + ": corrupt PBF: the first block is '" + h.type + "', not an OSMHeader");
        }
        if (framing.blocks > 0 && h.type != "OSMData") {
            return fail(name + ": corrupt PBF: " + block + " has the unknown type '" + h.type + "'");
        }
        if (h.dataSize > kMaxBlobBytes) {
            return fail(name + ": corrupt PBF: " + block + " declares " + withCommas(h.dataSize) + " bytes of data");
        }
        const std::uint64_t end = offset + 4 + n + h.dataSize;
        if (end > size) {
            return fail(name + ": truncated PBF: " + block + " needs " + withCommas(h.dataSize) +
                        " bytes of data but the file ends after " + withCommas(size - offset - 4 - n));
        }
        offset = end;
        ++framing.blocks;
    }
    return framing;
}

}  // namespace terrabit::core::io
