#include "terrabit/core/tiling/layer_store.h"

namespace terrabit::core {

LayerStore::LayerStore(std::vector<std::string> layerNames, std::vector<TileId> tiles)
    : mNames(std::move(layerNames)), mTiles(std::move(tiles)), mLayers(mTiles.size()) {
    mSlots.reserve(mTiles.size());
    for (std::size_t s = 0; s < mTiles.size(); ++s) {
        mSlots.emplace(mTiles[s], s);
        mLayers[s].index.assign(mNames.size(), -1);
    }
}

std::ptrdiff_t LayerStore::slotOf(const TileId& id) const {
    const auto it = mSlots.find(id);
    return it == mSlots.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
}

const BitTile* LayerStore::at(std::size_t slot, int layer) const {
    if (slot >= mLayers.size() || layer < 0 || static_cast<std::size_t>(layer) >= mNames.size()) return nullptr;
    const TileLayers& t = mLayers[slot];
    const std::int32_t i = t.index[static_cast<std::size_t>(layer)];
    return i < 0 ? nullptr : &t.bits[static_cast<std::size_t>(i)];
}

const BitTile* LayerStore::tile(const TileId& id, int layer) const {
    const std::ptrdiff_t slot = slotOf(id);
    return slot < 0 ? nullptr : at(static_cast<std::size_t>(slot), layer);
}

bool LayerStore::emptyAt(std::size_t slot) const { return slot >= mLayers.size() || mLayers[slot].bits.empty(); }

void LayerStore::store(std::size_t slot, std::span<const BitTile> layers) {
    TileLayers& t = mLayers[slot];
    t.bits.clear();
    t.index.assign(mNames.size(), -1);
    for (std::size_t l = 0; l < mNames.size() && l < layers.size(); ++l) {
        if (layers[l].none()) continue;
        t.index[l] = static_cast<std::int32_t>(t.bits.size());
        t.bits.push_back(layers[l]);
    }
}

std::uint64_t LayerStore::hash() const {
    // FNV-style mix of the per-tile hashes; empty layers count as a fixed value.
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) {
        h ^= v;
        h *= 1099511628211ULL;
    };
    for (std::size_t s = 0; s < mTiles.size(); ++s) {
        mix(std::hash<TileId>{}(mTiles[s]));
        for (std::size_t l = 0; l < mNames.size(); ++l) {
            const BitTile* b = at(s, static_cast<int>(l));
            mix(b ? b->hash() : 0x9e3779b97f4a7c15ULL);
        }
    }
    return h;
}

}  // namespace terrabit::core
