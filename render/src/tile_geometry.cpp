#include "terrabit/render/tile_geometry.h"

#include <osg/AlphaFunc>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <osg/Geometry>
#include <osg/Material>
#include <osg/PolygonOffset>
#include <osg/Texture2D>
#include <span>

#include "terrabit/core/scene/bridge_deck.h"
#include "terrabit/core/scene/generated_building_mesh.h"
#include "terrabit/core/scene/ground_drape.h"
#include "terrabit/core/scene/surface_paint.h"
#include "terrabit/render/asset_model.h"

namespace terrabit::render {

namespace {

/// Lets per-vertex or overall colours drive the lit material, as the models do.
void litByColour(osg::StateSet& state) {
    osg::ref_ptr<osg::Material> material = new osg::Material;
    material->setColorMode(osg::Material::AMBIENT_AND_DIFFUSE);
    material->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
    state.setAttributeAndModes(material, osg::StateAttribute::ON);
}

/// The ground's state: the layer image as a texture, lit, pushed back in depth, holes discarded.
void groundState(osg::StateSet& stateSet, osg::ref_ptr<osg::Image> image) {
    osg::StateSet* state = &stateSet;
    osg::ref_ptr<osg::Texture2D> texture = new osg::Texture2D(image.get());
    // Nearest when magnified: a cell stays a crisp square close up; mipmaps when far.
    texture->setFilter(osg::Texture::MIN_FILTER, osg::Texture::LINEAR_MIPMAP_LINEAR);
    texture->setFilter(osg::Texture::MAG_FILTER, osg::Texture::NEAREST);
    texture->setWrap(osg::Texture::WRAP_S, osg::Texture::CLAMP_TO_EDGE);
    texture->setWrap(osg::Texture::WRAP_T, osg::Texture::CLAMP_TO_EDGE);
    texture->setResizeNonPowerOfTwoHint(false);
    state->setTextureAttributeAndModes(0, texture, osg::StateAttribute::ON);
    litByColour(*state);
    // Surfaces lie a few centimetres above the ground; from far away the depth buffer cannot
    // tell them apart, so the ground yields.
    state->setAttributeAndModes(new osg::PolygonOffset(1.0f, 4.0f), osg::StateAttribute::ON);
    state->setAttributeAndModes(new osg::AlphaFunc(osg::AlphaFunc::GREATER, 0.5f), osg::StateAttribute::ON);
}

/// A surface texture in a colour as a repeating, mipmapped texture; made once per process and
/// shared by every tile's surfaces (thread-safe: tiles are built on workers).
osg::ref_ptr<osg::Texture2D> sharedSurfaceTexture(core::SurfaceTexture kind, std::array<std::uint8_t, 3> colour) {
    using Key = std::pair<core::SurfaceTexture, std::array<std::uint8_t, 3>>;
    static std::mutex mutex;
    static std::map<Key, osg::ref_ptr<osg::Texture2D>> made;
    const std::lock_guard lock(mutex);
    osg::ref_ptr<osg::Texture2D>& texture = made[{kind, colour}];
    if (texture) return texture;
    const core::TextureImage picture = core::surfaceTexture(kind, colour);
    osg::ref_ptr<osg::Image> image = new osg::Image;
    image->allocateImage(picture.size, picture.size, 1, GL_RGB, GL_UNSIGNED_BYTE);
    // Rows as they are: t = 0 is the picture's first (north) row, and t grows southwards with
    // the scene's z, as the GLB's v does.
    std::copy(picture.rgb.begin(), picture.rgb.end(), image->data());
    texture = new osg::Texture2D(image.get());
    texture->setName(std::string(core::kSurfaceTextureWords[static_cast<std::size_t>(kind)]));
    texture->setFilter(osg::Texture::MIN_FILTER, osg::Texture::LINEAR_MIPMAP_LINEAR);
    texture->setFilter(osg::Texture::MAG_FILTER, osg::Texture::LINEAR);
    texture->setWrap(osg::Texture::WRAP_S, osg::Texture::REPEAT);
    texture->setWrap(osg::Texture::WRAP_T, osg::Texture::REPEAT);
    return texture;
}

/// Gives a surface's geometry its look: a colour, or a texture in that colour (whose mean is the
/// colour) repeating along its roads (`roadUv` as core::GroundTriangles::roadUv, may be empty)
/// and elsewhere on the ground from the scene's origin, as in the GLB; lit either way.
void surfaceLook(osg::Geometry& mesh, std::array<std::uint8_t, 3> rgb, core::SurfaceTexture texture,
                 std::span<const float> roadUv = {}) {
    osg::ref_ptr<osg::Vec4Array> colour = new osg::Vec4Array(1);
    if (texture == core::SurfaceTexture::None) {
        (*colour)[0].set(rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f, 1.0f);
    } else {
        (*colour)[0].set(1.0f, 1.0f, 1.0f, 1.0f);
        const auto* vertices = static_cast<const osg::Vec3Array*>(mesh.getVertexArray());
        const std::span<const float> positions(static_cast<const float*>(vertices->getDataPointer()),
                                               vertices->size() * 3);
        const std::vector<float> coordinates =
            core::surfaceTextureCoordinates(positions, roadUv, core::surfaceTextureRepeatMetres(texture));
        osg::ref_ptr<osg::Vec2Array> uv = new osg::Vec2Array(vertices->size());
        for (std::size_t i = 0; i < vertices->size(); ++i) (*uv)[i].set(coordinates[i * 2], coordinates[i * 2 + 1]);
        mesh.setTexCoordArray(0, uv);
        mesh.getOrCreateStateSet()->setTextureAttributeAndModes(0, sharedSurfaceTexture(texture, rgb),
                                                                osg::StateAttribute::ON);
    }
    mesh.setColorArray(colour, osg::Array::BIND_OVERALL);
    litByColour(*mesh.getOrCreateStateSet());
}

/// Triangles from core (scene metres) as an indexed, lit geometry.
osg::ref_ptr<osg::Geometry> trianglesGeometry(const core::GroundTriangles& t, const std::string& name) {
    const std::size_t n = t.vertexCount();
    osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array(static_cast<unsigned>(n));
    for (std::size_t i = 0; i < n; ++i) {
        (*vertices)[i].set(t.positions[i * 3], t.positions[i * 3 + 1], t.positions[i * 3 + 2]);
    }
    // A surface of the flat world faces up everywhere: one normal for the mesh, not one per
    // vertex (a country's surfaces held 0.28 GB of vertices in the viewport); on terrain each
    // vertex has its own.
    const bool oneNormal =
        n > 0 && std::equal(t.normals.begin() + 3, t.normals.begin() + static_cast<std::ptrdiff_t>(3 * n),
                            t.normals.begin(), t.normals.begin() + static_cast<std::ptrdiff_t>(3 * n - 3));
    osg::ref_ptr<osg::Vec3Array> normals = new osg::Vec3Array(static_cast<unsigned>(oneNormal ? 1 : n));
    for (std::size_t i = 0; i < normals->size(); ++i) {
        (*normals)[i].set(t.normals[i * 3], t.normals[i * 3 + 1], t.normals[i * 3 + 2]);
    }
    osg::ref_ptr<osg::Geometry> mesh = new osg::Geometry;
    mesh->setName(name);
    mesh->setVertexArray(vertices);
    mesh->setNormalArray(normals, oneNormal ? osg::Array::BIND_OVERALL : osg::Array::BIND_PER_VERTEX);
    // 16-bit indices when they fit: half the index memory of almost every tile's surfaces.
    if (n <= 0xFFFF) {
        mesh->addPrimitiveSet(new osg::DrawElementsUShort(GL_TRIANGLES, t.indices.begin(), t.indices.end()));
    } else {
        mesh->addPrimitiveSet(new osg::DrawElementsUInt(GL_TRIANGLES, t.indices.begin(), t.indices.end()));
    }
    mesh->setUseDisplayList(false);
    mesh->setUseVertexBufferObjects(true);
    return mesh;
}

/// A triangle mesh in one colour, lit (litByColour), drawn from vertex buffers, in a geode of
/// its own: what surfaces and plinths share.
osg::ref_ptr<osg::Geode> litGeode(const std::string& name, osg::ref_ptr<osg::Vec3Array> vertices,
                                  osg::ref_ptr<osg::Vec3Array> normals, osg::Array::Binding normalBinding,
                                  const osg::Vec4& rgba, osg::ref_ptr<osg::DrawElementsUInt> triangles) {
    osg::ref_ptr<osg::Vec4Array> colour = new osg::Vec4Array(1);
    (*colour)[0] = rgba;
    osg::ref_ptr<osg::Geometry> mesh = new osg::Geometry;
    mesh->setName(name);
    mesh->setVertexArray(vertices);
    mesh->setNormalArray(normals, normalBinding);
    mesh->setColorArray(colour, osg::Array::BIND_OVERALL);
    mesh->addPrimitiveSet(triangles);
    mesh->setUseDisplayList(false);
    mesh->setUseVertexBufferObjects(true);
    litByColour(*mesh->getOrCreateStateSet());
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->addDrawable(mesh);
    return geode;
}

}  // namespace

TilePlacement tilePlacement(const core::GroundFrame& frame, const core::TileId& tile) {
    const core::Vec2 cell{static_cast<double>(tile.x) * core::kTileCells,
                          static_cast<double>(tile.y) * core::kTileCells};
    TilePlacement p;
    p.northWest = cellToScene(frame, cell);
    p.metresPerCell = frame.metresPerCell();
    return p;
}

osg::Vec3d cellToScene(const core::GroundFrame& frame, core::Vec2 globalCell, double height) {
    const core::Vec2 ground = frame.cellToGround(globalCell);
    return {ground.x, height, -ground.y};
}

osg::ref_ptr<osg::Geode> makeGroundQuad(const TilePlacement& placement, osg::ref_ptr<osg::Image> image) {
    constexpr double n = core::kTileCells;
    osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
    vertices->push_back(placement.at(0, n));  // south-west
    vertices->push_back(placement.at(n, n));  // south-east
    vertices->push_back(placement.at(n, 0));  // north-east
    vertices->push_back(placement.at(0, 0));  // north-west
    osg::ref_ptr<osg::Vec2Array> uv = new osg::Vec2Array;
    uv->push_back({0.0f, 0.0f});
    uv->push_back({1.0f, 0.0f});
    uv->push_back({1.0f, 1.0f});
    uv->push_back({0.0f, 1.0f});
    osg::ref_ptr<osg::Vec3Array> normal = new osg::Vec3Array(1);
    (*normal)[0].set(0.0f, 1.0f, 0.0f);
    osg::ref_ptr<osg::Vec4Array> colour = new osg::Vec4Array(1);
    (*colour)[0].set(1.0f, 1.0f, 1.0f, 1.0f);

    osg::ref_ptr<osg::Geometry> quad = new osg::Geometry;
    quad->setName("ground");
    quad->setVertexArray(vertices);
    quad->setTexCoordArray(0, uv);
    quad->setNormalArray(normal, osg::Array::BIND_OVERALL);
    quad->setColorArray(colour, osg::Array::BIND_OVERALL);
    // Counter-clockwise seen from above (+y): south-west, south-east, north-east, north-west.
    static const GLushort kIndices[] = {0, 1, 2, 0, 2, 3};
    quad->addPrimitiveSet(new osg::DrawElementsUShort(GL_TRIANGLES, 6, kIndices));
    quad->setUseDisplayList(false);
    quad->setUseVertexBufferObjects(true);

    groundState(*quad->getOrCreateStateSet(), image);

    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->addDrawable(quad);
    return geode;
}

osg::ref_ptr<osg::Geode> makeSurfaceMesh(const TilePlacement& placement, const core::SurfacePatch& patch) {
    if (patch.rects.empty()) return nullptr;
    osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
    vertices->reserve(patch.rects.size() * 4);
    osg::ref_ptr<osg::DrawElementsUInt> triangles = new osg::DrawElementsUInt(GL_TRIANGLES);
    triangles->reserve(patch.rects.size() * 6);
    for (const core::CellRect& r : patch.rects) {
        const auto base = static_cast<GLuint>(vertices->size());
        vertices->push_back(placement.at(r.x0, r.y1, patch.elevation));  // south-west
        vertices->push_back(placement.at(r.x1, r.y1, patch.elevation));  // south-east
        vertices->push_back(placement.at(r.x1, r.y0, patch.elevation));  // north-east
        vertices->push_back(placement.at(r.x0, r.y0, patch.elevation));  // north-west
        for (GLuint i : {0u, 1u, 2u, 0u, 2u, 3u}) triangles->push_back(base + i);
    }
    osg::ref_ptr<osg::Vec3Array> normal = new osg::Vec3Array(1);
    (*normal)[0].set(0.0f, 1.0f, 0.0f);
    osg::ref_ptr<osg::Geode> geode =
        litGeode(patch.layer, vertices, normal, osg::Array::BIND_OVERALL, osg::Vec4(1.0f, 1.0f, 1.0f, 1.0f), triangles);
    surfaceLook(*geode->getDrawable(0)->asGeometry(), patch.colour, patch.texture);
    return geode;
}

namespace {

/// Faces (four corners and a normal each) as triangles in one colour, lit: what plinths and
/// bridge decks share. nullptr for no faces.
osg::ref_ptr<osg::Geode> faceMesh(const std::string& name, const std::vector<core::PlinthFace>& faces,
                                  const osg::Vec4& rgba) {
    if (faces.empty()) return nullptr;
    osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
    osg::ref_ptr<osg::Vec3Array> normals = new osg::Vec3Array;
    vertices->reserve(faces.size() * 4);
    normals->reserve(faces.size() * 4);
    osg::ref_ptr<osg::DrawElementsUInt> triangles = new osg::DrawElementsUInt(GL_TRIANGLES);
    triangles->reserve(faces.size() * 6);
    for (const core::PlinthFace& f : faces) {
        const auto base = static_cast<GLuint>(vertices->size());
        for (const core::Vec3f& c : f.corners) {
            vertices->push_back({c.x, c.y, c.z});
            normals->push_back({f.normal.x, f.normal.y, f.normal.z});
        }
        for (GLuint i : {0u, 1u, 2u, 0u, 2u, 3u}) triangles->push_back(base + i);
    }
    return litGeode(name, vertices, normals, osg::Array::BIND_PER_VERTEX, rgba, triangles);
}

}  // namespace

osg::ref_ptr<osg::Geode> makePlinthMesh(std::span<const core::Plinth* const> plinths) {
    std::vector<core::PlinthFace> faces;
    faces.reserve(plinths.size() * 5);
    for (const core::Plinth* p : plinths) {
        for (const core::PlinthFace& f : core::plinthFaces(*p)) faces.push_back(f);
    }
    return faceMesh("plinths", faces, {150 / 255.0f, 140 / 255.0f, 125 / 255.0f, 1.0f});
}

osg::ref_ptr<osg::Geode> makeBridgeMesh(std::span<const core::BridgeDeck* const> bridges) {
    std::vector<core::PlinthFace> faces;
    for (const core::BridgeDeck* b : bridges) {
        const std::vector<core::PlinthFace> deck = core::bridgeFaces(*b);
        faces.insert(faces.end(), deck.begin(), deck.end());
    }
    const auto& c = core::kBridgeColour;
    return faceMesh("bridges", faces, {c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, 1.0f});
}

osg::ref_ptr<osg::Geode> makeGeneratedBuildingMesh(std::span<const core::GeneratedBuilding* const> buildings,
                                                   core::GeneratedDetail detail) {
    const core::AssetMesh mesh = core::generatedBuildingsMesh(buildings, detail);
    if (mesh.empty()) return nullptr;
    return AssetModel::fromMesh(mesh, AssetModel::Impostor::None).node();
}

osg::ref_ptr<osg::Geode> makeInstanceBoxes(std::span<const core::InstanceBlock* const> blocks,
                                           std::span<const core::ModelBounds> bounds,
                                           std::span<const core::FacadeColours> colours) {
    const auto linear = [](core::Rgb c) {
        return std::array<float, 4>{static_cast<float>(core::srgbToLinear(c.r / 255.0)),
                                    static_cast<float>(core::srgbToLinear(c.g / 255.0)),
                                    static_cast<float>(core::srgbToLinear(c.b / 255.0)), 1.0f};
    };
    core::AssetMesh mesh;
    for (const core::InstanceBlock* b : blocks) {
        if (b->asset < 0 || static_cast<std::size_t>(b->asset) >= bounds.size()) continue;
        const core::ModelBounds& box = bounds[static_cast<std::size_t>(b->asset)];
        if (box.empty()) continue;
        const core::FacadeColours facade = static_cast<std::size_t>(b->asset) < colours.size()
                                               ? colours[static_cast<std::size_t>(b->asset)]
                                               : core::kStoneFacade;
        const std::array<float, 4> walls = linear(facade.walls), roof = linear(facade.roof);
        const std::array<double, 3> mid{0.5 * (box.min[0] + box.max[0]), 0.5 * (box.min[1] + box.max[1]),
                                        0.5 * (box.min[2] + box.max[2])};
        const std::array<double, 3> half{0.5 * (box.max[0] - box.min[0]), 0.5 * (box.max[1] - box.min[1]),
                                         0.5 * (box.max[2] - box.min[2])};
        for (const core::Instance& in : b->instances) {
            const std::array<float, 16> m = core::transformMatrix(in);
            const auto point = [&](const std::array<double, 3>& p) {
                for (int r = 0; r < 3; ++r) {
                    mesh.positions.push_back(
                        static_cast<float>(m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]));
                }
            };
            // Each face: its outward axis k (sign s) and the two others a, b with a × b = s·e_k,
            // its corners counter-clockwise seen from outside.
            for (int k = 0; k < 3; ++k) {
                for (const double s : {1.0, -1.0}) {
                    const int a = s > 0 ? (k + 1) % 3 : (k + 2) % 3, c = s > 0 ? (k + 2) % 3 : (k + 1) % 3;
                    std::array<double, 3> n{};
                    n[static_cast<std::size_t>(k)] = s;
                    // The normal moves with the yaw only (T · Ry · S takes an axis to a scaled axis).
                    double nx = m[0] * n[0] + m[4] * n[1] + m[8] * n[2], ny = m[1] * n[0] + m[5] * n[1] + m[9] * n[2],
                           nz = m[2] * n[0] + m[6] * n[1] + m[10] * n[2];
                    const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
                    if (!(len > 0.0)) continue;
                    const auto first = static_cast<std::uint32_t>(mesh.vertexCount());
                    for (const auto& [da, dc] : {std::pair{-1.0, -1.0}, {1.0, -1.0}, {1.0, 1.0}, {-1.0, 1.0}}) {
                        std::array<double, 3> p = mid;
                        p[static_cast<std::size_t>(k)] += s * half[static_cast<std::size_t>(k)];
                        p[static_cast<std::size_t>(a)] += da * half[static_cast<std::size_t>(a)];
                        p[static_cast<std::size_t>(c)] += dc * half[static_cast<std::size_t>(c)];
                        point(p);
                        for (const double v : {nx / len, ny / len, nz / len})
                            mesh.normals.push_back(static_cast<float>(v));
                        // The top (+Y) in the roof's colour, the rest in the walls'.
                        const std::array<float, 4>& colour = k == 1 && s > 0 ? roof : walls;
                        mesh.colours.insert(mesh.colours.end(), colour.begin(), colour.end());
                    }
                    for (const std::uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) mesh.indices.push_back(first + i);
                }
            }
        }
    }
    if (mesh.empty()) return nullptr;
    return AssetModel::fromMesh(mesh, AssetModel::Impostor::None).node();
}

namespace {

/// Ground triangles textured with the layer image as makeGroundQuad is.
osg::ref_ptr<osg::Geode> texturedGround(const core::GroundTriangles& t, osg::ref_ptr<osg::Image> image) {
    osg::ref_ptr<osg::Geometry> mesh = trianglesGeometry(t, "ground");
    // The layer image's texel (column, row) covers cell (column, row); image row 0 is south.
    constexpr float n = core::kTileCells;
    osg::ref_ptr<osg::Vec2Array> uv = new osg::Vec2Array(static_cast<unsigned>(t.vertexCount()));
    for (std::size_t i = 0; i < t.vertexCount(); ++i) (*uv)[i].set(t.cells[i * 2] / n, 1.0f - t.cells[i * 2 + 1] / n);
    mesh->setTexCoordArray(0, uv);
    osg::ref_ptr<osg::Vec4Array> colour = new osg::Vec4Array(1);
    (*colour)[0].set(1.0f, 1.0f, 1.0f, 1.0f);
    mesh->setColorArray(colour, osg::Array::BIND_OVERALL);
    groundState(*mesh->getOrCreateStateSet(), image);
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->addDrawable(mesh);
    return geode;
}

/// Surface triangles in the patch's look (surfaceLook), lit; nullptr for none.
osg::ref_ptr<osg::Geode> colouredSurface(const core::GroundTriangles& t, const core::SurfacePatch& patch) {
    if (t.empty()) return nullptr;
    osg::ref_ptr<osg::Geometry> mesh = trianglesGeometry(t, patch.layer);
    surfaceLook(*mesh, patch.colour, patch.texture, t.roadUv);
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->addDrawable(mesh);
    return geode;
}

}  // namespace

osg::ref_ptr<osg::Geode> makeGroundMesh(const core::Scene& scene, const core::GroundTile& ground,
                                        osg::ref_ptr<osg::Image> image) {
    return texturedGround(core::groundTriangles(scene, ground), image);
}

osg::ref_ptr<osg::Geode> makeGroundAround(const core::Scene& scene, const core::TileId& tile,
                                          const core::GroundTile* ground, const core::SurfaceShape& around,
                                          osg::ref_ptr<osg::Image> image) {
    return texturedGround(core::drapeTriangles(scene, tile, ground, around.triangles, 0.0f), image);
}

osg::ref_ptr<osg::Geode> makeDrapedSurfaceMesh(const core::Scene& scene, const core::GroundTile& ground,
                                               const core::SurfacePatch& patch) {
    if (patch.rects.empty()) return nullptr;
    return colouredSurface(core::drapeRects(scene, ground, patch.rects, patch.elevation), patch);
}

osg::ref_ptr<osg::Geode> makeShapedSurfaceMesh(const core::Scene& scene, const core::GroundTile* ground,
                                               const core::SurfacePatch& patch, bool markings) {
    osg::ref_ptr<osg::Geode> geode = colouredSurface(
        core::drapeTriangles(scene, patch.tile, ground, patch.shape.triangles, patch.elevation, patch.roadUv), patch);
    if (!geode) return geode;
    // Paving, gravel and the markings' white paint: drawables of their own, pulled
    // forward in depth so they win over the road a few centimetres below them from afar too.
    for (const core::SurfacePaint& paint : core::kSurfacePaints) {
        if (!markings && paint.triangles == &core::SurfacePatch::markings) continue;
        const core::GroundTriangles t =
            core::drapeTriangles(scene, patch.tile, ground, patch.*paint.triangles, patch.elevation + paint.liftMetres);
        if (t.empty()) continue;
        osg::ref_ptr<osg::Geometry> mesh = trianglesGeometry(t, paint.name);
        surfaceLook(*mesh, paint.colour, paint.texture);
        mesh->getOrCreateStateSet()->setAttributeAndModes(new osg::PolygonOffset(-1.0f, -4.0f),
                                                          osg::StateAttribute::ON);
        geode->addDrawable(mesh);
        if (!paint.kerbed) continue;
        const core::GroundTriangles kerbs = core::drapeWalls(scene, patch.tile, ground, patch.*paint.triangles,
                                                             patch.elevation, patch.elevation + paint.liftMetres);
        if (kerbs.empty()) continue;
        osg::ref_ptr<osg::Geometry> walls = trianglesGeometry(kerbs, core::kKerbName);
        surfaceLook(*walls, core::kKerbColour, core::SurfaceTexture::None);
        geode->addDrawable(walls);
    }
    return geode;
}

}  // namespace terrabit::render
