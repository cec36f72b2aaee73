#include "terrabit/core/collision/character_mover.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace terrabit::core {

namespace {
/// The longest step of a sweep, cells: short enough that consecutive footprints overlap, so no
/// wall of one cell (or thinner) can be stepped over.
constexpr double kMaxStep = 0.25;
/// Bisection steps to find the contact point: 2^-10 of a quarter cell.
constexpr int kContactIterations = 10;
/// Why a sub-step was refused: the blocking layers it overlaps, or the terrain.
struct Refusal {
    std::uint64_t layers = 0;
    bool terrain = false;
    explicit operator bool() const { return layers != 0 || terrain; }
};
/// The longest run behind a sub-step over which the terrain test measures a rise, cells.
constexpr double kMaxRunCells = 64.0;

/// Ground metres per cell at global cell row y of a zoom (Web Mercator: cells are square on the
/// ground, 2πR / 2^(zoom + 8) × cos(latitude), with cos(latitude) = 1 / cosh(mercator y / R)).
double groundCellMetres(int zoom, double y) {
    const double cells = std::ldexp(1.0, zoom + 8);
    const double mercatorY = std::numbers::pi * (1.0 - 2.0 * y / cells);  // mercator metres / R
    return 2.0 * std::numbers::pi * kEarthRadius / cells / std::cosh(mercatorY);
}
}  // namespace

CharacterMover::CharacterMover(const CollisionGrid& grid, GroundLimits limits) : mQuery(grid), mLimits(limits) {
    mTerrain = grid.hasHeights() && mLimits.maxSlopeDegrees < 90.0;
    mTanSlope = std::tan(std::max(mLimits.maxSlopeDegrees, 0.0) * std::numbers::pi / 180.0);
    mRunMetres =
        mTanSlope > 0.0 ? std::max(mLimits.maxStepHeight, 0.0) / mTanSlope : std::numeric_limits<double>::infinity();
}

bool CharacterMover::terrainRefuses(Vec2 from, Vec2 to, Vec2 direction) const {
    const CollisionGrid& grid = mQuery.grid();
    const float h0 = grid.groundHeight(from);
    const float h1 = grid.groundHeight(to);
    if (!(h1 > h0)) return false;  // level, downhill, or no height at either end
    const auto cx = static_cast<std::int64_t>(std::floor(to.x));
    const auto cy = static_cast<std::int64_t>(std::floor(to.y));
    const std::array<float, 4> c = grid.cellHeights(cx, cy);  // NW, NE, SW, SE
    const double cell = groundCellMetres(grid.zoom(), to.y);
    const double east = (double(c[1]) + c[3] - c[0] - c[2]) / (2.0 * cell);
    const double south = (double(c[2]) + c[3] - c[0] - c[1]) / (2.0 * cell);
    if (!(std::hypot(east, south) > mTanSlope)) return false;  // walkable, or a corner without height
    const double run = std::min(std::max(1.0, mRunMetres / cell), kMaxRunCells);
    float behind = grid.groundHeight(to - direction * run);
    if (std::isnan(behind)) behind = h0;
    return double(h1) - double(behind) > mLimits.maxStepHeight;
}

std::uint64_t CharacterMover::overlap(Vec2 position, const Footprint& footprint, std::uint64_t mask) {
    if (footprint.shape == Footprint::Shape::Disk) return mQuery.disk(position, footprint.radius, mask).layers;
    const Box2 box{position - footprint.halfExtents, position + footprint.halfExtents};
    return mQuery.rectangle(box, mask).layers;
}

double CharacterMover::sweepAxis(Vec2& position, Vec2 axis, double distance, const Footprint& footprint,
                                 std::uint64_t mask, MoveResult& result) {
    if (distance == 0.0 || !std::isfinite(distance)) return 0.0;
    const int steps = static_cast<int>(std::ceil(std::fabs(distance) / kMaxStep));
    const double step = distance / steps;
    const Vec2 direction = distance > 0.0 ? axis : axis * -1.0;
    // A sub-step from the last free point to t is refused by a blocking layer or the terrain.
    const auto refused = [&](double freeT, double t) {
        const Vec2 to = position + axis * t;
        if (const std::uint64_t hit = overlap(to, footprint, mask)) return Refusal{hit, false};
        return Refusal{0, mTerrain && terrainRefuses(position + axis * freeT, to, direction)};
    };
    double travelled = 0.0;
    for (int i = 1; i <= steps; ++i) {
        const double t = (i == steps) ? distance : step * i;
        const Refusal hit = refused(travelled, t);
        if (!hit) {
            travelled = t;
            continue;
        }
        // Blocked between travelled (free) and t (hit): bisect to the contact point.
        result.hitLayers |= hit.layers;
        result.terrain = result.terrain || hit.terrain;
        double freeT = travelled;
        double hitT = t;
        for (int k = 0; k < kContactIterations; ++k) {
            const double mid = 0.5 * (freeT + hitT);
            if (refused(freeT, mid))
                hitT = mid;
            else
                freeT = mid;
        }
        position = position + axis * freeT;
        return freeT;
    }
    position = position + axis * distance;
    return distance;
}

MoveResult CharacterMover::move(Vec2 position, Vec2 displacement, const Footprint& footprint,
                                std::uint64_t blockingMask) {
    MoveResult result;
    result.position = position;
    if (const std::uint64_t hit = overlap(position, footprint, blockingMask)) {
        result.stuck = true;
        result.hitLayers = hit;
        return result;
    }
    // Axis separation: the east-west part first, then the north-south part from wherever the
    // first one stopped, so a move into a wall at an angle slides along it.
    Vec2 p = position;
    const double dx = sweepAxis(p, {1.0, 0.0}, displacement.x, footprint, blockingMask, result);
    result.blockedX = dx != displacement.x;
    const double dy = sweepAxis(p, {0.0, 1.0}, displacement.y, footprint, blockingMask, result);
    result.blockedY = dy != displacement.y;
    result.position = p;
    return result;
}

}  // namespace terrabit::core
