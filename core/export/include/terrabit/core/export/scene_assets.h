#pragma once
/// The meshes of a scene's assets, loaded once per export and shared by the glTF and 3D Tiles
/// writers.

#include <string>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// Reads the model of every asset the scene names, index-aligned with Scene::assets; every node
/// transform of a model file is baked into its single mesh (readAssetMesh). Errors: an asset id
/// the catalogue does not know, a missing, unreadable or corrupt model file, a model without
/// triangles — the message names the asset id and the file.
Result<std::vector<AssetMesh>> loadSceneAssets(const Scene& scene, const AssetCatalogue& catalogue);
/// One asset's model, as loadSceneAssets reads it (its errors).
Result<AssetMesh> loadAssetMesh(const std::string& id, const AssetCatalogue& catalogue);

}  // namespace terrabit::core
