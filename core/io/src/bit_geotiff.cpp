#include "bit_geotiff_p.h"

#include <libdeflate.h>

#include <array>
#include <bit>
#include <memory>
#include <string_view>

namespace terrabit::core::io::detail {

namespace {

constexpr int kSide = BitTile::kSize;
constexpr std::size_t kRowBytes = kSide / 8;
constexpr std::size_t kStripBytes = kRowBytes * kSide;
/// The level GDAL's GeoTIFFs come out at with its default ZLEVEL (libtiff compressing with libdeflate).
constexpr int kLevel = 7;

/// The citations GDAL writes for EPSG:3857 (GTCitationGeoKey, GeogCitationGeoKey), '|' ending each.
constexpr std::string_view kCitations = "WGS 84 / Pseudo-Mercator|WGS 84|";

enum Type : std::uint16_t { kShort = 3, kLong = 4, kAscii = 2, kDouble = 12 };

constexpr std::uint32_t kIfdOffset = 8;
constexpr std::uint16_t kEntries = 16;
constexpr std::uint32_t kScaleOffset = kIfdOffset + 2 + 12 * kEntries + 4;
constexpr std::uint32_t kTiepointOffset = kScaleOffset + 3 * 8;
constexpr std::uint32_t kGeoKeysOffset = kTiepointOffset + 6 * 8;
constexpr std::uint16_t kGeoKeyShorts = 4 * (1 + 7);
constexpr std::uint32_t kAsciiOffset = kGeoKeysOffset + 2 * kGeoKeyShorts;
constexpr std::uint32_t kAsciiCount = static_cast<std::uint32_t>(kCitations.size() + 1);
constexpr std::uint32_t kStripOffset = kAsciiOffset + kAsciiCount;

/// Byte b with its bits in the opposite order: a BitTile keeps a byte's first cell in its lowest
/// bit, a 1-bit TIFF in its highest.
constexpr std::array<std::uint8_t, 256> kReversed = [] {
    std::array<std::uint8_t, 256> t{};
    for (int b = 0; b < 256; ++b) {
        int r = 0;
        for (int k = 0; k < 8; ++k) r |= ((b >> k) & 1) << (7 - k);
        t[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(r);
    }
    return t;
}();

/// Little-endian values appended to a byte vector.
struct Bytes {
    std::vector<std::uint8_t>& out;
    void u16(std::uint16_t v) {
        out.push_back(static_cast<std::uint8_t>(v));
        out.push_back(static_cast<std::uint8_t>(v >> 8));
    }
    void u32(std::uint32_t v) {
        u16(static_cast<std::uint16_t>(v));
        u16(static_cast<std::uint16_t>(v >> 16));
    }
    void f64(double v) {
        const auto bits = std::bit_cast<std::uint64_t>(v);
        u32(static_cast<std::uint32_t>(bits));
        u32(static_cast<std::uint32_t>(bits >> 32));
    }
    /// An IFD entry whose value fits its four bytes (a short, left-justified) or lies at `value`.
    void entry(std::uint16_t tag, Type type, std::uint32_t count, std::uint32_t value) {
        u16(tag);
        u16(type);
        u32(count);
        if (type == kShort && count == 1) {
            u16(static_cast<std::uint16_t>(value));
            u16(0);
        } else {
            u32(value);
        }
    }
};

using Compressor = std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)>;

}  // namespace

bool encodeBitGeoTiff(const BitTile* bits, const TileId& tile, std::vector<std::uint8_t>& out) {
    thread_local const Compressor compressor(libdeflate_alloc_compressor(kLevel), libdeflate_free_compressor);
    if (!compressor) return false;

    std::array<std::uint8_t, kStripBytes> strip{};
    if (bits) {
        for (int y = 0; y < kSide; ++y) {
            const std::uint64_t* row = bits->row(y);
            std::uint8_t* o = strip.data() + static_cast<std::size_t>(y) * kRowBytes;
            for (int w = 0; w < BitTile::kWordsPerRow; ++w) {
                for (int k = 0; k < 8; ++k) *o++ = kReversed[(row[w] >> (8 * k)) & 0xffu];
            }
        }
    }

    // Compressed first, into this thread's buffer: its size goes into the IFD.
    thread_local std::vector<std::uint8_t> packed(libdeflate_zlib_compress_bound(compressor.get(), kStripBytes));
    const std::size_t packedSize =
        libdeflate_zlib_compress(compressor.get(), strip.data(), strip.size(), packed.data(), packed.size());
    if (packedSize == 0) return false;

    out.clear();
    out.reserve(kStripOffset + packedSize);
    Bytes b{out};
    b.u16(0x4949);  // "II": little-endian
    b.u16(42);
    b.u32(kIfdOffset);

    b.u16(kEntries);
    b.entry(256, kShort, 1, kSide);  // ImageWidth
    b.entry(257, kShort, 1, kSide);  // ImageLength
    b.entry(258, kShort, 1, 1);      // BitsPerSample
    b.entry(259, kShort, 1, 8);      // Compression: Adobe deflate
    b.entry(262, kShort, 1, 1);      // PhotometricInterpretation: black is zero
    b.entry(273, kLong, 1, kStripOffset);
    b.entry(277, kShort, 1, 1);      // SamplesPerPixel
    b.entry(278, kShort, 1, kSide);  // RowsPerStrip: one strip
    b.entry(279, kLong, 1, static_cast<std::uint32_t>(packedSize));
    b.entry(284, kShort, 1, 1);  // PlanarConfiguration: contiguous
    b.entry(317, kShort, 1, 1);  // Predictor: none
    b.entry(339, kShort, 1, 1);  // SampleFormat: unsigned integer
    b.entry(33550, kDouble, 3, kScaleOffset);
    b.entry(33922, kDouble, 6, kTiepointOffset);
    b.entry(34735, kShort, kGeoKeyShorts, kGeoKeysOffset);
    b.entry(34737, kAscii, kAsciiCount, kAsciiOffset);
    b.u32(0);  // no further IFD

    const double cell = tile.cellSizeMercator();
    const Box2 bounds = tile.boundsMercator();
    for (const double v : {cell, cell, 0.0}) b.f64(v);
    for (const double v : {0.0, 0.0, 0.0, bounds.min.x, bounds.max.y, 0.0}) b.f64(v);

    // GeoKeyDirectory: version 1.1.0 and 7 keys, each (key, location, count, value or offset).
    const std::uint16_t citation = static_cast<std::uint16_t>(kCitations.find('|') + 1);
    const std::array<std::array<std::uint16_t, 4>, 8> keys{{
        {1, 1, 0, 7},
        {1024, 0, 1, 1},             // GTModelType: projected
        {1025, 0, 1, 1},             // GTRasterType: pixel is area
        {1026, 34737, citation, 0},  // GTCitation
        {2049, 34737, static_cast<std::uint16_t>(kCitations.size() - citation), citation},  // GeogCitation
        {2054, 0, 1, 9102},                                                                 // GeogAngularUnits: degree
        {3072, 0, 1, 3857},  // ProjectedCSType: EPSG:3857
        {3076, 0, 1, 9001},  // ProjLinearUnits: metre
    }};
    for (const auto& key : keys) {
        for (const std::uint16_t v : key) b.u16(v);
    }
    out.insert(out.end(), kCitations.begin(), kCitations.end());
    out.push_back(0);
    out.insert(out.end(), packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(packedSize));
    return true;
}

}  // namespace terrabit::core::io::detail
