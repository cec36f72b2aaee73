#include "terrabit/core/algebra/noise_mask.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "terrabit/core/algebra/random_mask.h"

// Everything below is integer arithmetic on purpose: the fast row fill and the per-cell
// definition must agree bit for bit, on every machine and whatever the compiler contracts or
// vectorises, which floating point would not guarantee.

namespace terrabit::core::algebra {

namespace {

constexpr std::uint64_t kNoiseTag = 0x4e4f495345303031ULL;  // "NOISE001"

__extension__ typedef __int128 Int128;

/// Lattice row key, hashed once per lattice row.
std::uint64_t latticeRow(std::uint64_t key, std::int64_t iy) {
    return mixBits(key ^ (static_cast<std::uint64_t>(iy) * 0x9e3779b97f4a7c15ULL));
}
/// The lattice value at column ix of a lattice row, 0..65535.
std::int64_t latticeValue(std::uint64_t rowKey, std::int64_t ix) {
    return static_cast<std::int64_t>(mixBits(rowKey + static_cast<std::uint64_t>(ix) * 0xd1b54a32d192ed03ULL) >> 48);
}

/// The quintic fade 6t^5 - 15t^4 + 10t^3 for t = f / 2^16, f in 0..65535, as 0..65536.
std::int64_t fade(std::int64_t f) {
    const std::int64_t t2 = (f * f) >> 16;
    const std::int64_t t3 = (t2 * f) >> 16;
    const std::int64_t inner = (((6 * f - 15 * 65536) * f) >> 16) + 10 * 65536;
    return std::clamp<std::int64_t>((t3 * inner) >> 16, 0, 65536);
}

/// a + (b - a) * s / 2^16 rounded down: always between a and b for s in 0..65536.
std::int64_t lerp(std::int64_t a, std::int64_t b, std::int64_t s) { return a + (((b - a) * s) >> 16); }

/// Lattice position of a cell centre along one axis: (2 g + 1) / 2 cells times step (32.32).
Int128 position(std::int64_t g, std::uint64_t step) {
    return (static_cast<Int128>(2 * g + 1) * static_cast<Int128>(step)) >> 1;
}

/// Field quantiles at fractions j / 1024, measured on a fixed pseudo-random sample of positions
/// with a large scale (so that positions inside lattice cells are close to continuous).
const std::array<std::uint32_t, 1025>& quantileTable() {
    static const std::array<std::uint32_t, 1025> table = [] {
        NoiseMask m;
        m.keys[0] = seedKey(kNoiseTag, 0x5eed, 0, 30);
        m.keys[1] = seedKey(kNoiseTag + 1, 0x5eed, 0, 30);
        m.stepQ32 = static_cast<std::uint64_t>(std::llround(std::ldexp(1.0, 32) / 1000.37));
        m.zoom = 30;
        constexpr int kSamples = 1 << 18;
        std::vector<std::uint32_t> histogram(NoiseMask::kMaxValue + 1, 0);
        for (int i = 0; i < kSamples; ++i) {
            const std::uint64_t h = mixBits(static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL + 12345);
            const auto gx = static_cast<std::int64_t>(h & ((std::uint64_t{1} << 36) - 1));
            const auto gy = static_cast<std::int64_t>(h >> 37);
            ++histogram[m.value(gx, gy)];
        }
        std::array<std::uint32_t, 1025> t{};
        std::uint64_t below = 0;  // samples with a value < v
        std::size_t j = 0;
        for (std::uint32_t v = 0; v <= NoiseMask::kMaxValue + 1 && j <= 1024; ++v) {
            while (j <= 1024 && below * 1024 >= j * static_cast<std::uint64_t>(kSamples)) t[j++] = v;
            if (v <= NoiseMask::kMaxValue) below += histogram[v];
        }
        for (; j <= 1024; ++j) t[j] = NoiseMask::kMaxValue + 1;
        return t;
    }();
    return table;
}

}  // namespace

std::uint32_t NoiseMask::quantile(double fraction) {
    const auto& t = quantileTable();
    if (!(fraction > 0.0)) return 0;
    if (fraction >= 1.0) return kMaxValue + 1;
    const double x = fraction * 1024.0;
    const auto i = static_cast<std::size_t>(x);
    const double f = x - static_cast<double>(i);
    return t[i] + static_cast<std::uint32_t>(std::lround(f * (static_cast<double>(t[i + 1]) - t[i])));
}

NoiseMask NoiseMask::make(std::uint64_t sceneSeed, std::uint64_t seedArgument, int zoom, double scaleCells,
                          double threshold) {
    NoiseMask m;
    m.keys[0] = seedKey(kNoiseTag, sceneSeed, seedArgument, zoom);
    m.keys[1] = seedKey(kNoiseTag + 1, sceneSeed, seedArgument, zoom);
    m.zoom = zoom;
    const double scale = std::clamp(std::isnan(scaleCells) ? 1.0 : scaleCells, 1.0, 65536.0);
    m.stepQ32 = static_cast<std::uint64_t>(std::llround(std::ldexp(1.0, 32) / scale));
    m.all = threshold >= 1.0;
    m.rawThreshold = m.all ? kMaxValue + 1 : quantile(threshold);
    return m;
}

std::uint32_t NoiseMask::value(std::int64_t gx, std::int64_t gy) const {
    gx = wrapColumn(gx, zoom);
    std::int64_t sum = 0;
    for (int o = 0; o < 2; ++o) {
        const std::uint64_t step = stepQ32 << o;
        const Int128 ux = position(gx, step);
        const Int128 uy = position(gy, step);
        const auto ix = static_cast<std::int64_t>(ux >> 32);
        const auto iy = static_cast<std::int64_t>(uy >> 32);
        const std::int64_t sx = fade(static_cast<std::int64_t>((ux >> 16) & 0xffff));
        const std::int64_t sy = fade(static_cast<std::int64_t>((uy >> 16) & 0xffff));
        const std::uint64_t r0 = latticeRow(keys[o], iy);
        const std::uint64_t r1 = latticeRow(keys[o], iy + 1);
        // Vertical first, then horizontal: fillRow caches the vertical step per lattice column.
        const std::int64_t a = lerp(latticeValue(r0, ix), latticeValue(r1, ix), sy);
        const std::int64_t b = lerp(latticeValue(r0, ix + 1), latticeValue(r1, ix + 1), sy);
        sum += (o == 0 ? 2 : 1) * lerp(a, b, sx);
    }
    return static_cast<std::uint32_t>(sum);
}

void NoiseMask::fillRow(std::int64_t gx0, std::int64_t gy, std::uint64_t* words, int wordCount,
                        std::span<std::int32_t> scratch) const {
    if (all || rawThreshold == 0) {
        for (int w = 0; w < wordCount; ++w) words[w] = all ? ~std::uint64_t{0} : 0;
        return;
    }
    const std::int64_t cells = std::int64_t{64} * wordCount;
    const std::int64_t width = std::int64_t{256} << zoom;
    if (gx0 < 0 || gx0 + cells > width || static_cast<std::int64_t>(scratch.size()) < scratchSize(wordCount)) {
        // A row that crosses the antimeridian (only tiles at the world's edge): the plain definition.
        for (int w = 0; w < wordCount; ++w) {
            std::uint64_t word = 0;
            for (int b = 0; b < 64; ++b) word |= static_cast<std::uint64_t>(cell(gx0 + 64 * w + b, gy)) << b;
            words[w] = word;
        }
        return;
    }

    // Per octave: the vertical interpolation at every lattice column the row touches, once.
    std::int32_t* cache[2];
    std::uint64_t rel[2];
    std::uint64_t step[2];
    std::size_t used = 0;
    for (int o = 0; o < 2; ++o) {
        step[o] = stepQ32 << o;
        const Int128 uy = position(gy, step[o]);
        const auto iy = static_cast<std::int64_t>(uy >> 32);
        const std::int64_t sy = fade(static_cast<std::int64_t>((uy >> 16) & 0xffff));
        const std::uint64_t r0 = latticeRow(keys[o], iy);
        const std::uint64_t r1 = latticeRow(keys[o], iy + 1);
        const Int128 ux0 = position(gx0, step[o]);
        const Int128 uxLast = position(gx0 + cells - 1, step[o]);
        const auto ixFirst = static_cast<std::int64_t>(ux0 >> 32);
        const auto count = static_cast<std::size_t>(static_cast<std::int64_t>(uxLast >> 32) - ixFirst + 2);
        cache[o] = scratch.data() + used;
        used += count;
        for (std::size_t k = 0; k < count; ++k) {
            const auto ix = ixFirst + static_cast<std::int64_t>(k);
            cache[o][k] = static_cast<std::int32_t>(lerp(latticeValue(r0, ix), latticeValue(r1, ix), sy));
        }
        // Position relative to the first lattice column: exact, since each cell adds step.
        rel[o] = static_cast<std::uint64_t>(ux0 - (static_cast<Int128>(ixFirst) << 32));
    }

    // This code is hot: two interpolations and a comparison per cell, no hashing.
    const std::int64_t limit = rawThreshold;
    for (int w = 0; w < wordCount; ++w) {
        std::uint64_t word = 0;
        for (int b = 0; b < 64; ++b) {
            std::int64_t sum = 0;
            for (int o = 0; o < 2; ++o) {
                const std::size_t k = rel[o] >> 32;
                const std::int64_t sx = fade(static_cast<std::int64_t>((rel[o] >> 16) & 0xffff));
                sum += (o == 0 ? 2 : 1) * lerp(cache[o][k], cache[o][k + 1], sx);
                rel[o] += step[o];
            }
            word |= static_cast<std::uint64_t>(sum < limit) << b;
        }
        words[w] = word;
    }
}

}  // namespace terrabit::core::algebra
