// The shipped model library: the generator is deterministic and the committed files are its
// output; every model follows the conventions, stays in its triangle budget and has the shape
// its name promises (a courtyard is open, an L leaves a quadrant empty, pagoda eaves overhang,
// trees have brown trunks under green crowns); the shipped catalogue agrees with the meshes.

#include "terrabit/core/assets/default_asset_library.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "asset_test_support.h"
#include "terrabit/core/assets/asset_catalogue.h"

namespace terrabit::core {
namespace {

using test::ScratchDir;

const std::filesystem::path kShipped = std::filesystem::path(TERRABIT_RESOURCES_DIR) / "assets";

// Built once: every test below reads the same library.
const std::vector<DefaultAsset>& library() {
    static const std::vector<DefaultAsset> lib = buildDefaultAssetLibrary();
    return lib;
}

const DefaultAsset& asset(std::string_view id) {
    for (const DefaultAsset& a : library()) {
        if (a.info.id == id) return a;
    }
    ADD_FAILURE() << "no asset " << id;
    return library().front();
}

// Heights (metres) where a vertical line at (x, z) meets the mesh, highest first.
std::vector<double> verticalHits(const AssetMesh& m, double x, double z) {
    std::vector<double> hits;
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        double px[3], py[3], pz[3];
        for (std::size_t k = 0; k < 3; ++k) {
            const std::uint32_t v = m.indices[t * 3 + k];
            px[k] = m.positions[v * 3];
            py[k] = m.positions[v * 3 + 1];
            pz[k] = m.positions[v * 3 + 2];
        }
        // Barycentric coordinates of (x, z) in the triangle's projection onto the ground.
        const double d = (pz[1] - pz[2]) * (px[0] - px[2]) + (px[2] - px[1]) * (pz[0] - pz[2]);
        if (std::abs(d) < 1e-12) continue;  // a vertical face: a line cannot cross it
        const double a = ((pz[1] - pz[2]) * (x - px[2]) + (px[2] - px[1]) * (z - pz[2])) / d;
        const double b = ((pz[2] - pz[0]) * (x - px[2]) + (px[0] - px[2]) * (z - pz[2])) / d;
        const double c = 1.0 - a - b;
        if (a < 0 || b < 0 || c < 0) continue;
        hits.push_back(a * py[0] + b * py[1] + c * py[2]);
    }
    std::sort(hits.rbegin(), hits.rend());
    return hits;
}

TEST(DefaultAssetLibrary, GeneratorIsByteForByteDeterministic) {
    ScratchDir dir;
    ASSERT_TRUE(writeDefaultAssetLibrary(dir / "first"));
    ASSERT_TRUE(writeDefaultAssetLibrary(dir / "second"));
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "first")) {
        if (!entry.is_regular_file()) continue;
        const auto relative = std::filesystem::relative(entry.path(), dir / "first");
        EXPECT_EQ(test::readBytes(entry.path()), test::readBytes(dir / "second" / relative)) << relative;
        ++files;
    }
    EXPECT_EQ(files, library().size() + 1);  // every model plus catalogue.yaml
}

TEST(DefaultAssetLibrary, CommittedFilesAreTheGeneratorsOutput) {
    // If this fails after a change to the generator, regenerate: terrabit-assetgen --out resources/assets
    ScratchDir dir;
    ASSERT_TRUE(writeDefaultAssetLibrary(dir.path()));
    EXPECT_EQ(test::readBytes(dir / "catalogue.yaml"), test::readBytes(kShipped / "catalogue.yaml"));
    for (const DefaultAsset& a : library()) {
        const auto shipped = test::readBytes(kShipped / a.info.file);
        ASSERT_FALSE(shipped.empty()) << a.info.file << " is not in resources/assets";
        EXPECT_TRUE(shipped == test::readBytes(dir / a.info.file)) << a.info.file << " differs from the generator";
    }
}

TEST(DefaultAssetLibrary, HasTheRequiredVarietyOfBuildingsAndVegetation) {
    std::set<std::string> ids;
    int buildings = 0;
    int vegetation = 0;
    double smallest = 1e9, largest = 0, lowest = 1e9, tallest = 0;
    for (const DefaultAsset& a : library()) {
        EXPECT_TRUE(ids.insert(a.info.id).second) << "duplicate id " << a.info.id;
        if (a.info.category == "building") {
            ++buildings;
            const double area = a.info.footprint.width * a.info.footprint.depth;
            smallest = std::min(smallest, area);
            largest = std::max(largest, area);
            lowest = std::min(lowest, a.info.height);
            tallest = std::max(tallest, a.info.height);
        } else {
            EXPECT_TRUE(a.info.category == "tree" || a.info.category == "bush" || a.info.category == "grass" ||
                        a.info.category == "flower")
                << a.info.id << ": " << a.info.category;
            ++vegetation;
        }
    }
    EXPECT_GE(buildings, 12);
    EXPECT_GE(vegetation, 6);
    EXPECT_LE(smallest, 7.0 * 7.0);   // a ~6 × 6 m cottage
    EXPECT_GE(largest, 40.0 * 25.0);  // a ~40 × 25 m warehouse
    EXPECT_LE(lowest, 7.0);           // one storey
    EXPECT_GE(tallest, 60.0);         // a tower
    for (const char* id : {"apartment_l", "apartment_u", "courtyard_block", "pagoda", "conifer_spruce", "broadleaf_oak",
                           "palm", "bush_round", "grass_clump"}) {
        EXPECT_TRUE(ids.count(id)) << id;
    }
    EXPECT_TRUE(asset("pagoda").info.hasTag("ancient"));
    EXPECT_TRUE(asset("temple_classical").info.hasTag("ancient"));
    EXPECT_TRUE(asset("office_tower").info.hasTag("tower"));
}

TEST(DefaultAssetLibrary, TownBuildingsHaveTheirRealSizes) {
    // Width × depth ranges (metres, either way round) of the real thing, the catalogue's
    // measured footprint including roof overhangs and awnings.
    struct Expected {
        const char* id;
        double minSide, maxSide, minOther, maxOther;
    };
    const Expected expected[] = {
        {"garage_single", 2.8, 3.3, 5.2, 5.8},   {"garage_double", 5.2, 5.8, 5.8, 6.3},
        {"carport", 2.8, 3.3, 5.2, 5.8},         {"shed_tool", 1.3, 1.6, 1.6, 2.0},
        {"shed_small", 2.0, 2.5, 2.4, 3.0},      {"shed_large", 4.0, 4.6, 4.0, 4.6},
        {"kiosk", 2.4, 3.1, 2.8, 3.2},           {"hut", 3.0, 4.0, 3.5, 4.6},
        {"greenhouse", 2.8, 3.2, 4.3, 4.7},      {"substation", 2.4, 2.8, 2.8, 3.2},
        {"barn", 9.0, 12.0, 15.0, 18.0},         {"factory_hall", 38.0, 42.0, 78.0, 82.0},
        {"supermarket", 40.0, 45.0, 58.0, 62.0}, {"sports_hall", 26.0, 30.0, 44.0, 47.0},
        {"slab_block", 11.5, 13.0, 59.0, 61.0},
    };
    for (const Expected& e : expected) {
        SCOPED_TRACE(e.id);
        const AssetInfo& info = asset(e.id).info;
        EXPECT_EQ(info.category, "building");
        const double a = std::min(info.footprint.width, info.footprint.depth);
        const double b = std::max(info.footprint.width, info.footprint.depth);
        EXPECT_GE(a, e.minSide);
        EXPECT_LE(a, e.maxSide);
        EXPECT_GE(b, e.minOther);
        EXPECT_LE(b, e.maxOther);
    }
    // Below the old smallest model (a 6.7 m cottage): what most unmatched footprints are.
    EXPECT_LT(asset("shed_small").info.footprint.width * asset("shed_small").info.footprint.depth, 7.0);
    EXPECT_TRUE(asset("garage_single").info.hasTag("garage"));
    EXPECT_TRUE(asset("factory_hall").info.hasTag("industrial"));
    EXPECT_TRUE(asset("supermarket").info.hasTag("retail"));
    EXPECT_TRUE(asset("slab_block").info.hasTag("apartment"));
}

TEST(DefaultAssetLibrary, CarportIsOpenUnderItsRoof) {
    const AssetMesh& m = asset("carport").mesh;
    const auto middle = verticalHits(m, 0.0, 0.3);
    ASSERT_FALSE(middle.empty());
    EXPECT_GT(middle.back(), 2.0) << "nothing between the ground and the roof where the car stands";
}

TEST(DefaultAssetLibrary, EveryModelFollowsTheConventionsAndBudgets) {
    for (const DefaultAsset& a : library()) {
        SCOPED_TRACE(a.info.id);
        const AssetMesh& m = a.mesh;
        ASSERT_TRUE(m.validate()) << m.validate().message();
        EXPECT_LE(m.triangleCount(), a.info.category == "building" ? 2000u : 600u);
        const ModelBounds b = m.bounds();
        EXPECT_EQ(b.min[1], 0.0) << "must stand on y = 0";
        EXPECT_NEAR(b.min[0] + b.max[0], 0.0, 2.0 / 4096) << "footprint must be centred in X";
        EXPECT_NEAR(b.min[2] + b.max[2], 0.0, 2.0 / 4096) << "footprint must be centred in Z";
        for (std::size_t t = 0; t < m.triangleCount(); ++t) {
            const std::uint32_t i0 = m.indices[t * 3], i1 = m.indices[t * 3 + 1], i2 = m.indices[t * 3 + 2];
            const double ux = m.positions[i1 * 3] - m.positions[i0 * 3];
            const double uy = m.positions[i1 * 3 + 1] - m.positions[i0 * 3 + 1];
            const double uz = m.positions[i1 * 3 + 2] - m.positions[i0 * 3 + 2];
            const double vx = m.positions[i2 * 3] - m.positions[i0 * 3];
            const double vy = m.positions[i2 * 3 + 1] - m.positions[i0 * 3 + 1];
            const double vz = m.positions[i2 * 3 + 2] - m.positions[i0 * 3 + 2];
            const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
            const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
            ASSERT_GT(len, 1e-7) << "degenerate triangle " << t;
            // Flat shading: each corner's normal is the face's normal, which also proves the
            // winding (front = counter-clockwise) agrees with the lighting.
            for (std::uint32_t v : {i0, i1, i2}) {
                const double n0 = m.normals[v * 3], n1 = m.normals[v * 3 + 1], n2 = m.normals[v * 3 + 2];
                ASSERT_NEAR(n0 * n0 + n1 * n1 + n2 * n2, 1.0, 1e-5);
                ASSERT_GT((n0 * nx + n1 * ny + n2 * nz) / len, 0.999) << "triangle " << t;
            }
        }
    }
}

TEST(DefaultAssetLibrary, CourtyardBlockIsOpenInTheMiddle) {
    const AssetMesh& m = asset("courtyard_block").mesh;
    const double height = asset("courtyard_block").info.height;
    const auto middle = verticalHits(m, 0.0, 0.0);
    ASSERT_FALSE(middle.empty());
    EXPECT_LT(middle.front(), 0.5) << "only the courtyard floor at the centre";
    const auto wing = verticalHits(m, 0.0, 10.0);
    ASSERT_FALSE(wing.empty());
    EXPECT_GT(wing.front(), 0.9 * height - 1.0);
}

TEST(DefaultAssetLibrary, LShapedBlockLeavesItsFrontRightQuadrantEmpty) {
    const AssetMesh& m = asset("apartment_l").mesh;
    EXPECT_TRUE(verticalHits(m, 6.0, 5.0).empty()) << "the open quadrant";
    EXPECT_FALSE(verticalHits(m, 6.0, -5.0).empty()) << "the back wing";
    EXPECT_FALSE(verticalHits(m, -7.0, 5.0).empty()) << "the side wing";
}

TEST(DefaultAssetLibrary, UShapedBlockLeavesItsFrontYardOpen) {
    const DefaultAsset& u = asset("apartment_u");
    const AssetMesh& m = u.mesh;
    EXPECT_TRUE(verticalHits(m, 0.0, 5.0).empty()) << "the yard between the side wings";
    EXPECT_FALSE(verticalHits(m, 0.0, -6.0).empty()) << "the back wing";
    EXPECT_FALSE(verticalHits(m, -9.0, 6.0).empty()) << "the left wing";
    EXPECT_FALSE(verticalHits(m, 9.0, 6.0).empty()) << "the right wing";
    EXPECT_TRUE(u.info.hasTag("u_shape"));
    for (const char* tag : {"residential", "apartment", "urban", "irregular"}) {
        EXPECT_TRUE(u.info.hasTag(tag)) << tag << ", like apartment_l";
    }
}

TEST(DefaultAssetLibrary, PagodaEavesOverhangOpenSpace) {
    const AssetMesh& m = asset("pagoda").mesh;
    // Beyond the ground-floor wall (half-width 4.4 m) but under the first eave (6.3 m); z kept
    // off the axis so the line does not run along the roofs' edges.
    const auto hits = verticalHits(m, 5.6, 0.37);
    ASSERT_GE(hits.size(), 2u);
    EXPECT_GT(hits.front(), 3.0) << "an eave above";
    EXPECT_NEAR(hits.back(), 1.0, 0.05) << "the platform below";
    for (double h : hits) EXPECT_FALSE(h > 1.1 && h < 3.0) << "nothing between platform and eave: " << h;
    // Just outside the ground-floor wall, the eaves of three tiers (each a roof and its
    // underside) are stacked above the platform.
    const auto stacked = verticalHits(m, 4.6, 0.37);
    EXPECT_GE(std::count_if(stacked.begin(), stacked.end(), [](double h) { return h > 3.0; }), 6);
    EXPECT_GE(verticalHits(m, 0.0, 0.37).front(), 15.0) << "a tall tower of tiers";
    EXPECT_GE(asset("pagoda").info.height, 20.0) << "with a finial on top";
}

TEST(DefaultAssetLibrary, TreesHaveBrownTrunksUnderGreenCrowns) {
    for (const char* id :
         {"conifer_spruce", "conifer_fir", "pine_stone", "cypress", "broadleaf_oak", "broadleaf_birch", "palm"}) {
        SCOPED_TRACE(id);
        const DefaultAsset& tree = asset(id);
        const AssetMesh& m = tree.mesh;
        double greenAbove = 0, faces = 0;
        bool trunkSeen = false;
        for (std::size_t t = 0; t < m.triangleCount(); ++t) {
            const std::uint32_t v = m.indices[t * 3];
            const double y = m.positions[v * 3 + 1];
            const float r = m.colours[v * 4], g = m.colours[v * 4 + 1], b = m.colours[v * 4 + 2];
            if (y < 0.3 && std::abs(m.positions[v * 3]) < 1.5 && std::abs(m.positions[v * 3 + 2]) < 1.5) {
                // Bark: brown (red over blue) or birch white; never leaf green.
                trunkSeen = true;
                EXPECT_FALSE(g > r * 1.3 && g > b * 1.3) << "green at the foot of the trunk";
            }
            if (y > 0.6 * tree.info.height) {
                faces += 1;
                if (g > r && g > b) greenAbove += 1;
            }
        }
        EXPECT_TRUE(trunkSeen);
        ASSERT_GT(faces, 0);
        EXPECT_GT(greenAbove / faces, 0.8) << "the crown should be green";
    }
}

TEST(DefaultAssetLibrary, ShippedCatalogueAgreesWithEveryMeshWithinOnePercent) {
    AssetCatalogueOptions options;
    options.verifyModels = true;  // reads every .glb back, as a user's catalogue would be
    Result<AssetCatalogue> catalogue = AssetCatalogue::load(kShipped / "catalogue.yaml", options);
    ASSERT_TRUE(catalogue) << catalogue.message();
    ASSERT_EQ(catalogue->size(), library().size());
    for (const AssetInfo& info : catalogue->assets()) {
        SCOPED_TRACE(info.id);
        ASSERT_FALSE(info.bounds.empty());
        EXPECT_NEAR(info.bounds.size(0), info.footprint.width, 0.01 * info.footprint.width);
        EXPECT_NEAR(info.bounds.size(2), info.footprint.depth, 0.01 * info.footprint.depth);
        EXPECT_NEAR(info.bounds.size(1), info.height, 0.01 * info.height);
        EXPECT_GT(info.weight, 0.0);
        EXPECT_FALSE(info.tags.empty());
        // The outline written (or, for a box, measured now from the .glb) is the generator's.
        const std::vector<OutlineRect>& built = asset(info.id).info.outline;
        ASSERT_EQ(info.outline.size(), built.size());
        for (std::size_t i = 0; i < built.size(); ++i) {
            EXPECT_NEAR(info.outline[i].x0, built[i].x0, 1e-3);
            EXPECT_NEAR(info.outline[i].z0, built[i].z0, 1e-3);
            EXPECT_NEAR(info.outline[i].x1, built[i].x1, 1e-3);
            EXPECT_NEAR(info.outline[i].z1, built[i].z1, 1e-3);
        }
    }
    EXPECT_EQ(catalogue->ofCategory("building").size(), 30u);
    AssetFilter ancient;
    ancient.category = "building";
    ancient.allTags = {"ancient"};
    std::set<std::string> ancientIds;
    for (const AssetInfo* a : catalogue->select(ancient)) ancientIds.insert(a->id);
    EXPECT_EQ(ancientIds, (std::set<std::string>{"pagoda", "round_tower", "temple_classical"}));
}

}  // namespace
}  // namespace terrabit::core
