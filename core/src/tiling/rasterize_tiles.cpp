#include "terrabit/core/tiling/rasterize_tiles.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "terrabit/core/tiling/tile_rasterizer.h"

namespace terrabit::core {

Result<LayerStore> rasterizeTiles(const TileIndex& index, const RasterizeTilesOptions& options) {
    const ClassifiedMap& map = index.map();
    std::vector<std::string> names;
    names.reserve(map.layers.size());
    for (const LayerInfo& l : map.layers) names.push_back(l.name);
    LayerStore store(std::move(names), index.tiles());
    const std::size_t tileCount = index.tiles().size();
    if (tileCount == 0) return store;

    int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::clamp(threads, 1, static_cast<int>(std::min<std::size_t>(tileCount, 256)));

    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable finished;
    std::string firstError;
    std::size_t firstErrorSlot = tileCount;

    auto work = [&] {
        TileRasterizer rasterizer;
        std::vector<BitTile> layers(map.layers.size());
        for (;;) {
            const std::size_t slot = next.fetch_add(1, std::memory_order_relaxed);
            if (slot >= tileCount || stop.load(std::memory_order_relaxed)) break;
            const Status s = rasterizer.draw(index, slot, layers);
            if (!s) {
                // Keep the error of the lowest slot so the message does not depend on timing.
                std::lock_guard lock(mutex);
                if (slot < firstErrorSlot) {
                    firstErrorSlot = slot;
                    firstError = "tile " + index.tiles()[slot].quadkey() + ": " + s.message();
                }
            }
            store.store(slot, layers, rasterizer.drawn());
            if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == tileCount) {
                std::lock_guard lock(mutex);
                finished.notify_all();
            }
        }
    };

    if (!reportProgress(options.progress, 0.0, "rasterizing")) {
        return cancelled("cancelled while rasterizing (0 of " + std::to_string(tileCount) + " tiles done)");
    }
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (int i = 0; i < threads; ++i) pool.emplace_back(work);

    // Progress is reported from this thread only, so callbacks need not be thread-safe.
    bool cancelled = false;
    {
        std::unique_lock lock(mutex);
        while (done.load() < tileCount && !cancelled) {
            finished.wait_for(lock, std::chrono::milliseconds(50));
            if (options.progress) {
                const double fraction = static_cast<double>(done.load()) / static_cast<double>(tileCount);
                lock.unlock();
                cancelled = !reportProgress(options.progress, fraction, "rasterizing");
                lock.lock();
            }
        }
    }
    if (cancelled) stop = true;
    for (std::thread& t : pool) t.join();

    if (cancelled && done.load() < tileCount) {
        return core::cancelled("cancelled while rasterizing (" + std::to_string(done.load()) + " of " +
                               std::to_string(tileCount) + " tiles done)");
    }
    if (!firstError.empty()) return Error{firstError};
    (void)reportProgress(options.progress, 1.0, "rasterizing");
    return store;
}

}  // namespace terrabit::core
