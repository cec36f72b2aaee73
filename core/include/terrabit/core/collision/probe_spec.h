#pragma once
/// Probes written as text, as `terrabit-cli probe` reads them from stdin and the desktop app's
/// probe tool records them: one probe per line, coordinates in degrees, sizes in ground metres.
///
///   point LON LAT
///   rect LON LAT WIDTH_M HEIGHT_M            axis-aligned, centred on LON LAT
///   orect LON LAT WIDTH_M HEIGHT_M ANGLE_DEG  turned counter-clockwise (north up)
///   disk LON LAT RADIUS_M
///   segment LON1 LAT1 LON2 LAT2
///   tri LON1 LAT1 LON2 LAT2 LON3 LAT3
///
/// Blank lines and lines starting with '#' are not probes.

#include <array>
#include <cstdint>
#include <string_view>

#include "terrabit/core/collision/collision_query.h"
#include "terrabit/core/geometry.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

struct ProbeSpec {
    enum class Shape : std::uint8_t { Point, Rect, OrientedRect, Disk, Segment, Triangle };
    Shape shape = Shape::Point;
    std::array<LonLat, 3> at{};  ///< the probe's position(s), degrees: 1 (point, rect, disk), 2, or 3
    double width = 0.0;          ///< Rect, OrientedRect: metres east-west (before turning)
    double height = 0.0;         ///< Rect, OrientedRect: metres north-south
    double radius = 0.0;         ///< Disk: metres
    double angleDeg = 0.0;       ///< OrientedRect: degrees counter-clockwise, north up
};

/// Parses one probe line. An error says what is wrong with it ("rect needs 4 numbers, got 3",
/// "'4x' is not a number", "latitude 95 is outside -85.05..85.05"); the caller adds where.
/// Every number must be finite (nan, inf and values beyond a double are not numbers); sizes and
/// radii must lie in 0..41,000,000 m (more than the Earth's circumference), so a probe's extent
/// in cells is always representable.
/// Blank and comment lines are errors with an empty message (nothing to probe).
Result<ProbeSpec> parseProbe(std::string_view line);

/// Runs a probe against a grid: coordinates go to the grid's cells at its zoom, metres to cells
/// at the probe's own latitude. Conservative coverage: every touched cell counts.
ProbeResult runProbe(CollisionQuery& query, const ProbeSpec& probe, std::vector<CellHit>* hits = nullptr);

}  // namespace terrabit::core
