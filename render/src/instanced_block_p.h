#pragma once
/// Internal to render: what only the tests ask of instanced_block.h (not API; the tests include it
/// from the source folder).

#include <osg/Geometry>

#include <array>
#include <cstddef>
#include <span>

#include "instancing_p.h"

namespace terrabit::render {

/// The per-instance transforms of an instanced block's geometry as its texels hold them
/// (detail::kFloatsPerInstance floats per instance, see instanceMatrix), read back from its
/// texture buffer (or, in a graph read from a file, its float texture); empty when the geometry
/// has none.
std::span<const float> instanceTransforms(const osg::Geometry& geometry);

/// The 4 × 4 transform (column-major) of instance `k` of instanceTransforms' floats.
std::array<float, 16> instanceMatrix(std::span<const float> transforms, std::size_t k);

}  // namespace terrabit::render
