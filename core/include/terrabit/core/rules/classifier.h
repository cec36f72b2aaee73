#pragma once
/// Sorting features into layers by a RuleSet, and deriving the sea when the rules ask for it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "terrabit/core/map/feature.h"
#include "terrabit/core/map/map_data.h"
#include "terrabit/core/rules/rule_set.h"

namespace terrabit::core {

/// One feature drawn into one layer.
struct LayerEntry {
    const Feature* feature = nullptr;  ///< into MapData::features or ClassifiedMap::derived
    std::uint16_t layer = 0;           ///< layer id: the class layer when a class matched
    float sizeMetres = 0.0f;           ///< Line: full width; Point: disk radius; Area: unused
};

/// The features of a map sorted into the layers of a rule set. Holds pointers into the MapData
/// it was made from, which must outlive it.
struct ClassifiedMap {
    std::vector<LayerInfo> layers;    ///< the rule set's layers, in id order
    std::vector<LayerEntry> entries;  ///< in feature order; a feature may be in several layers
    std::vector<Feature> derived;     ///< features made here (the sea); entries point into it
    /// Crossings mapped as nodes (points tagged highway=crossing), whichever layer takes them:
    /// the road markings paint the marked ones across the road they lie on. In map order.
    std::vector<const Feature*> crossings;
    /// Features drawn into each layer, by layer id. A parent counts the features of all its
    /// classes; the sea counts as one feature.
    std::vector<std::size_t> featureCounts;
    std::size_t unclassified = 0;  ///< features that no layer took
    Box2 extent;                   ///< the map's extent, EPSG:3857 metres
    std::string source;            ///< the map's source, for messages
    /// Notes on the result, each naming the source: layers no feature matched, coastline trouble.
    std::vector<std::string> warnings;
};

/// Classifies every feature of `map` by `rules`. For each top-level layer in order, a feature
/// goes to the first class that matches it, or else to the layer itself when one of the layer's
/// own matchers holds; so it lands in at most one class of each layer but may be in several
/// layers. Line widths and point radii come from the rule that took the feature. When a layer
/// has `sea: true`, the sea is built from the coastlines (buildSea) and added to it.
ClassifiedMap classify(const MapData& map, const RuleSet& rules);
/// A temporary map would leave the entries' feature pointers dangling: refused at compile time.
ClassifiedMap classify(MapData&& map, const RuleSet& rules) = delete;

}  // namespace terrabit::core
