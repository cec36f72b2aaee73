// Evaluating a tile allocates nothing: the global allocation functions are replaced in this test
// program by ones that count calls made while a counting scope is open on the calling thread.
// (They forward to malloc/free, so every other test is unaffected.)

#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "algebra_test_support.h"
#include "terrabit/core/algebra/layer_evaluator.h"

namespace {

thread_local bool tCounting = false;
thread_local long tAllocations = 0;

void* allocate(std::size_t n, std::size_t alignment) {
    if (tCounting) ++tAllocations;
    if (n == 0) n = 1;
    void* p = alignment > alignof(std::max_align_t)
                  ? std::aligned_alloc(alignment, (n + alignment - 1) / alignment * alignment)
                  : std::malloc(n);
    if (!p) throw std::bad_alloc();
    return p;
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n, 0); }
void* operator new[](std::size_t n) { return allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return allocate(n, 0);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return allocate(n, 0);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::algebra;

struct CountAllocations {
    CountAllocations() {
        tAllocations = 0;
        tCounting = true;
    }
    ~CountAllocations() { tCounting = false; }
    long count() const { return tAllocations; }
};

TEST(LayerEvaluatorAllocations, TheCounterSeesAnAllocation) {
    CountAllocations counter;
    auto* p = new int(3);
    delete p;
    EXPECT_EQ(counter.count(), 1);
}

TEST(LayerEvaluatorAllocations, EvaluatingTilesAllocatesNothing) {
    MemoryLayers layers({"building", "grass", "road", "water"});
    TileBlock block{17, 68238, 47880, 3, 3};
    std::mt19937_64 rng(6);
    fillRandom(layers, block, rng);
    fillRandomHeights(layers, block, rng);
    for (const char* text : {"building|((~grass)&road)|((~grass)&water)",
                             "grass & ~dilate(road, 2m) & random(0.4) | noise(20m, 0.3) - edge(water)",
                             "open(erode(shift(road, -70, 3), 2, disk), 3) ^ close(building, 1)",
                             "grass & height(>280m, <320m) & ~dilate(slope(>30deg), 2) | aspect(N, 45deg) - road"}) {
        LayerEvaluator evaluator(LayerProgram::compile(parseOrDie(text, layers)));
        BitTile out;
        const std::vector<TileId> tiles = block.tiles();
        CountAllocations counter;
        for (const TileId& t : tiles) ASSERT_TRUE(evaluator.evaluate(layers, t, out).ok());
        EXPECT_EQ(counter.count(), 0) << text;
    }
}

}  // namespace
}  // namespace terrabit::test
