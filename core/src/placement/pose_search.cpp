#include "pose_search_p.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace terrabit::core::placement::detail {

namespace {

/// Pose offsets each way from the box's centre (findPose).
constexpr int kSteps = kPoseSteps;
/// How much nearer than touching two rectangles' centres must be for findPose to count them
/// overlapping without a look, metres (well above the rounding of their offsets).
constexpr double kOverlapSlack = 1e-6;

/// The poses of a box model of `w` × `d` at offsets (i stepU, j stepV), |i| ≤ nu, |j| ≤ nv,
/// that overlap the footprint's own models. Two rectangles whose interiors overlap share a
/// cell under the conservative rule (some cell's open interior meets their common open part),
/// and the test refuses a pose touching a taken cell: such poses need neither a look nor a
/// test. Box models only (an outline model stands on its rectangles, not its box).
PoseSet ownOverlaps(std::span<const OwnRect> own, double w, double d, double stepU, double stepV, int nu, int nv) {
    // The steps i with lo < i < hi, within ±n (clamped to ±(kSteps + 1) first, so that
    // truncating is exact: no libm call).
    const auto range = [](double centre, double reach, double step, int n) {
        const double lo = std::clamp((centre - reach) / step, -kSteps - 1.0, kSteps + 1.0);
        const double hi = std::clamp((centre + reach) / step, -kSteps - 1.0, kSteps + 1.0);
        const int tLo = static_cast<int>(lo), tHi = static_cast<int>(hi);
        const int floorLo = tLo > lo ? tLo - 1 : tLo, ceilHi = tHi < hi ? tHi + 1 : tHi;
        return std::pair{std::max(-n, floorLo + 1), std::min(n, ceilHi - 1)};
    };
    PoseSet overlapping;
    for (const OwnRect& r : own) {
        // Interiors overlap when the centres are nearer than the half extents' sum on both
        // axes; kOverlapSlack keeps rounding from calling touching rectangles overlapping.
        const double reachU = 0.5 * w + r.halfU - kOverlapSlack, reachV = 0.5 * d + r.halfV - kOverlapSlack;
        if (!(reachU > 0.0 && reachV > 0.0)) continue;
        const auto [i0, i1] = range(r.u, reachU, stepU, nu);
        const auto [j0, j1] = range(r.v, reachV, stepV, nv);
        overlapping |= PoseSet::rectangle(i0, i1, j0, j1);
    }
    return overlapping;
}

}  // namespace

std::pair<float, float> groundRange(std::span<const CellSpan> spans, GroundSampler& ground) {
    float lo = std::numeric_limits<float>::infinity(), hi = -std::numeric_limits<float>::infinity();
    // Each row of corners once: a span's top corners with those of the span above it (the
    // shape is convex, so the two ranges meet), its bottom corners with the span below.
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const CellSpan& s = spans[i];
        std::int64_t x0 = s.x0, x1 = s.x1;
        if (i > 0 && spans[i - 1].y == s.y - 1) {
            x0 = std::min(x0, spans[i - 1].x0);
            x1 = std::max(x1, spans[i - 1].x1);
        }
        ground.rowRange(s.y, x0, x1, lo, hi);
        if (i + 1 == spans.size() || spans[i + 1].y != s.y + 1) ground.rowRange(s.y + 1, s.x0, s.x1, lo, hi);
    }
    if (lo > hi) return {terrain::kNoHeight, terrain::kNoHeight};
    return {lo, hi};
}

PoseSearch findPose(const PoseLimits& limits, const OrientedBox& box, double w, double d, bool turned, bool reversed,
                    FootprintSearch& s, const CellRegion& region, GroundSampler* ground) {
    PoseSearch out;
    const double margin = limits.marginMetres;
    const double slackU = box.halfExtents.x - margin - 0.5 * w;
    const double slackV = box.halfExtents.y - margin - 0.5 * d;
    if (slackU < -1e-9 || slackV < -1e-9) return out;
    const double cell = limits.cellMetres;
    const auto stepOf = [&](double slack) { return std::max(cell, slack / kSteps); };
    const double stepU = stepOf(slackU), stepV = stepOf(slackV);
    const int nu = std::min(kSteps, static_cast<int>(std::max(0.0, slackU) / stepU + 1e-9));
    const int nv = std::min(kSteps, static_cast<int>(std::max(0.0, slackV) / stepV + 1e-9));
    const bool shaped = !s.outline.empty();
    // The poses to look at, in order; those refused for the footprint's own models are
    // neither looked at nor counted.
    PoseSet poses = PoseSet::within(nu, nv);
    if (!shaped && !s.ownRects.empty()) {
        poses = poses.without(ownOverlaps(s.ownRects, w, d, stepU, stepV, nu, nv));
        if (poses.empty()) return out;
    }
    const Vec2 c0 = s.cellCentre, cu = s.cellU, cv = s.cellV;  // the box's, in cells
    const Vec2 hw = cu * (0.5 * w), hd = cv * (0.5 * d);
    // The corners' offsets from the pose's centre, and the same half a cell further in (the
    // cells looked at first).
    const std::array<Vec2, 4> arm{Vec2{} - hw - hd, hw - hd, hw + hd, Vec2{} - hw + hd};
    // A box model's looks from the pose's centre: the centre itself, then the corners (adding
    // a zero offset changes no coordinate).
    std::array<Vec2, 5> boxLooks{};
    for (std::size_t c = 0; c < 4; ++c) {
        const double len = length(arm[c]);
        boxLooks[c + 1] = len > 0.5 ? arm[c] * (1.0 - 0.5 / len) : Vec2{};
    }
    ModelAxes axes = modelAxes(cu, cv, turned);
    if (reversed) axes = {Vec2{} - axes.x, Vec2{} - axes.z};
    s.outlineLooks.clear();
    // Each rectangle's middle, then its corners half a cell in, as a box model's.
    for (const OutlineRect& r : s.outline) {
        s.outlineLooks.push_back(axes.x * (0.5 * (r.x0 + r.x1)) + axes.z * (0.5 * (r.z0 + r.z1)));
    }
    for (std::size_t k = 0; k < s.outline.size(); ++k) {
        const OutlineRect& r = s.outline[k];
        const Vec2 middle = s.outlineLooks[k];
        for (const auto& [x, z] : {std::pair{r.x0, r.z0}, {r.x1, r.z0}, {r.x1, r.z1}, {r.x0, r.z1}}) {
            const Vec2 corner = axes.x * x + axes.z * z;
            const double len = length(corner - middle);
            s.outlineLooks.push_back(len > 0.5 ? corner + (middle - corner) * (0.5 / len) : middle);
        }
    }
    int i = 0, j = 0;
    for (auto next = poses.cursor(); next.next(i, j);) {
        // A footprint looks at and tests a bounded number of poses (the same for any thread
        // count): looks are a few reads, tests rasterize the pose.
        if (s.lookBudget-- <= 0) {
            out.cutShort = true;
            return out;
        }
        const double offU = i * stepU, offV = j * stepV;
        const Vec2 mid = c0 + cu * offU + cv * offV;
        // Most poses fail at their centre or a corner: look at those cells (the corners half a
        // cell in) before rasterizing the pose.
        const std::span<const Vec2> looks = shaped ? std::span<const Vec2>(s.outlineLooks) : boxLooks;
        auto refusal = FootprintWindow::Refusal::None;
        for (std::size_t c = 0; c < looks.size() && refusal == FootprintWindow::Refusal::None; ++c) {
            refusal = s.window.look(mid + looks[c]);
        }
        if (refusal != FootprintWindow::Refusal::None) {
            out.inReach = out.inReach || refusal != FootprintWindow::Refusal::Window;
            out.blocked = out.blocked || refusal == FootprintWindow::Refusal::Taken;
            continue;
        }
        // Corners in boxCorners' order.
        for (std::size_t c = 0; c < 4; ++c) s.corners[c] = mid + arm[c];
        if (s.poseBudget-- <= 0) {
            out.cutShort = true;
            return out;
        }
        FootprintWindow::Verdict verdict;
        if (shaped) {
            if (!modelCells(s.outline, mid, axes, region, s.spans, s.outlineScratch)) continue;
            std::int64_t count = 0;
            for (const CellSpan& sp : s.spans) count += sp.x1 - sp.x0;
            verdict = s.window.test(
                s.spans, static_cast<std::int64_t>(std::floor(limits.tolerance * static_cast<double>(count))));
        } else {
            // A box is rasterized a row at a time, up to the row that refuses it (most poses
            // tested are refused).
            const QuadRows rows(s.corners, region);
            if (!rows.ok()) continue;
            verdict = s.window.testRows(rows, limits.tolerance, s.spans);
        }
        out.inReach = true;
        if (!verdict.clear) {
            out.blocked = out.blocked || verdict.refusal == FootprintWindow::Refusal::Taken;
            continue;
        }
        if (ground) {
            const auto range = groundRange(s.spans, *ground);
            if (range.first == range.first && double(range.second) - range.first > limits.maxGroundStepMetres) {
                out.tooSteep = true;
                continue;
            }
            out.ground = range;
        }
        out.found = true;
        out.box = box;
        const Vec2 u{std::cos(box.angle), std::sin(box.angle)};
        out.box.centre = box.centre + u * offU + Vec2{-u.y, u.x} * offV;
        out.offU = offU;
        out.offV = offV;
        out.box.halfExtents = {0.5 * w, 0.5 * d};
        return out;
    }
    return out;
}

}  // namespace terrabit::core::placement::detail
