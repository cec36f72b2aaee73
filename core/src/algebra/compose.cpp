#include "terrabit/core/algebra/compose.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <system_error>
#include <thread>

#include "terrabit/core/algebra/layer_evaluator.h"

namespace terrabit::core::algebra {

Result<ComposeResult> compose(const LayerSource& source, std::span<const TileId> tiles, std::string_view expression,
                              const ComposeOptions& options, const ProgressCallback& progress,
                              ExpressionDiagnostic* diagnostic) {
    if (diagnostic) *diagnostic = {};
    if (tiles.empty()) return Error{"compose: there are no tiles to compose"};
    const int zoom = tiles.front().zoom;
    double south = 90.0, north = -90.0;
    for (const TileId& t : tiles) {
        if (t.zoom != zoom) {
            return Error{"compose: tile " + t.quadkey() + " is at zoom " + std::to_string(t.zoom) + " but tile " +
                         tiles.front().quadkey() + " is at zoom " + std::to_string(zoom) +
                         "; compose one zoom at a time"};
        }
        const Box2 b = t.boundsLonLat();
        south = std::min(south, b.min.y);
        north = std::max(north, b.max.y);
    }

    ExpressionOptions eo;
    eo.zoom = zoom;
    eo.seed = options.seed;
    eo.latitude = std::isnan(options.latitude) ? 0.5 * (south + north) : options.latitude;
    Result<LayerProgram> program = LayerProgram::compile(expression, source.layerNames(), eo, diagnostic);
    if (!program) return program.error();

    ComposeResult out;
    out.tiles.assign(tiles.begin(), tiles.end());
    out.masks.resize(tiles.size());
    out.coverage.resize(tiles.size());
    out.program = *program;
    out.latitude = eo.latitude;

    // Workers take the next tile from a shared counter; each owns an evaluator (its scratch).
    // Results land in per-tile slots, so the output does not depend on who computed what.
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    std::string firstError;
    auto work = [&](bool reports) {
        LayerEvaluator evaluator(*program);
        for (;;) {
            if (stop.load(std::memory_order_relaxed)) return;
            const std::size_t i = next.fetch_add(1);
            if (i >= tiles.size()) return;
            const Status s = evaluator.evaluate(source, tiles[i], out.masks[i]);
            if (!s) {
                std::lock_guard lock(errorMutex);
                if (firstError.empty()) firstError = s.message();
                stop = true;
                return;
            }
            out.coverage[i] = coverageOf(out.masks[i], tiles[i]);
            const std::size_t finished = done.fetch_add(1) + 1;
            if (reports && !reportProgress(progress, static_cast<double>(finished) / tiles.size(), "composing")) {
                stop = true;
                return;
            }
        }
    };

    int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::clamp(threads, 1, static_cast<int>(std::min<std::size_t>(tiles.size(), 64)));
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t) {
        try {
            workers.emplace_back(work, false);
        } catch (const std::system_error&) {
            break;  // fewer threads than asked for; the calling thread still does the work
        }
    }
    work(true);
    for (std::thread& w : workers) w.join();

    if (!firstError.empty()) return Error{"compose: " + firstError};
    if (done.load() != tiles.size()) {
        return cancelled("compose: cancelled after " + std::to_string(done.load()) + " of " +
                         std::to_string(tiles.size()) + " tiles");
    }
    // Workers may have finished the last tiles; the caller hears about the end once more.
    (void)reportProgress(progress, 1.0, "composing");
    out.total = coverageOf(out.masks, out.tiles);
    return out;
}

}  // namespace terrabit::core::algebra
