// Fuzzes every shape of the scan converter with arbitrary doubles: NaN, ±inf, ±1e308,
// denormals, huge and tiny values and ordinary cell coordinates, on grids of any size. The
// target grid is a heap block of exactly its size, so AddressSanitizer sees any write beyond it.
// Contracts beyond "no crash, no UB": polygonSpans hands its sink only spans inside the grid
// (0 <= y < height, 0 <= x0 < x1 <= width); a shape refused with an error draws nothing; the
// grid-writing polygon() sets exactly the cells of the spans polygonSpans emits.

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "fuzz_check.h"
#include "terrabit/core/raster/bit_grid.h"
#include "terrabit/core/raster/rasterizer.h"

namespace {

using namespace terrabit;
using core::Vec2;
using fuzz::require;

/// A double steered towards what breaks arithmetic: special values, the edges of the
/// rasterizer's limits, ordinary coordinates, or any bit pattern at all.
double anyDouble(FuzzedDataProvider& in) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    constexpr double kSpecial[] = {0.0,
                                   -0.0,
                                   std::numeric_limits<double>::quiet_NaN(),
                                   kInf,
                                   -kInf,
                                   1e308,
                                   -1e308,
                                   std::numeric_limits<double>::max(),
                                   std::numeric_limits<double>::denorm_min(),
                                   -std::numeric_limits<double>::denorm_min(),
                                   core::Rasterizer::kReachCells,
                                   -core::Rasterizer::kReachCells,
                                   core::Rasterizer::kMaxRadiusCells,
                                   2147483647.0,
                                   -2147483648.0,
                                   0.5};
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0:
            return kSpecial[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kSpecial) - 1)];
        case 1:
            return in.ConsumeIntegralInRange<int>(-300, 600) / 4.0;  // on and around a small grid
        case 2:
            return in.ConsumeFloatingPointInRange<double>(-1e6, 1e6);
        default: {
            const std::uint64_t bits = in.ConsumeIntegral<std::uint64_t>();
            double v;
            std::memcpy(&v, &bits, sizeof v);
            return v;
        }
    }
}

Vec2 anyPoint(FuzzedDataProvider& in) {
    const double x = anyDouble(in);
    return {x, anyDouble(in)};
}

/// A grid of exactly wordsPerRow × height words on the heap.
struct Grid {
    std::vector<std::uint64_t> words;
    core::BitGridView view;
    Grid(int wordsPerRow, int height) : words(static_cast<std::size_t>(wordsPerRow) * height) {
        words.shrink_to_fit();
        view = {words.data(), wordsPerRow, height};
    }
    bool clear() const {
        for (std::uint64_t w : words)
            if (w) return false;
        return true;
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    Grid grid(in.ConsumeIntegralInRange<int>(1, 6), in.ConsumeIntegralInRange<int>(1, 300));
    const core::Coverage coverage = in.ConsumeBool() ? core::Coverage::Conservative : core::Coverage::CellCentre;
    core::Rasterizer rasterizer;
    core::Status status;
    switch (in.ConsumeIntegralInRange<int>(0, 6)) {
        case 0: {  // polygon, with the spans checked against the grid-writing path
            std::vector<Vec2> points(in.ConsumeIntegralInRange<std::size_t>(0, 48));
            for (Vec2& p : points) p = anyPoint(in);
            std::vector<std::uint32_t> ends(in.ConsumeIntegralInRange<std::size_t>(0, 4));
            for (std::uint32_t& e : ends) e = in.ConsumeIntegralInRange<std::uint32_t>(0, 52);
            core::PolygonView shape{points, ends, {}};
            if (in.ConsumeBool()) shape.offset = anyPoint(in);
            core::RasterOptions options;
            options.coverage = coverage;
            options.fillRule = in.ConsumeBool() ? core::FillRule::NonZero : core::FillRule::EvenOdd;
            Grid spans(grid.view.wordsPerRow, grid.view.height);
            const int width = grid.view.width(), height = grid.view.height;
            const core::Status spanStatus =
                rasterizer.polygonSpans(shape, options, width, height, [&](int y, int x0, int x1) {
                    require(y >= 0 && y < height && x0 >= 0 && x0 < x1 && x1 <= width, "a span lies inside the grid");
                    spans.view.fillSpan(y, x0, x1);
                });
            status = rasterizer.polygon(shape, options, grid.view);
            require(status.ok() == spanStatus.ok(), "polygon and polygonSpans accept the same shapes");
            require(grid.words == spans.words, "polygon sets the cells of polygonSpans' spans");
            break;
        }
        case 1: {
            std::vector<Vec2> points(in.ConsumeIntegralInRange<std::size_t>(0, 32));
            for (Vec2& p : points) p = anyPoint(in);
            status = rasterizer.polyline(points, anyDouble(in), coverage, grid.view);
            break;
        }
        case 2: {
            const Vec2 centre = anyPoint(in);
            status = rasterizer.disk(centre, anyDouble(in), coverage, grid.view);
            break;
        }
        case 3: {
            const Vec2 p = anyPoint(in);
            status = rasterizer.point(p, anyDouble(in), coverage, grid.view);
            break;
        }
        case 4: {
            const Vec2 a = anyPoint(in), b = anyPoint(in), c = anyPoint(in);
            status = rasterizer.triangle(a, b, c, coverage, grid.view);
            break;
        }
        case 5: {
            const Vec2 lo = anyPoint(in), hi = anyPoint(in);
            status = rasterizer.rectangle(core::Box2{lo, hi}, coverage, grid.view);
            break;
        }
        default: {
            const Vec2 centre = anyPoint(in), half = anyPoint(in);
            status = rasterizer.orientedRectangle(centre, half, anyDouble(in), coverage, grid.view);
            break;
        }
    }
    if (!status.ok()) {
        require(!status.message().empty(), "a refused shape says why");
        require(grid.clear(), "a refused shape draws nothing");
    }
    return 0;
}
