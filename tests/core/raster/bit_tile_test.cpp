// BitTile: the layout docs/ARCHITECTURE.md fixes, cell and span access at word boundaries, and every
// whole-tile operation against a per-cell reference (a plain array of bools) on random tiles.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <unordered_set>
#include <utility>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"

using namespace terrabit::core;

namespace {

constexpr int kN = BitTile::kSize;

/// The obviously-correct model: one bool per cell.
using Cells = std::array<std::array<bool, kN>, kN>;  // [y][x]

BitTile fromCells(const Cells& c) {
    BitTile t;
    for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN; ++x)
            if (c[y][x]) t.set(x, y);
    return t;
}

void expectSame(const BitTile& t, const Cells& c, const char* what) {
    int mismatches = 0;
    for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN; ++x)
            if (t.test(x, y) != c[y][x] && mismatches++ < 5) ADD_FAILURE() << what << ": cell " << x << "," << y;
    EXPECT_EQ(mismatches, 0) << what;
}

/// A random tile with the given density, plus whole empty and whole full words so that the
/// vector code sees every kind of word.
std::unique_ptr<Cells> randomCells(std::mt19937_64& rng, double density) {
    auto c = std::make_unique<Cells>();
    std::bernoulli_distribution on(density);
    std::uniform_int_distribution<int> kind(0, 9);
    for (int y = 0; y < kN; ++y) {
        for (int w = 0; w < 4; ++w) {
            const int k = kind(rng);
            for (int x = w * 64; x < w * 64 + 64; ++x) (*c)[y][x] = k == 0 ? false : k == 1 ? true : on(rng);
        }
    }
    return c;
}

}  // namespace

TEST(BitTile, IsEightKibibytesAndAlignedTo32Bytes) {
    EXPECT_EQ(sizeof(BitTile), 8192u);
    EXPECT_EQ(alignof(BitTile), 32u);
    // Heap and container storage keep the alignment too.
    auto heap = std::make_unique<BitTile>();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(heap.get()) % 32, 0u);
    std::vector<BitTile> many(5);
    for (const BitTile& t : many) EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&t) % 32, 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(heap->row(1)) % 32, 0u);
}

TEST(BitTile, CellXIsBitXMod64OfWordXDiv64WithTheWestmostCellInTheLeastSignificantBit) {
    BitTile t;
    t.set(0, 0);
    EXPECT_EQ(t.words()[0], 1u);
    t.set(63, 0);
    EXPECT_EQ(t.words()[0], (std::uint64_t{1} << 63) | 1u);
    t.set(64, 0);
    EXPECT_EQ(t.words()[1], 1u);
    t.set(255, 0);
    EXPECT_EQ(t.words()[3], std::uint64_t{1} << 63);
    // Rows are consecutive groups of four words, north row first.
    t.set(130, 7);
    EXPECT_EQ(t.words()[7 * 4 + 2], std::uint64_t{1} << 2);
    EXPECT_EQ(t.row(7), t.words().data() + 28);
    t.set(5, 255);
    EXPECT_EQ(t.words()[255 * 4], std::uint64_t{1} << 5);
    EXPECT_EQ(t.count(), 6);
}

TEST(BitTile, DefaultIsEmptyAndFullHasEveryCell) {
    BitTile empty;
    EXPECT_TRUE(empty.none());
    EXPECT_FALSE(empty.any());
    EXPECT_EQ(empty.count(), 0);
    for (std::uint64_t w : empty.words()) EXPECT_EQ(w, 0u);
    const BitTile full = BitTile::full();
    EXPECT_EQ(full.count(), kN * kN);
    EXPECT_TRUE(full.any());
    for (std::uint64_t w : full.words()) EXPECT_EQ(w, ~std::uint64_t{0});
}

TEST(BitTile, SetClearAndAssignTouchOnlyTheirCell) {
    BitTile t;
    const std::pair<int, int> cells[] = {{0, 0}, {63, 0}, {64, 1}, {127, 128}, {128, 200}, {255, 255}, {191, 64}};
    for (auto [x, y] : cells) {
        t.set(x, y);
        EXPECT_TRUE(t.test(x, y));
    }
    EXPECT_EQ(t.count(), 7);
    EXPECT_FALSE(t.test(1, 0));
    EXPECT_FALSE(t.test(62, 0));
    EXPECT_FALSE(t.test(63, 1));
    t.clear(63, 0);
    EXPECT_FALSE(t.test(63, 0));
    EXPECT_TRUE(t.test(0, 0));
    EXPECT_EQ(t.count(), 6);
    t.assign(63, 0, true);
    EXPECT_TRUE(t.test(63, 0));
    t.assign(255, 255, false);
    EXPECT_FALSE(t.test(255, 255));
    t.set(0, 0);  // setting twice is idempotent
    EXPECT_EQ(t.count(), 6);
    t.reset();
    EXPECT_TRUE(t.none());
}

TEST(BitTile, SpanFillClearAndTestAtWordBoundaries) {
    // Every span [x0, x1) whose ends are at or next to a word boundary, including empty,
    // reversed and out-of-tile ones, against a per-cell model.
    const int ends[] = {-1000, -1, 0, 1, 62, 63, 64, 65, 127, 128, 129, 191, 192, 193, 254, 255, 256, 257, 100000};
    for (int x0 : ends) {
        for (int x1 : ends) {
            BitTile t;
            t.fillSpan(9, x0, x1);
            int expected = 0;
            for (int x = 0; x < kN; ++x) {
                const bool in = x >= x0 && x < x1;
                expected += in;
                ASSERT_EQ(t.test(x, 9), in) << "fill [" << x0 << "," << x1 << ") cell " << x;
            }
            ASSERT_EQ(t.count(), expected) << "fill [" << x0 << "," << x1 << ") spills into another row";
            ASSERT_EQ(t.anySpan(9, x0, x1), expected > 0) << "[" << x0 << "," << x1 << ")";

            BitTile f = BitTile::full();
            f.clearSpan(9, x0, x1);
            for (int x = 0; x < kN; ++x) ASSERT_EQ(f.test(x, 9), !(x >= x0 && x < x1)) << "clear cell " << x;
            ASSERT_EQ(f.count(), kN * kN - expected);
        }
    }
}

TEST(BitTile, SpanTestSeesOnlyCellsInsideTheSpan) {
    BitTile t;
    t.set(64, 3);
    EXPECT_TRUE(t.anySpan(3, 64, 65));
    EXPECT_TRUE(t.anySpan(3, 0, 256));
    EXPECT_FALSE(t.anySpan(3, 0, 64));
    EXPECT_FALSE(t.anySpan(3, 65, 256));
    EXPECT_FALSE(t.anySpan(3, 64, 64));
    EXPECT_FALSE(t.anySpan(2, 0, 256));
    EXPECT_FALSE(t.anySpan(4, 0, 256));
    t.set(255, 3);
    EXPECT_TRUE(t.anySpan(3, 255, 1000));
    EXPECT_FALSE(t.anySpan(3, 256, 1000));
}

TEST(BitTile, SpansOnRowsOutsideTheTileDoNothing) {
    BitTile t;
    t.fillSpan(-1, 0, 256);
    t.fillSpan(256, 0, 256);
    t.fillSpan(1 << 30, 0, 256);
    EXPECT_TRUE(t.none());
    EXPECT_FALSE(BitTile::full().anySpan(-1, 0, 256));
    EXPECT_FALSE(BitTile::full().anySpan(256, 0, 256));
    BitTile f = BitTile::full();
    f.clearSpan(-5, 0, 256);
    f.clearSpan(300, 0, 256);
    EXPECT_EQ(f.count(), kN * kN);
}

TEST(BitTile, SpanWordMaskCoversExactlyTheSpanWithinTheWord) {
    for (int w = 0; w < 4; ++w) {
        for (int x0 = -2; x0 <= 258; x0 += 3) {
            for (int x1 = -2; x1 <= 258; x1 += 5) {
                std::uint64_t expected = 0;
                for (int b = 0; b < 64; ++b) {
                    const int x = w * 64 + b;
                    if (x >= x0 && x < x1) expected |= std::uint64_t{1} << b;
                }
                ASSERT_EQ(spanWordMask(w, x0, x1), expected) << w << " [" << x0 << "," << x1 << ")";
            }
        }
    }
}

TEST(BitTile, CountMatchesTheReferenceOnRandomTiles) {
    std::mt19937_64 rng(1);
    for (double density : {0.0, 0.01, 0.5, 0.99, 1.0}) {
        auto c = randomCells(rng, density);
        int expected = 0;
        for (const auto& row : *c)
            for (bool b : row) expected += b;
        const BitTile t = fromCells(*c);
        EXPECT_EQ(t.count(), expected) << density;
        EXPECT_EQ(t.none(), expected == 0);
        EXPECT_EQ(t.any(), expected != 0);
    }
}

TEST(BitTile, BooleanOperationsMatchThePerCellReference) {
    std::mt19937_64 rng(2);
    for (int round = 0; round < 12; ++round) {
        auto a = randomCells(rng, 0.3 + 0.04 * round);
        auto b = randomCells(rng, 0.5);
        const BitTile ta = fromCells(*a);
        const BitTile tb = fromCells(*b);
        auto combine = [&](auto op) {
            auto r = std::make_unique<Cells>();
            for (int y = 0; y < kN; ++y)
                for (int x = 0; x < kN; ++x) (*r)[y][x] = op((*a)[y][x], (*b)[y][x]);
            return r;
        };
        expectSame(ta | tb, *combine([](bool p, bool q) { return p || q; }), "or");
        expectSame(ta & tb, *combine([](bool p, bool q) { return p && q; }), "and");
        expectSame(ta ^ tb, *combine([](bool p, bool q) { return p != q; }), "xor");
        expectSame(ta - tb, *combine([](bool p, bool q) { return p && !q; }), "and-not");
        expectSame(~ta, *combine([](bool p, bool) { return !p; }), "not");

        // The compound assignments agree with the operators and leave the right side alone.
        BitTile c = ta;
        c |= tb;
        EXPECT_EQ(c, ta | tb);
        c = ta;
        c &= tb;
        EXPECT_EQ(c, ta & tb);
        c = ta;
        c ^= tb;
        EXPECT_EQ(c, ta ^ tb);
        c = ta;
        c.andNot(tb);
        EXPECT_EQ(c, ta - tb);
        c = ta;
        c.invert();
        EXPECT_EQ(c, ~ta);
        EXPECT_EQ(tb, fromCells(*b));
    }
}

TEST(BitTile, BooleanOperationsWithItselfFollowTheLaws) {
    std::mt19937_64 rng(9);
    auto a = randomCells(rng, 0.4);
    const BitTile t = fromCells(*a);
    BitTile x = t;
    x ^= std::as_const(x);
    EXPECT_TRUE(x.none());
    x = t;
    x.andNot(x);
    EXPECT_TRUE(x.none());
    x = t;
    x |= std::as_const(x);
    EXPECT_EQ(x, t);
    x &= std::as_const(x);
    EXPECT_EQ(x, t);
    EXPECT_EQ(~~t, t);
    EXPECT_EQ((t | ~t).count(), kN * kN);
    EXPECT_EQ(t.count() + (~t).count(), kN * kN);
}

TEST(BitTile, EqualityAndHashFollowTheBits) {
    std::mt19937_64 rng(4);
    auto a = randomCells(rng, 0.5);
    const BitTile t = fromCells(*a);
    BitTile u = t;
    EXPECT_EQ(t, u);
    EXPECT_EQ(t.hash(), u.hash());
    EXPECT_EQ(std::hash<BitTile>{}(t), std::hash<BitTile>{}(u));
    // One flipped cell anywhere changes equality and (for these cells) the hash.
    std::unordered_set<std::uint64_t> hashes{t.hash()};
    for (auto [x, y] : {std::pair{0, 0}, {255, 255}, {63, 10}, {64, 10}, {200, 128}}) {
        BitTile v = t;
        v.assign(x, y, !v.test(x, y));
        EXPECT_NE(v, t) << x << "," << y;
        EXPECT_TRUE(hashes.insert(v.hash()).second) << "hash collision for cell " << x << "," << y;
    }
    // The same bits in a different row give a different hash (position matters).
    BitTile r1, r2;
    r1.set(3, 1);
    r2.set(3, 2);
    EXPECT_NE(r1.hash(), r2.hash());
    EXPECT_NE(BitTile{}.hash(), BitTile::full().hash());
}

TEST(BitTile, HashSeparatesSingleCellTiles) {
    // Tiles that differ in one cell (every cell of four rows and four columns, word borders
    // included): a usable hash gives no collisions among them.
    std::unordered_set<std::uint64_t> hashes{BitTile{}.hash()};
    BitTile visited;
    BitTile t;
    for (int line : {0, 63, 64, 255}) {
        for (int i = 0; i < kN; ++i) {
            for (auto [x, y] : {std::pair{i, line}, std::pair{line, i}}) {
                if (visited.test(x, y)) continue;
                visited.set(x, y);
                t.set(x, y);
                ASSERT_TRUE(hashes.insert(t.hash()).second) << "collision at cell " << x << "," << y;
                t.clear(x, y);
            }
        }
    }
    EXPECT_EQ(hashes.size(), static_cast<std::size_t>(visited.count()) + 1);
}

TEST(BitTile, ForEachSetCellVisitsEveryCellOnceInRowOrder) {
    std::mt19937_64 rng(5);
    auto a = randomCells(rng, 0.2);
    const BitTile t = fromCells(*a);
    std::vector<std::pair<int, int>> visited;
    t.forEachSetCell([&](int x, int y) { visited.emplace_back(y, x); });
    std::vector<std::pair<int, int>> expected;
    for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN; ++x)
            if ((*a)[y][x]) expected.emplace_back(y, x);
    EXPECT_EQ(visited, expected);

    int n = 0;
    BitTile{}.forEachSetCell([&](int, int) { ++n; });
    EXPECT_EQ(n, 0);
    BitTile::full().forEachSetCell([&](int, int) { ++n; });
    EXPECT_EQ(n, kN * kN);
    BitTile corners;
    corners.set(255, 0);
    corners.set(0, 255);
    corners.set(63, 100);
    corners.set(64, 100);
    visited.clear();
    corners.forEachSetCell([&](int x, int y) { visited.emplace_back(y, x); });
    EXPECT_EQ(visited, (std::vector<std::pair<int, int>>{{0, 255}, {100, 63}, {100, 64}, {255, 0}}));
}

TEST(BitTile, ImageRoundTripKeepsEveryCell) {
    std::mt19937_64 rng(6);
    auto a = randomCells(rng, 0.5);
    const BitTile t = fromCells(*a);
    std::vector<std::uint8_t> image(kN * kN, 77);
    t.toImage(std::span<std::uint8_t, kN * kN>(image.data(), kN * kN));
    for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN; ++x) ASSERT_EQ(image[y * kN + x], (*a)[y][x] ? 255 : 0) << x << "," << y;
    EXPECT_EQ(BitTile::fromImage(std::span<const std::uint8_t, kN * kN>(image.data(), kN * kN)), t);

    // Custom on/off values; any non-zero byte reads back as set.
    t.toImage(std::span<std::uint8_t, kN * kN>(image.data(), kN * kN), 1, 0);
    EXPECT_EQ(image[0], (*a)[0][0] ? 1 : 0);
    EXPECT_EQ(BitTile::fromImage(std::span<const std::uint8_t, kN * kN>(image.data(), kN * kN)), t);
    std::vector<std::uint8_t> noisy(kN * kN, 0);
    noisy[3 * kN + 70] = 1;
    noisy[255 * kN + 255] = 128;
    const BitTile n = BitTile::fromImage(std::span<const std::uint8_t, kN * kN>(noisy.data(), kN * kN));
    EXPECT_EQ(n.count(), 2);
    EXPECT_TRUE(n.test(70, 3));
    EXPECT_TRUE(n.test(255, 255));
    // on = 0, off = 255 gives the negative image.
    t.toImage(std::span<std::uint8_t, kN * kN>(image.data(), kN * kN), 0, 255);
    EXPECT_EQ(BitTile::fromImage(std::span<const std::uint8_t, kN * kN>(image.data(), kN * kN)), ~t);
}
