// CharacterMover on terrain (a CollisionGrid with heights): it walks a 10° ramp and stops at a
// 60° slope, slides along a slope it cannot climb and goes down it, steps up a 0.2 m kerb but not
// a 1 m wall with a 0.3 m step limit, and on flat ground or without heights moves exactly as it
// did before terrain existed.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <numbers>

#include "../support/memory_layer_source.h"
#include "terrabit/core/collision/character_mover.h"

using namespace terrabit::core;
using terrabit::test::MemoryLayerSource;

namespace {

/// Two tiles side by side near Monaco at a zoom, a "building" layer, and heights given as a
/// function of the ground metres east of a column of global cell corners.
struct Terrain {
    int zoom;
    std::uint32_t tx, ty;
    double x0, y0;      ///< the west tile's north-west corner, global cells
    double cellMetres;  ///< ground metres per cell at the tiles' latitude
    MemoryLayerSource source{{"building"}};
    std::array<TileId, 2> tiles;
    CollisionGrid grid;

    explicit Terrain(int z)
        : zoom(z),
          tx(68196u << (z - 17)),
          ty(47837u << (z - 17)),
          x0(tx * 256.0),
          y0(ty * 256.0),
          cellMetres(metresPerCell(TileId{z, tx, ty}.boundsLonLat().centre().y, z)),
          tiles{TileId{z, tx, ty}, TileId{z, tx + 1, ty}} {}

    /// Heights at every corner: height(metres east of global corner column x0 + footColumn).
    void heights(double footColumn, const std::function<double(double metres)>& height) {
        for (const TileId& t : tiles) {
            terrain::HeightTile& h = source.heightsAt(t);
            for (int r = 0; r < terrain::kHeightSamples; ++r) {
                for (int c = 0; c < terrain::kHeightSamples; ++c) {
                    const double column = (t.x - tx) * 256.0 + c;
                    h.heights[terrain::HeightTile::index(r, c)] =
                        static_cast<float>(height((column - footColumn) * cellMetres));
                }
            }
        }
    }
    /// Ground rising east from column `foot` at `degrees`, flat west of it and, when `top` is
    /// finite, flat again once `top` metres high.
    void slope(double foot, double degrees, double top = INFINITY) {
        const double grade = std::tan(degrees * std::numbers::pi / 180.0);
        heights(foot, [=](double m) { return std::min(std::max(0.0, m) * grade, top); });
    }
    /// A step of `height` metres between corner columns foot and foot + 1 (one cell wide).
    void step(double foot, double height) {
        heights(foot, [=](double m) { return m > 0.0 ? height : 0.0; });
    }
    void finish() {
        const std::array<std::string, 1> names{"building"};
        grid = CollisionGrid::build(source, tiles, names).value();
    }
};

const Footprint kDisk = Footprint::disk(0.3);

}  // namespace

TEST(CharacterMoverTerrain, WalksATenDegreeRampAndStopsAtASixtyDegreeSlope) {
    Terrain ramp(17);
    ramp.slope(100, 10.0);
    ramp.finish();
    ASSERT_TRUE(ramp.grid.hasHeights());
    CharacterMover mover(ramp.grid);  // the defaults: 45°, 0.3 m
    const MoveResult walked = mover.move({ramp.x0 + 50.5, ramp.y0 + 20.5}, {150.0, 0.0}, kDisk, 1);
    EXPECT_FALSE(walked.blocked());
    EXPECT_FALSE(walked.terrain);
    EXPECT_DOUBLE_EQ(walked.position.x, ramp.x0 + 200.5);
    EXPECT_NEAR(ramp.grid.groundHeight(walked.position),
                100.5 * ramp.cellMetres * std::tan(10.0 * std::numbers::pi / 180), 1e-3)
        << "it climbed the ramp";

    Terrain steep(17);
    steep.slope(100, 60.0);
    steep.finish();
    CharacterMover stopped(steep.grid);
    const MoveResult r = stopped.move({steep.x0 + 50.5, steep.y0 + 20.5}, {150.0, 0.0}, kDisk, 1);
    EXPECT_TRUE(r.blockedX);
    EXPECT_TRUE(r.terrain);
    EXPECT_EQ(r.hitLayers, 0u);
    // At the foot: a rise of at most 0.3 m over the cell behind it (0.3 m up a 60° slope is
    // 0.2 of a 0.86 m cell).
    EXPECT_GE(r.position.x, steep.x0 + 100.0);
    EXPECT_LE(r.position.x, steep.x0 + 100.3);
    EXPECT_LE(steep.grid.groundHeight(r.position), 0.3 + 1e-3);
    // Asked again, it stays where it is.
    const MoveResult again = stopped.move(r.position, {10.0, 0.0}, kDisk, 1);
    EXPECT_TRUE(again.blockedX);
    EXPECT_NEAR(again.position.x, r.position.x, 1.0 / 256);
}

TEST(CharacterMoverTerrain, SlidesAlongASlopeItCannotClimbAndGoesDownIt) {
    Terrain hill(17);
    hill.slope(100, 60.0, 15.0);  // 60° up to a plateau 15 m high
    hill.finish();
    CharacterMover mover(hill.grid);
    const MoveResult slid = mover.move({hill.x0 + 90.5, hill.y0 + 20.5}, {30.0, 40.0}, kDisk, 1);
    EXPECT_TRUE(slid.blockedX);
    EXPECT_FALSE(slid.blockedY);
    EXPECT_TRUE(slid.terrain);
    EXPECT_DOUBLE_EQ(slid.position.y, hill.y0 + 60.5) << "the north-south part of the move is kept";
    EXPECT_LE(slid.position.x, hill.x0 + 100.3);
    // Moving along the slope while standing on it is level, not a climb.
    const MoveResult along = mover.move(slid.position, {0.0, -50.0}, kDisk, 1);
    EXPECT_FALSE(along.blocked());
    // Downhill is allowed: from the plateau, west down the 60° slope to the valley.
    const MoveResult down = mover.move({hill.x0 + 150.5, hill.y0 + 20.5}, {-120.0, 0.0}, kDisk, 1);
    EXPECT_FALSE(down.blocked());
    EXPECT_DOUBLE_EQ(down.position.x, hill.x0 + 30.5);
    // No slope limit: the same slope is climbed.
    CharacterMover goat(hill.grid, GroundLimits{0.3, 90.0});
    EXPECT_FALSE(goat.move({hill.x0 + 50.5, hill.y0 + 20.5}, {150.0, 0.0}, kDisk, 1).blocked());
}

TEST(CharacterMoverTerrain, StepsUpAKerbButNotAWallWithAThirtyCentimetreStepLimit) {
    // At zoom 20 a cell is 0.11 m: a 0.2 m kerb over one cell is steeper than 60°, so it is the
    // step limit, not the slope limit, that lets the character up.
    const GroundLimits limits{0.3, 45.0};
    Terrain kerb(20);
    kerb.step(100, 0.2);
    kerb.finish();
    CharacterMover onKerb(kerb.grid, limits);
    const MoveResult up = onKerb.move({kerb.x0 + 50.5, kerb.y0 + 20.5}, {100.0, 0.0}, kDisk, 1);
    EXPECT_FALSE(up.blocked());
    EXPECT_NEAR(kerb.grid.groundHeight(up.position), 0.2, 1e-6);
    // The same kerb with a 0.1 m step limit stops the character at it.
    CharacterMover lowStep(kerb.grid, GroundLimits{0.1, 45.0});
    const MoveResult refused = lowStep.move({kerb.x0 + 50.5, kerb.y0 + 20.5}, {100.0, 0.0}, kDisk, 1);
    EXPECT_TRUE(refused.blockedX);
    EXPECT_TRUE(refused.terrain);
    // Down the kerb is always allowed.
    EXPECT_FALSE(lowStep.move({kerb.x0 + 150.5, kerb.y0 + 20.5}, {-100.0, 0.0}, kDisk, 1).blocked());

    Terrain wall(20);
    wall.step(100, 1.0);
    wall.finish();
    CharacterMover atWall(wall.grid, limits);
    const MoveResult stopped = atWall.move({wall.x0 + 50.5, wall.y0 + 20.5}, {100.0, 0.0}, kDisk, 1);
    EXPECT_TRUE(stopped.blockedX);
    EXPECT_TRUE(stopped.terrain);
    EXPECT_GE(stopped.position.x, wall.x0 + 100.0);
    EXPECT_LE(stopped.position.x, wall.x0 + 100.31);  // no higher than the step limit up the wall

    // A 60° slope is no staircase of 0.19 m cell steps: the rise is measured over 0.3 m.
    Terrain steep(20);
    steep.slope(100, 60.0);
    steep.finish();
    CharacterMover onSteep(steep.grid, limits);
    const MoveResult climb = onSteep.move({steep.x0 + 50.5, steep.y0 + 20.5}, {100.0, 0.0}, kDisk, 1);
    EXPECT_TRUE(climb.blockedX);
    EXPECT_LE(steep.grid.groundHeight(climb.position), 0.3 + 1e-3);
}

TEST(CharacterMoverTerrain, OnFlatGroundAndWithoutHeightsItMovesAsBefore) {
    Terrain bare(17);
    for (int r = 0; r < 256; ++r) bare.source.at(bare.tiles[0], 0).set(120, r);  // a wall
    bare.finish();
    ASSERT_FALSE(bare.grid.hasHeights());
    Terrain flat(17);
    for (int r = 0; r < 256; ++r) flat.source.at(flat.tiles[0], 0).set(120, r);
    flat.heights(0, [](double) { return 12.0; });
    flat.finish();
    ASSERT_TRUE(flat.grid.hasHeights());
    CharacterMover a(bare.grid);
    CharacterMover b(flat.grid, GroundLimits{0.0, 0.0});  // the strictest limits
    const std::array<std::pair<Vec2, Vec2>, 4> moves{{{{50.5, 20.5}, {150.0, 7.0}},
                                                      {{130.5, 20.5}, {-60.0, 30.0}},
                                                      {{10.5, 200.5}, {300.0, -100.0}},
                                                      {{119.9, 5.5}, {0.0, 3.0}}}};
    for (const auto& [from, by] : moves) {
        const Vec2 start{bare.x0 + from.x, bare.y0 + from.y};
        const MoveResult ra = a.move(start, by, kDisk, 1);
        const MoveResult rb = b.move(start, by, kDisk, 1);
        EXPECT_EQ(ra.position, rb.position);
        EXPECT_EQ(ra.blockedX, rb.blockedX);
        EXPECT_EQ(ra.blockedY, rb.blockedY);
        EXPECT_EQ(ra.stuck, rb.stuck);
        EXPECT_EQ(ra.hitLayers, rb.hitLayers);
        EXPECT_FALSE(rb.terrain);
    }
}
