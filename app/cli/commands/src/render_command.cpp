#include "terrabit/cli/render_command.h"

#include <chrono>
#include <memory>

#include "report_text_p.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/render/camera_pose.h"
#include "terrabit/render/offscreen_renderer.h"
#include "terrabit/render/scene_file.h"
#include "terrabit/render/scene_graph.h"

namespace terrabit::cli {

using namespace render;

namespace {

using Clock = std::chrono::steady_clock;
namespace io = core::io;

/// Reports a failure once the scene is being baked or drawn: whatever its kind, nothing usable.
int drawFailed(std::ostream& err, const core::Error& error) { return fail(err, nothingUsable(error), kRenderErrors); }

}  // namespace

int runRender(const RenderCommand& command, std::ostream& out, std::ostream& err,
              const core::ProgressCallback& progress) {
    if (command.out.empty()) return fail(err, core::badArguments("--out: no output image given"), kRenderErrors);
    core::Result<ViewDirection> direction = parseViewDirection(command.camera);
    if (!direction) return fail(err, core::badArguments("--camera: " + direction.message()), kRenderErrors);
    const auto start = Clock::now();
    core::pipeline::SessionInput input;
    input.map = command.input;
    input.tiles = command.selection;
    input.passes = core::pipeline::PassNeed::Optional;  // a rules document without passes still has layers
    input.catalogueFile = command.catalogue;
    input.threads = command.threads;
    input.dems = command.dems;
    auto opened = core::pipeline::Session::open(std::move(input), progress);
    if (!opened) return fail(err, opened.error(), kRenderErrors);
    core::pipeline::Session& session = **opened;
    const io::MapLayers& map = session.map();
    for (const std::string& w : session.warnings()) err << "warning: " << w << "\n";
    const double readMs = msSince(start);
    if (map.store.tiles().empty()) return fail(err, core::Error{"no tile holds anything to render"}, kRenderErrors);

    // Bake; without passes, the ground and surfaces only.
    auto bakeStart = Clock::now();
    core::Scene scene;
    if (!session.hasPasses()) {
        err << "warning: " << session.passesProblem()->message << "; rendering the ground and surfaces only\n";
        scene.tiles = map.store.tiles();
        scene.frame = {core::placement::sceneOrigin(scene.tiles), command.selection.zoom};
        scene.seed = command.seed;
    } else {
        core::placement::BakeOptions options;
        options.seed = command.seed;
        options.threads = command.threads;
        options.progress = progress;
        options.cacheBudgetBytes = 0;  // one bake: its results move into the scene
        core::Result<core::Scene> baked = session.bake(options);
        if (!baked) return drawFailed(err, baked.error());
        for (const std::string& w : session.report().warnings) err << "warning: " << w << "\n";
        scene = std::move(baked).value();
    }
    const double bakeMs = msSince(bakeStart);
    const core::LayerSource& layers = session.layers();
    const core::AssetCatalogue& catalogue = session.catalogue();

    // Graph.
    const auto graphStart = Clock::now();
    AssetModelCache models;
    SceneGraphOptions options;
    options.style.layers = map.classified.layers;
    options.groundExpression = command.ground;
    SceneGraph graph(catalogue, models, options);
    if (core::Status s = graph.setScene(scene, &layers); !s) {
        return fail(err, s.error(), kRenderErrors);
    }
    if (!command.overlay.empty()) {
        HeatOverlayStyle heat;
        heat.radiusCells = command.overlayRadius;
        if (core::Status s = graph.setHeatOverlay(layers, command.overlay, heat); !s) {
            return fail(err, core::badArguments("--overlay: " + s.message()), kRenderErrors);
        }
    }
    if (command.grid) graph.setTileGridVisible(true);
    const double graphMs = msSince(graphStart);

    // Draw.
    core::Result<std::unique_ptr<OffscreenRenderer>> renderer =
        OffscreenRenderer::create(command.width, command.height);
    if (!renderer) return drawFailed(err, renderer.error());
    const CameraPose pose = frameBox(graph.bounds(), *direction, static_cast<double>(command.width) / command.height);
    core::Result<FrameStatistics> frame = (*renderer)->render(graph.root(), pose, options.lighting.sky);
    if (!frame) return drawFailed(err, frame.error());
    if (core::Status s = writePng((*renderer)->image(), command.out); !s) {
        return drawFailed(err, s.error());
    }
    if (!command.sceneFile.empty()) {
        if (core::Status s = writeSceneFile(*graph.root(), command.sceneFile); !s) {
            return drawFailed(err, s.error());
        }
    }

    const GraphCounts counts = graph.counts();
    out << "wrote " << command.out.string() << " (" << command.width << "x" << command.height << ", camera "
        << command.camera << ")\n";
    if (!command.sceneFile.empty()) out << "wrote " << command.sceneFile.string() << "\n";
    out << "scene: " << counts.tiles << " tiles, " << scene.assets.size() << " assets, " << counts.instancedDrawables
        << " instanced blocks, " << counts.instances << " instances, " << counts.surfaceDrawables
        << " surface meshes\n";
    out << "frame: " << frame->drawCalls << " draw calls (" << frame->instancedDrawCalls << " instanced), "
        << frame->triangles << " triangles counted by OSG\n";
    out << "time: read " << static_cast<long>(readMs) << " ms, bake " << static_cast<long>(bakeMs) << " ms, graph "
        << static_cast<long>(graphMs) << " ms, frame " << static_cast<long>(frame->frameMs) << " ms\n";
    out << "Map data © OpenStreetMap contributors, ODbL 1.0\n";
    return kExitOk;
}

}  // namespace terrabit::cli
