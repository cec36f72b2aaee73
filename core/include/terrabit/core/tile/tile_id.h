#pragma once
/// Web Mercator (EPSG:3857) XYZ tiles named by Bing quadkeys, and the conversions between
/// lon/lat, Mercator metres and tile cell coordinates that every module shares (docs/ARCHITECTURE.md).

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

/// Cells along one side of a tile.
inline constexpr int kTileCells = 256;
/// The deepest zoom a TileId can name (quadkeys of 30 digits; x and y fit 30 bits).
inline constexpr int kMaxZoom = 30;
/// Half the Web Mercator world width, in EPSG:3857 metres (pi times the WGS 84 equator radius).
inline constexpr double kMercatorHalfWorld = 20037508.342789244;
/// The WGS 84 semi-major axis used by EPSG:3857, in metres.
inline constexpr double kEarthRadius = 6378137.0;
/// The highest latitude Web Mercator covers, in degrees.
inline constexpr double kMaxLatitude = 85.05112877980659;

/// An XYZ tile: zoom 0..30, x growing eastwards, y growing southwards. A default TileId is the
/// single zoom-0 tile covering the world. Always valid when made through the factories.
struct TileId {
    int zoom = 0;         ///< quadtree level, 0..kMaxZoom
    std::uint32_t x = 0;  ///< column, 0..2^zoom-1, westmost 0
    std::uint32_t y = 0;  ///< row, 0..2^zoom-1, northmost 0

    /// A checked tile: an error names the bad value and its allowed range.
    static Result<TileId> fromZxy(int zoom, std::int64_t x, std::int64_t y);
    /// Parses a Bing quadkey (digits 0-3, one per level; "" is the zoom-0 tile).
    static Result<TileId> fromQuadkey(std::string_view quadkey);

    /// The Bing quadkey: one digit per level, (y bit << 1) | x bit, most significant level first.
    std::string quadkey() const;
    /// The tile one level up; the zoom-0 tile has none.
    std::optional<TileId> parent() const;
    /// The four tiles one level down in quadkey order (NW, NE, SW, SE); none at kMaxZoom.
    std::optional<std::array<TileId, 4>> children() const;
    /// The tile dx columns east and dy rows south. Columns wrap around the antimeridian;
    /// there is no tile beyond the north or south edge of the world.
    std::optional<TileId> neighbour(int dx, int dy) const;

    /// Tiles along one side of the world at this zoom (2^zoom).
    std::uint64_t tilesPerSide() const { return std::uint64_t{1} << zoom; }
    /// Edge length of the tile in EPSG:3857 metres.
    double sizeMercator() const;
    /// Edge length of one cell in EPSG:3857 metres (not ground metres: see metresPerCell).
    double cellSizeMercator() const { return sizeMercator() / kTileCells; }
    /// The tile's extent in EPSG:3857 metres (min is south-west). Neighbouring tiles report
    /// bit-identical coordinates for their shared border.
    Box2 boundsMercator() const;
    /// The tile's extent in degrees (x = longitude, y = latitude; min is south-west).
    Box2 boundsLonLat() const;

    /// EPSG:3857 metres to this tile's cell coordinates: (0,0) is the north-west corner, x grows
    /// east and y south, one unit per cell; the centre of cell (i, j) is (i + 0.5, j + 0.5).
    /// Points outside the tile give coordinates outside 0..256.
    Vec2 mercatorToCell(Vec2 mercator) const;
    /// The inverse of mercatorToCell.
    Vec2 cellToMercator(Vec2 cell) const;

    friend auto operator<=>(const TileId&, const TileId&) = default;
};

/// Longitude/latitude in degrees to EPSG:3857 metres (spherical formula; latitude is clamped to
/// +-kMaxLatitude).
Vec2 lonLatToMercator(LonLat lonLat);
/// EPSG:3857 metres to longitude/latitude in degrees.
LonLat mercatorToLonLat(Vec2 mercator);
/// Ground metres covered by one cell's edge at a latitude (degrees) and zoom:
/// the Mercator cell size times cos(latitude). A zoom outside 0..kMaxZoom is clamped into it.
double metresPerCell(double latitudeDeg, int zoom);
/// The tile holding a point given in EPSG:3857 metres at a zoom: the one whose boundsMercator()
/// has min.x <= x < max.x and min.y < y <= max.y, so a point on a border belongs to the tile east
/// or south of it. Points beyond the world's edge (infinities included) are clamped onto the
/// border tiles. An error for a zoom outside 0..kMaxZoom or a NaN coordinate.
Result<TileId> tileAt(Vec2 mercator, int zoom);
/// Every tile at a zoom that the box (EPSG:3857 metres, closed) touches, in row-major order.
/// Fails for an empty or non-finite box, a bad zoom, or more than maxTiles tiles.
Result<std::vector<TileId>> tilesCovering(const Box2& mercator, int zoom, std::size_t maxTiles = 1u << 20);

/// The order every tile list of a bake is in: north to south, then west to east (row-major;
/// the zoom is not compared).
inline bool northToSouth(const TileId& a, const TileId& b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
/// `tiles` in northToSouth order, each once.
std::vector<TileId> sortedNorthToSouth(std::vector<TileId> tiles);

}  // namespace terrabit::core

template <>
struct std::hash<terrabit::core::TileId> {
    std::size_t operator()(const terrabit::core::TileId& t) const noexcept {
        std::uint64_t k = (std::uint64_t(t.zoom) << 58) ^ (std::uint64_t(t.x) << 29) ^ t.y;
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        return static_cast<std::size_t>(k);
    }
};
