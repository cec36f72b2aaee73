#pragma once
/// Skipping the far parts of a long ring (TileIndex::chunks): shared by the tile rasterizer and
/// the surface shaper, which both read a tile's rings this way.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::detail {

/// `ring` (global cells) with every run of kRingChunk vertices whose bounds lie wholly beyond
/// one side of `clip` replaced by the chord between its first and last vertex. The chord and the
/// path it replaces both lie beyond that side, so nothing changes inside `clip`, and a sea of
/// thousands of vertices costs a tile little more than its nearby ones. `chunks` are the entry's
/// chunk bounds; `chunk` is the index of the ring's first chunk and is moved past its last.
/// Written into `out`, cleared first.
inline void reduceFarChunks(std::span<const Vec2> ring, std::span<const Box2> chunks, std::size_t& chunk,
                            const Box2& clip, std::vector<Vec2>& out) {
    out.clear();
    const auto n = static_cast<std::uint32_t>(ring.size());
    for (std::uint32_t c = 0; c < n; c += kRingChunk, ++chunk) {
        const Box2& box = chunks[chunk];
        const std::uint32_t last = std::min(n, c + kRingChunk) - 1;
        const bool far =
            box.max.x < clip.min.x || box.min.x > clip.max.x || box.max.y < clip.min.y || box.min.y > clip.max.y;
        if (far) {
            out.push_back(ring[c]);
            if (last != c) out.push_back(ring[last]);
        } else {
            out.insert(out.end(), ring.begin() + c, ring.begin() + last + 1);
        }
    }
}

}  // namespace terrabit::core::detail
