#pragma once
/// WGS 84 geodesy for 3D Tiles: Earth-centred Earth-fixed (ECEF, EPSG:4978) coordinates, the
/// local east-north-up frame at a point, and back to longitude/latitude/height (EPSG:4979).

#include <array>

#include "terrabit/core/geometry.h"

namespace terrabit::core {

/// A point on or above the WGS 84 ellipsoid.
struct Geodetic {
    double lon = 0.0;     ///< degrees east
    double lat = 0.0;     ///< degrees north (geodetic)
    double height = 0.0;  ///< metres above the ellipsoid
};

/// ECEF metres of a geodetic point.
std::array<double, 3> geodeticToEcef(const Geodetic& point);
/// The geodetic point of ECEF metres (iterative; better than 1 mm anywhere near the surface).
Geodetic ecefToGeodetic(const std::array<double, 3>& ecef);
/// The 4×4 column-major matrix taking local east-north-up metres at `origin` (x east, y north,
/// z up) to ECEF metres: columns east, north, up, then the origin's ECEF position.
std::array<double, 16> enuToEcef(const Geodetic& origin);

}  // namespace terrabit::core
