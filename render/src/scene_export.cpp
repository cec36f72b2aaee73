#include "terrabit/render/scene_export.h"

#include "terrabit/render/asset_model.h"
#include "terrabit/render/scene_file.h"
#include "terrabit/render/scene_graph.h"

namespace terrabit::render {

core::SceneGraphWriter sceneGraphFileWriter() {
    return [](const core::Scene& scene, const core::ExportOptions& options, const core::AssetCatalogue& catalogue,
              const core::LayerSource* layers, const std::filesystem::path& file) -> core::Status {
        AssetModelCache models;
        SceneGraphOptions graphOptions;
        graphOptions.style.layers = options.layerStyles;
        SceneGraph graph(catalogue, models, graphOptions);
        if (core::Status s = graph.setScene(scene, layers); !s) return core::Error{"osgb: " + s.message()};
        return writeSceneFile(*graph.root(), file);
    };
}

}  // namespace terrabit::render
