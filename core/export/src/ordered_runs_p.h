#pragma once
// Private to export: work items encoded on several threads and taken in order, for exports whose
// files must not depend on the thread count (3D Tiles contents, layer files).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "terrabit/core/result.h"

namespace terrabit::core::detail {

/// Items [0, count): `encode(k)` runs on up to `threads` threads (0: one per hardware thread) a
/// run of 8 per thread at a time, each run then handed to `take(k, result)` on the calling thread
/// in item order, so errors, progress and whatever `take` writes are the same for any thread
/// count. A run holds at most 8 × threads results at once. Stops at, and returns, the first
/// failure `take` reports. `encode` must be safe to call on several threads at once.
template <class Encode, class Take>
Status inOrderedRuns(std::size_t count, int threads, Encode&& encode, Take&& take) {
    using Value = decltype(encode(std::size_t{0}));
    const std::size_t workers =
        threads > 0 ? static_cast<std::size_t>(threads) : std::max<std::size_t>(1, std::thread::hardware_concurrency());
    std::vector<Value> run;
    for (std::size_t first = 0; first < count; first += run.size()) {
        const std::size_t size = std::min(count - first, 8 * workers);
        run.clear();
        run.reserve(size);
        for (std::size_t k = 0; k < size; ++k) run.emplace_back(Error{"not encoded"});
        std::atomic<std::size_t> next{0};
        const auto work = [&] {
            for (std::size_t k; (k = next.fetch_add(1)) < size;) run[k] = encode(first + k);
        };
        {
            std::vector<std::jthread> helpers;
            for (std::size_t h = 1; h < std::min(workers, size); ++h) helpers.emplace_back(work);
            work();
        }
        for (std::size_t k = 0; k < size; ++k) {
            if (Status s = take(first + k, run[k]); !s) return s;
        }
    }
    return Status::success();
}

}  // namespace terrabit::core::detail
