// The cells of a placed model's ground outline (placement/model_cells_p.h): every cell a rotated,
// scaled, possibly turned L, U or courtyard outline touches, against a per-cell separating-axis
// reference; a one-rectangle outline gives exactly footprintSpans' cells of the box, as findPose
// computes them; the axes put an L's wings where the rendered instance stands.

#include <gtest/gtest.h>

#include <numbers>
#include <random>
#include <set>

#include "placement/model_cells_p.h"
#include "placement_test_support.h"
#include "terrabit/core/placement/occupancy_map.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;
using detail::ModelAxes;
using detail::modelAxes;
using detail::modelCells;

using Cells = std::set<std::pair<std::int64_t, std::int64_t>>;

const std::vector<OutlineRect> kL{{-12, -10, 12, -1}, {-12, -1, -3, 10}};
const std::vector<OutlineRect> kU{{-13, -10, 13, -2}, {-13, -2, -5, 10}, {5, -2, 13, 10}};
const std::vector<OutlineRect> kCourtyard{{-16, -14, 16, -6}, {-16, -6, -8, 6}, {8, -6, 16, 6}, {-16, 6, 16, 14}};
// Overlapping and touching rectangles, to exercise the merge.
const std::vector<OutlineRect> kOverlapping{{-5, -5, 2, 1}, {-1, -2, 5, 5}, {2, 1, 4, 3}};

/// A box frame as GroundFrame gives it: cells per metre `s`, rows growing southwards, the box's
/// width axis at `angle` from east.
std::pair<Vec2, Vec2> boxAxes(double angle, double s) {
    return {Vec2{std::cos(angle), -std::sin(angle)} * s, Vec2{-std::sin(angle), -std::cos(angle)} * s};
}

std::array<Vec2, 4> placedRect(const OutlineRect& r, Vec2 mid, const ModelAxes& a) {
    return {mid + a.x * r.x0 + a.z * r.z0, mid + a.x * r.x1 + a.z * r.z0, mid + a.x * r.x1 + a.z * r.z1,
            mid + a.x * r.x0 + a.z * r.z1};
}

/// The reference: every cell whose open interior meets one of the placed rectangles, by the
/// separating-axis overlap depth; cells within 1e-9 of touching are reported as ambiguous.
Cells referenceCells(const std::vector<OutlineRect>& outline, Vec2 mid, const ModelAxes& a, Cells& ambiguous) {
    Cells out;
    for (const OutlineRect& r : outline) {
        const auto q = placedRect(r, mid, a);
        Box2 b;
        for (const Vec2 p : q) b.extend(p);
        for (auto y = std::int64_t(std::floor(b.min.y)) - 1; y <= std::int64_t(b.max.y) + 1; ++y) {
            for (auto x = std::int64_t(std::floor(b.min.x)) - 1; x <= std::int64_t(b.max.x) + 1; ++x) {
                const std::array<Vec2, 4> cell{Vec2{double(x), double(y)},
                                               {double(x + 1), double(y)},
                                               {double(x + 1), double(y + 1)},
                                               {double(x), double(y + 1)}};
                const double depth = overlapDepth(q, cell);
                if (std::abs(depth) < 1e-9) ambiguous.insert({x, y});
                if (depth > 0.0) out.insert({x, y});
            }
        }
    }
    return out;
}

/// The spans' cells; fails when the spans are not sorted by row then x, overlap or touch.
Cells cellsOf(const std::vector<CellSpan>& spans) {
    Cells out;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const CellSpan& s = spans[i];
        EXPECT_LT(s.x0, s.x1);
        if (i > 0) {
            const CellSpan& p = spans[i - 1];
            EXPECT_TRUE(p.y < s.y || (p.y == s.y && p.x1 < s.x0)) << "span " << i << " not after the one before";
        }
        for (std::int64_t x = s.x0; x < s.x1; ++x) out.insert({x, s.y});
    }
    return out;
}

TEST(ModelCells, MatchTheConservativeReferenceOnRotatedScaledAndTurnedOutlines) {
    const TileId tile{17, 68891, 47861};
    const CellRegion region = CellRegion::around(tile);
    std::mt19937_64 rng(19);
    std::uniform_real_distribution<double> pos(20, 236), turn(0, 2 * std::numbers::pi), scale(0.6, 1.4),
        metres(0.5, 1.3);
    std::vector<CellSpan> spans, scratch;
    std::vector<OutlineRect> scaled;
    int trials = 0, ambiguousCells = 0;
    for (const auto* outline : {&kL, &kU, &kCourtyard, &kOverlapping}) {
        for (int trial = 0; trial < 120; ++trial) {
            SCOPED_TRACE(trial);
            // Every fifth pose square to the grid, the rest at any angle.
            const double angle = trial % 5 == 0 ? std::numbers::pi / 2 * (trial % 4) : turn(rng);
            const auto [cu, cv] = boxAxes(angle, metres(rng));
            const ModelAxes axes = modelAxes(cu, cv, trial % 2 == 1);
            detail::scaleOutline(*outline, scale(rng), scale(rng), scaled);
            const Vec2 mid{tile.x * 256.0 + pos(rng), tile.y * 256.0 + pos(rng)};
            ASSERT_TRUE(modelCells(scaled, mid, axes, region, spans, scratch));
            Cells ambiguous;
            const Cells expected = referenceCells(scaled, mid, axes, ambiguous);
            Cells got = cellsOf(spans);
            ambiguousCells += static_cast<int>(ambiguous.size());
            for (const auto& c : ambiguous) {
                got.erase(c);
            }
            Cells want = expected;
            for (const auto& c : ambiguous) want.erase(c);
            ASSERT_EQ(got, want);
            ++trials;
        }
    }
    EXPECT_EQ(trials, 480);
    EXPECT_LT(ambiguousCells, 50) << "the reference decided almost every cell";
}

TEST(ModelCells, OneRectangleIsFootprintSpansOfTheBoxBitForBit) {
    // findPose's corners: mid + arm, arm = ±cu·w/2 ± cv·d/2 in boxCorners' order.
    const TileId tile{17, 68891, 47861};
    const CellRegion region = CellRegion::around(tile);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> pos(20, 236), turn(0, 2 * std::numbers::pi), size(0.5, 40), metres(0.5, 1.3);
    std::vector<CellSpan> expected, spans, scratch;
    for (int trial = 0; trial < 2000; ++trial) {
        const double angle = trial % 7 == 0 ? 0.0 : turn(rng);
        const auto [cu, cv] = boxAxes(angle, metres(rng));
        const double w = size(rng), d = size(rng);
        const Vec2 mid{tile.x * 256.0 + pos(rng), tile.y * 256.0 + pos(rng)};
        const Vec2 hw = cu * (0.5 * w), hd = cv * (0.5 * d);
        const std::array<Vec2, 4> arm{Vec2{} - hw - hd, hw - hd, hw + hd, Vec2{} - hw + hd};
        std::array<Vec2, 4> corners;
        for (std::size_t c = 0; c < 4; ++c) corners[c] = mid + arm[c];
        const bool inside = footprintSpans(corners, region, expected);
        const std::vector<OutlineRect> box{{-0.5 * w, -0.5 * d, 0.5 * w, 0.5 * d}};
        // In the box's own axes, and in a model's (its width along the box's, and turned).
        EXPECT_EQ(modelCells(box, mid, ModelAxes{cu, cv}, region, spans, scratch), inside);
        if (inside) {
            ASSERT_EQ(spans, expected) << trial;
        }
        EXPECT_EQ(modelCells(box, mid, modelAxes(cu, cv, false), region, spans, scratch), inside);
        if (inside) {
            ASSERT_EQ(spans, expected) << trial;
        }
        const std::vector<OutlineRect> turnedBox{{-0.5 * d, -0.5 * w, 0.5 * d, 0.5 * w}};
        EXPECT_EQ(modelCells(turnedBox, mid, modelAxes(cu, cv, true), region, spans, scratch), inside);
        if (inside) {
            ASSERT_EQ(spans, expected) << trial;
        }
    }
}

TEST(ModelCells, OutsideTheRegionOrNotFiniteIsRefused) {
    const TileId tile{17, 68891, 47861};
    const CellRegion region = CellRegion::around(tile);
    std::vector<CellSpan> spans, scratch;
    const auto [cu, cv] = boxAxes(0.3, 1.0);
    const ModelAxes axes = modelAxes(cu, cv, false);
    const Vec2 centre{tile.x * 256.0 + 128, tile.y * 256.0 + 128};
    EXPECT_TRUE(modelCells(kU, centre, axes, region, spans, scratch));
    EXPECT_FALSE(spans.empty());
    // One wing past the region's edge refuses the whole pose.
    const Vec2 edge{static_cast<double>(region.x1) - 8.0, centre.y};
    EXPECT_FALSE(modelCells(kU, edge, axes, region, spans, scratch));
    EXPECT_FALSE(modelCells(kU, {NAN, centre.y}, axes, region, spans, scratch));
    EXPECT_TRUE(modelCells({}, centre, axes, region, spans, scratch));
    EXPECT_TRUE(spans.empty()) << "an empty outline takes no cell";
}

TEST(ModelCells, AxesPutTheLsWingsWhereTheInstanceStands) {
    // The L's open quadrant is the model's front right (+X, +Z). Placed by the building pass's
    // yaw (turned or not), a point in each rectangle lands, through the instance transform, on a
    // cell modelCells takes, and the open quadrant's middle on one it leaves free.
    const GroundFrame frame{{7.42, 43.74}, 17};
    const Vec2 originCell = frame.groundToCell({0, 0});
    const TileId tile{17, static_cast<std::uint32_t>(originCell.x / 256),
                      static_cast<std::uint32_t>(originCell.y / 256)};
    const CellRegion region = CellRegion::around(tile);
    std::vector<CellSpan> spans, scratch;
    for (const double angle : {0.0, 0.4, 1.3, 2.9, -2.2}) {
        for (const bool turned : {false, true}) {
            SCOPED_TRACE(testing::Message() << "angle " << angle << (turned ? " turned" : ""));
            const Vec2 centre = frame.cellToGround({tile.x * 256.0 + 128.3, tile.y * 256.0 + 127.6});
            const Vec2 u{std::cos(angle), std::sin(angle)}, v{-u.y, u.x};
            const Vec2 c0 = frame.groundToCell(centre);
            const ModelAxes axes =
                modelAxes(frame.groundToCell(centre + u) - c0, frame.groundToCell(centre + v) - c0, turned);
            ASSERT_TRUE(modelCells(kL, c0, axes, region, spans, scratch));
            const Cells taken = cellsOf(spans);
            Instance in;
            in.position = groundToScene(centre);
            in.yaw = static_cast<float>(angle + (turned ? std::numbers::pi / 2 : 0.0));
            const auto m = transformMatrix(in);
            const auto cellAt = [&](double x, double z) {
                // Model (x, 0, z) through the instance's matrix to the scene, then to a cell.
                const double sx = m[0] * x + m[8] * z + m[12], sz = m[2] * x + m[10] * z + m[14];
                const Vec2 c = frame.groundToCell({sx, -sz});
                return std::pair{static_cast<std::int64_t>(std::floor(c.x)),
                                 static_cast<std::int64_t>(std::floor(c.y))};
            };
            EXPECT_TRUE(taken.count(cellAt(6.0, -5.0))) << "the back wing";
            EXPECT_TRUE(taken.count(cellAt(-7.0, 5.0))) << "the side wing";
            EXPECT_FALSE(taken.count(cellAt(6.0, 5.0))) << "the open quadrant";
        }
    }
}

}  // namespace
}  // namespace terrabit::test
