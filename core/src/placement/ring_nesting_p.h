#pragma once
// Private to core: whether rings make a valid polygonal shape, and which ring holds which:
// SurfaceShaper's check of BufferUnion's rings before it hands them to GEOS, in place of GEOS's
// isValid (which took a seventh of a surface build). It asks more than GEOS does: no ring may
// touch another, nor itself, even at a point. A shape that fails is united by GEOS instead, so
// asking more costs time on a few tiles, never a wrong shape.
//
// The rings' edges go into a uniform grid, and every two in a cell must lie apart; then a ray
// from each ring's first corner, westward, counts the crossings of every other ring's edges (in
// horizontal bands): the rings crossed an odd number of times hold it, the smallest of them is
// its parent.

#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/geometry.h"

namespace terrabit::core::placement::detail {

class RingNesting {
public:
    /// The ring that directly holds each ring (the smallest around it, -1 for none) into
    /// `parent`, when the rings (each open, its end index in `ringEnds`, as SurfaceShape's) are
    /// simple and pairwise apart (no two edges closer than kApart but a ring's neighbouring
    /// edges at their common corner, and those not folding back) and nest as a valid shape's:
    /// shells turn counter-clockwise (x right, y up terms) and lie in no ring or in a hole,
    /// holes turn clockwise and lie in a shell. False otherwise. Allocates only while its
    /// scratch grows.
    bool nest(std::span<const Vec2> outline, std::span<const std::uint32_t> ringEnds, std::vector<int>& parent);

    /// Whether ring r of the last nest() that returned true is a shell.
    bool isShell(std::size_t r) const { return mRings[r].twiceArea > 0.0; }

    /// How far apart (cells) two edges must lie.
    static constexpr double kApart = 1e-9;

private:
    struct Ring {
        std::uint32_t begin, end;
        double twiceArea;  ///< signed: shells positive
        Box2 box;
    };
    std::vector<Ring> mRings;
    std::vector<std::uint32_t> mEdgeRing;  ///< per corner: its ring (the edge from it to the next)
    std::vector<std::uint32_t> mNext;      ///< per corner: the next corner of its ring
    std::vector<Box2> mEdgeBoxes;          ///< per corner: its edge's box, padded by kApart
    std::vector<std::uint32_t> mCellStart, mCellItems;
    std::vector<std::uint32_t> mBandStart, mBandItems;
    std::vector<std::uint32_t> mCrossings;  ///< per ring, for one ray
    std::vector<std::uint32_t> mTouched;    ///< the rings a ray crossed
};

}  // namespace terrabit::core::placement::detail
