#include "terrabit/ui/document/layer_stack.h"

#include <algorithm>

#include "terrabit/core/algebra/compose.h"

namespace terrabit::ui {

namespace {
const std::vector<core::TileId> kNoTiles;
}

LayerStack::LayerStack(std::shared_ptr<const core::LayerStore> base)
    : mBase(std::move(base)), mBaseCount(mBase ? static_cast<int>(mBase->layerNames().size()) : 0) {
    if (mBase) mNames = mBase->layerNames();
}

const std::vector<core::TileId>& LayerStack::tiles() const { return mBase ? mBase->tiles() : kNoTiles; }

const core::BitTile* LayerStack::tile(const core::TileId& id, int layer) const {
    if (!mBase || layer < 0) return nullptr;
    if (layer < mBaseCount) return mBase->tile(id, layer);
    const std::size_t d = static_cast<std::size_t>(layer - mBaseCount);
    if (d >= mDerived.size()) return nullptr;
    const std::ptrdiff_t slot = mBase->slotOf(id);
    if (slot < 0) return nullptr;
    const core::BitTile& bits = (*mDerived[d])[static_cast<std::size_t>(slot)];
    return bits.any() ? &bits : nullptr;
}

core::Status LayerStack::addDerived(const std::string& name, const std::string& expression, std::uint64_t seed) {
    if (!mBase) return core::Error{"no map is loaded"};
    if (std::find(mNames.begin(), mNames.end(), name) != mNames.end()) {
        return core::Error{"a layer named '" + name + "' exists already"};
    }
    const auto& tiles = mBase->tiles();
    std::vector<core::BitTile> bits(tiles.size());
    if (!tiles.empty()) {
        core::algebra::ComposeOptions options;
        options.seed = seed;
        options.threads = 1;
        auto result = core::algebra::compose(*this, tiles, expression, options);
        if (!result) return result.error();
        bits = std::move(result->masks);
    }
    mNames.push_back(name);
    mDerived.push_back(std::make_shared<const std::vector<core::BitTile>>(std::move(bits)));
    return core::Status::success();
}

void LayerStack::clearDerived() {
    mDerived.clear();
    mNames.resize(static_cast<std::size_t>(mBaseCount));
}

}  // namespace terrabit::ui
