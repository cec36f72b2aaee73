#pragma once
// An in-memory LayerSource for tests: named layers over any set of tiles, terrain heights for
// any of them, and random filling.

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::test {

class MemoryLayerSource : public core::LayerSource {
public:
    explicit MemoryLayerSource(std::vector<std::string> names) : mNames(std::move(names)) {}

    const std::vector<std::string>& layerNames() const override { return mNames; }
    const core::BitTile* tile(const core::TileId& id, int layer) const override {
        auto it = mTiles.find({id, layer});
        return it == mTiles.end() ? nullptr : &it->second;
    }
    core::BitTile& at(const core::TileId& id, int layer) { return mTiles[{id, layer}]; }
    /// Drops a tile of a layer: it reads as absent again.
    void erase(const core::TileId& id, int layer) { mTiles.erase({id, layer}); }

    const core::terrain::HeightTile* heights(const core::TileId& id) const override {
        auto it = mHeights.find(id);
        return it == mHeights.end() ? nullptr : &it->second;
    }
    /// The tile's heights, made (all kNoHeight) on first use.
    core::terrain::HeightTile& heightsAt(const core::TileId& id) {
        auto [it, inserted] = mHeights.try_emplace(id);
        if (inserted) it->second.reset(id);
        return it->second;
    }
    /// Drops a tile's heights: it answers nullptr again.
    void eraseHeights(const core::TileId& id) { mHeights.erase(id); }

    /// Fills a layer of a tile at random: each cell set with probability p.
    void randomize(const core::TileId& id, int layer, double p, std::mt19937_64& rng) {
        core::BitTile& t = at(id, layer);
        std::bernoulli_distribution on(p);
        for (int y = 0; y < core::BitTile::kSize; ++y)
            for (int x = 0; x < core::BitTile::kSize; ++x) t.assign(x, y, on(rng));
    }

private:
    std::vector<std::string> mNames;
    std::map<std::pair<core::TileId, int>, core::BitTile> mTiles;
    std::map<core::TileId, core::terrain::HeightTile> mHeights;
};

}  // namespace terrabit::test
