#include "terrabit/render/asset_model.h"

#include <osg/CullFace>
#include <osg/Material>
#include <osg/PrimitiveSet>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "terrabit/core/assets/impostor.h"

namespace terrabit::render {

AssetModel AssetModel::fromMesh(const core::AssetMesh& mesh, Impostor impostor) {
    AssetModel model = build(mesh, true);
    if (impostor == Impostor::None) return model;
    // Only a model drawn as instances stands as a far box (a tile's own mesh never does): its
    // colours are not worth a walk over a tile's generated buildings.
    model.mFacade = core::facadeColours(mesh, core::kStoneFacade);
    const core::AssetMesh cards = core::crossCardImpostor(mesh);
    if (!cards.empty()) model.mImpostor = std::make_shared<const AssetModel>(build(cards, false));
    return model;
}

const AssetModel& AssetModel::impostor() const {
    static const AssetModel none;
    return mImpostor ? *mImpostor : none;
}

AssetModel AssetModel::build(const core::AssetMesh& mesh, bool cullBackFaces) {
    AssetModel model;
    const std::size_t n = mesh.vertexCount();
    osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array(static_cast<unsigned>(n));
    // Normals as signed bytes and colours as unsigned bytes, both normalised by GL (as glTF's
    // KHR_mesh_quantization stores normals): 7 bytes a vertex instead of 28. A country's
    // generated buildings held 0.48 GB of vertices in the viewport with floats.
    osg::ref_ptr<osg::Vec3bArray> normals = new osg::Vec3bArray(static_cast<unsigned>(n));
    osg::ref_ptr<osg::Vec4ubArray> colours = new osg::Vec4ubArray(static_cast<unsigned>(n));
    normals->setNormalize(true);
    colours->setNormalize(true);
    const auto toByte = [](float v) {
        return static_cast<signed char>(std::lround(std::clamp(v, -1.0f, 1.0f) * 127.0f));
    };
    const auto toUnsignedByte = [](double v) {
        return static_cast<unsigned char>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
    };
    const bool haveNormals = mesh.normals.size() == n * 3;
    const bool haveColours = mesh.colours.size() == n * 4;
    osg::Vec4ub srgb;  // the last colour converted
    for (std::size_t i = 0; i < n; ++i) {
        (*vertices)[i].set(mesh.positions[i * 3], mesh.positions[i * 3 + 1], mesh.positions[i * 3 + 2]);
        if (haveNormals) {
            (*normals)[i].set(toByte(mesh.normals[i * 3]), toByte(mesh.normals[i * 3 + 1]),
                              toByte(mesh.normals[i * 3 + 2]));
        } else {
            (*normals)[i].set(0, 127, 0);
        }
        if (haveColours) {
            // Runs of vertices share a colour (a face's corners, a wall's panels): the conversion,
            // three pow calls, is made once per run (compared bit for bit: -0 is not 0 here). A
            // tile's generated buildings are built on the UI thread as they come into view.
            const float* rgba = &mesh.colours[i * 4];
            if (i == 0 || std::memcmp(rgba, rgba - 4, 3 * sizeof(float)) != 0) {
                srgb.set(toUnsignedByte(core::linearToSrgb(rgba[0])), toUnsignedByte(core::linearToSrgb(rgba[1])),
                         toUnsignedByte(core::linearToSrgb(rgba[2])), 255);
            }
            (*colours)[i].set(srgb.r(), srgb.g(), srgb.b(), toUnsignedByte(rgba[3]));
        } else {
            (*colours)[i].set(255, 255, 255, 255);
        }
    }
    osg::ref_ptr<osg::Geometry> geometry = new osg::Geometry;
    geometry->setVertexArray(vertices);
    geometry->setNormalArray(normals, osg::Array::BIND_PER_VERTEX);
    geometry->setColorArray(colours, osg::Array::BIND_PER_VERTEX);
    // 16-bit indices when they fit: half the index memory for every shipped model.
    if (n <= 0xFFFF) {
        osg::ref_ptr<osg::DrawElementsUShort> triangles = new osg::DrawElementsUShort(GL_TRIANGLES);
        triangles->reserve(mesh.indices.size());
        for (std::uint32_t i : mesh.indices) triangles->push_back(static_cast<GLushort>(i));
        geometry->addPrimitiveSet(triangles);
    } else {
        osg::ref_ptr<osg::DrawElementsUInt> triangles = new osg::DrawElementsUInt(GL_TRIANGLES);
        triangles->reserve(mesh.indices.size());
        for (std::uint32_t i : mesh.indices) triangles->push_back(i);
        geometry->addPrimitiveSet(triangles);
    }
    // Instanced drawing needs VBOs; display lists would freeze the instance count.
    geometry->setUseDisplayList(false);
    geometry->setUseVertexBufferObjects(true);

    osg::StateSet* state = geometry->getOrCreateStateSet();
    osg::ref_ptr<osg::Material> material = new osg::Material;
    material->setColorMode(osg::Material::AMBIENT_AND_DIFFUSE);
    material->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
    state->setAttributeAndModes(material, osg::StateAttribute::ON);
    // Cards are seen from both sides; a back face keeps its front's (upward) normal.
    state->setAttributeAndModes(new osg::CullFace(osg::CullFace::BACK),
                                cullBackFaces ? osg::StateAttribute::ON : osg::StateAttribute::OFF);

    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->addDrawable(geometry);

    model.mGeometry = geometry;
    model.mNode = geode;
    model.mVertexCount = n;
    model.mTriangleCount = mesh.triangleCount();
    model.mBounds = mesh.bounds();
    return model;
}

core::Result<AssetModel> AssetModel::load(const std::filesystem::path& file) {
    core::Result<core::AssetMesh> mesh = core::readAssetMesh(file);
    if (!mesh) return mesh.error();
    return fromMesh(*mesh);
}

core::Result<AssetModel> AssetModelCache::model(const core::AssetInfo& info) { return model(info.path); }

core::Result<AssetModel> AssetModelCache::model(const std::filesystem::path& file) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(file, ec);
    const std::string key = (ec ? file : absolute).lexically_normal().string();
    {
        const std::lock_guard lock(mMutex);
        const auto it = mModels.find(key);
        if (it != mModels.end()) return it->second;
    }
    // Read outside the lock: a slow file must not stall other threads' cache hits. Two threads
    // racing for the same new file both read it and the first one stored wins.
    core::Result<AssetModel> loaded = AssetModel::load(file);
    if (!loaded) return loaded;
    const std::lock_guard lock(mMutex);
    const auto [it, inserted] = mModels.emplace(key, std::move(loaded).value());
    return it->second;
}

std::size_t AssetModelCache::size() const {
    const std::lock_guard lock(mMutex);
    return mModels.size();
}

void AssetModelCache::clear() {
    const std::lock_guard lock(mMutex);
    mModels.clear();
}

}  // namespace terrabit::render
