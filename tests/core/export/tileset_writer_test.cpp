#include <gtest/gtest.h>
#include <ogr_spatialref.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>

#include "export_test_support.h"
#include "gltf_test_support.h"
#include "terrabit/core/export/geodesy.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/tileset_writer.h"

using namespace terrabit::core;
using nlohmann::json;
using terrabit::test::accessorData;
using terrabit::test::loadGlb;
using terrabit::test::makeScene;
using terrabit::test::rotationData;
using terrabit::test::shippedCatalogue;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

/// PROJ (through GDAL) as the reference for WGS 84 geodetic ↔ geocentric conversions.
class Proj {
public:
    Proj() {
        mGeodetic.importFromEPSG(4979);
        mGeocentric.importFromEPSG(4978);
        mGeodetic.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
        mGeocentric.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
        mToEcef.reset(OGRCreateCoordinateTransformation(&mGeodetic, &mGeocentric));
        mToGeodetic.reset(OGRCreateCoordinateTransformation(&mGeocentric, &mGeodetic));
    }
    std::array<double, 3> ecef(double lon, double lat, double h) const {
        double x = lon, y = lat, z = h;
        EXPECT_TRUE(mToEcef->Transform(1, &x, &y, &z));
        return {x, y, z};
    }
    /// In place: ECEF x, y, z → lon, lat (degrees), height.
    void geodetic(std::vector<double>& x, std::vector<double>& y, std::vector<double>& z) const {
        EXPECT_TRUE(mToGeodetic->Transform(x.size(), x.data(), y.data(), z.data()));
    }

private:
    OGRSpatialReference mGeodetic, mGeocentric;
    std::unique_ptr<OGRCoordinateTransformation> mToEcef, mToGeodetic;
};

/// Scene point → what a 3D Tiles viewer makes of it: Y-up → Z-up (x, y, z) → (x, -z, y), then
/// the tile's computed transform.
std::array<double, 3> toEcef(const std::array<double, 16>& m, double x, double y, double z) {
    const double e = x, n = -z, u = y;
    return {m[0] * e + m[4] * n + m[8] * u + m[12], m[1] * e + m[5] * n + m[9] * u + m[13],
            m[2] * e + m[6] * n + m[10] * u + m[14]};
}

/// parent · child for column-major 4×4 matrices (how 3D Tiles composes tile transforms).
std::array<double, 16> compose(const std::array<double, 16>& a, const std::vector<double>& b) {
    std::array<double, 16> r{};
    for (int c = 0; c < 4; ++c) {
        for (int row = 0; row < 4; ++row) {
            for (int k = 0; k < 4; ++k) {
                r[static_cast<std::size_t>(4 * c + row)] +=
                    a[static_cast<std::size_t>(4 * k + row)] * b.at(static_cast<std::size_t>(4 * c + k));
            }
        }
    }
    return r;
}

/// Metres between two lon/lat points (degrees) a few kilometres apart at most.
double groundDistance(double lon0, double lat0, double lon1, double lat1) {
    const double r = 6371000.0;
    const double dx = (lon1 - lon0) * kDeg * r * std::cos(lat0 * kDeg), dy = (lat1 - lat0) * kDeg * r;
    return std::hypot(dx, dy);
}

void walk(const json& node, const std::function<void(const json&, const json*)>& f, const json* parent = nullptr) {
    f(node, parent);
    if (node.contains("children")) {
        for (const json& c : node["children"]) walk(c, f, &node);
    }
}

}  // namespace

TEST(Geodesy, AgreesWithProj) {
    const Proj proj;
    for (const Geodetic& g : {Geodetic{7.4246, 43.735, 0}, Geodetic{-122.45, 37.76, 120}, Geodetic{24.94, 60.17, -30},
                              Geodetic{151.2, -33.9, 800}, Geodetic{0, 0, 0}, Geodetic{179.9, 84.9, 10}}) {
        const auto ours = geodeticToEcef(g);
        const auto ref = proj.ecef(g.lon, g.lat, g.height);
        for (int i = 0; i < 3; ++i)
            EXPECT_NEAR(ours[static_cast<std::size_t>(i)], ref[static_cast<std::size_t>(i)], 1e-6);
        const Geodetic back = ecefToGeodetic(ref);
        EXPECT_NEAR(back.lon, g.lon, 1e-10);
        EXPECT_NEAR(back.lat, g.lat, 1e-10);
        EXPECT_NEAR(back.height, g.height, 1e-5);
    }
}

TEST(Geodesy, EastNorthUpColumnsAreTheLocalAxes) {
    const Proj proj;
    const Geodetic o{7.4246, 43.735, 0};
    const std::array<double, 16> m = enuToEcef(o);
    const auto origin = proj.ecef(o.lon, o.lat, 0);
    const auto up = proj.ecef(o.lon, o.lat, 100);
    // One micro-degree east and north, scaled to metres: the local axes by finite differences.
    const auto east = proj.ecef(o.lon + 1e-6, o.lat, 0);
    const auto north = proj.ecef(o.lon, o.lat + 1e-6, 0);
    double le = 0, ln = 0;
    for (int i = 0; i < 3; ++i) {
        le += std::pow(east[static_cast<std::size_t>(i)] - origin[static_cast<std::size_t>(i)], 2);
        ln += std::pow(north[static_cast<std::size_t>(i)] - origin[static_cast<std::size_t>(i)], 2);
    }
    le = std::sqrt(le);
    ln = std::sqrt(ln);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_NEAR(m[12 + i], origin[i], 1e-6);
        EXPECT_NEAR(m[8 + i], (up[i] - origin[i]) / 100.0, 1e-9);
        EXPECT_NEAR(m[0 + i], (east[i] - origin[i]) / le, 1e-6);
        EXPECT_NEAR(m[4 + i], (north[i] - origin[i]) / ln, 1e-6);
    }
}

TEST(TilesetWriter, TreeFollowsTheQuadkeysDownToOneContentPerTile) {
    terrabit::test::SceneSpec spec;
    spec.tilesWide = 3;  // 3 x 2 tiles straddle more than one parent quadkey
    const auto test = makeScene(shippedCatalogue(), spec);
    const Scene& s = test.scene;
    const Result<std::string> text = encodeTileset(s, test.meshes);
    ASSERT_TRUE(text.ok()) << text.message();
    const json t = json::parse(*text);
    EXPECT_EQ(t["asset"]["version"], "1.1");
    EXPECT_EQ(t["asset"]["extras"]["attribution"], kOsmAttribution);
    std::set<std::string> uris;
    std::set<std::string> expected;
    for (const TileId& tile : s.tiles) expected.insert("tiles/" + tile.quadkey() + ".glb");
    int leaves = 0, inner = 0;
    walk(t["root"], [&](const json& n, const json* parent) {
        const auto r = n["boundingVolume"]["region"].get<std::vector<double>>();
        ASSERT_EQ(r.size(), 6u);
        EXPECT_LT(r[0], r[2]);
        EXPECT_LT(r[1], r[3]);
        EXPECT_LT(r[4], r[5]);
        if (parent) {
            const auto p = (*parent)["boundingVolume"]["region"].get<std::vector<double>>();
            EXPECT_GE(r[0], p[0]);
            EXPECT_GE(r[1], p[1]);
            EXPECT_LE(r[2], p[2]);
            EXPECT_LE(r[3], p[3]);
            EXPECT_GE(r[4], p[4]);
            EXPECT_LE(r[5], p[5]);
            EXPECT_LT(n["geometricError"].get<double>(), (*parent)["geometricError"].get<double>());
        }
        ASSERT_TRUE(n.contains("content"));  // every tile draws something: the inner ones their coarse level
        if (!n.contains("children")) {
            ++leaves;
            EXPECT_EQ(n["geometricError"].get<double>(), 0.0);
            uris.insert(n["content"]["uri"].get<std::string>());
        } else {
            ++inner;
            EXPECT_EQ(n["refine"], "REPLACE");
            EXPECT_GT(n["geometricError"].get<double>(), 0.0);
            EXPECT_GE(n["children"].size(), 1u);
            EXPECT_LE(n["children"].size(), 4u);
        }
    });
    EXPECT_EQ(uris, expected);
    EXPECT_EQ(leaves, 6);
    EXPECT_GE(inner, 2);
    EXPECT_GT(t["geometricError"].get<double>(), t["root"]["geometricError"].get<double>());
}

TEST(TilesetWriter, InnerNodesAreTheQuadkeyParentsOfTheirChildren) {
    terrabit::test::SceneSpec spec;
    spec.tilesWide = 3;
    const auto test = makeScene(shippedCatalogue(), spec);
    const json t = json::parse(encodeTileset(test.scene, test.meshes).value());
    std::string common = test.scene.tiles[0].quadkey();
    for (const TileId& tile : test.scene.tiles) {
        const std::string qk = tile.quadkey();
        std::size_t k = 0;
        while (k < common.size() && common[k] == qk[k]) ++k;
        common.resize(k);
    }
    ASSERT_LT(common.size(), 17u);
    // One node per quadkey level between the common ancestor and the tile: a leaf sits as many
    // levels below the root as its quadkey has digits past the root's.
    std::function<void(const json&, int)> visit = [&](const json& n, int depth) {
        if (!n.contains("children")) {
            const std::string uri = n["content"]["uri"];
            const std::string qk = uri.substr(6, uri.size() - 10);
            EXPECT_EQ(depth, static_cast<int>(qk.size() - common.size())) << qk;
            // Region of the leaf encloses the quadkey tile (minus centimetres of frame approximation).
            const Box2 b = TileId::fromQuadkey(qk).value().boundsLonLat();
            const auto r = n["boundingVolume"]["region"].get<std::vector<double>>();
            const double slack = 0.0;  // the footprint maps to within a millimetre, the margin is centimetres
            EXPECT_LE(r[0], b.min.x * kDeg + slack);
            EXPECT_LE(r[1], b.min.y * kDeg + slack);
            EXPECT_GE(r[2], b.max.x * kDeg - slack);
            EXPECT_GE(r[3], b.max.y * kDeg - slack);
            const double overhang = 50.0 / 6378137.0;  // nothing in the scene reaches 50 m past its tile
            EXPECT_GE(r[0], b.min.x * kDeg - overhang);
            EXPECT_LE(r[3], b.max.y * kDeg + overhang);
            return;
        }
        // An inner node's coarse content is named after its quadkey, which starts its children's.
        const std::string uri = n["content"]["uri"];
        const std::string qk = uri.substr(6, uri.size() - 10);
        EXPECT_EQ(qk.size(), common.size() + std::size_t(depth)) << uri;
        EXPECT_EQ(qk.substr(0, common.size()), common) << uri;
        for (const json& c : n["children"]) {
            const std::string childUri = c["content"]["uri"];
            EXPECT_EQ(childUri.substr(6, qk.size()), qk) << childUri;
            visit(c, depth + 1);
        }
    };
    visit(t["root"], 0);
    // The root is the deepest common ancestor: at least two of its children lead somewhere.
    EXPECT_GE(t["root"]["children"].size(), 2u);
}

TEST(TilesetWriter, RootTransformIsEastNorthUpAtTheSceneOrigin) {
    const auto test = makeScene(shippedCatalogue());
    const json t = json::parse(encodeTileset(test.scene, test.meshes).value());
    const auto m = t["root"]["transform"].get<std::vector<double>>();
    ASSERT_EQ(m.size(), 16u);
    const Proj proj;
    const auto o = proj.ecef(test.scene.frame.origin.lon, test.scene.frame.origin.lat, 0);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(m[12 + i], o[i], 1e-6);
    // A scene point 100 m north (z = -100) lands 100 m north on the globe, on the tangent plane.
    std::array<double, 16> a{};
    std::copy(m.begin(), m.end(), a.begin());
    const auto p = toEcef(a, 0, 0, -100);
    std::vector<double> x{p[0]}, y{p[1]}, z{p[2]};
    proj.geodetic(x, y, z);
    EXPECT_NEAR(x[0], test.scene.frame.origin.lon, 1e-9);
    EXPECT_NEAR((y[0] - test.scene.frame.origin.lat) * kDeg * 6367000.0, 100.0, 0.5);
    EXPECT_NEAR(z[0], 100.0 * 100.0 / (2 * 6367000.0), 1e-3);  // the tangent plane rises over the ellipsoid
}

TEST(TilesetWriter, ContentLandsOnTheGlobeWhereItsMapCellsAreToAFewMillimetres) {
    terrabit::test::SceneSpec spec;
    spec.tilesWide = 4;  // a kilometre east of the origin, where the frame's approximation shows
    spec.tilesHigh = 3;
    const auto test = makeScene(shippedCatalogue(), spec);
    const Scene& s = test.scene;
    const json t = json::parse(encodeTileset(s, test.meshes).value());
    const auto rootVector = t["root"]["transform"].get<std::vector<double>>();
    std::array<double, 16> root{};
    std::copy(rootVector.begin(), rootVector.end(), root.begin());
    std::map<std::string, std::array<double, 16>> computed;
    walk(t["root"], [&](const json& n, const json*) {
        if (!n.contains("children"))
            computed[n["content"]["uri"]] = compose(root, n["transform"].get<std::vector<double>>());
    });
    const Proj proj;
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> cell(0.0, 256.0);
    double worstRootOnly = 0.0;
    for (const TileId& tile : s.tiles) {
        const std::array<double, 16>& m = computed.at("tiles/" + tile.quadkey() + ".glb");
        for (int k = 0; k < 50; ++k) {
            const Vec2 c{double(tile.x) * kTileCells + cell(rng), double(tile.y) * kTileCells + cell(rng)};
            const LonLat truth = s.frame.cellToLonLat(c);  // where the map puts this cell
            const double height = k % 2 ? 35.0 : 0.0;
            const Vec3f p = groundToScene(s.frame.cellToGround(c), height);
            const auto e = toEcef(m, p.x, p.y, p.z);
            std::vector<double> x{e[0]}, y{e[1]}, z{e[2]};
            proj.geodetic(x, y, z);
            EXPECT_LT(groundDistance(truth.lon, truth.lat, x[0], y[0]), 0.005) << tile.quadkey();
            EXPECT_NEAR(z[0], height, 0.005) << tile.quadkey();
            // The root transform alone (no per-tile correction) is metres off out here.
            const auto r = toEcef(root, p.x, p.y, p.z);
            std::vector<double> rx{r[0]}, ry{r[1]}, rz{r[2]};
            proj.geodetic(rx, ry, rz);
            worstRootOnly = std::max(worstRootOnly, groundDistance(truth.lon, truth.lat, rx[0], ry[0]));
        }
    }
    EXPECT_GT(worstRootOnly, 0.5);
}

TEST(TilesetWriter, EveryVertexOfEveryContentLiesInsideItsRegion) {
    // Generated buildings too: the 30 m block is the first tile's tallest content.
    auto test = makeScene(shippedCatalogue());
    terrabit::test::addGeneratedBuildings(test.scene);
    const Scene& s = test.scene;
    const json t = json::parse(encodeTileset(s, test.meshes).value());
    std::array<double, 16> m{};
    const auto tm = t["root"]["transform"].get<std::vector<double>>();
    std::copy(tm.begin(), tm.end(), m.begin());
    std::map<std::string, std::vector<double>> regions;
    std::map<std::string, std::array<double, 16>> transforms;
    walk(t["root"], [&](const json& n, const json*) {
        if (n.contains("children")) return;  // the baked tiles' contents (the levels: tileset_levels_test)
        regions[n["content"]["uri"]] = n["boundingVolume"]["region"].get<std::vector<double>>();
        transforms[n["content"]["uri"]] = compose(m, n["transform"].get<std::vector<double>>());
    });
    const Proj proj;
    for (const TileId& tile : s.tiles) {
        const std::vector<double>& r = regions.at("tiles/" + tile.quadkey() + ".glb");
        const std::array<double, 16>& leaf = transforms.at("tiles/" + tile.quadkey() + ".glb");
        const tinygltf::Model g = loadGlb(encodeTileGlb(s, tile, test.meshes).value());
        std::vector<double> x, y, z;
        const auto add = [&](float px, float py, float pz) {
            const auto e = toEcef(leaf, px, py, pz);
            x.push_back(e[0]);
            y.push_back(e[1]);
            z.push_back(e[2]);
        };
        for (const tinygltf::Node& n : g.nodes) {
            if (n.mesh < 0) continue;
            const tinygltf::Mesh& mesh = g.meshes.at(static_cast<std::size_t>(n.mesh));
            for (const tinygltf::Primitive& p : mesh.primitives) {
                const auto pos = accessorData<float>(g, p.attributes.at("POSITION"));
                if (!n.extensions.count("EXT_mesh_gpu_instancing")) {
                    for (std::size_t i = 0; i < pos.size(); i += 3) add(pos[i], pos[i + 1], pos[i + 2]);
                    continue;
                }
                const tinygltf::Value& at = n.extensions.at("EXT_mesh_gpu_instancing").Get("attributes");
                const auto tr = accessorData<float>(g, at.Get("TRANSLATION").GetNumberAsInt());
                const auto ro = rotationData(g, at.Get("ROTATION").GetNumberAsInt());
                const auto sc = accessorData<float>(g, at.Get("SCALE").GetNumberAsInt());
                for (std::size_t k = 0; k < tr.size() / 3; ++k) {
                    const float qy = ro[4 * k + 1], qw = ro[4 * k + 3];
                    const float c = 1 - 2 * qy * qy, sn = 2 * qw * qy;  // rotation about +Y
                    for (std::size_t i = 0; i < pos.size(); i += 3) {
                        const float vx = pos[i] * sc[3 * k], vy = pos[i + 1] * sc[3 * k + 1],
                                    vz = pos[i + 2] * sc[3 * k + 2];
                        add(c * vx + sn * vz + tr[3 * k], vy + tr[3 * k + 1], -sn * vx + c * vz + tr[3 * k + 2]);
                    }
                }
            }
        }
        ASSERT_GT(x.size(), 1000u);
        proj.geodetic(x, y, z);
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_GE(x[i] * kDeg, r[0]) << tile.quadkey() << " vertex " << i;
            ASSERT_GE(y[i] * kDeg, r[1]) << tile.quadkey() << " vertex " << i;
            ASSERT_LE(x[i] * kDeg, r[2]) << tile.quadkey() << " vertex " << i;
            ASSERT_LE(y[i] * kDeg, r[3]) << tile.quadkey() << " vertex " << i;
            ASSERT_GE(z[i], r[4]) << tile.quadkey() << " vertex " << i;
            ASSERT_LE(z[i], r[5]) << tile.quadkey() << " vertex " << i;
        }
        // Heights come from the content: the tallest model reaches near the top of the region.
        const double top = *std::max_element(z.begin(), z.end());
        EXPECT_LT(r[5] - top, 0.1) << tile.quadkey();
        EXPECT_GT(top, 2.0) << tile.quadkey();
        EXPECT_LT(r[4], -0.3);  // the pond lies 0.4 m below the ground
    }
}

TEST(TilesetWriter, TheSameSceneGivesTheSameTilesetAndASceneWithoutTilesIsRefused) {
    const auto a = makeScene(shippedCatalogue());
    const auto b = makeScene(shippedCatalogue());
    EXPECT_EQ(encodeTileset(a.scene, a.meshes).value(), encodeTileset(b.scene, b.meshes).value());
    Scene empty;
    const auto e = encodeTileset(empty, {});
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.message().find("no tiles"), std::string::npos) << e.message();
}
