// Instanced blocks: one drawable per block that shares the model's arrays and indices, per-
// instance matrices in the texture buffer equal to OSG's own composition of the instance's
// translate, turn and scale, and an explicit bound that holds every transformed vertex and
// not the model's origin.

#include "terrabit/render/instanced_block.h"

#include <gtest/gtest.h>
#include <osg/Matrixf>
#include <osg/TextureBuffer>

#include <cmath>
#include <random>

#include "instanced_block_p.h"
#include "render_test_support.h"
#include "terrabit/render/instanced_elements.h"

namespace terrabit::render {
namespace {

std::vector<core::Instance> randomInstances(int n, unsigned seed, float spread) {
    std::mt19937 rng(seed);  // local and seeded: the test is the same every run
    std::uniform_real_distribution<float> pos(-spread, spread), yaw(-3.2f, 3.2f), scale(0.5f, 2.0f);
    std::vector<core::Instance> out(static_cast<std::size_t>(n));
    for (core::Instance& in : out) {
        in.position = {1000.0f + pos(rng), pos(rng) * 0.01f, -2000.0f + pos(rng)};
        in.yaw = yaw(rng);
        in.scale = {scale(rng), scale(rng), scale(rng)};
    }
    return out;
}

/// The instance transform as OSG composes it (row vectors: v · S · R · T), independent of core.
osg::Matrixf osgTransform(const core::Instance& in) {
    return osg::Matrixf::scale(in.scale.x, in.scale.y, in.scale.z) * osg::Matrixf::rotate(in.yaw, osg::Vec3f(0, 1, 0)) *
           osg::Matrixf::translate(in.position.x, in.position.y, in.position.z);
}

AssetModel oak() {
    AssetModelCache cache;
    auto model = cache.model(*test::shippedCatalogue().find("broadleaf_oak"));
    EXPECT_TRUE(model) << model.message();
    return model ? *model : AssetModel();
}

TEST(InstancedBlock, OneDrawableSharesTheModelsArraysAndIndices) {
    const AssetModel model = oak();
    const auto instances = randomInstances(250, 1, 40.0f);
    osg::ref_ptr<osg::Geode> block = makeInstancedBlock(model, instances);
    ASSERT_TRUE(block);
    ASSERT_EQ(block->getNumDrawables(), 1u);
    const osg::Geometry* g = block->getDrawable(0)->asGeometry();
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->getVertexArray(), model.geometry()->getVertexArray());
    EXPECT_EQ(g->getNormalArray(), model.geometry()->getNormalArray());
    EXPECT_EQ(g->getColorArray(), model.geometry()->getColorArray());
    ASSERT_EQ(g->getNumPrimitiveSets(), 1u);
    const auto* elements = dynamic_cast<const InstancedElements*>(g->getPrimitiveSet(0));
    ASSERT_NE(elements, nullptr);
    EXPECT_EQ(elements->getNumInstances(), 250);
    EXPECT_EQ(elements->shared(), model.geometry()->getPrimitiveSet(0)->getDrawElements()) << "indices not copied";
    EXPECT_EQ(elements->getNumIndices(), model.triangleCount() * 3);
    EXPECT_FALSE(g->getUseDisplayList());
    EXPECT_TRUE(g->getUseVertexBufferObjects());
    // The transforms sit on the block, attached without modes (no glEnable of a buffer texture).
    const osg::StateSet* state = block->getStateSet();
    ASSERT_NE(state, nullptr);
    EXPECT_NE(dynamic_cast<const osg::TextureBuffer*>(
                  state->getTextureAttribute(kInstanceTextureUnit, osg::StateAttribute::TEXTURE)),
              nullptr);
    EXPECT_TRUE(state->getTextureModeList().empty());
}

TEST(InstancedBlock, TransformBufferHoldsOsgsCompositionOfEachInstance) {
    const AssetModel model = oak();
    const auto instances = randomInstances(64, 2, 40.0f);
    osg::ref_ptr<osg::Geode> block = makeInstancedBlock(model, instances);
    ASSERT_TRUE(block);
    const std::span<const float> texels = instanceTransforms(*block->getDrawable(0)->asGeometry());
    ASSERT_EQ(texels.size(), instances.size() * detail::kFloatsPerInstance);
    for (std::size_t i = 0; i < instances.size(); ++i) {
        // osg::Matrixf stores row vectors, so its rows are OpenGL's columns: the same 16 floats.
        const osg::Matrixf expected = osgTransform(instances[i]);
        const std::array<float, 16> m = instanceMatrix(texels, i);
        for (int k = 0; k < 16; ++k) {
            EXPECT_NEAR(m[static_cast<std::size_t>(k)], expected.ptr()[k], 1e-3f)
                << "instance " << i << " element " << k;
        }
        // The shader's matrix is core's, float for float.
        EXPECT_EQ(m, core::transformMatrix(instances[i])) << "instance " << i;
    }
}

TEST(InstancedBlock, BoundHoldsEveryTransformedVertexAndNotTheOrigin) {
    const AssetModel model = oak();
    const auto instances = randomInstances(40, 3, 30.0f);
    osg::ref_ptr<osg::Geode> block = makeInstancedBlock(model, instances);
    ASSERT_TRUE(block);
    const osg::BoundingBox box = block->getDrawable(0)->getBoundingBox();
    ASSERT_TRUE(box.valid());
    const auto* vertices = dynamic_cast<const osg::Vec3Array*>(model.geometry()->getVertexArray());
    ASSERT_NE(vertices, nullptr);
    osg::BoundingBox reference;
    for (const core::Instance& in : instances) {
        const osg::Matrixf m = osgTransform(in);
        for (const osg::Vec3f& v : *vertices) reference.expandBy(v * m);
    }
    // Every vertex inside; the bound no looser than the model's box allows (its corners turn).
    const float slack = 1e-3f;
    EXPECT_LE(box.xMin(), reference.xMin() + slack);
    EXPECT_LE(box.yMin(), reference.yMin() + slack);
    EXPECT_LE(box.zMin(), reference.zMin() + slack);
    EXPECT_GE(box.xMax(), reference.xMax() - slack);
    EXPECT_GE(box.yMax(), reference.yMax() - slack);
    EXPECT_GE(box.zMax(), reference.zMax() - slack);
    const float diagonal = (reference._max - reference._min).length();
    EXPECT_LT((box._max - box._min).length(), diagonal * 1.5f);
    // OSG's default would add the untransformed model at the origin, 2 km away.
    EXPECT_FALSE(box.contains(osg::Vec3(0, 0, 0)));
}

TEST(InstancedBlock, GivenBlockBoundsAreUsedAsTheyAre) {
    const AssetModel model = oak();
    const auto instances = randomInstances(3, 4, 5.0f);
    core::Box3f given;
    given.extend(core::Vec3f{990.0f, 0.0f, -2010.0f});
    given.extend(core::Vec3f{1010.0f, 20.0f, -1990.0f});
    osg::ref_ptr<osg::Geode> block = makeInstancedBlock(model, instances, given);
    ASSERT_TRUE(block);
    const osg::BoundingBox box = block->getDrawable(0)->getBoundingBox();
    EXPECT_FLOAT_EQ(box.xMin(), 990.0f);
    EXPECT_FLOAT_EQ(box.zMax(), -1990.0f);
    EXPECT_FLOAT_EQ(box.yMax(), 20.0f);
}

TEST(InstancedBlock, NoInstancesOrNoModelMakeNothing) {
    EXPECT_FALSE(makeInstancedBlock(oak(), {}));
    const auto instances = randomInstances(3, 5, 5.0f);
    EXPECT_FALSE(makeInstancedBlock(AssetModel(), instances));
}

TEST(InstancedBlock, PlainCopyForFilesKeepsIndicesAndInstanceCount) {
    const AssetModel model = oak();
    const osg::DrawElements* shared = model.geometry()->getPrimitiveSet(0)->getDrawElements();
    osg::ref_ptr<InstancedElements> elements = new InstancedElements(shared, 17);
    osg::ref_ptr<osg::DrawElements> plain = elements->toDrawElements();
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->getNumInstances(), 17);
    ASSERT_EQ(plain->getNumIndices(), shared->getNumIndices());
    for (unsigned i = 0; i < shared->getNumIndices(); ++i) ASSERT_EQ(plain->index(i), shared->index(i));
    EXPECT_EQ(plain->getBufferObject(), nullptr) << "a file's copy does not share the live buffer object";
}

}  // namespace
}  // namespace terrabit::render
