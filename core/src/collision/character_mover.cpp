#include "terrabit/core/collision/character_mover.h"

#include <cmath>

namespace terrabit::core {

namespace {
/// The longest step of a sweep, cells: short enough that consecutive footprints overlap, so no
/// wall of one cell (or thinner) can be stepped over.
constexpr double kMaxStep = 0.25;
/// Bisection steps to find the contact point: 2^-10 of a quarter cell.
constexpr int kContactIterations = 10;
}  // namespace

std::uint64_t CharacterMover::overlap(Vec2 position, const Footprint& footprint, std::uint64_t mask) {
    if (footprint.shape == Footprint::Shape::Disk) return mQuery.disk(position, footprint.radius, mask).layers;
    const Box2 box{position - footprint.halfExtents, position + footprint.halfExtents};
    return mQuery.rectangle(box, mask).layers;
}

double CharacterMover::sweepAxis(Vec2& position, Vec2 axis, double distance, const Footprint& footprint,
                                 std::uint64_t mask, std::uint64_t& hitLayers) {
    if (distance == 0.0 || !std::isfinite(distance)) return 0.0;
    const int steps = static_cast<int>(std::ceil(std::fabs(distance) / kMaxStep));
    const double step = distance / steps;
    double travelled = 0.0;
    for (int i = 1; i <= steps; ++i) {
        const double t = (i == steps) ? distance : step * i;
        const std::uint64_t hit = overlap(position + axis * t, footprint, mask);
        if (!hit) {
            travelled = t;
            continue;
        }
        // Blocked between travelled (free) and t (hit): bisect to the contact point.
        hitLayers |= hit;
        double freeT = travelled;
        double hitT = t;
        for (int k = 0; k < kContactIterations; ++k) {
            const double mid = 0.5 * (freeT + hitT);
            if (overlap(position + axis * mid, footprint, mask))
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
    const double dx = sweepAxis(p, {1.0, 0.0}, displacement.x, footprint, blockingMask, result.hitLayers);
    result.blockedX = dx != displacement.x;
    const double dy = sweepAxis(p, {0.0, 1.0}, displacement.y, footprint, blockingMask, result.hitLayers);
    result.blockedY = dy != displacement.y;
    result.position = p;
    return result;
}

}  // namespace terrabit::core
