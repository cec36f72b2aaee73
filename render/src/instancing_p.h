#pragma once
// Private: the two forms of instanced blocks' state. The live graph reads transforms from a
// texture buffer; files carry them in a float 2-D texture instead, since osgDB writes a texture
// buffer without its data (measured: the image's properties are written, its floats are not).

#include <osg/Image>

#include <array>
#include <osg/Program>
#include <osg/Texture2D>
#include <osg/ref_ptr>

namespace terrabit::render::detail {

/// The name of the live instancing program (samplerBuffer), to find it in a graph.
inline constexpr const char* kInstancingProgramName = "terrabit instancing";
/// The name of the files' instancing program (sampler2D).
inline constexpr const char* kFileInstancingProgramName = "terrabit instancing (texture)";

/// Texels (RGBA32F) per instance in a transform buffer or texture: the translation and the height
/// scale, then the yaw's cosine and sine times the width and depth scales (see instanced_block.cpp).
inline constexpr int kTexelsPerInstance = 2;
inline constexpr std::size_t kFloatsPerInstance = 4 * kTexelsPerInstance;

/// Writes the texels of an instance whose transform is `m` (core::transformMatrix: T · Ry · S,
/// column-major) to `out`; returns the float after them.
float* packTransform(const std::array<float, 16>& m, float* out);

/// The instancing program reading transforms from a 2-D float texture on kInstanceTextureUnit.
osg::ref_ptr<osg::Program> fileInstancingProgram();

/// The 2-D float texture a file carries for a texture buffer's image (kTexelsPerInstance · n × 1
/// RGBA32F texels): whole instances per row, nearest filtering, never resized.
osg::ref_ptr<osg::Texture2D> fileTransformTexture(const osg::Image& buffer);

}  // namespace terrabit::render::detail
