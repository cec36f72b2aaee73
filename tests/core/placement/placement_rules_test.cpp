// The passes section of the rules document: the shipped default, and errors that name the file,
// line, column and key.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "placement_test_support.h"
#include "terrabit/core/placement/placement_rules.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

std::vector<LayerInfo> syntheticLayers() {
    auto rules = RuleSet::parse(syntheticRules(""), "synthetic.yaml");
    EXPECT_TRUE(rules.ok()) << rules.message();
    return rules.ok() ? rules->layerInfos() : std::vector<LayerInfo>{};
}

/// The error of parsing the synthetic layers with this passes section.
std::string errorOf(const std::string& passes) {
    auto r = PlacementRules::parse(syntheticRules(passes), "rules.yaml", syntheticLayers());
    EXPECT_FALSE(r.ok()) << "expected an error for:\n" << passes;
    return r.ok() ? std::string() : r.message();
}

// The models the default building pass may give a building with these tags: the first filter
// whose `when` holds chooses them, as the building pass does.
std::set<std::string> modelsFor(const BuildingPassRule& rule, const AssetCatalogue& catalogue, std::vector<Tag> tags) {
    Feature f;
    f.tags = std::move(tags);
    AssetFilter filter;
    for (const ModelFilterRule& r : rule.filters) {
        if (std::all_of(r.when.begin(), r.when.end(), [&](const TagCondition& c) { return c.holds(f); })) {
            filter = r.models;
            break;
        }
    }
    filter.category = rule.category;
    std::set<std::string> ids;
    for (const AssetInfo* a : catalogue.select(filter)) ids.insert(a->id);
    return ids;
}

TEST(PlacementRules, TheShippedDefaultGivesEachBuildingTypeTheModelsMadeForIt) {
    auto layers = RuleSet::parse(defaultRulesText(), "default.yaml");
    ASSERT_TRUE(layers.ok()) << layers.message();
    auto rules = PlacementRules::parse(defaultRulesText(), "default.yaml", layers->layerInfos());
    ASSERT_TRUE(rules.ok()) << rules.message();
    const BuildingPassRule& b = rules->passes()[0].buildings;
    const AssetCatalogue& c = shippedCatalogue();
    using Ids = std::set<std::string>;
    EXPECT_EQ(modelsFor(b, c, {{"building", "garage"}}), (Ids{"garage_single", "garage_double"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "garages"}}), (Ids{"garage_single", "garage_double"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "carport"}}), (Ids{"carport"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "shed"}}), (Ids{"shed_tool", "shed_small", "shed_large", "hut"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "hut"}}), (Ids{"shed_tool", "shed_small", "shed_large", "hut"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "kiosk"}}), (Ids{"kiosk"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "greenhouse"}}), (Ids{"greenhouse"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "transformer_tower"}}), (Ids{"substation"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "yes"}, {"power", "substation"}}), (Ids{"substation"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "barn"}}), (Ids{"barn", "shed_tool", "shed_small", "shed_large"}));
    EXPECT_EQ(modelsFor(b, c, {{"building", "sports_hall"}}), (Ids{"sports_hall"}));
    const Ids retail = modelsFor(b, c, {{"building", "supermarket"}});
    EXPECT_TRUE(retail.count("supermarket") && retail.count("kiosk") && retail.count("shop_corner"));
    const Ids industrial = modelsFor(b, c, {{"building", "industrial"}});
    EXPECT_TRUE(industrial.count("factory_hall") && industrial.count("warehouse"));
    // An untagged building takes ordinary models of every size, garages and slab blocks among
    // them, but nothing made for a purpose it was not tagged with.
    const Ids plain = modelsFor(b, c, {{"building", "yes"}});
    for (const char* id :
         {"garage_single", "shed_small", "slab_block", "factory_hall", "apartment_block", "cottage_gabled"})
        EXPECT_TRUE(plain.count(id)) << id;
    for (const char* id :
         {"greenhouse", "substation", "kiosk", "carport", "barn", "supermarket", "sports_hall", "pagoda", "chapel"})
        EXPECT_FALSE(plain.count(id)) << id;
    EXPECT_TRUE(rules->checkCatalogue(c).ok()) << rules->checkCatalogue(c).message();
}

TEST(PlacementRules, TheShippedDefaultRunsBuildingsWaterRoadsThenVegetation) {
    auto layers = RuleSet::parse(defaultRulesText(), "default.yaml");
    ASSERT_TRUE(layers.ok()) << layers.message();
    auto rules = PlacementRules::parse(defaultRulesText(), "default.yaml", layers->layerInfos());
    ASSERT_TRUE(rules.ok()) << rules.message();
    ASSERT_EQ(rules->passes().size(), 4u);
    EXPECT_EQ(rules->passes()[0].kind, PassKind::Buildings);
    EXPECT_EQ(rules->passes()[1].surface.layer, "water");
    EXPECT_LT(rules->passes()[1].surface.elevationMetres, 0.0) << "water lies below the ground";
    EXPECT_EQ(rules->passes()[2].surface.layer, "road");
    EXPECT_EQ(rules->passes()[3].kind, PassKind::Vegetation);
    EXPECT_EQ(rules->expressions().at(0).name, "non_plantable");
    EXPECT_EQ(rules->expressions().at(0).text, "building | ((~vegetation) & road) | ((~vegetation) & water)");
    // The historic filter asks for ancient models; forest takes conifers and broadleaf trees.
    const BuildingPassRule& b = rules->passes()[0].buildings;
    ASSERT_FALSE(b.filters.empty());
    EXPECT_EQ(b.filters[0].when.at(0).key, "historic");
    EXPECT_EQ(b.filters[0].models.anyTags.at(0), "ancient");
    const auto& classes = rules->passes()[3].vegetation.classes;
    const auto forest = std::find_if(classes.begin(), classes.end(), [](const auto& c) { return c.layer == "forest"; });
    ASSERT_NE(forest, classes.end());
    EXPECT_EQ(forest->species.at(0).asset, "conifer_spruce");
    EXPECT_TRUE(rules->checkCatalogue(shippedCatalogue()).ok()) << rules->checkCatalogue(shippedCatalogue()).message();
    EXPECT_TRUE(rules->check(layers->layerInfos()).ok());
}

TEST(PlacementRules, ClassesFallBackToThePassValues) {
    auto r = PlacementRules::parse(syntheticRules(defaultSyntheticPasses()), "rules.yaml", syntheticLayers());
    ASSERT_TRUE(r.ok()) << r.message();
    const VegetationPassRule& v = r->passes()[3].vegetation;
    ASSERT_EQ(v.classes.size(), 3u);
    EXPECT_EQ(v.classes[0].density, 0.1);
    EXPECT_EQ(v.classes[0].avoid, "road | water");
    EXPECT_EQ(v.classes[1].density, 0.05);
    EXPECT_EQ(v.classes[1].avoid, "water");
    EXPECT_EQ(v.classes[2].jitter, 1.0);
    EXPECT_EQ(v.classes[2].minScale, 0.5);
    EXPECT_EQ(v.classes[2].maxScale, 2.0);
}

TEST(PlacementRules, AnUnknownKeyIsNamedWithItsLineAndColumn) {
    const std::string e = errorOf(R"(passes:
  - name: trees
    type: vegetation
    denisty: 0.2
    classes: {forest: {species: {tree_a: 1}}}
)");
    EXPECT_NE(e.find("rules.yaml:"), std::string::npos) << e;
    EXPECT_NE(e.find("unknown key 'denisty'"), std::string::npos) << e;
    EXPECT_NE(e.find("passes[0] 'trees'"), std::string::npos) << e;
    // The key is on line 4 of the passes section, which follows the layers' lines.
    const std::string layers = syntheticRules("");
    const auto line = std::count(layers.begin(), layers.end(), '\n') + 4;
    EXPECT_NE(e.find("rules.yaml:" + std::to_string(line) + ":5:"), std::string::npos) << e;
}

TEST(PlacementRules, BadValuesNameTheirKey) {
    EXPECT_NE(errorOf("passes:\n  - {name: v, type: vegetation, density: 2, classes: {forest: {species: {a: 1}}}}\n")
                  .find("passes[0] 'v'.density: expected a number in 0..1, got '2'"),
              std::string::npos);
    EXPECT_NE(errorOf("passes:\n  - {name: b, type: buildings, scale: [2, 1]}\n").find("scale"), std::string::npos);
    EXPECT_NE(
        errorOf("passes:\n  - {name: b, type: buildings, box: round}\n").find("expected oriented or axis_aligned"),
        std::string::npos);
    EXPECT_NE(errorOf("passes:\n  - {name: s, type: surface, layer: water, colour: blue}\n").find("colour"),
              std::string::npos);
    EXPECT_NE(errorOf("passes:\n  - {name: x, type: plants}\n").find("unknown pass type 'plants'"), std::string::npos);
    EXPECT_NE(errorOf("passes:\n  - {name: x, type: vegetation, seed: -1, classes: {forest: {species: {a: 1}}}}\n")
                  .find("seed"),
              std::string::npos);
}

TEST(PlacementRules, UnknownLayersClassesAndExpressionsAreNamed) {
    EXPECT_NE(errorOf("passes:\n  - {name: s, type: surface, layer: lava}\n").find("no layer 'lava'"),
              std::string::npos);
    const std::string cls = errorOf("passes:\n  - {name: v, type: vegetation, classes: {road: {species: {a: 1}}}}\n");
    EXPECT_NE(cls.find("'road' is not vegetation or one of its classes (vegetation, forest, park, grass)"),
              std::string::npos)
        << cls;
    const std::string expr = errorOf(
        "passes:\n  - {name: v, type: vegetation, zone: vegetation - biulding, classes: {forest: {species: "
        "{a: 1}}}}\n");
    EXPECT_NE(expr.find("passes[0].zone"), std::string::npos) << expr;
    EXPECT_NE(expr.find("biulding"), std::string::npos) << expr;
    const std::string def = errorOf(
        "expressions:\n  ok: water\n  bad: \"road &\"\npasses:\n  - {name: s, type: "
        "surface, layer: water}\n");
    EXPECT_NE(def.find("expressions.bad"), std::string::npos) << def;
}

TEST(PlacementRules, StructureErrorsAreNamed) {
    auto none = PlacementRules::parse(syntheticRules(""), "rules.yaml", syntheticLayers());
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.message().find("no 'passes:' section"), std::string::npos);
    EXPECT_NE(
        errorOf("passes:\n  - {name: a, type: surface, layer: water}\n  - {name: a, type: surface, layer: road}\n")
            .find("a pass named 'a' comes earlier"),
        std::string::npos);
    EXPECT_NE(errorOf("passes:\n  - {name: a, type: buildings}\n  - {name: b, type: buildings}\n")
                  .find("only one buildings pass"),
              std::string::npos);
    EXPECT_NE(errorOf("passes:\n  - {name: v, type: vegetation, classes: {forest: {species: {a: 0}}}}\n")
                  .find("weight must be positive"),
              std::string::npos);
    auto yaml = PlacementRules::parse("passes: [", "broken.yaml", syntheticLayers());
    ASSERT_FALSE(yaml.ok());
    EXPECT_NE(yaml.message().find("broken.yaml:"), std::string::npos);
}

TEST(PlacementRules, SpeciesMissingFromTheCatalogueAreNamed) {
    auto r = PlacementRules::parse(syntheticRules("passes:\n  - {name: v, type: vegetation, classes: {forest: "
                                                  "{species: {tree_a: 1, oak: 2}}}}\n"),
                                   "rules.yaml", syntheticLayers());
    ASSERT_TRUE(r.ok()) << r.message();
    const Status s = r->checkCatalogue(testCatalogue());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("the catalogue has no asset 'oak'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("rules.yaml:"), std::string::npos);
}

TEST(PlacementRules, RulesEditedInCodeAreCheckedToo) {
    auto r = PlacementRules::parse(syntheticRules(defaultSyntheticPasses()), "rules.yaml", syntheticLayers());
    ASSERT_TRUE(r.ok()) << r.message();
    r->passes()[3].vegetation.classes[0].density = 1.5;
    const Status s = r->check(syntheticLayers());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("classes.forest.density"), std::string::npos) << s.message();
}

TEST(PlacementRules, DescriptionsChangeWithEveryParameter) {
    auto r = PlacementRules::parse(syntheticRules(defaultSyntheticPasses()), "rules.yaml", syntheticLayers());
    ASSERT_TRUE(r.ok()) << r.message();
    PassRule veg = r->passes()[3];
    const std::string before = PlacementRules::describe(veg);
    veg.vegetation.classes[1].species[0].weight = 2.0;
    EXPECT_NE(PlacementRules::describe(veg), before);
    PassRule b = r->passes()[0];
    const std::string bb = PlacementRules::describe(b);
    b.buildings.fit.marginMetres = 0.5;
    EXPECT_NE(PlacementRules::describe(b), bb);
}

}  // namespace
}  // namespace terrabit::test
