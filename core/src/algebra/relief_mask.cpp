#include "terrabit/core/algebra/relief_mask.h"

#include <cmath>
#include <numbers>

#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::algebra {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;

/// The direction of a bearing (degrees clockwise from north) as (east, north): exact at
/// multiples of 45 degrees, where integer heights put downhill directions exactly.
void bearingVector(double degrees, double& east, double& north) {
    double b = std::fmod(degrees, 360.0);
    if (b < 0.0) b += 360.0;
    if (b == std::floor(b) && static_cast<int>(b) % 45 == 0) {
        static constexpr double kEast[8] = {0, 1, 1, 1, 0, -1, -1, -1};
        static constexpr double kNorth[8] = {1, 1, 0, -1, -1, -1, 0, 1};
        const int k = static_cast<int>(b) / 45;
        east = kEast[k];
        north = kNorth[k];
        return;
    }
    east = std::sin(b * kRadiansPerDegree);
    north = std::cos(b * kRadiansPerDegree);
}

/// tan of an angle in degrees, +infinity from 90 on (tan(pi/2) in doubles is only 1.6e16).
double tanDegrees(double degrees) {
    if (degrees >= 90.0) return kInfinity;
    if (degrees <= 0.0) return 0.0;
    return std::tan(degrees * kRadiansPerDegree);
}

/// One row of one kind: the corners of cell c are top[c], top[c + 1] (north) and bottom[c],
/// bottom[c + 1] (south). Only finite differences and sums pass the comparisons: NaN (a corner
/// without height) compares false with everything.
template <ReliefMask::Kind K>
void fillWords(const ReliefMask& m, const float* top, const float* bottom, double lowLimit, double highLimit,
               int firstWord, int wordCount, std::uint64_t* words) {
    (void)m;  // only aspect reads the mask itself; height and slope only their limits
    (void)lowLimit;
    (void)highLimit;
    for (int w = 0; w < wordCount; ++w) {
        const int c0 = 64 * (firstWord + w);
        std::uint64_t bits = 0;
        for (int k = 0; k < 64; ++k) {
            const int c = c0 + k;
            const double h00 = top[c], h10 = top[c + 1], h01 = bottom[c], h11 = bottom[c + 1];
            bool in = false;
            if constexpr (K == ReliefMask::Kind::Height) {
                const double sum = (h00 + h10) + (h01 + h11);
                in = sum > lowLimit && sum < highLimit;
            } else {
                const double east = (h10 - h00) + (h11 - h01);
                const double south = (h01 - h00) + (h11 - h10);
                if constexpr (K == ReliefMask::Kind::Slope) {
                    const double g2 = east * east + south * south;
                    in = g2 > lowLimit && g2 < highLimit;
                } else {
                    // Downhill is minus the gradient: (e, n) = (-east, +south) in (east, north),
                    // exact (differences of floats). cross(p, q) = sin(bearing p - bearing q)
                    // times the lengths: >= 0 when q is no further clockwise than p (within 180).
                    const double e = -east, n = south;
                    const double afterFirst = e * m.firstNorth - n * m.firstEast;  // cross(v, first)
                    const double beforeLast = m.lastEast * n - m.lastNorth * e;    // cross(last, v)
                    const bool sloped = e * e + n * n > 0.0;                       // false when flat, and for NaN
                    in = sloped &&
                         (m.wide ? !(afterFirst < 0.0 && beforeLast < 0.0) : afterFirst >= 0.0 && beforeLast >= 0.0);
                }
            }
            bits |= static_cast<std::uint64_t>(in) << k;
        }
        words[w] = bits;
    }
}

}  // namespace

ReliefMask ReliefMask::make(Kind kind, double first, double second) {
    ReliefMask m;
    m.kind = kind;
    if (kind == Kind::Aspect) {
        m.direction = first;
        m.within = second;
        bearingVector(first - second, m.firstEast, m.firstNorth);
        bearingVector(first + second, m.lastEast, m.lastNorth);
        m.wide = second > 90.0;
    } else {
        m.above = first;
        m.below = second;
        if (kind == Kind::Slope) {
            m.tanAbove = tanDegrees(first);
            m.tanBelow = tanDegrees(second);
        }
    }
    return m;
}

double ReliefMask::groundCellSize(std::int64_t globalRow, int zoom) {
    const double worldCells = std::ldexp(256.0, zoom);
    const double y = (static_cast<double>(globalRow) + 0.5) / worldCells;  // 0 north .. 1 south
    const double latitude = std::atan(std::sinh(std::numbers::pi * (1.0 - 2.0 * y))) / kRadiansPerDegree;
    return metresPerCell(latitude, zoom);
}

void ReliefMask::fillRow(const terrain::HeightTile& heights, int row, int firstWord, int wordCount,
                         std::uint64_t* words) const {
    const float* top = heights.heights.data() + terrain::HeightTile::index(row, 0);
    const float* bottom = top + terrain::kHeightSamples;
    switch (kind) {
        case Kind::Height:
            // mean > above  <=>  sum > 4 above: scaling by 4 is exact.
            fillWords<Kind::Height>(*this, top, bottom, 4.0 * above, 4.0 * below, firstWord, wordCount, words);
            break;
        case Kind::Slope: {
            // atan(|d| / 2s) > a  <=>  |d|² > (2 s tan a)², d the corner differences, s the
            // ground size of the row's cells.
            const double twoS =
                2.0 * groundCellSize(std::int64_t{heights.tile.y} * kTileCells + row, heights.tile.zoom);
            const double low = tanAbove == kInfinity ? kInfinity : (twoS * tanAbove) * (twoS * tanAbove);
            const double high = tanBelow == kInfinity ? kInfinity : (twoS * tanBelow) * (twoS * tanBelow);
            fillWords<Kind::Slope>(*this, top, bottom, low, high, firstWord, wordCount, words);
            break;
        }
        case Kind::Aspect:
            fillWords<Kind::Aspect>(*this, top, bottom, 0.0, 0.0, firstWord, wordCount, words);
            break;
    }
}

}  // namespace terrabit::core::algebra
