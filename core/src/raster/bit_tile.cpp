#include "terrabit/core/raster/bit_tile.h"

#include <cstring>

// Whole-tile operations are explicit 256-bit vector code (GCC/Clang vector extensions: one
// vector per row). On x86-64 each function is compiled twice, for x86-64-v3 (AVX2, POPCNT) and
// for the baseline, and the loader picks the best one for the running CPU, so the package runs
// everywhere and still uses AVX2 where it exists.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define TERRABIT_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TERRABIT_VECTOR_CLONES
#endif

// The row lambdas run inside functions compiled for two targets (target_clones). A lambda is a
// function of its own: unless it is inlined — and a debug build inlines nothing — the AVX2 clone
// calls a baseline-ABI lambda, and its 256-bit vector result crosses the two ABIs (what
// -Wpsabi warns of): the result is written through a wrong pointer. Force inlining.
#if defined(__GNUC__)
#define TERRABIT_LAMBDA_INLINE __attribute__((always_inline))
#else
#define TERRABIT_LAMBDA_INLINE
#endif

// The row lambdas below are inlined into each clone; the ABI note GCC gives for passing 256-bit
// vectors between functions compiled for different targets does not apply to them.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace terrabit::core {

namespace {

#if defined(__GNUC__)
using Row256 = std::uint64_t __attribute__((vector_size(32), may_alias));

template <class Op>
inline void rowWise(std::uint64_t* a, const std::uint64_t* b, Op op) {
    auto* va = reinterpret_cast<Row256*>(a);
    auto* vb = reinterpret_cast<const Row256*>(b);
    for (int r = 0; r < BitTile::kSize; ++r) va[r] = op(va[r], vb[r]);
}
#else
template <class Op>
inline void rowWise(std::uint64_t* a, const std::uint64_t* b, Op op) {
    for (int i = 0; i < BitTile::kWords; ++i) a[i] = op(a[i], b[i]);
}
#endif

TERRABIT_VECTOR_CLONES void orWords(std::uint64_t* a, const std::uint64_t* b) {
    rowWise(a, b, [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x | y; });
}
TERRABIT_VECTOR_CLONES void andWords(std::uint64_t* a, const std::uint64_t* b) {
    rowWise(a, b, [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x & y; });
}
TERRABIT_VECTOR_CLONES void xorWords(std::uint64_t* a, const std::uint64_t* b) {
    rowWise(a, b, [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x ^ y; });
}
TERRABIT_VECTOR_CLONES void andNotWords(std::uint64_t* a, const std::uint64_t* b) {
    rowWise(a, b, [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x & ~y; });
}
TERRABIT_VECTOR_CLONES void invertWords(std::uint64_t* a) {
    rowWise(a, a, [](const auto& x, const auto&) TERRABIT_LAMBDA_INLINE { return ~x; });
}
TERRABIT_VECTOR_CLONES int popcountWords(const std::uint64_t* a) {
    int n = 0;
    for (int i = 0; i < BitTile::kWords; ++i) n += std::popcount(a[i]);
    return n;
}
TERRABIT_VECTOR_CLONES bool anyWords(const std::uint64_t* a) {
    std::uint64_t acc = 0;
    for (int i = 0; i < BitTile::kWords; ++i) acc |= a[i];
    return acc != 0;
}

}  // namespace

BitTile BitTile::full() {
    BitTile t;
    std::memset(t.mWords, 0xff, sizeof(t.mWords));
    return t;
}

void BitTile::fillSpan(int y, int x0, int x1) {
    if (y < 0 || y >= kSize) return;
    x0 = x0 < 0 ? 0 : x0;
    x1 = x1 > kSize ? kSize : x1;
    std::uint64_t* r = row(y);
    for (int w = x0 >> 6; w < kWordsPerRow && w * 64 < x1; ++w) r[w] |= spanWordMask(w, x0, x1);
}

void BitTile::clearSpan(int y, int x0, int x1) {
    if (y < 0 || y >= kSize) return;
    x0 = x0 < 0 ? 0 : x0;
    x1 = x1 > kSize ? kSize : x1;
    std::uint64_t* r = row(y);
    for (int w = x0 >> 6; w < kWordsPerRow && w * 64 < x1; ++w) r[w] &= ~spanWordMask(w, x0, x1);
}

bool BitTile::anySpan(int y, int x0, int x1) const {
    if (y < 0 || y >= kSize) return false;
    x0 = x0 < 0 ? 0 : x0;
    x1 = x1 > kSize ? kSize : x1;
    const std::uint64_t* r = row(y);
    for (int w = x0 >> 6; w < kWordsPerRow && w * 64 < x1; ++w) {
        if (r[w] & spanWordMask(w, x0, x1)) return true;
    }
    return false;
}

int BitTile::count() const { return popcountWords(mWords); }
bool BitTile::none() const { return !anyWords(mWords); }
void BitTile::reset() { std::memset(mWords, 0, sizeof(mWords)); }

BitTile& BitTile::operator|=(const BitTile& o) {
    orWords(mWords, o.mWords);
    return *this;
}
BitTile& BitTile::operator&=(const BitTile& o) {
    andWords(mWords, o.mWords);
    return *this;
}
BitTile& BitTile::operator^=(const BitTile& o) {
    xorWords(mWords, o.mWords);
    return *this;
}
BitTile& BitTile::andNot(const BitTile& o) {
    andNotWords(mWords, o.mWords);
    return *this;
}
BitTile& BitTile::invert() {
    invertWords(mWords);
    return *this;
}

bool operator==(const BitTile& a, const BitTile& b) { return std::memcmp(a.mWords, b.mWords, sizeof(a.mWords)) == 0; }

std::uint64_t BitTile::hash() const {
    // A word-wise multiply-xorshift mix, stable across runs and machines (unlike std::hash), in
    // four independent lanes so the multiplies overlap (one chain waited on each: a bake hashes
    // every layer of every tile for its keys), the lanes mixed together at the end.
    std::uint64_t lane[4] = {0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL,
                             0x27d4eb2f165667c5ULL};
    for (int i = 0; i < kWords; i += 4) {
        for (int k = 0; k < 4; ++k) {
            std::uint64_t& h = lane[k];
            h ^= mWords[i + k] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
            h *= 0xff51afd7ed558ccdULL;
            h ^= h >> 32;
        }
    }
    std::uint64_t h = lane[0];
    for (int k = 1; k < 4; ++k) {
        h ^= lane[k] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h *= 0xc4ceb9fe1a85ec53ULL;
        h ^= h >> 29;
    }
    return h;
}

void BitTile::toImage(std::span<std::uint8_t, kSize * kSize> out, std::uint8_t on, std::uint8_t off) const {
    for (int y = 0; y < kSize; ++y) {
        const std::uint64_t* r = row(y);
        std::uint8_t* o = out.data() + y * kSize;
        for (int x = 0; x < kSize; ++x) o[x] = ((r[x >> 6] >> (x & 63)) & 1u) ? on : off;
    }
}

BitTile BitTile::fromImage(std::span<const std::uint8_t, kSize * kSize> image) {
    BitTile t;
    for (int y = 0; y < kSize; ++y) {
        const std::uint8_t* in = image.data() + y * kSize;
        std::uint64_t* r = t.row(y);
        for (int x = 0; x < kSize; ++x) r[x >> 6] |= std::uint64_t{in[x] != 0} << (x & 63);
    }
    return t;
}

}  // namespace terrabit::core
