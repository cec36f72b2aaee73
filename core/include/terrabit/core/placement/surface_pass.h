#pragma once
/// SurfacePass: flat ground meshes of a layer — roads, water — as merged rectangles of cells
/// (greedy meshing), one patch per class of the layer with the class's colour (or the rule's), at
/// the rule's elevation (water slightly below the ground). The cells are the rule's mask
/// expression; a cell in several classes goes to the first. Cached per tile under a key of the
/// rule, the common key and the layers the mask and classes read around the tile.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "terrabit/core/placement/pass_context.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core::placement {

/// One tile's patches.
struct TileSurfaces {
    std::uint64_t key = 0;
    std::vector<SurfacePatch> patches;  ///< in class order, the layer's own cells last
};

/// The bytes a cached result holds, in place and on the heap (its containers' capacities): what
/// SceneBaker's cache budget counts.
std::size_t heldBytes(const TileSurfaces& r);

class SurfacePass {
public:
    /// Runs the pass over ctx.order. Errors: a mask that does not compile, cancellation.
    Status run(const PassRule& rule, PassContext& ctx, PassReport& report);

    /// A baked tile's result after run(), or nullptr.
    const TileSurfaces* tile(const TileId& id) const;
    /// Removes a tile's cached result and hands it over (the baker moves a result the cache will
    /// not keep into the scene); nullopt when none. The next bake computes the tile again.
    std::optional<TileSurfaces> take(const TileId& id);
    /// Forgets every cached tile not in `keep` (SceneBaker's cache budget).
    void keepOnly(const std::unordered_set<TileId>& keep);
    /// Every tile with a cached result, and the bytes it holds (heldBytes), in no set order.
    std::vector<std::pair<TileId, std::size_t>> cachedBytes() const;
    /// Forgets every cached tile.
    void clearCache() { mCache.clear(); }

private:
    std::unordered_map<TileId, TileSurfaces> mCache;
};

}  // namespace terrabit::core::placement
