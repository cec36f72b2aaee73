#pragma once
/// Writes a CollisionGrid as a runtime collision grid file (the format is specified in
/// terrabit/core/collision/collision_file.h and README.md); readCollisionFile() reads it back.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/collision/collision_grid.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core {

/// Encodes the grid. The tile index lists `tiles` (any order; they are sorted by (y, x)), each
/// with the layers that have a set cell there; an empty span lists every tile of the grid's
/// region that has any set cell or heights. A layer with no set cell in a listed tile costs no
/// bytes. When a listed tile has heights (CollisionGrid::tileHeights) the file is version 2 with
/// a height block per listed tile (heights rounded to 1/1024 m, or float32 where that does not
/// fit); otherwise it is version 1, byte for byte as before heights existed.
/// Errors: a grid without layers, a layer name that is empty or longer than 255 bytes, a tile
/// outside the grid's region or at another zoom, a tile listed twice.
Result<std::vector<std::uint8_t>> encodeCollisionFile(const CollisionGrid& grid, std::span<const TileId> tiles = {});

/// One entry of a collision grid file's tile index.
struct CollisionIndexEntry {
    TileId tile;
    std::uint64_t layerMask = 0;  ///< bit l: the file stores layer l's bits for this tile
};

/// A collision grid file's head: the header, the layer names and the tile index, zero-padded
/// to the data offset (encodeCollisionFile's first bytes; a join of files writes its own). The
/// entries must be sorted by (y, x) and lie in the region; the names must be writable.
std::vector<std::uint8_t> encodeCollisionFileHead(std::uint32_t version, const TileId& origin, int tilesWide,
                                                  int tilesHigh, std::span<const std::string> layerNames,
                                                  std::span<const CollisionIndexEntry> entries);

}  // namespace terrabit::core
