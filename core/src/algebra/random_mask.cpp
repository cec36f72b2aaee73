#include "terrabit/core/algebra/random_mask.h"

#include <cmath>

namespace terrabit::core::algebra {

namespace {
constexpr std::uint64_t kRandomTag = 0x52414e444f4d3031ULL;  // "RANDOM01"
}

RandomMask RandomMask::make(std::uint64_t sceneSeed, std::uint64_t seedArgument, int zoom, double p) {
    RandomMask m;
    m.key = seedKey(kRandomTag, sceneSeed, seedArgument, zoom);
    m.zoom = zoom;
    if (p >= 1.0) {
        m.all = true;
    } else if (p > 0.0) {
        // p < 1, so p * 2^64 < 2^64 fits; the comparison hash < threshold then has chance
        // threshold / 2^64, p to within 2^-64.
        m.threshold = static_cast<std::uint64_t>(std::ldexp(p, 64));
    }
    return m;
}

void RandomMask::fillRow(std::int64_t gx0, std::int64_t gy, std::uint64_t* words, int wordCount) const {
    if (all || threshold == 0) {
        for (int w = 0; w < wordCount; ++w) words[w] = all ? ~std::uint64_t{0} : 0;
        return;
    }
    // This code is hot: one hash per cell. The row part of the hash and the column product are
    // carried along instead of recomputed; the wrap test costs one predictable branch.
    const std::uint64_t row = mixBits(key + static_cast<std::uint64_t>(gy) * 0x9e3779b97f4a7c15ULL);
    const std::int64_t width = std::int64_t{256} << zoom;
    std::int64_t gx = wrapColumn(gx0, zoom);
    std::uint64_t column = static_cast<std::uint64_t>(gx) * 0xd6e8feb86659fd93ULL;
    for (int w = 0; w < wordCount; ++w) {
        std::uint64_t word = 0;
        for (int b = 0; b < 64; ++b) {
            if (gx == width) {
                gx = 0;
                column = 0;
            }
            word |= static_cast<std::uint64_t>(mixBits(row ^ column) < threshold) << b;
            ++gx;
            column += 0xd6e8feb86659fd93ULL;
        }
        words[w] = word;
    }
}

}  // namespace terrabit::core::algebra
