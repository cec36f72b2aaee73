#pragma once
/// TileRasterizer: draws every layer of one tile from a TileIndex with the Foundation
/// Rasterizer. Keep one per thread: it owns the rasterizer's scratch and its own clipping
/// buffers, so after warming up a tile allocates nothing.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/raster/rasterizer.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core {

class TileRasterizer {
public:
    /// Clears `out` (one BitTile per layer id of the index's map; at least that many) and draws
    /// the entries of tile `slot` into it: areas under the even-odd rule, lines with round joins
    /// and caps at their width, points as disks, each with its layer's coverage rule. Shapes are
    /// clipped to the tile grown by kClipMarginCells (plus a line's half width) first, which
    /// leaves every cell inside the tile as drawing the whole shape would. Finally every parent
    /// layer becomes the union of its classes (and of what it took itself).
    Status rasterize(const TileIndex& index, std::size_t slot, std::span<BitTile> out);

    /// As rasterize(), but clears and draws only the layers the tile has entries in (and their
    /// parents), which drawn() names afterwards; the other layers of `out` are left as they
    /// were, and are empty for this tile. Clearing 11 layers of 8 KiB for a tile that draws
    /// three, and scanning them all again to store them, cost more than drawing an average tile.
    Status draw(const TileIndex& index, std::size_t slot, std::span<BitTile> out);
    /// Per layer id: 1 when the last draw() or rasterize() drew into that layer.
    std::span<const std::uint8_t> drawn() const { return mDrawn; }

private:
    /// Clips a ring (moved by -offset) to the square [lo, hi]², against the sides that `reach`
    /// (the feature's bounds, unmoved) passes.
    void clipRing(std::span<const Vec2> ring, Vec2 offset, double lo, double hi, const Box2& reach);
    /// Draws one part of a line feature whose bounds, grown, are `reach`, clipped to the tile.
    void drawLine(std::span<const Vec2> line, Vec2 offset, double halfWidth, Coverage coverage, const Box2& reach,
                  BitTile& target);

    Rasterizer mRasterizer;
    std::vector<Vec2> mPoints;  ///< the current shape in tile cells
    std::vector<std::uint32_t> mRingEnds;
    std::vector<Vec2> mReduced;  ///< a large ring with its far chunks cut to chords
    std::vector<Vec2> mClip;     ///< Sutherland–Hodgman ping-pong buffer
    std::vector<Vec2> mClipOut;
    std::vector<std::uint8_t> mDrawn;  ///< per layer: 1 when the current tile drew into it
};

}  // namespace terrabit::core
