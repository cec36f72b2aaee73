// The building pass's AND scan (placement/footprint_window_p.h): testRows, which rasterizes a
// pose a row at a time and stops at the row that refuses it, against the slow path it replaces
// (every row by footprintSpans, then test()) on random poses over a footprint with taken,
// blocked and kept-off cells around it: the same verdict, the same refusal, the same cells.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <random>

#include "placement/footprint_window_p.h"
#include "terrabit/core/placement/occupancy_map.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;
using detail::FootprintWindow;
using detail::QuadRows;
using Refusal = FootprintWindow::Refusal;

std::array<Vec2, 4> windowPose(Vec2 c, double hw, double hd, double angle) {
    const Vec2 u{std::cos(angle), std::sin(angle)}, v{-u.y, u.x};
    return {c - u * hw - v * hd, c + u * hw - v * hd, c + u * hw + v * hd, c - u * hw + v * hd};
}

/// Sets random short runs of cells in the map's tiles around `centre` (global cells).
void scatterRuns(OccupancyMap& map, Vec2 centre, int runs, std::mt19937& rng) {
    std::uniform_int_distribution<int> offset(-45, 45), length(1, 9);
    std::vector<CellSpan> spans;
    for (int i = 0; i < runs; ++i) {
        const auto x = static_cast<std::int64_t>(centre.x) + offset(rng);
        spans.push_back({static_cast<std::int64_t>(centre.y) + offset(rng), x, x + length(rng)});
    }
    map.mark(spans);
}

TEST(FootprintWindow, RowByRowTestGivesTheSlowPathsVerdictOnRandomPoses) {
    const TileId tile{17, 68000, 47000};
    std::vector<TileId> tiles;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) tiles.push_back(*tile.neighbour(dx, dy));
    }
    const CellRegion region = CellRegion::around(tile);
    // Near the tile's north-west corner, so that windows cross tile borders and reach the
    // region's edge (Window refusals).
    const Vec2 centre{static_cast<double>(region.x0) + 300.0, static_cast<double>(region.y0) + 290.0};
    std::mt19937 rng(19);
    std::map<Refusal, int> seen;
    int outsideBeforeTaken = 0, poses = 0;
    for (int footprint = 0; footprint < 40; ++footprint) {
        OccupancyMap occupancy(tiles), blocking(tiles), keepOff(tiles);
        scatterRuns(occupancy, centre, 30, rng);
        scatterRuns(blocking, centre, 10, rng);
        scatterRuns(keepOff, centre, 60, rng);
        // An irregular footprint: a star-ish ring of 9 points, radius 12 to 40 cells, some
        // near the region's edge.
        std::uniform_real_distribution<double> radius(12.0, 40.0), shift(-6.0, 6.0);
        const Vec2 c = centre + Vec2{footprint % 5 == 0 ? -285.0 : shift(rng), shift(rng)};
        std::vector<Vec2> ring;
        for (int k = 0; k < 9; ++k) {
            const double a = 2.0 * std::numbers::pi * k / 9.0;
            ring.push_back(c + Vec2{std::cos(a), std::sin(a)} * radius(rng));
        }
        ring.push_back(ring.front());
        const std::vector<std::uint32_t> ends{static_cast<std::uint32_t>(ring.size())};
        FootprintWindow window;
        Rasterizer rasterizer;
        ASSERT_TRUE(window.load(ring, ends, 4, region, occupancy, &blocking, &keepOff, rasterizer));

        std::uniform_real_distribution<double> at(-45.0, 45.0), half(0.3, 22.0), angle(0.0, std::numbers::pi);
        std::vector<CellSpan> slow, fast;
        for (int i = 0; i < 400; ++i) {
            const auto corners = windowPose(c + Vec2{at(rng), at(rng)}, half(rng), half(rng), angle(rng));
            const QuadRows rows(corners, region);
            const bool inRegion = footprintSpans(corners, region, slow);
            ASSERT_EQ(rows.ok(), inRegion);
            if (!inRegion) continue;
            ++poses;
            std::int64_t cells = 0;
            for (const CellSpan& s : slow) cells += s.x1 - s.x0;
            ASSERT_LE(cells, rows.mostCells());
            for (const double tolerance : {0.0, 0.03, 0.25}) {
                const auto allowed = static_cast<std::int64_t>(std::floor(tolerance * static_cast<double>(cells)));
                const FootprintWindow::Verdict expected = window.test(slow, allowed);
                const FootprintWindow::Verdict got = window.testRows(rows, tolerance, fast);
                ASSERT_EQ(got.clear, expected.clear) << "footprint " << footprint << " pose " << i;
                ASSERT_EQ(got.refusal, expected.refusal) << "footprint " << footprint << " pose " << i;
                if (got.clear) {
                    ASSERT_EQ(fast, slow);
                    ASSERT_EQ(got.cells, cells);
                    ASSERT_EQ(got.outside, expected.outside);
                }
                ++seen[expected.refusal];
                // The case the row-by-row scan must count on for: too many cells outside before
                // the first taken one.
                const auto anyTaken = window.test(slow, std::numeric_limits<std::int64_t>::max()).refusal;
                if (expected.refusal == Refusal::Outside && anyTaken == Refusal::Taken) ++outsideBeforeTaken;
            }
        }
    }
    EXPECT_GT(poses, 10000);
    // Every verdict was met, many times.
    EXPECT_GT(seen[Refusal::None], 200);
    EXPECT_GT(seen[Refusal::Taken], 200);
    EXPECT_GT(seen[Refusal::Outside], 200);
    EXPECT_GT(seen[Refusal::Window], 50);
    EXPECT_GT(outsideBeforeTaken, 50);
}

}  // namespace
}  // namespace terrabit::test
