#include "terrabit/core/pipeline/tile_tally.h"

#include <unordered_map>

namespace terrabit::core::pipeline {

std::vector<TileTally> tallyTiles(const Scene& scene, const AssetCatalogue& catalogue, std::span<const TileId> tiles) {
    std::vector<TileTally> out(tiles.size());
    std::unordered_map<TileId, std::size_t> slot;  // one pass over the scene, not one per tile
    slot.reserve(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        out[i].tile = tiles[i];
        slot.emplace(tiles[i], i);
    }
    const auto find = [&](const TileId& t) -> TileTally* {
        const auto it = slot.find(t);
        return it == slot.end() ? nullptr : &out[it->second];
    };
    for (const BuildingRecord& b : scene.buildings) {
        TileTally* t = find(b.tile);
        if (!t) continue;
        if (b.outcome == BuildingOutcome::Placed) ++t->buildingsPlaced;
        if (b.outcome == BuildingOutcome::Blocked || b.outcome == BuildingOutcome::BlockedBySlope) {
            ++t->buildingsBlocked;
        }
        if (b.outcome == BuildingOutcome::NoModelFits) ++t->buildingsUnmatched;
        if (b.outcome == BuildingOutcome::Generated) ++t->buildingsGenerated;
    }
    // The category of each of the scene's assets, looked up once.
    std::vector<const AssetInfo*> assets;
    assets.reserve(scene.assets.size());
    for (const std::string& id : scene.assets) assets.push_back(catalogue.find(id));
    for (const InstanceBlock& block : scene.blocks) {
        if (block.asset < 0 || static_cast<std::size_t>(block.asset) >= assets.size()) continue;
        const AssetInfo* info = assets[static_cast<std::size_t>(block.asset)];
        TileTally* t = info && info->category != "building" ? find(block.tile) : nullptr;
        if (!t) continue;
        const int n = static_cast<int>(block.instances.size());
        t->vegetation += n;
        if (info->category == "tree") t->trees += n;
    }
    return out;
}

std::vector<algebra::AreaCoverage> coverageByLayer(const LayerSource& layers, std::span<const TileId> tiles) {
    std::vector<algebra::AreaCoverage> out(layers.layerNames().size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        for (const TileId& t : tiles) {
            if (const BitTile* bits = layers.tile(t, static_cast<int>(i))) out[i] += algebra::coverageOf(*bits, t);
        }
    }
    return out;
}

}  // namespace terrabit::core::pipeline
