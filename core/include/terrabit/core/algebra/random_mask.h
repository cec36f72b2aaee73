#pragma once
/// RandomMask: the cells of `random(p[, seed])` — each cell set with probability p, independently,
/// as a pure function of (scene seed, seed argument, zoom, global cell). No generator state:
/// the same inputs give the same bits in any run, on any thread, in any tile order (docs/ARCHITECTURE.md,
/// Determinism). Global cell coordinates count cells from the world's north-west corner at the
/// zoom: tile (tx, ty) holds cells [256 tx, 256 tx + 256) × [256 ty, 256 ty + 256).

#include <cstdint>

namespace terrabit::core::algebra {

/// The SplitMix64 finalizer: a bijective 64-bit mix whose output bits each depend on every
/// input bit. The building block of every seeded choice in the layer algebra.
constexpr std::uint64_t mixBits(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// A key for one seeded function: distinct tags (one per function kind), scene seeds, seed
/// arguments or zooms give unrelated keys.
constexpr std::uint64_t seedKey(std::uint64_t tag, std::uint64_t sceneSeed, std::uint64_t seedArgument, int zoom) {
    std::uint64_t k = mixBits(sceneSeed ^ tag);
    k = mixBits(k + seedArgument * 0x9e3779b97f4a7c15ULL);
    return mixBits(k + static_cast<std::uint64_t>(zoom) * 0xd1b54a32d192ed03ULL);
}

/// Global column wrapped into the world, 0 .. 256·2^zoom - 1 (columns wrap at the antimeridian).
constexpr std::int64_t wrapColumn(std::int64_t gx, int zoom) {
    const std::int64_t width = std::int64_t{256} << zoom;
    gx %= width;
    return gx < 0 ? gx + width : gx;
}

struct RandomMask {
    std::uint64_t key = 0;        ///< seedKey of the scene seed, seed argument and zoom
    std::uint64_t threshold = 0;  ///< a cell is set when its 32-bit value is below this (0..2^32)
    bool all = false;             ///< p >= 1: every cell set
    int zoom = 0;                 ///< zoom of the cell coordinates

    /// The mask of random(p, seedArgument) for a scene seed at a zoom; p is clamped to 0..1 and
    /// resolved to 2^-32.
    static RandomMask make(std::uint64_t sceneSeed, std::uint64_t seedArgument, int zoom, double p);

    /// The uniform 32-bit value of a global cell (column wrapped): one 64-bit hash serves the two
    /// columns 2k and 2k + 1, its low half the even one and its high half the odd one.
    std::uint32_t value(std::int64_t gx, std::int64_t gy) const {
        gx = wrapColumn(gx, zoom);
        const std::uint64_t row = mixBits(key + static_cast<std::uint64_t>(gy) * 0x9e3779b97f4a7c15ULL);
        const std::uint64_t h = mixBits(row ^ (static_cast<std::uint64_t>(gx >> 1) * 0xd6e8feb86659fd93ULL));
        return static_cast<std::uint32_t>((gx & 1) ? h >> 32 : h);
    }
    /// Whether the global cell (gx, gy) is set: the slow, obviously correct definition.
    bool cell(std::int64_t gx, std::int64_t gy) const { return all || value(gx, gy) < threshold; }

    /// Writes wordCount words of row gy starting at global column gx0 (any integer): bit b of
    /// word w is cell (gx0 + 64 w + b, gy). Equal to cell() for every bit; allocates nothing.
    void fillRow(std::int64_t gx0, std::int64_t gy, std::uint64_t* words, int wordCount) const;
};

}  // namespace terrabit::core::algebra
