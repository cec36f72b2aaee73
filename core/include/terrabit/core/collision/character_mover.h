#pragma once
/// Character movement against blocking layers, as a game would run it: a blocked move stops at
/// contact and slides along walls (the x and y parts of the move are resolved one after the
/// other), and a fast move never tunnels through a one-cell wall (the move is swept in steps
/// of at most a quarter cell, each step probing the whole footprint).
///
/// On a grid with heights (CollisionGrid::hasHeights) the terrain stops a character too, like a
/// wall, within GroundLimits. What is sampled, for each sub-step (at most a quarter cell, along
/// one axis) from the footprint's centre p to its centre q:
///   1. h0 = groundHeight(p), h1 = groundHeight(q). Unless h1 > h0 (the sub-step climbs) the
///      terrain allows it: level ground, downhill and anywhere without a height (NaN) are free.
///   2. The slope of the cell holding q: the gradient of the cell's bilinear surface at its
///      centre, from its four corner heights ((NE + SE − NW − SW) / 2 east, (SW + SE − NW − NE)
///      / 2 south, over the cell's ground size at q's latitude, metresPerCell). A cell no steeper
///      than maxSlopeDegrees (or one with a corner without height) allows the sub-step.
///   3. On steeper ground, the rise over the run behind q: h1 − groundHeight(q − run · direction)
///      (h0 when that has no height), where run = max(one cell, maxStepHeight /
///      tan(maxSlopeDegrees)), at most 64 cells. A rise of at most maxStepHeight is a step the
///      character climbs (a kerb); a higher one is a cliff and stops it. The run is never
///      shorter than the one that maxSlopeDegrees allows maxStepHeight over, so a steep slope is
///      a cliff at every zoom, not a staircase of cell-sized steps.
/// A sub-step the terrain refuses stops that axis's part of the move at contact (to 1/1024 cell)
/// as a wall does, so a move into a cliff at an angle slides along it. The footprint's size plays
/// no part in the terrain test (only its centre's heights are sampled).

#include <cstdint>

#include "terrabit/core/collision/collision_query.h"

namespace terrabit::core {

/// A character's footprint on the ground, in cells: an axis-aligned box or a disk around the
/// character's position.
struct Footprint {
    enum class Shape : std::uint8_t { Box, Disk };
    Shape shape = Shape::Box;
    Vec2 halfExtents{0.5, 0.5};  ///< Box: half width and half depth, cells
    double radius = 0.5;         ///< Disk: radius, cells

    static Footprint box(Vec2 halfExtents) { return {Shape::Box, halfExtents, 0.0}; }
    static Footprint disk(double radius) { return {Shape::Disk, {}, radius}; }
};

/// How steep and how high the ground a character climbs may be. On flat ground and on a grid
/// without heights they never apply; the defaults are those of common game engines' character
/// controllers.
struct GroundLimits {
    double maxStepHeight = 0.3;     ///< metres: the highest rise (a kerb, a step) climbed on steep ground
    double maxSlopeDegrees = 45.0;  ///< degrees: ground no steeper than this is walkable uphill; >= 90 allows all
};

struct MoveResult {
    Vec2 position;                ///< where the character ends up, cells
    bool blockedX = false;        ///< the east-west part of the move was stopped
    bool blockedY = false;        ///< the north-south part of the move was stopped
    bool stuck = false;           ///< the footprint already overlapped blocking cells: no move
    std::uint64_t hitLayers = 0;  ///< the blocking layers that stopped the move
    bool terrain = false;         ///< the terrain (a cliff or a slope too steep) stopped the move
    bool blocked() const { return blockedX || blockedY || stuck; }
};

/// Moves characters over one grid. Holds probe scratch: keep one per thread.
class CharacterMover {
public:
    explicit CharacterMover(const CollisionGrid& grid, GroundLimits limits = {});

    const GroundLimits& limits() const { return mLimits; }

    /// Where a character at `position` (cells) ends up after trying to move by `displacement`
    /// (cells), blocked by the layers in blockingMask and, with heights, by the terrain (above).
    /// Contact is resolved to within 1/1024 cell.
    MoveResult move(Vec2 position, Vec2 displacement, const Footprint& footprint, std::uint64_t blockingMask);

    /// The layers the footprint at `position` overlaps, restricted to mask.
    std::uint64_t overlap(Vec2 position, const Footprint& footprint, std::uint64_t mask);

private:
    /// Moves along one axis; returns the distance travelled and sets the hit layers.
    double sweepAxis(Vec2& position, Vec2 axis, double distance, const Footprint& footprint, std::uint64_t mask,
                     MoveResult& result);
    /// True when the terrain refuses the sub-step from `from` to `to` along `direction` (a unit
    /// axis vector pointing the way of the move).
    bool terrainRefuses(Vec2 from, Vec2 to, Vec2 direction) const;

    CollisionQuery mQuery;
    GroundLimits mLimits;
    bool mTerrain = false;    ///< the grid has heights and the limits can refuse something
    double mTanSlope = 0.0;   ///< tan(maxSlopeDegrees)
    double mRunMetres = 0.0;  ///< maxStepHeight / tan(maxSlopeDegrees), before the one-cell minimum
};

}  // namespace terrabit::core
