#include "terrabit/core/placement/placement_hash.h"

#include <bit>

namespace terrabit::core::placement {

std::uint64_t hashCombine(std::uint64_t h, double value) { return hashCombine(h, std::bit_cast<std::uint64_t>(value)); }

std::uint64_t hashCombine(std::uint64_t h, std::span<const Vec2> points) {
    h = hashCombine(h, static_cast<std::uint64_t>(points.size()));
    for (const Vec2 p : points) {
        h = hashCombine(h, p.x);
        h = hashCombine(h, p.y);
    }
    return h;
}

int pickWeighted(std::span<const double> weights, std::uint64_t word) {
    double total = 0.0;
    for (const double w : weights) {
        if (w > 0.0) total += w;
    }
    if (!(total > 0.0)) return -1;
    const double target = unitInterval(word) * total;
    double sum = 0.0;
    int last = -1;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        if (!(weights[i] > 0.0)) continue;
        sum += weights[i];
        last = static_cast<int>(i);
        if (target < sum) return last;
    }
    return last;  // rounding put the target at the very end
}

}  // namespace terrabit::core::placement
