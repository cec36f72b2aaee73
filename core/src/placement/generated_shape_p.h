#pragma once
// Private to placement: what a building's tags and mapped rings say of its shape — the heights
// its tags give, its outer ring and courtyards in ground metres, and the generated building the
// building pass's fallback makes of them. No placement here: only the footprint and its tags.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/map/feature.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/tile/ground_frame.h"

namespace terrabit::core::placement::detail {

/// A footprint's rings as the tile index keeps them: their points in global cells, one ring after
/// another, and where each ends.
struct FootprintRings {
    std::span<const Vec2> cells;
    std::span<const std::uint32_t> ends;
};

/// Whether a height from tags, metres, can be a building's: above 0 and not beyond any
/// building's (kGeneratedMaxHeightMetres). Beyond is a mapping mistake (height=1e39 made a model
/// of infinite scale, which no export takes), read as no tag.
bool credibleHeight(double metres);

/// A tag read as a positive number; 0 when absent or not a number.
double numberTag(const Feature& f, std::string_view key);

/// The height a building's tags give (`height`, else `building:levels` storeys), metres; NaN
/// when they give none (or none credible).
double taggedHeight(const Feature& f, double storeyHeight);

/// The footprint's outer ring in ground metres, counter-clockwise, not closed, without repeated
/// points: of its rings the one enclosing the largest area (holes lie inside it).
void outerRing(FootprintRings rings, const GroundFrame& frame, std::vector<Vec2>& out);

/// The heights a generated building takes where its tags give none, metres.
struct UntaggedHeights {
    double storey = 3.0;  ///< one of `building:levels` or `roof:levels`
    double wall = 6.0;    ///< its walls without `height` or `building:levels`
};

/// A generated building's shape, its base left as it is: the outer ring as its outline, its
/// other rings that can be drawn as courtyards, its wall and roof heights and roof shape from the
/// tags (`height`, `building:levels`, `roof:shape`, `roof:height`, `roof:levels`); an untagged
/// pitched roof rises about 30° over half the shorter side of `boxHalfExtents` (its target box,
/// ground metres). A ring that touches itself is drawn on its convex hull, without courtyards.
/// False when the rings make no building.
bool shapeGeneratedBuilding(const Feature& f, FootprintRings rings, const GroundFrame& frame, Vec2 boxHalfExtents,
                            const UntaggedHeights& heights, GeneratedBuilding& out);

}  // namespace terrabit::core::placement::detail
