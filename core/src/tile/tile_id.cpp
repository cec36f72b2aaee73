#include "terrabit/core/tile/tile_id.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace terrabit::core {

namespace {

constexpr double kDegToRad = std::numbers::pi / 180.0;

Status checkZoom(int zoom) {
    if (zoom < 0 || zoom > kMaxZoom) {
        return Error{"zoom " + std::to_string(zoom) + " is outside 0.." + std::to_string(kMaxZoom)};
    }
    return {};
}

// Dividing by a power of two is exact, so this is 2 * kMercatorHalfWorld scaled, bit for bit.
double tileSize(int zoom) { return 2.0 * kMercatorHalfWorld / static_cast<double>(std::int64_t{1} << zoom); }

// The west edge of column x and the north edge of row y in EPSG:3857 metres. Every bound, cell
// transform and point lookup uses this formula (mercatorToCell spells it out inline), so
// neighbouring tiles share their border coordinate bit for bit (x * size is rounded, and
// minX + size would not equal the next column's minX).
double columnWest(std::uint64_t x, int zoom) {
    return -kMercatorHalfWorld + static_cast<double>(static_cast<std::int64_t>(x)) * tileSize(zoom);
}
double rowNorth(std::uint64_t y, int zoom) {
    return kMercatorHalfWorld - static_cast<double>(static_cast<std::int64_t>(y)) * tileSize(zoom);
}

}  // namespace

Result<TileId> TileId::fromZxy(int zoom, std::int64_t x, std::int64_t y) {
    if (Status s = checkZoom(zoom); !s) return s.error();
    const std::int64_t n = std::int64_t{1} << zoom;
    if (x < 0 || x >= n) {
        return Error{"tile x " + std::to_string(x) + " is outside 0.." + std::to_string(n - 1) + " at zoom " +
                     std::to_string(zoom)};
    }
    if (y < 0 || y >= n) {
        return Error{"tile y " + std::to_string(y) + " is outside 0.." + std::to_string(n - 1) + " at zoom " +
                     std::to_string(zoom)};
    }
    return TileId{zoom, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)};
}

Result<TileId> TileId::fromQuadkey(std::string_view quadkey) {
    if (quadkey.size() > static_cast<std::size_t>(kMaxZoom)) {
        return Error{"quadkey '" + std::string(quadkey) + "' has " + std::to_string(quadkey.size()) +
                     " digits; at most " + std::to_string(kMaxZoom) + " are allowed"};
    }
    TileId t;
    t.zoom = static_cast<int>(quadkey.size());
    for (std::size_t i = 0; i < quadkey.size(); ++i) {
        const char c = quadkey[i];
        if (c < '0' || c > '3') {
            return Error{"quadkey '" + std::string(quadkey) + "' has '" + std::string(1, c) + "' at position " +
                         std::to_string(i + 1) + "; only the digits 0-3 are allowed"};
        }
        const unsigned digit = static_cast<unsigned>(c - '0');
        t.x = (t.x << 1) | (digit & 1u);
        t.y = (t.y << 1) | (digit >> 1);
    }
    return t;
}

std::string TileId::quadkey() const {
    std::string key(static_cast<std::size_t>(zoom), '0');
    for (int level = zoom; level > 0; --level) {
        const unsigned bit = static_cast<unsigned>(level - 1);
        const unsigned digit = ((x >> bit) & 1u) | (((y >> bit) & 1u) << 1);
        key[static_cast<std::size_t>(zoom - level)] = static_cast<char>('0' + digit);
    }
    return key;
}

std::optional<TileId> TileId::parent() const {
    if (zoom == 0) return std::nullopt;
    return TileId{zoom - 1, x >> 1, y >> 1};
}

std::optional<std::array<TileId, 4>> TileId::children() const {
    if (zoom >= kMaxZoom) return std::nullopt;
    const int z = zoom + 1;
    const std::uint32_t cx = x << 1;
    const std::uint32_t cy = y << 1;
    return std::array<TileId, 4>{TileId{z, cx, cy}, TileId{z, cx + 1, cy}, TileId{z, cx, cy + 1},
                                 TileId{z, cx + 1, cy + 1}};
}

std::optional<TileId> TileId::neighbour(int dx, int dy) const {
    const std::int64_t n = static_cast<std::int64_t>(tilesPerSide());
    const std::int64_t ny = static_cast<std::int64_t>(y) + dy;
    if (ny < 0 || ny >= n) return std::nullopt;
    std::int64_t nx = (static_cast<std::int64_t>(x) + dx) % n;
    if (nx < 0) nx += n;
    return TileId{zoom, static_cast<std::uint32_t>(nx), static_cast<std::uint32_t>(ny)};
}

double TileId::sizeMercator() const { return tileSize(zoom); }

Box2 TileId::boundsMercator() const {
    return Box2{{columnWest(x, zoom), rowNorth(std::uint64_t{y} + 1, zoom)},
                {columnWest(std::uint64_t{x} + 1, zoom), rowNorth(y, zoom)}};
}

Box2 TileId::boundsLonLat() const {
    const Box2 m = boundsMercator();
    const LonLat sw = mercatorToLonLat(m.min);
    const LonLat ne = mercatorToLonLat(m.max);
    return Box2{{sw.lon, sw.lat}, {ne.lon, ne.lat}};
}

Vec2 TileId::mercatorToCell(Vec2 mercator) const {
    // Called for every vertex of every feature: a multiplication by cells per metre, which is a
    // power of two times one constant (exact), instead of a division by the cell size.
    constexpr double kCellsPerMetreAtZoom0 = kTileCells / (2.0 * kMercatorHalfWorld);
    const double tiles = static_cast<double>(std::int64_t{1} << zoom);
    const double size = 2.0 * kMercatorHalfWorld / tiles;  // tileSize(zoom), computed once here
    const double west = -kMercatorHalfWorld + static_cast<double>(static_cast<std::int64_t>(x)) * size;
    const double north = kMercatorHalfWorld - static_cast<double>(static_cast<std::int64_t>(y)) * size;
    const double cellsPerMetre = kCellsPerMetreAtZoom0 * tiles;
    return {(mercator.x - west) * cellsPerMetre, (north - mercator.y) * cellsPerMetre};
}

Vec2 TileId::cellToMercator(Vec2 cell) const {
    const double c = cellSizeMercator();
    return {columnWest(x, zoom) + cell.x * c, rowNorth(y, zoom) - cell.y * c};
}

Vec2 lonLatToMercator(LonLat lonLat) {
    const double lat = std::clamp(lonLat.lat, -kMaxLatitude, kMaxLatitude);
    return {kEarthRadius * lonLat.lon * kDegToRad,
            kEarthRadius * std::log(std::tan(std::numbers::pi / 4.0 + lat * kDegToRad / 2.0))};
}

LonLat mercatorToLonLat(Vec2 mercator) {
    return {mercator.x / kEarthRadius / kDegToRad,
            (2.0 * std::atan(std::exp(mercator.y / kEarthRadius)) - std::numbers::pi / 2.0) / kDegToRad};
}

double metresPerCell(double latitudeDeg, int zoom) {
    return tileSize(std::clamp(zoom, 0, kMaxZoom)) / kTileCells * std::cos(latitudeDeg * kDegToRad);
}

Result<TileId> tileAt(Vec2 mercator, int zoom) {
    if (Status s = checkZoom(zoom); !s) return s.error();
    if (std::isnan(mercator.x) || std::isnan(mercator.y)) return Error{"tileAt: the point has a NaN coordinate"};
    const double size = tileSize(zoom);
    const double n = static_cast<double>(std::uint64_t{1} << zoom);
    auto tx =
        static_cast<std::uint64_t>(std::clamp(std::floor((mercator.x + kMercatorHalfWorld) / size), 0.0, n - 1.0));
    auto ty =
        static_cast<std::uint64_t>(std::clamp(std::floor((kMercatorHalfWorld - mercator.y) / size), 0.0, n - 1.0));
    // The division above can land one tile off next to a border; settle the point against the
    // same edges boundsMercator reports, so a point on a border is always in the east/south tile
    // and a box equal to a tile's bounds touches that tile's east and south neighbours.
    const std::uint64_t last = (std::uint64_t{1} << zoom) - 1;
    if (tx < last && mercator.x >= columnWest(tx + 1, zoom)) {
        ++tx;
    } else if (tx > 0 && mercator.x < columnWest(tx, zoom)) {
        --tx;
    }
    if (ty < last && mercator.y <= rowNorth(ty + 1, zoom)) {
        ++ty;
    } else if (ty > 0 && mercator.y > rowNorth(ty, zoom)) {
        --ty;
    }
    return TileId{zoom, static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty)};
}

Result<std::vector<TileId>> tilesCovering(const Box2& mercator, int zoom, std::size_t maxTiles) {
    if (Status s = checkZoom(zoom); !s) return s.error();
    if (mercator.empty() || !isFinite(mercator.min) || !isFinite(mercator.max)) {
        return Error{"tilesCovering: the box is empty or not finite"};
    }
    const TileId nw = *tileAt({mercator.min.x, mercator.max.y}, zoom);
    const TileId se = *tileAt({mercator.max.x, mercator.min.y}, zoom);
    const std::uint64_t count = std::uint64_t(se.x - nw.x + 1) * std::uint64_t(se.y - nw.y + 1);
    if (count > maxTiles) {
        return Error{"the box covers " + std::to_string(count) + " tiles at zoom " + std::to_string(zoom) +
                     ", more than the limit of " + std::to_string(maxTiles)};
    }
    std::vector<TileId> tiles;
    tiles.reserve(count);
    for (std::uint32_t y = nw.y; y <= se.y; ++y) {
        for (std::uint32_t x = nw.x; x <= se.x; ++x) tiles.push_back(TileId{zoom, x, y});
    }
    return tiles;
}

std::vector<TileId> sortedNorthToSouth(std::vector<TileId> tiles) {
    std::sort(tiles.begin(), tiles.end(), northToSouth);
    tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
    return tiles;
}

}  // namespace terrabit::core
