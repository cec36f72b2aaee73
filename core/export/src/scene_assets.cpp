#include "terrabit/core/export/scene_assets.h"

#include <string>

namespace terrabit::core {

Result<std::vector<AssetMesh>> loadSceneAssets(const Scene& scene, const AssetCatalogue& catalogue) {
    std::vector<AssetMesh> meshes;
    meshes.reserve(scene.assets.size());
    for (const std::string& id : scene.assets) {
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
        meshes.push_back(std::move(mesh).value());
    }
    return meshes;
}

}  // namespace terrabit::core
