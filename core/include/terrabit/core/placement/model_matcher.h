#pragma once
/// ModelMatcher: which prefab models fit a building's target box, tightest first.
///
/// A model fits when its footprint, scaled by some s in [minScale, maxScale] (its width and
/// depth by factors at most `stretch` apart), lies inside the box shrunk by the margin on every
/// side — as it is (its width along the box's width)
/// or turned 90° (its width along the box's depth). Each fitting pose is scaled up as far as the
/// box and maxScale allow. The fit's leftover is the box's area minus the scaled footprint's:
/// the tightest fit leaves the least.

#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"

namespace terrabit::core::placement {

/// How models are fitted into target boxes.
struct FitOptions {
    double marginMetres = 0.0;  ///< clearance kept between the model and each side of its box, metres
    double minScale = 1.0;      ///< smallest uniform scale (1: never shrunk), > 0
    double maxScale = 1.0;      ///< largest uniform scale used to fill the box (1: never enlarged), >= minScale
    /// Fits whose leftover exceeds the best one's by at most this fraction of the box's area are
    /// "near-equal" and chosen among by a seeded, weighted draw; 0 always takes the tightest.
    double variety = 0.0;
    /// How far apart a model's width and depth scales may be: their ratio stays within
    /// [1 / (1 + stretch), 1 + stretch]; 0 scales uniformly.
    double stretch = 0.0;
};

/// One way a model fits a box.
struct ModelFit {
    int asset = -1;           ///< index into the catalogue's assets()
    bool turned = false;      ///< turned 90°: the model's width (+X) runs along the box's depth
    double scale = 1.0;       ///< ground scale of the model's width (+X), minScale..maxScale
    double depthScale = 1.0;  ///< ground scale of the model's depth (+Z); equal to `scale` without stretch
    double leftover = 0.0;    ///< box area minus the scaled footprint's area, square metres (>= 0)
    /// Turned a further 180°: the same box, but a model whose ground outline is not symmetric
    /// (an L, a U) then has its wings on the other sides. The matcher never sets it.
    bool reversed = false;
};

class ModelMatcher {
public:
    /// A matcher over a catalogue, which must outlive it.
    ModelMatcher(const AssetCatalogue& catalogue, FitOptions options);

    const FitOptions& options() const { return mOptions; }

    /// Every fitting pose of the listed assets (catalogue indices) in a box of boxWidth ×
    /// boxDepth metres, tightest first; ties keep the assets' order, unturned before turned.
    /// Both poses of a square-ish model may fit; both are listed. `out` is overwritten; assets
    /// without a positive footprint never fit. Allocates only while `out` grows.
    void fits(double boxWidth, double boxDepth, std::span<const int> assets, std::vector<ModelFit>& out) const;

    /// Moves one of the near-equal best fits (see FitOptions::variety) to the front, leaving the
    /// others in order: an asset is drawn by its catalogue weight using `word` (a hash of the
    /// scene seed and the building), and its tightest pose goes first. With no near-equal
    /// alternative, or when every weight among them is 0, the order is left as it is.
    void chooseVariety(std::vector<ModelFit>& fits, double boxArea, std::uint64_t word) const;

private:
    const AssetCatalogue* mCatalogue;
    FitOptions mOptions;
};

}  // namespace terrabit::core::placement
