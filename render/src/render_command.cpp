#include "terrabit/render/render_command.h"

#include <chrono>
#include <memory>
#include <optional>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/render/camera_pose.h"
#include "terrabit/render/offscreen_renderer.h"
#include "terrabit/render/scene_file.h"
#include "terrabit/render/scene_graph.h"

namespace terrabit::render {

namespace {

using Clock = std::chrono::steady_clock;
namespace io = core::io;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int fail(std::ostream& err, const std::string& message, int code) {
    err << "terrabit-cli render: " << message << "\n";
    return code;
}

}  // namespace

int runRender(const RenderCommand& command, std::ostream& out, std::ostream& err,
              const core::ProgressCallback& progress) {
    if (command.out.empty()) return fail(err, "--out: no output image given", io::kExitBadArguments);
    core::Result<ViewDirection> direction = parseViewDirection(command.camera);
    if (!direction) return fail(err, "--camera: " + direction.message(), io::kExitBadArguments);
    if (command.catalogue.empty()) return fail(err, "no asset catalogue given or found", io::kExitBadArguments);
    core::Result<core::AssetCatalogue> catalogue = core::AssetCatalogue::load(command.catalogue);
    if (!catalogue) return fail(err, catalogue.message(), io::kExitBadArguments);

    const auto start = Clock::now();
    core::Result<std::unique_ptr<io::MapLayers>> built =
        io::buildMapLayers(command.input, command.selection, command.threads, progress);
    if (!built) {
        // buildMapLayers says "rules" when the rules document is at fault.
        const bool rules = built.message().find("rules") != std::string::npos;
        return fail(err, built.message(), rules ? io::kExitBadArguments : io::kExitNothingUsable);
    }
    const io::MapLayers& map = **built;
    for (const std::string& w : map.map.warnings) err << "warning: " << w << "\n";
    for (const std::string& w : map.classified.warnings) err << "warning: " << w << "\n";
    const double readMs = msSince(start);
    if (map.store.tiles().empty()) return fail(err, "no tile holds anything to render", io::kExitNothingUsable);

    // Bake. A rules document without passes still has layers worth looking at.
    auto bakeStart = Clock::now();
    std::optional<core::placement::SceneBaker> baker;
    core::Scene scene;
    core::Result<core::placement::PlacementRules> rules =
        core::placement::PlacementRules::load(command.input.rules, map.classified.layers);
    if (!rules && rules.message().find("passes") != std::string::npos) {
        err << "warning: " << rules.message() << "; rendering the ground and surfaces only\n";
        scene.tiles = map.store.tiles();
        scene.frame = {core::placement::sceneOrigin(scene.tiles), command.selection.zoom};
        scene.seed = command.seed;
    } else if (!rules) {
        return fail(err, rules.message(), io::kExitBadArguments);
    } else {
        baker.emplace(map.index, map.store, *catalogue);
        if (core::Status s = baker->setRules(std::move(rules).value()); !s) {
            return fail(err, s.message(), io::kExitBadArguments);
        }
        core::placement::BakeOptions options;
        options.seed = command.seed;
        options.threads = command.threads;
        options.progress = progress;
        core::Result<core::Scene> baked = baker->bake(options);
        if (!baked) return fail(err, baked.message(), io::kExitNothingUsable);
        for (const std::string& w : baker->report().warnings) err << "warning: " << w << "\n";
        scene = std::move(baked).value();
    }
    const double bakeMs = msSince(bakeStart);
    const core::LayerSource& layers = baker ? static_cast<const core::LayerSource&>(baker->layers()) : map.store;

    // Graph.
    const auto graphStart = Clock::now();
    AssetModelCache models;
    SceneGraphOptions options;
    options.style.layers = map.classified.layers;
    options.groundExpression = command.ground;
    SceneGraph graph(*catalogue, models, options);
    if (core::Status s = graph.setScene(scene, &layers); !s) {
        const bool expression = !command.ground.empty() && s.message().find("expression") != std::string::npos;
        return fail(err, s.message(), expression ? io::kExitBadArguments : io::kExitNothingUsable);
    }
    if (!command.overlay.empty()) {
        HeatOverlayStyle heat;
        heat.radiusCells = command.overlayRadius;
        if (core::Status s = graph.setHeatOverlay(layers, command.overlay, heat); !s) {
            return fail(err, "--overlay: " + s.message(), io::kExitBadArguments);
        }
    }
    if (command.grid) graph.setTileGridVisible(true);
    const double graphMs = msSince(graphStart);

    // Draw.
    core::Result<std::unique_ptr<OffscreenRenderer>> renderer =
        OffscreenRenderer::create(command.width, command.height);
    if (!renderer) return fail(err, renderer.message(), io::kExitNothingUsable);
    const CameraPose pose = frameBox(graph.bounds(), *direction, static_cast<double>(command.width) / command.height);
    core::Result<FrameStatistics> frame = (*renderer)->render(graph.root(), pose, options.lighting.sky);
    if (!frame) return fail(err, frame.message(), io::kExitNothingUsable);
    if (core::Status s = writePng((*renderer)->image(), command.out); !s) {
        return fail(err, s.message(), io::kExitNothingUsable);
    }
    if (!command.sceneFile.empty()) {
        if (core::Status s = writeSceneFile(*graph.root(), command.sceneFile); !s) {
            return fail(err, s.message(), io::kExitNothingUsable);
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
    return io::kExitOk;
}

}  // namespace terrabit::render
