#pragma once
/// Internal to render: what only the tests ask of instanced_block.h (not API; the tests include it
/// from the source folder).

#include <osg/Geometry>

#include <span>

namespace terrabit::render {

/// The per-instance transforms of an instanced block's geometry (16 floats per instance,
/// column-major), read back from its texture buffer (or, in a graph read from a file, its float
/// texture); empty when the geometry has none.
std::span<const float> instanceTransforms(const osg::Geometry& geometry);

}  // namespace terrabit::render
