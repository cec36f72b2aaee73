#include "terrabit/core/export/cell_rects.h"

#include <algorithm>
#include <bit>

namespace terrabit::core {

namespace {

/// The first set cell at or after x in the row, or 256.
int nextSet(const std::uint64_t* row, int x) {
    while (x < BitTile::kSize) {
        const std::uint64_t word = row[x >> 6] >> (x & 63);
        if (word != 0) return x + std::countr_zero(word);
        x = (x | 63) + 1;
    }
    return BitTile::kSize;
}

/// The first clear cell at or after x in the row, or 256.
int nextClear(const std::uint64_t* row, int x) {
    while (x < BitTile::kSize) {
        const std::uint64_t word = ~row[x >> 6] >> (x & 63);
        if (word != 0) return std::min(BitTile::kSize, x + std::countr_zero(word));
        x = (x | 63) + 1;
    }
    return BitTile::kSize;
}

/// True when every cell of [x0, x1) is set in the row.
bool fullSpan(const std::uint64_t* row, int x0, int x1) {
    for (int w = x0 >> 6; w <= (x1 - 1) >> 6; ++w) {
        const std::uint64_t mask = spanWordMask(w, x0, x1);
        if ((row[w] & mask) != mask) return false;
    }
    return true;
}

}  // namespace

std::vector<CellRect> mergeCellsIntoRects(const BitTile& cells) {
    std::vector<CellRect> rects;
    BitTile remaining = cells;
    for (int y = 0; y < BitTile::kSize; ++y) {
        int x = 0;
        while ((x = nextSet(remaining.row(y), x)) < BitTile::kSize) {
            const int x1 = nextClear(remaining.row(y), x);
            int y1 = y + 1;
            while (y1 < BitTile::kSize && fullSpan(remaining.row(y1), x, x1)) ++y1;
            for (int yy = y; yy < y1; ++yy) remaining.clearSpan(yy, x, x1);
            rects.push_back({static_cast<std::uint16_t>(x), static_cast<std::uint16_t>(y),
                             static_cast<std::uint16_t>(x1), static_cast<std::uint16_t>(y1)});
            x = x1;
        }
    }
    return rects;
}

BitTile cellsOfRects(std::span<const CellRect> rects) {
    BitTile t;
    for (const CellRect& r : rects) {
        for (int y = r.y0; y < std::min<int>(r.y1, BitTile::kSize); ++y) t.fillSpan(y, r.x0, r.x1);
    }
    return t;
}

}  // namespace terrabit::core
