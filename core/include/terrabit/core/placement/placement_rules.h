#pragma once
/// PlacementRules: the `expressions:` and `passes:` sections of the rules document (the same
/// YAML file whose `layers:` section RuleSet reads — one document per project). They say which
/// passes run in which order and with what parameters:
///
///   expressions:                     # named layer expressions every pass expression may use
///     non_plantable: "building | ((~vegetation) & road) | ((~vegetation) & water)"
///   passes:                          # run in this order
///     - name: buildings              # unique; also keys the pass's random choices
///       type: buildings              # buildings | surface | vegetation
///       layer: building              # … the pass type's keys
///       filters:                     # buildings: the first whose `when` holds chooses the models
///         - when: {historic: "*"}    #   tag conditions as in `layers:` (all must hold; absent: any)
///           any_tags: [ancient]      #   and/or all_tags, none_tags (catalogue style tags)
///     - name: vegetation
///       type: vegetation
///       layer: vegetation
///       classes:                     # vegetation: class layer -> its keys (others are not planted)
///         forest: {density: 0.12, species: {conifer_spruce: 3, broadleaf_oak: 1}}
///
/// Every key of a pass type and of a vegetation class — its value, range, unit, default and
/// meaning — is declared once, in the rules schema (rule_schema.h, the table in
/// core/src/placement/rule_schema.cpp); README.md's "Project and rules files" holds the key
/// reference made from it (rulesKeyReference(), kept equal by rule_schema_test), and
/// resources/rules/default.yaml sets them for the shipped rules. Only `name`, `type`, `filters`
/// and `classes` are structure this file reads itself.
///
/// Any class key (density, jitter, scale, avoid) falls back to the pass's. Errors name the file,
/// line, column and key: "default.yaml:120:18: passes[3].classes.forest.density: expected a
/// number in 0..1, got '2'". Expressions are checked against the layers and the layers
/// placement makes (placed_buildings, placed_vegetation).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/assets/surface_texture.h"
#include "terrabit/core/placement/model_matcher.h"
#include "terrabit/core/result.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/terrain/ground_grading.h"

namespace terrabit::core::placement {

/// The layer of every cell a placed building's footprint touches (the building pass writes it).
inline constexpr std::string_view kPlacedBuildingsLayer = "placed_buildings";
/// The layer of every cell holding a placed plant's trunk (vegetation passes write it).
inline constexpr std::string_view kPlacedVegetationLayer = "placed_vegetation";

enum class PassKind : std::uint8_t {
    Buildings,   ///< prefab models fitted into building footprints
    Surface,     ///< flat ground meshes (roads, water) as merged rectangles
    Vegetation,  ///< scattered trees, bushes and grass
};

/// "buildings", "surface" or "vegetation".
const char* passKindName(PassKind kind);

enum class TargetBoxKind : std::uint8_t {
    Oriented,     ///< the footprint's minimum-area oriented box
    AxisAligned,  ///< the footprint's axis-aligned box (east-west, north-south)
};

/// What a footprint that no prefab fills gets (BuildingPassRule::fallback).
enum class FallbackKind : std::uint8_t {
    Generate,  ///< a building made for the footprint itself (Scene::generated)
    Shrink,    ///< the best prefab, scaled below the scale range's minimum
    None,      ///< nothing: the footprint stays empty ("no model fits", "blocked")
};

enum class HeightSource : std::uint8_t {
    Tags,   ///< the building's height tag, or building:levels × storey height; else the model's
    Model,  ///< the model's own height (times its ground scale)
};

/// Which models a group of buildings may take.
struct ModelFilterRule {
    std::vector<TagCondition> when;  ///< every condition must hold on the building; empty: any building
    AssetFilter models;              ///< style tags the models must (not) carry; category is the pass's
    int line = 0;                    ///< where the filter is written, 1-based
};

struct BuildingPassRule {
    std::string layer = "building";  ///< footprints: the area features of this layer and its classes
    TargetBoxKind box = TargetBoxKind::Oriented;
    std::string blockedBy = "none";     ///< expression: cells no footprint may touch
    std::string category = "building";  ///< catalogue category of the candidate models
    FitOptions fit;                     ///< margin, scale range, variety
    HeightSource height = HeightSource::Tags;
    double storeyHeightMetres = 3.0;  ///< per building:levels, metres
    /// With terrain: the largest height difference of the ground under a placed footprint,
    /// metres; a building whose every clear fit stands on more is `blocked: slope`.
    double maxGroundStepMetres = 8.0;
    /// Share of a model's cells that may lie outside its footprint's cells, 0..0.5 (the boundary).
    double tolerance = 0.03;
    /// Expression of the cells outside its own footprint that no model may touch ("none":
    /// nothing beyond blocked_by); the default rules keep models off roads, water and other
    /// footprints.
    std::string keepOff = "none";
    /// Most prefabs placed in one footprint: the first, then more in its still-free cells (a
    /// count; a fraction is rounded down).
    double maxModels = 4.0;
    /// Share of its footprint's cells the prefabs placed in it must cover, 0..1; below it the
    /// `generate` fallback takes the footprint instead.
    double minFill = 0.0;
    FallbackKind fallback = FallbackKind::Generate;
    /// Wall height of a generated building whose tags give none, metres.
    double wallHeightMetres = 6.0;
    std::vector<ModelFilterRule> filters;  ///< the first whose `when` holds applies; none: any model
};

/// What a surface pass paints on its surface.
enum class RoadMarkingKind : std::uint8_t {
    None,   ///< nothing
    Lanes,  ///< a dashed centre line and edge lines on carriageways (placement/road_markings.h)
};

struct SurfacePassRule {
    std::string layer;             ///< the layer whose cells (per class) become patches
    std::string mask;              ///< expression of the cells to cover (empty: the layer itself)
    double elevationMetres = 0.0;  ///< height of the surface above the ground plane, metres
    /// With a DEM: the steepest grade the ground is graded to along roads (rise over run,
    /// terrain::kDefaultMaxRoadGrade by default; terrain/ground_grading.h). The Session grades
    /// every road to the smallest value of the rules' surface passes.
    double maxRoadGrade = terrain::kDefaultMaxRoadGrade;
    /// With a DEM: the ground mesh's vertical error bound, metres (terrain/ground_mesh.h). The
    /// Session meshes the ground within the smallest value of the rules' surface passes (the
    /// CLI's --ground-error overrides it).
    double groundErrorMetres = 0.5;
    std::optional<Rgb> colour;                         ///< overrides the layers' colours when set
    SurfaceTexture texture = SurfaceTexture::None;     ///< the look exports and the viewport give it
    RoadMarkingKind markings = RoadMarkingKind::None;  ///< lines painted on it (placement/road_markings.h)
};

/// A species and its relative weight within a vegetation class.
struct SpeciesWeight {
    std::string asset;    ///< catalogue id
    double weight = 1.0;  ///< > 0
    int line = 0;
};

struct VegetationClassRule {
    std::string layer;      ///< the class layer (a class of the pass's layer, or the layer itself)
    double density = 0.05;  ///< instances per plantable cell, 0..1
    double jitter = 0.8;    ///< the position moves up to jitter/2 of a cell from the centre on each axis, 0..1
    double minScale = 0.8;  ///< uniform scale range, > 0
    double maxScale = 1.2;
    std::string avoid;                   ///< expression of cells this class never takes ("none": nothing)
    std::vector<SpeciesWeight> species;  ///< at least one
    int line = 0;
};

enum class ScatterKind : std::uint8_t {
    Random,  ///< random(density): each plantable cell independently
    Noise,   ///< noise(noise_scale, density): clumps covering about `density` of the ground
};

struct VegetationPassRule {
    std::string layer = "vegetation";  ///< the layer whose classes choose species
    std::string zone;                  ///< expression: where plants may stand (empty: the layer)
    std::string plant;                 ///< expression replacing zone & scatter when not empty
    ScatterKind scatter = ScatterKind::Random;
    std::string noiseScale = "12";  ///< noise clump size as the expression language writes it ("12", "10m")
    double spacingMetres = 0.0;     ///< minimum distance between the pass's instances (0: none)
    std::vector<VegetationClassRule> classes;
};

/// One pass. Only the rule of its kind is meaningful.
struct PassRule {
    std::string name;  ///< unique; hashed into the pass's random choices
    PassKind kind = PassKind::Vegetation;
    std::uint64_t seed = 0;  ///< mixed with the scene seed
    int line = 0;            ///< where the pass is written, 1-based
    BuildingPassRule buildings;
    SurfacePassRule surface;
    VegetationPassRule vegetation;
};

/// A named expression of the `expressions:` section.
struct ExpressionRule {
    std::string name;
    std::string text;
    int line = 0;
};

class PlacementRules {
public:
    /// No expressions, no passes.
    PlacementRules() = default;

    /// Parses and checks the `expressions:` and `passes:` sections of a rules document against
    /// the document's layers (RuleSet::layerInfos()). Other sections are not looked at. A
    /// document without `passes:` is an error that says so. `sourceName` names it in errors.
    static Result<PlacementRules> parse(std::string_view text, std::string_view sourceName,
                                        const std::vector<LayerInfo>& layers);
    /// False only for a YAML map without a `passes:` key: a rules document that classifies
    /// layers but places nothing (parse() fails on it, saying so). True for anything else,
    /// including text that is not YAML at all (parse() says what is wrong).
    static bool declaresPasses(std::string_view text);
    /// Reads a rules file and parses it; the error names the file when it cannot be read.
    static Result<PlacementRules> load(const std::filesystem::path& file, const std::vector<LayerInfo>& layers);

    /// Checks rules built or edited in code as parse checks a document: unique pass names, known
    /// layers and classes, values in range, every expression compiling. Errors name the source,
    /// the pass's line and its key.
    Status check(const std::vector<LayerInfo>& layers) const;
    /// Checks that every species and every filter refers to something in the catalogue.
    Status checkCatalogue(const AssetCatalogue& catalogue) const;

    const std::vector<ExpressionRule>& expressions() const { return mExpressions; }
    std::vector<ExpressionRule>& expressions() { return mExpressions; }
    const std::vector<PassRule>& passes() const { return mPasses; }
    std::vector<PassRule>& passes() { return mPasses; }
    /// The document's name as given to parse.
    const std::string& source() const { return mSource; }
    void setSource(std::string source) { mSource = std::move(source); }

    /// The expression document to compile for one pass expression: every named expression as a
    /// definition, one per line, then the expression itself on the last line.
    std::string expressionDocument(std::string_view expression) const;
    /// The layer names pass expressions are compiled against: the map's layers in id order, then
    /// placed_buildings and placed_vegetation.
    static std::vector<std::string> expressionLayerNames(const std::vector<LayerInfo>& layers);

    /// A canonical one-line text of a pass's parameters (every parameter the rules schema
    /// declares, in its order, and the filters and classes): two passes with equal descriptions
    /// place the same things. Used for cache keys only; no output depends on the text.
    static std::string describe(const PassRule& pass);
    /// The same for one vegetation class (a pass's description holds its classes' ones).
    static std::string describeClass(const VegetationClassRule& rule);

private:
    friend class PassesParser;
    std::string mSource;
    std::vector<ExpressionRule> mExpressions;
    std::vector<PassRule> mPasses;
};

}  // namespace terrabit::core::placement
