#include "terrabit/cli/compose_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "terrabit/cli/map_commands.h"
#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/export/output_file.h"
#include "terrabit/core/io/tile_writer.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/rules/rule_set.h"

namespace terrabit::cli {

using namespace core;
using namespace core::algebra;

namespace {

/// The name of the result layer, and so of its GeoTIFF.
constexpr const char* kResultLayer = "result";

}  // namespace

int runComposeCommand(const ComposeCommand& command, std::ostream& out, std::ostream& err,
                      const ProgressCallback& progress) {
    if (command.outDir.empty()) return fail(err, badArguments("--out: no output folder given"), kComposeErrors);
    const std::string source = command.expressionSource.empty() ? "--expr" : command.expressionSource;
    if (command.expression.empty()) return fail(err, badArguments(source + ": no expression given"), kComposeErrors);

    // The expression is checked against the rules' layer names before the map is read, so a typo
    // costs no wait. Metres are checked at the equator, where cells are largest on the ground:
    // a radius within the limit there may still be too many cells further north, which the
    // compile at the tiles' latitude below reports.
    Result<RuleSet> rules = RuleSet::load(command.input.rules);
    if (!rules) return fail(err, withKind(rules.error(), ErrorKind::BadArguments), kComposeErrors);
    {
        ExpressionOptions early;
        early.zoom = command.selection.zoom;
        early.latitude = 0.0;
        const Result<ExpressionAst> ast = ExpressionAst::parse(command.expression, rules->layerNames(), early);
        if (!ast) return fail(err, badArguments("bad expression in " + source + "\n" + ast.message()), kComposeErrors);
        const bool readsRelief = std::any_of(ast->nodes.begin(), ast->nodes.end(), [](const ExprNode& n) {
            return n.op == ExprOp::Height || n.op == ExprOp::Slope || n.op == ExprOp::Aspect;
        });
        if (readsRelief && command.dems.empty()) {
            err << "terrabit-cli compose: note: the expression reads relief (height, slope, aspect) but no --dem "
                   "was given: without terrain every relief layer is empty\n";
        }
    }

    pipeline::SessionInput input =
        pipeline::SessionInput::layersOnly(command.input, command.selection, command.threads);
    input.dems = command.dems;
    auto opened = pipeline::Session::open(std::move(input), progress);
    if (!opened) return fail(err, nothingUsable(opened.error()), kComposeErrors);
    const io::MapLayers& m = (*opened)->map();
    printWarnings(err, (*opened)->warnings(), nullptr);
    const std::vector<TileId>& tiles = m.store.tiles();
    if (tiles.empty()) return fail(err, Error{"no tile holds any content at this zoom"}, kComposeErrors);

    ComposeOptions options;
    options.seed = command.seed;
    options.threads = command.threads;
    ExpressionDiagnostic diagnostic;
    Result<ComposeResult> composed = compose(m.store, tiles, command.expression, options, progress, &diagnostic);
    if (!composed) {
        // The diagnostic places the failure in the expression: the user's; anything else is
        // nothing usable (a cancel, tiles of mixed zooms).
        const bool expressionError = diagnostic.line > 0;
        return fail(err,
                    expressionError ? badArguments("bad expression in " + source + "\n" + composed.message())
                                    : nothingUsable(composed.error()),
                    kComposeErrors);
    }

    // Files: the result as a one-layer store, written by the same writer as `rasterize`.
    std::error_code ec;
    std::filesystem::create_directories(command.outDir, ec);
    if (ec) {
        return fail(err, ioError(command.outDir.string() + ": cannot create the output folder (" + ec.message() + ")"),
                    kComposeErrors);
    }
    LayerStore result({kResultLayer}, tiles);
    LayerInfo info;
    info.name = kResultLayer;
    info.colour = Rgb{200, 40, 120};
    const std::vector<LayerInfo> infos{info};
    using OrderedJson = nlohmann::ordered_json;
    OrderedJson tileList = OrderedJson::array();
    for (std::size_t s = 0; s < tiles.size(); ++s) {
        result.store(s, std::span<const BitTile>(&composed->masks[s], 1));
        Result<io::TileFiles> files = io::writeTile(result, s, infos, command.outDir);
        if (!files) return fail(err, nothingUsable(files.error()), kComposeErrors);
        const AreaCoverage& c = composed->coverage[s];
        tileList.push_back({{"quadkey", tiles[s].quadkey()},
                            {"cells", c.cells},
                            {"coverage", static_cast<double>(c.cells) / 65536.0},
                            {"square_metres", c.squareMetres},
                            {"file", files->layers.front()},
                            {"preview", files->preview}});
        (void)reportProgress(progress, static_cast<double>(s + 1) / static_cast<double>(tiles.size()), "writing");
    }

    const AreaCoverage& total = composed->total;
    const double fraction = static_cast<double>(total.cells) / (65536.0 * static_cast<double>(tiles.size()));
    OrderedJson summary;
    summary["source"] = m.map.source;
    if (m.map.format == "OSM") summary["attribution"] = "© OpenStreetMap contributors, ODbL 1.0";
    summary["rules"] = m.rules.source();
    summary["expression"] = command.expression;
    summary["zoom"] = command.selection.zoom;
    summary["seed"] = command.seed;
    summary["metres_latitude"] = composed->latitude;
    if (!command.dems.empty()) {
        OrderedJson dems = OrderedJson::array();
        for (const std::filesystem::path& d : command.dems) dems.push_back(d.string());
        summary["dems"] = std::move(dems);
    }
    summary["tiles"] = std::move(tileList);
    summary["total"] = {
        {"tiles", tiles.size()}, {"cells", total.cells}, {"coverage", fraction}, {"square_metres", total.squareMetres}};
    const Status written = writeFileAtomically(command.outDir / "coverage.json", summary.dump(2) + "\n");
    if (!written) return fail(err, nothingUsable(written.error()), kComposeErrors);

    char percent[32];
    std::snprintf(percent, sizeof percent, "%.2f%%", 100.0 * fraction);
    out << "composed " << tiles.size() << " tiles at zoom " << command.selection.zoom << ": " << total.cells
        << " cells, " << static_cast<long long>(std::llround(total.squareMetres)) << " m² (" << percent
        << " of the tiles); files and coverage.json in " << command.outDir.string() << "\n";
    return kExitOk;
}

}  // namespace terrabit::cli
