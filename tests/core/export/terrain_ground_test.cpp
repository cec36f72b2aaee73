// The ground on terrain (the Terrain issue: "the ground mesh, per tile … crack-free across tiles,
// with normals for lighting" and "GLB, 3D Tiles: the terrain mesh and everything on it"): the
// harbour of the Monaco sample baked through the Session on a cone DEM the test makes, its GLB
// read back. The ground's vertices lie on the analytic cone, the mesh within its bound of the
// sampled heights at every cell corner, shared tile edges meet without cracks, normals are unit
// and up, road and water surfaces lie on the mesh at their elevation, the 3D Tiles regions hold
// the ground's heights, and a streamed bake (batches with halos, as shards) writes the same bytes as a whole one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "export_test_support.h"
#include "gltf_test_support.h"
#include "scene/ground_drape_p.h"
#include "support/test_dems.h"
#include "terrabit/cli/bake_command.h"
#include "terrabit/cli/merge_command.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/scene/ground_drape.h"

using namespace terrabit::core;
using terrabit::test::TempDir;

namespace {

const std::filesystem::path kResources = TERRABIT_RESOURCES_DIR;
const Box2 kHarbour{{7.418, 43.731}, {7.428, 43.738}};
const Vec2 kCentre = lonLatToMercator(test::kMonacoCentre);

/// A cone 300 m high at Monaco's centre, falling 1 m per 5 Mercator metres.
double cone(Vec2 m) { return 300.0 - 0.2 * std::hypot(m.x - kCentre.x, m.y - kCentre.y); }

std::vector<std::uint8_t> bytesOf(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// One bake of the harbour on the cone, shared by the tests (the DEM and the bake take a while).
struct ConeBake {
    TempDir dir;
    std::filesystem::path dem;
    std::unique_ptr<pipeline::Session> session;
    Scene scene;
    tinygltf::Model glb;

    ConeBake() {
        dem = test::writeMercatorDem(dir / "cone.tif", cone, 5.0, 2500.0);
        pipeline::SessionInput input;
        input.map.file = kResources / "maps/monaco-2022-07-19.osm.pbf";
        input.map.rules = kResources / "rules/default.yaml";
        input.tiles.zoom = 17;
        input.tiles.bboxLonLat = kHarbour;
        input.catalogueFile = kResources / "assets/catalogue.yaml";
        input.threads = 2;
        input.dems = {dem};
        auto s = pipeline::Session::open(std::move(input));
        EXPECT_TRUE(s.ok()) << s.message();
        if (!s.ok()) return;
        session = std::move(*s);
        placement::BakeOptions options;
        options.seed = 7;
        auto baked = session->bake(options);
        EXPECT_TRUE(baked.ok()) << baked.message();
        if (!baked.ok()) return;
        scene = std::move(*baked);
        auto written = session->exportScene(
            scene, session->exportOptions({ExportFormat::Glb, ExportFormat::Tiles3d}, dir / "out"));
        EXPECT_TRUE(written.ok()) << written.message();
        glb = terrabit::test::loadGlb(bytesOf(dir / "out" / "scene.glb"));
    }
};

const ConeBake& coneBake() {
    static const ConeBake bake;
    return bake;
}

/// The positions and normals of a tile's primitive of one material in the GLB.
struct GroundPrimitive {
    std::vector<float> positions, normals;
    std::vector<std::uint32_t> indices;
};
GroundPrimitive primitiveOf(const tinygltf::Model& m, const TileId& tile, const std::string& material) {
    GroundPrimitive out;
    for (const tinygltf::Mesh& mesh : m.meshes) {
        if (mesh.name != "ground " + tile.quadkey()) continue;
        for (const tinygltf::Primitive& p : mesh.primitives) {
            if (m.materials.at(static_cast<std::size_t>(p.material)).name != material) continue;
            const auto base = static_cast<std::uint32_t>(out.positions.size() / 3);
            const auto pos = terrabit::test::accessorData<float>(m, p.attributes.at("POSITION"));
            const auto nor = terrabit::test::normalData(m, p.attributes.at("NORMAL"));
            out.positions.insert(out.positions.end(), pos.begin(), pos.end());
            out.normals.insert(out.normals.end(), nor.begin(), nor.end());
            for (const std::uint32_t i : terrabit::test::indexData(m, p.indices)) out.indices.push_back(base + i);
        }
    }
    return out;
}

/// The sides of a primitive's triangles that lie on a tile edge — x == `edge` (axis 0) or
/// z == `edge` (axis 2) at both ends — as (along, height) pairs, `along` the other horizontal
/// coordinate, the lower first.
using EdgeSegment = std::array<std::pair<float, float>, 2>;
std::vector<EdgeSegment> edgeSegments(const GroundPrimitive& p, int axis, float edge) {
    std::vector<EdgeSegment> out;
    const auto at = [&](std::uint32_t v) {
        return std::pair{p.positions[v * 3 + static_cast<std::size_t>(2 - axis)], p.positions[v * 3 + 1]};
    };
    const auto on = [&](std::uint32_t v) { return p.positions[v * 3 + static_cast<std::size_t>(axis)] == edge; };
    for (std::size_t t = 0; t + 2 < p.indices.size(); t += 3) {
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t a = p.indices[t + static_cast<std::size_t>(k)];
            const std::uint32_t b = p.indices[t + static_cast<std::size_t>((k + 1) % 3)];
            if (!on(a) || !on(b)) continue;
            EdgeSegment s{at(a), at(b)};
            if (s[1].first < s[0].first) std::swap(s[0], s[1]);
            if (s[0].first < s[1].first) out.push_back(s);
        }
    }
    return out;
}

/// How far the ends of `a`'s edge segments lie from `b`'s segments along the same edge (where
/// `b` reaches them; holes and surfaces may end at the edge on one side only), metres, and how
/// many ends were compared. A crack shows as a distance.
std::pair<double, std::size_t> gapBetween(const std::vector<EdgeSegment>& a, const std::vector<EdgeSegment>& b) {
    double worst = 0.0;
    std::size_t compared = 0;
    for (const EdgeSegment& s : a) {
        for (const auto& [t, h] : s) {
            for (const EdgeSegment& o : b) {
                if (t < o[0].first || t > o[1].first) continue;
                const double f = (double(t) - o[0].first) / (double(o[1].first) - o[0].first);
                worst = std::max(worst, std::abs(double(o[0].second) + f * (double(o[1].second) - o[0].second) - h));
                ++compared;
            }
        }
    }
    return {worst, compared};
}

/// How far the ground drawn over a cell may depart from its bilinear heights, beyond the
/// mesh's bound, metres: the cell's twist |h00 − h10 − h01 + h11| / 4, by which its bilinear
/// surface leaves the planes of the two triangles drawn over it (largest at its centre). A
/// ground graded by roads bends sharply within a cell (an embankment's toe, a cut's edge), so
/// between samples this is no longer negligible. The largest of the cells `cell` touches.
double cellTwist(const terrain::HeightTile& h, Vec2 cell) {
    double twist = 0.0;
    for (const double dx : {-1e-6, 1e-6}) {
        for (const double dy : {-1e-6, 1e-6}) {
            const int c = std::clamp(static_cast<int>(std::floor(cell.x + dx)), 0, kTileCells - 1);
            const int r = std::clamp(static_cast<int>(std::floor(cell.y + dy)), 0, kTileCells - 1);
            twist = std::max(twist,
                             std::abs(double(h.at(r, c)) - h.at(r, c + 1) - h.at(r + 1, c) + h.at(r + 1, c + 1)) / 4.0);
        }
    }
    return twist;
}

}  // namespace

/// Every test reads the one cone bake: `b`, and its scene `s`.
class TerrainGround : public testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(b.session); }
    const ConeBake& b = coneBake();
    const Scene& s = b.scene;
};

TEST_F(TerrainGround, TheSceneHasAMeshPerTileSharingItsEdgesExactly) {
    ASSERT_TRUE(s.terrain);
    ASSERT_EQ(s.ground.size(), s.tiles.size());
    ASSERT_GE(s.tiles.size(), 9u);
    std::size_t shared = 0;
    for (std::size_t i = 0; i < s.tiles.size(); ++i) {
        const GroundTile& g = s.ground[i];
        EXPECT_EQ(g.mesh.tile, s.tiles[i]);
        EXPECT_FALSE(g.mesh.empty());
        EXPECT_EQ(g.normals.size(), g.mesh.vertices.size());
        // East and south neighbours: this tile's column 256 (row 256) is their column 0 (row
        // 0), the same samples with the same heights.
        for (const bool eastward : {true, false}) {
            const auto n = eastward ? s.tiles[i].neighbour(1, 0) : s.tiles[i].neighbour(0, 1);
            const GroundTile* e = n ? s.groundOf(*n) : nullptr;
            if (!e) continue;
            std::vector<std::pair<int, float>> mine, theirs;
            for (const auto& v : g.mesh.vertices) {
                if ((eastward ? v.column : v.row) == kTileCells)
                    mine.emplace_back(eastward ? v.row : v.column, v.height);
            }
            for (const auto& v : e->mesh.vertices) {
                if ((eastward ? v.column : v.row) == 0) theirs.emplace_back(eastward ? v.row : v.column, v.height);
            }
            EXPECT_EQ(mine, theirs) << s.tiles[i].quadkey() << (eastward ? " east" : " south");
            ++shared;
        }
    }
    EXPECT_GT(shared, 0u);
}

TEST_F(TerrainGround, GlbGroundVerticesLieOnTheConeAndTheMeshWithinItsBound) {
    std::size_t vertices = 0, corners = 0, onSamples = 0, cut = 0, onCone = 0, asCone = 0;
    for (const GroundTile& g : s.ground) {
        const GroundPrimitive p = primitiveOf(b.glb, g.mesh.tile, "ground");
        ASSERT_FALSE(p.indices.empty()) << g.mesh.tile.quadkey();
        std::set<std::array<float, 3>> samples;
        const GroundTriangles whole = groundTriangles(s, g);
        for (std::size_t i = 0; i + 2 < whole.positions.size(); i += 3) {
            samples.insert({whole.positions[i], whole.positions[i + 1], whole.positions[i + 2]});
        }
        for (std::size_t i = 0; i + 2 < p.positions.size(); i += 3, ++vertices) {
            const Vec2 ground{p.positions[i], -double(p.positions[i + 2])};
            const double height = double(p.positions[i + 1]) + s.originHeight;
            const Vec2 m = s.frame.groundToMercator(ground);
            // A sample of the mesh is on the ground (the cone graded by the map's roads, lakes and
            // rivers); a corner cut where water makes a hole is within the mesh's bound of it. Off
            // the apex and off what grading moved, the ground is the cone (near linear between
            // the DEM's 5 m pixels).
            if (std::hypot(m.x - kCentre.x, m.y - kCentre.y) > 20.0) {
                const bool sample = samples.count({p.positions[i], p.positions[i + 1], p.positions[i + 2]}) > 0;
                auto atSample = b.session->groundHeight(m);
                ASSERT_TRUE(atSample.ok());
                auto tileHeights = b.session->heightTile(g.mesh.tile);
                ASSERT_TRUE(tileHeights.ok());
                const double twist = cellTwist(**tileHeights, g.mesh.tile.mercatorToCell(m));
                EXPECT_NEAR(height, *atSample, sample ? 0.05 : terrain::kDefaultGroundErrorMetres + twist + 0.05)
                    << g.mesh.tile.quadkey();
                ++(sample ? onSamples : cut);
                onCone += std::abs(height - cone(m)) < 0.05 ? 1 : 0;
            }
            // Normals: unit, up, and mostly up the way a slope of 1 in 5 Mercator metres leans
            // them (where grading cut a road or levelled a basin into the cone, steeper).
            const double nx = p.normals[i], ny = p.normals[i + 1], nz = p.normals[i + 2];
            // (Stored as bytes, KHR_mesh_quantization: unit within the rounding of 1/127 a component.)
            EXPECT_NEAR(std::sqrt(nx * nx + ny * ny + nz * nz), 1.0, 0.01);
            EXPECT_GT(ny, 0.0);
            asCone += ny > 0.9 ? 1 : 0;
        }
        // The mesh within the bound of the sampled heights at every 4th cell corner.
        auto heights = b.session->heightTile(g.mesh.tile);
        ASSERT_TRUE(heights.ok());
        for (int r = 0; r <= kTileCells; r += 4) {
            for (int c = 0; c <= kTileCells; c += 4, ++corners) {
                const double mesh = groundMeshHeight(g.mesh, {double(c), double(r)});
                EXPECT_NEAR(mesh, (*heights)->at(r, c), terrain::kDefaultGroundErrorMetres + 1e-3)
                    << g.mesh.tile.quadkey() << " row " << r << " column " << c;
            }
        }
    }
    EXPECT_GT(vertices, 1000u);
    EXPECT_GT(onSamples, 1000u);
    EXPECT_GT(onCone, 1000u) << "away from what grading moved, the ground is the DEM's";
    EXPECT_GT(asCone, 1000u) << "and leans as the cone does";
    EXPECT_GT(corners, 1000u);
}

TEST_F(TerrainGround, GlbTilesMeetWithoutCracks) {
    std::size_t edges = 0, compared = 0;
    for (const TileId& t : s.tiles) {
        for (const auto& [dx, dy] : {std::pair{1, 0}, std::pair{0, 1}}) {
            const auto n = t.neighbour(dx, dy);
            if (!n || !s.groundOf(*n)) continue;
            const int axis = dx ? 0 : 2;
            const Vec3f corner = groundVertexPosition(s, t, kTileCells, kTileCells, 0.0);
            const float edge = axis == 0 ? corner.x : corner.z;
            // Ground and every draped surface: each side's edge on the other's.
            for (const std::string material : {"ground", "road", "water"}) {
                const auto a = edgeSegments(primitiveOf(b.glb, t, material), axis, edge);
                const auto c = edgeSegments(primitiveOf(b.glb, *n, material), axis, edge);
                const auto [ab, abCount] = gapBetween(a, c);
                const auto [cb, cbCount] = gapBetween(c, a);
                EXPECT_LT(std::max(ab, cb), 1e-3) << material << " between " << t.quadkey() << " and " << n->quadkey();
                compared += abCount + cbCount;
            }
            ++edges;
        }
    }
    EXPECT_GE(edges, 12u);
    EXPECT_GT(compared, 100u);
}

TEST_F(TerrainGround, SurfacesLieOnTheGroundAtTheirElevation) {
    std::size_t checked = 0, triangles = 0;
    std::map<std::string, std::size_t> patches;
    for (const SurfacePatch& p : s.surfaces) {
        const GroundTile* g = s.groundOf(p.tile);
        ASSERT_NE(g, nullptr);
        // The real shape where the bake made one (what every export draws), else the cells.
        ASSERT_FALSE(p.shape.empty()) << p.layer << " " << p.tile.quadkey();
        const GroundTriangles d = drapeTriangles(s, p.tile, g, p.shape.triangles, p.elevation);
        triangles += d.triangleCount();
        ++patches[p.layer];
        auto heights = b.session->heightTile(p.tile);
        ASSERT_TRUE(heights.ok());
        for (std::size_t v = 0; v < d.vertexCount(); v += 17, ++checked) {
            const Vec2 cell{d.cells[v * 2], d.cells[v * 2 + 1]};
            const double y = d.positions[v * 3 + 1];
            // On the mesh drawn, to a centimetre; within the mesh's bound of the bilinear ground.
            EXPECT_NEAR(y, groundMeshHeight(g->mesh, cell) - s.originHeight + p.elevation, 0.01) << p.layer;
            EXPECT_NEAR(y, terrain::heightAt(**heights, cell) - s.originHeight + p.elevation,
                        terrain::kDefaultGroundErrorMetres + cellTwist(**heights, cell) + 0.01)
                << p.layer;
        }
        // The GLB draws the same drape.
        const GroundPrimitive glb = primitiveOf(b.glb, p.tile, p.layer);
        EXPECT_EQ(glb.positions.size(), d.positions.size());
    }
    EXPECT_GT(patches["road"], 0u);
    EXPECT_GT(patches["water"], 0u);
    EXPECT_GT(checked, 1000u);
    EXPECT_GT(triangles, 0u);
}

TEST_F(TerrainGround, KerbWallsStandOnTheGroundUpToTheRaisedSurface) {
    // Walls round a road's real shape, as a kerb stands round a sidewalk: every foot on the mesh
    // at the road's elevation, every top the kerb's height above it, the faces vertical.
    std::size_t feet = 0, tops = 0;
    for (const SurfacePatch& p : s.surfaces) {
        if (p.layer != "road") continue;
        const GroundTile* g = s.groundOf(p.tile);
        ASSERT_NE(g, nullptr);
        const float top = p.elevation + kKerbHeightMetres;
        const GroundTriangles w = drapeWalls(s, p.tile, g, p.shape.triangles, p.elevation, top);
        ASSERT_EQ(w.vertexCount() % 4, 0u);
        for (std::size_t v = 0; v < w.vertexCount(); v += 3) {  // every corner of a quad in turn, sampled
            const Vec2 cell{w.cells[v * 2], w.cells[v * 2 + 1]};
            const double ground = groundMeshHeight(g->mesh, cell) - s.originHeight;
            const double y = w.positions[v * 3 + 1];
            // A quad's corners: foot, foot, top, top.
            const bool foot = v % 4 < 2;
            EXPECT_NEAR(y, ground + (foot ? p.elevation : top), 0.01) << p.tile.quadkey();
            ++(foot ? feet : tops);
            EXPECT_EQ(w.normals[v * 3 + 1], 0.0f);
        }
    }
    EXPECT_GT(feet, 100u);
    EXPECT_GT(tops, 100u);
}

TEST_F(TerrainGround, TilesetRegionsHoldTheGroundsHeights) {
    std::ifstream in(b.dir / "out" / "3dtiles" / "tileset.json");
    const nlohmann::json tileset = nlohmann::json::parse(in);
    const auto& region = tileset["root"]["boundingVolume"]["region"];
    ASSERT_EQ(region.size(), 6u);
    const double lo = b.scene.statistics.minHeight, hi = b.scene.statistics.maxHeight;
    ASSERT_LT(lo, hi);
    // The ground's heights are within the root's range; the cone spans well over 100 m here.
    EXPECT_LE(region[4].get<double>(), lo + 0.01);
    EXPECT_GE(region[5].get<double>(), hi - terrain::kDefaultGroundErrorMetres);
    EXPECT_GT(hi - lo, 100.0);
}

TEST_F(TerrainGround, AnyThreadCountGivesTheSameGround) {
    pipeline::SessionInput input;
    input.map.file = kResources / "maps/monaco-2022-07-19.osm.pbf";
    input.map.rules = kResources / "rules/default.yaml";
    input.tiles.zoom = 17;
    input.tiles.bboxLonLat = kHarbour;
    input.catalogueFile = kResources / "assets/catalogue.yaml";
    input.threads = 1;
    input.dems = {b.dem};
    auto session = pipeline::Session::open(std::move(input));
    ASSERT_TRUE(session.ok()) << session.message();
    placement::BakeOptions options;
    options.seed = 7;
    options.threads = 1;
    auto scene = (*session)->bake(options);
    ASSERT_TRUE(scene.ok()) << scene.message();
    ASSERT_EQ(scene->ground.size(), b.scene.ground.size());
    for (std::size_t i = 0; i < scene->ground.size(); ++i) {
        const GroundTile& x = scene->ground[i];
        const GroundTile& y = b.scene.ground[i];
        EXPECT_EQ(x.mesh.indices, y.mesh.indices);
        ASSERT_EQ(x.mesh.vertices.size(), y.mesh.vertices.size());
        for (std::size_t v = 0; v < x.mesh.vertices.size(); ++v) {
            EXPECT_EQ(x.mesh.vertices[v].column, y.mesh.vertices[v].column);
            EXPECT_EQ(x.mesh.vertices[v].row, y.mesh.vertices[v].row);
            EXPECT_EQ(x.mesh.vertices[v].height, y.mesh.vertices[v].height);
        }
        EXPECT_EQ(x.normals, y.normals);
    }
    // A coarser bound gives fewer triangles (and the cache does not hand back the old meshes).
    options.groundErrorMetres = 4.0F;
    auto coarse = (*session)->bake(options);
    ASSERT_TRUE(coarse.ok()) << coarse.message();
    std::size_t fine = 0, rough = 0;
    for (const GroundTile& g : scene->ground) fine += g.mesh.triangleCount();
    for (const GroundTile& g : coarse->ground) rough += g.mesh.triangleCount();
    EXPECT_LT(rough, fine);

    // The bound is a rule too: a surface pass's ground_error (the smallest holds) gives the
    // same meshes as the option, and the option, when given, overrides it.
    const auto meshesOf = [](const Scene& baked) {
        std::vector<std::vector<std::uint32_t>> out;
        for (const GroundTile& g : baked.ground) out.push_back(g.mesh.indices);
        return out;
    };
    auto ruled = (*session)->rulesWith({{"passes.roads.ground_error", "4"}, {"passes.water.ground_error", "6"}});
    ASSERT_TRUE(ruled.ok()) << ruled.message();
    ASSERT_TRUE((*session)->setRules(std::move(*ruled)).ok());
    options.groundErrorMetres.reset();
    auto byRule = (*session)->bake(options);
    ASSERT_TRUE(byRule.ok()) << byRule.message();
    EXPECT_EQ(meshesOf(*byRule), meshesOf(*coarse)) << "the rule's 4 m, the smallest of the surface passes";
    options.groundErrorMetres = 0.5F;
    auto overridden = (*session)->bake(options);
    ASSERT_TRUE(overridden.ok()) << overridden.message();
    EXPECT_EQ(meshesOf(*overridden), meshesOf(*scene)) << "the option over the rule";
}

TEST_F(TerrainGround, AStreamedBakeAndMergedShardsWriteTheSameGroundAsAWholeOne) {
    TempDir dir;
    const auto bake = [&](const std::string& name, std::size_t batchTiles,
                          std::optional<scale::ShardSpec> shard = std::nullopt) {
        terrabit::cli::BakeCommand c;
        c.input.file = kResources / "maps/monaco-2022-07-19.osm.pbf";
        c.input.rules = kResources / "rules/default.yaml";
        c.catalogue = kResources / "assets/catalogue.yaml";
        c.selection.zoom = 17;
        c.selection.bboxLonLat = kHarbour;
        c.seed = 7;
        c.dems = {b.dem};
        c.batchTiles = batchTiles;
        c.outDir = dir / name;
        c.formats = {ExportFormat::Glb, ExportFormat::Tiles3d};
        if (shard) c.shard = *shard;
        std::ostringstream out, err;
        EXPECT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
        return c.outDir;
    };
    const auto whole = bake("whole", 0);
    const auto streamed = bake("streamed", 4);
    EXPECT_EQ(bytesOf(whole / "scene.glb"), bytesOf(streamed / "scene.glb"));
    // Shards, one streamed: the merge encodes scene.glb from their scene.part, ground, plinths
    // and draped surfaces as one machine writes them.
    terrabit::cli::MergeCommand merge;
    merge.shards = {bake("shard1", 0, scale::ShardSpec{1, 2}), bake("shard0", 4, scale::ShardSpec{0, 2})};
    merge.outDir = dir / "merged";
    std::ostringstream out, err;
    ASSERT_EQ(terrabit::cli::runMerge(merge, out, err), 0) << err.str();
    EXPECT_TRUE(bytesOf(whole / "scene.glb") == bytesOf(merge.outDir / "scene.glb"));
    EXPECT_FALSE(b.scene.ground.empty());  // what the parts carry beyond the flat world's
    EXPECT_FALSE(b.scene.plinths.empty());
    std::size_t tiles = 0;
    for (const auto& e : std::filesystem::directory_iterator(whole / "3dtiles" / "tiles")) {
        EXPECT_EQ(bytesOf(e.path()), bytesOf(streamed / "3dtiles" / "tiles" / e.path().filename()))
            << e.path().filename();
        ++tiles;
    }
    EXPECT_GE(tiles, 9u);
    EXPECT_EQ(bytesOf(whole / "3dtiles" / "tileset.json"), bytesOf(streamed / "3dtiles" / "tileset.json"));
}
