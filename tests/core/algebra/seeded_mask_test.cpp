// random() and noise(): densities within statistical bounds, independence, clumps that continue
// across tile borders, and determinism (pure functions of seed and global cell).

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "algebra_test_support.h"
#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/algebra/noise_mask.h"
#include "terrabit/core/algebra/random_mask.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::algebra;

const std::vector<std::string> kMaskNames = {"grass", "road"};

/// A block of tiles near Monaco at zoom 17.
std::vector<TileId> block(int width, int height) { return TileBlock{17, 68200, 47800, width, height}.tiles(); }

ComposeResult run(const std::string& expression, const std::vector<TileId>& tiles, std::uint64_t seed = 11) {
    MemoryLayers none(kMaskNames);
    ComposeOptions o;
    o.seed = seed;
    Result<ComposeResult> r = compose(none, tiles, expression, o);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? std::move(*r) : ComposeResult{};
}

double fraction(const ComposeResult& r) {
    return static_cast<double>(r.total.cells) / (static_cast<double>(r.masks.size()) * 65536.0);
}

TEST(SeededMasks, TheHashIsSplitMix64) {
    // Published SplitMix64 outputs for seed 1234567 (Vigna's reference generator): the mask bits
    // rest on a standard function, not on this machine or compiler.
    const std::uint64_t expected[] = {6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL,
                                      4593380528125082431ULL, 16408922859458223821ULL};
    std::uint64_t state = 1234567;
    for (std::uint64_t e : expected) {
        state += 0x9e3779b97f4a7c15ULL;
        EXPECT_EQ(mixBits(state), e);
    }
}

TEST(SeededMasks, RandomDensityIsWithinFiveSigma) {
    const auto tiles = block(2, 2);
    const double n = 4 * 65536.0;
    for (double p : {0.01, 0.3, 0.5, 0.9}) {
        const ComposeResult r = run("random(" + std::to_string(p) + ")", tiles);
        const double sigma = std::sqrt(p * (1 - p) / n);
        EXPECT_NEAR(fraction(r), p, 5 * sigma) << "p = " << p;
    }
}

TEST(SeededMasks, RandomNeighboursAreIndependent) {
    const ComposeResult r = run("random(0.4, 5)", block(2, 2));
    double both = 0, pairs = 0;
    for (const BitTile& t : r.masks) {
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x + 1 < 256; ++x) {
                both += t.test(x, y) && t.test(x + 1, y);
                both += t.test(y, x) && t.test(y, x + 1);
                pairs += 2;
            }
        }
    }
    const double p2 = 0.4 * 0.4;
    EXPECT_NEAR(both / pairs, p2, 5 * std::sqrt(p2 * (1 - p2) / pairs));
}

TEST(SeededMasks, SeedsGiveIndependentMasksAndSmallerPIsASubset) {
    const auto tiles = block(2, 1);
    const double n = 2 * 65536.0;
    // Two seed arguments, or two scene seeds: overlap as for independent masks, 0.25.
    const ComposeResult a = run("random(0.5, 1) & random(0.5, 2)", tiles);
    EXPECT_NEAR(fraction(a), 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
    const ComposeResult s1 = run("random(0.5)", tiles, 1);
    const ComposeResult s2 = run("random(0.5)", tiles, 2);
    int overlap = 0;
    for (std::size_t i = 0; i < tiles.size(); ++i) overlap += (s1.masks[i] & s2.masks[i]).count();
    EXPECT_NEAR(overlap / n, 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
    // The same seed twice is the same mask; a smaller probability is inside a larger one.
    EXPECT_EQ(run("random(0.5, 3) ^ random(0.5, 3)", tiles).total.cells, 0);
    EXPECT_EQ(run("random(0.2, 3) - random(0.6, 3)", tiles).total.cells, 0);
    EXPECT_GT(run("random(0.6, 3) - random(0.2, 3)", tiles).total.cells, 0);
}

TEST(SeededMasks, RowFillsEqualTheCellDefinitionAcrossTheAntimeridian) {
    // Zoom 3: 2048 cells around the world; rows that start west of 0 or run past the end wrap.
    const RandomMask random = RandomMask::make(9, 4, 3, 0.37);
    const NoiseMask noise = NoiseMask::make(9, 4, 3, 13.3, 0.45);
    std::vector<std::int32_t> scratch(static_cast<std::size_t>(NoiseMask::scratchSize(6)));
    for (std::int64_t gx0 : {std::int64_t{-128}, std::int64_t{0}, std::int64_t{1000}, std::int64_t{1001},
                             std::int64_t{2048 - 192}, std::int64_t{2048 - 64}, std::int64_t{5000}}) {
        for (std::int64_t gy : {std::int64_t{-3}, std::int64_t{0}, std::int64_t{777}, std::int64_t{2050}}) {
            std::uint64_t r[6], n[6];
            random.fillRow(gx0, gy, r, 6);
            noise.fillRow(gx0, gy, n, 6, scratch);
            for (int i = 0; i < 6 * 64; ++i) {
                ASSERT_EQ(((r[i / 64] >> (i % 64)) & 1) != 0, random.cell(gx0 + i, gy))
                    << gx0 << "," << gy << " +" << i;
                ASSERT_EQ(((n[i / 64] >> (i % 64)) & 1) != 0, noise.cell(gx0 + i, gy)) << gx0 << "," << gy << " +" << i;
            }
        }
    }
    // Columns a world apart are the same cell.
    EXPECT_EQ(random.value(5, 7), random.value(5 + 2048, 7));
    EXPECT_EQ(noise.value(5, 7), noise.value(5 - 2048, 7));
}

TEST(SeededMasks, NoiseThresholdIsTheCoveredFraction) {
    // 6×6 tiles with 10-cell features: about 23 000 features, so the spatial spread is small.
    const auto tiles = block(6, 6);
    for (double t : {0.2, 0.5, 0.8}) {
        const ComposeResult r = run("noise(10, " + std::to_string(t) + ")", tiles);
        EXPECT_NEAR(fraction(r), t, 0.03) << "threshold " << t;
    }
    EXPECT_EQ(run("noise(10, 0)", tiles).total.cells, 0);
    EXPECT_EQ(run("noise(10, 1)", tiles).total.cells, static_cast<std::int64_t>(tiles.size()) * 65536);
}

TEST(SeededMasks, NoiseGrowsWithTheThreshold) {
    const auto tiles = block(2, 1);
    EXPECT_EQ(run("noise(16, 0.3, 2) - noise(16, 0.6, 2)", tiles).total.cells, 0);
    EXPECT_GT(run("noise(16, 0.6, 2) - noise(16, 0.3, 2)", tiles).total.cells, 0);
}

TEST(SeededMasks, NoiseClumpsContinueAcrossTileBorders) {
    // Neighbouring cells agree far more often than independent cells would (0.5 at threshold
    // 0.5), and just as often across a tile border as inside a tile.
    const auto tiles = block(2, 2);
    const ComposeResult r = run("noise(24, 0.5, 1)", tiles);
    auto cell = [&](int gx, int gy) {
        return r.masks[static_cast<std::size_t>((gy / 256) * 2 + gx / 256)].test(gx % 256, gy % 256);
    };
    double agreeBorder = 0, agreeInside = 0, n = 0;
    for (int y = 0; y < 512; ++y) {
        agreeBorder += cell(255, y) == cell(256, y);
        agreeBorder += cell(y, 255) == cell(y, 256);
        agreeInside += cell(127, y) == cell(128, y);
        agreeInside += cell(y, 127) == cell(y, 128);
        n += 2;
    }
    EXPECT_GT(agreeInside / n, 0.9);
    EXPECT_GT(agreeBorder / n, 0.9);
    EXPECT_NEAR(agreeBorder / n, agreeInside / n, 0.05);
    EXPECT_NEAR(fraction(r), 0.5, 0.15);  // a 2×2 block holds only a few hundred clumps
}

TEST(SeededMasks, SameInputsGiveTheSameBitsInAnyOrderAndThreadCount) {
    MemoryLayers layers(kMaskNames);
    TileBlock b{17, 68200, 47800, 3, 2};
    std::mt19937_64 rng(1);
    fillRandom(layers, b, rng);
    std::vector<TileId> tiles = b.tiles();
    const std::string expr = "grass & ~dilate(road, 2m) & random(0.4) | noise(30m, 0.3, 7) - erode(grass, 2)";
    ComposeOptions one;
    one.seed = 42;
    ComposeOptions two = one;
    two.threads = 2;
    const Result<ComposeResult> a = compose(layers, tiles, expr, one);
    ASSERT_TRUE(a.ok()) << a.message();
    std::vector<TileId> reversed(tiles.rbegin(), tiles.rend());
    const Result<ComposeResult> c = compose(layers, reversed, expr, two);
    ASSERT_TRUE(c.ok()) << c.message();
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        EXPECT_EQ(a->masks[i], c->masks[tiles.size() - 1 - i]) << tiles[i].quadkey();
        EXPECT_EQ(a->coverage[i], c->coverage[tiles.size() - 1 - i]);
    }
    EXPECT_EQ(a->total.cells, c->total.cells);
    EXPECT_NEAR(a->total.squareMetres, c->total.squareMetres, 1e-9 * a->total.squareMetres);
    // A different scene seed changes the random parts.
    ComposeOptions other = one;
    other.seed = 43;
    const Result<ComposeResult> d = compose(layers, tiles, expr, other);
    ASSERT_TRUE(d.ok());
    EXPECT_NE(a->masks[0], d->masks[0]);
}

}  // namespace
}  // namespace terrabit::test
