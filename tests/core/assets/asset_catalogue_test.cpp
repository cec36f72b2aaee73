// The asset catalogue: hand-written YAML, its error messages (file, line, column, key), sizes
// measured from user glTF and OBJ models, queries, merging, and writing it back.

#include "terrabit/core/assets/asset_catalogue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "asset_test_support.h"
#include "gltf_fixture.h"

namespace terrabit::core {
namespace {

using test::ScratchDir;

// Four models every parsing test can point at: two real ones and two placeholders.
class AssetCatalogueTest : public ::testing::Test {
protected:
    void SetUp() override {
        test::GltfFixture cube = test::unitCube();
        const double s = std::sin(std::numbers::pi / 4);
        cube.nodes = {{{"translation", {10.0, 0.0, 0.0}}, {"rotation", {0.0, s, 0.0, s}}, {"children", {1}}},
                      {{"scale", {2.0, 3.0, 4.0}}, {"mesh", 0}}};
        test::writeGltf(mDir.path() / "user", "block", cube);
        test::writeText(mDir / "user/shed.obj",
                        "v 0 0 0\nv 5 0 0\nv 5 0 3\nv 0 0 3\nv 0 2 0\nv 5 2 0\nv 5 2 3\nv 0 2 3\n"
                        "f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 2 6 7 3\nf 3 7 8 4\nf 4 8 5 1\n");
        // An L of two OBJ boxes: a wing 6 × 2 m along the back, a leg 2 × 3 m down to the front.
        test::writeText(mDir / "user/ell.obj", objBox(0, 0, 6, 2) + objBox(0, 2, 2, 5, 8));
        test::writeText(mDir / "models/a.glb", "placeholder: sizes are given, so never read");
        test::writeText(mDir / "models/b.glb", "placeholder");
    }

    Result<AssetCatalogue> parse(std::string_view yaml, AssetCatalogueOptions options = {}) {
        test::writeText(mDir / "catalogue.yaml", yaml);
        return AssetCatalogue::load(mDir / "catalogue.yaml", options);
    }

    // Asserts that loading fails with a message holding every fragment.
    void expectError(std::string_view yaml, std::initializer_list<std::string_view> fragments) {
        Result<AssetCatalogue> c = parse(yaml);
        ASSERT_FALSE(c) << "expected an error for:\n" << yaml;
        for (std::string_view f : fragments) {
            EXPECT_NE(c.message().find(f), std::string::npos) << "missing '" << f << "' in: " << c.message();
        }
    }

    // An OBJ box [x0, x1] × [0, 3] × [z0, z1], its vertices numbered from `first`.
    static std::string objBox(double x0, double z0, double x1, double z1, int first = 0) {
        std::string s;
        for (int i = 0; i < 8; ++i) {
            s += "v " + std::to_string(i & 1 ? x1 : x0) + " " + std::to_string(i & 2 ? 3 : 0) + " " +
                 std::to_string(i & 4 ? z1 : z0) + "\n";
        }
        // Vertex i + 1 is corner i: bit 0 picks x1, bit 1 the top, bit 2 z1; bottom, top, the
        // z0, z1, x0 and x1 sides (the outline does not care which way they wind).
        const int faces[6][4] = {{1, 2, 6, 5}, {3, 7, 8, 4}, {1, 3, 4, 2}, {5, 6, 8, 7}, {1, 5, 7, 3}, {2, 4, 8, 6}};
        for (const auto& f : faces) {
            s += "f";
            for (int k : f) s += " " + std::to_string(first + k);
            s += "\n";
        }
        return s;
    }

    ScratchDir mDir;
};

TEST_F(AssetCatalogueTest, ReadsEveryFieldOfHandWrittenEntries) {
    Result<AssetCatalogue> c = parse(R"(# my catalogue
version: 1
assets:
  - id: barn
    file: models/a.glb
    category: building
    footprint: {width: 12, depth: 20.5}
    height: 9.5
    tags: [rural, industrial]
    weight: 2.5
  - id: hut
    file: models/b.glb
    category: building
    footprint: [4, 5]
    height: 3
)");
    ASSERT_TRUE(c) << c.message();
    ASSERT_EQ(c->size(), 2u);
    const AssetInfo* barn = c->find("barn");
    ASSERT_NE(barn, nullptr);
    EXPECT_EQ(barn->file, "models/a.glb");
    EXPECT_EQ(barn->path, (mDir.path() / "models/a.glb").lexically_normal());
    EXPECT_EQ(barn->category, "building");
    EXPECT_EQ(barn->footprint, (AssetFootprint{12.0, 20.5}));
    EXPECT_EQ(barn->height, 9.5);
    EXPECT_EQ(barn->tags, (std::vector<std::string>{"rural", "industrial"}));
    EXPECT_EQ(barn->weight, 2.5);
    EXPECT_EQ(barn->line, 4);
    EXPECT_FALSE(barn->footprintMeasured);
    EXPECT_FALSE(barn->heightMeasured);
    const AssetInfo* hut = c->find("hut");
    ASSERT_NE(hut, nullptr);
    EXPECT_EQ(hut->footprint, (AssetFootprint{4.0, 5.0}));
    EXPECT_EQ(hut->weight, 1.0);  // the default
    EXPECT_TRUE(hut->tags.empty());
    EXPECT_EQ(c->find("shed"), nullptr);
}

TEST_F(AssetCatalogueTest, MeasuresMissingSizesFromUserGltfAndObjModels) {
    Result<AssetCatalogue> c = parse(R"(assets:
  - id: block
    file: user/block.gltf
    category: building
  - id: shed
    file: user/shed.obj
    category: building
    height: 2.5
)");
    ASSERT_TRUE(c) << c.message();
    // block: a unit cube scaled 2 × 3 × 4 and turned 90° about Y (worked out by hand).
    const AssetInfo* block = c->find("block");
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(block->footprintMeasured);
    EXPECT_TRUE(block->heightMeasured);
    EXPECT_NEAR(block->footprint.width, 4.0, 1e-5);
    EXPECT_NEAR(block->footprint.depth, 2.0, 1e-5);
    EXPECT_NEAR(block->height, 3.0, 1e-5);
    EXPECT_NEAR(block->bounds.min[0], 8.0, 1e-5);
    // shed: a 5 × 2 × 3 m OBJ box; its given height wins over the mesh's 2 m.
    const AssetInfo* shed = c->find("shed");
    ASSERT_NE(shed, nullptr);
    EXPECT_TRUE(shed->footprintMeasured);
    EXPECT_FALSE(shed->heightMeasured);
    EXPECT_NEAR(shed->footprint.width, 5.0, 1e-6);
    EXPECT_NEAR(shed->footprint.depth, 3.0, 1e-6);
    EXPECT_EQ(shed->height, 2.5);
}

TEST_F(AssetCatalogueTest, ReadsWritesAndMeasuresOutlines) {
    const std::string yamlIn = R"(assets:
  - id: given
    file: user/ell.obj
    category: building
    footprint: {width: 24, depth: 20}
    outline: [[-12, -10, 12, -1], [-12, -1, -3.5, 10]]
    height: 9
  - id: ell
    file: user/ell.obj
    category: building
  - id: stretched
    file: user/ell.obj
    category: building
    footprint: [12, 5]
    height: 3
  - id: boxed
    file: user/ell.obj
    category: building
    outline: []
  - id: shed
    file: user/shed.obj
    category: building
)";
    Result<AssetCatalogue> c = parse(yamlIn);
    ASSERT_TRUE(c) << c.message();
    using Rects = std::vector<OutlineRect>;
    EXPECT_EQ(c->find("given")->outline, (Rects{{-12, -10, 12, -1}, {-12, -1, -3.5, 10}}));
    EXPECT_FALSE(c->find("given")->outlineMeasured);
    // Measured when the mesh is read for its size: the wing and the leg about the centre (3, 2.5).
    const AssetInfo* ell = c->find("ell");
    EXPECT_EQ(ell->outline, (Rects{{-3, -2.5, 3, -0.5}, {-3, -0.5, -1, 2.5}}));
    EXPECT_TRUE(ell->outlineMeasured);
    // Not read when every size is given; with verifyModels, stretched to the footprint given.
    EXPECT_TRUE(c->find("stretched")->outline.empty());
    EXPECT_TRUE(c->find("boxed")->outline.empty()) << "outline: [] is the box, not measured";
    EXPECT_TRUE(c->find("shed")->outline.empty()) << "a box measures as the box";
    EXPECT_TRUE(c->find("shed")->outlineMeasured);
    EXPECT_FALSE(c->find("stretched")->outlineMeasured);
    AssetCatalogueOptions verify;
    verify.verifyModels = true;
    Result<AssetCatalogue> v = parse(yamlIn, verify);
    ASSERT_TRUE(v) << v.message();
    EXPECT_EQ(v->find("stretched")->outline, (Rects{{-6, -2.5, 6, -0.5}, {-6, -0.5, -2, 2.5}}));
    EXPECT_TRUE(v->find("boxed")->outline.empty());
    EXPECT_EQ(v->find("given")->outline, c->find("given")->outline);

    // Written back (measured outlines too) and read again, the same.
    const std::string yaml = c->toYaml();
    EXPECT_NE(yaml.find("    outline: [[-12, -10, 12, -1], [-12, -1, -3.5, 10]]\n"), std::string::npos) << yaml;
    EXPECT_EQ(yaml.find("outline", yaml.find("id: shed")), std::string::npos) << "no key for the box";
    Result<AssetCatalogue> again = parse(yaml);
    ASSERT_TRUE(again) << again.message();
    for (const AssetInfo& a : c->assets()) EXPECT_EQ(again->find(a.id)->outline, a.outline) << a.id;
    EXPECT_EQ(again->toYaml(), yaml);
}

TEST_F(AssetCatalogueTest, BadOutlinesNameFileLineAssetAndRectangle) {
    const std::string head =
        "assets:\n  - id: barn\n    file: models/a.glb\n    category: building\n"
        "    footprint: {width: 10, depth: 8}\n    height: 5\n";
    expectError(head + "    outline: [[-5, -4, 5, 4], [1, 2, 1, 3]]\n",
                {"catalogue.yaml:7:31:", "asset 'barn'", "key 'outline'", "rectangle 2 [1, 2, 1, 3] is empty"});
    expectError(head + "    outline: [[-5, -4, 5.2, 4]]\n",
                {"catalogue.yaml:7:15:", "asset 'barn'", "rectangle 1 [-5, -4, 5.2, 4]",
                 "outside the footprint box [-5, -4, 5, 4]"});
    expectError(head + "    outline: [[-5, -4, 5]]\n", {"catalogue.yaml:7:15:", "key 'outline'", "[x0, z0, x1, z1]"});
    expectError(head + "    outline: [[-5, -4, 5, four]]\n", {"catalogue.yaml:7:27:", "key 'outline'", "'four'"});
    expectError(head + "    outline: {x0: 1}\n", {"catalogue.yaml:7:14:", "key 'outline'", "got a map"});
    // Within a millimetre's rounding of the box is inside.
    Result<AssetCatalogue> ok = parse(head + "    outline: [[-5.001, -4, 5.001, 4.001]]\n");
    EXPECT_TRUE(ok) << ok.message();
}

TEST_F(AssetCatalogueTest, UnknownKeyNamesFileLineColumnAndKey) {
    expectError(R"(assets:
  - id: barn
    file: models/a.glb
    category: building
    heigth: 9
)",
                {"catalogue.yaml:5:5:", "asset 'barn'", "key 'heigth'", "not a catalogue key"});
}

TEST_F(AssetCatalogueTest, BadNumbersNameTheirLineAndKey) {
    expectError(R"(assets:
  - id: barn
    file: models/a.glb
    category: building
    footprint: {width: 12, depth: 20}
    height: tall
)",
                {"catalogue.yaml:6:13:", "key 'height'", "'tall'"});
    expectError(R"(assets:
  - id: barn
    file: models/a.glb
    category: building
    footprint: {width: -3, depth: 20}
    height: 5
)",
                {"catalogue.yaml:5:24:", "key 'footprint.width'", "more than 0"});
    expectError(R"(assets:
  - id: barn
    file: models/a.glb
    category: building
    footprint: {width: 3, depth: 20}
    height: 5
    weight: -1
)",
                {"catalogue.yaml:7:13:", "key 'weight'", "zero or more"});
    expectError(R"(assets:
  - id: barn
    file: models/a.glb
    category: building
    footprint: {width: 3}
    height: 5
)",
                {"catalogue.yaml:5:16:", "key 'footprint.depth'", "missing"});
}

TEST_F(AssetCatalogueTest, AModelLargerThanATownIsRefusedAsAMistakeOfUnits) {
    // Declared: up to 10 km is a size, beyond is an error naming the key.
    const std::string head = "assets:\n  - id: barn\n    file: models/a.glb\n    category: building\n";
    Result<AssetCatalogue> large = parse(head + "    footprint: {width: 10000, depth: 20}\n    height: 9999\n");
    EXPECT_TRUE(large) << large.message();
    expectError(head + "    footprint: {width: 10001, depth: 20}\n    height: 5\n",
                {"catalogue.yaml:5:24:", "key 'footprint.width'", "at most 10000 metres", "10001"});
    expectError(head + "    footprint: [3, 4]\n    height: 1e30\n",
                {"catalogue.yaml:6:13:", "key 'height'", "at most 10000 metres", "1e30"});
    // Measured: a model in millimetres read as metres (a 12 m house 12,000 "metres" wide) is
    // named with its size; before, its ground outline asked for a raster of 2.3e9 cells and
    // the catalogue failed with "std::bad_alloc".
    test::GltfFixture house = test::unitCube();
    house.nodes = {{{"scale", {12000.0, 9000.0, 8000.0}}, {"mesh", 0}}};
    test::writeGltf(mDir.path() / "user", "millimetres", house);
    expectError(
        "assets:\n  - id: house\n    file: user/millimetres.gltf\n    category: building\n",
        {"catalogue.yaml:3:11:", "asset 'house'", "millimetres.gltf", "measures 12000 metres along X", "units"});
    // Far beyond: said in three digits.
    house.nodes = {{{"scale", {1.0, 1e30, 1.0}}, {"mesh", 0}}};
    test::writeGltf(mDir.path() / "user", "astronomic", house);
    expectError("assets:\n  - id: tower\n    file: user/astronomic.gltf\n    category: building\n",
                {"asset 'tower'", "measures 1e+30 metres along Y"});
}

TEST_F(AssetCatalogueTest, MissingRequiredKeysAndDuplicatesAreNamed) {
    expectError("assets:\n  - id: barn\n    category: building\n", {"catalogue.yaml:2:5:", "key 'file'", "missing"});
    expectError("assets:\n  - file: models/a.glb\n    category: building\n",
                {"catalogue.yaml:2:5:", "asset #1", "key 'id'"});
    expectError(R"(assets:
  - id: barn
    file: models/a.glb
    category: building
    footprint: [3, 4]
    height: 5
  - id: barn
    file: models/b.glb
    category: building
    footprint: [3, 4]
    height: 5
)",
                {"catalogue.yaml:7:9:", "asset 'barn'", "used twice", "line 2"});
    expectError("assets:\n  - id: barn\n    id: again\n    file: models/a.glb\n    category: b\n",
                {"catalogue.yaml:3:5:", "key 'id'", "appears twice"});
}

TEST_F(AssetCatalogueTest, YamlSyntaxErrorsGiveTheirLine) {
    expectError("assets:\n  - id: barn\n    tags: [a, b\n    file: x\n", {"catalogue.yaml:", "YAML syntax error"});
    expectError("version: 7\nassets: []\n", {"catalogue.yaml:1:10:", "key 'version'", "version 1"});
    expectError("colour: red\nassets: []\n", {"catalogue.yaml:1:1:", "key 'colour'"});
    expectError("", {"catalogue.yaml", "empty"});
    expectError("- just\n- a list\n", {"catalogue.yaml:1:1:", "expected a map"});
}

TEST_F(AssetCatalogueTest, MissingModelFileIsNamed) {
    expectError(R"(assets:
  - id: barn
    file: models/missing.glb
    category: building
    footprint: [3, 4]
    height: 5
)",
                {"catalogue.yaml:3:11:", "asset 'barn'", "missing.glb", "does not exist"});
}

TEST_F(AssetCatalogueTest, CorruptModelIsNamedWhenItMustBeRead) {
    // No footprint: the mesh must be measured, and a.glb is not a model.
    expectError("assets:\n  - id: barn\n    file: models/a.glb\n    category: building\n",
                {"catalogue.yaml:3:11:", "asset 'barn'", "a.glb"});
    // With sizes given the file is only checked to exist, unless the caller asks to verify.
    const std::string_view sized =
        "assets:\n  - id: barn\n    file: models/a.glb\n    category: building\n"
        "    footprint: [3, 4]\n    height: 5\n";
    EXPECT_TRUE(parse(sized));
    AssetCatalogueOptions verify;
    verify.verifyModels = true;
    Result<AssetCatalogue> c = parse(sized, verify);
    ASSERT_FALSE(c);
    EXPECT_NE(c.message().find("a.glb"), std::string::npos) << c.message();
}

TEST_F(AssetCatalogueTest, UnreadableCatalogueIsNamed) {
    Result<AssetCatalogue> c = AssetCatalogue::load(mDir / "no-such-catalogue.yaml");
    ASSERT_FALSE(c);
    EXPECT_NE(c.message().find("no-such-catalogue.yaml"), std::string::npos);
}

TEST_F(AssetCatalogueTest, QueriesByCategoryAndTags) {
    Result<AssetCatalogue> c = parse(R"(assets:
  - {id: temple, file: models/a.glb, category: building, footprint: [20, 14], height: 10, tags: [ancient, religious]}
  - {id: tower, file: models/a.glb, category: building, footprint: [8, 8], height: 20, tags: [ancient, tower]}
  - {id: office, file: models/a.glb, category: building, footprint: [20, 20], height: 60, tags: [commercial, tower]}
  - {id: oak, file: models/b.glb, category: tree, footprint: [7, 7], height: 10, tags: [broadleaf, park]}
)");
    ASSERT_TRUE(c) << c.message();
    auto ids = [](const std::vector<const AssetInfo*>& v) {
        std::vector<std::string> out;
        for (const AssetInfo* a : v) out.push_back(a->id);
        return out;
    };
    using Ids = std::vector<std::string>;
    EXPECT_EQ(ids(c->ofCategory("building")), (Ids{"temple", "tower", "office"}));
    EXPECT_EQ(ids(c->ofCategory("tree")), (Ids{"oak"}));
    EXPECT_TRUE(c->ofCategory("grass").empty());
    EXPECT_EQ(ids(c->select({"building", {"ancient"}, {}, {}})), (Ids{"temple", "tower"}));
    EXPECT_EQ(ids(c->select({"building", {"ancient", "tower"}, {}, {}})), (Ids{"tower"}));
    EXPECT_EQ(ids(c->select({"", {}, {"religious", "park"}, {}})), (Ids{"temple", "oak"}));
    EXPECT_EQ(ids(c->select({"building", {"tower"}, {}, {"ancient"}})), (Ids{"office"}));
    EXPECT_EQ(c->categories(), (Ids{"building", "tree"}));
}

TEST_F(AssetCatalogueTest, WrittenYamlReadsBackTheSameEntries) {
    Result<AssetCatalogue> c = parse(R"(assets:
  - id: block
    file: user/block.gltf
    category: building
    tags: [odd tag, "yes", x]
    weight: 0.25
  - id: shed
    file: user/shed.obj
    category: shed-like
    footprint: [5.5, 3.25]
    height: 2
)");
    ASSERT_TRUE(c) << c.message();
    const std::string yaml = c->toYaml("a header\n\nsecond line");
    EXPECT_EQ(yaml.rfind("# a header\n#\n# second line\nversion: 1\n", 0), 0u) << yaml;
    test::writeText(mDir / "again.yaml", yaml);
    Result<AssetCatalogue> again = AssetCatalogue::load(mDir / "again.yaml");
    ASSERT_TRUE(again) << again.message() << "\n" << yaml;
    ASSERT_EQ(again->size(), c->size());
    for (std::size_t i = 0; i < c->size(); ++i) {
        const AssetInfo& a = c->assets()[i];
        const AssetInfo& b = again->assets()[i];
        EXPECT_EQ(a.id, b.id);
        EXPECT_EQ(a.file, b.file);
        EXPECT_EQ(a.category, b.category);
        EXPECT_NEAR(a.footprint.width, b.footprint.width, 5e-4);
        EXPECT_NEAR(a.footprint.depth, b.footprint.depth, 5e-4);
        EXPECT_NEAR(a.height, b.height, 5e-4);
        EXPECT_EQ(a.tags, b.tags);
        EXPECT_EQ(a.weight, b.weight);
    }
    EXPECT_EQ(again->toYaml(), c->toYaml());
}

// Found by tests/fuzz/catalogue_fuzz.cpp: 2e144 was written as the first 63 digits of its
// %.3f form (a buffer's length), which reads back as 2e62; 0.0004 was written as 0, which is no
// longer a positive size. Sizes now stop at 10 km; a weight has no bound.
TEST_F(AssetCatalogueTest, HugeAndTinySizesAreWrittenSoTheCatalogueReadsBackTheSame) {
    Result<AssetCatalogue> c = parse(R"(assets:
  - {id: huge, file: models/a.glb, category: building, footprint: {width: 2.19, depth: 9999.9999}, height: 10000, weight: 2e144}
  - {id: tiny, file: models/b.glb, category: building, footprint: [0.0004, 3], height: 0.0001, weight: 1e-9}
  - {id: plain, file: models/a.glb, category: building, footprint: [6.7004, 3.25], height: 2}
)");
    ASSERT_TRUE(c) << c.message();
    const std::string yaml = c->toYaml();
    Result<AssetCatalogue> again = parse(yaml);
    ASSERT_TRUE(again) << again.message() << "\n" << yaml;
    EXPECT_EQ(again->toYaml(), yaml) << "writing is a fixed point";
    const AssetInfo* huge = again->find("huge");
    const AssetInfo* tiny = again->find("tiny");
    ASSERT_TRUE(huge && tiny);
    EXPECT_EQ(huge->weight, 2e144);
    EXPECT_EQ(huge->height, 10000.0);
    EXPECT_EQ(tiny->footprint.width, 0.0004);
    EXPECT_EQ(tiny->weight, 1e-9);
    EXPECT_NE(yaml.find("footprint: {width: 6.7, depth: 3.25}"), std::string::npos)
        << "ordinary sizes keep millimetres:\n"
        << yaml;
}

// Found by tests/fuzz/catalogue_fuzz.cpp: quoted values were written with raw line breaks,
// which YAML folds (one break becomes a space, a blank line one break), so they read back
// changed.
TEST_F(AssetCatalogueTest, LineBreaksTabsAndControlCharactersInValuesReadBackTheSame) {
    AssetCatalogue c;
    AssetInfo a;
    a.id = "two\nlines";
    a.file = "models/a.glb";
    a.category = "blank\n\nline";
    a.tags = {"tab\there", "quote \" and \\ backslash",
              std::string("nul\x01"
                          "bell\x07"
                          "del\x7f"),
              "cr\r"};
    a.footprint = {3.0, 4.0};
    a.height = 5.0;
    ASSERT_TRUE(c.add(a).ok());
    const std::string yaml = c.toYaml();
    Result<AssetCatalogue> again = parse(yaml);
    ASSERT_TRUE(again) << again.message() << "\n" << yaml;
    ASSERT_EQ(again->size(), 1u);
    const AssetInfo& b = again->assets()[0];
    EXPECT_EQ(b.id, a.id);
    EXPECT_EQ(b.category, a.category);
    EXPECT_EQ(b.tags, a.tags);
    EXPECT_EQ(again->toYaml(), yaml);
}

TEST_F(AssetCatalogueTest, MergeReplacesByIdAndAppendsNewOnes) {
    Result<AssetCatalogue> base = parse(R"(assets:
  - {id: a, file: models/a.glb, category: building, footprint: [3, 3], height: 3}
  - {id: b, file: models/b.glb, category: building, footprint: [4, 4], height: 4}
)");
    ASSERT_TRUE(base);
    Result<AssetCatalogue> user = parse(R"(assets:
  - {id: b, file: models/b.glb, category: building, footprint: [4, 4], height: 4, weight: 0}
  - {id: c, file: models/a.glb, category: tree, footprint: [1, 1], height: 2}
)");
    ASSERT_TRUE(user);
    AssetCatalogue merged = *base;
    merged.merge(*user);
    ASSERT_EQ(merged.size(), 3u);
    EXPECT_EQ(merged.assets()[0].id, "a");
    EXPECT_EQ(merged.assets()[1].id, "b");
    EXPECT_EQ(merged.assets()[1].weight, 0.0);
    EXPECT_EQ(merged.assets()[2].id, "c");
}

TEST(AssetCatalogueAdd, RejectsInvalidEntriesByName) {
    AssetCatalogue c;
    AssetInfo info;
    info.id = "x";
    info.category = "building";
    info.footprint = {2, 3};
    info.height = 4;
    EXPECT_TRUE(c.add(info));
    Status dup = c.add(info);
    ASSERT_FALSE(dup);
    EXPECT_NE(dup.message().find("'x'"), std::string::npos);
    info.id = "flat";
    info.height = 0;
    Status flat = c.add(info);
    ASSERT_FALSE(flat);
    EXPECT_NE(flat.message().find("height"), std::string::npos);
    info.id = "ell";
    info.height = 4;
    info.outline = {{-1, -1.5, 1, 0}, {-1, 0, 0, 1.6}};
    Status outside = c.add(info);
    ASSERT_FALSE(outside);
    EXPECT_NE(outside.message().find("asset 'ell': outline rectangle 2"), std::string::npos) << outside.message();
    info.outline = {{-1, -1.5, 1, 0}, {-1, 0, -1, 1.5}};
    EXPECT_FALSE(c.add(info)) << "an empty rectangle";
    info.id = "";
    info.outline.clear();
    EXPECT_FALSE(c.add(info));
    EXPECT_EQ(c.size(), 1u);
}

}  // namespace
}  // namespace terrabit::core
