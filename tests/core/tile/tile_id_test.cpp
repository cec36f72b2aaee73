// TileId: Bing quadkeys, the slippy-map tile formula, lon/lat <-> EPSG:3857 <-> cell conversions and
// every error path. Expected values come from published examples or from the standard formulas
// written out here in lon/lat form (the implementation goes through Mercator metres instead).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <set>
#include <string>
#include <unordered_set>

#include "terrabit/core/tile/tile_id.h"

using namespace terrabit::core;

namespace {

constexpr double kPi = std::numbers::pi;

/// The OpenStreetMap wiki's "Slippy map tilenames" formula, in lon/lat, for the tile and the
/// fractional position inside it.
struct SlippyTile {
    double x;  ///< tile column with its fraction
    double y;  ///< tile row with its fraction
};
SlippyTile slippy(double lonDeg, double latDeg, int zoom) {
    const double n = std::ldexp(1.0, zoom);
    const double lat = latDeg * kPi / 180.0;
    return {(lonDeg + 180.0) / 360.0 * n, (1.0 - std::asinh(std::tan(lat)) / kPi) / 2.0 * n};
}

TileId tileOf(int zoom, std::int64_t x, std::int64_t y) {
    Result<TileId> t = TileId::fromZxy(zoom, x, y);
    EXPECT_TRUE(t.ok()) << t.message();
    return t.ok() ? *t : TileId{};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// --- quadkeys --------------------------------------------------------------------------------

TEST(TileId, LevelOneQuadkeysAreTheFourQuadrantsInReadingOrder) {
    EXPECT_EQ(tileOf(1, 0, 0).quadkey(), "0");
    EXPECT_EQ(tileOf(1, 1, 0).quadkey(), "1");
    EXPECT_EQ(tileOf(1, 0, 1).quadkey(), "2");
    EXPECT_EQ(tileOf(1, 1, 1).quadkey(), "3");
}

TEST(TileId, ChildrenOfTwoAreTwentyToTwentyThree) {
    Result<TileId> two = TileId::fromQuadkey("2");
    ASSERT_TRUE(two.ok()) << two.message();
    auto children = two->children();
    ASSERT_TRUE(children.has_value());
    EXPECT_EQ((*children)[0].quadkey(), "20");
    EXPECT_EQ((*children)[1].quadkey(), "21");
    EXPECT_EQ((*children)[2].quadkey(), "22");
    EXPECT_EQ((*children)[3].quadkey(), "23");
    for (const TileId& c : *children) {
        EXPECT_EQ(c.zoom, 2);
        ASSERT_TRUE(c.parent().has_value());
        EXPECT_EQ(*c.parent(), *two);
    }
}

TEST(TileId, BingDocumentationExampleTileThreeFiveAtLevelThreeIs213) {
    // "Bing Maps Tile System": tile XY (3, 5) at level 3 has quadkey "213".
    EXPECT_EQ(tileOf(3, 3, 5).quadkey(), "213");
    Result<TileId> parsed = TileId::fromQuadkey("213");
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    EXPECT_EQ(parsed->zoom, 3);
    EXPECT_EQ(parsed->x, 3u);
    EXPECT_EQ(parsed->y, 5u);
}

TEST(TileId, EmptyQuadkeyIsTheWorldTile) {
    Result<TileId> world = TileId::fromQuadkey("");
    ASSERT_TRUE(world.ok()) << world.message();
    EXPECT_EQ(*world, TileId{});
    EXPECT_EQ(TileId{}.quadkey(), "");
    EXPECT_EQ(TileId{}.tilesPerSide(), 1u);
}

TEST(TileId, QuadkeyRoundTripsForRandomTilesAtEveryZoom) {
    std::mt19937_64 rng(20240611);
    for (int zoom = 0; zoom <= kMaxZoom; ++zoom) {
        const std::uint64_t n = std::uint64_t{1} << zoom;
        std::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
        for (int i = 0; i < 200; ++i) {
            const TileId t = tileOf(zoom, static_cast<std::int64_t>(pick(rng)), static_cast<std::int64_t>(pick(rng)));
            const std::string key = t.quadkey();
            ASSERT_EQ(key.size(), static_cast<std::size_t>(zoom));
            Result<TileId> back = TileId::fromQuadkey(key);
            ASSERT_TRUE(back.ok()) << back.message();
            ASSERT_EQ(*back, t) << key;
        }
    }
    // The extreme tiles of the deepest zoom.
    const std::int64_t last = (std::int64_t{1} << kMaxZoom) - 1;
    EXPECT_EQ(tileOf(kMaxZoom, last, last).quadkey(), std::string(kMaxZoom, '3'));
    EXPECT_EQ(tileOf(kMaxZoom, 0, 0).quadkey(), std::string(kMaxZoom, '0'));
    EXPECT_EQ(tileOf(kMaxZoom, last, 0).quadkey(), std::string(kMaxZoom, '1'));
    EXPECT_EQ(tileOf(kMaxZoom, 0, last).quadkey(), std::string(kMaxZoom, '2'));
}

// --- errors ----------------------------------------------------------------------------------

TEST(TileId, QuadkeyWithABadDigitIsAnErrorNamingTheDigitAndPosition) {
    Result<TileId> t = TileId::fromQuadkey("0124");
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(contains(t.message(), "'4'")) << t.message();
    EXPECT_TRUE(contains(t.message(), "position 4")) << t.message();
    EXPECT_TRUE(contains(t.message(), "0124")) << t.message();

    EXPECT_FALSE(TileId::fromQuadkey("a").ok());
    EXPECT_FALSE(TileId::fromQuadkey("12 3").ok());
    EXPECT_FALSE(TileId::fromQuadkey("-1").ok());
    EXPECT_FALSE(TileId::fromQuadkey("\xff").ok());
    EXPECT_FALSE(TileId::fromQuadkey(std::string_view("01\0"
                                                      "2",
                                                      4))
                     .ok());
}

TEST(TileId, QuadkeyLongerThanThirtyDigitsIsAnError) {
    EXPECT_TRUE(TileId::fromQuadkey(std::string(30, '1')).ok());
    Result<TileId> t = TileId::fromQuadkey(std::string(31, '1'));
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(contains(t.message(), "31 digits")) << t.message();
    EXPECT_TRUE(contains(t.message(), "30")) << t.message();
    EXPECT_FALSE(TileId::fromQuadkey(std::string(1000, '0')).ok());
}

TEST(TileId, ZoomOutsideZeroToThirtyIsAnError) {
    Result<TileId> t = TileId::fromZxy(31, 0, 0);
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(contains(t.message(), "zoom 31")) << t.message();
    EXPECT_TRUE(contains(t.message(), "0..30")) << t.message();
    EXPECT_FALSE(TileId::fromZxy(-1, 0, 0).ok());
    EXPECT_FALSE(TileId::fromZxy(std::numeric_limits<int>::max(), 0, 0).ok());
    EXPECT_FALSE(TileId::fromZxy(std::numeric_limits<int>::min(), 0, 0).ok());
    EXPECT_TRUE(TileId::fromZxy(30, 0, 0).ok());
}

TEST(TileId, ColumnOrRowOutOfRangeIsAnErrorNamingTheRange) {
    Result<TileId> x = TileId::fromZxy(3, 8, 0);
    ASSERT_FALSE(x.ok());
    EXPECT_TRUE(contains(x.message(), "x 8")) << x.message();
    EXPECT_TRUE(contains(x.message(), "0..7")) << x.message();
    EXPECT_TRUE(contains(x.message(), "zoom 3")) << x.message();

    Result<TileId> y = TileId::fromZxy(3, 0, -1);
    ASSERT_FALSE(y.ok());
    EXPECT_TRUE(contains(y.message(), "y -1")) << y.message();

    EXPECT_FALSE(TileId::fromZxy(0, 1, 0).ok());
    EXPECT_FALSE(TileId::fromZxy(30, std::int64_t{1} << 30, 0).ok());
    EXPECT_FALSE(TileId::fromZxy(30, 0, std::numeric_limits<std::int64_t>::max()).ok());
    EXPECT_FALSE(TileId::fromZxy(30, std::numeric_limits<std::int64_t>::min(), 0).ok());
    EXPECT_TRUE(TileId::fromZxy(30, (std::int64_t{1} << 30) - 1, (std::int64_t{1} << 30) - 1).ok());
}

TEST(TileId, TileAtWithNanOrBadZoomIsAnError) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Result<TileId> a = tileAt({nan, 0.0}, 10);
    ASSERT_FALSE(a.ok());
    EXPECT_TRUE(contains(a.message(), "NaN")) << a.message();
    EXPECT_FALSE(tileAt({0.0, nan}, 10).ok());
    Result<TileId> b = tileAt({0.0, 0.0}, 31);
    ASSERT_FALSE(b.ok());
    EXPECT_TRUE(contains(b.message(), "zoom 31")) << b.message();
    EXPECT_FALSE(tileAt({0.0, 0.0}, -1).ok());
}

TEST(TileId, TilesCoveringRejectsEmptyNonFiniteBadZoomAndTooLargeBoxes) {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(tilesCovering(Box2{}, 10).ok());  // default box is empty
    EXPECT_FALSE(tilesCovering(Box2{{0, 0}, {inf, 1}}, 10).ok());
    EXPECT_FALSE(tilesCovering(Box2{{nan, 0}, {1, 1}}, 10).ok());
    EXPECT_FALSE(tilesCovering(Box2{{0, 0}, {1, 1}}, 31).ok());
    Result<std::vector<TileId>> big =
        tilesCovering(Box2{{-kMercatorHalfWorld, -kMercatorHalfWorld}, {kMercatorHalfWorld, kMercatorHalfWorld}}, 30);
    ASSERT_FALSE(big.ok());
    EXPECT_TRUE(contains(big.message(), "limit")) << big.message();
    EXPECT_TRUE(contains(big.message(), "zoom 30")) << big.message();
    Result<std::vector<TileId>> limited = tilesCovering(Box2{{0, 0}, {1, 1}}, 0, 0);
    EXPECT_FALSE(limited.ok());
}

// --- known places ----------------------------------------------------------------------------

TEST(TileId, MonacoCasinoAtZoom17MatchesTheSlippyMapFormula) {
    // Casino de Monte-Carlo, Place du Casino.
    const LonLat casino{7.42795, 43.73934};
    const SlippyTile expected = slippy(casino.lon, casino.lat, 17);
    Result<TileId> t = tileAt(lonLatToMercator(casino), 17);
    ASSERT_TRUE(t.ok()) << t.message();
    EXPECT_EQ(t->x, static_cast<std::uint32_t>(std::floor(expected.x)));
    EXPECT_EQ(t->y, static_cast<std::uint32_t>(std::floor(expected.y)));
    // By hand: (7.42795 + 180) / 360 * 2^17 = 68240.4...
    EXPECT_EQ(t->x, 68240u);

    // The cell inside the tile is the formula's fraction times 256.
    const Vec2 cell = t->mercatorToCell(lonLatToMercator(casino));
    EXPECT_NEAR(cell.x, (expected.x - std::floor(expected.x)) * 256.0, 1e-6);
    EXPECT_NEAR(cell.y, (expected.y - std::floor(expected.y)) * 256.0, 1e-6);
}

TEST(TileId, WellKnownPlacesLandInTheirQuadrants) {
    struct Place {
        const char* name;
        LonLat where;
    };
    const Place places[] = {
        {"Sydney Opera House", {151.2153, -33.8568}}, {"Buenos Aires Obelisco", {-58.3816, -34.6037}},
        {"Tokyo Tower", {139.7454, 35.6586}},         {"Statue of Liberty", {-74.0445, 40.6892}},
        {"Cape Town", {18.4241, -33.9249}},           {"Reykjavik", {-21.9426, 64.1466}}};
    for (const Place& p : places) {
        for (int zoom : {1, 2, 5, 9, 13, 17, 21, 25}) {
            const SlippyTile s = slippy(p.where.lon, p.where.lat, zoom);
            Result<TileId> t = tileAt(lonLatToMercator(p.where), zoom);
            ASSERT_TRUE(t.ok()) << t.message();
            EXPECT_EQ(t->x, static_cast<std::uint32_t>(std::floor(s.x))) << p.name << " z" << zoom;
            EXPECT_EQ(t->y, static_cast<std::uint32_t>(std::floor(s.y))) << p.name << " z" << zoom;
        }
    }
    // Worked by hand: Sydney is east and south, so quadrant 3 at level 1; at level 2 it is in
    // column 3 (151.2 E > 90 E) and row 2 (33.9 S is north of the 66.5 S row border).
    Result<TileId> sydney = tileAt(lonLatToMercator({151.2153, -33.8568}), 2);
    ASSERT_TRUE(sydney.ok());
    EXPECT_EQ(sydney->quadkey(), "31");
    Result<TileId> liberty = tileAt(lonLatToMercator({-74.0445, 40.6892}), 1);
    ASSERT_TRUE(liberty.ok());
    EXPECT_EQ(liberty->quadkey(), "0");
}

TEST(TileId, MetresPerCellAtZoom17InMonacoIsAboutEightySixCentimetres) {
    EXPECT_NEAR(metresPerCell(43.73, 17), 0.863, 0.002);
    // The well-known ground resolution at the equator, zoom 0: 156543.03 m per 256-pixel tile.
    EXPECT_NEAR(metresPerCell(0.0, 0), 156543.03392804097, 1e-6);
    EXPECT_NEAR(metresPerCell(60.0, 0), 156543.03392804097 / 2.0, 1e-6);
    // A zoom-17 cell is the equator's length over 2^17 tiles of 256 cells.
    EXPECT_NEAR(tileOf(17, 0, 0).cellSizeMercator(), 2.0 * kPi * kEarthRadius / std::ldexp(1.0, 25), 1e-12);
}

// --- conversions -----------------------------------------------------------------------------

TEST(TileId, LonLatToMercatorMatchesTheClosedFormAndRoundTrips) {
    // Independent closed form: x = R * lon, y = R * asinh(tan(lat)).
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> lon(-180.0, 180.0);
    std::uniform_real_distribution<double> lat(-85.0, 85.0);
    for (int i = 0; i < 2000; ++i) {
        const LonLat p{lon(rng), lat(rng)};
        const Vec2 m = lonLatToMercator(p);
        EXPECT_NEAR(m.x, kEarthRadius * p.lon * kPi / 180.0, 1e-6);
        EXPECT_NEAR(m.y, kEarthRadius * std::asinh(std::tan(p.lat * kPi / 180.0)), 1e-6);
        const LonLat back = mercatorToLonLat(m);
        ASSERT_NEAR(back.lon, p.lon, 1e-9);
        ASSERT_NEAR(back.lat, p.lat, 1e-9);
    }
    // The Mercator square's corners.
    const Vec2 ne = lonLatToMercator({180.0, kMaxLatitude});
    EXPECT_NEAR(ne.x, kMercatorHalfWorld, 1e-6);
    EXPECT_NEAR(ne.y, kMercatorHalfWorld, 1e-3);
    // Latitudes beyond the projection's limit are clamped onto it.
    EXPECT_EQ(lonLatToMercator({0.0, 89.9}).y, lonLatToMercator({0.0, kMaxLatitude}).y);
    EXPECT_EQ(lonLatToMercator({0.0, -90.0}).y, lonLatToMercator({0.0, -kMaxLatitude}).y);
}

TEST(TileId, CellAndMercatorRoundTripAtEveryZoom) {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> cell(-64.0, 320.0);
    for (int zoom = 0; zoom <= kMaxZoom; ++zoom) {
        const std::uint64_t n = std::uint64_t{1} << zoom;
        std::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
        for (int i = 0; i < 50; ++i) {
            const TileId t{zoom, static_cast<std::uint32_t>(pick(rng)), static_cast<std::uint32_t>(pick(rng))};
            const Vec2 c{cell(rng), cell(rng)};
            const Vec2 back = t.mercatorToCell(t.cellToMercator(c));
            // Mercator metres carry ~1e-16 relative error on values up to 2e7 m: in cells of a
            // deep zoom that is a few 1e-6 cells.
            const double tolerance =
                8.0 * kMercatorHalfWorld * std::numeric_limits<double>::epsilon() / t.cellSizeMercator() + 1e-9;
            ASSERT_NEAR(back.x, c.x, tolerance) << "z" << zoom;
            ASSERT_NEAR(back.y, c.y, tolerance) << "z" << zoom;
        }
    }
}

TEST(TileId, TileCornersAreCellZeroAndTwoFiftySix) {
    const TileId t = tileOf(17, 68240, 47890);
    const Box2 b = t.boundsMercator();
    const Vec2 nw = t.mercatorToCell({b.min.x, b.max.y});
    const Vec2 se = t.mercatorToCell({b.max.x, b.min.y});
    EXPECT_NEAR(nw.x, 0.0, 1e-6);
    EXPECT_NEAR(nw.y, 0.0, 1e-6);
    EXPECT_NEAR(se.x, 256.0, 1e-6);
    EXPECT_NEAR(se.y, 256.0, 1e-6);
    // The centre of cell (0, 0) maps to half a cell inside the north-west corner.
    const Vec2 c = t.cellToMercator({0.5, 0.5});
    EXPECT_NEAR(c.x, b.min.x + 0.5 * t.cellSizeMercator(), 1e-6);
    EXPECT_NEAR(c.y, b.max.y - 0.5 * t.cellSizeMercator(), 1e-6);
}

// --- hierarchy -------------------------------------------------------------------------------

TEST(TileId, ParentAndChildrenAreInverse) {
    EXPECT_FALSE(TileId{}.parent().has_value());
    EXPECT_FALSE(tileOf(kMaxZoom, 5, 9).children().has_value());
    std::mt19937_64 rng(3);
    for (int zoom = 0; zoom < kMaxZoom; ++zoom) {
        std::uniform_int_distribution<std::uint64_t> pick(0, (std::uint64_t{1} << zoom) - 1);
        const TileId t{zoom, static_cast<std::uint32_t>(pick(rng)), static_cast<std::uint32_t>(pick(rng))};
        const auto children = t.children();
        ASSERT_TRUE(children.has_value());
        for (int i = 0; i < 4; ++i) {
            const TileId& c = (*children)[i];
            EXPECT_EQ(c.quadkey(), t.quadkey() + static_cast<char>('0' + i));
            ASSERT_TRUE(c.parent().has_value());
            EXPECT_EQ(*c.parent(), t);
        }
    }
}

TEST(TileId, ChildrenTileTheParentsBounds) {
    const TileId t = tileOf(5, 17, 11);
    const Box2 p = t.boundsMercator();
    double area = 0.0;
    const std::array<TileId, 4> children = *t.children();
    for (const TileId& c : children) {
        const Box2 b = c.boundsMercator();
        EXPECT_GE(b.min.x, p.min.x - 1e-6);
        EXPECT_LE(b.max.x, p.max.x + 1e-6);
        EXPECT_GE(b.min.y, p.min.y - 1e-6);
        EXPECT_LE(b.max.y, p.max.y + 1e-6);
        area += b.width() * b.height();
    }
    EXPECT_NEAR(area, p.width() * p.height(), 1e-3 * p.width());
    // NW child shares the parent's north-west corner; SE child its south-east corner.
    EXPECT_NEAR(children[0].boundsMercator().max.y, p.max.y, 1e-6);
    EXPECT_NEAR(children[0].boundsMercator().min.x, p.min.x, 1e-6);
    EXPECT_NEAR(children[3].boundsMercator().min.y, p.min.y, 1e-6);
    EXPECT_NEAR(children[3].boundsMercator().max.x, p.max.x, 1e-6);
}

TEST(TileId, NeighboursWrapAtTheAntimeridianButNotPastThePoles) {
    const TileId east = tileOf(3, 7, 4);
    ASSERT_TRUE(east.neighbour(1, 0).has_value());
    EXPECT_EQ(*east.neighbour(1, 0), tileOf(3, 0, 4));
    const TileId west = tileOf(3, 0, 4);
    EXPECT_EQ(*west.neighbour(-1, 0), tileOf(3, 7, 4));
    EXPECT_EQ(*west.neighbour(-17, 1), tileOf(3, 7, 5));
    EXPECT_EQ(*west.neighbour(16, 0), west);

    const TileId north = tileOf(3, 2, 0);
    EXPECT_FALSE(north.neighbour(0, -1).has_value());
    EXPECT_FALSE(north.neighbour(1, -1).has_value());
    const TileId south = tileOf(3, 2, 7);
    EXPECT_FALSE(south.neighbour(0, 1).has_value());
    EXPECT_EQ(*south.neighbour(0, -7), north);

    EXPECT_EQ(*tileOf(17, 100, 200).neighbour(1, 1), tileOf(17, 101, 201));
    EXPECT_EQ(*tileOf(17, 100, 200).neighbour(0, 0), tileOf(17, 100, 200));
    // The world tile is its own east-west neighbour and has none north or south.
    EXPECT_EQ(*TileId{}.neighbour(1, 0), TileId{});
    EXPECT_FALSE(TileId{}.neighbour(0, 1).has_value());
    // The deepest zoom still wraps.
    const std::int64_t last = (std::int64_t{1} << kMaxZoom) - 1;
    EXPECT_EQ(*tileOf(kMaxZoom, last, 0).neighbour(1, 0), tileOf(kMaxZoom, 0, 0));
}

// --- bounds ----------------------------------------------------------------------------------

TEST(TileId, WorldTileBoundsAreTheMercatorSquare) {
    const Box2 m = TileId{}.boundsMercator();
    EXPECT_DOUBLE_EQ(m.min.x, -kMercatorHalfWorld);
    EXPECT_DOUBLE_EQ(m.min.y, -kMercatorHalfWorld);
    EXPECT_DOUBLE_EQ(m.max.x, kMercatorHalfWorld);
    EXPECT_DOUBLE_EQ(m.max.y, kMercatorHalfWorld);
    const Box2 g = TileId{}.boundsLonLat();
    EXPECT_NEAR(g.min.x, -180.0, 1e-9);
    EXPECT_NEAR(g.max.x, 180.0, 1e-9);
    EXPECT_NEAR(g.min.y, -kMaxLatitude, 1e-9);
    EXPECT_NEAR(g.max.y, kMaxLatitude, 1e-9);
}

TEST(TileId, LonLatBoundsMatchTheInverseSlippyFormula) {
    // Inverse formula from the OSM wiki: lon = x / n * 360 - 180, lat = atan(sinh(pi (1 - 2 y / n))).
    auto lonOf = [](double x, int z) { return x / std::ldexp(1.0, z) * 360.0 - 180.0; };
    auto latOf = [](double y, int z) {
        return std::atan(std::sinh(kPi * (1.0 - 2.0 * y / std::ldexp(1.0, z)))) * 180.0 / kPi;
    };
    const TileId t = tileOf(17, 68240, 47890);
    const Box2 b = t.boundsLonLat();
    EXPECT_NEAR(b.min.x, lonOf(68240, 17), 1e-9);
    EXPECT_NEAR(b.max.x, lonOf(68241, 17), 1e-9);
    EXPECT_NEAR(b.max.y, latOf(47890, 17), 1e-9);
    EXPECT_NEAR(b.min.y, latOf(47891, 17), 1e-9);
}

TEST(TileId, NeighbouringTilesShareTheirBorderBitForBit) {
    // Regression: bounds used to be minX + size, which differs in the last bit from the next
    // column's minX, leaving hairline gaps or overlaps between tiles.
    std::mt19937_64 rng(21);
    for (int zoom = 1; zoom <= kMaxZoom; ++zoom) {
        std::uniform_int_distribution<std::uint64_t> pick(0, (std::uint64_t{1} << zoom) - 2);
        for (int i = 0; i < 100; ++i) {
            const TileId t{zoom, static_cast<std::uint32_t>(pick(rng)), static_cast<std::uint32_t>(pick(rng))};
            const Box2 b = t.boundsMercator();
            ASSERT_EQ(b.max.x, t.neighbour(1, 0)->boundsMercator().min.x) << t.quadkey();
            ASSERT_EQ(b.min.y, t.neighbour(0, 1)->boundsMercator().max.y) << t.quadkey();
            ASSERT_LT(b.min.x, b.max.x);
            ASSERT_LT(b.min.y, b.max.y);
        }
    }
}

TEST(TileId, TileAtAgreesWithBoundsAtEveryZoom) {
    std::mt19937_64 rng(22);
    for (int zoom = 0; zoom <= kMaxZoom; ++zoom) {
        const std::uint64_t n = std::uint64_t{1} << zoom;
        std::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
        for (int i = 0; i < 200; ++i) {
            const TileId t{zoom, static_cast<std::uint32_t>(pick(rng)), static_cast<std::uint32_t>(pick(rng))};
            const Box2 b = t.boundsMercator();
            // The north-west corner is inside (west and north borders belong to the tile)...
            ASSERT_EQ(*tileAt({b.min.x, b.max.y}, zoom), t) << t.quadkey();
            ASSERT_EQ(*tileAt(b.centre(), zoom), t) << t.quadkey();
            // ...the east and south borders belong to the neighbours.
            if (t.x + 1 < n) {
                ASSERT_EQ(tileAt({b.max.x, b.centre().y}, zoom)->x, t.x + 1) << t.quadkey();
            }
            if (t.y + 1 < n) {
                ASSERT_EQ(tileAt({b.centre().x, b.min.y}, zoom)->y, t.y + 1) << t.quadkey();
            }
            // The last representable coordinate before the east border is still inside.
            ASSERT_EQ(tileAt({std::nextafter(b.max.x, -1e300), b.centre().y}, zoom)->x, t.x) << t.quadkey();
        }
    }
}

TEST(TileId, TileAtPutsBorderPointsInTheEasternAndSouthernTileAndClampsOutsideTheWorld) {
    const TileId t = tileOf(4, 5, 9);
    const Box2 b = t.boundsMercator();
    Result<TileId> nwCorner = tileAt({b.min.x, b.max.y}, 4);
    ASSERT_TRUE(nwCorner.ok());
    EXPECT_EQ(*nwCorner, t);
    Result<TileId> inside = tileAt(b.centre(), 4);
    ASSERT_TRUE(inside.ok());
    EXPECT_EQ(*inside, t);
    Result<TileId> seCorner = tileAt({b.max.x, b.min.y}, 4);
    ASSERT_TRUE(seCorner.ok());
    EXPECT_EQ(*seCorner, tileOf(4, 6, 10));

    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(*tileAt({-1e9, 1e9}, 4), tileOf(4, 0, 0));
    EXPECT_EQ(*tileAt({1e9, -1e9}, 4), tileOf(4, 15, 15));
    EXPECT_EQ(*tileAt({inf, -inf}, 4), tileOf(4, 15, 15));
    EXPECT_EQ(*tileAt({kMercatorHalfWorld, -kMercatorHalfWorld}, 30),
              tileOf(30, (std::int64_t{1} << 30) - 1, (std::int64_t{1} << 30) - 1));
}

TEST(TileId, TilesCoveringListsTheBlockInRowMajorOrder) {
    const TileId a = tileOf(10, 300, 400);
    const TileId b = tileOf(10, 302, 401);
    // A box from inside a to inside b: 3 columns by 2 rows.
    const Box2 box{{a.boundsMercator().centre().x, b.boundsMercator().centre().y},
                   {b.boundsMercator().centre().x, a.boundsMercator().centre().y}};
    Result<std::vector<TileId>> tiles = tilesCovering(box, 10);
    ASSERT_TRUE(tiles.ok()) << tiles.message();
    ASSERT_EQ(tiles->size(), 6u);
    const TileId expected[] = {tileOf(10, 300, 400), tileOf(10, 301, 400), tileOf(10, 302, 400),
                               tileOf(10, 300, 401), tileOf(10, 301, 401), tileOf(10, 302, 401)};
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ((*tiles)[i], expected[i]) << i;

    // A box exactly equal to one tile's bounds is closed: it touches the east and south
    // neighbours along its border.
    Result<std::vector<TileId>> closed = tilesCovering(a.boundsMercator(), 10);
    ASSERT_TRUE(closed.ok());
    ASSERT_EQ(closed->size(), 4u);
    EXPECT_EQ((*closed)[0], a);
    EXPECT_EQ((*closed)[3], tileOf(10, 301, 401));
    // Shrunk by a hair it is the tile alone.
    const Box2 ab = a.boundsMercator();
    Result<std::vector<TileId>> inner = tilesCovering(
        Box2{{ab.min.x, std::nextafter(ab.min.y, 1e300)}, {std::nextafter(ab.max.x, -1e300), ab.max.y}}, 10);
    ASSERT_TRUE(inner.ok());
    ASSERT_EQ(inner->size(), 1u);
    EXPECT_EQ(inner->front(), a);
    // A degenerate box (a point) is one tile.
    const Vec2 c = a.boundsMercator().centre();
    Result<std::vector<TileId>> point = tilesCovering(Box2{c, c}, 10);
    ASSERT_TRUE(point.ok());
    ASSERT_EQ(point->size(), 1u);
    EXPECT_EQ(point->front(), a);
}

TEST(TileId, TilesCoveringMonacoAtZoom17MatchesTheSlippyFormula) {
    // The Monaco sample's header bounding box.
    const LonLat sw{7.409205, 43.723350};
    const LonLat ne{7.448637, 43.751690};
    const Box2 box{lonLatToMercator(sw), lonLatToMercator(ne)};
    Result<std::vector<TileId>> tiles = tilesCovering(box, 17);
    ASSERT_TRUE(tiles.ok()) << tiles.message();
    const SlippyTile a = slippy(sw.lon, ne.lat, 17);
    const SlippyTile b = slippy(ne.lon, sw.lat, 17);
    const auto columns = static_cast<std::size_t>(std::floor(b.x) - std::floor(a.x) + 1);
    const auto rows = static_cast<std::size_t>(std::floor(b.y) - std::floor(a.y) + 1);
    EXPECT_EQ(tiles->size(), columns * rows);
    EXPECT_EQ(tiles->front(), tileOf(17, static_cast<std::int64_t>(a.x), static_cast<std::int64_t>(a.y)));
    EXPECT_EQ(tiles->back(), tileOf(17, static_cast<std::int64_t>(b.x), static_cast<std::int64_t>(b.y)));
    std::set<std::string> unique;
    for (const TileId& t : *tiles) unique.insert(t.quadkey());
    EXPECT_EQ(unique.size(), tiles->size());
}

TEST(TileId, HashAndOrderingDistinguishTiles) {
    std::unordered_set<TileId> set;
    for (int zoom = 0; zoom <= 4; ++zoom) {
        for (std::uint32_t y = 0; y < (1u << zoom); ++y) {
            for (std::uint32_t x = 0; x < (1u << zoom); ++x) set.insert(TileId{zoom, x, y});
        }
    }
    EXPECT_EQ(set.size(), 1u + 4u + 16u + 64u + 256u);
    EXPECT_LT(tileOf(3, 1, 2), tileOf(3, 2, 1));
    EXPECT_LT(tileOf(2, 3, 3), tileOf(3, 0, 0));
    EXPECT_NE(std::hash<TileId>{}(tileOf(3, 1, 2)), std::hash<TileId>{}(tileOf(3, 2, 1)));
}
