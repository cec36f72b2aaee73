// Matching models to target boxes: tightest fit, the 90° case, margins and scale limits, and the
// seeded choice among near-equal fits — checked against a plain enumeration.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "placement_test_support.h"
#include "terrabit/core/placement/model_matcher.h"
#include "terrabit/core/placement/placement_hash.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

std::vector<int> allBuildings(const AssetCatalogue& c) {
    std::vector<int> out;
    for (const AssetInfo* a : c.ofCategory("building")) out.push_back(static_cast<int>(a - c.assets().data()));
    return out;
}

int indexOf(const AssetCatalogue& c, std::string_view id) { return static_cast<int>(c.find(id) - c.assets().data()); }

TEST(ModelMatcher, TightestFitComesFirst) {
    const AssetCatalogue c = testCatalogue();
    const ModelMatcher matcher(c, FitOptions{});
    std::vector<ModelFit> fits;
    matcher.fits(10.5, 10.5, allBuildings(c), fits);
    ASSERT_FALSE(fits.empty());
    EXPECT_EQ(fits.front().asset, indexOf(c, "box_10x10"));
    EXPECT_NEAR(fits.front().leftover, 10.5 * 10.5 - 100.0, 1e-9);
    for (std::size_t i = 1; i < fits.size(); ++i) EXPECT_LE(fits[i - 1].leftover, fits[i].leftover);
    // box_20x8 and box_6x12 fit neither way; the rest fit both ways.
    for (const ModelFit& f : fits) {
        EXPECT_NE(f.asset, indexOf(c, "box_20x8"));
        EXPECT_NE(f.asset, indexOf(c, "box_6x12"));
    }
}

TEST(ModelMatcher, ModelTurned90DegreesFitsWhereItOtherwiseWouldNot) {
    const AssetCatalogue c = testCatalogue();
    const ModelMatcher matcher(c, FitOptions{});
    std::vector<ModelFit> fits;
    // A box 8.5 wide and 20.5 deep: box_20x8 fits only turned (its 20 m width along the depth).
    matcher.fits(8.5, 20.5, allBuildings(c), fits);
    ASSERT_FALSE(fits.empty());
    EXPECT_EQ(fits.front().asset, indexOf(c, "box_20x8"));
    EXPECT_TRUE(fits.front().turned);
    const auto unturned = std::find_if(
        fits.begin(), fits.end(), [&](const ModelFit& f) { return f.asset == indexOf(c, "box_20x8") && !f.turned; });
    EXPECT_EQ(unturned, fits.end());
}

TEST(ModelMatcher, MarginAndScaleLimitsDecideWhatFits) {
    const AssetCatalogue c = testCatalogue();
    const std::vector<int> tenByTen{indexOf(c, "box_10x10")};
    std::vector<ModelFit> fits;
    ModelMatcher(c, FitOptions{0.5, 1.0, 1.0, 0.0}).fits(10.8, 10.8, tenByTen, fits);
    EXPECT_TRUE(fits.empty()) << "10 m does not fit 10.8 m less 0.5 m each side";
    ModelMatcher(c, FitOptions{0.5, 0.9, 1.0, 0.0}).fits(10.8, 10.8, tenByTen, fits);
    ASSERT_EQ(fits.size(), 2u) << "shrunk to 0.98 it fits, both ways";
    EXPECT_NEAR(fits[0].scale, 0.98, 1e-12);
    ModelMatcher(c, FitOptions{0.0, 1.0, 1.2, 0.0}).fits(15.0, 30.0, tenByTen, fits);
    ASSERT_FALSE(fits.empty());
    EXPECT_NEAR(fits[0].scale, 1.2, 1e-12) << "scaled up to the limit, not to fill the box";
    ModelMatcher(c, FitOptions{0.0, 1.0, 3.0, 0.0}).fits(15.0, 30.0, tenByTen, fits);
    EXPECT_NEAR(fits[0].scale, 1.5, 1e-12) << "scaled up until the narrow side is full";
}

TEST(ModelMatcher, AgreesWithAPlainEnumerationOnRandomBoxes) {
    const AssetCatalogue c = testCatalogue();
    const std::vector<int> all = allBuildings(c);
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> size(2, 40), margin(0, 1), lo(0.7, 1.0), hi(1.0, 2.0);
    std::vector<ModelFit> fits;
    for (int trial = 0; trial < 3000; ++trial) {
        const FitOptions o{margin(rng), lo(rng), hi(rng), 0.0};
        const double w = size(rng), d = size(rng);
        ModelMatcher(c, o).fits(w, d, all, fits);
        // Reference: every (asset, orientation) whose footprint at the smallest scale fits.
        std::size_t expected = 0;
        double best = std::numeric_limits<double>::infinity();
        for (const int i : all) {
            const AssetInfo& a = c.assets()[static_cast<std::size_t>(i)];
            for (const bool turned : {false, true}) {
                const double mw = turned ? a.footprint.depth : a.footprint.width;
                const double md = turned ? a.footprint.width : a.footprint.depth;
                if (mw * o.minScale > w - 2 * o.marginMetres || md * o.minScale > d - 2 * o.marginMetres) continue;
                ++expected;
                // The largest scale that still fits, by bisection on the fit test itself.
                const auto fitsAt = [&](double s) {
                    return mw * s <= w - 2 * o.marginMetres && md * s <= d - 2 * o.marginMetres;
                };
                double s = o.maxScale;
                if (!fitsAt(s)) {
                    double low = o.minScale, high = o.maxScale;
                    for (int k = 0; k < 60; ++k) (fitsAt((low + high) / 2) ? low : high) = (low + high) / 2;
                    s = low;
                }
                best = std::min(best, w * d - s * s * a.footprint.width * a.footprint.depth);
            }
        }
        ASSERT_EQ(fits.size(), expected) << "trial " << trial;
        if (expected) {
            ASSERT_NEAR(fits.front().leftover, best, 1e-6 * w * d) << "trial " << trial;
        }
        for (const ModelFit& f : fits) {
            const AssetInfo& a = c.assets()[static_cast<std::size_t>(f.asset)];
            const double mw = (f.turned ? a.footprint.depth : a.footprint.width) * f.scale;
            const double md = (f.turned ? a.footprint.width : a.footprint.depth) * f.scale;
            ASSERT_LE(mw, w - 2 * o.marginMetres + 1e-9);
            ASSERT_LE(md, d - 2 * o.marginMetres + 1e-9);
            ASSERT_GE(f.scale, o.minScale);
            ASSERT_LE(f.scale, o.maxScale);
        }
    }
}

TEST(ModelMatcher, VarietyDrawsAmongNearEqualFitsByWeight) {
    AssetCatalogue c = testCatalogue();
    // house_8x8 and temple_8x8 are equally tight in a 9 m box; tower_12x12 has weight 0.
    const std::vector<int> candidates{indexOf(c, "house_8x8"), indexOf(c, "temple_8x8"), indexOf(c, "small_4x4")};
    const ModelMatcher matcher(c, FitOptions{0.0, 1.0, 1.0, 0.05});
    std::map<int, int> firsts;
    std::vector<ModelFit> fits;
    for (std::uint64_t k = 0; k < 2000; ++k) {
        matcher.fits(9.0, 9.0, candidates, fits);
        matcher.chooseVariety(fits, 81.0, draw(k, 0));
        ++firsts[fits.front().asset];
        ASSERT_EQ(fits.size(), 6u) << "the pick moves a fit, it drops none";
    }
    EXPECT_EQ(firsts.count(indexOf(c, "small_4x4")), 0u) << "a much looser fit is never near-equal";
    EXPECT_NEAR(firsts[indexOf(c, "house_8x8")], 1000, 150);
    EXPECT_NEAR(firsts[indexOf(c, "temple_8x8")], 1000, 150);

    const std::vector<int> withZero{indexOf(c, "tower_12x12"), indexOf(c, "box_10x10")};
    const ModelMatcher loose(c, FitOptions{0.0, 1.0, 1.0, 1.0});
    for (std::uint64_t k = 0; k < 200; ++k) {
        loose.fits(12.5, 12.5, withZero, fits);
        loose.chooseVariety(fits, 12.5 * 12.5, draw(k, 0));
        ASSERT_EQ(fits.front().asset, indexOf(c, "box_10x10")) << "weight 0 is never drawn";
    }
}

}  // namespace
}  // namespace terrabit::test
