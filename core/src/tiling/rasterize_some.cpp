#include "terrabit/core/tiling/rasterize_some.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "terrabit/core/tiling/tile_rasterizer.h"

namespace terrabit::core {

Result<LayerStore> rasterizeSome(const TileIndex& index, std::span<const TileId> tiles, int threads) {
    std::vector<std::size_t> slots;
    slots.reserve(tiles.size());
    for (const TileId& t : tiles) {
        const auto slot = index.slot(t);
        if (!slot) return Error{"rasterize: tile " + t.quadkey() + " is not one of the map's tiles"};
        slots.push_back(*slot);
    }
    std::vector<std::string> names;
    for (const LayerInfo& l : index.map().layers) names.push_back(l.name);
    LayerStore store(std::move(names), std::vector<TileId>(tiles.begin(), tiles.end()));
    if (tiles.empty()) return store;

    int workers = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
    workers = std::clamp(workers, 1, static_cast<int>(std::min<std::size_t>(tiles.size(), 256)));
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::size_t firstError = tiles.size();
    std::string message;
    const auto work = [&] {
        TileRasterizer rasterizer;  // one per thread: it owns its scratch
        std::vector<BitTile> layers(index.map().layers.size());
        for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < slots.size();) {
            if (const Status s = rasterizer.draw(index, slots[i], layers); !s) {
                std::lock_guard lock(mutex);  // the lowest failing tile, whatever the timing
                if (i < firstError) {
                    firstError = i;
                    message = "tile " + tiles[i].quadkey() + ": " + s.message();
                }
            }
            store.store(i, layers, rasterizer.drawn());
        }
    };
    std::vector<std::thread> pool;
    for (int w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    if (firstError < tiles.size()) return Error{message};
    return store;
}

}  // namespace terrabit::core
