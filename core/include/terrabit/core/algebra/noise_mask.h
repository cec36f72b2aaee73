#pragma once
/// NoiseMask: the cells of `noise(scale, threshold[, seed])` — clumps for natural-looking
/// scatter. The field is two octaves of value noise over global cell coordinates (feature sizes
/// `scale` and `scale`/2, weights 2:1) with quintic fades, computed entirely in integers so every
/// machine and every code path gives the same bits. A cell is set where the field is below the
/// threshold's quantile of the field's distribution, so `threshold` is the fraction of the ground
/// covered over an area much larger than the scale. Pure function of (scene seed, seed argument,
/// zoom, global cell): clumps continue across tile borders and do not depend on thread count or
/// tile order. Global cell coordinates as in random_mask.h; columns wrap at the antimeridian
/// (where the clumps have a seam).

#include <cstdint>
#include <span>

namespace terrabit::core::algebra {

struct NoiseMask {
    std::uint64_t keys[2] = {0, 0};  ///< lattice hash keys of the two octaves
    std::uint64_t stepQ32 = 0;       ///< lattice units per cell of the first octave, 32.32 fixed point
    std::uint32_t rawThreshold = 0;  ///< a cell is set when value() is below this
    bool all = false;                ///< threshold >= 1: every cell set
    int zoom = 0;                    ///< zoom of the cell coordinates

    /// The largest value() can return.
    static constexpr std::uint32_t kMaxValue = 3 * 65535;

    /// The mask of noise(scaleCells, threshold, seedArgument) for a scene seed at a zoom.
    /// scaleCells is clamped to 1..65536, threshold to 0..1.
    static NoiseMask make(std::uint64_t sceneSeed, std::uint64_t seedArgument, int zoom, double scaleCells,
                          double threshold);

    /// The field at a global cell's centre, 0..kMaxValue: the slow, obviously correct definition.
    std::uint32_t value(std::int64_t gx, std::int64_t gy) const;
    /// Whether the global cell (gx, gy) is set.
    bool cell(std::int64_t gx, std::int64_t gy) const { return all || value(gx, gy) < rawThreshold; }

    /// Scratch (in int32 values) that fillRow needs for wordCount words.
    static constexpr int scratchSize(int wordCount) { return 2 * (2 * 64 * wordCount + 4); }
    /// Writes wordCount words of row gy from global column gx0 (any integer), bit b of word w
    /// being cell (gx0 + 64 w + b, gy); equal to cell() for every bit. Hashes each lattice point
    /// the row touches once. scratch must hold scratchSize(wordCount) values; allocates nothing.
    void fillRow(std::int64_t gx0, std::int64_t gy, std::uint64_t* words, int wordCount,
                 std::span<std::int32_t> scratch) const;

    /// The raw threshold that covers about `fraction` (0..1) of the cells: a quantile of the
    /// field's distribution, measured once per process on a fixed sample (the same everywhere).
    static std::uint32_t quantile(double fraction);
};

}  // namespace terrabit::core::algebra
