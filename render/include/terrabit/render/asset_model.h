#pragma once
/// Catalogue models as OpenSceneGraph geometry. A model file is read once (core's
/// readAssetMesh: glTF, GLB or OBJ, every node transform baked in) into one osg::Geometry with
/// positions, normals and per-vertex colours, which every instance and every scene then shares.

#include <osg/Geode>
#include <osg/Geometry>
#include <osg/ref_ptr>

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/result.h"

namespace terrabit::render {

/// One drawable model. Copies share the same geometry; treat it as read-only once built (OSG
/// may draw it from several scenes at once).
class AssetModel {
public:
    /// An empty model: no geometry, zero counts.
    AssetModel() = default;

    /// Builds the geometry of a mesh: vertex, normal and colour arrays bound per vertex (colours
    /// converted from the mesh's linear light to sRGB, since OSG's fixed-function pipeline writes
    /// them to the framebuffer as they are), one indexed triangle list, vertex buffer objects on
    /// and display lists off (so it can be drawn instanced). Its state set lets vertex colours
    /// drive the lit material and culls back faces, as glTF's single-sided rule says.
    /// Impostor::None leaves out the far stand-in (impostor() is empty): a mesh drawn once, as a
    /// tile's generated buildings are, is never drawn as cards, and cutting a tile's whole mesh
    /// into them cost more than building it.
    enum class Impostor { Make, None };
    static AssetModel fromMesh(const core::AssetMesh& mesh, Impostor impostor = Impostor::Make);

    /// Reads a model file and builds its geometry. Errors (missing, unreadable, corrupt, no
    /// triangles) come from readAssetMesh and name the file.
    static core::Result<AssetModel> load(const std::filesystem::path& file);

    /// The shared geometry; nullptr for an empty model.
    osg::ref_ptr<osg::Geometry> geometry() const { return mGeometry; }
    /// A shared Geode holding the geometry, to add to a scene graph; nullptr for an empty model.
    osg::ref_ptr<osg::Geode> node() const { return mNode; }
    /// Vertices in the geometry's arrays.
    std::size_t vertexCount() const { return mVertexCount; }
    /// Triangles in the geometry's one primitive set.
    std::size_t triangleCount() const { return mTriangleCount; }
    /// The mesh's bounds in model space (metres, Y up).
    const core::ModelBounds& bounds() const { return mBounds; }
    /// Its mean wall and roof colours (core::facadeColours), which its far box wears; the stone
    /// for a model made with Impostor::None (a mesh drawn once, never as a box).
    const core::FacadeColours& facade() const { return mFacade; }
    /// The model's far stand-in: its crossed cards (core::crossCardImpostor), drawn from both
    /// sides. Made with the model; an empty model for an empty one (and for an impostor's own).
    const AssetModel& impostor() const;

private:
    static AssetModel build(const core::AssetMesh& mesh, bool cullBackFaces);

    osg::ref_ptr<osg::Geometry> mGeometry;
    osg::ref_ptr<osg::Geode> mNode;
    std::size_t mVertexCount = 0;
    std::size_t mTriangleCount = 0;
    core::ModelBounds mBounds;
    core::FacadeColours mFacade = core::kStoneFacade;
    std::shared_ptr<const AssetModel> mImpostor;
};

/// Loads each model file once and hands out the same shared geometry afterwards. Safe to call
/// from several threads. A failed load is not remembered, so fixing the file and asking again
/// works.
class AssetModelCache {
public:
    /// The model of a catalogue entry (its resolved path).
    core::Result<AssetModel> model(const core::AssetInfo& info);
    /// The model of a file, keyed by its normalised absolute path.
    core::Result<AssetModel> model(const std::filesystem::path& file);
    /// How many models are loaded.
    std::size_t size() const;
    /// Forgets every model (scenes that hold their geometry keep it alive).
    void clear();

private:
    mutable std::mutex mMutex;
    std::map<std::string, AssetModel> mModels;
};

}  // namespace terrabit::render
