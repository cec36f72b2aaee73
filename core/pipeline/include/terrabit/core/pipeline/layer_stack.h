#pragma once
/// LayerStack: the map's base layers followed by derived layers (evaluated layer expressions),
/// as one LayerSource over the tiles of the map — what the desktop's map browser paints, its
/// layers panel measures, its expression editor and probe read. stackProjectLayers builds a
/// project's: the map's layers, the rules' named expressions, then the project's own.
///
/// Copies are cheap and share the bits (base and derived layers are immutable once made), so a
/// worker thread can evaluate on a copy while the UI thread replaces the document's stack.

#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/project/project.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tiling/layer_store.h"

namespace terrabit::core::pipeline {

class LayerStack final : public core::LayerSource {
public:
    /// No layers, no tiles.
    LayerStack() = default;
    /// The base layers of `base` and no derived layer. `base` must outlive the stack (it is
    /// shared so that a stack made from it can keep it alive).
    explicit LayerStack(std::shared_ptr<const core::LayerStore> base);

    const std::vector<std::string>& layerNames() const override { return mNames; }
    const core::BitTile* tile(const core::TileId& id, int layer) const override;
    /// The base store's heights (derived layers add none).
    const core::terrain::HeightTile* heights(const core::TileId& id) const override {
        return mBase ? mBase->heights(id) : nullptr;
    }

    /// The base store's tiles (the tiles every layer is known on).
    const std::vector<core::TileId>& tiles() const;
    int baseCount() const { return mBaseCount; }

    /// Evaluates `expression` on every tile of the base (reading base and earlier derived
    /// layers) and appends it as layer `name`. Errors: the expression's diagnostic text, a name
    /// already in use. `seed` keys random() and noise().
    core::Status addDerived(const std::string& name, const std::string& expression, std::uint64_t seed);
    /// Drops every derived layer.
    void clearDerived();

private:
    std::shared_ptr<const core::LayerStore> mBase;
    int mBaseCount = 0;
    std::vector<std::string> mNames;
    /// Per derived layer: per base slot, the bits (shared between copies, never changed).
    std::vector<std::shared_ptr<const std::vector<core::BitTile>>> mDerived;
};

/// A project's layers over `base`: the map's, then the rules' named expressions (one that does
/// not evaluate on this map is left out: the bake reports it), then the project's derived
/// layers, each reading the layers before it. A project layer that fails is left out and its
/// error, naming it, added to `problems` (when given). `seed` keys random() and noise().
LayerStack stackProjectLayers(std::shared_ptr<const LayerStore> base, std::span<const placement::ExpressionRule> named,
                              std::span<const project::DerivedLayer> derived, std::uint64_t seed,
                              std::vector<Error>* problems = nullptr);

/// Checks a project's derived layers as stackProjectLayers would stack them, all or nothing:
/// each name must be a layer name, not one of the map's layers or the rules' named expressions,
/// and each expression must evaluate. The error names the first layer that fails; a bad name or
/// clash is a bad argument.
Status checkProjectLayers(std::shared_ptr<const LayerStore> base, std::span<const placement::ExpressionRule> named,
                          std::span<const project::DerivedLayer> derived, std::uint64_t seed);

}  // namespace terrabit::core::pipeline
