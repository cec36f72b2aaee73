#include "terrabit/core/placement/rule_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <type_traits>

#include "../rules/yaml_document_p.h"
#include "rule_schema_p.h"

namespace terrabit::core::placement {

namespace {

// -- where values live --------------------------------------------------------------------------

/// obj.*m1.*m2…: the field a chain of member pointers names.
template <auto... Members, class T>
auto& fieldOf(T& obj) {
    return (obj.*....*Members);
}

/// A field of the pass (through PassRule members).
template <class V, auto... Members>
ParamValue getPass(const PassRule& p, const VegetationClassRule*) {
    return ParamValue(V(fieldOf<Members...>(p)));
}
template <class V, auto... Members>
void setPass(PassRule& p, VegetationClassRule*, const ParamValue& v) {
    fieldOf<Members...>(p) = std::get<V>(v);
}
/// A field of a vegetation class.
template <class V, auto Member>
ParamValue getClass(const PassRule&, const VegetationClassRule* c) {
    return ParamValue(V(c->*Member));
}
template <class V, auto Member>
void setClass(PassRule&, VegetationClassRule* c, const ParamValue& v) {
    c->*Member = std::get<V>(v);
}

/// An enum field written as one word of `words` (in the enum's order).
template <auto Words, auto... Members>
ParamValue getChoice(const PassRule& p, const VegetationClassRule*) {
    return ParamValue(std::string((*Words)[static_cast<std::size_t>(fieldOf<Members...>(p))]));
}
template <auto Words, auto... Members>
void setChoice(PassRule& p, VegetationClassRule*, const ParamValue& v) {
    const auto& words = *Words;
    const auto it = std::find(std::begin(words), std::end(words), std::get<std::string>(v));
    using E = std::remove_reference_t<decltype(fieldOf<Members...>(p))>;
    fieldOf<Members...>(p) = static_cast<E>(it - std::begin(words));
}

constexpr PassKind kBuildings[] = {PassKind::Buildings};
constexpr PassKind kSurface[] = {PassKind::Surface};
constexpr PassKind kVegetation[] = {PassKind::Vegetation};

// Choice words, in the order of their enum's values.
constexpr std::string_view kBoxWords[] = {"oriented", "axis_aligned"};
constexpr std::string_view kHeightWords[] = {"tags", "model"};
constexpr std::string_view kScatterWords[] = {"random", "noise"};
constexpr std::string_view kFallbackWords[] = {"generate", "shrink", "none"};
constexpr std::string_view kMarkingWords[] = {"none", "lanes"};
static_assert(static_cast<int>(TargetBoxKind::AxisAligned) == 1 && static_cast<int>(HeightSource::Model) == 1 &&
              static_cast<int>(ScatterKind::Noise) == 1 && static_cast<int>(FallbackKind::Shrink) == 1 &&
              static_cast<int>(FallbackKind::None) == 2);

ParamValue getFitScale(const PassRule& p, const VegetationClassRule*) {
    return ScaleRange{p.buildings.fit.minScale, p.buildings.fit.maxScale};
}
void setFitScale(PassRule& p, VegetationClassRule*, const ParamValue& v) {
    const auto& r = std::get<ScaleRange>(v);
    p.buildings.fit.minScale = r.min;
    p.buildings.fit.maxScale = r.max;
}
ParamValue getClassScale(const PassRule&, const VegetationClassRule* c) { return ScaleRange{c->minScale, c->maxScale}; }
void setClassScale(PassRule&, VegetationClassRule* c, const ParamValue& v) {
    const auto& r = std::get<ScaleRange>(v);
    c->minScale = r.min;
    c->maxScale = r.max;
}
ParamValue getColour(const PassRule& p, const VegetationClassRule*) {
    const std::optional<Rgb>& c = p.surface.colour;
    if (!c) return std::string();
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c->r, c->g, c->b);
    return std::string(buf);
}
void setColour(PassRule& p, VegetationClassRule*, const ParamValue& v) {
    const std::string& text = std::get<std::string>(v);
    p.surface.colour = text.empty() ? std::nullopt : parseRgb(text);
}

// -- the declarations ---------------------------------------------------------------------------

using PR = PassRule;
using BR = BuildingPassRule;
using SR = SurfacePassRule;
using VR = VegetationPassRule;
using CR = VegetationClassRule;
using T = ParamType;
using S = ParamScope;

const ParamSpec kParams[] = {
    {.key = "seed",
     .type = T::Seed,
     .scope = S::Pass,
     .defaultValue = "0",
     .label = "Pass seed",
     .doc = "Mixed with the scene seed for this pass's random choices.",
     .get = getPass<std::uint64_t, &PR::seed>,
     .set = setPass<std::uint64_t, &PR::seed>},

    // buildings
    {.key = "layer",
     .type = T::Layer,
     .scope = S::Pass,
     .kinds = kBuildings,
     .defaultValue = "building",
     .editable = false,
     .label = "Layer",
     .doc = "Footprints: the area features of this layer and its classes.",
     .ui = {.shown = false},
     .get = getPass<std::string, &PR::buildings, &BR::layer>,
     .set = setPass<std::string, &PR::buildings, &BR::layer>},
    {.key = "box",
     .type = T::Choice,
     .scope = S::Pass,
     .kinds = kBuildings,
     .choices = kBoxWords,
     .defaultValue = "oriented",
     .label = "Target box",
     .doc = "The box a model must fit: the footprint's minimum-area oriented box, or its axis-aligned one.",
     .get = getChoice<&kBoxWords, &PR::buildings, &BR::box>,
     .set = setChoice<&kBoxWords, &PR::buildings, &BR::box>},
    {.key = "blocked_by",
     .type = T::Expression,
     .scope = S::Pass,
     .kinds = kBuildings,
     .defaultValue = "none",
     .label = "Blocked by",
     .doc = "Expression of the cells no model may touch.",
     .get = getPass<std::string, &PR::buildings, &BR::blockedBy>,
     .set = setPass<std::string, &PR::buildings, &BR::blockedBy>},
    {.key = "margin",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 0.0,
     .max = 1000.0,
     .unit = "m",
     .defaultValue = "0.4",
     .label = "Margin",
     .doc = "Clearance kept between a model and each side of its box.",
     .ui = {.min = 0.0, .max = 10.0},
     .get = getPass<double, &PR::buildings, &BR::fit, &FitOptions::marginMetres>,
     .set = setPass<double, &PR::buildings, &BR::fit, &FitOptions::marginMetres>},
    {.key = "scale",
     .type = T::ScaleRange,
     .scope = S::Pass,
     .kinds = kBuildings,
     .defaultValue = "[1, 1]",
     .label = "Scale",
     .doc = "Uniform scale range: a model shrinks to the first to fit and grows up to the second to fill.",
     .ui = {.min = 0.05, .max = 10.0, .step = 0.05},
     .get = getFitScale,
     .set = setFitScale},
    {.key = "variety",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 0.0,
     .max = 1.0,
     .defaultValue = "0.1",
     .label = "Variety",
     .doc = "Fits whose leftover is within this fraction of the box's area of the best are drawn by catalogue weight.",
     .ui = {.step = 0.01, .slider = true},
     .get = getPass<double, &PR::buildings, &BR::fit, &FitOptions::variety>,
     .set = setPass<double, &PR::buildings, &BR::fit, &FitOptions::variety>},
    {.key = "height",
     .type = T::Choice,
     .scope = S::Pass,
     .kinds = kBuildings,
     .choices = kHeightWords,
     .defaultValue = "tags",
     .label = "Height from",
     .doc = "tags: the height or building:levels × storey_height tags, else the model's; model: the model's own.",
     .get = getChoice<&kHeightWords, &PR::buildings, &BR::height>,
     .set = setChoice<&kHeightWords, &PR::buildings, &BR::height>},
    {.key = "storey_height",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 0.1,
     .max = 100.0,
     .unit = "m",
     .defaultValue = "3",
     .label = "Storey height",
     .doc = "Height of one building:levels storey.",
     .ui = {.min = 0.5, .max = 20.0},
     .get = getPass<double, &PR::buildings, &BR::storeyHeightMetres>,
     .set = setPass<double, &PR::buildings, &BR::storeyHeightMetres>},
    {.key = "max_ground_step",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 0.0,
     .max = 1000.0,
     .unit = "m",
     .defaultValue = "8",
     .label = "Largest ground step",
     .doc = "With a DEM: the largest height difference of the ground under a footprint; beyond it the building "
            "is blocked: slope.",
     .ui = {.min = 0.0, .max = 50.0},
     .get = getPass<double, &PR::buildings, &BR::maxGroundStepMetres>,
     .set = setPass<double, &PR::buildings, &BR::maxGroundStepMetres>},
    {.key = "tolerance",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 0.0,
     .max = 0.5,
     .defaultValue = "0.03",
     .label = "Tolerance",
     .doc = "Share of a model's cells that may lie outside its footprint's cells (where the outline cuts cells).",
     .ui = {.step = 0.01, .decimals = 3},
     .get = getPass<double, &PR::buildings, &BR::tolerance>,
     .set = setPass<double, &PR::buildings, &BR::tolerance>},
    {.key = "keep_off",
     .type = T::Expression,
     .scope = S::Pass,
     .kinds = kBuildings,
     .defaultValue = "none",
     .label = "Keep off",
     .doc = "Expression of the cells outside its own footprint no model may touch (roads, water, other footprints).",
     .get = getPass<std::string, &PR::buildings, &BR::keepOff>,
     .set = setPass<std::string, &PR::buildings, &BR::keepOff>},
    {.key = "stretch",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 0.0,
     .max = 1.0,
     .defaultValue = "0",
     .label = "Stretch",
     .doc = "How far apart a model's width and depth scales may be (0.15: up to 15 %); 0 scales uniformly.",
     .ui = {.step = 0.01, .slider = true},
     .get = getPass<double, &PR::buildings, &BR::fit, &FitOptions::stretch>,
     .set = setPass<double, &PR::buildings, &BR::fit, &FitOptions::stretch>},
    {.key = "max_models",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 1.0,
     .max = 32.0,
     .defaultValue = "4",
     .label = "Models per footprint",
     .doc = "Most prefabs in one footprint: after the first, more go into its still-free cells, largest first.",
     .ui = {.step = 1.0, .decimals = 0},
     .get = getPass<double, &PR::buildings, &BR::maxModels>,
     .set = setPass<double, &PR::buildings, &BR::maxModels>},
    {.key = "min_fill",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 0.0,
     .max = 1.0,
     .defaultValue = "0",
     .label = "Least fill",
     .doc = "Share of its footprint's cells the prefabs must cover; below it the generate fallback takes the "
            "footprint.",
     .ui = {.step = 0.05, .slider = true},
     .get = getPass<double, &PR::buildings, &BR::minFill>,
     .set = setPass<double, &PR::buildings, &BR::minFill>},
    {.key = "fallback",
     .type = T::Choice,
     .scope = S::Pass,
     .kinds = kBuildings,
     .choices = kFallbackWords,
     .defaultValue = "generate",
     .label = "Fallback",
     .doc = "Where no prefab fits: generate a building for the footprint, shrink the best prefab below its "
            "scale range, or none.",
     .get = getChoice<&kFallbackWords, &PR::buildings, &BR::fallback>,
     .set = setChoice<&kFallbackWords, &PR::buildings, &BR::fallback>},
    {.key = "wall_height",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kBuildings,
     .min = 1.0,
     .max = 500.0,
     .unit = "m",
     .defaultValue = "6",
     .label = "Generated wall height",
     .doc = "Wall height of a generated building whose tags (height, building:levels) give none.",
     .ui = {.min = 1.0, .max = 100.0, .step = 0.5, .decimals = 1},
     .get = getPass<double, &PR::buildings, &BR::wallHeightMetres>,
     .set = setPass<double, &PR::buildings, &BR::wallHeightMetres>},
    {.key = "category",
     .type = T::Text,
     .scope = S::Pass,
     .kinds = kBuildings,
     .defaultValue = "building",
     .label = "Category",
     .doc = "Catalogue category of the candidate models.",
     .ui = {.shown = false},
     .get = getPass<std::string, &PR::buildings, &BR::category>,
     .set = setPass<std::string, &PR::buildings, &BR::category>},

    // surface
    {.key = "layer",
     .type = T::Layer,
     .scope = S::Pass,
     .kinds = kSurface,
     .required = true,
     .editable = false,
     .label = "Layer",
     .doc = "The layer whose cells, per class, become the surface; names and colours come from it.",
     .ui = {.shown = false},
     .get = getPass<std::string, &PR::surface, &SR::layer>,
     .set = setPass<std::string, &PR::surface, &SR::layer>},
    {.key = "mask",
     .type = T::Expression,
     .scope = S::Pass,
     .kinds = kSurface,
     .label = "Mask",
     .doc = "Expression of the cells to cover; empty: the layer's.",
     .get = getPass<std::string, &PR::surface, &SR::mask>,
     .set = setPass<std::string, &PR::surface, &SR::mask>},
    {.key = "elevation",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kSurface,
     .min = -1000.0,
     .max = 1000.0,
     .unit = "m",
     .defaultValue = "0",
     .label = "Elevation",
     .doc = "Height of the surface above the ground.",
     .ui = {.min = -10.0, .max = 10.0, .step = 0.05},
     .get = getPass<double, &PR::surface, &SR::elevationMetres>,
     .set = setPass<double, &PR::surface, &SR::elevationMetres>},
    {.key = "max_road_grade",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kSurface,
     .min = 0.0,
     .max = 10.0,
     .defaultValue = "0.12",
     .label = "Steepest road grade",
     .doc = "With a DEM: the ground along roads is graded to rise at most this much per metre (0.12 = 12 %); the "
            "smallest value of the surface passes holds.",
     .ui = {.min = 0.0, .max = 1.0, .step = 0.01, .slider = true},
     .get = getPass<double, &PR::surface, &SR::maxRoadGrade>,
     .set = setPass<double, &PR::surface, &SR::maxRoadGrade>},
    {.key = "ground_error",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kSurface,
     .min = 0.0,
     .max = 1000.0,
     .unit = "m",
     .defaultValue = "0.5",
     .label = "Ground mesh error",
     .doc = "With a DEM: the ground mesh's vertical error bound; the smallest value of the surface passes holds "
            "(bake --ground-error overrides it).",
     .ui = {.min = 0.0, .max = 5.0, .step = 0.05},
     .get = getPass<double, &PR::surface, &SR::groundErrorMetres>,
     .set = setPass<double, &PR::surface, &SR::groundErrorMetres>},
    {.key = "colour",
     .type = T::Colour,
     .scope = S::Pass,
     .kinds = kSurface,
     .label = "Colour",
     .doc = "\"#rrggbb\" instead of the layers' colours; empty: the layers'.",
     .get = getColour,
     .set = setColour},
    {.key = "texture",
     .type = T::Choice,
     .scope = S::Pass,
     .kinds = kSurface,
     .choices = kSurfaceTextureWords,
     .defaultValue = "none",
     .label = "Texture",
     .doc = "The surface's look in the exports and the viewport: none (its colour), asphalt, paving, gravel or "
            "water, drawn in its colour and repeating on the ground.",
     .get = getChoice<&kSurfaceTextureWords, &PR::surface, &SR::texture>,
     .set = setChoice<&kSurfaceTextureWords, &PR::surface, &SR::texture>},
    {.key = "markings",
     .type = T::Choice,
     .scope = S::Pass,
     .kinds = kSurface,
     .choices = kMarkingWords,
     .defaultValue = "none",
     .label = "Markings",
     .doc = "What is painted on the surface in the exports and the viewport: none, or lanes (lane and edge lines and "
            "tagged sidewalks on kerbs, on ways at least 5.5 m wide, stopping short of junctions; paths and pedestrian "
            "squares paved and tracks gravelled; zebra bars where a marked crossing, a path or a node of the road, "
            "crosses a carriageway).",
     .get = getChoice<&kMarkingWords, &PR::surface, &SR::markings>,
     .set = setChoice<&kMarkingWords, &PR::surface, &SR::markings>},

    // vegetation
    {.key = "layer",
     .type = T::Layer,
     .scope = S::Pass,
     .kinds = kVegetation,
     .defaultValue = "vegetation",
     .editable = false,
     .label = "Layer",
     .doc = "The layer whose classes choose the species.",
     .ui = {.shown = false},
     .get = getPass<std::string, &PR::vegetation, &VR::layer>,
     .set = setPass<std::string, &PR::vegetation, &VR::layer>},
    {.key = "zone",
     .type = T::Expression,
     .scope = S::Pass,
     .kinds = kVegetation,
     .label = "Zone",
     .doc = "Expression of where plants may stand; empty: the layer.",
     .get = getPass<std::string, &PR::vegetation, &VR::zone>,
     .set = setPass<std::string, &PR::vegetation, &VR::zone>},
    {.key = "plant",
     .type = T::Expression,
     .scope = S::Pass,
     .kinds = kVegetation,
     .label = "Plant",
     .doc = "Expression of the cells to plant, instead of zone & class & scatter - avoid; empty: not used.",
     .ui = {.shown = false},
     .get = getPass<std::string, &PR::vegetation, &VR::plant>,
     .set = setPass<std::string, &PR::vegetation, &VR::plant>},
    {.key = "avoid",
     .type = T::Expression,
     .scope = S::ClassDefault,
     .kinds = kVegetation,
     .defaultValue = "none",
     .label = "Avoid",
     .doc = "Expression of the cells a class never takes.",
     .get = getClass<std::string, &CR::avoid>,
     .set = setClass<std::string, &CR::avoid>},
    {.key = "scatter",
     .type = T::Choice,
     .scope = S::Pass,
     .kinds = kVegetation,
     .choices = kScatterWords,
     .defaultValue = "random",
     .label = "Scatter",
     .doc = "random: each plantable cell independently, with probability density; noise: clumps covering about density "
            "of the ground.",
     .get = getChoice<&kScatterWords, &PR::vegetation, &VR::scatter>,
     .set = setChoice<&kScatterWords, &PR::vegetation, &VR::scatter>},
    {.key = "noise_scale",
     .type = T::Distance,
     .scope = S::Pass,
     .kinds = kVegetation,
     .defaultValue = "12",
     .label = "Noise scale",
     .doc = "With scatter: noise, the clump size: cells (12) or metres (12m).",
     .get = getPass<std::string, &PR::vegetation, &VR::noiseScale>,
     .set = setPass<std::string, &PR::vegetation, &VR::noiseScale>},
    {.key = "density",
     .type = T::Number,
     .scope = S::ClassDefault,
     .kinds = kVegetation,
     .min = 0.0,
     .max = 1.0,
     .defaultValue = "0.05",
     .label = "Density",
     .doc = "Instances per plantable cell.",
     .ui = {.step = 0.01, .decimals = 3, .slider = true},
     .get = getClass<double, &CR::density>,
     .set = setClass<double, &CR::density>},
    {.key = "jitter",
     .type = T::Number,
     .scope = S::ClassDefault,
     .kinds = kVegetation,
     .min = 0.0,
     .max = 1.0,
     .defaultValue = "0.8",
     .label = "Jitter",
     .doc = "Fraction of a cell a plant moves from the cell's centre.",
     .ui = {.step = 0.05},
     .get = getClass<double, &CR::jitter>,
     .set = setClass<double, &CR::jitter>},
    {.key = "scale",
     .type = T::ScaleRange,
     .scope = S::ClassDefault,
     .kinds = kVegetation,
     .defaultValue = "[0.8, 1.2]",
     .label = "Scale",
     .doc = "Uniform scale range a plant's size is drawn from.",
     .ui = {.min = 0.05, .max = 10.0, .step = 0.05},
     .get = getClassScale,
     .set = setClassScale},
    {.key = "spacing",
     .type = T::Number,
     .scope = S::Pass,
     .kinds = kVegetation,
     .min = 0.0,
     .max = 100.0,
     .unit = "m",
     .defaultValue = "0",
     .label = "Spacing",
     .doc = "No two plants of the pass closer than this.",
     .ui = {.step = 0.5, .decimals = 1},
     .get = getPass<double, &PR::vegetation, &VR::spacingMetres>,
     .set = setPass<double, &PR::vegetation, &VR::spacingMetres>},
    {.key = "species",
     .type = T::Species,
     .scope = S::Class,
     .kinds = kVegetation,
     .required = true,
     .label = "Species",
     .doc = "The catalogue assets a class plants, with their relative weights.",
     .get = getClass<std::vector<SpeciesWeight>, &CR::species>,
     .set = setClass<std::vector<SpeciesWeight>, &CR::species>},
};

// -- text ---------------------------------------------------------------------------------------

/// Shortest text that reads back as the same double.
std::string numberText(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string choiceList(std::span<const std::string_view> words) {
    std::string s;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) s += i + 1 == words.size() ? " or " : ", ";
        s += words[i];
    }
    return s;
}

bool isNumber(std::string_view s, double& v) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc{} && end == s.data() + s.size() && std::isfinite(v);
}

bool rawText(ParamType type) {
    return type != ParamType::Number && type != ParamType::ScaleRange && type != ParamType::Species;
}

}  // namespace

// -- reading ------------------------------------------------------------------------------------

namespace schema_detail {

using yaml_detail::typeName;

namespace {

[[noreturn]] void refuse(const YAML::Node& at, std::string subPath, std::string what) {
    throw ParamError{at.Mark(), std::move(subPath), std::move(what)};
}

std::string scalarOf(const YAML::Node& n, const std::string& subPath = {}) {
    if (!n.IsScalar()) refuse(n, subPath, "expected a single value, not a " + typeName(n));
    return n.Scalar();
}

double realOf(const YAML::Node& n, const std::string& subPath = {}) {
    const std::string s = scalarOf(n, subPath);
    double v = 0.0;
    if (!isNumber(s, v)) refuse(n, subPath, "expected a number, got '" + s + "'");
    return v;
}

/// Text read as is: checked as checkParam checks it.
ParamValue textValue(const ParamSpec& spec, const std::string& s, const YAML::Node& at) {
    ParamValue value = s;
    if (Status st = checkParam(spec, value); !st) refuse(at, {}, st.message() + ", got '" + s + "'");
    return value;
}

}  // namespace

ParamValue readParam(const ParamSpec& spec, const YAML::Node& n) {
    switch (spec.type) {
        case ParamType::Number: {
            const std::string s = scalarOf(n);
            double v = 0.0;
            if (!isNumber(s, v) || v < spec.min || v > spec.max) {
                refuse(n, {}, "expected " + expectedValue(spec) + ", got '" + s + "'");
            }
            return v;
        }
        case ParamType::ScaleRange: {
            if (n.IsScalar()) {
                const double v = realOf(n);
                if (!(v > 0.0)) refuse(n, {}, "expected a positive scale");
                return ScaleRange{v, v};
            }
            if (!n.IsSequence() || n.size() != 2) refuse(n, {}, "expected [min, max] or one number");
            const ScaleRange r{realOf(n[0], "[0]"), realOf(n[1], "[1]")};
            if (!(r.min > 0.0) || !(r.max >= r.min)) refuse(n, {}, "expected " + expectedValue(spec));
            return r;
        }
        case ParamType::Seed: {
            const std::string s = scalarOf(n);
            std::uint64_t v = 0;
            const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
            if (ec != std::errc{} || end != s.data() + s.size()) {
                refuse(n, {}, "expected " + expectedValue(spec) + ", got '" + s + "'");
            }
            return v;
        }
        case ParamType::Species: {
            if (!n.IsMap() || n.size() == 0) refuse(n, {}, "expected a map of asset id: weight");
            std::vector<SpeciesWeight> list;
            for (auto it = n.begin(); it != n.end(); ++it) {
                SpeciesWeight w;
                w.asset = scalarOf(it->first);
                w.line = it->first.Mark().line + 1;
                w.weight = realOf(it->second, "." + w.asset);
                if (!(w.weight > 0.0)) refuse(it->second, "." + w.asset, "the weight must be positive");
                list.push_back(std::move(w));
            }
            return list;
        }
        case ParamType::Choice:
        case ParamType::Colour:
        case ParamType::Expression:
        case ParamType::Text:
        case ParamType::Distance:
        case ParamType::Layer:
            return textValue(spec, scalarOf(n), n);
    }
    refuse(n, {}, "unknown parameter type");
}

}  // namespace schema_detail

// -- the schema's API ---------------------------------------------------------------------------

bool ParamSpec::appliesTo(PassKind kind) const {
    return kinds.empty() || std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

std::span<const ParamSpec> passParams() { return kParams; }

const ParamSpec* findParam(PassKind kind, std::string_view key, bool inClass) {
    for (const ParamSpec& p : kParams) {
        if (p.key != key || !p.appliesTo(kind)) continue;
        const bool fits = inClass ? p.scope != ParamScope::Pass : p.scope != ParamScope::Class;
        if (fits) return &p;
    }
    return nullptr;
}

std::vector<std::string_view> passKeys(PassKind kind) {
    std::vector<std::string_view> keys{"name", "type"};
    for (const ParamSpec& p : kParams) {
        if (p.appliesTo(kind) && p.scope != ParamScope::Class) keys.push_back(p.key);
    }
    if (kind == PassKind::Buildings) keys.push_back("filters");
    if (kind == PassKind::Vegetation) keys.push_back("classes");
    return keys;
}

std::vector<std::string_view> classKeys() {
    std::vector<std::string_view> keys;
    for (const ParamSpec& p : kParams) {
        if (p.scope != ParamScope::Pass) keys.push_back(p.key);
    }
    return keys;
}

Result<ParamValue> parseParam(const ParamSpec& spec, std::string_view text) {
    const std::string s(text);
    try {
        // Words, expressions and seeds are taken as typed (through YAML, "no" or "a: b" would
        // read as something else); numbers, ranges and species as YAML writes them.
        return schema_detail::readParam(spec, rawText(spec.type) ? YAML::Node(s) : YAML::Load(s));
    } catch (const schema_detail::ParamError&) {
    } catch (const YAML::Exception&) {
    }
    return Error{"expected " + expectedValue(spec) + ", got '" + s + "'"};
}

const Result<ParamValue>& defaultOf(const ParamSpec& spec) {
    static const std::vector<Result<ParamValue>> defaults = [] {
        std::vector<Result<ParamValue>> out;
        for (const ParamSpec& p : kParams) out.push_back(parseParam(p, p.defaultValue));
        return out;
    }();
    return defaults[static_cast<std::size_t>(&spec - kParams)];
}

std::string formatParam(const ParamSpec& spec, const ParamValue& value) {
    (void)spec;
    if (const double* v = std::get_if<double>(&value)) return numberText(*v);
    if (const ScaleRange* r = std::get_if<ScaleRange>(&value)) {
        return "[" + numberText(r->min) + ", " + numberText(r->max) + "]";
    }
    if (const std::uint64_t* seed = std::get_if<std::uint64_t>(&value)) return std::to_string(*seed);
    if (const auto* species = std::get_if<std::vector<SpeciesWeight>>(&value)) {
        std::string s = "{";
        for (std::size_t i = 0; i < species->size(); ++i) {
            // An asset id that is no plain word (a colon, a brace, a quote) is quoted, so the
            // text reads back as these species (found by the project fuzzer).
            s += (i ? ", " : "") + yaml_detail::yamlScalar((*species)[i].asset) + ": " +
                 numberText((*species)[i].weight);
        }
        return s + "}";
    }
    return std::get<std::string>(value);
}

std::optional<ParamProblem> paramProblem(const ParamSpec& spec, const ParamValue& value) {
    const auto expected = [&] { return ParamProblem{{}, "expected " + expectedValue(spec)}; };
    switch (spec.type) {
        case ParamType::Number: {
            const double v = std::get<double>(value);
            if (!(std::isfinite(v) && v >= spec.min && v <= spec.max)) {
                return ParamProblem{{}, "expected " + expectedValue(spec) + ", got " + numberText(v)};
            }
            return std::nullopt;
        }
        case ParamType::ScaleRange: {
            const ScaleRange& r = std::get<ScaleRange>(value);
            if (!(r.min > 0.0) || !(r.max >= r.min) || !std::isfinite(r.max)) return expected();
            return std::nullopt;
        }
        case ParamType::Species: {
            const auto& species = std::get<std::vector<SpeciesWeight>>(value);
            if (species.empty()) return ParamProblem{{}, "no species: give at least one asset id"};
            for (const SpeciesWeight& w : species) {
                if (!(w.weight > 0.0) || !std::isfinite(w.weight)) {
                    return ParamProblem{"." + w.asset, "the weight must be a positive number"};
                }
            }
            return std::nullopt;
        }
        case ParamType::Choice: {
            const std::string& s = std::get<std::string>(value);
            if (std::find(spec.choices.begin(), spec.choices.end(), s) == spec.choices.end()) return expected();
            return std::nullopt;
        }
        case ParamType::Colour: {
            const std::string& s = std::get<std::string>(value);
            if (!s.empty() && !parseRgb(s)) return expected();
            return std::nullopt;
        }
        case ParamType::Text:
        case ParamType::Seed:
        case ParamType::Expression:
        case ParamType::Distance:
        case ParamType::Layer:
            return std::nullopt;
    }
    return std::nullopt;
}

Status checkParam(const ParamSpec& spec, const ParamValue& value) {
    if (const std::optional<ParamProblem> p = paramProblem(spec, value)) return Error{p->message()};
    return Status::success();
}

std::string expectedValue(const ParamSpec& spec) {
    switch (spec.type) {
        case ParamType::Number:
            return "a number in " + numberText(spec.min) + ".." + numberText(spec.max);
        case ParamType::ScaleRange:
            return "[min, max] with 0 < min <= max";
        case ParamType::Seed:
            return "a whole number 0..18446744073709551615";
        case ParamType::Choice:
            return choiceList(spec.choices);
        case ParamType::Colour:
            return "a colour \"#rrggbb\"";
        case ParamType::Species:
            return "{asset: weight, …} with at least one asset and positive weights";
        case ParamType::Expression:
            return "a layer expression";
        case ParamType::Distance:
            return "a distance in cells (12) or metres (12m)";
        case ParamType::Layer:
            return "a layer name";
        case ParamType::Text:
            return "a single value";
    }
    return "a value";
}

std::string rulesKeyReference() {
    std::string out;
    const auto table = [&](std::string_view title, bool classTable, auto&& wanted) {
        out += std::string(title) + "\n\n| key | value | default | meaning |\n|---|---|---|---|\n";
        for (const ParamSpec& p : kParams) {
            if (!wanted(p)) continue;
            std::string value = expectedValue(p);
            if (!p.unit.empty()) value += ", " + std::string(p.unit);
            std::string def = p.required               ? "required"
                              : p.defaultValue.empty() ? "—"
                                                       : "`" + std::string(p.defaultValue) + "`";
            std::string doc(p.doc);
            if (p.scope == ParamScope::ClassDefault) {
                if (classTable) {
                    def = "the pass's";
                } else {
                    doc += " Each class may set its own.";
                }
            }
            out += "| `" + std::string(p.key) + "` | " + value + " | " + def + " | " + doc + " |\n";
        }
        out += "\n";
    };
    const PassKind kinds[] = {PassKind::Buildings, PassKind::Surface, PassKind::Vegetation};
    for (PassKind kind : kinds) {
        table(std::string("**`type: ") + passKindName(kind) + "`**", false,
              [&](const ParamSpec& p) { return p.appliesTo(kind) && p.scope != ParamScope::Class; });
    }
    table("**A vegetation class** (`classes: {<class layer>: {…}}`)", true,
          [](const ParamSpec& p) { return p.scope != ParamScope::Pass; });
    return out;
}

}  // namespace terrabit::core::placement
