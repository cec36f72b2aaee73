#pragma once
// Private to core: the triangulation of the real-shape surfaces (SurfaceShaper) and of generated
// buildings' roofs around their courtyards (generated_building_mesh.cpp).

#include <memory>
#include <span>
#include <vector>

#include "terrabit/core/geometry.h"

namespace terrabit::core::placement::detail {

/// Ear-cutting triangulation of a polygon with holes, after Mapbox's earcut (ISC licence): holes
/// joined to the shell by bridges, then ears clipped in z-order with an index of the reflex
/// corners' neighbours, and for what is left the same three fallbacks (drop collinear corners,
/// cure local self-intersections, split in two). On the kSurfaceGridCells grid in 0..256 every
/// orientation test below is exact in doubles (differences of 24-bit values, products of 48).
class EarCutter {
public:
    EarCutter();
    ~EarCutter();
    EarCutter(const EarCutter&) = delete;
    EarCutter& operator=(const EarCutter&) = delete;

    /// Triangulates the rings (the first is the shell; open, no repeated corners) into `out`
    /// as corner triples in the rings' orientation. False when the scratch bound is exceeded
    /// (the caller checks the result anyway). Allocates only while its scratch grows.
    bool cut(std::span<const std::span<const Vec2>> rings, std::vector<Vec2>& out);

private:
    class Impl;
    std::unique_ptr<Impl> mImpl;
};

}  // namespace terrabit::core::placement::detail
