#include "terrabit/cli/probe_command.h"

#include <cmath>
#include <cstdio>

#include "terrabit/cli/map_commands.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/algebra/layer_program.h"
#include "terrabit/core/collision/probe_spec.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/tile/ground_frame.h"

namespace terrabit::cli {

using namespace core;
using namespace core::io;

namespace {

std::string metres(float h) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(h));
    return buf;
}

std::string layerList(std::uint64_t layers, const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 64; ++i) {
        if ((layers >> i) & 1u) s += (s.empty() ? "" : ",") + names[i];
    }
    return s;
}

}  // namespace

int runProbe(const ProbeCommand& command, std::istream& in, std::ostream& out, std::ostream& err,
             const ProgressCallback& progress) {
    pipeline::SessionInput input =
        pipeline::SessionInput::layersOnly(command.input, command.selection, command.threads);
    input.dems = command.dems;
    auto opened = pipeline::Session::open(std::move(input), progress);
    if (!opened) return fail(err, opened.error(), kProbeErrors);
    const pipeline::Session& session = **opened;
    const MapLayers& layers = session.map();
    // The map's, its classification's and the terrain's warnings (DEMs left out with their
    // problem, what was filled, DEMs that miss the map): without them a DEM that does not reach
    // the probes would answer "ground none" unexplained.
    printWarnings(err, session.warnings(), nullptr);

    const std::vector<TileId>& tiles = layers.store.tiles();
    const std::vector<std::string>& names = layers.store.layerNames();
    // On a bridge the probe stands on its deck (the ground under it is the valley).
    const std::unique_ptr<LayerSource> standing = session.onBridgeDecks(layers.store, tiles);
    Result<CollisionGrid> grid = CollisionGrid::build(*standing, tiles, names);
    if (!grid) return fail(err, nothingUsable(grid.error()), kProbeErrors);
    int exprLayer = -1;
    if (!command.expression.empty()) {
        algebra::ExpressionOptions options;
        options.zoom = command.selection.zoom;
        options.latitude = mercatorToLonLat(layers.map.extent.centre()).lat;
        Result<algebra::LayerProgram> program = algebra::LayerProgram::compile(command.expression, names, options);
        if (!program) return fail(err, badArguments("bad expression:\n" + program.message()), kProbeErrors);
        algebra::LayerEvaluator evaluator(*program);
        std::vector<BitTile> results(tiles.size());
        for (std::size_t i = 0; i < tiles.size(); ++i) {
            // The expression is the user's: whatever fails in it is a bad argument.
            if (Status s = evaluator.evaluate(layers.store, tiles[i], results[i]); !s) {
                return fail(err, withKind(s.error(), ErrorKind::BadArguments), kProbeErrors);
            }
        }
        Result<int> added = grid->addLayer("expression", [&](const TileId& t) -> const BitTile* {
            const std::ptrdiff_t slot = layers.store.slotOf(t);
            return slot < 0 ? nullptr : &results[static_cast<std::size_t>(slot)];
        });
        if (!added) return fail(err, withKind(added.error(), ErrorKind::BadArguments), kProbeErrors);
        exprLayer = *added;
    }

    CollisionQuery query(*grid);
    const std::uint64_t baseLayers = exprLayer < 0 ? kAllLayers : (std::uint64_t{1} << exprLayer) - 1;
    int code = kExitOk;
    std::string line;
    for (int lineNo = 1; std::getline(in, line); ++lineNo) {
        Result<ProbeSpec> probe = parseProbe(line);
        if (!probe) {
            if (probe.message().empty()) continue;  // blank or comment
            code =
                fail(err, badArguments("stdin line " + std::to_string(lineNo) + ": " + probe.message()), kProbeErrors);
            out << "error\n";
            continue;
        }
        const ProbeResult r = core::runProbe(query, *probe);
        const std::string touched = layerList(r.layers & baseLayers, names);
        if (exprLayer < 0) {
            out << (touched.empty() ? "clear" : touched);
        } else {
            out << (((r.layers >> exprLayer) & 1u) ? "hit" : "clear") << (touched.empty() ? "" : " " + touched);
        }
        if (session.hasTerrain()) {
            Result<float> ground = session.groundHeight(lonLatToMercator(probe->at[0]));
            if (!ground) return fail(err, ground.error(), kProbeErrors);
            out << " ground " << (std::isnan(*ground) ? std::string("none") : metres(*ground) + " m");
        }
        out << "\n";
    }
    return code;
}

}  // namespace terrabit::cli
