// The mesh of a generated building: an L, a U and a concave footprint get closed walls facing
// out, a roof whose area is the footprint's (GEOS measures it), nothing outside the outline's
// prism but the façade panels; pitched roofs by tag; courtyards open to the sky and walled
// round; bad records are refused with a message.

#include "terrabit/core/scene/generated_building_mesh.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>
#include <vector>

#include "../support/generated_mesh_checks.h"
#include "terrabit/core/assets/mesh_builder.h"
#include "terrabit/core/assets/style_kit.h"

namespace terrabit::core {
namespace {

using test::geosRingArea;
using test::upwardArea;

bool insideRing(const std::vector<Vec2>& ring, Vec2 p) {
    bool inside = false;
    for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
        const Vec2& a = ring[i];
        const Vec2& b = ring[j];
        if ((a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x) inside = !inside;
    }
    return inside;
}

double distanceToRing(const std::vector<Vec2>& ring, Vec2 p) {
    double best = 1e300;
    for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 a = ring[i], b = ring[(i + 1) % ring.size()];
        const double dx = b.x - a.x, dy = b.y - a.y;
        const double t = std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy), 0.0, 1.0);
        best = std::min(best, std::hypot(p.x - a.x - t * dx, p.y - a.y - t * dy));
    }
    return best;
}

struct Triangle {
    Vec3 a, b, c;
    Vec3 normal;  // the stored normal of its first corner
    double area() const {
        const Vec3 n = cross(b - a, c - a);
        return 0.5 * std::sqrt(dot(n, n));
    }
    Vec3 centroid() const { return (a + b + c) * (1.0 / 3.0); }
};

std::vector<Triangle> triangles(const AssetMesh& m) {
    std::vector<Triangle> out;
    const auto at = [&](std::uint32_t v) {
        return Vec3{m.positions[v * 3], m.positions[v * 3 + 1], m.positions[v * 3 + 2]};
    };
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        const std::uint32_t i0 = m.indices[t * 3];
        out.push_back({at(i0),
                       at(m.indices[t * 3 + 1]),
                       at(m.indices[t * 3 + 2]),
                       {m.normals[i0 * 3], m.normals[i0 * 3 + 1], m.normals[i0 * 3 + 2]}});
    }
    return out;
}

Vec2 ground(Vec3 p) { return {p.x, -p.z}; }

GeneratedBuilding building(std::vector<Vec2> outline, float wallHeight, std::string roof = "flat") {
    GeneratedBuilding g;
    g.tile = TileId{17, 68253, 47816};
    g.source = 0;
    g.outline = std::move(outline);
    g.base = 2.5f;  // on terrain: walls stand on a base above 0
    g.wallHeight = wallHeight;
    g.roofShape = std::move(roof);
    return g;
}

// An L, a U and a concave (arrow-shaped, with a sharp reflex corner) footprint, counter-clockwise
// in ground metres, far from the origin as a real scene's are.
std::vector<Vec2> offset(std::vector<Vec2> ring, Vec2 by) {
    for (Vec2& p : ring) p = {p.x + by.x, p.y + by.y};
    return ring;
}
const std::vector<Vec2> kL = offset({{0, 0}, {20, 0}, {20, 8}, {8, 8}, {8, 18}, {0, 18}}, {812.5, -340.25});
const std::vector<Vec2> kU =
    offset({{0, 0}, {30, 0}, {30, 20}, {22, 20}, {22, 7}, {8, 7}, {8, 20}, {0, 20}}, {-1520.0, 2210.0});
const std::vector<Vec2> kConcave =
    offset({{0, 0}, {14, 4}, {25, 0}, {21, 11}, {25, 22}, {12.5, 15}, {0, 22}, {5, 11}}, {40.0, 60.0});

struct Case {
    const char* name;
    const std::vector<Vec2>* ring;
};
const Case kCases[] = {{"L", &kL}, {"U", &kU}, {"concave", &kConcave}};

TEST(GeneratedBuildingMesh, FlatRoofCoversExactlyTheFootprint) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.name);
        const GeneratedBuilding g = building(*c.ring, 9.0f);
        const AssetMesh mesh = generatedBuildingMesh(g);
        ASSERT_FALSE(mesh.empty());
        ASSERT_TRUE(mesh.validate());
        // Every face looking straight up is roof (the deck and the parapet's top): together the
        // footprint, once, measured against GEOS.
        double up = 0.0;
        for (const Triangle& t : triangles(mesh)) {
            if (t.normal.y > 0.999) {
                up += t.area();
                EXPECT_GT(t.centroid().y, g.base + g.wallHeight - kGeneratedParapetHeight - 1e-3);
                EXPECT_TRUE(insideRing(*c.ring, ground(t.centroid())));
            }
        }
        const double area = geosRingArea(*c.ring);
        EXPECT_NEAR(up, area, 0.001 * area);
    }
}

/// Along every edge p→q of a ring, the faces in the edge's vertical plane cover its whole
/// rectangle from the base `height` metres up, each facing the right of p→q.
void checkWallsFaceRightOfTheirEdges(const std::vector<Triangle>& tris, const std::vector<Vec2>& ring, double height,
                                     const char* what) {
    for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 p = ring[i], q = ring[(i + 1) % ring.size()];
        const double length = std::hypot(q.x - p.x, q.y - p.y);
        const Vec2 right{(q.y - p.y) / length, -(q.x - p.x) / length};
        double area = 0.0;
        for (const Triangle& t : tris) {
            const Vec2 m = ground(t.centroid());
            const double along = ((m.x - p.x) * (q.x - p.x) + (m.y - p.y) * (q.y - p.y)) / length;
            const double off = (m.x - p.x) * right.x + (m.y - p.y) * right.y;
            if (std::abs(off) > 1e-3 || along < 0 || along > length || std::abs(t.normal.y) > 1e-6) continue;
            EXPECT_GT(t.normal.x * right.x - t.normal.z * right.y, 0.999) << what << " " << i << " faces the wrong way";
            area += t.area();
        }
        EXPECT_NEAR(area, length * height, 1e-3 * length * height) << what << " " << i;
    }
}

TEST(GeneratedBuildingMesh, WallsAreClosedAndFaceOutwards) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.name);
        const std::vector<Vec2>& ring = *c.ring;
        const GeneratedBuilding g = building(ring, 12.0f);
        const std::vector<Triangle> tris = triangles(generatedBuildingMesh(g));
        // Right of each edge: outside a counter-clockwise ring.
        checkWallsFaceRightOfTheirEdges(tris, ring, g.wallHeight, "wall");
    }
}

TEST(GeneratedBuildingMesh, EveryFaceLooksOutOfTheBuilding) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.name);
        const GeneratedBuilding g = building(*c.ring, 9.0f);
        const double deck = g.base + g.wallHeight - kGeneratedParapetHeight;
        for (const Triangle& t : triangles(generatedBuildingMesh(g))) {
            // A step along the normal leaves the solid: outside the outline, or above the deck.
            const Vec3 p = t.centroid() + t.normal * 0.05;
            EXPECT_TRUE(!insideRing(*c.ring, ground(p)) || p.y > deck)
                << "a face at (" << t.centroid().x << ", " << t.centroid().y << ", " << t.centroid().z << ") looks in";
        }
    }
}

TEST(GeneratedBuildingMesh, StaysWithinTheOutlinesPrism) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.name);
        const GeneratedBuilding g = building(*c.ring, 15.0f);
        const AssetMesh mesh = generatedBuildingMesh(g);
        for (std::size_t v = 0; v < mesh.vertexCount(); ++v) {
            const Vec3 p{mesh.positions[v * 3], mesh.positions[v * 3 + 1], mesh.positions[v * 3 + 2]};
            EXPECT_GE(p.y, g.base - 1e-3);
            EXPECT_LE(p.y, g.base + g.wallHeight + 1e-3);
            // Only façade panels stand proud of the walls, by at most three panel offsets.
            const Vec2 q = ground(p);
            EXPECT_TRUE(insideRing(*c.ring, q) || distanceToRing(*c.ring, q) <= 3 * MeshBuilder::kPanelOffset + 1e-3)
                << "(" << q.x << ", " << q.y << ")";
        }
    }
}

TEST(GeneratedBuildingMesh, HasAWindowRowPerStoreyInTheLibrarysGlass) {
    // 12 m of wall in 4 storeys: on the 20 m wall of the L, rows of windows at 4 heights.
    const AssetMesh mesh = generatedBuildingMesh(building(kL, 12.0f));
    const double glass[3] = {srgbToLinear(64 / 255.0), srgbToLinear(96 / 255.0), srgbToLinear(128 / 255.0)};
    std::vector<double> sills;
    for (std::size_t t = 0; t < mesh.triangleCount(); ++t) {
        const std::uint32_t v = mesh.indices[t * 3];
        if (std::abs(mesh.colours[v * 4] - glass[0]) > 1e-3 || std::abs(mesh.colours[v * 4 + 2] - glass[2]) > 1e-3)
            continue;
        double low = 1e9;
        for (int k = 0; k < 3; ++k) low = std::min<double>(low, mesh.positions[mesh.indices[t * 3 + k] * 3 + 1]);
        if (std::none_of(sills.begin(), sills.end(), [&](double s) { return std::abs(s - low) < 0.2; }))
            sills.push_back(low);
    }
    EXPECT_EQ(sills.size(), 4u);
    (void)glass[1];
}

TEST(GeneratedBuildingMesh, PitchedRoofsFollowTheTags) {
    const std::vector<Vec2> rect = offset({{0, 0}, {12, 0}, {12, 8}, {0, 8}}, {100, 100});
    for (const char* shape : {"gabled", "hipped"}) {
        SCOPED_TRACE(shape);
        GeneratedBuilding g = building(rect, 6.0f, shape);
        g.roofHeight = 3.5f;
        const AssetMesh mesh = generatedBuildingMesh(g);
        const ModelBounds b = mesh.bounds();
        EXPECT_NEAR(b.max[1], g.base + g.wallHeight + g.roofHeight, 1e-3) << "the ridge";
        // The ridge runs along the long (east-west) side: the highest vertices span more in x.
        double minX = 1e9, maxX = -1e9, minZ = 1e9, maxZ = -1e9;
        for (std::size_t v = 0; v < mesh.vertexCount(); ++v) {
            if (mesh.positions[v * 3 + 1] < b.max[1] - 1e-3) continue;
            minX = std::min<double>(minX, mesh.positions[v * 3]);
            maxX = std::max<double>(maxX, mesh.positions[v * 3]);
            minZ = std::min<double>(minZ, mesh.positions[v * 3 + 2]);
            maxZ = std::max<double>(maxZ, mesh.positions[v * 3 + 2]);
        }
        EXPECT_GT(maxX - minX, 3.0);
        EXPECT_LT(maxZ - minZ, 1e-3);
    }
    GeneratedBuilding untagged = building(rect, 6.0f, "");
    EXPECT_NEAR(generatedBuildingMesh(untagged).bounds().max[1], untagged.base + untagged.wallHeight, 1e-3);
    EXPECT_EQ(generatedRoof("pyramidal"), GeneratedRoof::Hipped);
    EXPECT_EQ(generatedRoof("skillion"), GeneratedRoof::Gabled);
    EXPECT_EQ(generatedRoof("dome"), GeneratedRoof::Flat);
}

TEST(GeneratedBuildingMesh, IsDeterministicAndTakesClockwiseOutlines) {
    const AssetMesh a = generatedBuildingMesh(building(kU, 9.0f));
    const AssetMesh b = generatedBuildingMesh(building(kU, 9.0f));
    EXPECT_EQ(a.positions, b.positions);
    EXPECT_EQ(a.colours, b.colours);
    EXPECT_EQ(a.indices, b.indices);
    std::vector<Vec2> clockwise(kU.rbegin(), kU.rend());
    const AssetMesh c = generatedBuildingMesh(building(clockwise, 9.0f));
    EXPECT_EQ(c.triangleCount(), a.triangleCount());
    const ModelBounds ba = a.bounds(), bc = c.bounds();
    for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(ba.min[k], bc.min[k], 1e-3);
        EXPECT_NEAR(ba.max[k], bc.max[k], 1e-3);
    }
}

TEST(GeneratedBuildingMesh, NarrowPartsDropTheParapetButKeepTheRoof) {
    // A 0.5 m wide arm cannot hold two 0.3 m parapets: the deck covers the footprint instead.
    const std::vector<Vec2> ring = offset({{0, 0}, {10, 0}, {10, 0.5}, {0.5, 0.5}, {0.5, 6}, {0, 6}}, {7, 7});
    const GeneratedBuilding g = building(ring, 6.0f);
    EXPECT_NEAR(upwardArea(generatedBuildingMesh(g)), geosRingArea(ring), 1e-3 * geosRingArea(ring));
}

// A block round two courtyards (a 40 m × 30 m ring with a square yard and an L-shaped one),
// far from the origin.
const std::vector<Vec2> kBlock = offset({{0, 0}, {40, 0}, {40, 30}, {0, 30}}, {-613.0, 415.5});
const std::vector<Vec2> kSquareYard = offset({{8, 8}, {8, 20}, {18, 20}, {18, 8}}, {-613.0, 415.5});
const std::vector<Vec2> kLYard = offset({{24, 6}, {24, 24}, {30, 24}, {30, 12}, {34, 12}, {34, 6}}, {-613.0, 415.5});

GeneratedBuilding courtyardBlock(std::string roof = "flat") {
    GeneratedBuilding g = building(kBlock, 12.0f, std::move(roof));
    g.courtyards = {kSquareYard, kLYard};
    return g;
}

// The roof leaves the yards open: its area is the block's less the yards' (GEOS), every roof
// face lies in the block and in no yard, and the roof is flat at the wall top whatever the tag
// (a pitched roof on the box would cover the yards).
TEST(GeneratedBuildingMesh, CourtyardsStayOpenToTheSky) {
    for (const char* roof : {"flat", "gabled"}) {
        SCOPED_TRACE(roof);
        const GeneratedBuilding g = courtyardBlock(roof);
        ASSERT_TRUE(checkGeneratedBuilding(g)) << checkGeneratedBuilding(g).message();
        const AssetMesh mesh = generatedBuildingMesh(g);
        ASSERT_TRUE(mesh.validate());
        const double expected = geosRingArea(kBlock) - geosRingArea(kSquareYard) - geosRingArea(kLYard);
        EXPECT_NEAR(upwardArea(mesh), expected, 1e-3 * expected);
        EXPECT_NEAR(mesh.bounds().max[1], g.base + g.wallHeight, 1e-3) << "nothing above the wall top";
        for (const Triangle& t : triangles(mesh)) {
            if (t.normal.y < 0.999) continue;
            const Vec2 c = ground(t.centroid());
            EXPECT_TRUE(insideRing(kBlock, c));
            EXPECT_FALSE(insideRing(kSquareYard, c) || insideRing(kLYard, c)) << "a roof face over a yard";
        }
    }
}

// Each yard is walled all round, base to top, the walls facing into the yard, and no face
// looks into the solid between the yards and the outline.
TEST(GeneratedBuildingMesh, CourtyardWallsFaceTheYard) {
    const GeneratedBuilding g = courtyardBlock();
    const std::vector<Triangle> tris = triangles(generatedBuildingMesh(g));
    for (const std::vector<Vec2>* yard : {&kSquareYard, &kLYard}) {
        // Clockwise: the yard lies right of each edge.
        checkWallsFaceRightOfTheirEdges(tris, *yard, g.wallHeight, "yard wall");
    }
    const double top = g.base + g.wallHeight;
    for (const Triangle& t : tris) {
        const Vec3 p = t.centroid() + t.normal * 0.05;
        const Vec2 q = ground(p);
        const bool solid = insideRing(kBlock, q) && !insideRing(kSquareYard, q) && !insideRing(kLYard, q);
        EXPECT_TRUE(!solid || p.y > top) << "a face at (" << t.centroid().x << ", " << t.centroid().z << ") looks in";
    }
}

// The plain level (seen from afar) is the dressed building less its façade panels: each of its
// triangles is one of the dressed mesh's, in the same colour, and what it leaves out lies on the
// walls (in front of them by at most the panels' offset), never on the roof.
TEST(GeneratedBuildingMesh, PlainIsTheDressedBuildingWithoutItsFacades) {
    const auto key = [](const AssetMesh& m, std::size_t t) {
        std::array<float, 13> k{};
        for (int c = 0; c < 3; ++c) {
            const std::uint32_t v = m.indices[t * 3 + c];
            for (int d = 0; d < 3; ++d) k[c * 3 + d] = m.positions[v * 3 + d];
        }
        for (int d = 0; d < 4; ++d) k[9 + d] = m.colours[m.indices[t * 3] * 4 + d];
        return k;
    };
    GeneratedBuilding gabled = building(kL, 9.0f, "gabled");
    for (const GeneratedBuilding& g : {building(kL, 12.0f), building(kU, 6.0f), gabled, courtyardBlock()}) {
        const AssetMesh dressed = generatedBuildingMesh(g);
        const AssetMesh plain = generatedBuildingMesh(g, GeneratedDetail::Plain);
        ASSERT_GT(plain.triangleCount(), 0u);
        EXPECT_LT(plain.triangleCount() * 3, dressed.triangleCount()) << "the façades are most of a building";
        std::multiset<std::array<float, 13>> left;
        for (std::size_t t = 0; t < dressed.triangleCount(); ++t) left.insert(key(dressed, t));
        for (std::size_t t = 0; t < plain.triangleCount(); ++t) {
            const auto it = left.find(key(plain, t));
            ASSERT_NE(it, left.end()) << "plain triangle " << t << " is not one of the dressed building's";
            left.erase(it);
        }
        // What is left are the panels: on the walls, within their height, never on the roof.
        EXPECT_EQ(left.size(), dressed.triangleCount() - plain.triangleCount());
        for (const auto& k : left) {
            for (const int c : {1, 4, 7}) {
                EXPECT_GE(k[c], g.base - 1e-3f);
                EXPECT_LE(k[c], g.base + g.wallHeight + 1e-3f);
            }
        }
        const ModelBounds pb = plain.bounds(), db = dressed.bounds();
        EXPECT_NEAR(pb.max[1], db.max[1], 1e-4) << "the same roof";
        EXPECT_NEAR(pb.min[1], db.min[1], 1e-4);
    }
    std::vector<const GeneratedBuilding*> both{&gabled, &gabled};
    EXPECT_EQ(generatedBuildingsMesh(both, GeneratedDetail::Plain).triangleCount(),
              2 * generatedBuildingMesh(gabled, GeneratedDetail::Plain).triangleCount());
}

TEST(GeneratedBuildingMesh, BlockIsTheOutlinesPrismUpToTheRoofsMeanHeight) {
    GeneratedBuilding gabled = building(kL, 9.0f, "gabled");
    gabled.roofHeight = 4.0f;
    const auto ringArea = [](const std::vector<Vec2>& r) {
        double a = 0.0;
        for (std::size_t i = 0; i < r.size(); ++i) {
            const Vec2 p = r[i], q = r[(i + 1) % r.size()];
            a += p.x * q.y - q.x * p.y;
        }
        return std::abs(0.5 * a);
    };
    for (const GeneratedBuilding& g : {building(kL, 12.0f), building(kU, 6.0f), gabled, courtyardBlock()}) {
        const AssetMesh block = generatedBuildingMesh(g, GeneratedDetail::Block);
        ASSERT_GT(block.triangleCount(), 0u);
        // Exactly the outline's prism: its extent, from the base to the roof's mean height.
        const double top = g.base + g.wallHeight + (g.roofShape == "gabled" ? 0.5 * g.roofHeight : 0.0);
        const ModelBounds b = block.bounds();
        double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
        for (const Vec2& p : g.outline) {
            x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
        }
        EXPECT_NEAR(b.min[0], x0, 1e-3);
        EXPECT_NEAR(b.max[0], x1, 1e-3);
        EXPECT_NEAR(b.min[2], -y1, 1e-3);
        EXPECT_NEAR(b.max[2], -y0, 1e-3);
        EXPECT_NEAR(b.min[1], g.base, 1e-4);
        EXPECT_NEAR(b.max[1], top, 1e-4);
        // Its top covers the footprint less its courtyards, once, facing up.
        double expected = ringArea(g.outline), covered = 0.0;
        for (const std::vector<Vec2>& yard : g.courtyards) expected -= ringArea(yard);
        for (std::size_t t = 0; t < block.triangleCount(); ++t) {
            std::array<Vec3, 3> v;
            for (int c = 0; c < 3; ++c) {
                const std::uint32_t i = block.indices[t * 3 + c];
                v[c] = {block.positions[i * 3], block.positions[i * 3 + 1], block.positions[i * 3 + 2]};
            }
            if (std::abs(v[0].y - top) > 1e-4 || std::abs(v[1].y - top) > 1e-4 || std::abs(v[2].y - top) > 1e-4)
                continue;
            // Up-facing, counter-clockwise seen from above in (x, -z).
            const double cross = (v[1].x - v[0].x) * (-v[2].z + v[0].z) - (-v[1].z + v[0].z) * (v[2].x - v[0].x);
            EXPECT_GT(cross, 0.0) << "a top triangle facing down";
            covered += 0.5 * cross;
        }
        EXPECT_NEAR(covered, expected, 1e-3 * expected);
        // No more triangles than the plain building (as many for a flat deck with courtyards,
        // which has no parapet), a fraction of the dressed one's.
        EXPECT_LE(block.triangleCount(), generatedBuildingMesh(g, GeneratedDetail::Plain).triangleCount());
        EXPECT_LT(block.triangleCount() * 4, generatedBuildingMesh(g).triangleCount());
    }
    // A flat roof's parapet is most of a plain building's triangles.
    EXPECT_LT(generatedBuildingMesh(building(kL, 12.0f), GeneratedDetail::Block).triangleCount() * 2,
              generatedBuildingMesh(building(kL, 12.0f), GeneratedDetail::Plain).triangleCount());
}

TEST(GeneratedBuildingMesh, ItsColoursAreThoseItsMeshesAreDrawnIn) {
    GeneratedBuilding hipped = building(kU, 6.0f, "hipped");
    hipped.roofHeight = 3.0f;
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    const auto packed = [](Rgb c) { return (std::uint32_t{c.r} << 16) | (std::uint32_t{c.g} << 8) | c.b; };
    for (const GeneratedBuilding& g :
         {building(kL, 12.0f), building(kU, 6.0f), building(kL, 9.0f, "gabled"), hipped, courtyardBlock()}) {
        const FacadeColours c = generatedBuildingColours(g);
        // The block (the outline's prism in the wall colour, its top in the roof's) means them
        // exactly; a courtyard block's roof is flat whatever its tag.
        EXPECT_EQ(facadeColours(generatedBuildingMesh(g, GeneratedDetail::Block), {}), c);
        if (g.courtyards.empty() && g.roofShape == "flat") {
            EXPECT_EQ(c.roof, style::kRoofFlat);
        } else if (g.courtyards.empty()) {
            EXPECT_TRUE(c.roof == style::kRoofTerracotta || c.roof == style::kRoofSlate);
        }
        // The dressed building's walls and roof hold them too.
        std::set<std::uint32_t> drawn;
        const AssetMesh dressed = generatedBuildingMesh(g);
        for (std::size_t v = 0; v < dressed.vertexCount(); ++v) {
            const auto channel = [&](int k) {
                return static_cast<std::uint8_t>(
                    std::lround(255.0 * linearToSrgb(double(dressed.colours[v * 4 + std::size_t(k)]))));
            };
            drawn.insert(packed({channel(0), channel(1), channel(2)}));
        }
        EXPECT_EQ(drawn.count(packed(c.walls)), 1u);
        EXPECT_EQ(drawn.count(packed(c.roof)), 1u);
        seen.insert({packed(c.walls), packed(c.roof)});
    }
    EXPECT_GE(seen.size(), 2u);  // the outline picks them
}

TEST(GeneratedBuildingMesh, RefusesBadCourtyardsSayingWhich) {
    GeneratedBuilding g = courtyardBlock();
    g.courtyards[1] = offset({{30, 10}, {30, 20}, {45, 20}, {45, 10}}, {-613.0, 415.5});  // through the wall
    EXPECT_NE(checkGeneratedBuilding(g).message().find("courtyard 1 meets its outline"), std::string::npos);
    g.courtyards[1] = offset({{50, 10}, {50, 20}, {55, 20}, {55, 10}}, {-613.0, 415.5});
    EXPECT_NE(checkGeneratedBuilding(g).message().find("courtyard 1 lies outside"), std::string::npos);
    g.courtyards[1] = offset({{10, 10}, {10, 12}, {12, 12}, {12, 10}}, {-613.0, 415.5});  // in the other yard
    EXPECT_NE(checkGeneratedBuilding(g).message().find("courtyards 0 and 1 meet"), std::string::npos);
    g.courtyards[1] = {{1, 1}, {2, 2}};
    EXPECT_NE(checkGeneratedBuilding(g).message().find("courtyard 1 has 2 points"), std::string::npos);
    EXPECT_TRUE(generatedBuildingMesh(g).empty());
}

TEST(GeneratedBuildingMesh, RefusesBadRecordsSayingWhy) {
    GeneratedBuilding g = building({{0, 0}, {1, 0}}, 5.0f);
    EXPECT_NE(checkGeneratedBuilding(g).message().find("2 points"), std::string::npos);
    EXPECT_TRUE(generatedBuildingMesh(g).empty());
    g = building({{0, 0}, {4, 0}, {0, 4}, {4, 4}}, 5.0f);  // a bow tie
    EXPECT_NE(checkGeneratedBuilding(g).message().find("not a simple ring"), std::string::npos);
    g = building({{0, 0}, {4, 0}, {4, 4}}, -1.0f);
    EXPECT_NE(checkGeneratedBuilding(g).message().find("wall height"), std::string::npos);
    g = building({{0, 0}, {4, 0}, {std::nan(""), 4}}, 3.0f);
    EXPECT_NE(checkGeneratedBuilding(g).message().find("point 2"), std::string::npos);
    g = building({{0, 0}, {4, 0}, {8, 0}}, 3.0f);
    EXPECT_FALSE(checkGeneratedBuilding(g));
    EXPECT_TRUE(checkGeneratedBuilding(building(kConcave, 3.0f)));
    // Beyond any building (a record from elsewhere): no façade of millions of windows.
    g = building({{0, 0}, {4, 0}, {4, 4}}, 1e30f);
    EXPECT_NE(checkGeneratedBuilding(g).message().find("wall height"), std::string::npos);
    EXPECT_TRUE(generatedBuildingMesh(g).empty());
    g = building({{0, 0}, {4, 0}, {4, 4}}, 3.0f);
    g.roofHeight = 2000.0f;
    EXPECT_NE(checkGeneratedBuilding(g).message().find("roof height"), std::string::npos);
    g = building({{0, 0}, {1e6, 0}, {1e6, 1e6}}, 3.0f);
    EXPECT_NE(checkGeneratedBuilding(g).message().find("more than any building's"), std::string::npos);
    // The largest real ones pass: a square kilometre hall 30 m high, a 828 m tower.
    EXPECT_TRUE(checkGeneratedBuilding(building({{0, 0}, {1000, 0}, {1000, 1000}, {0, 1000}}, 30.0f)));
    EXPECT_TRUE(checkGeneratedBuilding(building({{0, 0}, {60, 0}, {60, 60}, {0, 60}}, 828.0f)));
}

}  // namespace
}  // namespace terrabit::core
