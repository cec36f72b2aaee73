// What the collision file tests share: the block of tiles they write, and reading, writing and
// resealing the file's little-endian bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/collision/collision_file.h"

namespace terrabit::test::collision_bytes {

inline constexpr int kZoom = 17;
inline constexpr std::uint32_t kTx0 = 68196;  // a 3 x 2 block of Monaco tiles, one of them not baked
inline constexpr std::uint32_t kTy0 = 47837;

inline std::uint32_t u32At(const std::vector<std::uint8_t>& b, std::size_t at) {
    return std::uint32_t{b[at]} | std::uint32_t{b[at + 1]} << 8 | std::uint32_t{b[at + 2]} << 16 |
           std::uint32_t{b[at + 3]} << 24;
}
inline std::uint64_t u64At(const std::vector<std::uint8_t>& b, std::size_t at) {
    return std::uint64_t{u32At(b, at)} | std::uint64_t{u32At(b, at + 4)} << 32;
}
inline void putU32At(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}
/// Recomputes the trailer after a deliberate edit, so the parser's structural checks are reached.
inline void reseal(std::vector<std::uint8_t>& b) {
    putU32At(b, b.size() - 4, core::collisionFileChecksum(std::span(b).first(b.size() - 4)));
}

}  // namespace terrabit::test::collision_bytes
