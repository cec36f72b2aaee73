// terrabit-cli: argument parsing only. Every command is a function of terrabit::cli
// (app/cli/commands) that tests call directly. To add a subcommand, add one add…Command
// function below and one line in main().

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <charconv>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "terrabit/cli/bake_command.h"
#include "terrabit/cli/compose_command.h"
#include "terrabit/cli/exit_codes.h"
#include "terrabit/cli/map_commands.h"
#include "terrabit/cli/merge_command.h"
#include "terrabit/cli/probe_command.h"
#include "terrabit/cli/progress_printer.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/io/resource_paths.h"
#include "terrabit/core/text_file.h"
#ifdef TERRABIT_HAVE_MPI
#include "terrabit/cli/mpi_bake.h"
#endif
#ifdef TERRABIT_CLI_RENDER
#include "terrabit/cli/render_command.h"
#include "terrabit/render/scene_export.h"
#endif

namespace cli = terrabit::cli;
namespace io = terrabit::core::io;

namespace {

/// Set by the first Ctrl-C (SIGINT) or SIGTERM: the command's progress callback then asks it to
/// stop, and it cancels as the app's Cancel does (its temporary files removed, no file left half
/// written). A second signal ends the program at once.
std::atomic<bool> gInterrupted{false};

extern "C" void interrupt(int signal) {
    gInterrupted.store(true);
    std::signal(signal, SIG_DFL);
}

/// What every subcommand shares: the executable (to find default resources), the exit code its
/// callback sets, and progress on stderr.
struct CliContext {
    std::filesystem::path executable;
    int exitCode = 0;
    bool quiet = false;

    terrabit::core::ProgressCallback progress() const {
        if (quiet) return {};
        return cli::progressPrinter(std::cerr, ::isatty(STDERR_FILENO) != 0);
    }
    /// progress() for a command that writes files (merge too: it then leaves its output folder
    /// as it was): from now on Ctrl-C (or SIGTERM) asks it to stop through the callback (under
    /// --quiet too). Commands that only print (info, tiles, probe reading stdin) keep the
    /// default: Ctrl-C ends them at once.
    terrabit::core::ProgressCallback progressUntilInterrupted() const {
        std::signal(SIGINT, interrupt);
        std::signal(SIGTERM, interrupt);
        return [print = progress()](double fraction, std::string_view stage) {
            if (gInterrupted.load()) return false;
            return !print || print(fraction, stage);
        };
    }
};

/// A whole number from `least` to 2^64 - 1 as written (CLI11 would wrap "-1" and saturate
/// larger numbers); `expected` says what to give when it is not.
CLI::Validator wholeNumber(std::uint64_t least, std::string expected, std::string name) {
    return CLI::Validator(
        [least, expected](std::string& text) -> std::string {
            std::uint64_t value = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < least) {
                return expected + ", not '" + text + "'";
            }
            return {};
        },
        std::move(name));
}

const CLI::Validator kSeedNumber = wholeNumber(0, "a seed is a whole number from 0 to 18446744073709551615", "SEED");

/// A count: a whole number from `least` up (CLI11's own checks print the largest double).
CLI::Validator countFrom(std::uint64_t least) {
    return wholeNumber(least, "give a whole number from " + std::to_string(least) + " up", "COUNT");
}

/// A number in [lo, hi] (CLI::Range lets NaN through: it fails neither comparison).
CLI::Validator numberIn(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            double value = 0.0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
                !(value >= lo && value <= hi)) {
                return "give a number from " + CLI::detail::to_string(lo) + " to " + CLI::detail::to_string(hi) +
                       ", not '" + text + "'";
            }
            return {};
        },
        "NUMBER");
}

/// A GDAL open option: KEY=VALUE with a key (GDAL drops a word without '=' without a word).
const CLI::Validator kOpenOption(
    [](std::string& text) -> std::string {
        const std::size_t eq = text.find('=');
        if (eq == std::string::npos || eq == 0)
            return "an open option is KEY=VALUE, e.g. ZOOM_LEVEL=13, not '" + text + "'";
        return {};
    },
    "KEY=VALUE");

/// The most worker threads a command runs (each holds scratch space).
constexpr int kMaxThreads = 1024;

/// Options naming the input map, shared by the map commands.
struct InputOptions {
    std::string file;
    std::string rules;
    std::vector<std::string> openOptions;
    bool allowPartial = false;

    void add(CLI::App& cmd) {
        cmd.add_option("FILE", file,
                       "Map file: OSM PBF or XML, GeoPackage, Shapefile, GeoJSON, FlatGeobuf, MBTiles, a z/x/y folder "
                       "of vector tiles, or anything else GDAL/OGR reads")
            ->required();
        cmd.add_option(
            "--rules", rules,
            "Classification rules (YAML); default: resources/rules/default.yaml found beside the executable");
        cmd.add_option("--open-option,--oo", openOptions, "GDAL open option KEY=VALUE (repeatable), e.g. ZOOM_LEVEL=13")
            ->check(kOpenOption);
        cmd.add_flag("--allow-partial", allowPartial,
                     "Use what a truncated or partly unreadable map yields (the first warning says how much was "
                     "read) instead of failing with exit code 1");
    }
    io::MapInput input(const CliContext& ctx) const {
        io::MapInput in;
        in.file = file;
        in.openOptions = openOptions;
        in.allowPartial = allowPartial;
        if (!rules.empty()) {
            in.rules = rules;
        } else if (const auto def = io::defaultRulesFile(ctx.executable)) {
            in.rules = *def;
        }
        return in;
    }
};

/// Options choosing tiles, shared by tiles and rasterize.
struct TileOptions {
    int zoom = 17;
    std::vector<std::string> quadkeys;
    std::vector<double> bbox;
    std::size_t maxTiles = 65536;
    int threads = 0;

    void add(CLI::App& cmd, bool selection) {
        cmd.add_option("--zoom,-z", zoom, "Tile zoom level (a z17 cell is about 1.19 m × cos(latitude))")
            ->capture_default_str()
            ->check(CLI::Range(0, 30));
        if (selection) {
            cmd.add_option("--tiles", quadkeys,
                           "Comma-separated quadkeys; a shorter one stands for all its tiles at --zoom "
                           "(default: every tile with content)")
                ->delimiter(',');
            cmd.add_option("--bbox", bbox, "Longitude/latitude box W,S,E,N in degrees: every tile it touches")
                ->delimiter(',')
                ->expected(4);
        }
        cmd.add_option("--max-tiles", maxTiles, "Refuse to work on more tiles than this")
            ->capture_default_str()
            ->check(countFrom(1));
        cmd.add_option("--threads,-j", threads,
                       "Worker threads (0, the default: one per core); any count gives the same bits")
            ->check(CLI::Range(0, kMaxThreads));
    }
    io::TileSelection selection() const {
        io::TileSelection s;
        s.zoom = zoom;
        s.quadkeys = quadkeys;
        s.maxTiles = maxTiles;
        if (bbox.size() == 4) s.bboxLonLat = terrabit::core::Box2{{bbox[0], bbox[1]}, {bbox[2], bbox[3]}};
        return s;
    }
};

/// --dem, repeatable: the elevation a command reads (core/io/dem_reader.h).
void addDemOption(CLI::App& cmd, std::vector<std::filesystem::path>& dems) {
    cmd.add_option("--dem", dems,
                   "A raster DEM GDAL reads (GeoTIFF, .hgt, VRT…, any CRS), or a terrain-RGB tile set "
                   "(terrarium:DIR|FILE.mbtiles, terrain-rgb:DIR|FILE.mbtiles); repeat for several, the finest "
                   "wins where they overlap");
}

void addInfoCommand(CLI::App& app, CliContext& ctx) {
    auto* cmd =
        app.add_subcommand("info", "Show a map's layers, feature counts per class, extent and a suggested zoom");
    auto input = std::make_shared<InputOptions>();
    auto dems = std::make_shared<std::vector<std::filesystem::path>>();
    input->add(*cmd);
    addDemOption(*cmd, *dems);
    cmd->callback([&ctx, input, dems] {
        cli::InfoCommand c;
        c.input = input->input(ctx);
        c.dems = *dems;
        ctx.exitCode = cli::runInfo(c, std::cout, std::cerr, ctx.progress());
    });
}

void addTilesCommand(CLI::App& app, CliContext& ctx) {
    auto* cmd = app.add_subcommand("tiles", "List the quadkeys of the tiles that hold content at a zoom");
    auto input = std::make_shared<InputOptions>();
    auto tiles = std::make_shared<TileOptions>();
    auto dems = std::make_shared<std::vector<std::filesystem::path>>();
    input->add(*cmd);
    tiles->add(*cmd, false);
    addDemOption(*cmd, *dems);
    cmd->callback([&ctx, input, tiles, dems] {
        cli::TilesCommand c;
        c.input = input->input(ctx);
        c.selection = tiles->selection();
        c.threads = tiles->threads;
        c.dems = *dems;
        ctx.exitCode = cli::runTiles(c, std::cout, std::cerr, ctx.progress());
    });
}

void addRasterizeCommand(CLI::App& app, CliContext& ctx) {
    auto* cmd = app.add_subcommand(
        "rasterize",
        "Rasterize a map into per-tile bit layers: <out>/<quadkey>/<layer>.tif (georeferenced 1-bit GeoTIFF, "
        "EPSG:3857), <out>/<quadkey>/preview.png (layers in colour), with --dem <out>/<quadkey>/height.tif "
        "(Float32 metres at the 257x257 cell corners) and <out>/summary.json (per-layer and per-tile coverage, "
        "heights, warnings, timings)");
    auto input = std::make_shared<InputOptions>();
    auto tiles = std::make_shared<TileOptions>();
    auto out = std::make_shared<std::string>();
    auto dems = std::make_shared<std::vector<std::filesystem::path>>();
    input->add(*cmd);
    tiles->add(*cmd, true);
    cmd->add_option("--out,-o", *out, "Output folder (created if missing)")->required();
    addDemOption(*cmd, *dems);
    cmd->callback([&ctx, input, tiles, out, dems] {
        cli::RasterizeCommand c;
        c.input = input->input(ctx);
        c.selection = tiles->selection();
        c.threads = tiles->threads;
        c.outDir = *out;
        c.dems = *dems;
        ctx.exitCode = cli::runRasterize(c, std::cout, std::cerr, ctx.progressUntilInterrupted());
    });
}

void addProbeCommand(CLI::App& app, CliContext& ctx) {
    auto* cmd = app.add_subcommand(
        "probe",
        "Collision probes against a map's layers, read from stdin one per line: `point LON LAT`, "
        "`rect LON LAT WIDTH_M HEIGHT_M` (centred), `orect LON LAT WIDTH_M HEIGHT_M ANGLE_DEG`, "
        "`disk LON LAT RADIUS_M`, `segment LON1 LAT1 LON2 LAT2`, `tri LON1 LAT1 LON2 LAT2 LON3 LAT3`. "
        "Prints per probe the layers hit (comma-separated) or `clear`; with --expr, `hit` or `clear` for the "
        "expression, then the layers touched; with --dem, then `ground H m` (or `ground none`), the terrain height "
        "at the probe's first position");
    auto input = std::make_shared<InputOptions>();
    auto tiles = std::make_shared<TileOptions>();
    auto expr = std::make_shared<std::string>();
    auto dems = std::make_shared<std::vector<std::filesystem::path>>();
    input->add(*cmd);
    tiles->add(*cmd, false);
    cmd->add_option("--expr,-e", *expr, "Layer expression to probe against, e.g. \"building | water\"");
    addDemOption(*cmd, *dems);
    cmd->callback([&ctx, input, tiles, expr, dems] {
        cli::ProbeCommand c;
        c.input = input->input(ctx);
        c.selection = tiles->selection();
        c.threads = tiles->threads;
        c.expression = *expr;
        c.dems = *dems;
        ctx.exitCode = cli::runProbe(c, std::cin, std::cout, std::cerr, ctx.progress());
    });
}

void addComposeCommand(CLI::App& app, CliContext& ctx) {
    auto* cmd = app.add_subcommand(
        "compose",
        "Evaluate a layer expression on a map's tiles: <out>/<quadkey>/result.tif (1-bit GeoTIFF), "
        "<out>/<quadkey>/preview.png and <out>/coverage.json (cells and square metres per tile and in total). "
        "A bad expression prints the message with a caret under the spot and exits with 2");
    auto input = std::make_shared<InputOptions>();
    auto tiles = std::make_shared<TileOptions>();
    auto c = std::make_shared<cli::ComposeCommand>();
    auto exprFile = std::make_shared<std::string>();
    input->add(*cmd);
    tiles->add(*cmd, true);
    cmd->add_option("--expr,-e", c->expression,
                    "Layer expression over the rules' layers, e.g. \"grass & ~dilate(road, 2m)\"; operators | ^ & - ~, "
                    "functions dilate erode open close edge shift random noise, relief (with --dem) height(>1800m) "
                    "slope(>25deg) aspect(N, 45deg), definitions name = ... on their own lines (or separated by ;)");
    cmd->add_option("--expr-file", *exprFile, "Read the expression document from a file instead");
    cmd->add_option("--seed", c->seed, "Scene seed for random() and noise()")
        ->capture_default_str()
        ->check(kSeedNumber);
    cmd->add_option("--out,-o", c->outDir, "Output folder (created if missing)")->required();
    addDemOption(*cmd, c->dems);
    cmd->callback([&ctx, input, tiles, c, exprFile] {
        cli::ComposeCommand command = *c;
        if (!exprFile->empty()) {
            auto text = terrabit::core::readTextFile(*exprFile, "expression file");
            if (!text) {
                ctx.exitCode = cli::fail(
                    std::cerr, terrabit::core::withKind(text.error(), terrabit::core::ErrorKind::BadArguments),
                    cli::kComposeErrors);
                return;
            }
            command.expression = std::move(*text);
            command.expressionSource = *exprFile;
        }
        command.input = input->input(ctx);
        command.selection = tiles->selection();
        command.threads = tiles->threads;
        ctx.exitCode = cli::runComposeCommand(command, std::cout, std::cerr, ctx.progressUntilInterrupted());
    });
}

#ifdef TERRABIT_CLI_RENDER
constexpr bool kCliWritesSceneGraph = true;
#else
constexpr bool kCliWritesSceneGraph = false;
#endif

void addBakeCommand(CLI::App& app, CliContext& ctx) {
    auto* cmd = app.add_subcommand(
        "bake",
        "Bake a map into a scene by the rules' passes (buildings, water, roads, vegetation) and write it: "
        "<out>/manifest.json (assets, instances, building outcomes, statistics) and any other --format");
    auto input = std::make_shared<InputOptions>();
    auto tiles = std::make_shared<TileOptions>();
    auto c = std::make_shared<cli::BakeCommand>();
    auto out = std::make_shared<std::string>();
    auto formats = std::make_shared<std::string>("manifest");
    auto catalogue = std::make_shared<std::string>();
    input->add(*cmd);
    tiles->add(*cmd, true);
    cmd->add_option("--seed", c->seed, "Scene seed: the same seed gives the same scene, byte for byte")
        ->capture_default_str()
        ->check(kSeedNumber);
    cmd->add_option("--out,-o", *out, "Output folder (created if missing)")->required();
    cmd->add_option("--format,-f", *formats,
                    "Comma-separated formats: manifest, glb, 3dtiles, layers, collision, osgb, or all")
        ->capture_default_str();
    cmd->add_option("--catalogue", *catalogue, "Asset catalogue (YAML); default: resources/assets/catalogue.yaml");
    // Terrain: buildings, plants and plinths stand on it; the scene's y = 0 is originHeight.
    addDemOption(*cmd, c->dems);
    cmd->add_option_function<float>(
           "--ground-error", [c](float metres) { c->groundError = metres; },
           "With --dem: the ground mesh's vertical error bound in metres, over the rules' ground_error "
           "(default 0.5)")
        ->check(numberIn(0.0, 1000.0));
    cmd->add_flag("--plain-nodes", c->plainNodes,
                  "glb: one node per instance instead of EXT_mesh_gpu_instancing and float normals instead of "
                  "KHR_mesh_quantization, for engines without glTF extensions");
    cmd->add_option_function<std::string>(
           "--instances",
           [c](const std::string& name) {
               auto encoding = terrabit::core::parseInstanceEncoding(name);
               if (!encoding) throw CLI::ValidationError("--instances", encoding.message());
               c->instances = *encoding;
           },
           "manifest: json (a line per instance in manifest.json), binary (instances.bin beside it, indexed by the "
           "manifest; README \"Binary instances\") or auto (binary above " +
               std::to_string(terrabit::core::kBinaryInstancesAbove) +
               " instances; a streamed bake or a shard writes JSON unless asked for binary)")
        ->default_str("auto");
    cmd->add_option("--block-cells", c->blockCells, "Instances are grouped in blocks of N × N cells")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    cmd->add_option("--batch-tiles", c->batchTiles,
                    "Stream the bake: N tiles (and their halo) at a time are rasterized, baked, written and "
                    "dropped, so memory does not grow with the map (same files, byte for byte); 0: all at once. "
                    "Streaming costs time (halos baked again, the manifest joined), so the default bakes a city "
                    "at once and streams bigger maps. "
                    "Every format streams: scene.glb and scene.osgb are written a batch at a time too; "
                    "sharded bakes (--shard, --mpi) join scene.osgb but not scene.glb")
        ->capture_default_str()
        ->check(countFrom(0));
    // Scale-out (packaging/cluster/README.md): a shard by flag or array-job variables, or MPI.
    auto shard = std::make_shared<std::string>();
    auto mpi = std::make_shared<bool>(false);
    auto mpiUnits = std::make_shared<int>(0);
    cmd->add_option("--shard", *shard,
                    "Bake part K of N (K/N) of the tiles, for terrabit-cli merge; default: from SLURM_ARRAY_TASK_ID, "
                    "JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX when set, else every tile");
#ifdef TERRABIT_HAVE_MPI
    cmd->add_flag("--mpi", *mpi, "Spread the bake over the ranks of mpirun (OpenMPI) and merge on rank 0");
    cmd->add_option("--mpi-units", *mpiUnits, "Units of work handed out to the ranks; default: two per worker")
        ->check(CLI::Range(1, 65536));
#endif
    cmd->callback([&ctx, input, tiles, c, out, formats, catalogue, shard, mpi, mpiUnits] {
        cli::BakeCommand command = *c;
        if (!shard->empty()) {
            auto spec = terrabit::core::scale::parseShardSpec(*shard);
            if (!spec) {
                ctx.exitCode = cli::fail(std::cerr, withKind(spec.error(), terrabit::core::ErrorKind::BadArguments),
                                         cli::kBakeErrors);
                return;
            }
            command.shard = *spec;
        } else if (!*mpi) {
            auto found = terrabit::core::scale::shardFromEnvironment(terrabit::core::scale::processEnvironment());
            if (!found) {
                ctx.exitCode = cli::fail(std::cerr, withKind(found.error(), terrabit::core::ErrorKind::BadArguments),
                                         cli::kBakeErrors);
                return;
            }
            if (*found) {
                command.shard = (*found)->spec;
                if (!ctx.quiet) std::cerr << "shard " << command.shard.text() << " (from " << (*found)->source << ")\n";
            }
        }
        auto parsed = terrabit::core::parseExportFormats(*formats, kCliWritesSceneGraph);
        if (!parsed) {
            ctx.exitCode =
                cli::fail(std::cerr, terrabit::core::badArguments("--format: " + parsed.message()), cli::kBakeErrors);
            return;
        }
        command.formats = *parsed;
        command.input = input->input(ctx);
        command.selection = tiles->selection();
        command.threads = tiles->threads;
        command.outDir = *out;
        if (!catalogue->empty()) {
            command.catalogue = *catalogue;
        } else if (const auto dir = io::findResourcesDir(ctx.executable)) {
            command.catalogue = *dir / "assets" / "catalogue.yaml";
        }
#ifdef TERRABIT_CLI_RENDER
        command.sceneGraphWriter = terrabit::render::sceneGraphFileWriter();
        command.sceneGraphStream = terrabit::render::sceneGraphFileStream();
        command.sceneGraphRoot = terrabit::render::sceneGraphRootWriter();
#endif
#ifdef TERRABIT_HAVE_MPI
        if (*mpi) {
            ctx.exitCode = cli::runMpiBake(command, {*mpiUnits}, std::cout, std::cerr);
            return;
        }
#endif
        ctx.exitCode = cli::runBake(command, std::cout, std::cerr, ctx.progressUntilInterrupted());
    });
}

void addMergeCommand(CLI::App& app, CliContext& ctx) {
    auto* cmd = app.add_subcommand("merge",
                                   "Join the output folders of the shards of one bake (bake --shard K/N) into one "
                                   "3D Tiles tileset, manifest, collision grid, osgb scene and scene.glb (encoded "
                                   "from the shards' scene.part): the files a bake of every tile writes");
    auto c = std::make_shared<cli::MergeCommand>();
    auto shards = std::make_shared<std::vector<std::string>>();
    cmd->add_option("shards", *shards, "The shards' output folders (each with its shard.json)")->required();
    cmd->add_option("--out,-o", c->outDir, "Output folder (created if missing)")->required();
    cmd->callback([&ctx, c, shards] {
        cli::MergeCommand command = *c;
        for (const std::string& s : *shards) command.shards.emplace_back(s);
#ifdef TERRABIT_CLI_RENDER
        command.sceneGraphRoot = terrabit::render::sceneGraphRootWriter();
#endif
        command.progress = ctx.progressUntilInterrupted();
        ctx.exitCode = cli::runMerge(command, std::cout, std::cerr);
    });
}

#ifdef TERRABIT_CLI_RENDER
void addRenderCommand(CLI::App& app, CliContext& ctx) {
    auto* cmd = app.add_subcommand(
        "render",
        "Bake a map's scene by the rules' passes and draw it offscreen into a PNG (OpenSceneGraph pbuffer: needs an "
        "X server, e.g. xvfb-run -a -s \"-screen 0 1280x800x24\" terrabit-cli render …)");
    auto input = std::make_shared<InputOptions>();
    auto tiles = std::make_shared<TileOptions>();
    auto c = std::make_shared<cli::RenderCommand>();
    auto catalogue = std::make_shared<std::string>();
    input->add(*cmd);
    tiles->add(*cmd, true);
    cmd->add_option("--out,-o", c->out, "The PNG to write")->required();
    cmd->add_option("--camera", c->camera,
                    "View: top (north up), oblique (45° from the south) or AZIMUTH,ELEVATION "
                    "in degrees (the eye's compass bearing from the scene and its height "
                    "angle, e.g. 135,30)")
        ->capture_default_str();
    cmd->add_option("--overlay", c->overlay,
                    "A layer or layer expression drawn as a translucent heat map, e.g. "
                    "\"vegetation - placed_vegetation\"");
    cmd->add_option("--overlay-radius", c->overlayRadius,
                    "Heat-map window radius in cells: 0 shows the overlay's cells, more shows their density")
        ->capture_default_str()
        ->check(CLI::Range(0, 256));
    cmd->add_option("--ground", c->ground, "Show this expression's cells on the ground instead of the layers");
    cmd->add_flag("--grid", c->grid, "Draw the tile grid with quadkey labels");
    addDemOption(*cmd, c->dems);
    cmd->add_option("--seed", c->seed, "Scene seed: the same seed gives the same scene")
        ->capture_default_str()
        ->check(kSeedNumber);
    cmd->add_option(
           "--size",
           [c](const CLI::results_t& r) {
               // Each side within what the offscreen renderer draws (OffscreenRenderer::create).
               const auto side = [&r](std::size_t i, int& out) {
                   const std::string& t = r[i];
                   const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
                   if (t.empty() || ec != std::errc{} || end != t.data() + t.size() || out < 1 || out > 8192) {
                       throw CLI::ValidationError(
                           "--size",
                           "WIDTH,HEIGHT are whole numbers of pixels from 1 to 8192, not '" + r[0] + "," + r[1] + "'");
                   }
               };
               side(0, c->width);
               side(1, c->height);
               return true;
           },
           "Image size in pixels: WIDTH,HEIGHT (default 1280,800)")
        ->delimiter(',')
        ->expected(2);
    cmd->add_option("--catalogue", *catalogue, "Asset catalogue (YAML); default: resources/assets/catalogue.yaml");
    cmd->add_option("--scene-file", c->sceneFile, "Also write the scene graph as .osgb or .osgt");
    cmd->callback([&ctx, input, tiles, c, catalogue] {
        cli::RenderCommand command = *c;
        command.input = input->input(ctx);
        command.selection = tiles->selection();
        command.threads = tiles->threads;
        if (!catalogue->empty()) {
            command.catalogue = *catalogue;
        } else if (const auto dir = io::findResourcesDir(ctx.executable)) {
            command.catalogue = *dir / "assets" / "catalogue.yaml";
        }
        ctx.exitCode = cli::runRender(command, std::cout, std::cerr, ctx.progressUntilInterrupted());
    });
}
#endif

}  // namespace

int main(int argc, char** argv) {
    CliContext ctx;
    ctx.executable = io::currentExecutable(argc > 0 ? argv[0] : nullptr);

    CLI::App app{"terrabit-cli: turn real map data into per-tile bit layers for game scenes"};
    app.require_subcommand(1);
    app.add_flag("--quiet,-q", ctx.quiet, "No progress on stderr");
    app.footer(
        "Run `terrabit-cli <command> --help` for a command's options.\n"
        "Tiles are Web Mercator XYZ tiles named by Bing quadkeys; a tile is 256×256 cells.\n"
        "Rules: resources/rules/default.yaml documents the format; copy it and pass --rules to change what goes "
        "into which layer.\n"
        "Exit codes: 0 done (problems in the data are reported as warnings on stderr), 1 nothing usable was read, "
        "the map could be read only in part (see --allow-partial) or an output could not be written, 2 bad "
        "arguments, rules or probes.\n"
        "Map data from OpenStreetMap: © OpenStreetMap contributors, ODbL 1.0.");

    addInfoCommand(app, ctx);
    addTilesCommand(app, ctx);
    addRasterizeCommand(app, ctx);
    addProbeCommand(app, ctx);
    addComposeCommand(app, ctx);
    addBakeCommand(app, ctx);
    addMergeCommand(app, ctx);
#ifdef TERRABIT_CLI_RENDER
    addRenderCommand(app, ctx);
#endif
    // `--quiet` after the command (`bake MAP -q`) is the top level's, as before it.
    for (CLI::App* sub : app.get_subcommands({})) sub->fallthrough();

    // The first word that is not an option names the command: an unknown one is said as such
    // (CLI11 would say only that a command is required).
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word.starts_with("-")) continue;
        std::string names;
        bool known = false;
        for (const CLI::App* sub : app.get_subcommands({})) {
            names += (names.empty() ? "" : ", ") + sub->get_name();
            known = known || sub->get_name() == word;
        }
        if (!known) {
            std::cerr << "terrabit-cli: unknown command '" << word << "' (the commands: " << names << ")\n";
            return cli::exitCode(terrabit::core::ErrorKind::BadArguments);
        }
        break;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        // CLI11's own codes for a bad command line become our "bad arguments".
        return code == 0 ? cli::kExitOk : cli::exitCode(terrabit::core::ErrorKind::BadArguments);
    }
    if (gInterrupted.load() && ctx.exitCode != cli::kExitOk) return 130;  // the shell's code for Ctrl-C
    return ctx.exitCode;
}
