// Generated building meshes on real footprints: every single-ring building of the bundled
// Monaco and of Krems (read through terrabit::io), drawn as a generated building, gets a roof
// whose area is GEOS's area of its outline within 0.1 % — the ear clipping holds on the
// collinear runs, near-duplicate corners and odd shapes of real data, not only on test shapes.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../support/generated_mesh_checks.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/scene/generated_building_mesh.h"

namespace terrabit::core {
namespace {

struct Tally {
    std::size_t drawn = 0;
    std::size_t refused = 0;  ///< rings checkGeneratedBuilding refuses (GEOS calls them invalid too)
};

Tally checkEveryBuilding(const std::filesystem::path& file) {
    Tally tally;
    const Result<MapData> map = io::readMap(file);
    EXPECT_TRUE(map) << map.message();
    if (!map) return tally;
    for (const Feature& f : map->features) {
        if (f.kind != FeatureKind::Area || f.partCount() != 1 || !f.tag("building")) continue;
        // Metres about the ring's first corner, so float positions keep their centimetres.
        const std::span<const Vec2> ring = f.part(0);
        GeneratedBuilding g;
        for (const Vec2& p : ring) g.outline.push_back({p.x - ring[0].x, p.y - ring[0].y});
        g.wallHeight = 9.0f;
        const double area = terrabit::test::geosRingArea(g.outline);
        if (!checkGeneratedBuilding(g)) {
            ++tally.refused;
            EXPECT_LT(area, 0.0) << f.id << ": refused (" << checkGeneratedBuilding(g).message()
                                 << ") though GEOS finds it valid";
            continue;
        }
        EXPECT_GT(area, 0.0) << f.id << ": drawn though GEOS finds it invalid";
        const AssetMesh mesh = generatedBuildingMesh(g);
        EXPECT_TRUE(mesh.validate()) << f.id;
        EXPECT_NEAR(terrabit::test::upwardArea(mesh), area, 1e-3 * area) << f.id << " (" << ring.size() << " corners)";
        ++tally.drawn;
    }
    return tally;
}

TEST(GeneratedBuildingReal, EveryMonacoBuildingGetsARoofOfItsArea) {
    const Tally t =
        checkEveryBuilding(std::filesystem::path(TERRABIT_RESOURCES_DIR) / "maps/monaco-2022-07-19.osm.pbf");
    EXPECT_GT(t.drawn, 900u);
    EXPECT_LT(t.refused, t.drawn / 100 + 1);
}

TEST(GeneratedBuildingReal, EveryKremsBuildingGetsARoofOfItsArea) {
    const Tally t = checkEveryBuilding(std::filesystem::path(TERRABIT_TEST_DATA_DIR) / "krems-an-der-donau.osm");
    EXPECT_GT(t.drawn, 900u);
    EXPECT_LT(t.refused, t.drawn / 100 + 1);
}

}  // namespace
}  // namespace terrabit::core
