// Word kernels of the layer algebra: row-wise boolean operations and flat-plane morphology.
// Explicit 256-bit vector code (GCC/Clang vector extensions); on x86-64 GCC builds each entry
// point twice, for x86-64-v3 (AVX2) and the baseline, and the loader picks one for the running
// CPU, as bit_tile.cpp does.

#include <algorithm>
#include <cstring>

#include "program_p.h"

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

#pragma GCC diagnostic ignored "-Wpsabi"
// Clang takes the row lambdas' V4 parameters (passed by value, in registers) for 32-byte aligned
// memory operands and warns that V4's 8-byte alignment falls short; no memory is accessed there.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Walign-mismatch"
#endif

// Every helper below is forced inline: the cloned entry points must carry their own copy of the
// loops, or the AVX2 clone would call a baseline (SSE2) helper and gain nothing.
#if defined(__GNUC__)
#define TERRABIT_INLINE [[gnu::always_inline]] inline
#else
#define TERRABIT_INLINE inline
#endif

namespace terrabit::core::algebra {

namespace {

using Word = std::uint64_t;
constexpr Word kOnes = ~Word{0};

#if defined(__GNUC__)
// Unaligned 4-word vectors: planes are 32-byte aligned but strips and halo offsets are not.
typedef Word V4 __attribute__((vector_size(32), aligned(8), may_alias));
TERRABIT_INLINE V4 load(const Word* p) { return *reinterpret_cast<const V4*>(p); }
TERRABIT_INLINE void store(Word* p, V4 v) { *reinterpret_cast<V4*>(p) = v; }
#define TERRABIT_HAVE_V4 1
#endif

/// d[i] = op(a[i], b[i]) for i in [0, n), ascending (so d may trail b).
template <class Op>
TERRABIT_INLINE void span(Word* d, const Word* a, const Word* b, int n, Op op) {
    int i = 0;
#ifdef TERRABIT_HAVE_V4
    for (; i + 4 <= n; i += 4) store(d + i, op(load(a + i), load(b + i)));
#endif
    for (; i < n; ++i) d[i] = op(a[i], b[i]);
}

template <class Op>
TERRABIT_INLINE void rowsOf(Word* d, int sd, const Word* a, int sa, const Word* b, int sb, int rows, int words, Op op) {
    if (sd == words && sa == words && sb == words) {
        span(d, a, b, rows * words, op);
        return;
    }
    for (int r = 0; r < rows; ++r) span(d + r * sd, a + r * sa, b + r * sb, words, op);
}

/// v |= v shifted s cells east (towards higher bits), in place over a flat array; bits enter
/// word 0 from `fill`. Descending, so every word reads its own and its lower neighbour's
/// original value. 1 <= s <= 64.
template <bool kDilate>
TERRABIT_INLINE void smearEast(Word* v, int n, int s, Word fill) {
    auto combine = [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE {
        if constexpr (kDilate)
            return x | y;
        else
            return x & y;
    };
    auto shifted = [s](const auto& cur, const auto& lower) TERRABIT_LAMBDA_INLINE {
        if (s == 64) return lower;
        return (cur << s) | (lower >> (64 - s));
    };
    int j = n - 1;
#ifdef TERRABIT_HAVE_V4
    for (; j - 3 >= 1; j -= 4) {
        const V4 cur = load(v + j - 3);
        const V4 lower = load(v + j - 4);
        store(v + j - 3, combine(cur, shifted(cur, lower)));
    }
#endif
    for (; j >= 0; --j) {
        const Word lower = j > 0 ? v[j - 1] : fill;
        v[j] = combine(v[j], shifted(v[j], lower));
    }
}

/// dst = src | src shifted s cells east (dilate; & for erode): smearEast that also copies, so the
/// first pass of a morphology reads its input plane and writes the scratch plane in one go.
template <bool kDilate>
TERRABIT_INLINE void smearEastFrom(const Word* src, Word* dst, int n, int s, Word fill) {
    auto combine = [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE {
        if constexpr (kDilate)
            return x | y;
        else
            return x & y;
    };
    auto shifted = [s](const auto& cur, const auto& lower) TERRABIT_LAMBDA_INLINE {
        if (s == 64) return lower;
        return (cur << s) | (lower >> (64 - s));
    };
    dst[0] = combine(src[0], shifted(src[0], fill));
    int j = 1;
#ifdef TERRABIT_HAVE_V4
    for (; j + 4 <= n; j += 4) {
        const V4 cur = load(src + j);
        store(dst + j, combine(cur, shifted(cur, load(src + j - 1))));
    }
#endif
    for (; j < n; ++j) dst[j] = combine(src[j], shifted(src[j], src[j - 1]));
}

/// v |= v shifted s cells west, in place; bits enter the last word from `fill`. Ascending.
template <bool kDilate>
TERRABIT_INLINE void smearWest(Word* v, int n, int s, Word fill) {
    auto combine = [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE {
        if constexpr (kDilate)
            return x | y;
        else
            return x & y;
    };
    auto shifted = [s](const auto& cur, const auto& upper) TERRABIT_LAMBDA_INLINE {
        if (s == 64) return upper;
        return (cur >> s) | (upper << (64 - s));
    };
    int j = 0;
#ifdef TERRABIT_HAVE_V4
    for (; j + 4 < n; j += 4) {
        const V4 cur = load(v + j);
        const V4 upper = load(v + j + 1);
        store(v + j, combine(cur, shifted(cur, upper)));
    }
#endif
    for (; j < n; ++j) {
        const Word upper = j + 1 < n ? v[j + 1] : fill;
        v[j] = combine(v[j], shifted(v[j], upper));
    }
}

/// Horizontal morphology of a whole flat plane by radius r (r >= 1), from in into v: each cell becomes the OR
/// (dilate) or AND (erode) of the cells within r along its row. The plane is treated as one long
/// row: bits that cross from one row's end into the next row's start only reach cells within r
/// of the plane's left and right edges, which the caller's halo never needs.
template <bool kDilate>
TERRABIT_INLINE void smearRows(const Word* in, Word* v, int n, int r) {
    const Word fill = kDilate ? 0 : kOnes;
    smearEastFrom<kDilate>(in, v, n, 1, fill);
    for (int c = 1; c < r;) {  // doubling: coverage [0, c] grows to [0, c + s]
        const int s = std::min(c + 1, r - c);
        smearEast<kDilate>(v, n, s, fill);
        c += s;
    }
    for (int c = 0; c < r;) {
        const int s = std::min(c + 1, r - c);
        smearWest<kDilate>(v, n, s, fill);
        c += s;
    }
}

template <bool kDilate>
TERRABIT_INLINE void squareImpl(int r, const Word* in, int inStride, int inRows, Word* out, int outStride, int outWords,
                                int wordOffset, Word* temp) {
    auto op = [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE {
        if constexpr (kDilate)
            return x | y;
        else
            return x & y;
    };
    if (r == 0) {  // the compiler folds radius 0 away; kept correct for direct callers
        rowsOf(out, outStride, in + wordOffset, inStride, in + wordOffset, inStride, inRows, outWords,
               [](const auto& x, const auto&) TERRABIT_LAMBDA_INLINE { return x; });
        return;
    }
    const int n = inStride * inRows;
    smearRows<kDilate>(in, temp, n, r);
    // Vertical doubling in place: after a pass with coverage c, temp row y is the combination of
    // input rows [y, y + c] (for rows with y + c inside). The last pass writes the output, whose
    // row y is centred on input row y + r.
    Word* t = temp + wordOffset;
    for (int c = 0; c < 2 * r;) {
        const int s = std::min(c + 1, 2 * r - c);
        if (c + s == 2 * r) {
            rowsOf(out, outStride, t, inStride, t + s * inStride, inStride, inRows - 2 * r, outWords, op);
        } else {
            rowsOf(t, inStride, t, inStride, t + s * inStride, inStride, inRows - s, outWords, op);
        }
        c += s;
    }
}

/// The half-width of a disk of radius r at vertical offset k: floor(sqrt(r² - k²)).
TERRABIT_INLINE int diskHalfWidth(int r, int k) {
    const int q = r * r - k * k;
    int w = 0;
    while ((w + 1) * (w + 1) <= q) ++w;
    return w;
}

template <bool kDilate>
TERRABIT_INLINE void diskImpl(int r, const Word* in, int inStride, int inRows, Word* out, int outStride, int outWords,
                              int wordOffset, Word* temp) {
    const int n = inStride * inRows;
    std::memcpy(temp, in, sizeof(Word) * static_cast<std::size_t>(n));
    auto op = [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE {
        if constexpr (kDilate)
            return x | y;
        else
            return x & y;
    };
    const Word fill = kDilate ? 0 : kOnes;
    // The disk is the union of horizontal runs: half-width w(k) at rows -k and +k. Going from
    // k = r (narrowest run) to k = 0 (widest), temp grows by one cell each side at a time and
    // each level is combined into the output at both vertical offsets.
    const int outRows = inRows - 2 * r;
    int width = 0;
    bool first = true;
    for (int k = r; k >= 0; --k) {
        const int target = diskHalfWidth(r, k);
        for (; width < target; ++width) {
            smearEast<kDilate>(temp, n, 1, fill);
            smearWest<kDilate>(temp, n, 1, fill);
        }
        const Word* north = temp + wordOffset + (r - k) * inStride;  // input row y + r - k
        const Word* south = temp + wordOffset + (r + k) * inStride;  // input row y + r + k
        if (first) {
            rowsOf(out, outStride, north, inStride, south, inStride, outRows, outWords, op);
            first = false;
        } else {
            rowsOf(out, outStride, out, outStride, north, inStride, outRows, outWords, op);
            if (k != 0) rowsOf(out, outStride, out, outStride, south, inStride, outRows, outWords, op);
        }
    }
}

}  // namespace

TERRABIT_VECTOR_CLONES void applyRows(KernelOp op, std::uint64_t* d, int sd, const std::uint64_t* a, int sa,
                                      const std::uint64_t* b, int sb, int rows, int words) {
    // This code is hot: every boolean step of every strip of every tile lands here.
    switch (op) {
        case KernelOp::Copy:
            rowsOf(d, sd, a, sa, a, sa, rows, words,
                   [](const auto& x, const auto&) TERRABIT_LAMBDA_INLINE { return x; });
            break;
        case KernelOp::Not:
            rowsOf(d, sd, a, sa, a, sa, rows, words,
                   [](const auto& x, const auto&) TERRABIT_LAMBDA_INLINE { return ~x; });
            break;
        case KernelOp::And:
            rowsOf(d, sd, a, sa, b, sb, rows, words,
                   [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x & y; });
            break;
        case KernelOp::Or:
            rowsOf(d, sd, a, sa, b, sb, rows, words,
                   [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x | y; });
            break;
        case KernelOp::Xor:
            rowsOf(d, sd, a, sa, b, sb, rows, words,
                   [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x ^ y; });
            break;
        case KernelOp::AndNot:
            rowsOf(d, sd, a, sa, b, sb, rows, words,
                   [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x & ~y; });
            break;
        case KernelOp::OrNot:
            rowsOf(d, sd, a, sa, b, sb, rows, words,
                   [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return x | ~y; });
            break;
        case KernelOp::Xnor:
            rowsOf(d, sd, a, sa, b, sb, rows, words,
                   [](const auto& x, const auto& y) TERRABIT_LAMBDA_INLINE { return ~(x ^ y); });
            break;
    }
}

TERRABIT_VECTOR_CLONES void morphSquare(bool dilate, int r, const std::uint64_t* in, int inStride, int inRows,
                                        std::uint64_t* out, int outStride, int outWords, int wordOffset,
                                        std::uint64_t* temp) {
    if (dilate)
        squareImpl<true>(r, in, inStride, inRows, out, outStride, outWords, wordOffset, temp);
    else
        squareImpl<false>(r, in, inStride, inRows, out, outStride, outWords, wordOffset, temp);
}

TERRABIT_VECTOR_CLONES void morphDisk(bool dilate, int r, const std::uint64_t* in, int inStride, int inRows,
                                      std::uint64_t* out, int outStride, int outWords, int wordOffset,
                                      std::uint64_t* temp) {
    if (dilate)
        diskImpl<true>(r, in, inStride, inRows, out, outStride, outWords, wordOffset, temp);
    else
        diskImpl<false>(r, in, inStride, inRows, out, outStride, outWords, wordOffset, temp);
}

TERRABIT_VECTOR_CLONES void shiftRows(const std::uint64_t* in, int inStride, int inWords, std::uint64_t* out,
                                      int outStride, int outRows, int outWords, int firstSourceWord, int bit) {
    // Output word j of a row takes cells from source words firstSourceWord + j and the one
    // after, shifted down by `bit`; words outside the source row read as clear (only cells
    // beyond the halo the caller needs come from there).
    for (int y = 0; y < outRows; ++y) {
        const Word* src = in + static_cast<std::ptrdiff_t>(y) * inStride;
        Word* dst = out + static_cast<std::ptrdiff_t>(y) * outStride;
        for (int j = 0; j < outWords; ++j) {
            const int w = firstSourceWord + j;
            const Word lo = (w >= 0 && w < inWords) ? src[w] : 0;
            const Word hi = (w + 1 >= 0 && w + 1 < inWords) ? src[w + 1] : 0;
            dst[j] = bit == 0 ? lo : (lo >> bit) | (hi << (64 - bit));
        }
    }
}

}  // namespace terrabit::core::algebra
