#pragma once
/// RuleSet: the classification rules a designer edits (resources/rules/default.yaml): which map
/// features go into which bit layer, with line widths and point radii in metres.
///
/// The document is YAML. This module owns its `version` and `layers` sections and checks them
/// against a schema on load: a typo names the file, line, column and key. Other top-level
/// sections (`expressions:`, `passes:`…) belong to other modules and are left alone.
///
///   layers:
///     - name: road                       # layer id = position in this list (classes follow
///       colour: "#6b6b6b"                #   their layer directly)
///       coverage: centre                 # or conservative (every touched cell)
///       match:                           # a feature belongs when any matcher holds
///         - kind: [line, area]           # point | line | area (default: any)
///           layer: [lines, road]         # source layer names (default: any)
///           tags: {highway: "*"}         # every condition must hold: "*" any value, a value, a list
///           except: {highway: [proposed]}  # none of these may hold
///       width: {tag: width, by: [highway, class], values: {motorway: 12}, default: 3}   # metres
///       point_radius: 1.5                # metres, for point features
///       sea: true                        # the sea derived from coastlines goes here too
///     - name: vegetation
///       classes:                         # each class is a layer of its own, listed right after
///         - name: forest                 #   its parent; the parent is their union. A feature
///           match: [...]                 #   goes to the first class that matches.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "terrabit/core/colour.h"
#include "terrabit/core/map/feature.h"
#include "terrabit/core/raster/rasterizer.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

/// One condition on a tag: the feature has the key, with any value (values empty) or with one of
/// the values.
struct TagCondition {
    std::string key;
    std::vector<std::string> values;

    bool holds(const Feature& f) const;
};

/// One way into a layer: every condition must hold.
struct FeatureMatcher {
    std::uint8_t kinds = 0b111;             ///< bit (1 << FeatureKind) set for each allowed kind
    std::vector<std::string> sourceLayers;  ///< allowed source layers; empty: any
    std::vector<TagCondition> tags;         ///< all must hold
    std::vector<TagCondition> except;       ///< none may hold

    bool matches(const Feature& f) const;
};

/// A line's width in metres from its tags.
struct WidthRule {
    std::string fromTag;                                 ///< a tag (e.g. "width") whose metres win; "" none
    std::vector<std::string> byKeys;                     ///< tags whose value is looked up in `values`
    std::vector<std::pair<std::string, double>> values;  ///< tag value -> width, metres
    double defaultMetres = 1.0;                          ///< when nothing else applies, metres

    /// The width of f in metres: its `fromTag` if that is a positive length, else the entry of
    /// the first `byKeys` tag present in `values`, else defaultMetres.
    double widthOf(const Feature& f) const;
};

/// What every consumer of a layer needs to know about it, without its rules.
struct LayerInfo {
    std::string name;                          ///< unique; a layer name (rules/layer_name.h)
    Rgb colour;                                ///< preview colour
    Coverage coverage = Coverage::CellCentre;  ///< how features are burnt into cells
    int parent = -1;                           ///< for a class layer: its parent layer's id
    std::vector<int> classes;                  ///< for a parent layer: its class layers' ids
};

/// A layer with its rules.
struct LayerRule {
    LayerInfo info;
    std::vector<FeatureMatcher> match;  ///< any one suffices
    WidthRule width;                    ///< for line features
    double pointRadiusMetres = 0.0;     ///< for point features (0: the point's own cell)
    bool sea = false;                   ///< the derived sea is drawn into this layer
    int line = 0;                       ///< where the layer (or class) is defined, 1-based
};

class RuleSet {
public:
    /// An empty rule set (no layers).
    RuleSet() = default;

    /// Parses and checks a rules document. `sourceName` names it in errors ("default.yaml").
    /// Errors read "<source>:<line>:<column>: <path>: <problem>", e.g.
    /// "rules.yaml:14:9: layers[1].classes[0]: unknown key 'mach' (expected one of: name, …)".
    static Result<RuleSet> parse(std::string_view text, std::string_view sourceName);
    /// Reads and parses a rules file; an error names the file when it cannot be read.
    static Result<RuleSet> load(const std::filesystem::path& file);

    /// Every layer in id order: each top-level layer followed by its classes.
    const std::vector<LayerRule>& layers() const { return mLayers; }
    /// The layers without their rules, in id order.
    std::vector<LayerInfo> layerInfos() const;
    /// Layer names in id order.
    std::vector<std::string> layerNames() const;
    /// The id of a named layer, or -1.
    int layerId(std::string_view name) const;
    /// The document's name as given to parse (or the file's path).
    const std::string& source() const { return mSource; }
    /// Top-level sections this module does not own, left for others (in document order).
    const std::vector<std::string>& otherSections() const { return mOtherSections; }
    /// True when some layer wants the derived sea.
    bool wantsSea() const;

private:
    friend class RulesParser;
    std::string mSource;
    std::vector<LayerRule> mLayers;
    std::vector<std::string> mOtherSections;
};

/// Parses "#rrggbb" (or "rrggbb"); nothing for anything else.
std::optional<Rgb> parseRgb(std::string_view text);

}  // namespace terrabit::core
