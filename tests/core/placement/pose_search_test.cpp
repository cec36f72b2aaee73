// The building pass's pose search on its own (placement/pose_search_p.h): a model's pose in a
// footprint's window, checked against the AND scan's slow path (every row by footprintSpans,
// then FootprintWindow::test): what it finds is clear, it steps aside for taken cells, and it
// spends no look on what its box or its own models rule out, and no more than its budget.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "placement/pose_search_p.h"
#include "terrabit/core/placement/occupancy_map.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;
using detail::FootprintSearch;
using detail::PoseSearch;

/// A rectangular footprint turned by `angle`, in a 3 × 3 block of tiles, and its search set up
/// as the building pass sets it up. Ground metres are cells here (a cell is a metre).
struct Footprint {
    TileId tile{17, 68000, 47000};
    std::vector<TileId> tiles;
    CellRegion region = CellRegion::around(tile);
    OccupancyMap occupancy;
    OrientedBox box;
    FootprintSearch search;
    Rasterizer rasterizer;
    detail::PoseLimits limits{0.0, 0.03, 8.0, 1.0};

    Footprint(double halfU, double halfV, double angle) {
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) tiles.push_back(*tile.neighbour(dx, dy));
        }
        occupancy = OccupancyMap(tiles);
        box.centre = {static_cast<double>(region.x0) + 384.3, static_cast<double>(region.y0) + 371.7};
        box.halfExtents = {halfU, halfV};
        box.angle = angle;
    }
    Vec2 u() const { return {std::cos(box.angle), std::sin(box.angle)}; }
    Vec2 v() const { return {-u().y, u().x}; }

    /// Loads the window (after the occupancy is marked) and resets the search.
    void load() {
        const Vec2 hu = u() * box.halfExtents.x, hv = v() * box.halfExtents.y;
        const std::vector<Vec2> ring{box.centre - hu - hv, box.centre + hu - hv, box.centre + hu + hv,
                                     box.centre - hu + hv, box.centre - hu - hv};
        const std::vector<std::uint32_t> ends{static_cast<std::uint32_t>(ring.size())};
        ASSERT_TRUE(search.window.load(ring, ends, 4, region, occupancy, nullptr, nullptr, rasterizer));
        search.cellCentre = box.centre;
        search.cellU = u();
        search.cellV = v();
        search.poseBudget = 250;
        search.lookBudget = 4000;
        search.ownRects.clear();
        search.outline.clear();
    }

    PoseSearch find(double w, double d) {
        return detail::findPose(limits, box, w, d, false, false, search, region, nullptr);
    }

    /// The slow path's verdict on the cells findPose left in search.spans.
    bool clearBySlowPath(double w, double d, const PoseSearch& found) const {
        const Vec2 c = box.centre + u() * found.offU + v() * found.offV;
        const Vec2 hw = u() * (0.5 * w), hd = v() * (0.5 * d);
        std::vector<CellSpan> spans;
        if (!footprintSpans({c - hw - hd, c + hw - hd, c + hw + hd, c - hw + hd}, region, spans)) return false;
        if (spans != search.spans) return false;
        std::int64_t cells = 0;
        for (const CellSpan& s : spans) cells += s.x1 - s.x0;
        const auto allowed = static_cast<std::int64_t>(std::floor(limits.tolerance * static_cast<double>(cells)));
        return search.window.test(spans, allowed).clear;
    }
};

TEST(PoseSearch, AModelThatFitsAnEmptyFootprintStandsAtItsCentre) {
    for (const double angle : {0.0, 0.3, 1.1, std::numbers::pi / 4}) {
        Footprint f(15.0, 10.0, angle);
        f.load();
        const PoseSearch found = f.find(20.0, 12.0);
        ASSERT_TRUE(found.found) << angle;
        EXPECT_EQ(found.offU, 0.0);
        EXPECT_EQ(found.offV, 0.0);
        EXPECT_FALSE(found.blocked);
        EXPECT_TRUE(f.clearBySlowPath(20.0, 12.0, found)) << angle;
        EXPECT_NEAR(found.box.centre.x, f.box.centre.x, 1e-9);
        EXPECT_EQ(found.box.halfExtents, (Vec2{10.0, 6.0}));
    }
}

TEST(PoseSearch, TakenCellsPushThePoseAsideOntoCellsTheScanAllows) {
    for (const double angle : {0.0, 0.4, 2.0}) {
        Footprint f(20.0, 12.0, angle);
        // Something stands at the footprint's centre.
        std::vector<CellSpan> taken;
        const auto cx = static_cast<std::int64_t>(f.box.centre.x), cy = static_cast<std::int64_t>(f.box.centre.y);
        for (std::int64_t y = cy - 2; y <= cy + 2; ++y) taken.push_back({y, cx - 2, cx + 3});
        f.occupancy.mark(taken);
        f.load();
        const PoseSearch found = f.find(12.0, 8.0);
        ASSERT_TRUE(found.found) << angle;
        EXPECT_TRUE(found.offU != 0.0 || found.offV != 0.0);
        EXPECT_TRUE(found.blocked) << "poses over the taken cells were refused for them";
        EXPECT_TRUE(f.clearBySlowPath(12.0, 8.0, found)) << angle;
        EXPECT_EQ(f.search.window.loadedCellsOf(f.search.spans, false), 0) << "none of its cells is taken";
    }
}

TEST(PoseSearch, AModelLargerThanItsBoxCostsNoLook) {
    Footprint f(10.0, 8.0, 0.7);
    f.load();
    const PoseSearch found = f.find(20.5, 4.0);
    EXPECT_FALSE(found.found);
    EXPECT_FALSE(found.cutShort);
    EXPECT_EQ(f.search.lookBudget, 4000);
    EXPECT_EQ(f.search.poseBudget, 250);
}

TEST(PoseSearch, PosesOverItsOwnModelsAreNotLookedAt) {
    Footprint f(10.0, 8.0, 0.2);
    f.load();
    // A model of its own already covers the whole box: every pose overlaps it.
    f.search.ownRects.push_back({0.0, 0.0, 10.0, 8.0});
    const PoseSearch found = f.find(6.0, 5.0);
    EXPECT_FALSE(found.found);
    EXPECT_FALSE(found.cutShort);
    EXPECT_EQ(f.search.lookBudget, 4000);
    // Beside a model along one side, the pose is found on the other.
    f.search.ownRects = {{-5.0, 0.0, 5.0, 8.0}};
    const PoseSearch beside = f.find(6.0, 5.0);
    ASSERT_TRUE(beside.found);
    EXPECT_GE(beside.offU - 3.0, 0.0 - 1e-9) << "clear of the own model's half";
}

TEST(PoseSearch, TheLookBudgetCutsTheSearchShort) {
    Footprint f(20.0, 15.0, 0.5);
    // Everything in and around the footprint is taken.
    std::vector<CellSpan> all;
    const auto cx = static_cast<std::int64_t>(f.box.centre.x), cy = static_cast<std::int64_t>(f.box.centre.y);
    for (std::int64_t y = cy - 40; y <= cy + 40; ++y) all.push_back({y, cx - 40, cx + 41});
    f.occupancy.mark(all);
    f.load();
    f.search.lookBudget = 5;
    const PoseSearch found = f.find(6.0, 6.0);
    EXPECT_FALSE(found.found);
    EXPECT_TRUE(found.cutShort);
    EXPECT_TRUE(found.blocked);
    EXPECT_LE(f.search.lookBudget, 0);
    // With its budget, every pose is looked at and refused.
    f.search.lookBudget = 4000;
    const PoseSearch whole = f.find(6.0, 6.0);
    EXPECT_FALSE(whole.found);
    EXPECT_FALSE(whole.cutShort);
    EXPECT_TRUE(whole.blocked);
    EXPECT_EQ(f.search.lookBudget, 4000 - detail::PoseSet::kCount);
}

}  // namespace
}  // namespace terrabit::test
