#include <gtest/gtest.h>

#include "terrabit/core/rules/classifier.h"

using namespace terrabit::core;

namespace {

const char* kRules = R"(
layers:
  - name: water
    sea: true
    match: [{kind: area, tags: {natural: water}}]
  - name: vegetation
    classes:
      - name: forest
        match: [{kind: area, tags: {landuse: forest}}]
      - name: park
        match: [{kind: area, tags: {leisure: park}}]
      - name: trees
        point_radius: 2.5
        match: [{kind: point, tags: {natural: tree}}]
  - name: road
    match: [{kind: line, tags: {highway: "*"}}]
    width: {tag: width, by: highway, values: {primary: 10}, default: 3}
  - name: historic
    match: [{tags: {historic: "*"}}]
)";

Feature make(std::string id, FeatureKind kind, std::vector<Tag> tags, std::vector<Vec2> pts) {
    Feature f;
    f.id = std::move(id);
    f.kind = kind;
    f.tags = std::move(tags);
    f.points = std::move(pts);
    f.partEnds = {static_cast<std::uint32_t>(f.points.size())};
    f.updateBounds();
    return f;
}

}  // namespace

TEST(Classifier, FeaturesGoToTheFirstMatchingClassAndMayJoinSeveralLayers) {
    auto rules = RuleSet::parse(kRules, "test.yaml");
    ASSERT_TRUE(rules.ok()) << rules.message();
    MapData map;
    map.source = "test.osm";
    const std::vector<Vec2> square{{0, 0}, {10, 0}, {10, 10}, {0, 10}};
    map.features.push_back(make("w1", FeatureKind::Area, {{"landuse", "forest"}, {"leisure", "park"}}, square));
    map.features.push_back(make("w2", FeatureKind::Area, {{"leisure", "park"}, {"historic", "castle"}}, square));
    map.features.push_back(make("n3", FeatureKind::Point, {{"natural", "tree"}}, {{5, 5}}));
    map.features.push_back(make("w4", FeatureKind::Line, {{"highway", "primary"}}, {{0, 0}, {10, 10}}));
    map.features.push_back(make("w5", FeatureKind::Line, {{"highway", "track"}, {"width", "4.5"}}, {{0, 0}, {9, 9}}));
    map.features.push_back(make("w6", FeatureKind::Area, {{"amenity", "school"}}, square));
    map.extent = Box2{{0, 0}, {10, 10}};
    const ClassifiedMap c = classify(map, *rules);

    const auto id = [&](const char* name) { return static_cast<std::uint16_t>(rules->layerId(name)); };
    ASSERT_EQ(c.entries.size(), 6u);
    EXPECT_EQ(c.entries[0].feature->id, "w1");
    EXPECT_EQ(c.entries[0].layer, id("forest"));  // forest comes before park
    EXPECT_EQ(c.entries[1].layer, id("park"));
    EXPECT_EQ(c.entries[2].layer, id("historic"));  // the same park, also in a user layer
    EXPECT_EQ(c.entries[3].layer, id("trees"));
    EXPECT_FLOAT_EQ(c.entries[3].sizeMetres, 2.5f);
    EXPECT_EQ(c.entries[4].layer, id("road"));
    EXPECT_FLOAT_EQ(c.entries[4].sizeMetres, 10.0f);
    EXPECT_FLOAT_EQ(c.entries[5].sizeMetres, 4.5f);
    EXPECT_EQ(c.unclassified, 1u);
    EXPECT_EQ(c.featureCounts[id("vegetation")], 3u);
    EXPECT_EQ(c.featureCounts[id("forest")], 1u);
    EXPECT_EQ(c.featureCounts[id("road")], 2u);
    // No coastline: no sea, and water is reported empty with the rule's line.
    EXPECT_TRUE(c.derived.empty());
    ASSERT_FALSE(c.warnings.empty());
    EXPECT_NE(c.warnings[0].find("no feature matched layer 'water' (test.yaml:3)"), std::string::npos) << c.warnings[0];
}

TEST(Classifier, SeaFromCoastlinesJoinsTheSeaLayer) {
    auto rules = RuleSet::parse(kRules, "test.yaml");
    ASSERT_TRUE(rules.ok()) << rules.message();
    MapData map;
    map.source = "coast.osm";
    map.features.push_back(make("w1", FeatureKind::Line, {{"natural", "coastline"}}, {{0, 50}, {100, 50}}));
    map.features.push_back(make("w2", FeatureKind::Area, {{"natural", "water"}}, {{0, 0}, {10, 0}, {10, 10}}));
    map.extent = Box2{{0, 0}, {100, 100}};
    const ClassifiedMap c = classify(map, *rules);
    ASSERT_EQ(c.derived.size(), 1u);
    EXPECT_EQ(c.derived[0].id, "sea");
    EXPECT_EQ(c.featureCounts[static_cast<std::size_t>(rules->layerId("water"))], 2u);
    EXPECT_EQ(c.entries.back().feature, &c.derived[0]);
}
