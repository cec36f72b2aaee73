#include "terrabit/render/scene_file.h"
#include "scene_file_p.h"

#include <osg/Geode>
#include <osg/Geometry>
#include <osg/NodeVisitor>
#include <osg/Program>
#include <osg/TextureBuffer>
#include <osgDB/ObjectWrapper>
#include <osgDB/ReadFile>
#include <osgDB/Registry>
#include <osgDB/WriteFile>

#include <fcntl.h>
#include <libdeflate.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "instancing_p.h"
#include "terrabit/render/instanced_block.h"
#include "terrabit/render/instanced_elements.h"

namespace terrabit::render {

namespace {

/// Turns a copied graph's instanced blocks into plain OSG that osgDB writes completely: every
/// InstancedElements becomes a DrawArrays with the instance count over its model's arrays
/// unrolled by the model's indices, every transform buffer a float 2-D texture, and the
/// instancing program its 2-D texture twin. The copy's state sets are still the live graph's, so
/// changed ones are replaced by copies (one per original: a state set shared live stays shared in
/// the file).
///
/// Why unrolled: an instance count belongs to its primitive set, so each block needs a set of its
/// own. As a DrawElements that is a copy of the model's indices per block, which osgDB writes an
/// index at a time: a quarter of a group file's bytes before compression, and a tenth of its
/// time in stream writes. A DrawArrays is four numbers, and the unrolled arrays are written once
/// per model and file (the shipped models' triangles hardly share vertices: flat-shaded, their
/// unrolled arrays are about as long as the indexed ones).
class PlainInstancing : public osg::NodeVisitor {
public:
    PlainInstancing() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
    void apply(osg::Node& node) override {
        convert(node);
        traverse(node);
    }
    void apply(osg::Geometry& geometry) override {
        for (unsigned i = 0; i < geometry.getNumPrimitiveSets(); ++i) {
            const auto* instanced = dynamic_cast<const InstancedElements*>(geometry.getPrimitiveSet(i));
            if (!instanced) continue;
            if (geometry.getNumPrimitiveSets() == 1 && instanced->shared() && unroll(geometry, *instanced->shared())) {
                geometry.setPrimitiveSet(
                    0, new osg::DrawArrays(instanced->getMode(), 0, static_cast<GLsizei>(instanced->getNumIndices()),
                                           instanced->getNumInstances()));
            } else if (osg::ref_ptr<osg::DrawElements> plain = instanced->toDrawElements()) {
                geometry.setPrimitiveSet(i, plain.get());
            }
            // The bound callback is ours too; the explicit initial bound stays in the file.
            geometry.setComputeBoundingBoxCallback(nullptr);
        }
    }

private:
    /// Gives the geometry its per-vertex arrays unrolled by `indices` (each array once per
    /// indices, shared by every block of the model). False, the geometry untouched, when an
    /// index lies beyond an array.
    bool unroll(osg::Geometry& geometry, const osg::DrawElements& indices) {
        // Every array first (unrolledArray keeps what it made), so a failure changes nothing.
        osg::Geometry::ArrayList arrays;
        geometry.getArrayList(arrays);
        for (const osg::ref_ptr<osg::Array>& a : arrays) {
            if (!unrolledArray(indices, *a)) return false;
        }
        const auto unrolled = [&](osg::Array* a) { return a ? unrolledArray(indices, *a) : nullptr; };
        geometry.setVertexArray(unrolled(geometry.getVertexArray()));
        geometry.setNormalArray(unrolled(geometry.getNormalArray()));
        geometry.setColorArray(unrolled(geometry.getColorArray()));
        geometry.setSecondaryColorArray(unrolled(geometry.getSecondaryColorArray()));
        geometry.setFogCoordArray(unrolled(geometry.getFogCoordArray()));
        for (unsigned u = 0; u < geometry.getNumTexCoordArrays(); ++u) {
            geometry.setTexCoordArray(u, unrolled(geometry.getTexCoordArray(u)));
        }
        for (unsigned k = 0; k < geometry.getNumVertexAttribArrays(); ++k) {
            geometry.setVertexAttribArray(k, unrolled(geometry.getVertexAttribArray(k)));
        }
        return true;
    }

    /// `array` unrolled by `indices` when bound per vertex (made once per pair), else itself;
    /// nullptr when an index lies beyond it.
    osg::ref_ptr<osg::Array> unrolledArray(const osg::DrawElements& indices, osg::Array& array) {
        if (array.getBinding() != osg::Array::BIND_PER_VERTEX) return &array;
        const auto key = std::pair<const osg::DrawElements*, const osg::Array*>(&indices, &array);
        if (const auto done = mUnrolled.find(key); done != mUnrolled.end()) return done->second;
        const unsigned n = indices.getNumIndices();
        osg::ref_ptr<osg::Array> out = static_cast<osg::Array*>(array.cloneType());
        out->resizeArray(n);
        const unsigned size = array.getElementSize();
        const auto* from = static_cast<const unsigned char*>(array.getDataPointer());
        auto* to = static_cast<unsigned char*>(const_cast<GLvoid*>(out->getDataPointer()));
        for (unsigned k = 0; k < n; ++k) {
            const unsigned index = indices.index(k);
            if (index >= array.getNumElements()) return nullptr;
            std::memcpy(to + std::size_t{k} * size, from + std::size_t{index} * size, size);
        }
        out->setBinding(array.getBinding());
        out->setNormalize(array.getNormalize());
        mUnrolled.emplace(key, out);
        return out;
    }

    void convert(osg::Node& node) {
        osg::StateSet* state = node.getStateSet();
        if (!state) return;
        const auto done = mConverted.find(state);
        if (done != mConverted.end()) {
            node.setStateSet(done->second.get());
            return;
        }
        const auto* program = dynamic_cast<const osg::Program*>(state->getAttribute(osg::StateAttribute::PROGRAM));
        const bool live = program && program->getName() == detail::kInstancingProgramName;
        const auto* buffer = dynamic_cast<const osg::TextureBuffer*>(
            state->getTextureAttribute(kInstanceTextureUnit, osg::StateAttribute::TEXTURE));
        if (!live && !(buffer && buffer->getImage())) return;
        osg::ref_ptr<osg::StateSet> copy = new osg::StateSet(*state, osg::CopyOp::SHALLOW_COPY);
        if (live) copy->setAttributeAndModes(detail::fileInstancingProgram(), osg::StateAttribute::ON);
        if (buffer && buffer->getImage()) {
            copy->removeTextureAttribute(kInstanceTextureUnit, osg::StateAttribute::TEXTURE);
            // A 2-D texture is an enable cap, but the shader reads it whatever the mode.
            copy->setTextureAttribute(kInstanceTextureUnit, detail::fileTransformTexture(*buffer->getImage()));
        }
        mConverted.emplace(state, copy);
        node.setStateSet(copy.get());
    }

    std::map<const osg::StateSet*, osg::ref_ptr<osg::StateSet>> mConverted;
    std::map<std::pair<const osg::DrawElements*, const osg::Array*>, osg::ref_ptr<osg::Array>> mUnrolled;
};

class Counter : public osg::NodeVisitor {
public:
    Counter() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
    void apply(osg::Drawable& drawable) override {
        ++drawables;
        if (const osg::Geometry* g = drawable.asGeometry()) {
            for (unsigned i = 0; i < g->getNumPrimitiveSets(); ++i) {
                instances += static_cast<std::size_t>(std::max(1, g->getPrimitiveSet(i)->getNumInstances()));
            }
        }
    }
    std::size_t drawables = 0;
    std::size_t instances = 0;
};

core::Status flushToDisk(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return core::Error{"cannot open the written file to flush it: " + std::system_category().message(errno)};
    const int rc = ::fsync(fd);
    const int error = errno;
    ::close(fd);
    if (rc != 0) return core::Error{"cannot flush the written file to disk: " + std::system_category().message(error)};
    return core::Status::success();
}

/// The OS's reason for this thread's last failed write of compressed data (0: none): osgDB
/// reports only "Failed to compress stream", and a full disk should say so.
thread_local int tCompressedWriteError = 0;

/// osgDB's "zlib" compressor with libdeflate doing the compressing: the same gzip stream (any
/// osgDB reads it with its own zlib), written in one call at a fraction of zlib's time, which
/// was half of an osgb export. Reading stays osgDB's.
class DeflateCompressor : public osgDB::BaseCompressor {
public:
    explicit DeflateCompressor(osgDB::BaseCompressor* zlib) : mZlib(zlib) { setName("zlib"); }

    bool compress(std::ostream& out, const std::string& src) override {
        thread_local const std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)> compressor(
            libdeflate_alloc_compressor(kLevel), libdeflate_free_compressor);
        if (!compressor) return false;
        // Left uninitialised: a group's bound is tens of MB in fresh pages, and zeroing them
        // cost the kernel and memset more than compressing them (only the packed bytes, a few
        // times fewer, are ever touched).
        const std::size_t bound = libdeflate_gzip_compress_bound(compressor.get(), src.size());
        const auto packed = std::make_unique_for_overwrite<char[]>(bound);
        const std::size_t size =
            libdeflate_gzip_compress(compressor.get(), src.data(), src.size(), packed.get(), bound);
        if (size == 0) return false;
        errno = 0;
        out.write(packed.get(), static_cast<std::streamsize>(size));
        if (out.fail()) tCompressedWriteError = errno;
        return !out.fail();
    }
    bool decompress(std::istream& in, std::string& target) override { return mZlib->decompress(in, target); }

private:
    /// Below osgDB's 6: the stream is mostly vertex arrays and float instance textures, where
    /// the extra search buys little. monaco-region's osgb (2 cores, 2026-12-05, two runs each):
    /// level 6 took 9.5 and 8.9 s of CPU for 120.0 MB, 4 took 8.2 and 7.9 s for 122.2 MB (+1.9 %),
    /// 1 took 7.3 s for 137.0 MB (+14 %).
    static constexpr int kLevel = 4;
    osg::ref_ptr<osgDB::BaseCompressor> mZlib;
};

/// Puts DeflateCompressor in osgDB's "zlib" place, once.
void useDeflateCompressor() {
    static std::once_flag once;
    std::call_once(once, [] {
        osgDB::ObjectWrapperManager* manager = osgDB::Registry::instance()->getObjectWrapperManager();
        osgDB::BaseCompressor* zlib = manager->findCompressor("zlib");
        if (!zlib) return;  // an osgDB without zlib: it refuses the option as before
        manager->getCompressorMap()["zlib"] = new DeflateCompressor(zlib);
    });
}

std::string lowerExtension(const std::filesystem::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

}  // namespace

core::Status writeSceneFile(const osg::Node& graph, const std::filesystem::path& file) {
    const std::string ext = lowerExtension(file);
    if (ext != ".osgb" && ext != ".osgt") {
        return core::Error{file.string() + ": unknown scene file type '" + ext + "' (expected .osgb or .osgt)"};
    }
    // Nodes and drawables are copied (arrays, images and state stay shared), so swapping the
    // instancing primitive sets leaves the live graph alone.
    osg::ref_ptr<osg::Node> copy =
        static_cast<osg::Node*>(graph.clone(osg::CopyOp::DEEP_COPY_NODES | osg::CopyOp::DEEP_COPY_DRAWABLES));
    PlainInstancing plain;
    copy->accept(plain);

    const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    // The temporary keeps the extension: osgDB picks the writer by it.
    const std::filesystem::path temp =
        dir / ("." + file.stem().string() + ".partial-" + std::to_string(::getpid()) + ext);
    // Binary files are zlib-compressed (osgDB's own compressor; readers need no option): the
    // embedded ground images are most of a scene's bytes and compress about tenfold.
    if (ext == ".osgb") useDeflateCompressor();
    osg::ref_ptr<osgDB::Options> options = new osgDB::Options(
        ext == ".osgb" ? "WriteImageHint=IncludeData Compressor=zlib" : "WriteImageHint=IncludeData");
    tCompressedWriteError = 0;
    const osgDB::ReaderWriter::WriteResult result =
        osgDB::Registry::instance()->writeNode(*copy, temp.string(), options);
    std::error_code ec;
    if (!result.success()) {
        std::filesystem::remove(temp, ec);
        if (tCompressedWriteError != 0) {
            return core::ioError(file.string() +
                                 ": cannot write it: " + std::system_category().message(tCompressedWriteError));
        }
        std::string why = result.message();
        if (why.empty()) {
            why = result.status() == osgDB::ReaderWriter::WriteResult::FILE_NOT_HANDLED
                      ? "no osgDB plugin writes " + ext + " (is Debian's openscenegraph package installed?)"
                      : "osgDB could not write it";
        }
        return core::Error{file.string() + ": " + why};
    }
    // Flushed before the rename, as every export flushes its files: a crash right after it must
    // not leave the new name on an empty file.
    if (core::Status s = flushToDisk(temp); !s) {
        std::filesystem::remove(temp, ec);
        return core::Error{file.string() + ": " + s.message()};
    }
    std::filesystem::rename(temp, file, ec);
    if (ec) {
        std::filesystem::remove(temp, ec);
        return core::Error{file.string() + ": cannot move the written file into place: " + ec.message()};
    }
    return core::Status::success();
}

core::Result<osg::ref_ptr<osg::Node>> readSceneFile(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return core::Error{file.string() + ": no such file"};
    osgDB::ReaderWriter::ReadResult result = osgDB::Registry::instance()->readNode(file.string(), nullptr);
    osg::ref_ptr<osg::Node> node = result.getNode();
    if (!node) {
        return core::Error{file.string() + ": osgDB could not read it" +
                           (result.message().empty() ? std::string() : ": " + result.message())};
    }
    return node;
}

std::size_t countDrawables(const osg::Node& graph) {
    Counter counter;
    const_cast<osg::Node&>(graph).accept(counter);
    return counter.drawables;
}

std::size_t countInstances(const osg::Node& graph) {
    Counter counter;
    const_cast<osg::Node&>(graph).accept(counter);
    return counter.instances;
}

}  // namespace terrabit::render
