// Catalogue models as OSG geometry: every shipped model loads with the vertex count and bounds
// the catalogue promises, geometry is shared through the cache, colours are display-encoded,
// and bad files give errors instead of empty scenes.

#include "terrabit/render/asset_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <fstream>

#include "terrabit/core/assets/asset_catalogue.h"

namespace terrabit::render {
namespace {

const std::filesystem::path kShipped = std::filesystem::path(TERRABIT_RESOURCES_DIR) / "assets";

std::filesystem::path scratch(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / "terrabit-render-asset-tests";
    std::filesystem::create_directories(dir);
    return dir / name;
}

TEST(AssetModel, EveryShippedModelLoadsWithTheCataloguesSizes) {
    core::Result<core::AssetCatalogue> catalogue = core::AssetCatalogue::load(kShipped / "catalogue.yaml");
    ASSERT_TRUE(catalogue) << catalogue.message();
    ASSERT_GE(catalogue->size(), 18u);
    AssetModelCache cache;
    for (const core::AssetInfo& info : catalogue->assets()) {
        SCOPED_TRACE(info.id);
        core::Result<AssetModel> model = cache.model(info);
        ASSERT_TRUE(model) << model.message();
        // The geometry holds exactly the mesh core reads from the same file.
        core::Result<core::AssetMesh> mesh = core::readAssetMesh(info.path);
        ASSERT_TRUE(mesh) << mesh.message();
        osg::ref_ptr<osg::Geometry> g = model->geometry();
        ASSERT_TRUE(g);
        EXPECT_EQ(g->getVertexArray()->getNumElements(), mesh->vertexCount());
        EXPECT_EQ(g->getNormalArray()->getNumElements(), mesh->vertexCount());
        EXPECT_EQ(g->getColorArray()->getNumElements(), mesh->vertexCount());
        ASSERT_EQ(g->getNumPrimitiveSets(), 1u);
        EXPECT_EQ(g->getPrimitiveSet(0)->getNumIndices(), mesh->triangleCount() * 3);
        EXPECT_EQ(model->triangleCount(), mesh->triangleCount());
        EXPECT_GT(model->triangleCount(), 50u) << "not a bare box";
        // OSG's own bounds of the drawable agree with the catalogue within 1%.
        const osg::BoundingBox box = g->getBoundingBox();
        EXPECT_NEAR(box.xMax() - box.xMin(), info.footprint.width, 0.01 * info.footprint.width);
        EXPECT_NEAR(box.zMax() - box.zMin(), info.footprint.depth, 0.01 * info.footprint.depth);
        EXPECT_NEAR(box.yMax() - box.yMin(), info.height, 0.01 * info.height);
        EXPECT_NEAR(box.yMin(), 0.0, 1e-4) << "stands on the ground";
        // Ready for instanced drawing.
        EXPECT_FALSE(g->getUseDisplayList());
        EXPECT_TRUE(g->getUseVertexBufferObjects());
        ASSERT_TRUE(model->node());
        EXPECT_EQ(model->node()->getDrawable(0), g.get());
    }
    EXPECT_EQ(cache.size(), catalogue->size());
}

TEST(AssetModel, CacheSharesOneGeometryPerFile) {
    AssetModelCache cache;
    const auto file = kShipped / "models/pagoda.glb";
    core::Result<AssetModel> a = cache.model(file);
    core::Result<AssetModel> b = cache.model(kShipped / "models/../models/pagoda.glb");
    ASSERT_TRUE(a) << a.message();
    ASSERT_TRUE(b) << b.message();
    EXPECT_EQ(a->geometry().get(), b->geometry().get());
    EXPECT_EQ(cache.size(), 1u);
    core::Result<AssetModel> c = cache.model(kShipped / "models/palm.glb");
    ASSERT_TRUE(c);
    EXPECT_NE(c->geometry().get(), a->geometry().get());
    EXPECT_EQ(cache.size(), 2u);
    cache.clear();
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_TRUE(a->geometry()->getVertexArray()) << "scenes keep geometry they hold";
}

TEST(AssetModel, ObjUserModelKeepsItsDisplayColour) {
    const auto obj = scratch("crate.obj");
    std::ofstream(scratch("crate.mtl")) << "newmtl paint\nKd 0.5 0.25 1.0\n";
    std::ofstream(obj) << "mtllib crate.mtl\nusemtl paint\n"
                          "v 0 0 0\nv 2 0 0\nv 2 0 2\nv 0 0 2\nv 0 1 0\nv 2 1 0\nv 2 1 2\nv 0 1 2\n"
                          "f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 2 6 7 3\nf 3 7 8 4\nf 4 8 5 1\n";
    core::Result<AssetModel> model = AssetModel::load(obj);
    ASSERT_TRUE(model) << model.message();
    EXPECT_EQ(model->triangleCount(), 12u);
    // Fixed-function GL shows colours as given, so the OBJ's display colour comes back as is, to
    // the nearest of a byte's 255 steps (GL normalises the bytes).
    const auto* colours = dynamic_cast<const osg::Vec4ubArray*>(model->geometry()->getColorArray());
    ASSERT_NE(colours, nullptr);
    EXPECT_TRUE(colours->getNormalize());
    EXPECT_NEAR((*colours)[0].r() / 255.0, 0.5, 0.5 / 255.0);
    EXPECT_NEAR((*colours)[0].g() / 255.0, 0.25, 0.5 / 255.0);
    EXPECT_EQ((*colours)[0].b(), 255);
    EXPECT_EQ((*colours)[0].a(), 255);
    // The normals are signed bytes GL normalises: the crate's top faces straight up.
    const auto* normals = dynamic_cast<const osg::Vec3bArray*>(model->geometry()->getNormalArray());
    ASSERT_NE(normals, nullptr);
    EXPECT_TRUE(normals->getNormalize());
    EXPECT_TRUE(std::any_of(normals->begin(), normals->end(),
                            [](const osg::Vec3b& v) { return v.x() == 0 && v.y() == 127 && v.z() == 0; }));
}

TEST(AssetModel, MissingOrCorruptFilesAreErrorsAndNotCached) {
    AssetModelCache cache;
    core::Result<AssetModel> missing = cache.model(scratch("absent.glb"));
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("absent.glb"), std::string::npos) << missing.message();
    std::ofstream(scratch("garbage.glb")) << "glTF but not really";
    core::Result<AssetModel> corrupt = cache.model(scratch("garbage.glb"));
    ASSERT_FALSE(corrupt);
    EXPECT_NE(corrupt.message().find("garbage.glb"), std::string::npos) << corrupt.message();
    EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace terrabit::render
