#pragma once
/// Checks and repairs a feature's geometry as read from real data, where rings come unclosed,
/// parts degenerate and buildings cross themselves. Nothing that can still be drawn is thrown
/// away: repairs are reported so the reader can name the feature in a warning.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/map/feature.h"

namespace terrabit::core {

/// What repairGeometry found and did to one feature.
struct GeometryRepair {
    int unclosedRings = 0;        ///< area rings whose last point did not repeat the first (closed now)
    int droppedParts = 0;         ///< rings with < 3 distinct points, lines with < 2, or parts with NaN
    bool selfIntersects = false;  ///< two edges of the area's rings properly cross each other
    Vec2 crossing;                ///< where the first crossing found lies, EPSG:3857 metres
    bool usable = true;           ///< false when nothing drawable is left (the feature is empty)

    /// True when nothing was wrong.
    bool clean() const { return unclosedRings == 0 && droppedParts == 0 && !selfIntersects && usable; }
    /// A sentence describing the problems (without file or feature), e.g. "1 ring was not closed
    /// (closed it); ring edges cross near 7.42130,43.73120 (drawn with the even-odd rule)".
    /// Empty when clean().
    std::string describe() const;
};

/// Scratch memory for repairGeometry, reused between features so repairs allocate only while the
/// buffers grow.
struct GeometryRepairScratch {
    struct Segment {
        double minX, maxX, minY, maxY;  ///< EPSG:3857 metres
        std::uint32_t a, b;             ///< point indices of the two ends
        std::uint32_t ring;             ///< part index
    };
    std::vector<Segment> segments;
    std::vector<Vec2> points;
    std::vector<std::uint32_t> partEnds;
};

/// Normalizes f in place: drops non-finite points' parts, repeated consecutive points, the
/// repeated closing point of rings (rings close implicitly in the feature model) and degenerate
/// parts; looks for crossing ring edges (self-intersections are kept: the even-odd rule still
/// fills them sensibly); recomputes f.bounds. Touching rings (a shared vertex) are not crossings.
GeometryRepair repairGeometry(Feature& f, GeometryRepairScratch& scratch);

}  // namespace terrabit::core
