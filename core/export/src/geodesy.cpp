#include "terrabit/core/export/geodesy.h"

#include <cmath>
#include <numbers>

namespace terrabit::core {

namespace {
constexpr double kA = 6378137.0;            // WGS 84 semi-major axis, metres
constexpr double kF = 1.0 / 298.257223563;  // WGS 84 flattening
constexpr double kE2 = kF * (2.0 - kF);     // first eccentricity squared
constexpr double kDeg = std::numbers::pi / 180.0;
}  // namespace

std::array<double, 3> geodeticToEcef(const Geodetic& p) {
    const double lon = p.lon * kDeg, lat = p.lat * kDeg;
    const double s = std::sin(lat), c = std::cos(lat);
    const double n = kA / std::sqrt(1.0 - kE2 * s * s);  // prime vertical radius of curvature
    return {(n + p.height) * c * std::cos(lon), (n + p.height) * c * std::sin(lon), (n * (1.0 - kE2) + p.height) * s};
}

Geodetic ecefToGeodetic(const std::array<double, 3>& e) {
    const double x = e[0], y = e[1], z = e[2];
    const double p = std::hypot(x, y);
    Geodetic g;
    g.lon = std::atan2(y, x) / kDeg;
    // Fixed-point iteration on latitude: converges to well below a millimetre in a few rounds
    // for points near the surface, which is all 3D Tiles regions need.
    double lat = std::atan2(z, p * (1.0 - kE2));
    double h = 0.0;
    for (int i = 0; i < 8; ++i) {
        const double s = std::sin(lat);
        const double n = kA / std::sqrt(1.0 - kE2 * s * s);
        h = p / std::cos(lat) - n;
        lat = std::atan2(z, p * (1.0 - kE2 * n / (n + h)));
    }
    g.lat = lat / kDeg;
    g.height = h;
    return g;
}

std::array<double, 16> enuToEcef(const Geodetic& origin) {
    const double lon = origin.lon * kDeg, lat = origin.lat * kDeg;
    const double sl = std::sin(lon), cl = std::cos(lon), sp = std::sin(lat), cp = std::cos(lat);
    const std::array<double, 3> o = geodeticToEcef(origin);
    return {-sl,      cl,       0.0,  0.0,  // east
            -sp * cl, -sp * sl, cp,   0.0,  // north
            cp * cl,  cp * sl,  sp,   0.0,  // up
            o[0],     o[1],     o[2], 1.0};
}

}  // namespace terrabit::core
