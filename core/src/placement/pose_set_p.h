#pragma once
// Private to placement: the building pass's pose offsets as bit sets in search order.
//
// findPose tries a model at offsets (i, j) steps from its target box's centre, |i| ≤ nu and
// |j| ≤ nv (at most kPoseSteps each way): ring by ring outwards (Chebyshev distance), then
// nearer the axes, then by value. A PoseSet numbers its bits in that order, so once poses are
// ruled out in bulk (those overlapping the models already standing in the footprint: most of a
// further model's poses) the rest come out in search order, one count of trailing zeros each,
// and the ruled-out ones cost nothing.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <tuple>
#include <utility>
#include <vector>

namespace terrabit::core::placement::detail {

/// Pose offsets each way from a target box's centre.
inline constexpr int kPoseSteps = 6;

class PoseSet {
public:
    static constexpr int kSide = 2 * kPoseSteps + 1;
    static constexpr int kCount = kSide * kSide;
    static constexpr std::size_t kWords = (kCount + 63) / 64;

    /// Every pose with |i| ≤ nu and |j| ≤ nv (0 ≤ nu, nv ≤ kPoseSteps).
    static PoseSet within(int nu, int nv);
    /// Every pose with i0 ≤ i ≤ i1 and j0 ≤ j ≤ j1 (each within ±kPoseSteps); empty when a
    /// range is.
    static PoseSet rectangle(int i0, int i1, int j0, int j1);

    PoseSet& operator|=(const PoseSet& o) {
        for (std::size_t w = 0; w < kWords; ++w) mBits[w] |= o.mBits[w];
        return *this;
    }
    /// This set less the poses of `o`.
    PoseSet without(const PoseSet& o) const {
        PoseSet s = *this;
        for (std::size_t w = 0; w < kWords; ++w) s.mBits[w] &= ~o.mBits[w];
        return s;
    }
    bool empty() const {
        for (const std::uint64_t b : mBits) {
            if (b) return false;
        }
        return true;
    }

    /// Walks a set's poses in search order: `while (c.next(i, j))`.
    class Cursor {
    public:
        explicit Cursor(const PoseSet& s) : mBits(s.mBits) {}
        bool next(int& i, int& j);

    private:
        std::array<std::uint64_t, kWords> mBits;
        std::size_t mWord = 0;
    };
    Cursor cursor() const { return Cursor(*this); }

private:
    friend struct PoseTables;
    static std::size_t rangeIndex(int lo, int hi) {
        return static_cast<std::size_t>((lo + kPoseSteps) * kSide + (hi + kPoseSteps));
    }
    void add(int k) { mBits[static_cast<std::size_t>(k / 64)] |= std::uint64_t{1} << (k % 64); }

    std::array<std::uint64_t, kWords> mBits{};
};

/// PoseSet's tables, made once.
struct PoseTables {
    std::array<std::pair<int, int>, PoseSet::kCount> order;  ///< bit k's offsets (i, j)
    std::array<PoseSet, (kPoseSteps + 1) * (kPoseSteps + 1)> within;
    /// By PoseSet::rangeIndex: the poses whose i (columns) or j (rows) lies in a range.
    std::array<PoseSet, PoseSet::kSide * PoseSet::kSide> columns, rows;

    static const PoseTables& get() {
        static const PoseTables tables = make();
        return tables;
    }

private:
    static PoseTables make() {
        PoseTables t{};
        std::vector<std::pair<int, int>> all;
        for (int i = -kPoseSteps; i <= kPoseSteps; ++i) {
            for (int j = -kPoseSteps; j <= kPoseSteps; ++j) all.emplace_back(i, j);
        }
        std::sort(all.begin(), all.end(), [](auto a, auto b) {
            const auto key = [](std::pair<int, int> p) {
                return std::tuple(std::max(std::abs(p.first), std::abs(p.second)),
                                  std::abs(p.first) + std::abs(p.second), p.first, p.second);
            };
            return key(a) < key(b);
        });
        for (int k = 0; k < PoseSet::kCount; ++k) {
            const auto [i, j] = all[static_cast<std::size_t>(k)];
            t.order[static_cast<std::size_t>(k)] = {i, j};
            for (int nu = std::abs(i); nu <= kPoseSteps; ++nu) {
                for (int nv = std::abs(j); nv <= kPoseSteps; ++nv) {
                    t.within[static_cast<std::size_t>(nu * (kPoseSteps + 1) + nv)].add(k);
                }
            }
            for (int lo = -kPoseSteps; lo <= kPoseSteps; ++lo) {
                for (int hi = lo; hi <= kPoseSteps; ++hi) {
                    if (lo <= i && i <= hi) t.columns[PoseSet::rangeIndex(lo, hi)].add(k);
                    if (lo <= j && j <= hi) t.rows[PoseSet::rangeIndex(lo, hi)].add(k);
                }
            }
        }
        return t;
    }
};

inline PoseSet PoseSet::within(int nu, int nv) {
    return PoseTables::get().within[static_cast<std::size_t>(nu * (kPoseSteps + 1) + nv)];
}

inline PoseSet PoseSet::rectangle(int i0, int i1, int j0, int j1) {
    if (i0 > i1 || j0 > j1) return {};
    const PoseTables& t = PoseTables::get();
    PoseSet s = t.columns[rangeIndex(i0, i1)];
    const PoseSet& rows = t.rows[rangeIndex(j0, j1)];
    for (std::size_t w = 0; w < kWords; ++w) s.mBits[w] &= rows.mBits[w];
    return s;
}

inline bool PoseSet::Cursor::next(int& i, int& j) {
    while (mWord < kWords && mBits[mWord] == 0) ++mWord;
    if (mWord == kWords) return false;
    const int k = static_cast<int>(mWord) * 64 + std::countr_zero(mBits[mWord]);
    mBits[mWord] &= mBits[mWord] - 1;
    const auto [oi, oj] = PoseTables::get().order[static_cast<std::size_t>(k)];
    i = oi;
    j = oj;
    return true;
}

}  // namespace terrabit::core::placement::detail
