// GroundGrading (issue #18 Terrain): roads within their grade bound, a bridge not draped, lakes
// flat at their shore's lowest height, rivers never climbing along their flow, and shared tile
// edges identical — on analytic terrains and small synthetic maps in global cells.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

#include "terrabit/core/terrain/ground_grading.h"
#include "terrabit/core/tile/ground_frame.h"

namespace terrabit::core::terrain {
namespace {

constexpr int kGradingZoom = 17;
const GroundFrame kCells{{}, kGradingZoom};
/// A tile near Monaco and its north-west corner in global cells.
const TileId kTile{kGradingZoom, 68238, 47793};
const Vec2 kOrigin{double(kTile.x) * kTileCells, double(kTile.y) * kTileCells};

using Terrain = std::function<double(Vec2 cell)>;  // metres at a global cell position

HeightSampler samplerOf(const Terrain& t) {
    return [t](Vec2 cell) -> Result<float> { return static_cast<float>(t(cell)); };
}

/// The raw heights of a tile from the terrain at its samples.
HeightTile rawTile(const Terrain& t, TileId tile) {
    HeightTile h;
    h.reset(tile);
    for (int r = 0; r <= kTileCells; ++r) {
        for (int c = 0; c <= kTileCells; ++c) {
            h.heights[HeightTile::index(r, c)] =
                static_cast<float>(t({double(tile.x) * kTileCells + c, double(tile.y) * kTileCells + r}));
        }
    }
    return h;
}

/// A line or area feature through points given in the tile's cells.
GradedFeature feature(GradedKind kind, std::string id, std::vector<Vec2> tileCells, double width = 6.0) {
    GradedFeature f;
    f.kind = kind;
    f.id = std::move(id);
    for (const Vec2& p : tileCells) f.points.push_back(kCells.cellToMercator(kOrigin + p));
    f.partEnds = {static_cast<std::uint32_t>(f.points.size())};
    f.widthMetres = width;
    return f;
}

GroundGrading gradeOrFail(const std::vector<GradedFeature>& features, const Terrain& t, double grade = 0.1) {
    auto g = GroundGrading::build(features, kGradingZoom, {grade}, samplerOf(t));
    EXPECT_TRUE(g.ok()) << g.message();
    return g.ok() ? std::move(*g) : GroundGrading();
}

double metresOf(const GroundGrading::Segment& s) { return std::hypot(s.b.x - s.a.x, s.b.y - s.a.y) * s.metresPerCell; }

TEST(GroundGrading, RoadGradesStayWithinTheBoundOnASteepSlopeAndFollowAGentleOne) {
    // A ramp rising 30 % for 40 m (12 m), flat either side: a road over it is spread to 10 %,
    // cut into the top and lifted at the foot.
    const Terrain ramp = [](Vec2 c) { return 100.0 + 0.3 * 0.863 * std::clamp(c.x - kOrigin.x - 100.0, 0.0, 47.0); };
    const GroundGrading g = gradeOrFail({feature(GradedKind::Road, "w1", {{10, 128}, {120, 128}, {246, 128}})}, ramp);
    ASSERT_FALSE(g.segments().empty());
    double deepest = 0.0;
    for (const auto& s : g.segments()) {
        EXPECT_LE(std::abs(double(s.hb) - s.ha), 0.1 * metresOf(s) + 1e-3) << "a step steeper than 10 %";
        EXPECT_LE(std::abs(s.hb - ramp(s.b)), kMaxCutMetres + 1e-3);
        deepest = std::max(deepest, std::abs(s.hb - ramp(s.b)));
    }
    EXPECT_GT(deepest, 2.0) << "the road leaves the ramp to keep its grade";

    // A 4 % slope is within the bound: the road keeps the terrain's heights (a plane is a fixed
    // point of the smoothing, and its own envelope).
    const Terrain gentle = [](Vec2 c) { return 50.0 + 0.04 * (c.x - kOrigin.x) + 0.01 * (c.y - kOrigin.y); };
    const GroundGrading flat = gradeOrFail({feature(GradedKind::Road, "w2", {{10, 40}, {200, 60}})}, gentle);
    ASSERT_FALSE(flat.segments().empty());
    for (const auto& s : flat.segments()) {
        EXPECT_NEAR(s.ha, gentle(s.a), 0.02);
        EXPECT_NEAR(s.hb, gentle(s.b), 0.02);
    }
}

TEST(GroundGrading, ARoadUpALongerSteepHillStaysWithinTheDeepestCutOfTheTerrain) {
    // 30 % for 200 m: no cut of 10 m makes 10 % of it; the road follows the hill at that distance.
    const Terrain hill = [](Vec2 c) { return 100.0 + 0.3 * 0.863 * (c.x - kOrigin.x); };
    const GroundGrading g = gradeOrFail({feature(GradedKind::Road, "w1", {{10, 128}, {246, 128}})}, hill);
    ASSERT_FALSE(g.segments().empty());
    double deepest = 0.0;
    for (const auto& s : g.segments()) deepest = std::max(deepest, std::abs(s.hb - hill(s.b)));
    EXPECT_LE(deepest, kMaxCutMetres + 1e-3);
    EXPECT_GT(deepest, kMaxCutMetres - 0.5) << "it does cut and fill as deep as it may";
}

TEST(GroundGrading, TheGradedTileCarriesTheRoadAndBlendsItsSidesIntoTheTerrain) {
    const Terrain steep = [](Vec2 c) { return 100.0 + 0.3 * std::clamp(c.x - kOrigin.x - 100.0, 0.0, 40.0); };
    const GroundGrading g = gradeOrFail({feature(GradedKind::Road, "w1", {{0, 128}, {256, 128}}, 8.0)}, steep);
    HeightTile h = rawTile(steep, kTile);
    GradingScratch scratch;
    g.apply(h, scratch);
    // On the centreline every step along the road is within the bound.
    const double mpc = g.segments().front().metresPerCell;
    for (int c = 1; c <= kTileCells; ++c) {
        EXPECT_LE(std::abs(h.at(128, c) - h.at(128, c - 1)), 0.1 * mpc + 1e-3) << "column " << c;
    }
    // Far from the road the terrain is untouched.
    for (int c = 0; c <= kTileCells; c += 16) {
        EXPECT_EQ(h.at(20, c), static_cast<float>(steep(kOrigin + Vec2{double(c), 20.0})));
        EXPECT_EQ(h.at(236, c), static_cast<float>(steep(kOrigin + Vec2{double(c), 236.0})));
    }
}

TEST(GroundGrading, ABridgeKeepsItsDeckBetweenItsEndsAndTheValleyUnderItIsNotDraped) {
    // A valley 40 m deep across the tile's middle columns; roads on both rims, a bridge between.
    const Terrain valley = [](Vec2 c) {
        const double x = c.x - kOrigin.x - 128.0;
        return std::abs(x) < 60.0 ? 20.0 + 40.0 * std::abs(x) / 60.0 : 60.0;
    };
    const std::vector<GradedFeature> map = {
        feature(GradedKind::Road, "w1", {{0, 128}, {60, 128}}),
        feature(GradedKind::Bridge, "w2", {{60, 128}, {128, 128}, {196, 128}}),
        feature(GradedKind::Road, "w3", {{196, 128}, {256, 128}}),
    };
    const GroundGrading g = gradeOrFail(map, valley);
    ASSERT_EQ(g.bridges().size(), 1u);
    const BridgeProfile& deck = g.bridges().front();
    EXPECT_EQ(deck.id, "w2");
    ASSERT_EQ(deck.cells.size(), deck.heights.size());
    for (std::size_t k = 0; k < deck.heights.size(); ++k) {
        EXPECT_NEAR(deck.heights[k], 60.0, 0.05) << "the deck runs level between its rims";
    }
    HeightTile h = rawTile(valley, kTile);
    const HeightTile raw = h;
    GradingScratch scratch;
    g.apply(h, scratch);
    // Under the bridge (away from its ends' corridors) the ground is the valley as it was.
    for (int c = 90; c <= 166; ++c) EXPECT_EQ(h.at(128, c), raw.at(128, c)) << "column " << c;
    EXPECT_LT(h.at(128, 128), 25.0F);
}

TEST(GroundGrading, ALakeIsFlatAtTheLowestHeightOfItsShore) {
    // A tilted bowl: the shore is lowest on its west side.
    const Terrain bowl = [](Vec2 c) {
        const Vec2 d = c - kOrigin - Vec2{128, 128};
        return 200.0 + 0.002 * (d.x * d.x + d.y * d.y) + 0.1 * d.x;
    };
    const std::vector<Vec2> ring = {{80, 80}, {176, 80}, {176, 176}, {80, 176}};
    const GroundGrading g = gradeOrFail({feature(GradedKind::Lake, "w9", ring)}, bowl);
    ASSERT_EQ(g.lakes().size(), 1u);
    // The reference: the lowest terrain along the ring, densely.
    double lowest = 1e9;
    for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 a = ring[i], b = ring[(i + 1) % ring.size()];
        for (int k = 0; k <= 1000; ++k) lowest = std::min(lowest, bowl(kOrigin + a + (b - a) * (k / 1000.0)));
    }
    EXPECT_NEAR(g.lakes().front().level, lowest, 0.05);
    HeightTile h = rawTile(bowl, kTile);
    GradingScratch scratch;
    g.apply(h, scratch);
    for (int r = 81; r < 176; ++r) {
        for (int c = 81; c < 176; ++c) ASSERT_EQ(h.at(r, c), g.lakes().front().level) << r << "," << c;
    }
    EXPECT_EQ(h.at(40, 40), static_cast<float>(bowl(kOrigin + Vec2{40, 40}))) << "outside the lake: the terrain";
}

TEST(GroundGrading, ARiverNeverClimbsAlongItsFlowAndAcrossItsWays) {
    // A river flowing east over a bump 8 m high, drawn as two ways joined end to end.
    const Terrain bump = [](Vec2 c) {
        const double x = c.x - kOrigin.x;
        return 30.0 - 0.05 * x + 8.0 * std::exp(-((x - 150) * (x - 150)) / 400.0);
    };
    const std::vector<GradedFeature> map = {
        feature(GradedKind::River, "w1", {{0, 100}, {100, 110}}, 10.0),
        feature(GradedKind::River, "w2", {{100, 110}, {256, 120}}, 10.0),
    };
    const GroundGrading g = gradeOrFail(map, bump);
    ASSERT_FALSE(g.segments().empty());
    for (const auto& s : g.segments()) {
        EXPECT_FALSE(s.road);
        EXPECT_LE(s.hb, s.ha) << "climbs at x " << s.b.x - kOrigin.x;
        EXPECT_LE(s.hb, bump(s.b) + 1e-3) << "above the terrain at x " << s.b.x - kOrigin.x;
    }
    HeightTile h = rawTile(bump, kTile);
    GradingScratch scratch;
    g.apply(h, scratch);
    // Along the river the samples nearest its centreline fall or stay level, and over the bump
    // the bed is cut below the terrain.
    float previous = h.at(100, 0);
    for (int c = 1; c <= kTileCells; ++c) {
        const int r = static_cast<int>(std::lround(c < 100 ? 100 + c * 0.1 : 110 + (c - 100) * 10.0 / 156.0));
        EXPECT_LE(h.at(r, c), previous + 1e-4F) << "the bed climbs at column " << c;
        previous = h.at(r, c);
    }
    EXPECT_LT(h.at(115, 150), bump(kOrigin + Vec2{150, 115}) - 5.0);
}

TEST(GroundGrading, TilesSharingAnEdgeGiveItTheSameBitsAndAnEmptyGradingChangesNothing) {
    const Terrain hills = [](Vec2 c) { return 80.0 + 10.0 * std::sin(c.x * 0.03) + 7.0 * std::cos(c.y * 0.05); };
    const std::vector<GradedFeature> map = {
        feature(GradedKind::Road, "w1", {{-40, 30}, {250, 90}, {300, 250}, {500, 270}}, 9.0),
        feature(GradedKind::River, "w2", {{256, -20}, {255, 300}}, 12.0),
        feature(GradedKind::Lake, "w3", {{220, 180}, {300, 170}, {290, 230}, {230, 240}}),
    };
    const GroundGrading g = gradeOrFail(map, hills);
    const TileId east{kGradingZoom, kTile.x + 1, kTile.y};
    HeightTile west = rawTile(hills, kTile), eastTile = rawTile(hills, east);
    GradingScratch scratch;
    g.apply(eastTile, scratch);  // the east tile first: the order does not matter
    g.apply(west, scratch);
    int changed = 0;
    for (int r = 0; r <= kTileCells; ++r) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(west.at(r, kTileCells)), std::bit_cast<std::uint32_t>(eastTile.at(r, 0)))
            << "row " << r;
        changed += west.at(r, kTileCells) != static_cast<float>(hills(kOrigin + Vec2{256.0, double(r)}));
    }
    EXPECT_GT(changed, 0) << "the shared edge crosses the road, the river and the lake";

    HeightTile untouched = rawTile(hills, kTile);
    const HeightTile before = untouched;
    GroundGrading().apply(untouched, scratch);
    EXPECT_EQ(untouched.heights, before.heights);
}

TEST(GroundGrading, ABadGradeAndAFailingSamplerAreErrorsThatSayWhat) {
    const std::vector<GradedFeature> map = {feature(GradedKind::Road, "w1", {{0, 0}, {10, 10}})};
    auto bad = GroundGrading::build(map, kGradingZoom, {-0.5}, samplerOf([](Vec2) { return 0.0; }));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().kind, ErrorKind::BadArguments);
    EXPECT_NE(bad.message().find("grade"), std::string::npos) << bad.message();
    auto failing = GroundGrading::build(map, kGradingZoom, {0.1}, [](Vec2) -> Result<float> {
        return Error{"dem.tif: pixels no longer readable", ErrorKind::BadInput};
    });
    ASSERT_FALSE(failing.ok());
    EXPECT_NE(failing.message().find("dem.tif"), std::string::npos) << failing.message();
}

}  // namespace
}  // namespace terrabit::core::terrain
