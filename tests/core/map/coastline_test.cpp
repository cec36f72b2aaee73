#include <gtest/gtest.h>

#include <algorithm>

#include "terrabit/core/map/coastline.h"
#include "terrabit/core/raster/rasterizer.h"

using namespace terrabit::core;

namespace {

Feature coast(std::string id, std::vector<Vec2> points, FeatureKind kind = FeatureKind::Line) {
    Feature f;
    f.id = std::move(id);
    f.kind = kind;
    f.points = std::move(points);
    f.partEnds = {static_cast<std::uint32_t>(f.points.size())};
    f.tags = {{"natural", "coastline"}};
    f.updateBounds();
    return f;
}

/// Whether a point is sea: even-odd over the sea's rings, by a crossing count (the slow,
/// obvious reference).
bool isSea(const Feature& sea, Vec2 p) {
    bool inside = false;
    std::uint32_t begin = 0;
    for (std::uint32_t end : sea.partEnds) {
        const std::uint32_t n = end - begin;
        for (std::uint32_t i = 0; i < n; ++i) {
            const Vec2 a = sea.points[begin + i];
            const Vec2 b = sea.points[begin + (i + 1) % n];
            if ((a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y)) inside = !inside;
        }
        begin = end;
    }
    return inside;
}

const Box2 kExtent{{0, 0}, {100, 100}};

}  // namespace

TEST(Coastline, LandOnTheLeftPutsTheSeaOnTheRight) {
    // Running east along y = 40: land to the north (left), sea to the south.
    const std::vector<Feature> features{coast("w1", {{0, 40}, {50, 45}, {100, 40}})};
    const SeaArea sea = buildSea(features, kExtent, "test.osm");
    EXPECT_EQ(sea.openChains, 1);
    EXPECT_TRUE(isSea(sea.sea, {50, 10}));
    EXPECT_TRUE(isSea(sea.sea, {1, 1}));
    EXPECT_FALSE(isSea(sea.sea, {50, 80}));
    EXPECT_FALSE(isSea(sea.sea, {99, 99}));
    EXPECT_TRUE(sea.warnings.empty());
}

TEST(Coastline, ReversedWayPutsTheSeaOnTheOtherSide) {
    const std::vector<Feature> features{coast("w1", {{100, 40}, {50, 45}, {0, 40}})};
    const SeaArea sea = buildSea(features, kExtent, "test.osm");
    EXPECT_FALSE(isSea(sea.sea, {50, 10}));
    EXPECT_TRUE(isSea(sea.sea, {50, 80}));
}

TEST(Coastline, WaysInAnyOrderAreJoinedIntoOneChain) {
    // A bay: the coast comes in from the west, dips south and leaves to the east, in three ways
    // given out of order.
    const std::vector<Feature> features{coast("w3", {{70, 50}, {100, 60}}), coast("w1", {{0, 60}, {30, 50}}),
                                        coast("w2", {{30, 50}, {50, 20}, {70, 50}})};
    const SeaArea sea = buildSea(features, kExtent, "test.osm");
    EXPECT_EQ(sea.openChains, 1);
    EXPECT_EQ(sea.coastlineWays, 3);
    EXPECT_TRUE(isSea(sea.sea, {50, 10}));
    EXPECT_TRUE(isSea(sea.sea, {90, 5}));
    EXPECT_FALSE(isSea(sea.sea, {50, 40}));  // inside the bay's land side
    EXPECT_FALSE(isSea(sea.sea, {50, 90}));
}

TEST(Coastline, IslandInTheSeaIsAHole) {
    // Island: counter-clockwise (y up), land inside.
    const std::vector<Feature> features{coast("w1", {{0, 70}, {100, 70}}),
                                        coast("w2", {{40, 20}, {60, 20}, {60, 40}, {40, 40}, {40, 20}})};
    const SeaArea sea = buildSea(features, kExtent, "test.osm");
    EXPECT_EQ(sea.closedRings, 1);
    EXPECT_TRUE(isSea(sea.sea, {20, 30}));
    EXPECT_FALSE(isSea(sea.sea, {50, 30}));
    EXPECT_FALSE(isSea(sea.sea, {50, 90}));
}

TEST(Coastline, IslandExtractIsSurroundedBySea) {
    // Only a closed island (as GDAL files closed coastline ways: an area): the sea is the
    // extent around it.
    const std::vector<Feature> features{coast("w9", {{40, 20}, {60, 20}, {60, 40}, {40, 40}}, FeatureKind::Area)};
    const SeaArea sea = buildSea(features, kExtent, "test.osm");
    EXPECT_EQ(sea.openChains, 0);
    EXPECT_TRUE(isSea(sea.sea, {10, 90}));
    EXPECT_FALSE(isSea(sea.sea, {50, 30}));
}

TEST(Coastline, TwoCoastsMakeTwoSeasAlongTheBorder) {
    // A strip of land x in [40, 60] across the extent, sea to both sides: two chains, each
    // with the land on its left.
    const std::vector<Feature> features{coast("w1", {{40, 100}, {40, 0}}), coast("w2", {{60, 0}, {60, 100}})};
    const SeaArea sea = buildSea(features, kExtent, "test.osm");
    EXPECT_EQ(sea.openChains, 2);
    EXPECT_TRUE(isSea(sea.sea, {10, 50}));
    EXPECT_TRUE(isSea(sea.sea, {90, 50}));
    EXPECT_FALSE(isSea(sea.sea, {50, 50}));
}

TEST(Coastline, ChainEndingFarInsideTheExtentIsReportedByWay) {
    const std::vector<Feature> features{coast("w7", {{0, 40}, {50, 40}})};
    const SeaArea sea = buildSea(features, kExtent, "monaco.osm.pbf");
    ASSERT_EQ(sea.warnings.size(), 1u);
    EXPECT_NE(sea.warnings[0].find("monaco.osm.pbf"), std::string::npos);
    EXPECT_NE(sea.warnings[0].find("w7 ends"), std::string::npos);
}

TEST(Coastline, NoCoastlineMeansNoSea) {
    Feature road = coast("w1", {{0, 40}, {100, 40}});
    road.tags = {{"highway", "primary"}};
    const SeaArea sea = buildSea(std::vector<Feature>{road}, kExtent, "test.osm");
    EXPECT_TRUE(sea.sea.points.empty());
    EXPECT_EQ(sea.coastlineWays, 0);
}

TEST(Coastline, SeaRasterizesToTheCellsTheReferenceCalls) {
    // The rasterizer's even-odd fill of the rings agrees with the crossing-count reference at
    // every cell centre (extent = a 100 × 100 cell grid here, y flipped as cells run south).
    const std::vector<Feature> features{coast("w1", {{0, 70}, {30, 55}, {70, 75}, {100, 70}}),
                                        coast("w2", {{40, 20}, {60, 20}, {60, 40}, {40, 40}, {40, 20}})};
    const SeaArea sea = buildSea(features, kExtent, "test.osm");
    std::vector<Vec2> cells;
    for (const Vec2& p : sea.sea.points) cells.push_back({p.x, 100.0 - p.y});
    BitGrid grid(128, 100);
    Rasterizer r;
    ASSERT_TRUE(
        r.polygon(PolygonView{cells, sea.sea.partEnds}, {FillRule::EvenOdd, Coverage::CellCentre}, grid.view()));
    int mismatches = 0;
    for (int y = 0; y < 100; ++y) {
        for (int x = 0; x < 100; ++x) mismatches += grid.test(x, y) != isSea(sea.sea, {x + 0.5, 100.0 - (y + 0.5)});
    }
    EXPECT_EQ(mismatches, 0);
}
