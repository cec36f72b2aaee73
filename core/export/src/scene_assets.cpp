#include "terrabit/core/export/scene_assets.h"

#include <string>

namespace terrabit::core {

Result<AssetMesh> loadAssetMesh(const std::string& id, const AssetCatalogue& catalogue) {
    const AssetInfo* info = catalogue.find(id);
    if (info == nullptr) {
        return Error{"asset '" + id + "' used by the scene is not in the asset catalogue (" +
                     std::to_string(catalogue.size()) + " assets)"};
    }
    Result<AssetMesh> mesh = readAssetMesh(info->path);
    if (!mesh) return Error{"asset '" + id + "' (" + info->path.string() + "): " + mesh.message()};
    if (mesh->empty()) return Error{"asset '" + id + "' (" + info->path.string() + "): the model has no triangles"};
    if (Status s = mesh->validate(); !s)
        return Error{"asset '" + id + "' (" + info->path.string() + "): " + s.message()};
    return mesh;
}

Result<std::vector<AssetMesh>> loadSceneAssets(const Scene& scene, const AssetCatalogue& catalogue) {
    std::vector<AssetMesh> meshes;
    meshes.reserve(scene.assets.size());
    for (const std::string& id : scene.assets) {
        Result<AssetMesh> mesh = loadAssetMesh(id, catalogue);
        if (!mesh) return mesh.error();
        meshes.push_back(std::move(mesh).value());
    }
    return meshes;
}

}  // namespace terrabit::core
