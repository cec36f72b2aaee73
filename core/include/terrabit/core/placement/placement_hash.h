#pragma once
/// Counter-based randomness for placement (docs/ARCHITECTURE.md, Determinism): every random choice is a
/// pure function of (scene seed, pass, cell or feature), never the state of a generator, so the
/// same inputs give the same scene on any thread count and in any tile order.

#include <cstdint>
#include <span>
#include <string_view>

#include "terrabit/core/algebra/random_mask.h"
#include "terrabit/core/geometry.h"

namespace terrabit::core::placement {

/// 64-bit FNV-1a of bytes: stable across runs and machines (unlike std::hash). Used for names
/// (pass ids, feature ids) and for cache keys.
constexpr std::uint64_t hashText(std::string_view text, std::uint64_t h = 1469598103934665603ULL) {
    for (const char c : text) {
        h ^= static_cast<std::uint8_t>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

/// Folds a value into a running hash (order matters): mixBits of the sum, so nearby inputs give
/// unrelated outputs.
constexpr std::uint64_t hashCombine(std::uint64_t h, std::uint64_t value) {
    return algebra::mixBits(h + 0x9e3779b97f4a7c15ULL + algebra::mixBits(value));
}

/// Folds a double's exact bits into a running hash (0.0 and -0.0 differ; fine for cache keys).
std::uint64_t hashCombine(std::uint64_t h, double value);
/// Folds points' exact coordinates into a running hash.
std::uint64_t hashCombine(std::uint64_t h, std::span<const Vec2> points);

/// The key of one pass of one bake: the scene seed, the pass's own seed and its id (a hash of
/// its name), mixed so that any change gives an unrelated stream.
constexpr std::uint64_t passKey(std::uint64_t sceneSeed, std::uint64_t passSeed, std::uint64_t passId) {
    return hashCombine(hashCombine(algebra::mixBits(sceneSeed ^ 0x7e57ab1e5eedULL), passSeed), passId);
}

/// The random word of one global cell (column gx east, row gy south, at the pass's zoom) in a
/// pass: the pass key mixed with the row, then the column.
constexpr std::uint64_t cellHash(std::uint64_t key, std::int64_t gx, std::int64_t gy) {
    const std::uint64_t row = algebra::mixBits(key + static_cast<std::uint64_t>(gy) * 0x9e3779b97f4a7c15ULL);
    return algebra::mixBits(row ^ (static_cast<std::uint64_t>(gx) * 0xd6e8feb86659fd93ULL));
}

/// The k-th independent draw from one cell's or feature's hash (k = 0, 1, 2…).
constexpr std::uint64_t draw(std::uint64_t hash, std::uint64_t k) {
    return algebra::mixBits(hash + (k + 1) * 0xa0761d6478bd642fULL);
}

/// A 64-bit word as a double uniform in [0, 1) (its top 53 bits).
constexpr double unitInterval(std::uint64_t word) { return static_cast<double>(word >> 11) * 0x1.0p-53; }

/// Picks an index by weight: the first i whose running sum of weights exceeds u · total, where u
/// is unitInterval(word). Zero and negative weights are never picked; -1 when no weight is
/// positive.
int pickWeighted(std::span<const double> weights, std::uint64_t word);

}  // namespace terrabit::core::placement
