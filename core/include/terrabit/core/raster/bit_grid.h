#pragma once
/// BitGridView: a non-owning view of a row-major bit grid whose rows are whole 64-bit words,
/// least significant bit westmost — a BitTile, or a region of several tiles side by side.
/// The rasterizer writes into it; it clips every span to the grid.

#include <cstdint>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"

namespace terrabit::core {

struct BitGridView {
    std::uint64_t* words = nullptr;  ///< row-major, wordsPerRow words per row
    int wordsPerRow = 0;             ///< 64-cell words per row
    int height = 0;                  ///< rows, in cells

    /// Width in cells.
    int width() const { return wordsPerRow * 64; }
    std::uint64_t* row(int y) const { return words + static_cast<std::ptrdiff_t>(y) * wordsPerRow; }
    bool test(int x, int y) const { return (row(y)[x >> 6] >> (x & 63)) & 1u; }

    /// Sets the cells [x0, x1) of row y, writing whole words; the caller has clipped to the grid
    /// (0 <= x0, x1 <= width(), 0 <= y < height). An empty span (x1 <= x0) does nothing.
    void fillSpan(int y, int x0, int x1) const {
        if (x1 <= x0) return;
        std::uint64_t* r = row(y);
        const int w0 = x0 >> 6;
        const int w1 = (x1 - 1) >> 6;
        const std::uint64_t first = ~std::uint64_t{0} << (x0 & 63);
        const std::uint64_t last = ~std::uint64_t{0} >> (63 - ((x1 - 1) & 63));
        if (w0 == w1) {
            r[w0] |= first & last;
            return;
        }
        r[w0] |= first;
        for (int w = w0 + 1; w < w1; ++w) r[w] = ~std::uint64_t{0};
        r[w1] |= last;
    }

    static BitGridView of(BitTile& tile) { return {tile.words().data(), BitTile::kWordsPerRow, BitTile::kSize}; }
};

/// An owning grid of width × height cells (width a multiple of 64), for regions of tiles.
class BitGrid {
public:
    BitGrid() = default;
    /// A clear grid; width is rounded up to a multiple of 64 cells.
    BitGrid(int width, int height)
        : mWordsPerRow((width + 63) / 64),
          mHeight(height),
          mWords(static_cast<std::size_t>(mWordsPerRow) * height, 0) {}

    int width() const { return mWordsPerRow * 64; }
    int height() const { return mHeight; }
    BitGridView view() { return {mWords.data(), mWordsPerRow, mHeight}; }
    bool test(int x, int y) const { return (mWords[std::size_t(y) * mWordsPerRow + (x >> 6)] >> (x & 63)) & 1u; }
    void set(int x, int y) { mWords[std::size_t(y) * mWordsPerRow + (x >> 6)] |= std::uint64_t{1} << (x & 63); }

    /// Copies the 256×256 block whose north-west cell is (x0, y0) (both multiples of 64 for x)
    /// into a tile; cells outside the grid read as clear.
    BitTile tileAt(int x0, int y0) const {
        BitTile t;
        for (int y = 0; y < BitTile::kSize; ++y) {
            const int gy = y0 + y;
            if (gy < 0 || gy >= mHeight) continue;
            for (int w = 0; w < BitTile::kWordsPerRow; ++w) {
                const int gw = (x0 >> 6) + w;
                if (gw < 0 || gw >= mWordsPerRow) continue;
                t.row(y)[w] = mWords[std::size_t(gy) * mWordsPerRow + gw];
            }
        }
        return t;
    }

private:
    int mWordsPerRow = 0;
    int mHeight = 0;
    std::vector<std::uint64_t> mWords;
};

}  // namespace terrabit::core
