#pragma once
/// GPU instancing of one model within one block: one osg::Geometry sharing the model's vertex
/// arrays and indices, drawn with one glDrawElementsInstanced whose per-instance transforms come
/// from a texture buffer (a samplerBuffer read with texelFetch at gl_InstanceID * 4; measured
/// facts on Debian 12 with Mesa llvmpipe: GLSL 330 compatibility, setTextureAttribute, VBOs on, display lists
/// off, an explicit bound per block).

#include <osg/BoundingBox>
#include <osg/Geode>
#include <osg/StateSet>
#include <osg/TextureBuffer>
#include <osg/ref_ptr>

#include <span>

#include "terrabit/core/scene/scene.h"
#include "terrabit/render/asset_model.h"

namespace terrabit::render {

/// The texture unit of the per-instance transform buffer.
inline constexpr int kInstanceTextureUnit = 1;
/// The name of the samplerBuffer uniform holding the transforms.
inline constexpr const char* kInstanceSamplerName = "terrabitInstances";

/// The state every instanced block shares: the instancing shader program (vertex colours lit by
/// light 0 and the light model's ambient, as fixed-function lighting does for the ground) and
/// the sampler uniform. Put it on the group above the blocks. A new state set per call; the
/// program inside is one shared object.
osg::ref_ptr<osg::StateSet> makeInstancingStateSet();

/// The bounds of the instances' transformed model boxes, metres, scene frame; invalid for none.
osg::BoundingBox instanceBounds(const core::ModelBounds& model, std::span<const core::Instance> instances);

/// One instanced draw of `model` for `instances`: a Geode holding one Geometry with the model's
/// arrays and state, an InstancedElements of the model's indices with the instance count, a
/// TextureBuffer (RGBA32F, four texels per instance: the columns of core::transformMatrix) on
/// kInstanceTextureUnit, and an explicit bound: `bounds` when it is not empty, else
/// instanceBounds(). nullptr for an empty model or no instances.
osg::ref_ptr<osg::Geode> makeInstancedBlock(const AssetModel& model, std::span<const core::Instance> instances,
                                            const core::Box3f& bounds = {});

/// The instances' transforms as makeInstancedBlock's texture buffer holds them.
osg::ref_ptr<osg::TextureBuffer> instanceTransformBuffer(std::span<const core::Instance> instances);

/// makeInstancedBlock reading the transforms from `transforms` (instanceTransformBuffer of
/// these very instances): models drawn for the same instances (a plant and its impostor
/// cards) share one buffer, in memory and on the GPU.
osg::ref_ptr<osg::Geode> makeInstancedBlock(const AssetModel& model, std::span<const core::Instance> instances,
                                            const core::Box3f& bounds, osg::ref_ptr<osg::TextureBuffer> transforms);

}  // namespace terrabit::render
