// The rules schema: every declared parameter's default parses and is what a pass gets when it
// leaves the key out; the rules file and the rule edits accept the same values and refuse the
// same ones with the same words; every editable parameter reads back what was written and
// changes its pass's cache-key description; and README.md's key reference is the schema's.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "placement_test_support.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/placement/rule_schema.h"
#include "terrabit/core/project/rule_edit.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

std::vector<LayerInfo> defaultLayers() {
    auto rules = RuleSet::parse(defaultRulesText(), "default.yaml");
    EXPECT_TRUE(rules.ok()) << rules.message();
    return rules.ok() ? rules->layerInfos() : std::vector<LayerInfo>{};
}

/// One pass of each type that writes nothing but what it must, over the default layers.
const char* kMinimal = R"(passes:
  - {name: b, type: buildings}
  - {name: s, type: surface, layer: water}
  - {name: v, type: vegetation, classes: {forest: {species: {palm: 1}}}}
)";

const char* passNameOf(PassKind kind) {
    return kind == PassKind::Buildings ? "b" : kind == PassKind::Surface ? "s" : "v";
}

std::string pathOf(const ParamSpec& spec, PassKind kind) {
    std::string path = "passes." + std::string(passNameOf(kind)) + ".";
    if (spec.scope == ParamScope::Class) path += "classes.forest.";
    return path + std::string(spec.key);
}

TEST(RuleSchema, EveryDefaultParsesAndIsWhatAPassGetsWithoutTheKey) {
    auto rules = PlacementRules::parse(kMinimal, "minimal.yaml", defaultLayers());
    ASSERT_TRUE(rules.ok()) << rules.message();
    int checked = 0;
    for (const ParamSpec& spec : passParams()) {
        if (spec.required) {
            EXPECT_TRUE(spec.defaultValue.empty()) << spec.key << ": a required key has no default";
            continue;
        }
        auto value = parseParam(spec, spec.defaultValue);
        ASSERT_TRUE(value.ok()) << spec.key << ": default '" << spec.defaultValue << "': " << value.message();
        EXPECT_TRUE(checkParam(spec, *value).ok()) << spec.key;
        if (spec.type == ParamType::Choice) {
            EXPECT_EQ(spec.defaultValue, spec.choices.front()) << spec.key;
        }
        for (PassKind kind : {PassKind::Buildings, PassKind::Surface, PassKind::Vegetation}) {
            if (!spec.appliesTo(kind)) continue;
            auto read = project::ruleValue(*rules, pathOf(spec, kind));
            ASSERT_TRUE(read.ok()) << read.message();
            EXPECT_EQ(*read, formatParam(spec, *value)) << pathOf(spec, kind);
            ++checked;
        }
    }
    EXPECT_GE(checked, 20);
}

TEST(RuleSchema, TheRoadGradeDefaultIsTheGradingsOne) {
    // max_road_grade's default is written as text in the schema's table and as
    // terrain::kDefaultMaxRoadGrade for rules made in code and the grading itself: one value.
    const ParamSpec* spec = findParam(PassKind::Surface, "max_road_grade");
    ASSERT_NE(spec, nullptr);
    ASSERT_TRUE(defaultOf(*spec).ok());
    EXPECT_EQ(std::get<double>(*defaultOf(*spec)), terrain::kDefaultMaxRoadGrade);
    EXPECT_EQ(SurfacePassRule{}.maxRoadGrade, terrain::kDefaultMaxRoadGrade);
    EXPECT_EQ(terrain::GradingOptions{}.maxRoadGrade, terrain::kDefaultMaxRoadGrade);
}

TEST(RuleSchema, EveryEditableParameterReadsBackWhatWasWritten) {
    auto rules = PlacementRules::parse(kMinimal, "minimal.yaml", defaultLayers());
    ASSERT_TRUE(rules.ok()) << rules.message();
    for (const ParamSpec& spec : passParams()) {
        for (PassKind kind : {PassKind::Buildings, PassKind::Surface, PassKind::Vegetation}) {
            if (!spec.appliesTo(kind)) continue;
            const std::string path = pathOf(spec, kind);
            if (!spec.editable) {
                EXPECT_FALSE(project::applyRuleEdit(*rules, {path, "x"}).ok()) << path << " is structural";
                continue;
            }
            // A value other than the default, of the parameter's type.
            std::string value;
            switch (spec.type) {
                case ParamType::Number:
                    value = formatParam(spec, (spec.min + spec.max) / 2.0 + 0.25);
                    break;
                case ParamType::ScaleRange:
                    value = "[0.7, 1.9]";
                    break;
                case ParamType::Seed:
                    value = "18446744073709551615";
                    break;
                case ParamType::Choice:
                    value = std::string(spec.choices.back());
                    break;
                case ParamType::Colour:
                    value = "#12ab9f";
                    break;
                case ParamType::Species:
                    value = "{palm: 2, broadleaf_oak: 0.5}";
                    break;
                case ParamType::Distance:
                    value = "8m";
                    break;
                default:
                    value = "water - road";
                    break;
            }
            const auto passOf = [&] {
                for (const PassRule& p : rules->passes())
                    if (p.kind == kind) return PlacementRules::describe(p);
                return std::string();
            };
            const std::string before = passOf();
            ASSERT_TRUE(project::applyRuleEdit(*rules, {path, value}).ok()) << path << " = " << value;
            EXPECT_NE(passOf(), before) << path << ": a changed value must change the pass's cache key";
            auto read = project::ruleValue(*rules, path);
            ASSERT_TRUE(read.ok()) << read.message();
            EXPECT_EQ(*read, value) << path;
            EXPECT_TRUE(rules->check(defaultLayers()).ok())
                << path << " = " << value << ": " << rules->check(defaultLayers()).message();
        }
    }
}

// Found by the project fuzzer: a species id holding ": " and a brace was written as it was,
// and the text ruleValue gave back read as other species (or none). Ids that are no plain
// word are quoted; plain ones are written as before.
TEST(RuleSchema, SpeciesWhoseIdsAreNoPlainWordsReadBackAsTheSameSpecies) {
    auto rules = PlacementRules::parse(kMinimal, "minimal.yaml", defaultLayers());
    ASSERT_TRUE(rules.ok()) << rules.message();
    const std::string path = "passes.v.classes.forest.species";
    for (const std::string& value : {std::string("{\"p:{alm 2, broadleaf_oak\": 1.5}"),
                                     std::string("{\"a \\\"b\\\"\": 1, \"#hash\": 2, \"yes\": 3, \"1st\": 4}"),
                                     std::string("{\"tab\\there\": 2}")}) {
        ASSERT_TRUE(project::applyRuleEdit(*rules, {path, value}).ok()) << value;
        auto read = project::ruleValue(*rules, path);
        ASSERT_TRUE(read.ok()) << read.message();
        const std::string before = PlacementRules::describe(rules->passes().back());
        ASSERT_TRUE(project::applyRuleEdit(*rules, {path, *read}).ok()) << *read;
        EXPECT_EQ(PlacementRules::describe(rules->passes().back()), before) << value << " read back as " << *read;
        auto again = project::ruleValue(*rules, path);
        ASSERT_TRUE(again.ok());
        EXPECT_EQ(*again, *read) << "writing is a fixed point";
    }
    ASSERT_TRUE(project::applyRuleEdit(*rules, {path, "{palm: 2, broadleaf_oak: 0.5}"}).ok());
    EXPECT_EQ(*project::ruleValue(*rules, path), "{palm: 2, broadleaf_oak: 0.5}");
}

TEST(RuleSchema, TheFileAndTheEditsRefuseTheSameValuesInTheSameWords) {
    auto rules = PlacementRules::parse(kMinimal, "minimal.yaml", defaultLayers());
    ASSERT_TRUE(rules.ok()) << rules.message();
    int numbers = 0;
    for (const ParamSpec& spec : passParams()) {
        if (spec.type != ParamType::Number) continue;
        for (PassKind kind : {PassKind::Buildings, PassKind::Surface, PassKind::Vegetation}) {
            if (!spec.appliesTo(kind)) continue;
            const std::string tooBig = formatParam(spec, spec.max + 1.0);
            const std::string expected = "expected a number in " + formatParam(spec, spec.min) + ".." +
                                         formatParam(spec, spec.max) + ", got '" + tooBig + "'";
            auto edit = project::applyRuleEdit(*rules, {pathOf(spec, kind), tooBig});
            ASSERT_FALSE(edit.ok()) << pathOf(spec, kind);
            EXPECT_EQ(edit.message(), pathOf(spec, kind) + ": " + expected);
            // The same value in the file.
            std::string text = kMinimal;
            const std::string head = std::string("{name: ") + passNameOf(kind) + ", ";
            text.replace(text.find(head), head.size(), head + std::string(spec.key) + ": " + tooBig + ", ");
            auto file = PlacementRules::parse(text, "file.yaml", defaultLayers());
            ASSERT_FALSE(file.ok()) << text;
            EXPECT_NE(file.message().find(std::string(spec.key) + ": " + expected), std::string::npos)
                << file.message();
            ++numbers;
        }
    }
    EXPECT_GE(numbers, 7);
}

TEST(RuleSchema, EveryDeclaredKeyIsAKnownKeyOfItsPassTypes) {
    for (PassKind kind : {PassKind::Buildings, PassKind::Surface, PassKind::Vegetation}) {
        const auto keys = passKeys(kind);
        for (const ParamSpec& spec : passParams()) {
            if (!spec.appliesTo(kind)) continue;
            const auto& list = spec.scope == ParamScope::Class ? classKeys() : keys;
            EXPECT_NE(std::find(list.begin(), list.end(), spec.key), list.end()) << spec.key;
            EXPECT_EQ(findParam(kind, spec.key, spec.scope == ParamScope::Class), &spec) << spec.key;
        }
    }
    EXPECT_EQ(findParam(PassKind::Surface, "density"), nullptr);
}

TEST(RuleSchema, TheReadmeKeyReferenceIsTheSchemas) {
    std::ifstream in(TERRABIT_SOURCE_DIR "/README.md");
    ASSERT_TRUE(in) << "README.md";
    std::ostringstream text;
    text << in.rdbuf();
    const std::string reference = rulesKeyReference();
    EXPECT_NE(text.str().find(reference), std::string::npos)
        << "README.md's pass key reference differs from the schema (core/src/placement/rule_schema.cpp); "
           "replace it with:\n"
        << reference;
}

}  // namespace
}  // namespace terrabit::test
