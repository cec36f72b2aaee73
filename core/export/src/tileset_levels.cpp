#include "terrabit/core/export/tileset_levels.h"

#include "terrabit/core/export/glb_scene_writer.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>

#include "terrabit/core/algebra/random_mask.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/json_number.h"
#include "terrabit/core/scene/generated_building_mesh.h"
#include "terrabit/core/scene/ground_drape.h"

namespace terrabit::core {

namespace {

using nlohmann::json;

// A box smaller than this on any axis is drawn this size: a zero scale is a degenerate instance.
constexpr float kMinExtent = 0.01f;
// The fewest plants drawn for their spacing to count in a level's error.
constexpr std::size_t kLevelDensityPlants = 16;
constexpr std::uint64_t kPlantRankTag = 0x6c6f642d706c616eULL;  // "lod-plan"

// LevelSources are written to files by the parts of a bake and read back by the merge: their
// numbers are kept on grids that short integers hold exactly (centimetres, 1e-4 radians, ranks
// of 24 bits), so the merge sees the very floats a whole bake uses, in a file a few times
// smaller than full decimals make it.
constexpr float kCentimetres = 100.0f;
constexpr float kYawSteps = 10000.0f;
constexpr float kRankSteps = 16777216.0f;  // 2^24
float onGrid(double v, float steps) { return static_cast<float>(std::lround(v * steps)) / steps; }
/// Rounded up: an error must not shrink on its grid.
float upOnGrid(double v, float steps) { return static_cast<float>(std::ceil(v * steps)) / steps; }
/// The whole number of steps a level source writes a grid value as: one that reads back as the
/// same float (decodeLevelSource makes float(n) / steps, as onGrid does). The nearest to
/// v · steps is, up to 2^24 steps; beyond, a float holds only every second (fourth, ...) whole
/// number, and the nearest may read back as the float next to v (the level source fuzzer found
/// a yaw that did), so the whole numbers the floats around it hold are tried.
long long gridSteps(float v, float steps) {
    const long long n = std::llround(double(v) * steps);
    if (static_cast<float>(n) / steps == v) return n;
    const float at = static_cast<float>(n);
    for (const float towards : {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()}) {
        float g = at;
        for (int k = 0; k < 8; ++k) {
            g = std::nextafter(g, towards);
            if (g == std::trunc(g) && g / steps == v) return static_cast<long long>(g);
        }
    }
    return n;
}

struct Vec3d {
    double x = 0, y = 0, z = 0;
};

/// The distance from p to the triangle abc (Ericson, Real-Time Collision Detection, 5.1.5).
double pointTriangleDistance(Vec3d p, Vec3d a, Vec3d b, Vec3d c) {
    const auto sub = [](Vec3d u, Vec3d v) { return Vec3d{u.x - v.x, u.y - v.y, u.z - v.z}; };
    const auto dot = [](Vec3d u, Vec3d v) { return u.x * v.x + u.y * v.y + u.z * v.z; };
    const auto at = [](Vec3d o, Vec3d u, double s, Vec3d v, double t) {
        return Vec3d{o.x + u.x * s + v.x * t, o.y + u.y * s + v.y * t, o.z + u.z * s + v.z * t};
    };
    const Vec3d ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
    Vec3d q;
    const double d1 = dot(ab, ap), d2 = dot(ac, ap);
    const Vec3d bp = sub(p, b);
    const double d3 = dot(ab, bp), d4 = dot(ac, bp);
    const Vec3d cp = sub(p, c);
    const double d5 = dot(ab, cp), d6 = dot(ac, cp);
    const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0 && d2 <= 0) {
        q = a;
    } else if (d3 >= 0 && d4 <= d3) {
        q = b;
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        q = at(a, ab, d1 / (d1 - d3), ac, 0.0);
    } else if (d6 >= 0 && d5 <= d6) {
        q = c;
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        q = at(a, ab, 0.0, ac, d2 / (d2 - d6));
    } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        q = Vec3d{b.x + (c.x - b.x) * w, b.y + (c.y - b.y) * w, b.z + (c.z - b.z) * w};
    } else {
        const double denom = 1.0 / (va + vb + vc);
        q = at(a, ab, vb * denom, ac, vc * denom);
    }
    const Vec3d d = sub(p, q);
    return std::sqrt(dot(d, d));
}

/// How far the surface of a model's bounding box lies from the model at most (model metres):
/// the largest distance from points on the box's sides and top (5 × 5 per face) to the nearest
/// triangle. 0 for an empty mesh.
double boxDeviation(const AssetMesh& mesh) {
    const ModelBounds b = mesh.bounds();
    if (b.empty() || mesh.indices.empty()) return 0.0;
    const auto vertex = [&](std::uint32_t i) {
        return Vec3d{mesh.positions[3 * i], mesh.positions[3 * i + 1], mesh.positions[3 * i + 2]};
    };
    double worst = 0.0;
    constexpr int kSteps = 5;
    for (int face = 0; face < 5; ++face) {  // -x, +x, -z, +z, top
        for (int i = 0; i < kSteps; ++i) {
            for (int j = 0; j < kSteps; ++j) {
                const double s = double(i) / (kSteps - 1), t = double(j) / (kSteps - 1);
                const auto lerp = [&](int axis, double f) { return b.min[axis] + (b.max[axis] - b.min[axis]) * f; };
                Vec3d p;
                switch (face) {
                    case 0:
                        p = {b.min[0], lerp(1, s), lerp(2, t)};
                        break;
                    case 1:
                        p = {b.max[0], lerp(1, s), lerp(2, t)};
                        break;
                    case 2:
                        p = {lerp(0, s), lerp(1, t), b.min[2]};
                        break;
                    case 3:
                        p = {lerp(0, s), lerp(1, t), b.max[2]};
                        break;
                    default:
                        p = {lerp(0, s), b.max[1], lerp(2, t)};
                        break;
                }
                double nearest = std::numeric_limits<double>::infinity();
                for (std::size_t k = 0; k + 2 < mesh.indices.size(); k += 3) {
                    nearest =
                        std::min(nearest, pointTriangleDistance(p, vertex(mesh.indices[k]), vertex(mesh.indices[k + 1]),
                                                                vertex(mesh.indices[k + 2])));
                }
                worst = std::max(worst, nearest);
            }
        }
    }
    return worst;
}

/// The distance from p to the closed ring `ring` (ground metres).
double ringDistance(Vec2 p, const std::vector<Vec2>& ring) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 a = ring[i], b = ring[(i + 1) % ring.size()];
        const double dx = b.x - a.x, dy = b.y - a.y;
        const double len2 = dx * dx + dy * dy;
        double t = len2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2 : 0.0;
        t = std::clamp(t, 0.0, 1.0);
        const double ex = p.x - (a.x + dx * t), ey = p.y - (a.y + dy * t);
        best = std::min(best, std::sqrt(ex * ex + ey * ey));
    }
    return best;
}

/// Maps scene points and directions of one baked tile into the root's frame.
class RootFrame {
public:
    explicit RootFrame(const std::array<double, 16>& leaf) : m(leaf) {}

    /// A scene point: the leaf transform takes the content turned Z-up, (x, -z, y), to the
    /// root's east-north-up frame; the root's content is that frame turned back Y-up.
    std::array<float, 3> point(double x, double y, double z) const {
        const double zx = x, zy = -z, zz = y;
        const double e = m[0] * zx + m[4] * zy + m[8] * zz + m[12];
        const double n = m[1] * zx + m[5] * zy + m[9] * zz + m[13];
        const double u = m[2] * zx + m[6] * zy + m[10] * zz + m[14];
        return {static_cast<float>(e), static_cast<float>(u), static_cast<float>(-n)};
    }
    /// A yaw about the scene's +Y as the same heading about the root's +Y.
    float yaw(double sceneYaw) const {
        const double dx = std::cos(sceneYaw), dz = -std::sin(sceneYaw);
        const double e = m[0] * dx + m[4] * -dz, n = m[1] * dx + m[5] * -dz;
        return static_cast<float>(std::atan2(n, e));  // root z = -n, yaw = atan2(-z, x)
    }

private:
    std::array<double, 16> m;
};

bool largerBuilding(const LevelBox& a, const LevelBox& b) {
    if (a.key != b.key) return a.key > b.key;
    if (a.id != b.id) return a.id < b.id;
    return std::tie(a.x, a.z, a.y) < std::tie(b.x, b.z, b.y);
}

bool lowerRank(const LevelBox& a, const LevelBox& b) {
    if (a.key != b.key) return a.key < b.key;
    return std::tie(a.x, a.z, a.y) < std::tie(b.x, b.z, b.y);
}

/// A box as an instance of the unit box: foot at y = 0, x and z in [-0.5, 0.5], height 1.
LevelBox boxOf(const RootFrame& root, const Instance& i, const ModelBounds& mb) {
    const double cx = 0.5 * (mb.min[0] + mb.max[0]) * i.scale.x, cz = 0.5 * (mb.min[2] + mb.max[2]) * i.scale.z;
    const double c = std::cos(i.yaw), s = std::sin(i.yaw);
    // T · Ry(yaw) · S of the model's foot centre.
    const double x = i.position.x + c * cx + s * cz, z = i.position.z - s * cx + c * cz;
    const double y = i.position.y + mb.min[1] * i.scale.y;
    LevelBox b;
    const auto p = root.point(x, y, z);
    b.x = onGrid(p[0], kCentimetres);
    b.y = onGrid(p[1], kCentimetres);
    b.z = onGrid(p[2], kCentimetres);
    b.halfWidth = onGrid(0.5 * (mb.max[0] - mb.min[0]) * std::abs(i.scale.x), kCentimetres);
    b.halfDepth = onGrid(0.5 * (mb.max[2] - mb.min[2]) * std::abs(i.scale.z), kCentimetres);
    b.height = onGrid((mb.max[1] - mb.min[1]) * std::abs(i.scale.y), kCentimetres);
    b.yaw = onGrid(root.yaw(i.yaw), kYawSteps);
    return b;
}

float buildingSize(const LevelBox& b) {
    return upOnGrid(std::max(b.height, 2.0f * std::hypot(b.halfWidth, b.halfDepth)), kCentimetres);
}

}  // namespace

float plantRank(std::uint64_t seed, float x, float z) {
    std::uint32_t bx = 0, bz = 0;
    std::memcpy(&bx, &x, 4);
    std::memcpy(&bz, &z, 4);
    const std::uint64_t h = algebra::mixBits(algebra::mixBits(seed ^ kPlantRankTag) + ((std::uint64_t{bx} << 32) | bz));
    return static_cast<float>(h >> 40) * (1.0f / 16777216.0f);  // 24 bits: exact in a float, < 1
}

std::vector<LevelSource> levelSources(const Scene& scene, std::span<const AssetMesh> assetMeshes,
                                      std::span<const std::array<double, 16>> leafTransforms,
                                      std::array<std::uint8_t, 3> groundColour) {
    std::map<TileId, std::size_t> slot;
    std::vector<LevelSource> out(scene.tiles.size());
    for (std::size_t i = 0; i < scene.tiles.size(); ++i) {
        slot.emplace(scene.tiles[i], i);
        out[i].quadkey = scene.tiles[i].quadkey();
        out[i].groundColour = groundColour;
    }
    std::vector<std::vector<LevelBox>> buildings(scene.tiles.size()), plants(scene.tiles.size());
    std::vector<double> deviation(assetMeshes.size(), -1.0);  // per asset, measured on first use
    std::vector<ModelBounds> bounds;                          // per asset: AssetMesh::bounds walks every vertex
    for (const AssetMesh& m : assetMeshes) bounds.push_back(m.bounds());
    // Per asset, measured on first use: as a building, its wall and roof colours; as a plant, its
    // crown's (its roof colour, which a view from afar sees most of). Apart: a model may be both.
    std::vector<std::optional<FacadeColours>> colours(assetMeshes.size()), crowns(assetMeshes.size());
    const auto tileOf = [&](const TileId& t) -> std::ptrdiff_t {
        const auto it = slot.find(t);
        return it == slot.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
    };
    for (const InstanceBlock& block : scene.blocks) {
        const std::ptrdiff_t k = tileOf(block.tile);
        if (k < 0 || block.asset < 0 || static_cast<std::size_t>(block.asset) >= assetMeshes.size()) continue;
        const AssetMesh& mesh = assetMeshes[static_cast<std::size_t>(block.asset)];
        const ModelBounds& mb = bounds[static_cast<std::size_t>(block.asset)];
        if (mb.empty()) continue;
        const RootFrame root(leafTransforms[static_cast<std::size_t>(k)]);
        for (const Instance& i : block.instances) {
            LevelBox b = boxOf(root, i, mb);
            if (i.source != Instance::kNoSource) {
                double& d = deviation[static_cast<std::size_t>(block.asset)];
                if (d < 0) d = boxDeviation(mesh);
                b.deviation = upOnGrid(d * std::max({std::abs(i.scale.x), std::abs(i.scale.y), std::abs(i.scale.z)}),
                                       kCentimetres);
                b.key = buildingSize(b);
                b.id = scene.sources[i.source];
                std::optional<FacadeColours>& c = colours[static_cast<std::size_t>(block.asset)];
                if (!c) c = facadeColours(mesh, kLevelBuildingColours);
                b.colours = *c;
                buildings[static_cast<std::size_t>(k)].push_back(std::move(b));
            } else {
                b.key = plantRank(scene.seed, i.position.x, i.position.z);
                std::optional<FacadeColours>& c = crowns[static_cast<std::size_t>(block.asset)];
                if (!c) {
                    const Rgb crown = facadeColours(mesh, kLevelPlantColours).roof;
                    c = FacadeColours{crown, crown};
                }
                b.colours = *c;
                plants[static_cast<std::size_t>(k)].push_back(std::move(b));
            }
        }
    }
    // Generated buildings: their footprint's oriented box (the building record's target), up to
    // the ridge; the box strays from the building by the roof and by the box's corners beyond
    // the outline.
    std::map<std::uint32_t, const BuildingRecord*> records;
    for (const BuildingRecord& r : scene.buildings) records.emplace(r.source, &r);
    for (const GeneratedBuilding& g : scene.generated) {
        const std::ptrdiff_t k = tileOf(g.tile);
        if (k < 0 || g.outline.size() < 3) continue;
        OrientedBox box;
        const auto r = records.find(g.source);
        if (r != records.end()) {
            box = r->second->target;
        } else {
            Vec2 lo{std::numeric_limits<double>::max(), std::numeric_limits<double>::max()}, hi{-lo.x, -lo.y};
            for (const Vec2& p : g.outline) {
                lo = {std::min(lo.x, p.x), std::min(lo.y, p.y)};
                hi = {std::max(hi.x, p.x), std::max(hi.y, p.y)};
            }
            box.centre = {0.5 * (lo.x + hi.x), 0.5 * (lo.y + hi.y)};
            box.halfExtents = {0.5 * (hi.x - lo.x), 0.5 * (hi.y - lo.y)};
        }
        const RootFrame root(leafTransforms[static_cast<std::size_t>(k)]);
        LevelBox b;
        const auto p = root.point(box.centre.x, g.base, -box.centre.y);
        b.x = onGrid(p[0], kCentimetres);
        b.y = onGrid(p[1], kCentimetres);
        b.z = onGrid(p[2], kCentimetres);
        b.halfWidth = onGrid(box.halfExtents.x, kCentimetres);
        b.halfDepth = onGrid(box.halfExtents.y, kCentimetres);
        b.height = onGrid(double(g.wallHeight) + double(g.roofHeight), kCentimetres);
        b.yaw = onGrid(root.yaw(box.angle), kYawSteps);
        double stray = 0.0;
        const double c = std::cos(box.angle), s = std::sin(box.angle);
        for (int u = -1; u <= 1; ++u) {
            for (int v = -1; v <= 1; ++v) {
                if (u == 0 && v == 0) continue;
                const double ax = u * box.halfExtents.x, ay = v * box.halfExtents.y;
                stray = std::max(
                    stray, ringDistance({box.centre.x + c * ax - s * ay, box.centre.y + s * ax + c * ay}, g.outline));
            }
        }
        b.deviation = upOnGrid(std::max<double>(stray, g.roofHeight), kCentimetres);
        b.key = buildingSize(b);
        b.id = g.source != Instance::kNoSource ? scene.sources[g.source] : std::string();
        b.colours = generatedBuildingColours(g);
        buildings[static_cast<std::size_t>(k)].push_back(std::move(b));
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
        LevelSource& s = out[k];
        std::vector<LevelBox>& bs = buildings[k];
        std::sort(bs.begin(), bs.end(), largerBuilding);
        for (std::size_t i = kLevelBuildings; i < bs.size(); ++i) {
            s.droppedBuildingSize = std::max(s.droppedBuildingSize, bs[i].key);
        }
        if (bs.size() > kLevelBuildings) bs.resize(kLevelBuildings);
        s.buildings = std::move(bs);
        for (LevelBox& p : plants[k]) {
            if (p.key < kLevelPlantRank) {
                s.plants.push_back(std::move(p));
            } else {
                s.droppedPlantHeight = std::max(s.droppedPlantHeight, p.height);
            }
        }
        std::sort(s.plants.begin(), s.plants.end(), lowerRank);

        // The ground: one quad through the tile's corners, and how far the tile's ground and
        // surfaces stray from it.
        const TileId& tile = scene.tiles[k];
        const RootFrame root(leafTransforms[k]);
        const GroundTile* ground = scene.terrain ? scene.groundOf(tile) : nullptr;
        if (ground && ground->mesh.empty()) ground = nullptr;
        std::array<double, 4> cornerHeight{0, 0, 0, 0};  // NW, SW, SE, NE, above the datum
        constexpr int kCol[4] = {0, 0, kTileCells, kTileCells}, kRow[4] = {0, kTileCells, kTileCells, 0};
        if (ground) {
            for (const terrain::GroundVertex& v : ground->mesh.vertices) {
                for (int c = 0; c < 4; ++c) {
                    if (v.column == kCol[c] && v.row == kRow[c]) cornerHeight[static_cast<std::size_t>(c)] = v.height;
                }
            }
            for (const terrain::GroundVertex& v : ground->mesh.vertices) {
                const double fx = v.column / double(kTileCells), fy = v.row / double(kTileCells);
                const double h = (1 - fx) * ((1 - fy) * cornerHeight[0] + fy * cornerHeight[1]) +
                                 fx * ((1 - fy) * cornerHeight[3] + fy * cornerHeight[2]);
                s.groundError = std::max(s.groundError, upOnGrid(std::abs(v.height - h), kCentimetres));
            }
        }
        for (int c = 0; c < 4; ++c) {
            const Vec3f p = ground ? groundVertexPosition(scene, tile, kCol[c], kRow[c], cornerHeight[std::size_t(c)])
                                   : groundToScene(scene.frame.cellToGround({double(tile.x) * kTileCells + kCol[c],
                                                                             double(tile.y) * kTileCells + kRow[c]}));
            const auto q = root.point(p.x, p.y, p.z);
            for (int i = 0; i < 3; ++i) s.ground[std::size_t(3 * c + i)] = onGrid(q[std::size_t(i)], kCentimetres);
        }
    }
    // Surfaces are left to the baked tiles, but the quad takes the colour its tile shows from
    // afar: the mean of its surfaces' colours by the cells they cover and of the ground's over
    // the rest, in linear light (overlapping surfaces leave no ground) — or, under one water
    // surface covering more than half of it (the sea, a lake), the water's, drawn glossy, so
    // water reads as water from afar.
    constexpr double kTileArea = double(kTileCells) * kTileCells;
    std::vector<std::array<double, 4>> mix(out.size(), {0.0, 0.0, 0.0, 0.0});  // linear r, g, b × cells; cells
    std::vector<std::uint64_t> largestWater(out.size(), 0);
    for (const SurfacePatch& p : scene.surfaces) {
        const std::ptrdiff_t k = tileOf(p.tile);
        if (k < 0) continue;
        LevelSource& level = out[std::size_t(k)];
        level.groundError = std::max(level.groundError, upOnGrid(std::abs(p.elevation), kCentimetres));
        std::uint64_t cells = 0;
        for (const CellRect& r : p.rects) cells += std::uint64_t(r.x1 - r.x0) * std::uint64_t(r.y1 - r.y0);
        std::array<double, 4>& m = mix[std::size_t(k)];
        for (int c = 0; c < 3; ++c) m[std::size_t(c)] += double(cells) * srgbToLinear(p.colour[std::size_t(c)] / 255.0);
        m[3] += double(cells);
        if (isWaterSurface(p) && 2 * cells > kTileCells * kTileCells && cells > largestWater[std::size_t(k)]) {
            largestWater[std::size_t(k)] = cells;
            level.groundColour = p.colour;
            level.groundWater = true;
        }
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
        std::array<double, 4>& m = mix[k];
        if (out[k].groundWater || !(m[3] > 0.0)) continue;
        const double ground = std::max(0.0, kTileArea - m[3]);
        for (std::size_t c = 0; c < 3; ++c) {
            m[c] += ground * srgbToLinear(groundColour[c] / 255.0);
            out[k].groundColour[c] = linearToSrgbByte(m[c] / (m[3] + ground));
        }
    }
    return out;
}

namespace {

/// A colour in a level source: 0xRRGGBB.
std::uint32_t packedRgb(Rgb c) { return (std::uint32_t{c.r} << 16) | (std::uint32_t{c.g} << 8) | c.b; }

Rgb unpackedRgb(const json& v) {
    const auto p = static_cast<std::uint32_t>(wholeNumber<std::uint32_t>(v, "a colour", 0, 0xffffff));
    return {static_cast<std::uint8_t>(p >> 16), static_cast<std::uint8_t>(p >> 8), static_cast<std::uint8_t>(p)};
}

}  // namespace

std::filesystem::path levelSourcePath(std::string_view quadkey) {
    return std::filesystem::path("3dtiles") / "levels" / (std::string(quadkey) + ".json");
}

std::string encodeLevelSource(const LevelSource& s) {
    const auto cm = [](float v) { return gridSteps(v, kCentimetres); };
    const auto box = [&](const LevelBox& b, bool building) {
        json a = json::array({cm(b.x), cm(b.y), cm(b.z), cm(b.halfWidth), cm(b.halfDepth), cm(b.height),
                              gridSteps(b.yaw, kYawSteps), building ? cm(b.key) : gridSteps(b.key, kRankSteps)});
        if (building) {
            a.push_back(cm(b.deviation));
            a.push_back(b.id);
            a.push_back(packedRgb(b.colours.walls));
        }
        a.push_back(packedRgb(b.colours.roof));
        return a;
    };
    json buildings = json::array(), plants = json::array(), ground = json::array();
    for (const LevelBox& b : s.buildings) buildings.push_back(box(b, true));
    for (const LevelBox& b : s.plants) plants.push_back(box(b, false));
    for (const float f : s.ground) ground.push_back(cm(f));
    const json doc{{"format", "terrabit level source, centimetres, yaw in 1e-4 rad, plant rank in 2^-24"},
                   {"quadkey", s.quadkey},
                   {"buildings", std::move(buildings)},
                   {"plants", std::move(plants)},
                   {"droppedBuildingSize", cm(s.droppedBuildingSize)},
                   {"droppedPlantHeight", cm(s.droppedPlantHeight)},
                   {"ground", std::move(ground)},
                   {"groundColour", s.groundColour},
                   {"groundWater", s.groundWater},
                   {"groundError", cm(s.groundError)}};
    return doc.dump() + "\n";
}

Result<LevelSource> decodeLevelSource(std::string_view text) {
    try {
        const json doc = json::parse(text);
        LevelSource s;
        // Lengths within ±2^31 cm (21,000 km), yaws within ±10^5 rad, ranks in [0, 1].
        constexpr long long kMostCentimetres = 1LL << 31;
        const auto cm = [](const json& v) {
            return static_cast<float>(wholeNumber<long long>(v, "a length", -kMostCentimetres, kMostCentimetres)) /
                   kCentimetres;
        };
        const auto box = [&](const json& a, bool building) {
            LevelBox b;
            b.x = cm(a.at(0));
            b.y = cm(a.at(1));
            b.z = cm(a.at(2));
            b.halfWidth = cm(a.at(3));
            b.halfDepth = cm(a.at(4));
            b.height = cm(a.at(5));
            b.yaw = static_cast<float>(wholeNumber<long long>(a.at(6), "a yaw", -1000000000, 1000000000)) / kYawSteps;
            b.key = building ? cm(a.at(7))
                             : static_cast<float>(wholeNumber<long long>(a.at(7), "a plant's rank", 0, 1LL << 24)) /
                                   kRankSteps;
            // The colours are absent from the level sources of older bakes: those they were drawn in.
            if (building) {
                b.deviation = cm(a.at(8));
                b.id = a.at(9).get<std::string>();
                if (a.size() > 11) b.colours = {unpackedRgb(a.at(10)), unpackedRgb(a.at(11))};
            } else {
                b.colours =
                    a.size() > 8 ? FacadeColours{unpackedRgb(a.at(8)), unpackedRgb(a.at(8))} : kLevelPlantColours;
            }
            return b;
        };
        s.quadkey = doc.at("quadkey").get<std::string>();
        for (const json& a : doc.at("buildings")) s.buildings.push_back(box(a, true));
        for (const json& a : doc.at("plants")) s.plants.push_back(box(a, false));
        s.droppedBuildingSize = cm(doc.at("droppedBuildingSize"));
        s.droppedPlantHeight = cm(doc.at("droppedPlantHeight"));
        const json& g = doc.at("ground");
        if (g.size() != s.ground.size()) return Error{"level source: \"ground\" needs 12 numbers"};
        for (std::size_t i = 0; i < s.ground.size(); ++i) s.ground[i] = cm(g[i]);
        const json& colour = doc.at("groundColour");
        if (!colour.is_array() || colour.size() != 3) return Error{"level source: \"groundColour\" needs 3 numbers"};
        for (std::size_t i = 0; i < 3; ++i) {
            s.groundColour[i] = static_cast<std::uint8_t>(wholeNumber<int>(colour[i], "a colour channel", 0, 255));
        }
        s.groundWater = doc.value("groundWater", false);  // absent from the level sources of older bakes
        s.groundError = cm(doc.at("groundError"));
        return s;
    } catch (const std::exception& e) {
        return Error{std::string("level source: ") + e.what()};
    }
}

namespace {

/// Builds the GLB of one inner tile.
class LevelEncoder {
public:
    LevelEncoder() { mModel.buffers.emplace_back(); }

    int view(const void* data, std::size_t bytes, int target) {
        std::vector<unsigned char>& bin = mModel.buffers[0].data;
        while (bin.size() % 4 != 0) bin.push_back(0);
        tinygltf::BufferView v;
        v.buffer = 0;
        v.byteOffset = bin.size();
        v.byteLength = bytes;
        v.target = target;
        const auto* p = static_cast<const unsigned char*>(data);
        bin.insert(bin.end(), p, p + bytes);
        mModel.bufferViews.push_back(std::move(v));
        return static_cast<int>(mModel.bufferViews.size() - 1);
    }

    int accessor(const std::vector<float>& v, int type, int components, int target, bool bounds) {
        tinygltf::Accessor a;
        a.bufferView = view(v.data(), v.size() * sizeof(float), target);
        a.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
        a.type = type;
        a.count = v.size() / static_cast<std::size_t>(components);
        if (bounds) {
            a.minValues.assign(static_cast<std::size_t>(components), std::numeric_limits<double>::infinity());
            a.maxValues.assign(static_cast<std::size_t>(components), -std::numeric_limits<double>::infinity());
            for (std::size_t i = 0; i < v.size(); ++i) {
                const std::size_t c = i % static_cast<std::size_t>(components);
                a.minValues[c] = std::min(a.minValues[c], double(v[i]));
                a.maxValues[c] = std::max(a.maxValues[c], double(v[i]));
            }
        }
        mModel.accessors.push_back(std::move(a));
        return static_cast<int>(mModel.accessors.size() - 1);
    }

    /// Instance rotations: rotationQuaternionSnorm16's normalised shorts, four per instance.
    int rotations(const std::vector<std::int16_t>& xyzw) {
        return normalisedVec4(view(xyzw.data(), xyzw.size() * sizeof(std::int16_t), 0), TINYGLTF_COMPONENT_TYPE_SHORT,
                              xyzw.size() / 4);
    }

    /// Vertex colours: RGBA normalised bytes, four per vertex.
    int colours(const std::vector<std::uint8_t>& rgba) {
        return normalisedVec4(view(rgba.data(), rgba.size(), TINYGLTF_TARGET_ARRAY_BUFFER),
                              TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, rgba.size() / 4);
    }

    /// A VEC4 accessor of normalised integers over a whole view.
    int normalisedVec4(int bufferView, int componentType, std::size_t count) {
        tinygltf::Accessor a;
        a.bufferView = bufferView;
        a.componentType = componentType;
        a.normalized = true;
        a.type = TINYGLTF_TYPE_VEC4;
        a.count = count;
        mModel.accessors.push_back(std::move(a));
        return static_cast<int>(mModel.accessors.size() - 1);
    }

    int indices(const std::vector<std::uint32_t>& idx, std::size_t vertices) {
        tinygltf::Accessor a;
        if (vertices <= std::numeric_limits<std::uint16_t>::max()) {
            const std::vector<std::uint16_t> small(idx.begin(), idx.end());
            a.bufferView = view(small.data(), small.size() * 2, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
            a.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
        } else {
            a.bufferView = view(idx.data(), idx.size() * 4, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
            a.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
        }
        a.type = TINYGLTF_TYPE_SCALAR;
        a.count = idx.size();
        mModel.accessors.push_back(std::move(a));
        return static_cast<int>(mModel.accessors.size() - 1);
    }

    int material(const std::string& name, std::array<std::uint8_t, 3> srgb, double roughness) {
        tinygltf::Material m;
        m.name = name;
        m.pbrMetallicRoughness.baseColorFactor = {srgbToLinear(srgb[0] / 255.0), srgbToLinear(srgb[1] / 255.0),
                                                  srgbToLinear(srgb[2] / 255.0), 1.0};
        m.pbrMetallicRoughness.metallicFactor = 0.0;
        m.pbrMetallicRoughness.roughnessFactor = roughness;
        mModel.materials.push_back(std::move(m));
        return static_cast<int>(mModel.materials.size() - 1);
    }

    /// Flat-shaded triangles (positions, normals, indices) as accessors, which any number of
    /// primitives may share.
    struct Geometry {
        int positions = -1, normals = -1, indices = -1;
        int colours = -1;  ///< COLOR_0, when there is one
    };
    Geometry geometry(const std::vector<float>& positions, const std::vector<float>& normals,
                      const std::vector<std::uint32_t>& idx) {
        return {accessor(positions, TINYGLTF_TYPE_VEC3, 3, TINYGLTF_TARGET_ARRAY_BUFFER, true),
                accessor(normals, TINYGLTF_TYPE_VEC3, 3, TINYGLTF_TARGET_ARRAY_BUFFER, false),
                indices(idx, positions.size() / 3)};
    }

    /// A mesh of one primitive per part: its geometry in its material.
    int mesh(const std::string& name, std::initializer_list<std::pair<Geometry, int>> parts) {
        tinygltf::Mesh m;
        m.name = name;
        for (const auto& [g, material] : parts) {
            tinygltf::Primitive p;
            p.attributes["POSITION"] = g.positions;
            p.attributes["NORMAL"] = g.normals;
            if (g.colours >= 0) p.attributes["COLOR_0"] = g.colours;
            p.indices = g.indices;
            p.material = material;
            p.mode = TINYGLTF_MODE_TRIANGLES;
            m.primitives.push_back(std::move(p));
        }
        mModel.meshes.push_back(std::move(m));
        return static_cast<int>(mModel.meshes.size() - 1);
    }

    /// A node drawing `mesh` once per box through EXT_mesh_gpu_instancing.
    int instanced(const std::string& name, int meshIndex, const std::vector<const LevelBox*>& boxes) {
        std::vector<float> t, s;
        std::vector<std::int16_t> r;
        for (const LevelBox* b : boxes) {
            t.insert(t.end(), {b->x, b->y, b->z});
            Instance i;
            i.yaw = b->yaw;
            const std::array<std::int16_t, 4> q = rotationQuaternionSnorm16(i);
            r.insert(r.end(), q.begin(), q.end());
            s.insert(s.end(), {std::max(2.0f * b->halfWidth, kMinExtent), std::max(b->height, kMinExtent),
                               std::max(2.0f * b->halfDepth, kMinExtent)});
        }
        tinygltf::Value::Object attributes;
        attributes["TRANSLATION"] = tinygltf::Value(accessor(t, TINYGLTF_TYPE_VEC3, 3, 0, false));
        attributes["ROTATION"] = tinygltf::Value(rotations(r));
        attributes["SCALE"] = tinygltf::Value(accessor(s, TINYGLTF_TYPE_VEC3, 3, 0, false));
        tinygltf::Value::Object extension;
        extension["attributes"] = tinygltf::Value(std::move(attributes));
        tinygltf::Node node;
        node.name = name;
        node.mesh = meshIndex;
        node.extensions["EXT_mesh_gpu_instancing"] = tinygltf::Value(std::move(extension));
        mInstancing = true;
        mModel.nodes.push_back(std::move(node));
        return static_cast<int>(mModel.nodes.size() - 1);
    }

    void setExtras(int node, tinygltf::Value extras) {
        mModel.nodes[static_cast<std::size_t>(node)].extras = std::move(extras);
    }

    int node(tinygltf::Node n) {
        mModel.nodes.push_back(std::move(n));
        return static_cast<int>(mModel.nodes.size() - 1);
    }

    Result<std::vector<std::uint8_t>> finish(int rootNode) {
        mModel.asset.version = "2.0";
        mModel.asset.generator = "Terrabit";
        mModel.asset.copyright = kOsmAttribution;
        tinygltf::Scene scene;
        scene.name = "terrabit level";
        scene.nodes.push_back(rootNode);
        mModel.scenes.push_back(std::move(scene));
        mModel.defaultScene = 0;
        if (mInstancing) {
            mModel.extensionsUsed.push_back("EXT_mesh_gpu_instancing");
            mModel.extensionsRequired.push_back("EXT_mesh_gpu_instancing");
        }
        std::vector<unsigned char>& bin = mModel.buffers[0].data;
        while (bin.size() % 4 != 0) bin.push_back(0);
        std::ostringstream stream;
        tinygltf::TinyGLTF writer;
        if (!writer.WriteGltfSceneToStream(&mModel, stream, false, true)) {
            return Error{"tinygltf failed to encode a level's GLB"};
        }
        const std::string bytes = stream.str();
        return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
    }

private:
    tinygltf::Model mModel;
    bool mInstancing = false;
};

/// An sRGB colour as a vertex colour: linear light in normalised bytes, opaque.
std::array<std::uint8_t, 4> linearBytes(std::array<std::uint8_t, 3> srgb) {
    std::array<std::uint8_t, 4> out{0, 0, 0, 255};
    for (std::size_t c = 0; c < 3; ++c) {
        out[c] = static_cast<std::uint8_t>(std::lround(255.0 * srgbToLinear(srgb[c] / 255.0)));
    }
    return out;
}

/// Appends a flat face (corners counter-clockwise seen from outside) with its normal.
void addFace(std::vector<float>& pos, std::vector<float>& nrm, std::vector<std::uint32_t>& idx,
             std::initializer_list<std::array<float, 3>> corners, std::array<float, 3> normal) {
    const auto base = static_cast<std::uint32_t>(pos.size() / 3);
    for (const auto& c : corners) {
        pos.insert(pos.end(), c.begin(), c.end());
        nrm.insert(nrm.end(), normal.begin(), normal.end());
    }
    for (std::uint32_t k = 1; k + 1 < corners.size(); ++k) idx.insert(idx.end(), {base, base + k, base + k + 1});
}

}  // namespace

Result<LevelContent> encodeLevelContent(std::span<const LevelSource* const> below, int depth) {
    if (below.empty()) return Error{"level content: no baked tiles below"};
    LevelContent out;
    float droppedBuilding = 0, droppedPlant = 0, deviation = 0, groundError = 0;
    std::vector<const LevelBox*> buildings, plants;
    const float rank = std::ldexp(1.0f, -2 * depth);  // 4^-depth
    for (const LevelSource* s : below) {
        droppedBuilding = std::max(droppedBuilding, s->droppedBuildingSize);
        droppedPlant = std::max(droppedPlant, s->droppedPlantHeight);
        groundError = std::max(groundError, s->groundError);
        for (const LevelBox& b : s->buildings) buildings.push_back(&b);
        for (const LevelBox& p : s->plants) {
            if (p.key < rank) {
                plants.push_back(&p);
            } else {
                droppedPlant = std::max(droppedPlant, p.height);
            }
        }
    }
    std::sort(buildings.begin(), buildings.end(),
              [](const LevelBox* a, const LevelBox* b) { return largerBuilding(*a, *b); });
    for (std::size_t i = kLevelBuildings; i < buildings.size(); ++i) {
        droppedBuilding = std::max(droppedBuilding, buildings[i]->key);
    }
    if (buildings.size() > kLevelBuildings) buildings.resize(kLevelBuildings);
    for (const LevelBox* b : buildings) deviation = std::max(deviation, b->deviation);
    std::sort(plants.begin(), plants.end(), [](const LevelBox* a, const LevelBox* b) { return lowerRank(*a, *b); });

    LevelEncoder enc;
    tinygltf::Node root;
    root.name = "terrabit level";
    // The ground: a quad per baked tile in its colour (vertex colours, as tiles' colours are
    // means and seldom repeat), land matte and water glossy, a primitive each.
    {
        struct Quads {
            std::vector<float> pos, nrm;
            std::vector<std::uint32_t> idx;
            std::vector<std::uint8_t> rgba;  ///< linear light, per vertex
        };
        std::array<Quads, 2> quads;  // land, water
        for (const LevelSource* s : below) {
            const auto& g = s->ground;
            const std::array<float, 3> nw{g[0], g[1], g[2]}, sw{g[3], g[4], g[5]}, se{g[6], g[7], g[8]},
                ne{g[9], g[10], g[11]};
            // The quad's normal from its diagonals (a flat tile's is the root's up, nearly).
            const float ax = se[0] - nw[0], ay = se[1] - nw[1], az = se[2] - nw[2];
            const float bx = ne[0] - sw[0], by = ne[1] - sw[1], bz = ne[2] - sw[2];
            std::array<float, 3> n{ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx};
            const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            n = len > 0 ? std::array<float, 3>{n[0] / len, n[1] / len, n[2] / len} : std::array<float, 3>{0, 1, 0};
            if (n[1] < 0) n = {-n[0], -n[1], -n[2]};
            Quads& q = quads[s->groundWater ? 1 : 0];
            addFace(q.pos, q.nrm, q.idx, {nw, sw, se, ne}, n);
            const std::array<std::uint8_t, 4> colour = linearBytes(s->groundColour);
            for (int corner = 0; corner < 4; ++corner) q.rgba.insert(q.rgba.end(), colour.begin(), colour.end());
        }
        for (const bool water : {false, true}) {
            const Quads& q = quads[water ? 1 : 0];
            if (q.idx.empty()) continue;
            LevelEncoder::Geometry geometry = enc.geometry(q.pos, q.nrm, q.idx);
            geometry.colours = enc.colours(q.rgba);
            const int material =
                enc.material(water ? "water" : "ground", {255, 255, 255}, water ? kWaterRoughness : kGroundRoughness);
            tinygltf::Node part;
            part.name = "ground";
            part.mesh = enc.mesh("ground", {{geometry, material}});
            root.children.push_back(enc.node(std::move(part)));
        }
    }
    if (!buildings.empty()) {
        // The unit box's sides and its top, shared by every pair of colours.
        std::vector<float> pos, nrm;
        std::vector<std::uint32_t> idx;
        const float h = 0.5f;
        addFace(pos, nrm, idx, {{-h, 0, h}, {h, 0, h}, {h, 1, h}, {-h, 1, h}}, {0, 0, 1});
        addFace(pos, nrm, idx, {{h, 0, -h}, {-h, 0, -h}, {-h, 1, -h}, {h, 1, -h}}, {0, 0, -1});
        addFace(pos, nrm, idx, {{h, 0, h}, {h, 0, -h}, {h, 1, -h}, {h, 1, h}}, {1, 0, 0});
        addFace(pos, nrm, idx, {{-h, 0, -h}, {-h, 0, h}, {-h, 1, h}, {-h, 1, -h}}, {-1, 0, 0});
        const LevelEncoder::Geometry sides = enc.geometry(pos, nrm, idx);
        pos.clear();
        nrm.clear();
        idx.clear();
        addFace(pos, nrm, idx, {{-h, 1, h}, {h, 1, h}, {h, 1, -h}, {-h, 1, -h}}, {0, 1, 0});
        const LevelEncoder::Geometry top = enc.geometry(pos, nrm, idx);
        // One instanced node per pair of colours (by colour value), its boxes in the order kept;
        // a material per colour.
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<const LevelBox*>> byColours;
        for (const LevelBox* b : buildings)
            byColours[{packedRgb(b->colours.walls), packedRgb(b->colours.roof)}].push_back(b);
        std::map<std::uint32_t, int> materials;
        const auto material = [&](Rgb c) {
            const auto [it, made] = materials.emplace(packedRgb(c), -1);
            if (made) it->second = enc.material("buildings", {c.r, c.g, c.b}, 0.9);
            return it->second;
        };
        for (const auto& [key, boxes] : byColours) {
            const FacadeColours& c = boxes.front()->colours;
            const int mesh = enc.mesh("building box", {{sides, material(c.walls)}, {top, material(c.roof)}});
            const int node = enc.instanced("buildings", mesh, boxes);
            tinygltf::Value::Array ids;
            for (const LevelBox* b : boxes) ids.emplace_back(b->id);
            tinygltf::Value::Object extras;
            extras["sources"] = tinygltf::Value(std::move(ids));
            enc.setExtras(node, tinygltf::Value(std::move(extras)));
            root.children.push_back(node);
        }
        out.buildings = buildings.size();
    }
    if (!plants.empty()) {
        std::vector<float> pos, nrm;
        std::vector<std::uint32_t> idx;
        // A four-sided pyramid in the unit box: a tree's crown read from afar.
        const float h = 0.5f;
        const std::array<float, 3> apex{0, 1, 0};
        const float k = 1.0f / std::sqrt(1.0f + 0.25f);  // side normals: (±1 or 0, 0.5, ±1 or 0) normalised
        addFace(pos, nrm, idx, {{-h, 0, h}, {h, 0, h}, apex}, {0, 0.5f * k, k});
        addFace(pos, nrm, idx, {{h, 0, h}, {h, 0, -h}, apex}, {k, 0.5f * k, 0});
        addFace(pos, nrm, idx, {{h, 0, -h}, {-h, 0, -h}, apex}, {0, 0.5f * k, -k});
        addFace(pos, nrm, idx, {{-h, 0, -h}, {-h, 0, h}, apex}, {-k, 0.5f * k, 0});
        const LevelEncoder::Geometry pyramid = enc.geometry(pos, nrm, idx);
        // One instanced node per crown colour (by colour value), its plants in rank order.
        std::map<std::uint32_t, std::vector<const LevelBox*>> byColour;
        for (const LevelBox* p : plants) byColour[packedRgb(p->colours.roof)].push_back(p);
        for (const auto& [key, group] : byColour) {
            const Rgb c = group.front()->colours.roof;
            const int mesh = enc.mesh("plant", {{pyramid, enc.material("plants", {c.r, c.g, c.b}, 0.95)}});
            root.children.push_back(enc.instanced("plants", mesh, group));
        }
        out.plants = plants.size();
    }
    auto glb = enc.finish(enc.node(std::move(root)));
    if (!glb) return glb.error();
    out.glb = std::move(glb).value();
    // Thinned plants: besides the tallest left out, a viewer misses the detail between the ones
    // drawn, which stand sqrt(area / drawn) apart on average — where they are enough to speak
    // of a density (a few scattered trees are only as wrong as the tallest one missing).
    double spacing = 0.0;
    if (droppedPlant > 0 && plants.size() >= kLevelDensityPlants) {
        double area = 0.0;
        for (const LevelSource* s : below) {
            const auto& g = s->ground;  // NW, SW, SE, NE: half the cross product of the diagonals
            area +=
                0.5 * std::abs(double(g[6] - g[0]) * double(g[11] - g[5]) - double(g[8] - g[2]) * double(g[9] - g[3]));
        }
        spacing = std::sqrt(area / double(std::max<std::size_t>(plants.size(), 1)));
    }
    out.geometricError =
        std::max({double(droppedBuilding), double(droppedPlant), spacing, double(deviation), double(groundError)});
    return out;
}

}  // namespace terrabit::core
