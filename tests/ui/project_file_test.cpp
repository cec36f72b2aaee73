// The .terrabit project file (core/project): round trips, atomic saves, errors that point at the
// line and column of the bad value, and the rule edits a project carries.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/project/project.h"
#include "terrabit/core/project/rule_edit.h"
#include "terrabit/core/rules/layer_name.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/tile/tile_id.h"
#include "ui_test_support.h"

using namespace terrabit;
using core::project::Project;

namespace {

std::string readText(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// A project with every field set to something other than its default.
Project fullProject(const std::filesystem::path& dir) {
    Project p;
    p.map = dir / "maps" / "city.osm.pbf";
    p.openOptions = {"ZOOM_LEVEL=13", "CONFIG_FILE=x.ini"};
    p.zoom = 16;
    p.tiles = {"1202230303022112", "1202230303022113"};
    p.rulesFile = dir / "rules" / "mine.yaml";
    p.rulesText = "version: 1\nlayers: []\n# ünïcode and \"quotes\"\n";
    p.ruleEdits = {{"passes.vegetation.density", "0.2"}, {"passes.buildings.scale", "[0.9, 1.1]"}};
    p.expressions = {{"green", "vegetation - dilate(road, 2m)", "#11aa22"},
                     {"wet", "water | edge(water, 1)", "#0000ff"}};
    p.seed = 18446744073709551615ull;  // the largest seed must survive JSON
    p.camera = {{7.4213456789012345, 43.7312345678901234}, 432.125, -12.5, 61.0};
    p.mapView = {{7.41, 43.72}, 1.0 / 3.0};
    p.overlay = "green";
    p.hiddenLayers = {"road", "trees"};
    p.exportSettings = {dir / "out", {"glb", "manifest"}, true};
    return p;
}

}  // namespace

TEST(ProjectFile, EveryFieldSurvivesSaveAndLoadExactly) {
    const test::TempDir dir;
    const Project original = fullProject(dir.path());
    const auto file = dir.path() / "a.terrabit";
    ASSERT_TRUE(core::project::saveProject(original, file).ok());
    auto loaded = core::project::loadProject(file);
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    EXPECT_EQ(*loaded, original);
    // Saving what was loaded gives the same bytes: nothing drifts on a round trip.
    const auto again = dir.path() / "b.terrabit";
    ASSERT_TRUE(core::project::saveProject(*loaded, again).ok());
    EXPECT_EQ(readText(file), readText(again));
}

TEST(ProjectFile, PathsAreStoredRelativeToTheProjectFolder) {
    const test::TempDir dir;
    Project p;
    p.map = dir.path() / "maps" / "city.osm.pbf";
    const auto file = dir.path() / "projects" / "p.terrabit";
    std::filesystem::create_directories(file.parent_path());
    ASSERT_TRUE(core::project::saveProject(p, file).ok());
    EXPECT_NE(readText(file).find("\"map\": \"../maps/city.osm.pbf\""), std::string::npos) << readText(file);
    // Moving the whole tree keeps the project working.
    const auto moved = std::filesystem::path(dir.path().string() + "-moved");
    std::filesystem::rename(dir.path(), moved);
    auto loaded = core::project::loadProject(moved / "projects" / "p.terrabit");
    std::filesystem::rename(moved, dir.path());
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    EXPECT_EQ(loaded->map, moved / "maps" / "city.osm.pbf");
}

TEST(ProjectFile, DemsAreStoredRelativeAndTileSetsKeepTheirEncoding) {
    const test::TempDir dir;
    Project p;
    p.map = dir.path() / "maps" / "city.osm.pbf";
    p.dems = {dir.path() / "dem" / "srtm.tif", "terrarium:" + (dir.path() / "dem" / "tiles").string(),
              "terrain-rgb:" + (dir.path() / "dem" / "rgb.mbtiles").string()};
    const auto file = dir.path() / "projects" / "p.terrabit";
    std::filesystem::create_directories(file.parent_path());
    ASSERT_TRUE(core::project::saveProject(p, file).ok());
    const std::string text = readText(file);
    EXPECT_NE(text.find("\"../dem/srtm.tif\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"terrarium:../dem/tiles\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"terrain-rgb:../dem/rgb.mbtiles\""), std::string::npos) << text;
    auto loaded = core::project::loadProject(file);
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    EXPECT_EQ(loaded->dems, p.dems);
    const core::project::DemEntry e = core::project::splitDemEntry(p.dems[1]);
    EXPECT_EQ(e.encoding, "terrarium:");
    EXPECT_EQ(e.path, dir.path() / "dem" / "tiles");
    EXPECT_EQ(core::project::splitDemEntry(p.dems[0]).encoding, "");
}

TEST(ProjectFile, BundledSampleNamesFilesThatExist) {
    auto sample = core::project::loadProject(test::resourcesDir() / "projects" / "sample.terrabit");
    ASSERT_TRUE(sample.ok()) << sample.message();
    EXPECT_TRUE(std::filesystem::is_regular_file(sample->map)) << sample->map;
    EXPECT_TRUE(std::filesystem::is_regular_file(sample->rulesFile)) << sample->rulesFile;
    EXPECT_EQ(sample->zoom, 17);
    EXPECT_EQ(sample->tiles.size(), 4u);
    for (const std::string& q : sample->tiles) {
        auto tile = core::TileId::fromQuadkey(q);
        ASSERT_TRUE(tile.ok());
        // Inside Monaco's extract (7.409..7.449 E, 43.723..43.752 N).
        const core::Box2 b = tile->boundsLonLat();
        EXPECT_GT(b.min.x, 7.409);
        EXPECT_LT(b.max.x, 7.449);
        EXPECT_GT(b.min.y, 43.723);
        EXPECT_LT(b.max.y, 43.752);
    }
}

TEST(ProjectFile, BrokenJsonNamesFileLineAndColumn) {
    // Line 3 lacks the comma after 17: the parser stops at the '"' opening "tiles" on line 4,
    // column 3.
    const std::string text =
        "{\n  \"format\": \"terrabit-project\", \"version\": 1,\n  \"zoom\": 17\n  \"tiles\": []\n}\n";
    auto p = core::project::parseProject(text, "broken.terrabit", "/tmp");
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.message().rfind("broken.terrabit:4:3: not valid JSON", 0), 0u) << p.message();
}

TEST(ProjectFile, WrongTypePointsAtTheValue) {
    const std::string text =
        "{\n"
        "  \"format\": \"terrabit-project\",\n"
        "  \"version\": 1,\n"
        "  \"camera\": {\"target\": [7, 43], \"pitch\": \"steep\"}\n"
        "}\n";
    auto p = core::project::parseProject(text, "p.terrabit", "/tmp");
    ASSERT_FALSE(p.ok());
    // "steep" starts at line 4, column 42: `  "camera": {"target": [7, 43], "pitch": ` is 41
    // characters long.
    EXPECT_EQ(p.message(), "p.terrabit:4:42: camera.pitch: expected a number");
}

TEST(ProjectFile, UnknownKeyIsNamedWithItsPosition) {
    const std::string text = "{\"format\": \"terrabit-project\", \"version\": 1,\n \"zom\": 17}";
    auto p = core::project::parseProject(text, "p.terrabit", "/tmp");
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.message().rfind("p.terrabit:2:2: unknown key 'zom'", 0), 0u) << p.message();
    EXPECT_NE(p.message().find("zoom"), std::string::npos) << "the message lists the known keys";
}

TEST(ProjectFile, BadTilesAndVersionsAreRefused) {
    const std::string head = "{\"format\": \"terrabit-project\", \"version\": 1, \"zoom\": 17, ";
    auto badDigit = core::project::parseProject(head + "\"tiles\": [\"12022303030203334\"]}", "p", "/tmp");
    ASSERT_FALSE(badDigit.ok());
    EXPECT_NE(badDigit.message().find("tiles[0]"), std::string::npos) << badDigit.message();
    auto wrongZoom = core::project::parseProject(head + "\"tiles\": [\"120\"]}", "p", "/tmp");
    ASSERT_FALSE(wrongZoom.ok());
    EXPECT_NE(wrongZoom.message().find("not the project's zoom 17"), std::string::npos) << wrongZoom.message();
    auto newer = core::project::parseProject("{\"format\": \"terrabit-project\", \"version\": 2}", "p", "/tmp");
    ASSERT_FALSE(newer.ok());
    EXPECT_NE(newer.message().find("version 2 is not supported"), std::string::npos);
    auto notProject = core::project::parseProject("{\"format\": \"glTF\", \"version\": 1}", "p", "/tmp");
    ASSERT_FALSE(notProject.ok());
    EXPECT_NE(notProject.message().find("not a Terrabit project"), std::string::npos);
    auto empty = core::project::parseProject("", "empty.terrabit", "/tmp");
    ASSERT_FALSE(empty.ok());
    EXPECT_EQ(empty.message().rfind("empty.terrabit:1:1: not valid JSON", 0), 0u) << empty.message();
}

TEST(ProjectFile, FailedSaveLeavesTheOldFileWhole) {
    if (::geteuid() == 0) {
        // Root writes into read-only folders; use a path under a regular file instead, which no
        // user can create.
        const test::TempDir dir;
        const auto blocker = dir.path() / "not-a-folder";
        std::ofstream(blocker) << "x";
        auto s = core::project::saveProject(Project{}, blocker / "p.terrabit");
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.message().find("p.terrabit"), std::string::npos) << s.message();
        return;
    }
    const test::TempDir dir;
    const auto file = dir.path() / "p.terrabit";
    ASSERT_TRUE(core::project::saveProject(Project{}, file).ok());
    const std::string before = readText(file);
    ::chmod(dir.path().c_str(), 0555);
    Project changed;
    changed.seed = 5;
    auto s = core::project::saveProject(changed, file);
    ::chmod(dir.path().c_str(), 0755);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(readText(file), before);
}

TEST(ProjectFile, SaveReplacesTheFileAndLeavesNoTemporary) {
    const test::TempDir dir;
    const auto file = dir.path() / "p.terrabit";
    Project p;
    ASSERT_TRUE(core::project::saveProject(p, file).ok());
    p.seed = 99;
    ASSERT_TRUE(core::project::saveProject(p, file).ok());
    auto loaded = core::project::loadProject(file);
    ASSERT_TRUE(loaded.ok());
    EXPECT_EQ(loaded->seed, 99u);
    int entries = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
        (void)e;
        ++entries;
    }
    EXPECT_EQ(entries, 1);
}

// -- rule edits ------------------------------------------------------------------------------

namespace {

core::placement::PlacementRules defaultRules() {
    const std::string text = readText(test::resourcesDir() / "rules" / "default.yaml");
    auto rules = core::RuleSet::parse(text, "default.yaml");
    EXPECT_TRUE(rules.ok()) << rules.message();
    auto placement = core::placement::PlacementRules::parse(text, "default.yaml", rules->layerInfos());
    EXPECT_TRUE(placement.ok()) << placement.message();
    return *placement;
}

const core::placement::PassRule& pass(const core::placement::PlacementRules& r, const std::string& name) {
    for (const auto& p : r.passes()) {
        if (p.name == name) return p;
    }
    ADD_FAILURE() << "no pass " << name;
    return r.passes().front();
}

}  // namespace

TEST(RuleEdits, PassDensitySetsEveryClassAndClassDensityOnlyOne) {
    auto rules = defaultRules();
    ASSERT_TRUE(core::project::applyRuleEdit(rules, {"passes.vegetation.density", "0.25"}).ok());
    for (const auto& c : pass(rules, "vegetation").vegetation.classes) EXPECT_DOUBLE_EQ(c.density, 0.25) << c.layer;
    ASSERT_TRUE(core::project::applyRuleEdit(rules, {"passes.vegetation.classes.park.density", "0.5"}).ok());
    for (const auto& c : pass(rules, "vegetation").vegetation.classes) {
        EXPECT_DOUBLE_EQ(c.density, c.layer == "park" ? 0.5 : 0.25) << c.layer;
    }
    EXPECT_TRUE(
        rules.check(core::RuleSet::parse(readText(test::resourcesDir() / "rules" / "default.yaml"), "d")->layerInfos())
            .ok());
}

TEST(RuleEdits, EveryKindOfValueReadsBackAsWritten) {
    auto rules = defaultRules();
    const std::vector<core::project::RuleEdit> edits = {
        {"passes.buildings.scale", "[0.9, 1.3]"},
        {"passes.buildings.margin", "0.75"},
        {"passes.buildings.box", "axis_aligned"},
        {"passes.buildings.seed", "42"},
        {"passes.buildings.filters.0.any_tags", "[ancient]"},
        {"passes.roads.elevation", "0.1"},
        {"passes.roads.colour", "#101010"},
        {"passes.vegetation.zone", "vegetation - placed_buildings"},
        {"passes.vegetation.classes.park.species", "{palm: 2, broadleaf_oak: 1}"},
        {"passes.vegetation.classes.grass.scale", "[0.5, 0.75]"},
    };
    ASSERT_TRUE(core::project::applyRuleEdits(rules, edits).ok());
    for (const auto& e : edits) {
        auto v = core::project::ruleValue(rules, e.path);
        ASSERT_TRUE(v.ok()) << v.message();
        EXPECT_EQ(*v, e.value) << e.path;
    }
}

TEST(RuleEdits, BadEditsSayWhatAndChangeNothing) {
    auto rules = defaultRules();
    const auto before = core::placement::PlacementRules::describe(pass(rules, "vegetation"));
    auto outOfRange = core::project::applyRuleEdit(rules, {"passes.vegetation.density", "2"});
    ASSERT_FALSE(outOfRange.ok());
    EXPECT_EQ(outOfRange.message(), "passes.vegetation.density: expected a number in 0..1, got '2'");
    auto noPass = core::project::applyRuleEdit(rules, {"passes.veg.density", "0.1"});
    ASSERT_FALSE(noPass.ok());
    EXPECT_EQ(noPass.message(), "passes.veg.density: no pass named 'veg'");
    auto badSpecies = core::project::applyRuleEdit(rules, {"passes.vegetation.classes.park.species", "{palm: -1}"});
    ASSERT_FALSE(badSpecies.ok());
    auto badScale = core::project::applyRuleEdit(rules, {"passes.vegetation.scale", "[2, 1]"});
    ASSERT_FALSE(badScale.ok());
    EXPECT_EQ(core::placement::PlacementRules::describe(pass(rules, "vegetation")), before);
    auto list = core::project::applyRuleEdits(rules, {{"passes.vegetation.jitter", "0.5"}, {"passes.nope.x", "1"}});
    ASSERT_FALSE(list.ok());
    EXPECT_EQ(list.message().rfind("rule edit 2: ", 0), 0u) << list.message();
}

// The project's derived layers follow the one layer-name rule (rules/layer_name.h): a name the
// rules accept (capitals too) is accepted, one they refuse is refused with the same words.
TEST(ProjectFile, DerivedLayerNamesFollowTheLayerNameRule) {
    const auto project = [](const std::string& name) {
        return core::project::parseProject(
            "{\"format\": \"terrabit-project\", \"version\": 1, \"expressions\": "
            "[{\"name\": \"" +
                name + "\", \"text\": \"water\"}]}",
            "p.terrabit", "/tmp");
    };
    EXPECT_TRUE(project("Shore_2").ok()) << project("Shore_2").message();
    auto bad = project("2shore");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("'2shore' is not a layer name (" + std::string(core::kLayerNameRule) + ")"),
              std::string::npos)
        << bad.message();
}
