#pragma once
/// AreaCoverage: exact coverage of a mask — how many cells are set and how much ground they
/// cover. Cells are counted exactly; the area of a cell is metresPerCell² at the latitude of its
/// row's centre (ground metres, docs/ARCHITECTURE.md), so a tile's rows nearer the pole weigh less.

#include <array>
#include <cstdint>
#include <span>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::algebra {

struct AreaCoverage {
    std::int64_t cells = 0;     ///< set cells
    double squareMetres = 0.0;  ///< ground area of the set cells, m²

    AreaCoverage& operator+=(const AreaCoverage& o) {
        cells += o.cells;
        squareMetres += o.squareMetres;
        return *this;
    }
    friend bool operator==(const AreaCoverage&, const AreaCoverage&) = default;
};

/// The coverage of a tile's mask.
AreaCoverage coverageOf(const BitTile& mask, const TileId& tile);

/// The coverage of a region: the sum over its tiles, in the order given (so the floating-point
/// total is the same however the tiles were computed). masks and tiles have the same length.
AreaCoverage coverageOf(std::span<const BitTile> masks, std::span<const TileId> tiles);

}  // namespace terrabit::core::algebra
