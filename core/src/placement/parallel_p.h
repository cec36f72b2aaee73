#pragma once
// Private to placement: running independent work items on a few threads.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace terrabit::core::placement::detail {

/// Worker threads for a request: 0 means one per hardware thread; at least 1.
inline int workerCount(int requested) {
    if (requested > 0) return requested;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
}

/// Calls f(item, worker) for every item in [0, count) on up to `threads` threads (worker is
/// 0..threads-1, so per-worker scratch can be indexed by it). Items are handed out one at a
/// time, so which worker takes which item varies; f must make the result independent of that.
/// With one thread or one item everything runs on the calling thread.
template <class F>
void parallelFor(std::size_t count, int threads, F&& f) {
    const int n = static_cast<int>(std::min<std::size_t>(count, static_cast<std::size_t>(std::max(threads, 1))));
    if (n <= 1) {
        for (std::size_t i = 0; i < count; ++i) f(i, 0);
        return;
    }
    std::atomic<std::size_t> next{0};
    const auto work = [&](int worker) {
        for (std::size_t i = next++; i < count; i = next++) f(i, worker);
    };
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(n - 1));
    for (int w = 1; w < n; ++w) pool.emplace_back(work, w);
    work(0);
    for (std::thread& t : pool) t.join();
}

}  // namespace terrabit::core::placement::detail
