#include "terrabit/core/placement/model_matcher.h"

#include <algorithm>
#include <cmath>

#include "terrabit/core/placement/placement_hash.h"

namespace terrabit::core::placement {

ModelMatcher::ModelMatcher(const AssetCatalogue& catalogue, FitOptions options)
    : mCatalogue(&catalogue), mOptions(options) {}

void ModelMatcher::fits(double boxWidth, double boxDepth, std::span<const int> assets,
                        std::vector<ModelFit>& out) const {
    out.clear();
    const double availW = boxWidth - 2.0 * mOptions.marginMetres;
    const double availD = boxDepth - 2.0 * mOptions.marginMetres;
    if (!(availW > 0.0) || !(availD > 0.0)) return;
    const double boxArea = boxWidth * boxDepth;
    const auto all = mCatalogue->assets();
    for (const int index : assets) {
        if (index < 0 || static_cast<std::size_t>(index) >= all.size()) continue;
        const AssetFootprint f = all[static_cast<std::size_t>(index)].footprint;
        if (!(f.width > 0.0) || !(f.depth > 0.0)) continue;
        for (const bool turned : {false, true}) {
            const double mw = turned ? f.depth : f.width;  // along the box's width
            const double md = turned ? f.width : f.depth;  // along the box's depth
            // Each axis as far as the box and maxScale allow, then the larger one brought within
            // `stretch` of the smaller.
            double sw = std::min(availW / mw, mOptions.maxScale);
            double sd = std::min(availD / md, mOptions.maxScale);
            const double ratio = 1.0 + std::max(0.0, mOptions.stretch);
            sw = std::min(sw, sd * ratio);
            sd = std::min(sd, sw * ratio);
            if (std::min(sw, sd) < mOptions.minScale) continue;
            const double leftover = std::max(0.0, boxArea - sw * mw * sd * md);
            // The model's own axes: turned, its width runs along the box's depth.
            out.push_back({index, turned, turned ? sd : sw, turned ? sw : sd, leftover});
        }
    }
    // Stable: equal leftovers keep the assets' order, unturned first.
    std::stable_sort(out.begin(), out.end(),
                     [](const ModelFit& a, const ModelFit& b) { return a.leftover < b.leftover; });
}

void ModelMatcher::chooseVariety(std::vector<ModelFit>& fits, double boxArea, std::uint64_t word) const {
    if (fits.size() < 2 || !(mOptions.variety > 0.0)) return;
    const double limit = fits.front().leftover + mOptions.variety * boxArea;
    std::size_t group = 1;
    while (group < fits.size() && fits[group].leftover <= limit) ++group;
    if (group < 2) return;

    // Each distinct asset of the group once (at its tightest pose), drawn by catalogue weight.
    const auto all = mCatalogue->assets();
    const auto firstOfAsset = [&](std::size_t i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (fits[j].asset == fits[i].asset) return false;
        }
        return true;
    };
    double total = 0.0;
    for (std::size_t i = 0; i < group; ++i) {
        if (firstOfAsset(i)) total += std::max(0.0, all[static_cast<std::size_t>(fits[i].asset)].weight);
    }
    if (!(total > 0.0)) return;
    const double target = unitInterval(word) * total;
    double sum = 0.0;
    std::size_t chosen = 0;
    for (std::size_t i = 0; i < group; ++i) {
        if (!firstOfAsset(i)) continue;
        const double w = std::max(0.0, all[static_cast<std::size_t>(fits[i].asset)].weight);
        if (w <= 0.0) continue;
        chosen = i;
        sum += w;
        if (target < sum) break;
    }
    std::rotate(fits.begin(), fits.begin() + static_cast<std::ptrdiff_t>(chosen),
                fits.begin() + static_cast<std::ptrdiff_t>(chosen) + 1);
}

}  // namespace terrabit::core::placement
