#include "terrabit/render/instanced_elements.h"

#include <osg/State>

namespace terrabit::render {

std::atomic<std::uint64_t> InstancedElements::sDrawCount{0};

namespace {

GLenum indexTypeOf(const osg::DrawElements* e) {
    if (dynamic_cast<const osg::DrawElementsUByte*>(e)) return GL_UNSIGNED_BYTE;
    if (dynamic_cast<const osg::DrawElementsUShort*>(e)) return GL_UNSIGNED_SHORT;
    if (dynamic_cast<const osg::DrawElementsUInt*>(e)) return GL_UNSIGNED_INT;
    return 0;
}

template <class T>
osg::ref_ptr<osg::DrawElements> copyAs(const osg::DrawElements* shared, int instances) {
    const auto* typed = static_cast<const T*>(shared);
    osg::ref_ptr<T> copy = new T(*typed, osg::CopyOp::SHALLOW_COPY);
    // The copy must not share the live element buffer object: a file's reader makes its own.
    copy->setBufferObject(nullptr);
    copy->setNumInstances(instances);
    return copy;
}

}  // namespace

InstancedElements::InstancedElements() : osg::PrimitiveSet(PrimitiveType, GL_TRIANGLES, 0) {}

InstancedElements::InstancedElements(const osg::DrawElements* shared, int instances)
    : osg::PrimitiveSet(PrimitiveType, shared ? shared->getMode() : GL_TRIANGLES, instances),
      mShared(shared),
      mIndexType(indexTypeOf(shared)) {
    if (mIndexType == 0) mShared = nullptr;
}

InstancedElements::InstancedElements(const InstancedElements& other, const osg::CopyOp& copyop)
    : osg::PrimitiveSet(other, copyop), mShared(other.mShared), mIndexType(other.mIndexType) {}

void InstancedElements::draw(osg::State& state, bool useVertexBufferObjects) const {
    if (!mShared || _numInstances < 1 || mShared->getNumIndices() == 0) return;
    const auto count = static_cast<GLsizei>(mShared->getNumIndices());
    osg::GLBufferObject* ebo =
        useVertexBufferObjects ? mShared->getOrCreateGLBufferObject(state.getContextID()) : nullptr;
    if (ebo) {
        // Binding compiles the shared buffer the first time any block of this model is drawn;
        // every later block of the model reuses it.
        state.getCurrentVertexArrayState()->bindElementBufferObject(ebo);
        const auto offset = static_cast<std::uintptr_t>(ebo->getOffset(mShared->getBufferIndex()));
        state.glDrawElementsInstanced(_mode, count, mIndexType, reinterpret_cast<const GLvoid*>(offset), _numInstances);
    } else {
        state.getCurrentVertexArrayState()->unbindElementBufferObject();
        state.glDrawElementsInstanced(_mode, count, mIndexType, mShared->getDataPointer(), _numInstances);
    }
    sDrawCount.fetch_add(1, std::memory_order_relaxed);
}

void InstancedElements::accept(osg::PrimitiveFunctor& functor) const {
    if (mShared) mShared->accept(functor);
}

void InstancedElements::accept(osg::PrimitiveIndexFunctor& functor) const {
    if (mShared) mShared->accept(functor);
}

unsigned int InstancedElements::index(unsigned int pos) const { return mShared ? mShared->index(pos) : 0u; }

unsigned int InstancedElements::getNumIndices() const { return mShared ? mShared->getNumIndices() : 0u; }

unsigned int InstancedElements::getNumPrimitives() const { return mShared ? mShared->getNumPrimitives() : 0u; }

osg::ref_ptr<osg::DrawElements> InstancedElements::toDrawElements() const {
    switch (mIndexType) {
        case GL_UNSIGNED_BYTE:
            return copyAs<osg::DrawElementsUByte>(mShared.get(), _numInstances);
        case GL_UNSIGNED_SHORT:
            return copyAs<osg::DrawElementsUShort>(mShared.get(), _numInstances);
        case GL_UNSIGNED_INT:
            return copyAs<osg::DrawElementsUInt>(mShared.get(), _numInstances);
        default:
            return nullptr;
    }
}

}  // namespace terrabit::render
