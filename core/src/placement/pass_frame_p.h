#pragma once
// Private to placement: the frame every pass runs in.
//
// A pass is three phases:
//   plan    — compile its expressions, work out what each tile's result depends on (its key);
//   kernel  — compute the result of each tile whose cached key no longer holds, in parallel,
//             each tile writing only its own result slot (and, for buildings, the occupancy of
//             the cells its phase owns);
//   commit  — write what the results place into the shared layers, forget tiles no longer
//             baked and fill the pass's report.
// PassFrame holds what is the same in every pass: the per-tile cache slots and their keys, the
// stale/reused bookkeeping, progress and cancellation, error collection from the workers, the
// report and the warnings. The passes keep only their own plan, kernel and commit, as the
// members of a small `…Run` class that runPass (at the end of this file) drives.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "parallel_p.h"
#include "terrabit/core/placement/pass_context.h"
#include "terrabit/core/placement/placement_hash.h"
#include "terrabit/core/scene/shared_vector.h"

namespace terrabit::core::placement::detail {

/// Calls body(item, worker) -> Status for every item in [0, count) on up to `threads` threads
/// and returns the failure of the lowest item, if any (the same error for any thread count).
template <class F>
Status parallelTry(std::size_t count, int threads, F&& body) {
    std::vector<Status> failures(count);
    parallelFor(count, threads, [&](std::size_t i, int worker) { failures[i] = body(i, worker); });
    for (Status& s : failures) {
        if (!s) return s;
    }
    return Status::success();
}

/// The sorted, duplicate-free tiles of `tiles` and their neighbours (the cells a pass may read
/// or write around the tiles it bakes).
std::vector<TileId> tilesAround(std::span<const TileId> tiles);

/// The part of a tile's key that every pass shares: the pass's rule key and the tile itself.
inline std::uint64_t tileKey(std::uint64_t ruleKey, const TileId& t) {
    return hashCombine(ruleKey, (std::uint64_t{t.x} << 32) | t.y);
}

/// The key of everything a pass's rule and the bake share: the common key and the rule's
/// description (pass a copy with parts left out when the pass keys those per tile).
inline std::uint64_t ruleKeyOf(const PassContext& ctx, const PassRule& described) {
    return hashCombine(ctx.commonKey, hashText(PlacementRules::describe(described)));
}

/// The frame of one pass's run over ctx.order (see the top of this file). TileResult is the
/// pass's cached per-tile result; it has a `std::uint64_t key` member, 0 while never computed.
template <class TileResult>
class PassFrame {
public:
    using Cache = std::unordered_map<TileId, TileResult>;

    /// Starts the clock and makes a cache slot for every baked tile, here on the calling thread,
    /// so the workers later fill slots without touching the map. `stage` names the work in
    /// progress reports and in the cancellation error.
    PassFrame(const PassRule& pass, PassContext& ctx, Cache& cache, std::string_view stage)
        : mPass(pass), mCtx(ctx), mCache(cache), mStage(stage), mStart(std::chrono::steady_clock::now()) {
        mResults.reserve(ctx.order.size());
        for (const TileId& t : ctx.order) mResults.push_back(&cache[t]);
        mKeys.assign(ctx.order.size(), 0);
        mRan.assign(ctx.order.size(), 0);
    }

    const PassRule& pass() const { return mPass; }
    PassContext& ctx() const { return mCtx; }
    std::size_t tileCount() const { return mResults.size(); }
    const TileId& tile(std::size_t i) const { return mCtx.order[i]; }
    TileResult& result(std::size_t i) const { return *mResults[i]; }

    /// Plan: the key tile i's result must have to be reused.
    void setKey(std::size_t i, std::uint64_t key) { mKeys[i] = key; }
    std::uint64_t key(std::size_t i) const { return mKeys[i]; }
    /// True when tile i's cached result was computed under another key (or never).
    bool stale(std::size_t i) const { return mKeys[i] == 0 || mResults[i]->key != mKeys[i]; }
    /// The stale tiles of ctx.order, ascending.
    std::vector<std::size_t> staleTiles() const {
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < mResults.size(); ++i) {
            if (stale(i)) out.push_back(i);
        }
        return out;
    }

    /// Reports progress `fraction` (0..1) of this pass; a Cancelled error when asked to stop.
    Status progress(double fraction) const {
        if (reportProgress(mCtx.progress, fraction, mStage)) return Status::success();
        return cancelled("bake cancelled while " + mStage);
    }

    /// Kernel: for each tile i of `tiles` (indices into ctx.order), in parallel, either
    /// compute(i, worker) -> Status when its result is stale — the frame then stamps the key and
    /// counts the tile as run — or reuse(i, worker) when the cached result still holds. The first
    /// failure (by position in `tiles`) is returned with `errorPrefix` before its message.
    template <class Compute, class Reuse>
    Status runTiles(std::span<const std::size_t> tiles, std::string_view errorPrefix, Compute&& compute,
                    Reuse&& reuse) {
        const Status s = parallelTry(tiles.size(), mCtx.threads, [&](std::size_t k, int worker) -> Status {
            const std::size_t i = tiles[k];
            if (!stale(i)) {
                reuse(i, worker);
                return Status::success();
            }
            if (Status st = compute(i, worker); !st) return st;
            mResults[i]->key = mKeys[i];
            mRan[i] = 1;
            return Status::success();
        });
        if (!s) return Error{std::string(errorPrefix) + s.message()};
        return s;
    }
    /// runTiles for a pass whose reused results need nothing done.
    template <class Compute>
    Status runTiles(std::span<const std::size_t> tiles, std::string_view errorPrefix, Compute&& compute) {
        return runTiles(tiles, errorPrefix, std::forward<Compute>(compute), [](std::size_t, int) {});
    }

    /// Commit: forgets tiles no longer baked (a later bake of them starts afresh) unless
    /// ctx.forgetUnbaked is off, and fills `report`. Results with warnings (a `warnings` member)
    /// hand them to ctx.warnings in the index's order, over the baked tiles only: a streamed bake
    /// of a country runs thousands of small bakes over one index.
    void commit(PassReport& report) {
        const std::unordered_set<TileId> baked(mCtx.order.begin(), mCtx.order.end());
        if (mCtx.forgetUnbaked) std::erase_if(mCache, [&](const auto& kv) { return !baked.contains(kv.first); });
        if constexpr (requires(const TileResult& r) { r.warnings; }) passOnWarnings(baked);
        report.name = mPass.name;
        report.kind = mPass.kind;
        report.tilesRun = static_cast<std::size_t>(std::count(mRan.begin(), mRan.end(), 1));
        report.tilesReused = mResults.size() - report.tilesRun;
        report.milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - mStart).count();
    }

private:
    void passOnWarnings(const std::unordered_set<TileId>& baked) const {
        if (!mCtx.warnings) return;
        std::vector<std::pair<std::size_t, const TileResult*>> bySlot;
        for (const auto& [t, result] : mCache) {
            if (!result.warnings.empty() && baked.contains(t))
                bySlot.emplace_back(mCtx.index->slot(t).value_or(0), &result);
        }
        std::sort(bySlot.begin(), bySlot.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [slot, result] : bySlot) {
            for (const std::string& w : result->warnings) mCtx.warnings->push_back(w);
        }
    }

    const PassRule& mPass;
    PassContext& mCtx;
    Cache& mCache;
    std::string mStage;
    std::chrono::steady_clock::time_point mStart;
    std::vector<TileResult*> mResults;  ///< per tile of ctx.order: its cache slot
    std::vector<std::uint64_t> mKeys;   ///< per tile of ctx.order: the key its result needs
    std::vector<std::uint8_t> mRan;     ///< per tile of ctx.order: 1 when its kernel ran
};

/// A pass's cached result for a tile, or nullptr.
template <class TileResult>
const TileResult* cachedTile(const std::unordered_map<TileId, TileResult>& cache, const TileId& id) {
    const auto it = cache.find(id);
    return it == cache.end() ? nullptr : &it->second;
}

/// Removes a tile's cached result and hands it over; nullopt when none.
template <class TileResult>
std::optional<TileResult> takeTile(std::unordered_map<TileId, TileResult>& cache, const TileId& id) {
    auto node = cache.extract(id);
    if (node.empty()) return std::nullopt;
    return std::move(node.mapped());
}

/// Forgets every cached result whose tile is not in `keep`.
template <class TileResult>
void keepTiles(std::unordered_map<TileId, TileResult>& cache, const std::unordered_set<TileId>& keep) {
    std::erase_if(cache, [&](const auto& kv) { return !keep.contains(kv.first); });
}

/// Every cached tile and the bytes its result holds (its heldBytes, found by the argument's type).
template <class TileResult>
std::vector<std::pair<TileId, std::size_t>> cachedBytesOf(const std::unordered_map<TileId, TileResult>& cache) {
    std::vector<std::pair<TileId, std::size_t>> out;
    out.reserve(cache.size());
    for (const auto& [t, r] : cache) out.emplace_back(t, heldBytes(r));
    return out;
}

/// The bytes a vector's buffer holds (its capacity, not its size).
template <class T>
std::size_t bufferBytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}
/// The bytes a shared vector's buffer holds, counted for every holder.
template <class T>
std::size_t bufferBytes(const SharedVector<T>& v) {
    return v.capacityBytes();
}
/// The bytes a string holds beyond its own object (none while it fits in place).
inline std::size_t bufferBytes(const std::string& s) {
    return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}
/// What an unordered_map's node holds beyond its value: the next pointer and the cached hash.
inline constexpr std::size_t kCacheNodeBytes = 2 * sizeof(void*);

/// Runs a pass in its frame. `Run` is the pass's own part, made from (pass, ctx), with
///   Status plan(PassFrame&)    — set every baked tile's key (and compile, check, prepare);
///   Status kernel(PassFrame&)  — compute the stale tiles (PassFrame::runTiles);
///   void commit(PassFrame&)    — write what the results place into the shared layers;
/// the frame then commits the cache and the report.
template <class Run, class TileResult>
Status runPass(const PassRule& pass, PassContext& ctx, std::unordered_map<TileId, TileResult>& cache,
               std::string_view stage, PassReport& report) {
    PassFrame<TileResult> frame(pass, ctx, cache, stage);
    Run run(pass, ctx);
    if (Status s = run.plan(frame); !s) return s;
    if (Status s = run.kernel(frame); !s) return s;
    run.commit(frame);
    frame.commit(report);
    return Status::success();
}

}  // namespace terrabit::core::placement::detail
