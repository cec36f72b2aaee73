#pragma once
/// GroundFrame: the scene's metric frame. Placement, collision and export work in metres on the
/// ground (docs/ARCHITECTURE.md): Web Mercator metres times cos(latitude of the scene origin), x east and
/// y north, origin at the scene origin. This converts between those metres, lon/lat and global
/// cell coordinates at a zoom (x east, y south, one unit per cell, cell (0,0) the north-west
/// corner of the world; tile (tx, ty) spans cells [256 tx, 256 tx + 256) × [256 ty, 256 ty + 256)).

#include <cmath>
#include <numbers>

#include "terrabit/core/geometry.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

struct GroundFrame {
    LonLat origin;  ///< the scene origin, degrees
    int zoom = 17;  ///< the zoom whose cells the cell coordinates count

    /// Mercator metres per ground metre's worth of scale: cos(origin latitude).
    double scale() const { return std::cos(origin.lat * std::numbers::pi / 180.0); }
    /// Edge of one cell in EPSG:3857 metres.
    double cellSizeMercator() const { return 2.0 * kMercatorHalfWorld / std::ldexp(1.0, zoom) / kTileCells; }
    /// Edge of one cell in ground metres (at the origin's latitude).
    double metresPerCell() const { return cellSizeMercator() * scale(); }

    /// Ground metres (east, north of the origin) to EPSG:3857 metres.
    Vec2 groundToMercator(Vec2 metres) const { return lonLatToMercator(origin) + metres * (1.0 / scale()); }
    /// EPSG:3857 metres to ground metres.
    Vec2 mercatorToGround(Vec2 mercator) const { return (mercator - lonLatToMercator(origin)) * scale(); }

    /// EPSG:3857 metres to global cell coordinates.
    Vec2 mercatorToCell(Vec2 m) const {
        const double c = cellSizeMercator();
        return {(m.x + kMercatorHalfWorld) / c, (kMercatorHalfWorld - m.y) / c};
    }
    /// Global cell coordinates to EPSG:3857 metres.
    Vec2 cellToMercator(Vec2 cell) const {
        const double c = cellSizeMercator();
        return {cell.x * c - kMercatorHalfWorld, kMercatorHalfWorld - cell.y * c};
    }

    Vec2 groundToCell(Vec2 metres) const { return mercatorToCell(groundToMercator(metres)); }
    Vec2 cellToGround(Vec2 cell) const { return mercatorToGround(cellToMercator(cell)); }
    Vec2 lonLatToCell(LonLat ll) const { return mercatorToCell(lonLatToMercator(ll)); }
    LonLat cellToLonLat(Vec2 cell) const { return mercatorToLonLat(cellToMercator(cell)); }
};

}  // namespace terrabit::core
