#pragma once
/// Character movement against blocking layers, as a game would run it: a blocked move stops at
/// contact and slides along walls (the x and y parts of the move are resolved one after the
/// other), and a fast move never tunnels through a one-cell wall (the move is swept in steps
/// of at most a quarter cell, each step probing the whole footprint).

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

struct MoveResult {
    Vec2 position;                ///< where the character ends up, cells
    bool blockedX = false;        ///< the east-west part of the move was stopped
    bool blockedY = false;        ///< the north-south part of the move was stopped
    bool stuck = false;           ///< the footprint already overlapped blocking cells: no move
    std::uint64_t hitLayers = 0;  ///< the blocking layers that stopped the move
    bool blocked() const { return blockedX || blockedY || stuck; }
};

/// Moves characters over one grid. Holds probe scratch: keep one per thread.
class CharacterMover {
public:
    explicit CharacterMover(const CollisionGrid& grid) : mQuery(grid) {}

    /// Where a character at `position` (cells) ends up after trying to move by `displacement`
    /// (cells), blocked by the layers in blockingMask. Contact is resolved to within 1/1024 cell.
    MoveResult move(Vec2 position, Vec2 displacement, const Footprint& footprint, std::uint64_t blockingMask);

    /// The layers the footprint at `position` overlaps, restricted to mask.
    std::uint64_t overlap(Vec2 position, const Footprint& footprint, std::uint64_t mask);

private:
    /// Moves along one axis; returns the distance travelled and sets the hit layers.
    double sweepAxis(Vec2& position, Vec2 axis, double distance, const Footprint& footprint, std::uint64_t mask,
                     std::uint64_t& hitLayers);

    CollisionQuery mQuery;
};

}  // namespace terrabit::core
