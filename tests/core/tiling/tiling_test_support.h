#pragma once
// Builders for tiling tests: features placed in a tile's cell coordinates at a zoom.

#include <string>
#include <vector>

#include "terrabit/core/map/feature.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::test {

/// A feature whose points are given in global cell coordinates at `zoom` (x east, y south from
/// the world's north-west corner), stored in EPSG:3857 metres as readers do.
inline Feature cellFeature(std::string id, FeatureKind kind, std::vector<Tag> tags, const std::vector<Vec2>& cells,
                           int zoom, std::vector<std::uint32_t> partEnds = {}) {
    const double cell = TileId{zoom, 0, 0}.cellSizeMercator();
    Feature f;
    f.id = std::move(id);
    f.kind = kind;
    f.tags = std::move(tags);
    for (const Vec2& c : cells) f.points.push_back({c.x * cell - kMercatorHalfWorld, kMercatorHalfWorld - c.y * cell});
    f.partEnds = partEnds.empty() ? std::vector<std::uint32_t>{static_cast<std::uint32_t>(cells.size())} : partEnds;
    f.updateBounds();
    return f;
}

/// The first cell of tile (x, y) at zoom in global cells.
inline Vec2 tileOrigin(std::uint32_t x, std::uint32_t y) { return {256.0 * x, 256.0 * y}; }

}  // namespace terrabit::core::test
