// Footprint rasterization and occupancy: the conservative spans against a per-cell
// separating-axis reference, the guarantee that overlapping rectangles share a cell, the reach
// limit, and test-and-set across tile borders.

#include <gtest/gtest.h>

#include <utility>

#include <numbers>
#include <random>
#include <set>

#include "placement_test_support.h"
#include "terrabit/core/placement/greedy_mesh.h"
#include "terrabit/core/placement/occupancy_map.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

std::array<Vec2, 4> rect(Vec2 c, double hw, double hd, double angle) {
    const Vec2 u{std::cos(angle), std::sin(angle)}, v{-u.y, u.x};
    return {c - u * hw - v * hd, c + u * hw - v * hd, c + u * hw + v * hd, c - u * hw + v * hd};
}

/// Whether the closed rectangle meets the open interior of cell (x, y): a strictly positive
/// overlap on every separating axis (the cell's two and the rectangle's two).
bool touchesCell(const std::array<Vec2, 4>& r, std::int64_t x, std::int64_t y) {
    const std::array<Vec2, 4> cell{Vec2{double(x), double(y)},
                                   {double(x + 1), double(y)},
                                   {double(x + 1), double(y + 1)},
                                   {double(x), double(y + 1)}};
    return overlapDepth(r, cell) > 0.0;
}

std::set<std::pair<std::int64_t, std::int64_t>> spanCells(const std::vector<CellSpan>& spans) {
    std::set<std::pair<std::int64_t, std::int64_t>> out;
    for (const CellSpan& s : spans) {
        for (std::int64_t x = s.x0; x < s.x1; ++x) out.insert({x, s.y});
    }
    return out;
}

TEST(FootprintSpans, MatchTheConservativeReferenceOnRandomRectangles) {
    const TileId tile{17, 68891, 47861};
    const CellRegion region = CellRegion::around(tile);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> pos(-20, 276), half(0.05, 25), turn(0, std::numbers::pi);
    std::vector<CellSpan> spans;
    for (int trial = 0; trial < 300; ++trial) {
        const Vec2 c{tile.x * 256.0 + pos(rng), tile.y * 256.0 + pos(rng)};
        const auto r = rect(c, half(rng), half(rng), trial % 5 == 0 ? 0.0 : turn(rng));
        ASSERT_TRUE(footprintSpans(r, region, spans));
        const auto got = spanCells(spans);
        Box2 b;
        for (const Vec2 p : r) b.extend(p);
        std::set<std::pair<std::int64_t, std::int64_t>> expected;
        for (auto y = std::int64_t(std::floor(b.min.y)) - 1; y <= std::int64_t(b.max.y) + 1; ++y) {
            for (auto x = std::int64_t(std::floor(b.min.x)) - 1; x <= std::int64_t(b.max.x) + 1; ++x) {
                if (touchesCell(r, x, y)) expected.insert({x, y});
            }
        }
        ASSERT_EQ(got, expected) << "trial " << trial;
    }
}

TEST(FootprintSpans, OverlappingRectanglesAlwaysShareACell) {
    const TileId tile{17, 68891, 47861};
    const CellRegion region = CellRegion::around(tile);
    std::mt19937_64 rng(8);
    std::uniform_real_distribution<double> pos(0, 40), half(0.1, 6), turn(0, std::numbers::pi);
    std::vector<CellSpan> a, b;
    int overlapping = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const Vec2 o{tile.x * 256.0 + 100, tile.y * 256.0 + 100};
        const auto ra = rect(o + Vec2{pos(rng), pos(rng)} * 0.3, half(rng), half(rng), turn(rng));
        const auto rb = rect(o + Vec2{pos(rng), pos(rng)} * 0.3, half(rng), half(rng), turn(rng));
        if (overlapDepth(ra, rb) <= 1e-9) continue;
        ++overlapping;
        ASSERT_TRUE(footprintSpans(ra, region, a));
        ASSERT_TRUE(footprintSpans(rb, region, b));
        OccupancyMap occupancy(std::vector<TileId>{tile});
        occupancy.mark(a);
        ASSERT_FALSE(occupancy.isClear(b, nullptr)) << "trial " << trial;
    }
    EXPECT_GT(overlapping, 1000);
}

TEST(FootprintSpans, RefuseRectanglesReachingBeyondTheNeighbours) {
    const TileId tile{17, 68891, 47861};
    const CellRegion region = CellRegion::around(tile);
    std::vector<CellSpan> spans;
    const Vec2 c{tile.x * 256.0 + 128, tile.y * 256.0 + 128};
    EXPECT_TRUE(footprintSpans(rect(c, 384, 100, 0), region, spans)) << "exactly to the border is allowed";
    EXPECT_FALSE(footprintSpans(rect(c, 384.01, 100, 0), region, spans));
    EXPECT_FALSE(footprintSpans(rect(c, 300, 300, std::numbers::pi / 4), region, spans));
    EXPECT_FALSE(footprintSpans(rect({NAN, 0}, 1, 1, 0), region, spans));
}

TEST(OccupancyMap, TestAndSetWorksAcrossTileBordersAndHonoursTheBlockingMask) {
    const TileId a{17, 100, 200}, b{17, 101, 200};
    OccupancyMap occupancy(std::vector<TileId>{a, b});
    OccupancyMap blocking(std::vector<TileId>{b});
    blocking.tile(b)->set(10, 5);
    // A span from cell 250 of tile a to cell 5 of tile b, row 5.
    const std::int64_t y = 200 * 256 + 5;
    const std::vector<CellSpan> span{{y, 100 * 256 + 250, 101 * 256 + 6}};
    EXPECT_TRUE(occupancy.isClear(span, &blocking));
    occupancy.mark(span);
    EXPECT_TRUE(occupancy.tile(a)->test(255, 5));
    EXPECT_TRUE(occupancy.tile(b)->test(5, 5));
    EXPECT_FALSE(occupancy.tile(b)->test(6, 5));
    EXPECT_FALSE(occupancy.isClear(std::vector<CellSpan>{{y, 101 * 256 + 5, 101 * 256 + 6}}, nullptr));
    EXPECT_TRUE(occupancy.isClear(std::vector<CellSpan>{{y, 101 * 256 + 6, 101 * 256 + 10}}, &blocking));
    EXPECT_FALSE(occupancy.isClear(std::vector<CellSpan>{{y, 101 * 256 + 6, 101 * 256 + 11}}, &blocking))
        << "a blocked cell";
    EXPECT_FALSE(occupancy.isClear(std::vector<CellSpan>{{y, 102 * 256, 102 * 256 + 1}}, nullptr))
        << "a tile the map does not hold is never clear";
}

TEST(OccupancyMap, ATilesBitsAreAllocatedWhenFirstWritten) {
    // A bake holds several maps over every tile it reaches, most of them clear: only written
    // tiles take memory, and reading an unwritten one gives clear bits, not "not held".
    std::vector<TileId> tiles;
    for (std::uint32_t x = 0; x < 3; ++x) {
        for (std::uint32_t y = 0; y < 3; ++y) tiles.push_back({17, 100 + x, 200 + y});
    }
    OccupancyMap map(tiles);
    EXPECT_EQ(map.allocatedTiles(), 0u);
    const OccupancyMap& reading = map;
    for (const TileId& t : tiles) {
        ASSERT_NE(reading.tile(t), nullptr);
        EXPECT_FALSE(reading.tile(t)->any());
    }
    EXPECT_EQ(reading.tile(TileId{17, 99, 200}), nullptr);
    EXPECT_EQ(map.tile(TileId{17, 99, 200}), nullptr);
    EXPECT_EQ(map.allocatedTiles(), 0u);
    // A span across the border of two tiles allocates those two.
    const std::int64_t y = 201 * 256 + 7;
    map.mark(std::vector<CellSpan>{{y, 100 * 256 + 250, 101 * 256 + 3}});
    EXPECT_EQ(map.allocatedTiles(), 2u);
    EXPECT_TRUE(reading.tile({17, 100, 201})->test(250, 7));
    EXPECT_TRUE(reading.tile({17, 101, 201})->test(2, 7));
    EXPECT_FALSE(reading.tile({17, 102, 201})->any());
    // Copies are deep; clear() gives the memory back.
    OccupancyMap copy = map;
    map.clear();
    EXPECT_EQ(map.allocatedTiles(), 0u);
    EXPECT_FALSE(reading.tile({17, 100, 201})->any());
    EXPECT_EQ(copy.allocatedTiles(), 2u);
    EXPECT_TRUE(std::as_const(copy).tile({17, 100, 201})->test(250, 7));
}

TEST(GreedyMesh, EmptyGivesNoRectangleAndFullGivesOne) {
    std::vector<CellRect> rects;
    BitTile scratch;
    greedyMesh(BitTile(), rects, scratch);
    EXPECT_TRUE(rects.empty());
    greedyMesh(BitTile::full(), rects, scratch);
    ASSERT_EQ(rects.size(), 1u);
    EXPECT_EQ(rects[0], (CellRect{0, 0, 256, 256}));
}

TEST(GreedyMesh, RectanglesCoverExactlyTheCellsOnceAndMergeRuns) {
    std::mt19937_64 rng(21);
    std::vector<CellRect> rects;
    BitTile scratch;
    for (int trial = 0; trial < 60; ++trial) {
        // Blobs and a band, like water and roads, plus salt — drawn cell by cell.
        BitTile cells;
        std::uniform_real_distribution<double> p(-20, 276), r(1, 40), w(1, 9);
        for (int k = 0; k < 6; ++k) {
            const double cx = p(rng), cy = p(rng), radius = r(rng);
            for (int y = 0; y < 256; ++y) {
                for (int x = 0; x < 256; ++x) {
                    if ((x + 0.5 - cx) * (x + 0.5 - cx) + (y + 0.5 - cy) * (y + 0.5 - cy) <= radius * radius)
                        cells.set(x, y);
                }
            }
        }
        const double slope = (p(rng) - 128) / 256, offset = p(rng), width = w(rng);
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                if (std::abs(y + 0.5 - (offset + slope * (x + 0.5))) <= width / 2) cells.set(x, y);
            }
        }
        for (int k = 0; k < 50; ++k) cells.set(static_cast<int>(rng() % 256), static_cast<int>(rng() % 256));

        greedyMesh(cells, rects, scratch);
        std::vector<std::uint8_t> hits(256 * 256, 0);
        for (const CellRect& q : rects) {
            ASSERT_LT(q.x0, q.x1);
            ASSERT_LT(q.y0, q.y1);
            ASSERT_LE(q.x1, 256);
            ASSERT_LE(q.y1, 256);
            for (int y = q.y0; y < q.y1; ++y) {
                for (int x = q.x0; x < q.x1; ++x) ++hits[static_cast<std::size_t>(y * 256 + x)];
            }
        }
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                ASSERT_EQ(hits[static_cast<std::size_t>(y * 256 + x)], cells.test(x, y) ? 1 : 0)
                    << "cell " << x << "," << y << " trial " << trial;
            }
        }
        // Merged: far fewer rectangles than cells.
        EXPECT_LT(rects.size() * 4, static_cast<std::size_t>(cells.count())) << "trial " << trial;
    }
}

}  // namespace
}  // namespace terrabit::test
