#include "terrabit/core/pipeline/layer_stack.h"

#include <algorithm>

#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/rules/layer_name.h"

namespace terrabit::core::pipeline {

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

LayerStack stackProjectLayers(std::shared_ptr<const LayerStore> base, std::span<const placement::ExpressionRule> named,
                              std::span<const project::DerivedLayer> derived, std::uint64_t seed,
                              std::vector<Error>* problems) {
    LayerStack stack(std::move(base));
    for (const placement::ExpressionRule& e : named) (void)stack.addDerived(e.name, e.text, seed);
    for (const project::DerivedLayer& d : derived) {
        if (Status s = stack.addDerived(d.name, d.text, seed); !s && problems) {
            problems->push_back(Error{"layer " + d.name + ": " + s.message(), s.error().kind});
        }
    }
    return stack;
}

Status checkProjectLayers(std::shared_ptr<const LayerStore> base, std::span<const placement::ExpressionRule> named,
                          std::span<const project::DerivedLayer> derived, std::uint64_t seed) {
    if (!base) return Error{"no map is loaded"};
    const std::vector<std::string>& names = base->layerNames();
    for (const project::DerivedLayer& d : derived) {
        if (std::find(names.begin(), names.end(), d.name) != names.end()) {
            return badArguments("'" + d.name + "' is a layer of the map: choose another name");
        }
        for (const placement::ExpressionRule& e : named) {
            if (e.name == d.name) return badArguments("'" + d.name + "' is a named expression of the rules");
        }
        if (!isLayerName(d.name)) {
            return badArguments("'" + d.name + "' is not a layer name (" + std::string(kLayerNameRule) + ")");
        }
    }
    // Evaluated on a scratch stack: a project only takes layers that evaluate.
    LayerStack scratch(std::move(base));
    for (const placement::ExpressionRule& e : named) (void)scratch.addDerived(e.name, e.text, seed);
    for (const project::DerivedLayer& d : derived) {
        if (Status s = scratch.addDerived(d.name, d.text, seed); !s) return Error{d.name + ": " + s.message()};
    }
    return Status::success();
}

}  // namespace terrabit::core::pipeline
