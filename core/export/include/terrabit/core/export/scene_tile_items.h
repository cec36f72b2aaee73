#pragma once
/// SceneTileItems: a scene's items grouped by tile in one pass, each tile's in the scene's
/// order, so per-tile exports (a 3D Tiles content per tile, its bounds) look up their tile's
/// items instead of scanning the whole scene once per tile — which made writing a region's
/// tileset quadratic in its tiles.

#include <unordered_map>
#include <vector>

#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// One tile's share of a scene, pointers into it, in the scene's order.
struct TileItems {
    std::vector<const SurfacePatch*> surfaces;
    std::vector<const InstanceBlock*> blocks;
    std::vector<const Plinth*> plinths;
    std::vector<const GeneratedBuilding*> generated;
    std::vector<const BridgeDeck*> bridges;
};

class SceneTileItems {
public:
    /// Groups the scene's items; the scene must outlive this.
    explicit SceneTileItems(const Scene& scene);
    /// The tile's items (none for a tile without any).
    const TileItems& of(const TileId& tile) const {
        const auto it = mByTile.find(tile);
        return it == mByTile.end() ? mNone : it->second;
    }

private:
    std::unordered_map<TileId, TileItems> mByTile;
    TileItems mNone;
};

}  // namespace terrabit::core
