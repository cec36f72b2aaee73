#include "terrabit/core/tiling/layer_store.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <new>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

namespace terrabit::core {

namespace {

constexpr std::size_t kChunkBytes = 2u << 20;

/// The chunks of stores that went away, kept for the next store. Their pages are mapped
/// already; a fresh chunk's first touch costs the kernel a page fault per 4 KiB, measured at
/// 2 µs a page on this machine, which made storing a tile's layers cost as much as drawing
/// them. Re-bakes (the app on every rules edit, batch bakes batch after batch) reuse them.
/// Copies a finished tile into the store. Streamed past the caches where the CPU can: the store
/// is written once and read much later, and a plain copy first reads every line it writes
/// (8 KiB per layer, a tenth of rasterizing monaco-region).
void copyOut(const BitTile& from, BitTile* to) {
#if defined(__SSE2__)
    static_assert(alignof(BitTile) >= 16 && sizeof(BitTile) % 16 == 0);
    const auto* source = reinterpret_cast<const __m128i*>(from.words().data());
    auto* target = reinterpret_cast<__m128i*>(to);
    for (std::size_t i = 0; i < sizeof(BitTile) / 16; ++i) _mm_stream_si128(target + i, _mm_load_si128(source + i));
#else
    new (to) BitTile(from);
#endif
}

class ChunkPool {
public:
    static ChunkPool& instance() {
        static ChunkPool* pool = new ChunkPool;  // never destroyed: stores may outlive statics
        return *pool;
    }
    void* take() {
        {
            std::lock_guard lock(mMutex);
            if (!mFree.empty()) {
                void* chunk = mFree.back();
                mFree.pop_back();
                return chunk;
            }
        }
#ifdef MAP_POPULATE
        // Mapped with its pages made at once: a third cheaper here than a fault per page on first
        // touch, and a chunk is nearly always filled.
        void* memory =
            mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (memory == MAP_FAILED) throw std::bad_alloc();
#else
        void* memory = std::aligned_alloc(alignof(BitTile), kChunkBytes);
        if (!memory) throw std::bad_alloc();
#endif
        return memory;
    }
    void give(void* chunk) {
        {
            std::lock_guard lock(mMutex);
            if (mFree.size() < kKeptChunks) {
                mFree.push_back(chunk);
                return;
            }
        }
#ifdef MAP_POPULATE
        munmap(chunk, kChunkBytes);
#else
        std::free(chunk);
#endif
    }

private:
    /// 128 MiB: the layers of a few thousand tiles, more than a city at z17 holds.
    static constexpr std::size_t kKeptChunks = 64;
    std::mutex mMutex;
    std::vector<void*> mFree;
};

}  // namespace

void LayerStore::ChunkFree::operator()(BitTile* chunk) const { ChunkPool::instance().give(chunk); }

LayerStore::LayerStore(std::vector<std::string> layerNames, std::vector<TileId> tiles)
    : mNames(std::move(layerNames)),
      mTiles(std::move(tiles)),
      mIndex(mTiles.size() * mNames.size(), -1),
      mStored(mTiles.size(), 0) {
    static_assert(sizeof(BitTile) * kChunkTiles == kChunkBytes);
    static_assert(std::is_trivially_copyable_v<BitTile> && std::is_trivially_destructible_v<BitTile>);
    mSlots.reserve(mTiles.size());
    for (std::size_t s = 0; s < mTiles.size(); ++s) mSlots.emplace(mTiles[s], s);
}

std::ptrdiff_t LayerStore::slotOf(const TileId& id) const {
    const auto it = mSlots.find(id);
    return it == mSlots.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
}

const BitTile* LayerStore::at(std::size_t slot, int layer) const {
    if (slot >= mTiles.size() || layer < 0 || static_cast<std::size_t>(layer) >= mNames.size()) return nullptr;
    const std::int64_t position = mIndex[slot * mNames.size() + static_cast<std::size_t>(layer)];
    return position < 0 ? nullptr : tileAt(static_cast<std::size_t>(position));
}

const BitTile* LayerStore::tile(const TileId& id, int layer) const {
    const std::ptrdiff_t slot = slotOf(id);
    return slot < 0 ? nullptr : at(static_cast<std::size_t>(slot), layer);
}

const terrain::HeightTile* LayerStore::heights(const TileId& id) const {
    if (mHeights.empty()) return nullptr;
    const std::ptrdiff_t slot = slotOf(id);
    return slot < 0 ? nullptr : mHeights[static_cast<std::size_t>(slot)].get();
}

void LayerStore::setHeights(std::size_t slot, std::shared_ptr<const terrain::HeightTile> heights) {
    if (slot >= mTiles.size()) return;
    if (mHeights.empty()) mHeights.resize(mTiles.size());
    mHeights[slot] = std::move(heights);
}

bool LayerStore::emptyAt(std::size_t slot) const { return slot >= mStored.size() || mStored[slot] == 0; }

std::size_t LayerStore::reserveTiles(std::size_t n) {
    // A tile's layers go into one chunk when they fit one: skip the rest of the current chunk
    // when they do not fit there.
    if (n <= kChunkTiles && mUsed % kChunkTiles + n > kChunkTiles) mUsed += kChunkTiles - mUsed % kChunkTiles;
    while ((mUsed + n + kChunkTiles - 1) / kChunkTiles > mChunks.size()) {
        mChunks.emplace_back(static_cast<BitTile*>(ChunkPool::instance().take()));
    }
    const std::size_t first = mUsed;
    mUsed += n;
    return first;
}

void LayerStore::store(std::size_t slot, std::span<const BitTile> layers) { store(slot, layers, {}); }

void LayerStore::store(std::size_t slot, std::span<const BitTile> layers, std::span<const std::uint8_t> which) {
    const std::size_t layerCount = std::min(mNames.size(), layers.size());
    std::int64_t* index = mIndex.data() + slot * mNames.size();
    std::fill(index, index + mNames.size(), -1);
    // Which layers hold something, each tile scanned once (an empty one is read to its end),
    // marked in the slot's own index entries: no allocation per tile.
    constexpr std::int64_t kFilled = -2;
    std::size_t filled = 0;
    for (std::size_t l = 0; l < layerCount; ++l) {
        if ((which.empty() || (l < which.size() && which[l])) && !layers[l].none()) {
            index[l] = kFilled;
            ++filled;
        }
    }
    mStored[slot] = filled == 0 ? 0 : 1;
    if (filled == 0) return;
    // Only handing out room is serialized (the chunk list may grow, so the address is taken
    // under the lock too); copying the bits is not. A tile's layers share one chunk unless
    // there are more of them than a chunk holds.
    std::size_t position = 0;
    BitTile* first = nullptr;
    {
        std::lock_guard lock(*mMutex);
        position = reserveTiles(filled);
        first = tileAt(position);
    }
    std::size_t k = 0;
    for (std::size_t l = 0; l < layerCount; ++l) {
        if (index[l] != kFilled) continue;
        BitTile* target = first + k;
        if (filled > kChunkTiles) {
            std::lock_guard lock(*mMutex);
            target = tileAt(position + k);
        }
        copyOut(layers[l], target);
        index[l] = static_cast<std::int64_t>(position + k);
        ++k;
    }
#if defined(__SSE2__)
    _mm_sfence();  // the streamed stores are weakly ordered: done before the slot is read
#endif
}

std::uint64_t LayerStore::hash() const {
    // FNV-style mix of the per-tile hashes; empty layers count as a fixed value.
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) {
        h ^= v;
        h *= 1099511628211ULL;
    };
    for (std::size_t s = 0; s < mTiles.size(); ++s) {
        mix(std::hash<TileId>{}(mTiles[s]));
        for (std::size_t l = 0; l < mNames.size(); ++l) {
            const BitTile* b = at(s, static_cast<int>(l));
            mix(b ? b->hash() : 0x9e3779b97f4a7c15ULL);
        }
    }
    return h;
}

}  // namespace terrabit::core
