#include "terrabit/core/export/tileset_writer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>

#include "ordered_runs_p.h"
#include "terrabit/core/export/geodesy.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/scene_tile_items.h"
#include "terrabit/core/scene/bridge_deck.h"
#include "terrabit/core/scene/generated_building_mesh.h"
#include "terrabit/core/scene/ground_drape.h"

namespace terrabit::core {

namespace {

using nlohmann::json;

constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;
// Regions are computed from corner points; the edges between them bow by far less than this
// (millimetres over a tile), and a region must never be smaller than its content.
constexpr double kRegionMarginRadians = 1e-8;  // about 6 cm on the ground
constexpr double kRegionMarginMetres = 0.01;
// How much an inner tile's geometric error exceeds its children's at least, metres: errors
// strictly grow towards the root even where a level loses nothing more than the one below.
constexpr double kLevelErrorStepMetres = 0.001;

Vec3f transformPoint(const std::array<float, 16>& m, float x, float y, float z) {
    return {m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13],
            m[2] * x + m[6] * y + m[10] * z + m[14]};
}

std::array<double, 6> unite(const std::array<double, 6>& a, const std::array<double, 6>& b) {
    return {std::min(a[0], b[0]), std::min(a[1], b[1]), std::max(a[2], b[2]),
            std::max(a[3], b[3]), std::min(a[4], b[4]), std::max(a[5], b[5])};
}

json regionJson(const std::array<double, 6>& r) { return json{{"region", json(r)}}; }

struct TreeBuilder {
    const GroundFrame& frame;
    const std::vector<TilesetLeaf>& leaves;  // sorted by quadkey
    std::string_view folder;
    const LevelContentSink& sink;
    Status* failed;  // the first failure of the sink or of a level's encoding

    /// The subtree of the tiles [lo, hi), which share their first `level` quadkey digits.
    json node(std::size_t lo, std::size_t hi, std::size_t level, std::array<double, 6>& region) const {
        const std::string& qk = leaves[lo].quadkey;
        if (level == qk.size()) {  // a baked tile: a leaf with content
            region = leaves[lo].region;
            return json{{"boundingVolume", regionJson(region)},
                        {"geometricError", 0.0},
                        {"transform", leaves[lo].transform},
                        {"content", {{"uri", std::string(folder) + "/" + qk + ".glb"}}}};
        }
        json children = json::array();
        bool first = true;
        double childError = 0.0;
        for (std::size_t i = lo; i < hi;) {
            std::size_t j = i;
            while (j < hi && leaves[j].quadkey[level] == leaves[i].quadkey[level]) ++j;
            std::array<double, 6> childRegion{};
            children.push_back(node(i, j, level + 1, childRegion));
            childError = std::max(childError, children.back().at("geometricError").get<double>());
            region = first ? childRegion : unite(region, childRegion);
            first = false;
            i = j;
        }
        // The inner tile's coarse content: what the baked tiles below it hold, simplified. Its
        // error is what that simplification loses, and more than any child's.
        std::vector<const LevelSource*> below;
        below.reserve(hi - lo);
        for (std::size_t i = lo; i < hi; ++i) below.push_back(&leaves[i].level);
        const int depth = static_cast<int>(qk.size() - level);
        Result<LevelContent> content = encodeLevelContent(below, depth);
        const std::string prefix = qk.substr(0, level);
        const std::string uri = std::string(folder) + "/" + (prefix.empty() ? std::string("root") : prefix) + ".glb";
        double error = childError + kLevelErrorStepMetres;
        if (!content) {
            if (*failed) *failed = Error{"level " + prefix + ": " + content.message()};
        } else {
            error = std::max(error, content->geometricError);
            if (sink && *failed) {
                if (Status s = sink(uri, content->glb); !s) *failed = s;
            }
        }
        return json{{"boundingVolume", regionJson(region)},
                    {"geometricError", error},
                    {"refine", "REPLACE"},
                    {"content", {{"uri", uri}}},
                    {"children", std::move(children)}};
    }
};

/// The scene-frame box (metres) of everything one tile's content holds: its ground footprint,
/// its surfaces and the transformed model bounds of its instances. `items` is the tile's share
/// of the scene; `assetBounds` is index-aligned with Scene::assets (each mesh's bounds).
Box3f tileContentBounds(const Scene& scene, const TileId& tile, const TileItems& items,
                        std::span<const ModelBounds> assetBounds) {
    Box3f box;
    const double ox = double(tile.x) * kTileCells, oy = double(tile.y) * kTileCells;
    float low = 0.0f, high = 0.0f;
    for (const SurfacePatch* s : items.surfaces) {
        low = std::min(low, s->elevation);
        high = std::max(high, s->elevation);
    }
    // On terrain: the ground mesh (its vertices span the tile), and the surfaces draped on it
    // at their elevations. Else the flat ground's corners.
    const GroundTile* ground = scene.terrain ? scene.groundOf(tile) : nullptr;
    if (ground && ground->mesh.empty()) ground = nullptr;
    if (ground) {
        for (const terrain::GroundVertex& v : ground->mesh.vertices) {
            for (const float e : {low, high}) {
                box.extend(groundVertexPosition(scene, tile, v.column, v.row, double(v.height) + e));
            }
        }
    }
    for (double cy : {oy, oy + kTileCells}) {
        if (ground) break;
        for (double cx : {ox, ox + kTileCells}) {
            const Vec2 g = scene.frame.cellToGround({cx, cy});
            box.extend(groundToScene(g, low));
            box.extend(groundToScene(g, high));
        }
    }
    for (const Plinth* p : items.plinths) {
        for (const PlinthFace& f : plinthFaces(*p)) {
            for (const Vec3f& c : f.corners) box.extend(c);
        }
    }
    for (const GeneratedBuilding* g : items.generated) {
        const ModelBounds mb = generatedBuildingMesh(*g).bounds();
        if (mb.empty()) continue;
        box.extend(Vec3f{static_cast<float>(mb.min[0]), static_cast<float>(mb.min[1]), static_cast<float>(mb.min[2])});
        box.extend(Vec3f{static_cast<float>(mb.max[0]), static_cast<float>(mb.max[1]), static_cast<float>(mb.max[2])});
    }
    for (const BridgeDeck* b : items.bridges) {
        for (const PlinthFace& f : bridgeFaces(*b)) {
            for (const Vec3f& c : f.corners) box.extend(c);
        }
    }
    for (const InstanceBlock* b : items.blocks) {
        box.extend(b->bounds);
        if (b->asset < 0 || static_cast<std::size_t>(b->asset) >= assetBounds.size()) continue;
        const ModelBounds& mb = assetBounds[static_cast<std::size_t>(b->asset)];
        if (mb.empty()) continue;
        for (const Instance& i : b->instances) {
            const std::array<float, 16> m = transformMatrix(i);
            for (int c = 0; c < 8; ++c) {
                box.extend(transformPoint(m, static_cast<float>(c & 1 ? mb.max[0] : mb.min[0]),
                                          static_cast<float>(c & 2 ? mb.max[1] : mb.min[1]),
                                          static_cast<float>(c & 4 ? mb.max[2] : mb.min[2])));
            }
        }
    }
    return box;
}

/// The affine map (4×4, column-major) a viewer applies to the content of `tile`: scene metres →
/// ECEF metres. Exact at the centre of the tile on the ground (height 0), where it is the
/// derivative of the true map (scene metres → Web Mercator → longitude/latitude → WGS 84 ECEF,
/// heights along the local vertical); within the tile it errs by about a millimetre.
std::array<double, 16> sceneToEcef(const Scene& scene, const TileId& tile) {
    // The true position of a scene point: ground metres → Web Mercator → lon/lat (spherical
    // formulas, as every map source uses) → the ellipsoid, lifted along the local vertical.
    const auto exact = [&](double x, double y, double z) {
        const LonLat ll = mercatorToLonLat(scene.frame.groundToMercator({x, -z}));
        // On terrain y = 0 is originHeight above the datum, taken as the ellipsoid (0 when flat).
        return geodeticToEcef({ll.lon, ll.lat, y + scene.originHeight});
    };
    const Vec2 centre =
        scene.frame.cellToGround({(double(tile.x) + 0.5) * kTileCells, (double(tile.y) + 0.5) * kTileCells});
    const double cx = centre.x, cz = -centre.y;
    // Central differences over one metre: the map is smooth at the scale of the Earth, so the
    // truncation error is far below a micrometre per metre.
    constexpr double h = 1.0;
    std::array<double, 16> m{};
    for (int axis = 0; axis < 3; ++axis) {
        const double dx = axis == 0 ? h : 0.0, dy = axis == 1 ? h : 0.0, dz = axis == 2 ? h : 0.0;
        const auto plus = exact(cx + dx, dy, cz + dz);
        const auto minus = exact(cx - dx, -dy, cz - dz);
        for (int i = 0; i < 3; ++i) m[static_cast<std::size_t>(4 * axis + i)] = (plus[i] - minus[i]) / (2.0 * h);
    }
    const auto at = exact(cx, 0.0, cz);
    for (int i = 0; i < 3; ++i) {
        m[static_cast<std::size_t>(12 + i)] = at[i] - (m[i] * cx + m[static_cast<std::size_t>(8 + i)] * cz);
    }
    m[15] = 1.0;
    return m;
}

/// The 3D Tiles region [west, south, east, north (radians), minHeight, maxHeight (metres)] that
/// holds a scene-frame box once placed on the globe by `sceneToEcef` (with a few centimetres of
/// margin).
std::array<double, 6> sceneBoxRegion(const std::array<double, 16>& m, const Box3f& box, double originHeight) {
    std::array<double, 6> r{std::numeric_limits<double>::max(),  std::numeric_limits<double>::max(),
                            -std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::max(),  -std::numeric_limits<double>::max()};
    // The ellipsoid falls away from a plane tangent to it, so heights over the box are lowest
    // near the tangent point (never below the box's lowest y there) and highest at its corners;
    // longitude and latitude are extreme at the corners too.
    for (int c = 0; c < 8; ++c) {
        const double x = c & 1 ? box.max.x : box.min.x;
        const double y = c & 2 ? box.max.y : box.min.y;
        const double z = c & 4 ? box.max.z : box.min.z;
        const std::array<double, 3> p{m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13],
                                      m[2] * x + m[6] * y + m[10] * z + m[14]};
        const Geodetic g = ecefToGeodetic(p);
        r[0] = std::min(r[0], g.lon * kRadiansPerDegree);
        r[1] = std::min(r[1], g.lat * kRadiansPerDegree);
        r[2] = std::max(r[2], g.lon * kRadiansPerDegree);
        r[3] = std::max(r[3], g.lat * kRadiansPerDegree);
        r[4] = std::min(r[4], g.height);
        r[5] = std::max(r[5], g.height);
    }
    r[4] = std::min<double>(r[4], box.min.y + originHeight);
    return {r[0] - kRegionMarginRadians, r[1] - kRegionMarginRadians, r[2] + kRegionMarginRadians,
            r[3] + kRegionMarginRadians, r[4] - kRegionMarginMetres,  r[5] + kRegionMarginMetres};
}

/// a · b for column-major 4×4 affine matrices.
std::array<double, 16> multiply(const std::array<double, 16>& a, const std::array<double, 16>& b) {
    std::array<double, 16> r{};
    for (int col = 0; col < 4; ++col) {
        for (int row = 0; row < 4; ++row) {
            double v = 0.0;
            for (int k = 0; k < 4; ++k)
                v += a[static_cast<std::size_t>(4 * k + row)] * b[static_cast<std::size_t>(4 * col + k)];
            r[static_cast<std::size_t>(4 * col + row)] = v;
        }
    }
    return r;
}

/// The inverse of a rigid transform (rotation and translation).
std::array<double, 16> inverseRigid(const std::array<double, 16>& m) {
    std::array<double, 16> r{};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) r[static_cast<std::size_t>(4 * j + i)] = m[static_cast<std::size_t>(4 * i + j)];
    }
    for (int i = 0; i < 3; ++i) {
        r[static_cast<std::size_t>(12 + i)] =
            -(r[static_cast<std::size_t>(i)] * m[12] + r[static_cast<std::size_t>(4 + i)] * m[13] +
              r[static_cast<std::size_t>(8 + i)] * m[14]);
    }
    r[15] = 1.0;
    return r;
}

}  // namespace

Result<std::vector<TilesetLeaf>> tilesetLeaves(const Scene& scene, std::span<const AssetMesh> assetMeshes,
                                               std::array<std::uint8_t, 3> groundColour, int threads) {
    if (Status s = checkSceneForExport(scene); !s) return Error{"3D Tiles: " + s.message()};
    if (scene.tiles.empty()) return Error{"3D Tiles: the scene has no tiles"};
    if (assetMeshes.size() != scene.assets.size()) {
        return Error{"3D Tiles: " + std::to_string(assetMeshes.size()) + " asset meshes for the scene's " +
                     std::to_string(scene.assets.size()) + " assets"};
    }
    try {
        const std::array<double, 16> fromEcef =
            inverseRigid(enuToEcef({scene.frame.origin.lon, scene.frame.origin.lat, scene.originHeight}));
        std::vector<TilesetLeaf> leaves;
        leaves.reserve(scene.tiles.size());
        std::vector<std::array<double, 16>> transforms;
        const SceneTileItems items(scene);
        std::vector<ModelBounds> assetBounds;
        for (const AssetMesh& m : assetMeshes) assetBounds.push_back(m.bounds());
        // A tile's bounds mesh its generated buildings: most of a region's leaves' time, so on
        // every thread.
        const auto leafOf = [&](std::size_t k) -> Result<TilesetLeaf> {
            try {
                const TileId& t = scene.tiles[k];
                const std::array<double, 16> toEcef = sceneToEcef(scene, t);
                // A viewer turns the glTF content Z-up first, (x, y, z) → (x, -z, y), then applies
                // root · leaf; that product must be toEcef after undoing the turn.
                constexpr std::array<double, 16> kZupToYup{1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
                return TilesetLeaf{
                    t.quadkey(),
                    sceneBoxRegion(toEcef, tileContentBounds(scene, t, items.of(t), assetBounds), scene.originHeight),
                    multiply(fromEcef, multiply(toEcef, kZupToYup)),
                    {}};
            } catch (const std::exception& e) {
                return Error{std::string("3D Tiles: ") + e.what()};
            }
        };
        const Status made = detail::inOrderedRuns(scene.tiles.size(), threads, leafOf,
                                                  [&](std::size_t, Result<TilesetLeaf>& leaf) -> Status {
                                                      if (!leaf) return leaf.error();
                                                      transforms.push_back(leaf->transform);
                                                      leaves.push_back(std::move(leaf).value());
                                                      return Status::success();
                                                  });
        if (!made) return made.error();
        std::vector<LevelSource> levels = levelSources(scene, assetMeshes, transforms, groundColour);
        for (std::size_t i = 0; i < leaves.size(); ++i) leaves[i].level = std::move(levels[i]);
        return leaves;
    } catch (const std::exception& e) {
        return Error{std::string("3D Tiles: ") + e.what()};
    }
}

Result<std::string> encodeTileset(const Scene& scene, std::span<const AssetMesh> assetMeshes,
                                  std::string_view contentFolder, const LevelContentSink& levels) {
    Result<std::vector<TilesetLeaf>> leaves = tilesetLeaves(scene, assetMeshes);
    if (!leaves) return leaves.error();
    return encodeTilesetLeaves(scene.frame, scene.seed, scene.tiles, std::move(leaves).value(), contentFolder,
                               scene.terrain ? std::optional<double>(scene.originHeight) : std::nullopt, levels);
}

Result<std::string> encodeTilesetLeaves(const GroundFrame& frame, std::uint64_t seed, std::span<const TileId> tiles,
                                        std::vector<TilesetLeaf> leaves, std::string_view contentFolder,
                                        std::optional<double> originHeight, const LevelContentSink& levels) {
    if (leaves.empty()) return Error{"3D Tiles: the scene has no tiles"};
    try {
        std::sort(leaves.begin(), leaves.end(),
                  [](const TilesetLeaf& a, const TilesetLeaf& b) { return a.quadkey < b.quadkey; });
        const std::array<double, 16> rootTransform =
            enuToEcef({frame.origin.lon, frame.origin.lat, originHeight.value_or(0.0)});
        // The root is the deepest quadkey every baked tile descends from.
        const std::string& front = leaves.front().quadkey;
        std::size_t common = front.size();
        for (const TilesetLeaf& leaf : leaves) {
            std::size_t k = 0;
            while (k < common && k < leaf.quadkey.size() && leaf.quadkey[k] == front[k]) ++k;
            common = k;
        }
        // A single tile still gets a parent, so the root's transform stays the plain
        // east-north-up frame and the leaf keeps its correction.
        if (common == front.size() && common > 0) --common;
        Status failed;
        const TreeBuilder tree{frame, leaves, contentFolder, levels, &failed};
        std::array<double, 6> rootRegion{};
        json root = tree.node(0, leaves.size(), common, rootRegion);
        if (!failed) return failed.error();
        // (A zoom-0 scene's only tile is the root itself: it keeps its full map.)
        if (!root.contains("children"))
            root["transform"] = multiply(rootTransform, leaves.front().transform);
        else
            root["transform"] = rootTransform;
        const TileId rootTile = TileId::fromQuadkey(std::string_view(front).substr(0, common)).value();

        json quadkeyList = json::array();
        for (const TileId& t : tiles) quadkeyList.push_back(t.quadkey());
        json georeference{{"originLon", frame.origin.lon},
                          {"originLat", frame.origin.lat},
                          {"zoom", frame.zoom},
                          {"quadkeys", quadkeyList},
                          {"seed", std::to_string(seed)}};
        if (originHeight) georeference["originHeight"] = *originHeight;
        const json doc{{"asset",
                        {{"version", "1.1"},
                         {"generator", "Terrabit"},
                         {"extras", {{"attribution", kOsmAttribution}, {"terrabit", std::move(georeference)}}}}},
                       {"geometricError", std::max(2.0 * rootTile.sizeMercator() * frame.scale(),
                                                   root.at("geometricError").get<double>() + kLevelErrorStepMetres)},
                       {"root", std::move(root)}};
        return doc.dump(1) + "\n";
    } catch (const std::exception& e) {
        return Error{std::string("3D Tiles: ") + e.what()};
    }
}

}  // namespace terrabit::core
