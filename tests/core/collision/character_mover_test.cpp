#include <gtest/gtest.h>

#include <array>

#include "../support/memory_layer_source.h"
#include "terrabit/core/collision/character_mover.h"

using namespace terrabit::core;
using terrabit::test::MemoryLayerSource;

namespace {

constexpr int kMoverZoom = 17;
constexpr std::uint32_t kMoverTx0 = 68200;
constexpr std::uint32_t kMoverTy0 = 47800;
constexpr double kMoverX0 = kMoverTx0 * 256.0;
constexpr double kMoverY0 = kMoverTy0 * 256.0;

/// Two tiles side by side (west, east) with a "building" and a "water" layer.
struct World {
    MemoryLayerSource source{{"building", "water"}};
    std::array<TileId, 2> tiles{TileId{kMoverZoom, kMoverTx0, kMoverTy0}, TileId{kMoverZoom, kMoverTx0 + 1, kMoverTy0}};
    CollisionGrid grid;

    void finish() {
        const std::array<std::string, 2> names{"building", "water"};
        grid = *CollisionGrid::build(source, tiles, names);
    }
    /// A one-cell-thick north-south wall at global column x0 + col, rows [r0, r1).
    void wall(int layer, int col, int r0, int r1) {
        for (int r = r0; r < r1; ++r) source.at(tiles[col / 256], layer).set(col % 256, r);
    }
};

}  // namespace

TEST(CharacterMover, FastMoveDoesNotTunnelThroughAOneCellWall) {
    World w;
    w.wall(0, 100, 0, 256);
    w.finish();
    CharacterMover mover(w.grid);
    const Footprint fp = Footprint::box({0.3, 0.3});
    const MoveResult r = mover.move({kMoverX0 + 50.5, kMoverY0 + 20.5}, {400.0, 0.0}, fp, 0b01);
    EXPECT_TRUE(r.blockedX);
    EXPECT_FALSE(r.blockedY);
    EXPECT_EQ(r.hitLayers, 0b01u);
    // Stopped flush at the wall's west face (cell 100 starts at x = 100), within 1/1024 cell.
    EXPECT_LE(r.position.x + 0.3, kMoverX0 + 100.0);
    EXPECT_GT(r.position.x + 0.3, kMoverX0 + 100.0 - 1.0 / 1024);
    EXPECT_DOUBLE_EQ(r.position.y, kMoverY0 + 20.5);
}

TEST(CharacterMover, ZeroSizeFootprintDoesNotTunnelEither) {
    World w;
    w.wall(0, 300, 0, 256);  // in the east tile: the move crosses the tile border first
    w.finish();
    CharacterMover mover(w.grid);
    const MoveResult r = mover.move({kMoverX0 + 10.5, kMoverY0 + 5.5}, {1000.0, 0.0}, Footprint::box({0.0, 0.0}), 0b01);
    EXPECT_TRUE(r.blockedX);
    EXPECT_LE(r.position.x, kMoverX0 + 300.0);
    EXPECT_GT(r.position.x, kMoverX0 + 299.9);
}

TEST(CharacterMover, SlidesAlongAWall) {
    World w;
    w.wall(0, 100, 0, 256);
    w.finish();
    CharacterMover mover(w.grid);
    const Footprint fp = Footprint::disk(0.4);
    const MoveResult r = mover.move({kMoverX0 + 98.0, kMoverY0 + 50.5}, {5.0, 7.0}, fp, 0b01);
    EXPECT_TRUE(r.blockedX);
    EXPECT_FALSE(r.blockedY);
    EXPECT_DOUBLE_EQ(r.position.y, kMoverY0 + 57.5);  // the north-south part of the move is kept
    EXPECT_LE(r.position.x + 0.4, kMoverX0 + 100.0);
    EXPECT_GT(r.position.x + 0.4, kMoverX0 + 100.0 - 0.01);
}

TEST(CharacterMover, StopsAtWaterOnlyWhenWaterBlocks) {
    World w;
    for (int r = 30; r < 40; ++r) w.source.at(w.tiles[0], 1).fillSpan(r, 0, 256);  // a river
    w.finish();
    CharacterMover mover(w.grid);
    const Footprint fp = Footprint::box({0.5, 0.5});
    const MoveResult swim = mover.move({kMoverX0 + 20.5, kMoverY0 + 10.5}, {0.0, 40.0}, fp, 0b01);
    EXPECT_FALSE(swim.blocked());
    EXPECT_DOUBLE_EQ(swim.position.y, kMoverY0 + 50.5);
    const MoveResult walk = mover.move({kMoverX0 + 20.5, kMoverY0 + 10.5}, {0.0, 40.0}, fp, 0b11);
    EXPECT_TRUE(walk.blockedY);
    EXPECT_EQ(walk.hitLayers, 0b10u);
    EXPECT_LE(walk.position.y + 0.5, kMoverY0 + 30.0);
    EXPECT_GT(walk.position.y + 0.5, kMoverY0 + 29.99);
}

TEST(CharacterMover, MovesNorthAndWestAsWellAsSouthAndEast) {
    World w;
    w.wall(0, 100, 0, 256);
    w.finish();
    CharacterMover mover(w.grid);
    const MoveResult r =
        mover.move({kMoverX0 + 120.5, kMoverY0 + 100.5}, {-60.0, -30.0}, Footprint::box({0.5, 0.5}), 0b01);
    EXPECT_TRUE(r.blockedX);
    EXPECT_GE(r.position.x - 0.5, kMoverX0 + 101.0);
    EXPECT_LT(r.position.x - 0.5, kMoverX0 + 101.01);
    EXPECT_DOUBLE_EQ(r.position.y, kMoverY0 + 70.5);
}

TEST(CharacterMover, ACharacterInsideAWallIsStuck) {
    World w;
    w.wall(0, 100, 0, 256);
    w.finish();
    CharacterMover mover(w.grid);
    const MoveResult r = mover.move({kMoverX0 + 100.5, kMoverY0 + 10.5}, {5.0, 0.0}, Footprint::box({0.2, 0.2}), 0b01);
    EXPECT_TRUE(r.stuck);
    EXPECT_EQ(r.position, (Vec2{kMoverX0 + 100.5, kMoverY0 + 10.5}));
}
