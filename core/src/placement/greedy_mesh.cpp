#include "terrabit/core/placement/greedy_mesh.h"

#include <bit>

namespace terrabit::core::placement {

namespace {

constexpr int kWords = BitTile::kWordsPerRow;

/// The first set cell of the row at or after x, or 256.
int firstSet(const std::uint64_t* row, int x) {
    for (int w = x >> 6; w < kWords; ++w) {
        std::uint64_t word = row[w];
        if (w == x >> 6) word &= ~std::uint64_t{0} << (x & 63);
        if (word) return w * 64 + std::countr_zero(word);
    }
    return BitTile::kSize;
}

/// The first clear cell of the row at or after x, or 256.
int firstClear(const std::uint64_t* row, int x) {
    for (int w = x >> 6; w < kWords; ++w) {
        std::uint64_t word = ~row[w];
        if (w == x >> 6) word &= ~std::uint64_t{0} << (x & 63);
        if (word) return w * 64 + std::countr_zero(word);
    }
    return BitTile::kSize;
}

}  // namespace

void greedyMesh(const BitTile& cells, std::vector<CellRect>& out, BitTile& scratch) {
    out.clear();
    scratch = cells;
    for (int y = 0; y < BitTile::kSize; ++y) {
        std::uint64_t* row = scratch.row(y);
        for (int x = firstSet(row, 0); x < BitTile::kSize; x = firstSet(row, x)) {
            const int x1 = firstClear(row, x);
            std::uint64_t mask[kWords];
            for (int w = 0; w < kWords; ++w) mask[w] = spanWordMask(w, x, x1);
            // Grow south while the next row holds the whole run, clearing as we go so no cell
            // lands in two rectangles.
            int y1 = y;
            for (;;) {
                std::uint64_t* r = scratch.row(y1);
                for (int w = 0; w < kWords; ++w) r[w] &= ~mask[w];
                ++y1;
                if (y1 >= BitTile::kSize) break;
                const std::uint64_t* next = scratch.row(y1);
                bool whole = true;
                for (int w = 0; w < kWords; ++w) whole = whole && (next[w] & mask[w]) == mask[w];
                if (!whole) break;
            }
            out.push_back({static_cast<std::uint16_t>(x), static_cast<std::uint16_t>(y), static_cast<std::uint16_t>(x1),
                           static_cast<std::uint16_t>(y1)});
            x = x1;
        }
    }
}

}  // namespace terrabit::core::placement
