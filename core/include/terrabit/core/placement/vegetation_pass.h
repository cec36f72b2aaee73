#pragma once
/// VegetationPass: trees, bushes and grass scattered where they belong.
///
/// Per class of the pass's layer (forest, park, grass…), in the rules' order: the plantable zone
/// `(zone) & class - (avoid)` (cells an earlier class took are not taken again) and the cells to
/// plant, the zone ANDed with `random(density)` or `noise(scale, density)` (or the rules' own
/// `plant` expression) — all through the layer algebra. For each cell to plant, a counter-based
/// hash of (scene seed, pass, global cell) gives its jitter (up to jitter/2 of a cell from the
/// centre on each axis), yaw (0..2π), uniform scale (within the class's range) and species (by
/// the class's weights): no generator state, so tiles and threads can go in any order.
///
/// With a minimum spacing, a cell keeps its plant only when no other candidate of the pass whose
/// (jittered) position lies closer than the spacing has a higher priority (another draw of the
/// same hash; ties by row, then column) — a rule each cell decides from its neighbours'
/// candidates alone, across tile borders, so it too is order-independent. Any two plants left
/// are at least the spacing apart.
///
/// Each plant's trunk cell goes into the placed_vegetation layer. Results are cached per tile
/// under a key of the pass's rule (of the classes present around the tile only), the common key
/// and the layers its expressions read over the tile and its neighbours.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "terrabit/core/placement/pass_context.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core::placement {

/// One plant, as the pass keeps it for the next bake: 28 bytes where its Instance and labels
/// took 40 (a plant is scaled alike on every axis and names no source), which on a country's
/// 20 million plants is 240 MB.
struct PlantedInstance {
    Vec3f position;          ///< the trunk's foot in the scene frame, metres
    float yaw = 0.0f;        ///< radians about +Y
    float scale = 1.0f;      ///< on every axis
    int asset = -1;          ///< catalogue index of its species
    std::uint8_t rule = 0;   ///< index of its class in the pass's rule
    std::uint8_t cellX = 0;  ///< the tile cell holding its trunk
    std::uint8_t cellY = 0;

    /// Its instance in the scene (source kNoSource).
    Instance instance() const { return {position, yaw, {scale, scale, scale}, Instance::kNoSource}; }
};
static_assert(sizeof(PlantedInstance) == 28);

/// The numbers behind the achieved-against-requested density of one class in one tile.
struct VegetationTally {
    std::size_t zoneCells = 0;        ///< plantable cells
    double requestedInstances = 0.0;  ///< density × plantable cells
    std::size_t instances = 0;        ///< plants placed
};

/// One tile's plants.
struct TileVegetation {
    std::uint64_t key = 0;
    std::vector<PlantedInstance> instances;  ///< in row order of their cells
    std::vector<VegetationTally> tallies;    ///< per class of the rule
};

/// The bytes a cached result holds, in place and on the heap (its containers' capacities): what
/// SceneBaker's cache budget counts.
std::size_t heldBytes(const TileVegetation& r);

class VegetationPass {
public:
    /// Runs the pass over ctx.order and ORs every trunk into ctx.layers' placed_vegetation.
    /// Errors: an expression that does not compile, a species the catalogue lacks, a spacing
    /// wider than a tile at this zoom, cancellation.
    Status run(const PassRule& rule, PassContext& ctx, PassReport& report);

    /// A baked tile's result after run(), or nullptr.
    const TileVegetation* tile(const TileId& id) const;
    /// Removes a tile's cached result and hands it over (the baker moves a result the cache will
    /// not keep into the scene); nullopt when none. The next bake computes the tile again.
    std::optional<TileVegetation> take(const TileId& id);
    /// Forgets every cached tile not in `keep` (SceneBaker's cache budget).
    void keepOnly(const std::unordered_set<TileId>& keep);
    /// Every tile with a cached result, and the bytes it holds (heldBytes), in no set order.
    std::vector<std::pair<TileId, std::size_t>> cachedBytes() const;
    /// Forgets every cached tile.
    void clearCache() { mCache.clear(); }

private:
    std::unordered_map<TileId, TileVegetation> mCache;
};

}  // namespace terrabit::core::placement
