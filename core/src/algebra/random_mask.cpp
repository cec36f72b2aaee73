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
        // value < threshold has chance threshold / 2^32: p rounded to the nearest 2^-32.
        m.threshold = static_cast<std::uint64_t>(std::llround(std::ldexp(p, 32)));
    }
    return m;
}

void RandomMask::fillRow(std::int64_t gx0, std::int64_t gy, std::uint64_t* words, int wordCount) const {
    if (all || threshold == 0) {
        for (int w = 0; w < wordCount; ++w) words[w] = all ? ~std::uint64_t{0} : 0;
        return;
    }
    const std::uint64_t row = mixBits(key + static_cast<std::uint64_t>(gy) * 0x9e3779b97f4a7c15ULL);
    const std::int64_t width = std::int64_t{256} << zoom;
    const std::int64_t start = wrapColumn(gx0, zoom);
    if ((start & 1) == 0 && start + 64 * std::int64_t{wordCount} <= width) {
        // This code is hot: one hash per two cells. Rows start on an even column and do not
        // wrap except at the world's edge, so pairs line up with the hash pairs.
        std::uint64_t pair = static_cast<std::uint64_t>(start >> 1) * 0xd6e8feb86659fd93ULL;
        for (int w = 0; w < wordCount; ++w) {
            std::uint64_t word = 0;
            for (int b = 0; b < 64; b += 2) {
                const std::uint64_t h = mixBits(row ^ pair);
                word |= static_cast<std::uint64_t>((h & 0xffffffffULL) < threshold) << b;
                word |= static_cast<std::uint64_t>((h >> 32) < threshold) << (b + 1);
                pair += 0xd6e8feb86659fd93ULL;
            }
            words[w] = word;
        }
        return;
    }
    for (int w = 0; w < wordCount; ++w) {  // odd start or a wrap inside the row: cell by cell
        std::uint64_t word = 0;
        for (int b = 0; b < 64; ++b) word |= static_cast<std::uint64_t>(cell(gx0 + 64 * w + b, gy)) << b;
        words[w] = word;
    }
}

}  // namespace terrabit::core::algebra
