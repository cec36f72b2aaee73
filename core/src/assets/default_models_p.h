#pragma once
// Private to the default library: the builders of each model family and the small modelling
// helpers they share.

#include <string>
#include <vector>

#include "terrabit/core/assets/default_asset_library.h"
#include "terrabit/core/assets/mesh_builder.h"

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
std::vector<ModelRecipe> buildDefaultVegetation();

/// The façade of the wall along the edge p → q of a counter-clockwise (seen from above)
/// outline, from height y0 up `height` metres.
Facade edgeFacade(Vec3 p, Vec3 q, double y0, double height);
/// A quad whose winding is chosen so that it faces along `towards` (roughly).
void addQuadFacing(MeshBuilder& b, Vec3 a, Vec3 c1, Vec3 c2, Vec3 d, Vec3 towards);

}  // namespace terrabit::core::detail
