#pragma once
/// InstancedElements: an instanced draw of another primitive set's indices. Every block of a
/// scene draws the same model, so every block's geometry shares the model's vertex arrays and,
/// through this primitive set, its index buffer too: a block costs its instance transforms and a
/// few hundred bytes of OSG objects, not a copy of the model's indices (1,000,000 trees in 30,000
/// blocks would otherwise copy the indices 30,000 times).

#include <osg/PrimitiveSet>
#include <osg/ref_ptr>

#include <atomic>
#include <cstdint>

namespace terrabit::render {

/// Draws the shared indices `numInstances` times with one glDrawElementsInstanced. It uses the
/// shared primitive set's element buffer object, so the model's geometry must use vertex buffer
/// objects (AssetModel's does). OSG's statistics see one drawable with the shared model's
/// primitives; osgDB cannot write this class, so writeSceneFile replaces it with a plain copy.
class InstancedElements : public osg::PrimitiveSet {
public:
    /// No shared indices: draws nothing.
    InstancedElements();
    /// Draws `shared` (a DrawElementsUByte/UShort/UInt of the model's geometry) `instances` times.
    InstancedElements(const osg::DrawElements* shared, int instances);
    InstancedElements(const InstancedElements& other, const osg::CopyOp& copyop = osg::CopyOp::SHALLOW_COPY);

    osg::Object* cloneType() const override { return new InstancedElements(); }
    osg::Object* clone(const osg::CopyOp& copyop) const override { return new InstancedElements(*this, copyop); }
    bool isSameKindAs(const osg::Object* obj) const override {
        return dynamic_cast<const InstancedElements*>(obj) != nullptr;
    }
    const char* libraryName() const override { return "terrabit"; }
    const char* className() const override { return "InstancedElements"; }

    /// The shared indices.
    const osg::DrawElements* shared() const { return mShared.get(); }

    /// One glDrawElementsInstanced of the shared element buffer.
    void draw(osg::State& state, bool useVertexBufferObjects) const override;
    /// Forwards to the shared indices (one instance's worth: what OSG's statistics count).
    void accept(osg::PrimitiveFunctor& functor) const override;
    void accept(osg::PrimitiveIndexFunctor& functor) const override;
    unsigned int index(unsigned int pos) const override;
    unsigned int getNumIndices() const override;
    unsigned int getNumPrimitives() const override;
    /// Indices are shared and immutable here: does nothing.
    void offsetIndices(int) override {}

    /// A plain DrawElements copy of the shared indices with this set's instance count, for
    /// writing to a file; nullptr when there are no shared indices.
    osg::ref_ptr<osg::DrawElements> toDrawElements() const;

    /// glDrawElementsInstanced calls made by every InstancedElements since the process started:
    /// a diagnostic counter independent of OSG's statistics (tests compare the two).
    static std::uint64_t drawCount() { return sDrawCount.load(std::memory_order_relaxed); }

protected:
    ~InstancedElements() override = default;

private:
    osg::ref_ptr<const osg::DrawElements> mShared;
    GLenum mIndexType = 0;
    static std::atomic<std::uint64_t> sDrawCount;
};

}  // namespace terrabit::render
