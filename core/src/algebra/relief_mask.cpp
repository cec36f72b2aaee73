#include "terrabit/core/algebra/relief_mask.h"

#include <cmath>
#include <numbers>

#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::algebra {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;

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
                    // Downhill is minus the gradient: (-east, +south) in (east, north).
                    const double length = std::sqrt(east * east + south * south);
                    const double dot = -east * m.unitEast + south * m.unitNorth;
                    in = length > 0.0 && dot >= length * m.cosWithin;
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
        m.unitEast = std::sin(first * kRadiansPerDegree);
        m.unitNorth = std::cos(first * kRadiansPerDegree);
        m.cosWithin = second >= 180.0 ? -kInfinity : std::cos(second * kRadiansPerDegree);
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
