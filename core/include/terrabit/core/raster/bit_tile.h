#pragma once
/// BitTile: one layer of one map tile, 256×256 cells of one bit (docs/ARCHITECTURE.md).
///
/// Layout: 256 rows × 4 std::uint64_t words, row-major, 32-byte aligned (8 KiB). Cell x of row y
/// is bit (x & 63) of word (x >> 6) of row y, least significant bit westmost. One row is one
/// 256-bit vector, so whole-tile boolean operations are 256 vector operations.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace terrabit::core {

/// One 256-bit row of a BitTile: 4 words, cell x is bit (x & 63) of word x >> 6.
using BitRow = std::array<std::uint64_t, 4>;

class alignas(32) BitTile {
public:
    static constexpr int kSize = 256;       ///< cells per side
    static constexpr int kWordsPerRow = 4;  ///< 64-bit words per row
    static constexpr int kWords = kSize * kWordsPerRow;

    /// An empty tile (all cells clear). Allocates nothing: the bits live inside the object.
    BitTile() = default;
    /// A tile with every cell set.
    static BitTile full();

    // -- cells (x, y in 0..255; out-of-range is a programmer error) -------------------------
    bool test(int x, int y) const { return (mWords[index(x, y)] >> (x & 63)) & 1u; }
    void set(int x, int y) { mWords[index(x, y)] |= bit(x); }
    void clear(int x, int y) { mWords[index(x, y)] &= ~bit(x); }
    void assign(int x, int y, bool on) { on ? set(x, y) : clear(x, y); }

    // -- spans: the half-open cell range [x0, x1) of row y, clamped to the tile ----------------
    /// Sets every cell of the span, writing whole words.
    void fillSpan(int y, int x0, int x1);
    /// Clears every cell of the span.
    void clearSpan(int y, int x0, int x1);
    /// True when any cell of the span is set.
    bool anySpan(int y, int x0, int x1) const;

    // -- rows ----------------------------------------------------------------------------------
    const std::uint64_t* row(int y) const { return mWords + y * kWordsPerRow; }
    std::uint64_t* row(int y) { return mWords + y * kWordsPerRow; }
    std::span<const std::uint64_t, kWords> words() const {
        return std::span<const std::uint64_t, kWords>(mWords, kWords);
    }
    std::span<std::uint64_t, kWords> words() { return std::span<std::uint64_t, kWords>(mWords, kWords); }

    // -- whole tile ----------------------------------------------------------------------------
    /// Number of set cells (0..65536).
    int count() const;
    bool none() const;
    bool any() const { return !none(); }
    void reset();

    BitTile& operator|=(const BitTile& o);
    BitTile& operator&=(const BitTile& o);
    BitTile& operator^=(const BitTile& o);
    /// this = this & ~o.
    BitTile& andNot(const BitTile& o);
    /// Flips every cell.
    BitTile& invert();

    // The operators take both sides by reference: passing an over-aligned 8 KiB object by value
    // buys nothing and makes GCC print an ABI note (-Wpsabi) in every file that uses them.
    /// Cells set in a or b.
    friend BitTile operator|(const BitTile& a, const BitTile& b) {
        BitTile r = a;
        r |= b;
        return r;
    }
    /// Cells set in both a and b.
    friend BitTile operator&(const BitTile& a, const BitTile& b) {
        BitTile r = a;
        r &= b;
        return r;
    }
    /// Cells set in exactly one of a and b.
    friend BitTile operator^(const BitTile& a, const BitTile& b) {
        BitTile r = a;
        r ^= b;
        return r;
    }
    /// Cells set in a and clear in b (a & ~b).
    friend BitTile operator-(const BitTile& a, const BitTile& b) {
        BitTile r = a;
        r.andNot(b);
        return r;
    }
    /// Every cell flipped.
    friend BitTile operator~(const BitTile& a) {
        BitTile r = a;
        r.invert();
        return r;
    }
    friend bool operator==(const BitTile& a, const BitTile& b);

    /// A 64-bit hash of the bits (stable across runs and machines).
    std::uint64_t hash() const;

    /// Calls f(x, y) for every set cell in row order (north to south, west to east), word by
    /// word with count-trailing-zeros, so empty words cost one test.
    template <class F>
    void forEachSetCell(F&& f) const {
        for (int y = 0; y < kSize; ++y) {
            const std::uint64_t* r = row(y);
            for (int w = 0; w < kWordsPerRow; ++w) {
                std::uint64_t word = r[w];
                while (word) {
                    f(w * 64 + std::countr_zero(word), y);
                    word &= word - 1;
                }
            }
        }
    }

    /// Writes the tile as an 8-bit image, row-major, 256×256 bytes, north row first:
    /// `on` for set cells, `off` for clear ones.
    void toImage(std::span<std::uint8_t, kSize * kSize> out, std::uint8_t on = 255, std::uint8_t off = 0) const;
    /// A tile from an 8-bit image laid out as toImage writes it: a cell is set when its byte is
    /// non-zero.
    static BitTile fromImage(std::span<const std::uint8_t, kSize * kSize> image);

private:
    static int index(int x, int y) { return y * kWordsPerRow + (x >> 6); }
    static std::uint64_t bit(int x) { return std::uint64_t{1} << (x & 63); }

    std::uint64_t mWords[kWords] = {};
};

static_assert(sizeof(BitTile) == 8192, "a BitTile is exactly 8 KiB");
static_assert(alignof(BitTile) == 32, "a BitTile row is one aligned 256-bit vector");

/// The word mask of cells [x0, x1) within word w (cells w*64 .. w*64+63), for span operations.
inline std::uint64_t spanWordMask(int w, int x0, int x1) {
    const int lo = x0 - w * 64;
    const int hi = x1 - w * 64;
    if (hi <= 0 || lo >= 64 || lo >= hi) return 0;
    const std::uint64_t loMask = lo <= 0 ? ~std::uint64_t{0} : (~std::uint64_t{0} << lo);
    const std::uint64_t hiMask = hi >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << hi) - 1);
    return loMask & hiMask;
}

}  // namespace terrabit::core

template <>
struct std::hash<terrabit::core::BitTile> {
    std::size_t operator()(const terrabit::core::BitTile& t) const noexcept {
        return static_cast<std::size_t>(t.hash());
    }
};
