#pragma once
/// ReliefMask: the cells of `height(...)`, `slope(...)` and `aspect(...)` — the relief layers of
/// the expression language (expression_ast.h defines them) as a row kernel over one tile's
/// heights (terrain/height_tile.h). A cell's value depends on its own four corner samples and
/// the latitude of its row only, so any thread, any tile order and any tile of a halo give the
/// same bits.

#include <cstdint>
#include <limits>

namespace terrabit::core::terrain {
struct HeightTile;
}

namespace terrabit::core::algebra {

struct ReliefMask {
    enum class Kind : std::uint8_t {
        Height,  ///< mean of the corners > above and < below (metres)
        Slope,   ///< atan(|gradient|) > above and < below (degrees)
        Aspect,  ///< bearing of the downhill direction within `within` degrees of `direction`
    };

    Kind kind = Kind::Height;
    double above = -std::numeric_limits<double>::infinity();  ///< Height: metres; Slope: degrees
    double below = std::numeric_limits<double>::infinity();   ///< Height: metres; Slope: degrees
    double direction = 0.0;                                   ///< Aspect: degrees clockwise from north, 0..360
    double within = 22.5;                                     ///< Aspect: half-width of the sector in degrees, (0, 180]

    // Derived by make(): what the row kernel compares with.
    double tanAbove = 0.0;  ///< Slope: tan(above), +infinity from 90 degrees on
    double tanBelow = 0.0;  ///< Slope: tan(below), +infinity from 90 degrees on
    /// Aspect: the sector's edges, the bearings direction - within and direction + within, as
    /// vectors (east, north), exact (0, ±1, ±1) at multiples of 45 degrees so that downhill
    /// directions exactly on such an edge are in, as the definition says.
    double firstEast = 0.0, firstNorth = 1.0;
    double lastEast = 0.0, lastNorth = 1.0;
    bool wide = false;  ///< Aspect: within > 90: in unless strictly inside the opposite sector

    /// A relief mask with its derived values. Height and Slope use above and below; Aspect uses
    /// first as the direction and second as the half-width.
    static ReliefMask make(Kind kind, double first, double second);

    /// Writes `wordCount` words of tile row `row` (0..255) from tile word `firstWord` (0..3,
    /// firstWord + wordCount <= 4): bit b of word w is cell (64 (firstWord + w) + b, row) of the
    /// heights' tile. A cell with a corner without height is clear. Allocates nothing.
    void fillRow(const terrain::HeightTile& heights, int row, int firstWord, int wordCount, std::uint64_t* words) const;

    /// The ground size of a cell in global row `globalRow` at `zoom`, metres: metresPerCell at the
    /// latitude of the row's cell centres (what the slope of every cell of that row uses).
    static double groundCellSize(std::int64_t globalRow, int zoom);
};

}  // namespace terrabit::core::algebra
