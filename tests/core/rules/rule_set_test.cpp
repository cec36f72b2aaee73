#include <gtest/gtest.h>

#include <string>

#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/rules/layer_name.h"
#include "terrabit/core/rules/rule_set.h"

using namespace terrabit::core;

namespace {

const std::string kDefaultRules = std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml";

Feature feature(FeatureKind kind, std::vector<Tag> tags, std::string layer = "lines") {
    Feature f;
    f.id = "w1";
    f.kind = kind;
    f.sourceLayer = std::move(layer);
    f.tags = std::move(tags);
    return f;
}

/// The error of parsing `text` (which must fail).
std::string errorOf(const std::string& text) {
    auto r = RuleSet::parse(text, "my.yaml");
    EXPECT_FALSE(r.ok()) << "parsed: " << text;
    return r.ok() ? std::string() : r.message();
}

}  // namespace

TEST(RuleSet, DefaultRulesLoadWithTheFourLayersAndVegetationClasses) {
    auto rules = RuleSet::load(kDefaultRules);
    ASSERT_TRUE(rules.ok()) << rules.message();
    const std::vector<std::string> expected{"water", "vegetation", "forest", "wood", "park",    "grass",
                                            "scrub", "garden",     "trees",  "road", "building"};
    EXPECT_EQ(rules->layerNames(), expected);
    const int vegetation = rules->layerId("vegetation");
    ASSERT_EQ(vegetation, 1);
    EXPECT_EQ(rules->layers()[1].info.classes, (std::vector<int>{2, 3, 4, 5, 6, 7, 8}));
    for (int c = 2; c <= 8; ++c) EXPECT_EQ(rules->layers()[static_cast<std::size_t>(c)].info.parent, vegetation);
    EXPECT_TRUE(rules->layers()[0].sea);
    EXPECT_TRUE(rules->wantsSea());
    EXPECT_EQ(rules->layerId("nothing"), -1);
}

TEST(RuleSet, DefaultRoadWidthsFollowTheHighwayClassAndTheWidthTagWins) {
    auto rules = RuleSet::load(kDefaultRules);
    ASSERT_TRUE(rules.ok()) << rules.message();
    const WidthRule& w = rules->layers()[static_cast<std::size_t>(rules->layerId("road"))].width;
    EXPECT_DOUBLE_EQ(w.widthOf(feature(FeatureKind::Line, {{"highway", "motorway"}})), 12.0);
    EXPECT_DOUBLE_EQ(w.widthOf(feature(FeatureKind::Line, {{"highway", "residential"}})), 6.0);
    EXPECT_DOUBLE_EQ(w.widthOf(feature(FeatureKind::Line, {{"highway", "footway"}})), 2.0);
    EXPECT_DOUBLE_EQ(w.widthOf(feature(FeatureKind::Line, {{"highway", "footway"}, {"width", "4.5"}})), 4.5);
    EXPECT_DOUBLE_EQ(w.widthOf(feature(FeatureKind::Line, {{"highway", "primary"}, {"width", "unknown"}})), 10.0);
    EXPECT_DOUBLE_EQ(w.widthOf(feature(FeatureKind::Line, {{"highway", "bus_guideway"}})), 3.0);  // default
    // Vector tiles name the class in `class`.
    EXPECT_DOUBLE_EQ(w.widthOf(feature(FeatureKind::Line, {{"class", "street"}}, "road")), 6.0);
}

TEST(RuleSet, MatchersCombineKindLayerTagsAndExceptions) {
    auto rules = RuleSet::load(kDefaultRules);
    ASSERT_TRUE(rules.ok()) << rules.message();
    const auto& building = rules->layers()[static_cast<std::size_t>(rules->layerId("building"))].match;
    auto matches = [&](const Feature& f) {
        for (const auto& m : building) {
            if (m.matches(f)) return true;
        }
        return false;
    };
    EXPECT_TRUE(matches(feature(FeatureKind::Area, {{"building", "yes"}}, "multipolygons")));
    EXPECT_FALSE(matches(feature(FeatureKind::Area, {{"building", "no"}}, "multipolygons")));
    EXPECT_FALSE(matches(feature(FeatureKind::Point, {{"building", "yes"}}, "points")));
    EXPECT_TRUE(matches(feature(FeatureKind::Area, {}, "building")));  // a vector tile's building layer
    EXPECT_FALSE(matches(feature(FeatureKind::Area, {{"amenity", "school"}}, "multipolygons")));
}

TEST(RuleSet, UsersCanAddLayersAndOtherSectionsAreLeftAlone) {
    const std::string text = R"(
version: 1
expressions:
  open_grass: grass & ~dilate(road, 2)
layers:
  - name: rail
    colour: "#8d6e63"
    coverage: conservative
    match:
      - {kind: line, tags: {railway: [rail, tram]}, except: {tunnel: "yes"}}
    width: {by: railway, values: {rail: 4, tram: 3}, default: 3}
  - name: sand
    match: [{kind: area, tags: {natural: [sand, beach]}}]
passes:
  - buildings
)";
    auto rules = RuleSet::parse(text, "mine.yaml");
    ASSERT_TRUE(rules.ok()) << rules.message();
    EXPECT_EQ(rules->layerNames(), (std::vector<std::string>{"rail", "sand"}));
    EXPECT_EQ(rules->otherSections(), (std::vector<std::string>{"expressions", "passes"}));
    const LayerRule& rail = rules->layers()[0];
    EXPECT_EQ(rail.info.coverage, Coverage::Conservative);
    EXPECT_EQ(rail.info.colour, (Rgb{0x8d, 0x6e, 0x63}));
    EXPECT_TRUE(rail.match[0].matches(feature(FeatureKind::Line, {{"railway", "tram"}})));
    EXPECT_FALSE(rail.match[0].matches(feature(FeatureKind::Line, {{"railway", "tram"}, {"tunnel", "yes"}})));
    EXPECT_DOUBLE_EQ(rail.width.widthOf(feature(FeatureKind::Line, {{"railway", "rail"}})), 4.0);
    EXPECT_FALSE(rules->wantsSea());
}

TEST(RuleSet, ClassesInheritTheirParentsWidthCoverageAndRadius) {
    const std::string text = R"(
layers:
  - name: green
    coverage: conservative
    point_radius: 3
    width: 5
    classes:
      - name: lawn
        match: [{tags: {landuse: grass}}]
      - name: hedge
        width: 1
        match: [{tags: {barrier: hedge}}]
)";
    auto rules = RuleSet::parse(text, "mine.yaml");
    ASSERT_TRUE(rules.ok()) << rules.message();
    const LayerRule& lawn = rules->layers()[1];
    const LayerRule& hedge = rules->layers()[2];
    EXPECT_EQ(lawn.info.coverage, Coverage::Conservative);
    EXPECT_DOUBLE_EQ(lawn.pointRadiusMetres, 3.0);
    EXPECT_DOUBLE_EQ(lawn.width.defaultMetres, 5.0);
    EXPECT_DOUBLE_EQ(hedge.width.defaultMetres, 1.0);
    EXPECT_EQ(hedge.info.parent, 0);
}

TEST(RuleSet, TypoInsideALayerNamesFileLineColumnAndKey) {
    const std::string text =
        "layers:\n"
        "  - name: building\n"
        "    mach:\n"
        "      - {tags: {building: \"*\"}}\n";
    const std::string e = errorOf(text);
    EXPECT_NE(e.find("my.yaml:3:5:"), std::string::npos) << e;
    EXPECT_NE(e.find("layers[0]"), std::string::npos) << e;
    EXPECT_NE(e.find("unknown key 'mach'"), std::string::npos) << e;
}

TEST(RuleSet, ATypoInATopLevelKeyIsNamedWithItsLine) {
    // `verison` was ignored (and `expresions` reported as an unknown layer in a pass).
    const std::string e = errorOf("verison: 1\nlayers:\n  - name: building\n    match: [{tags: {building: \"*\"}}]\n");
    EXPECT_NE(e.find("my.yaml:1:1: unknown key 'verison' (expected one of: version, layers, expressions, passes)"),
              std::string::npos)
        << e;
    EXPECT_NE(errorOf("layers:\n  - name: a\n    match: [{tags: {a: b}}]\nexpresions: {}\n")
                  .find("my.yaml:4:1: unknown key 'expresions'"),
              std::string::npos);
}

TEST(RuleSet, TypoInsideAMatcherOrClassIsFound) {
    std::string e = errorOf("layers:\n  - name: b\n    match:\n      - {kind: area, tag: {building: yes}}\n");
    EXPECT_NE(e.find("my.yaml:4:"), std::string::npos) << e;
    EXPECT_NE(e.find("layers[0].match[0]: unknown key 'tag'"), std::string::npos) << e;

    e = errorOf(
        "layers:\n  - name: v\n    classes:\n      - name: forest\n        colur: \"#00ff00\"\n"
        "        match: [{tags: {landuse: forest}}]\n");
    EXPECT_NE(e.find("my.yaml:5:9:"), std::string::npos) << e;
    EXPECT_NE(e.find("layers[0].classes[0]: unknown key 'colur'"), std::string::npos) << e;
}

TEST(RuleSet, BadValuesAreNamedWithTheirKeyPath) {
    EXPECT_NE(errorOf("layers:\n  - name: b\n    coverage: fuzzy\n    match: [{kind: area}]\n")
                  .find("my.yaml:3:15: layers[0].coverage: expected 'centre' or 'conservative'"),
              std::string::npos);
    EXPECT_NE(errorOf("layers:\n  - name: b\n    match: [{kind: polygon}]\n").find("expected point, line or area"),
              std::string::npos);
    EXPECT_NE(errorOf("layers:\n  - name: r\n    match: [{kind: line}]\n    width: {default: -2}\n")
                  .find("layers[0].width.default: expected a positive number"),
              std::string::npos);
    EXPECT_NE(errorOf("layers:\n  - name: r\n    colour: green\n    match: [{kind: line}]\n")
                  .find("layers[0].colour: expected a colour"),
              std::string::npos);
    EXPECT_NE(
        errorOf("layers:\n  - name: r\n    match: [{kind: line}]\n    width: {values: {a: 1}}\n").find("needs 'by:'"),
        std::string::npos);
}

TEST(RuleSet, StructuralMistakesAreReported) {
    EXPECT_NE(errorOf("version: 1\n").find("no 'layers:' section"), std::string::npos);
    EXPECT_NE(errorOf("version: 2\nlayers: []\n").find("only version 1"), std::string::npos);
    EXPECT_NE(errorOf("layers:\n  - name: a\n    match: [{kind: area}]\n  - name: a\n    match: [{kind: line}]\n")
                  .find("my.yaml:4:11: layers[1].name: a layer or class named 'a' already exists"),
              std::string::npos);
    EXPECT_NE(errorOf("layers:\n  - name: empty\n").find("nothing can go into it"), std::string::npos);
    EXPECT_NE(errorOf("layers:\n  - name: 2fast\n    match: [{kind: area}]\n").find("is not a layer name"),
              std::string::npos);
    EXPECT_NE(errorOf("layers:\n  - name: a\n    match: [{}]\n").find("an empty matcher"), std::string::npos);
}

TEST(RuleSet, InvalidYamlGivesTheLine) {
    const std::string e = errorOf("layers:\n  - name: a\n    match: [{kind: area}\n");
    EXPECT_NE(e.find("my.yaml:"), std::string::npos) << e;
    EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
}

TEST(RuleSet, MissingFileIsNamed) {
    auto r = RuleSet::load("/nonexistent/rules.yaml");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("/nonexistent/rules.yaml"), std::string::npos);
}

TEST(ParseRgb, AcceptsHexColoursOnly) {
    EXPECT_EQ(parseRgb("#0a1B2c"), (Rgb{0x0a, 0x1b, 0x2c}));
    EXPECT_EQ(parseRgb("ffffff"), (Rgb{255, 255, 255}));
    EXPECT_FALSE(parseRgb("#fff"));
    EXPECT_FALSE(parseRgb("#gg0000"));
}

// Regression: the layer-name rule was written four times and disagreed with itself (the rules
// and expressions took capitals, the project file and the app refused them). It is one rule
// now (rules/layer_name.h), and the rules and the expression language agree on every name.
TEST(LayerName, TheRulesAndTheExpressionsTakeTheSameNames) {
    for (const std::string name : {"Forest_2", "_hidden", "road", "B"}) {
        EXPECT_TRUE(isLayerName(name)) << name;
        const auto rules = RuleSet::parse("layers:\n  - name: " + name + "\n    match: [{kind: area}]\n", "my.yaml");
        EXPECT_TRUE(rules.ok()) << name << ": " << rules.message();
        const auto ast = algebra::ExpressionAst::parse(name, {name});
        EXPECT_TRUE(ast.ok()) << name << ": " << ast.message();
    }
    for (const std::string name : {"2fast", "a-b", "x y", "caf\xc3\xa9"}) {
        EXPECT_FALSE(isLayerName(name)) << name;
        EXPECT_NE(errorOf("layers:\n  - name: \"" + name + "\"\n    match: [{kind: area}]\n")
                      .find("is not a layer name (" + std::string(kLayerNameRule) + ")"),
                  std::string::npos)
            << name;
    }
    EXPECT_FALSE(isLayerName(""));
}
