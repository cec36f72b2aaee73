// The building pass's pose offsets as bit sets (placement/pose_set_p.h): every set walks its
// poses in findPose's search order, checked against that order made here from its definition.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <utility>
#include <vector>

#include "placement/pose_set_p.h"

namespace {

using terrabit::core::placement::detail::kPoseSteps;
using terrabit::core::placement::detail::PoseSet;
using Pose = std::pair<int, int>;

/// Every pose, ring by ring outwards (Chebyshev distance), then nearer the axes (L1), then by
/// value.
std::vector<Pose> everyPoseInSearchOrder() {
    std::vector<Pose> all;
    for (int i = -kPoseSteps; i <= kPoseSteps; ++i) {
        for (int j = -kPoseSteps; j <= kPoseSteps; ++j) all.emplace_back(i, j);
    }
    std::sort(all.begin(), all.end(), [](Pose a, Pose b) {
        const auto key = [](Pose p) {
            return std::tuple(std::max(std::abs(p.first), std::abs(p.second)), std::abs(p.first) + std::abs(p.second),
                              p.first, p.second);
        };
        return key(a) < key(b);
    });
    return all;
}

std::vector<Pose> walkPoses(const PoseSet& s) {
    std::vector<Pose> out;
    int i = 0, j = 0;
    for (auto c = s.cursor(); c.next(i, j);) out.emplace_back(i, j);
    return out;
}

template <class Keep>
std::vector<Pose> posesInSearchOrder(Keep keep) {
    std::vector<Pose> out;
    for (const Pose& p : everyPoseInSearchOrder()) {
        if (keep(p.first, p.second)) out.push_back(p);
    }
    return out;
}

TEST(PoseSet, WithinWalksThePosesInsideTheSlackInSearchOrder) {
    for (int nu = 0; nu <= kPoseSteps; ++nu) {
        for (int nv = 0; nv <= kPoseSteps; ++nv) {
            const auto expected =
                posesInSearchOrder([&](int i, int j) { return std::abs(i) <= nu && std::abs(j) <= nv; });
            EXPECT_EQ(walkPoses(PoseSet::within(nu, nv)), expected) << nu << ", " << nv;
            EXPECT_EQ(expected.size(), static_cast<std::size_t>((2 * nu + 1) * (2 * nv + 1)));
        }
    }
    EXPECT_EQ(walkPoses(PoseSet::within(0, 0)), (std::vector<Pose>{{0, 0}}));
}

TEST(PoseSet, RectanglesAndWhatIsLeftWithoutThemKeepTheSearchOrder) {
    // Every rectangle of offsets, taken out of the largest set and out of a narrower one.
    for (int i0 = -kPoseSteps; i0 <= kPoseSteps; ++i0) {
        for (int i1 = i0 - 1; i1 <= kPoseSteps; ++i1) {
            for (int j0 = -kPoseSteps; j0 <= kPoseSteps; j0 += 3) {
                for (int j1 = j0 - 1; j1 <= kPoseSteps; j1 += 2) {
                    const auto in = [&](int i, int j) { return i0 <= i && i <= i1 && j0 <= j && j <= j1; };
                    const PoseSet r = PoseSet::rectangle(i0, i1, j0, j1);
                    ASSERT_EQ(walkPoses(r), posesInSearchOrder(in)) << i0 << ".." << i1 << " × " << j0 << ".." << j1;
                    EXPECT_EQ(r.empty(), i0 > i1 || j0 > j1);
                    EXPECT_EQ(walkPoses(PoseSet::within(kPoseSteps, 2).without(r)),
                              posesInSearchOrder([&](int i, int j) { return std::abs(j) <= 2 && !in(i, j); }));
                }
            }
        }
    }
}

TEST(PoseSet, AUnionOfRectanglesCoveringTheSlackLeavesNothing) {
    PoseSet halves = PoseSet::rectangle(-kPoseSteps, 0, -3, 3);
    const PoseSet all = PoseSet::within(kPoseSteps, 3);
    EXPECT_FALSE(all.without(halves).empty());
    halves |= PoseSet::rectangle(1, kPoseSteps, -3, 3);
    EXPECT_TRUE(all.without(halves).empty());
    EXPECT_FALSE(PoseSet::within(kPoseSteps, 4).without(halves).empty());
    EXPECT_EQ(walkPoses(PoseSet::within(kPoseSteps, 4).without(halves)),
              posesInSearchOrder([](int, int j) { return std::abs(j) == 4; }));
}

}  // namespace
