#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "export_test_support.h"
#include "manifest_writer_p.h"
#include "terrabit/core/export/manifest_writer.h"
#include "terrabit/core/export/sha256.h"

using namespace terrabit::core;
using nlohmann::json;
using terrabit::test::makeScene;
using terrabit::test::shippedCatalogue;

namespace {

const std::string kRules = "version: 1\nlayers:\n  - name: building\n";

/// True when the keys of every object in the document are in sorted order, as written.
bool keysSorted(const nlohmann::ordered_json& j) {
    if (j.is_object()) {
        std::string previous;
        bool first = true;
        for (const auto& [key, value] : j.items()) {
            if (!first && !(previous < key)) return false;
            previous = key;
            first = false;
            if (!keysSorted(value)) return false;
        }
    } else if (j.is_array()) {
        for (const auto& v : j) {
            if (!keysSorted(v)) return false;
        }
    }
    return true;
}

}  // namespace

TEST(Manifest, ListsEveryInstanceWithItsAssetTransformAndSource) {
    const auto test = makeScene(shippedCatalogue());
    const Scene& scene = test.scene;
    const Result<std::string> text = encodeManifest(scene, kRules);
    ASSERT_TRUE(text.ok()) << text.message();
    const json m = json::parse(*text);
    ASSERT_EQ(m["instances"].size(), scene.instanceCount());
    EXPECT_EQ(m["instanceCount"], scene.instanceCount());
    std::size_t k = 0;
    for (const InstanceBlock& b : scene.blocks) {
        for (const Instance& i : b.instances) {
            const json& e = m["instances"][k++];
            EXPECT_EQ(e["asset"], scene.assets[static_cast<std::size_t>(b.asset)]);
            EXPECT_EQ(e["tile"], b.tile.quadkey());
            EXPECT_EQ(e["block"], json::array({b.blockX, b.blockY}));
            if (i.source == Instance::kNoSource) {
                EXPECT_TRUE(e["source"].is_null());
            } else {
                EXPECT_EQ(e["source"], scene.sources[i.source]);
            }
            // Every float reads back bit for bit.
            const std::array<float, 16> expected = transformMatrix(i);
            ASSERT_EQ(e["transform"].size(), 16u);
            for (int c = 0; c < 16; ++c) {
                EXPECT_EQ(static_cast<float>(e["transform"][c].get<double>()), expected[static_cast<std::size_t>(c)]);
            }
        }
    }
}

TEST(Manifest, RecordsEveryBuildingOutcome) {
    const auto test = makeScene(shippedCatalogue());
    const Scene& scene = test.scene;
    const json m = json::parse(encodeManifest(scene, kRules).value());
    ASSERT_EQ(m["buildings"].size(), scene.buildings.size());
    std::map<std::string, int> outcomes;
    for (std::size_t i = 0; i < scene.buildings.size(); ++i) {
        const BuildingRecord& b = scene.buildings[i];
        const json& e = m["buildings"][i];
        EXPECT_EQ(e["source"], scene.sources[b.source]);
        EXPECT_EQ(e["outcome"], outcomeText(b, scene.sources, scene.layerNames));
        EXPECT_EQ(e["tile"], b.tile.quadkey());
        EXPECT_DOUBLE_EQ(e["target"]["centre"][0].get<double>(), b.target.centre.x);
        EXPECT_DOUBLE_EQ(e["target"]["halfExtents"][1].get<double>(), b.target.halfExtents.y);
        EXPECT_DOUBLE_EQ(e["target"]["angle"].get<double>(), b.target.angle);
        if (b.outcome == BuildingOutcome::Placed) {
            EXPECT_EQ(e["asset"], scene.assets[static_cast<std::size_t>(b.asset)]);
            EXPECT_EQ(static_cast<float>(e["transform"][12].get<double>()), b.placement.position.x);
        } else {
            EXPECT_TRUE(e["asset"].is_null());
            EXPECT_TRUE(e["transform"].is_null());
        }
        ++outcomes[e["outcome"].get<std::string>()];
    }
    EXPECT_GT(outcomes["placed"], 0);
    EXPECT_GT(outcomes["blocked"], 0);
    EXPECT_GT(outcomes["no model fits"], 0);
}

TEST(Manifest, CarriesStatisticsRulesHashSeedAndFrame) {
    const auto test = makeScene(shippedCatalogue());
    const Scene& scene = test.scene;
    const json m = json::parse(encodeManifest(scene, kRules).value());
    EXPECT_EQ(m["format"], "terrabit-manifest");
    EXPECT_EQ(m["version"], kManifestVersion);
    EXPECT_EQ(m["rulesSha256"], sha256Hex(kRules));
    EXPECT_EQ(m["seed"].get<std::uint64_t>(), scene.seed);  // all 64 bits
    EXPECT_GT(scene.seed, std::uint64_t{1} << 53);
    EXPECT_EQ(m["frame"]["zoom"], scene.frame.zoom);
    EXPECT_DOUBLE_EQ(m["frame"]["origin"]["lon"].get<double>(), scene.frame.origin.lon);
    EXPECT_DOUBLE_EQ(m["frame"]["origin"]["lat"].get<double>(), scene.frame.origin.lat);
    const json& st = m["statistics"];
    EXPECT_EQ(st["buildingsPlaced"], scene.statistics.buildingsPlaced);
    EXPECT_EQ(st["buildingsBlocked"], scene.statistics.buildingsBlocked);
    EXPECT_EQ(st["buildingsUnmatched"], scene.statistics.buildingsUnmatched);
    EXPECT_EQ(st["vegetationInstances"], scene.statistics.vegetationInstances);
    EXPECT_DOUBLE_EQ(st["achievedDensity"].get<double>(), scene.statistics.achievedDensity);
    for (std::size_t a = 0; a < scene.assets.size(); ++a) {
        EXPECT_EQ(st["instancesPerAsset"][scene.assets[a]], scene.statistics.instancesPerAsset[a]);
    }
    std::vector<std::string> tiles;
    for (const TileId& t : scene.tiles) tiles.push_back(t.quadkey());
    EXPECT_EQ(m["tiles"], tiles);
    EXPECT_EQ(m["assets"], scene.assets);
}

TEST(Manifest, KeysAreSortedAndTheSameSceneGivesTheSameBytes) {
    const auto test = makeScene(shippedCatalogue());
    const std::string a = encodeManifest(test.scene, kRules).value();
    const std::string b = encodeManifest(makeScene(shippedCatalogue()).scene, kRules).value();
    EXPECT_EQ(a, b);
    EXPECT_TRUE(keysSorted(nlohmann::ordered_json::parse(a)));
    // Another rules document or seed changes the record.
    EXPECT_NE(encodeManifest(test.scene, kRules + "#").value(), a);
    Scene reseeded = test.scene;
    reseeded.seed += 1;
    EXPECT_NE(encodeManifest(reseeded, kRules).value(), a);
}

TEST(Manifest, BadIndicesAreReportedWithTheirPlace) {
    auto test = makeScene(shippedCatalogue());
    test.scene.blocks[1].instances.edit()[0].source = 999999;
    const Result<std::string> m = encodeManifest(test.scene, kRules);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.message().find("tile " + test.scene.blocks[1].tile.quadkey()), std::string::npos) << m.message();
    EXPECT_NE(m.message().find("instance 0"), std::string::npos) << m.message();
}
