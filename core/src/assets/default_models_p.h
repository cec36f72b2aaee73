#pragma once
// Private to the default library: the builders of each model family and the small modelling
// helpers they share.

#include <string>
#include <vector>

#include "terrabit/core/assets/default_asset_library.h"
#include "terrabit/core/assets/mesh_builder.h"
#include "terrabit/core/assets/style_kit.h"

namespace terrabit::core::detail {

/// A model as its builder returns it: the catalogue fields not measured from the mesh.
struct ModelRecipe {
    std::string id;
    std::string category;
    std::vector<std::string> tags;
    double weight = 1.0;
    AssetMesh mesh;
};

std::vector<ModelRecipe> buildDefaultBuildings();
/// Garages, sheds, kiosks, halls and the rest of what towns are made of (default_town_buildings.cpp).
std::vector<ModelRecipe> buildDefaultTownBuildings();
std::vector<ModelRecipe> buildDefaultVegetation();

// The style kit's part helpers, under the names the builders have always used.
using style::addQuadFacing;
using style::edgeFacade;

}  // namespace terrabit::core::detail
