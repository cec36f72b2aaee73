#pragma once
/// BuildingPass: prefab models fitted into real building footprints, never overlapping, and a
/// building made for every footprint no prefab fills.
///
/// For each footprint of the pass's layer: its target box (minimum-area oriented, or
/// axis-aligned) in ground metres, and its own cells (centre rule, as the building layer draws
/// them) in a small window of bit rows around it (footprint_window_p.h), with what is taken
/// there (placed buildings, blocked_by) and what is kept off (keep_off: roads, water, other
/// footprints in the default rules). The models that fit the box (ModelMatcher, filtered by the
/// rules' tag filters; width and depth scaled up to `stretch` apart) are tried tightest first
/// with a seeded pick among near-equal fits, at full size and a few steps smaller, then every
/// model at its natural size, largest first. Each is tried at poses from the box's centre
/// outwards; a pose is the model's rectangle rasterized conservatively (rotated as placed), and
/// it is taken only when the AND scan finds none of its cells taken, at most `tolerance` of them
/// outside the footprint's cells and none of those kept off. After the first model, the
/// footprint's still-free cells take further models, largest first, as they are or turned 90°,
/// up to `max_models` (the seed method's ¶120). When no prefab found a pose, or the prefabs
/// cover less than `min_fill` of the footprint's cells, the `fallback` decides: generate (a
/// GeneratedBuilding on the footprint's outer ring and free cells, heights from `height`,
/// `building:levels`, `roof:*` or `wall_height`), shrink (the best prefab below the scale range)
/// or none. Each building ends placed, generated, "no model fits" or "blocked".
///
/// The search is bounded per footprint (a fixed number of poses looked at and tested, the same
/// whatever the threads), so a huge irregular footprint costs no more than a few ordinary ones.
///
/// On terrain (PassContext::terrain): a clear fit also reads the heights at every corner of
/// every cell its footprint covers. When they differ by more than the rule's max_ground_step the
/// fit is skipped; a building whose clear fits were all skipped so is "blocked: slope". A placed
/// building stands at the lowest of those heights (its record keeps the lowest and highest) and
/// the scene draws a plinth up to the highest under its first model (further models stand on
/// the lowest ground under their own cells). A generated building stands on the lowest ground
/// under its cells.
///
/// Across tiles: a building belongs to the tile holding its box's centre and its footprint may
/// reach that tile's eight neighbours (a fit reaching farther is skipped, with a warning). Tiles
/// run in 9 phases by (x mod 3, y mod 3): tiles of one phase lie at least 3 apart, so the regions
/// they write never meet and they run in parallel; within a tile buildings go by box area,
/// largest first, then by feature id. The result is the same for any thread count and any tile
/// order. (Tile columns wrap at the antimeridian, where x mod 3 breaks that spacing; a bake
/// straddling it may differ from one that does not.)
///
/// Incremental: a tile's result is cached under a key of everything it depends on — the pass's
/// rule, the common key, the footprints it owns, the blocking mask around it and the keys of the
/// earlier-phase tiles within two tiles — and reused while the key holds.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "terrabit/core/map/feature.h"
#include "terrabit/core/placement/occupancy_map.h"
#include "terrabit/core/placement/pass_context.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core::placement {

/// One footprint and what became of it.
struct PlacedBuilding {
    std::string featureId;  ///< the footprint's feature id
    /// The outcome. `asset` (and each part's) is a catalogue index (not yet a Scene index) and
    /// `source` is unset: the baker numbers both when it assembles the scene.
    BuildingRecord record;
    /// The first placed model's footprint rectangle, ground metres (the target box's frame at the
    /// model's scaled size, where it stands); a generated building's footprint box (which holds
    /// its outline); unset otherwise. What a plinth covers on terrain.
    OrientedBox placedBox;
    /// When the first placed model has a ground outline (an L, a U, a courtyard block): its
    /// rectangles, ground metres — what its plinth covers instead of placedBox (not the yard).
    std::vector<OrientedBox> outlineBoxes;
    /// A further prefab's ground on terrain: one rectangle of it (its box, or each rectangle of
    /// its ground outline), ground metres, and the lowest and highest height under its cells
    /// (NaN without heights) — what its own plinth covers.
    struct PartGround {
        OrientedBox box;
        float groundMin = 0.0f, groundMax = 0.0f;
    };
    /// The further prefabs' (record.parts') rectangles, part by part.
    std::vector<PartGround> partGrounds;
    /// When generated: the building made for the footprint (its source unset until the baker
    /// numbers it).
    GeneratedBuilding generated;
    /// When blocked by a building (record.blocker): that building's feature id, empty when the
    /// pass could not tell which (the baker turns it into record.blockerSource).
    std::string blockerId;
    /// When generated as a part of another generated building (record.partOfSource): that
    /// building's feature id (the baker turns it into record.partOfSource).
    std::string partOfId;
    /// Every cell the building took (its models' conservative cells, or a generated building's
    /// footprint cells), global cells: what a reused tile marks again.
    std::vector<CellSpan> cells;
};

/// The footprints one tile owns, in the order they were tried, and what the tile had to say.
struct TileBuildings {
    std::uint64_t key = 0;
    std::vector<PlacedBuilding> buildings;
    std::vector<std::string> warnings;
};

/// The bytes a cached result holds, in place and on the heap (its containers' capacities): what
/// SceneBaker's cache budget counts.
std::size_t heldBytes(const TileBuildings& r);

class BuildingPass {
public:
    /// Runs the pass (see above) over ctx.order, refilling the placed_buildings layer of
    /// ctx.layers over the baked tiles and their neighbours. Counts run and reused tiles in
    /// `report`. Errors: a rule expression that does not compile, cancellation.
    Status run(const PassRule& rule, PassContext& ctx, PassReport& report);

    /// A baked tile's result after run(), or nullptr.
    const TileBuildings* tile(const TileId& id) const;
    /// Removes a tile's cached result and hands it over (the baker moves a result the cache will
    /// not keep into the scene); nullopt when none. The next bake computes the tile again.
    std::optional<TileBuildings> take(const TileId& id);
    /// Forgets every cached tile not in `keep` (SceneBaker's cache budget).
    void keepOnly(const std::unordered_set<TileId>& keep);
    /// Every tile with a cached result, and the bytes it holds (heldBytes), in no set order.
    std::vector<std::pair<TileId, std::size_t>> cachedBytes() const;
    /// Forgets every cached tile.
    void clearCache() { mCache.clear(); }

private:
    std::unordered_map<TileId, TileBuildings> mCache;
};

}  // namespace terrabit::core::placement
