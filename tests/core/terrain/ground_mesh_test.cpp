// The RTIN ground mesh (core/terrain/ground_mesh.h): its error bound at every sample and cell
// centre, that it is a valid triangulation of the tile, that neighbour tiles meet without cracks,
// that the errors are the true deviation over Martini's hierarchy (checked against a brute force
// walk of that hierarchy by triangle id), and determinism. Heights are analytic functions of the
// global cell corner, so neighbour tiles hold bit-identical shared edges as a DEM reader gives.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "terrabit/core/terrain/ground_mesh.h"
#include "terrabit/core/terrain/height_tile.h"

using namespace terrabit::core;
using namespace terrabit::core::terrain;

namespace {

constexpr int kMeshZoom = 17;
constexpr std::uint32_t kTx = 68890;  // a 3 × 3 block of tiles starts here
constexpr std::uint32_t kTy = 47860;
constexpr int kC = kTileCells;
constexpr double kTolerance = 1e-4;  // metres: float rounding of heights and centres

/// Height in metres at a global cell corner (x east, y south, in cells).
using HeightFn = std::function<double(double x, double y)>;

HeightTile makeTile(std::uint32_t tx, std::uint32_t ty, const HeightFn& f) {
    HeightTile t;
    t.reset(TileId{kMeshZoom, tx, ty});
    for (int r = 0; r <= kC; ++r)
        for (int c = 0; c <= kC; ++c)
            t.heights[HeightTile::index(r, c)] = static_cast<float>(f(256.0 * tx + c, 256.0 * ty + r));
    return t;
}

/// Global x, y of a point (column, row) of tile (kTx + dx, kTy + dy).
double gx(int dx, double column) { return 256.0 * (kTx + dx) + column; }
double gy(int dy, double row) { return 256.0 * (kTy + dy) + row; }

HeightFn cone(double cx, double cy, double top, double slope) {
    return [=](double x, double y) { return std::max(0.0, top - slope * std::hypot(x - cx, y - cy)); };
}

/// Deterministic white noise in [−amplitude, amplitude], a pure function of the corner.
HeightFn noise(double amplitude) {
    return [=](double x, double y) {
        std::uint64_t h = static_cast<std::uint64_t>(x) * 0x9E3779B97F4A7C15ULL ^
                          (static_cast<std::uint64_t>(y) + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 32;
        return amplitude * (static_cast<double>(h % 2000001) / 1000000.0 - 1.0);
    };
}

/// A named test surface over the block of tiles.
struct TestSurface {
    std::string name;
    HeightFn f;
};

std::vector<TestSurface> shapes() {
    return {
        {"cone", cone(gx(0, 100.3), gy(0, 140.7), 80.0, 0.9)},
        {"cliff", [](double x, double y) { return (x - gx(0, 0)) + 0.6 * (y - gy(0, 0)) < 170.0 ? 3.0 : 21.0; }},
        {"noise", noise(2.0)},
        {"ridge_on_east_edge",
         [](double x, double y) {
             const double d = (x - gx(1, 0)) / 9.0;
             return 25.0 * std::exp(-d * d) + 0.02 * (y - gy(0, 0));
         }},
        {"hills_and_noise",
         [](double x, double y) {
             return cone(gx(0, 60), gy(0, 70), 40, 0.5)(x, y) + cone(gx(0, 200), gy(0, 180), 25, 0.3)(x, y) +
                    noise(0.3)(x, y);
         }},
    };
}

double sampleValue(const HeightTile& t, int column, int row) {
    const float h = t.at(row, column);
    return std::isfinite(h) ? h : 0.0;
}

double centreValue(const HeightTile& t, int column, int row) {
    return 0.25 * (sampleValue(t, column, row) + sampleValue(t, column + 1, row) + sampleValue(t, column, row + 1) +
                   sampleValue(t, column + 1, row + 1));
}

/// |h00 + h11 − h10 − h01| / 4 of a cell: how far its centre is from either diagonal's midpoint.
double cellTwist(const HeightTile& t, int column, int row) {
    return std::fabs(sampleValue(t, column, row) + sampleValue(t, column + 1, row + 1) -
                     sampleValue(t, column + 1, row) - sampleValue(t, column, row + 1)) /
           4.0;
}

/// Twice the signed area of (a, b, c) in (column, row) units; negative is counter-clockwise from above.
long long doubledArea(long long ax, long long ay, long long bx, long long by, long long cx, long long cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/// Calls visit(X, Y, value) for every point of the lattice of the given parity (0 samples,
/// 1 cell centres), in half cells, inside or on the triangle (also in half cells), with the
/// triangle's plane value there.
template <typename Visit>
void forEachLatticePoint(const GroundMesh& m, std::size_t tri, int parity, Visit&& visit) {
    const GroundVertex& a = m.vertices[m.indices[3 * tri]];
    const GroundVertex& b = m.vertices[m.indices[3 * tri + 1]];
    const GroundVertex& c = m.vertices[m.indices[3 * tri + 2]];
    const long long ax = 2 * a.column, ay = 2 * a.row, bx = 2 * b.column, by = 2 * b.row, cx = 2 * c.column,
                    cy = 2 * c.row;
    const long long area = doubledArea(ax, ay, bx, by, cx, cy);
    for (long long y = std::min({ay, by, cy}); y <= std::max({ay, by, cy}); ++y) {
        if ((y & 1) != parity) continue;
        for (long long x = std::min({ax, bx, cx}); x <= std::max({ax, bx, cx}); ++x) {
            if ((x & 1) != parity) continue;
            const long long wa = doubledArea(x, y, bx, by, cx, cy);
            const long long wb = doubledArea(ax, ay, x, y, cx, cy);
            const long long wc = doubledArea(ax, ay, bx, by, x, y);
            const bool inside = area < 0 ? (wa <= 0 && wb <= 0 && wc <= 0) : (wa >= 0 && wb >= 0 && wc >= 0);
            if (!inside) continue;
            const double v = (static_cast<double>(wa) * a.height + static_cast<double>(wb) * b.height +
                              static_cast<double>(wc) * c.height) /
                             static_cast<double>(area);
            visit(x, y, v);
        }
    }
}

/// Checks the error bound at every sample and cell centre, and that every one is covered.
void expectWithinBound(const HeightTile& t, const GroundMesh& m, double maxError, const std::string& what) {
    std::vector<int> sampleSeen(kHeightSampleCount, 0), centreSeen(std::size_t{kC} * kC, 0);
    double worstSample = 0.0, worstCentre = 0.0;
    int badCentres = 0;
    for (std::size_t tri = 0; tri < m.triangleCount(); ++tri) {
        forEachLatticePoint(m, tri, 0, [&](long long x, long long y, double v) {
            const int c = static_cast<int>(x / 2), r = static_cast<int>(y / 2);
            sampleSeen[HeightTile::index(r, c)] = 1;
            worstSample = std::max(worstSample, std::fabs(v - sampleValue(t, c, r)));
        });
        const GroundVertex& a = m.vertices[m.indices[3 * tri]];
        const GroundVertex& b = m.vertices[m.indices[3 * tri + 1]];
        const GroundVertex& c3 = m.vertices[m.indices[3 * tri + 2]];
        const bool unit = std::llabs(doubledArea(a.column, a.row, b.column, b.row, c3.column, c3.row)) == 1;
        forEachLatticePoint(m, tri, 1, [&](long long x, long long y, double v) {
            const int c = static_cast<int>(x / 2), r = static_cast<int>(y / 2);
            centreSeen[static_cast<std::size_t>(r) * kC + c] = 1;
            const double err = std::fabs(v - centreValue(t, c, r));
            if (err <= maxError + kTolerance) {
                worstCentre = std::max(worstCentre, err);
                return;
            }
            // Only a cell cut into its two unit triangles may miss, and by its twist exactly.
            if (!unit || std::fabs(err - cellTwist(t, c, r)) > kTolerance) ++badCentres;
        });
    }
    EXPECT_LE(worstSample, maxError + kTolerance) << what;
    EXPECT_LE(worstCentre, maxError + kTolerance) << what;
    EXPECT_EQ(badCentres, 0) << what;
    EXPECT_EQ(std::count(sampleSeen.begin(), sampleSeen.end(), 0), 0) << what << ": samples no triangle covers";
    EXPECT_EQ(std::count(centreSeen.begin(), centreSeen.end(), 0), 0) << what << ": centres no triangle covers";
}

/// Checks the mesh is a triangulation of the square: positive areas summing to 256², one winding,
/// and every interior edge shared by exactly two triangles in opposite directions (no
/// T-junction, no overlap), every edge on the square's boundary used once.
void expectValidTriangulation(const GroundMesh& m, const std::string& what) {
    ASSERT_EQ(m.indices.size() % 3, 0U) << what;
    long long total = 0;
    int degenerateOrClockwise = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::size_t tri = 0; tri < m.triangleCount(); ++tri) {
        const std::uint32_t i[3] = {m.indices[3 * tri], m.indices[3 * tri + 1], m.indices[3 * tri + 2]};
        const GroundVertex &a = m.vertices[i[0]], &b = m.vertices[i[1]], &c = m.vertices[i[2]];
        const long long area = doubledArea(a.column, a.row, b.column, b.row, c.column, c.row);
        if (area >= 0) ++degenerateOrClockwise;
        total -= area;
        for (int k = 0; k < 3; ++k) edges.emplace_back(i[k], i[(k + 1) % 3]);
    }
    EXPECT_EQ(degenerateOrClockwise, 0) << what;
    EXPECT_EQ(total, 2LL * kC * kC) << what;
    std::sort(edges.begin(), edges.end());
    int unmatched = 0;
    const auto repeated = std::adjacent_find(edges.begin(), edges.end()) - edges.begin();
    for (const auto& e : edges) {
        const GroundVertex &u = m.vertices[e.first], &v = m.vertices[e.second];
        const bool boundary = (u.column == v.column && (u.column == 0 || u.column == kC)) ||
                              (u.row == v.row && (u.row == 0 || u.row == kC));
        if (!boundary && !std::binary_search(edges.begin(), edges.end(), std::pair{e.second, e.first})) ++unmatched;
    }
    EXPECT_EQ(repeated, static_cast<std::ptrdiff_t>(edges.size())) << what << ": an edge used twice";
    EXPECT_EQ(unmatched, 0) << what << ": interior edges with no twin (T-junctions)";
}

/// The mesh's vertices on one side (0 north, 1 east, 2 south, 3 west), as positions along it
/// with their heights' bits.
std::map<int, float> sideVertices(const GroundMesh& m, int side) {
    std::map<int, float> out;
    for (const GroundVertex& v : m.vertices) {
        if (side == 0 && v.row == 0) out[v.column] = v.height;
        if (side == 1 && v.column == kC) out[v.row] = v.height;
        if (side == 2 && v.row == kC) out[v.column] = v.height;
        if (side == 3 && v.column == 0) out[v.row] = v.height;
    }
    return out;
}

/// The triangle edges of `m` lying on one side, as (from, to) positions along it, from < to.
std::vector<std::pair<int, int>> sideEdges(const GroundMesh& m, int side) {
    std::vector<std::pair<int, int>> out;
    for (std::size_t tri = 0; tri < m.triangleCount(); ++tri) {
        for (int k = 0; k < 3; ++k) {
            const GroundVertex& u = m.vertices[m.indices[3 * tri + k]];
            const GroundVertex& v = m.vertices[m.indices[3 * tri + (k + 1) % 3]];
            const bool horizontal = side % 2 == 0;
            const int line = side == 0 || side == 3 ? 0 : kC;
            const bool on = horizontal ? (u.row == line && v.row == line) : (u.column == line && v.column == line);
            if (!on) continue;
            const int p = horizontal ? u.column : u.row, q = horizontal ? v.column : v.row;
            out.emplace_back(std::min(p, q), std::max(p, q));
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// A 3 × 3 block of tiles of one function, their errors and meshes; each mesh is built with
/// the block's tiles as its neighbours (or with none, when `withNeighbours` is false).
struct Block {
    std::vector<HeightTile> tiles;
    std::vector<RtinErrors> errors;
    std::vector<GroundMesh> meshes;

    Block(const HeightFn& f, float maxError, bool withNeighbours) {
        for (int dy = 0; dy < 3; ++dy)
            for (int dx = 0; dx < 3; ++dx) tiles.push_back(makeTile(kTx + dx, kTy + dy, f));
        for (const HeightTile& t : tiles) errors.push_back(rtinErrors(t));
        for (int dy = 0; dy < 3; ++dy) {
            for (int dx = 0; dx < 3; ++dx) {
                std::array<const RtinErrors*, 4> n{};
                if (withNeighbours) {
                    if (dy > 0) n[0] = &errors[at(dx, dy - 1)];
                    if (dx < 2) n[1] = &errors[at(dx + 1, dy)];
                    if (dy < 2) n[2] = &errors[at(dx, dy + 1)];
                    if (dx > 0) n[3] = &errors[at(dx - 1, dy)];
                }
                meshes.push_back(buildGroundMesh(tiles[at(dx, dy)], errors[at(dx, dy)], n, maxError));
            }
        }
    }
    static std::size_t at(int dx, int dy) { return static_cast<std::size_t>(dy * 3 + dx); }
};

/// The 12 shared edges of a Block: (tile A, its side, tile B), B across that side.
std::vector<std::array<std::size_t, 3>> sharedEdges() {
    std::vector<std::array<std::size_t, 3>> out;
    for (int dy = 0; dy < 3; ++dy) {
        for (int dx = 0; dx < 3; ++dx) {
            if (dx < 2) out.push_back({Block::at(dx, dy), 1, Block::at(dx + 1, dy)});
            if (dy < 2) out.push_back({Block::at(dx, dy), 2, Block::at(dx, dy + 1)});
        }
    }
    return out;
}

/// Vertex positions on a shared edge that one tile has and the other does not.
int edgeMismatches(const Block& b) {
    int mismatches = 0;
    for (const auto& [a, side, n] : sharedEdges()) {
        const auto mine = sideVertices(b.meshes[a], static_cast<int>(side));
        const auto theirs = sideVertices(b.meshes[n], static_cast<int>(side + 2) % 4);
        for (const auto& [p, h] : mine) mismatches += theirs.contains(p) ? 0 : 1;
        for (const auto& [p, h] : theirs) mismatches += mine.contains(p) ? 0 : 1;
    }
    return mismatches;
}

}  // namespace

TEST(GroundMesh, TiltedPlaneGivesTwoTrianglesAndZeroError) {
    const HeightTile t =
        makeTile(kTx, kTy, [](double x, double y) { return 10.0 + 0.25 * (x - gx(0, 0)) - 0.125 * (y - gy(0, 0)); });
    const RtinErrors e = rtinErrors(t);
    ASSERT_EQ(e.errors.size(), kHeightSampleCount);
    EXPECT_EQ(*std::max_element(e.errors.begin(), e.errors.end()), 0.0F);
    const GroundMesh m = buildGroundMesh(t, e, {}, 0.0F);  // even a 0 m bound keeps only the corners
    EXPECT_EQ(m.triangleCount(), 2U);
    ASSERT_EQ(m.vertices.size(), 4U);
    EXPECT_EQ(m.tile, t.tile);
    expectValidTriangulation(m, "plane");
    expectWithinBound(t, m, 0.0, "plane");
}

TEST(GroundMesh, EverySampleAndCellCentreIsWithinTheBound) {
    for (const TestSurface& s : shapes()) {
        const HeightTile t = makeTile(kTx, kTy, s.f);
        const RtinErrors e = rtinErrors(t);
        for (const float maxError : {0.1F, 0.5F, 2.0F}) {
            const GroundMesh m = buildGroundMesh(t, e, {}, maxError);
            const std::string what = s.name + " at " + std::to_string(maxError) + " m";
            expectWithinBound(t, m, maxError, what);
            EXPECT_LT(m.triangleCount(), 2U * kC * kC) << what;
        }
    }
}

TEST(GroundMesh, ForcedNeighbourEdgesKeepTheBound) {
    for (const TestSurface& s : shapes()) {
        const Block b(s.f, 0.5F, true);
        for (std::size_t i = 0; i < b.tiles.size(); ++i)
            expectWithinBound(b.tiles[i], b.meshes[i], 0.5, s.name + " tile " + std::to_string(i));
    }
}

TEST(GroundMesh, IsAValidTriangulationOfTheTile) {
    for (const TestSurface& s : shapes()) {
        const Block b(s.f, 0.5F, true);
        for (std::size_t i = 0; i < b.tiles.size(); ++i)
            expectValidTriangulation(b.meshes[i], s.name + " tile " + std::to_string(i));
        const HeightTile t = makeTile(kTx, kTy, s.f);
        expectValidTriangulation(buildGroundMesh(t, rtinErrors(t), {}, 0.0F), s.name + " at 0 m");
    }
}

TEST(GroundMesh, VerticesAreSortedBySampleAndKeepTheCorners) {
    const HeightTile t = makeTile(kTx, kTy, shapes()[4].f);
    const GroundMesh m = buildGroundMesh(t, rtinErrors(t));
    ASSERT_GE(m.vertices.size(), 4U);
    for (std::size_t i = 1; i < m.vertices.size(); ++i) {
        const auto key = [&](std::size_t k) { return m.vertices[k].row * 1000 + m.vertices[k].column; };
        EXPECT_LT(key(i - 1), key(i));
    }
    std::set<std::pair<int, int>> corners;
    for (const GroundVertex& v : m.vertices)
        if ((v.column == 0 || v.column == kC) && (v.row == 0 || v.row == kC)) corners.insert({v.column, v.row});
    EXPECT_EQ(corners.size(), 4U);
    for (const GroundVertex& v : m.vertices) EXPECT_EQ(v.height, t.at(v.row, v.column));
}

TEST(GroundMesh, ZeroBoundOnASmoothConeIsExactAtEverySample) {
    const HeightTile t = makeTile(kTx, kTy, cone(gx(0, 128.4), gy(0, 121.9), 60.0, 0.35));
    const GroundMesh m = buildGroundMesh(t, rtinErrors(t), {}, 0.0F);
    expectWithinBound(t, m, 0.0, "cone at 0 m");
    expectValidTriangulation(m, "cone at 0 m");
    // The cone's flat foot needs few vertices; the mesh is not the full grid.
    EXPECT_LT(m.vertices.size(), kHeightSampleCount);
}

TEST(GroundMesh, LargerBoundGivesNoMoreTriangles) {
    for (const TestSurface& s : shapes()) {
        const HeightTile t = makeTile(kTx, kTy, s.f);
        const RtinErrors e = rtinErrors(t);
        std::size_t previous = std::numeric_limits<std::size_t>::max();
        for (const float maxError : {0.0F, 0.05F, 0.25F, 0.5F, 1.0F, 4.0F, 100.0F}) {
            const std::size_t n = buildGroundMesh(t, e, {}, maxError).triangleCount();
            EXPECT_LE(n, previous) << s.name << " at " << maxError;
            previous = n;
        }
        EXPECT_EQ(previous, 2U) << s.name << ": a bound above every deviation keeps the two halves";
    }
}

TEST(GroundMesh, NeighbourTilesShareTheirEdgeVerticesOnAllFourSides) {
    const std::vector<TestSurface> cases = {
        // A cone whose apex is on the centre tile's east edge (and near its south edge).
        {"cone_on_edge", cone(gx(1, 0), gy(0, 200.5), 50.0, 0.6)},
        // A cone off every edge whose flanks cross them.
        {"cone_off_edge", cone(gx(0, 150.2), gy(0, 90.6), 120.0, 0.7)},
        // A cone on the corner the centre tile shares with its east, south and south-east
        // neighbours: the four tiles' corner refinements must agree.
        {"cone_on_corner", cone(gx(1, 0), gy(1, 0), 40.0, 0.8)},
        {"noise", noise(1.5)},
        {"hills_and_noise", shapes()[4].f},
        {"ridge_on_east_edge", shapes()[3].f},
    };
    for (const TestSurface& s : cases) {
        for (const float maxError : {0.25F, 0.5F, 3.0F}) {
            const Block b(s.f, maxError, true);
            const std::string what = s.name + " at " + std::to_string(maxError) + " m";
            for (const auto& [a, side, n] : sharedEdges()) {
                const int mySide = static_cast<int>(side), theirSide = (mySide + 2) % 4;
                const auto mine = sideVertices(b.meshes[a], mySide);
                const auto theirs = sideVertices(b.meshes[n], theirSide);
                EXPECT_EQ(mine, theirs) << what << ": tiles " << a << " and " << n;  // positions and heights
                // No triangle edge on the shared side passes over a vertex of the other tile.
                for (const auto& [m, other] : {std::pair{&b.meshes[a], &theirs}, std::pair{&b.meshes[n], &mine}}) {
                    const int edgeSide = m == &b.meshes[a] ? mySide : theirSide;
                    for (const auto& [p, q] : sideEdges(*m, edgeSide)) {
                        const auto inside = other->upper_bound(p);
                        EXPECT_TRUE(inside == other->end() || inside->first >= q)
                            << what << ": T-junction on (" << p << ", " << q << ") of tiles " << a << ", " << n;
                    }
                }
            }
        }
    }
}

TEST(GroundMesh, WithoutNeighboursTheSharedEdgesDisagree) {
    // The control for the test above: each tile alone keeps different samples on the shared
    // edges, so the agreement there comes from the forcing.
    EXPECT_GT(edgeMismatches(Block(noise(1.5), 0.5F, false)), 0);
    EXPECT_GT(edgeMismatches(Block(cone(gx(1, 0), gy(0, 200.5), 50.0, 0.6), 0.5F, false)), 0);
    EXPECT_EQ(edgeMismatches(Block(noise(1.5), 0.5F, true)), 0);
}

TEST(GroundMesh, KeepsTheCornerRefinementWhereANeighbourMeetsACorner) {
    // Vertices at distance d = 1, 2, 4 … 128 from a corner on either edge meeting there tie that
    // corner's four tiles together, so they are kept wherever a neighbour meets the corner, and
    // only there: a plane with an east neighbour refines the north-east and south-east corners.
    const HeightFn plane = [](double x, double y) { return 3.0 + 0.5 * (x - gx(0, 0)) + 0.25 * (y - gy(0, 0)); };
    const HeightTile t = makeTile(kTx, kTy, plane);
    const RtinErrors e = rtinErrors(t), east = rtinErrors(makeTile(kTx + 1, kTy, plane));
    const GroundMesh m = buildGroundMesh(t, e, {nullptr, &east, nullptr, nullptr}, 0.5F);
    expectValidTriangulation(m, "plane with an east neighbour");
    const auto north = sideVertices(m, 0), eastSide = sideVertices(m, 1), west = sideVertices(m, 3);
    for (int d = 1; d < kC; d *= 2) {
        EXPECT_TRUE(north.contains(kC - d)) << d;
        EXPECT_TRUE(eastSide.contains(d)) << d;
        EXPECT_TRUE(eastSide.contains(kC - d)) << d;
    }
    EXPECT_FALSE(north.contains(1));  // the north-west corner meets no neighbour
    EXPECT_EQ(west.size(), 2U);       // nor the south-west one: the west edge keeps only its corners
    // The price on flat ground, as the header states it: four neighbours, four corner fans.
    const GroundMesh all = buildGroundMesh(t, e, {&east, &east, &east, &east}, 0.5F);
    EXPECT_EQ(all.triangleCount(), 120U);
    EXPECT_EQ(all.vertices.size(), 93U);
    expectValidTriangulation(all, "plane with four neighbours");
}

TEST(GroundMesh, BoundaryAncestorsOfAnEdgeSampleAreTheSameInBothTiles) {
    // The crack-freedom argument needs this: forcing a sample on a shared edge forces the same
    // positions along that edge in both tiles' hierarchies. One error spike at a time, in the
    // west tile's east column and the east tile's west column (and north/south likewise).
    const HeightTile west = makeTile(kTx, kTy, [](double, double) { return 0.0; });
    const HeightTile east = makeTile(kTx + 1, kTy, [](double, double) { return 0.0; });
    const HeightTile south = makeTile(kTx, kTy + 1, [](double, double) { return 0.0; });
    int differing = 0;
    for (int i = 1; i < kC; ++i) {
        RtinErrors spike;
        const auto edgeOf = [&](const HeightTile& t, int row, int column, int side) {
            spike.errors.assign(kHeightSampleCount, 0.0F);
            spike.errors[HeightTile::index(row, column)] = 1.0F;
            return sideVertices(buildGroundMesh(t, spike, {}, 0.5F), side);
        };
        const auto keys = [](const std::map<int, float>& m) {
            std::set<int> k;
            for (const auto& [p, h] : m) k.insert(p);
            return k;
        };
        const auto eastColumn = keys(edgeOf(west, i, kC, 1)), westColumn = keys(edgeOf(east, i, 0, 3));
        const auto southRow = keys(edgeOf(west, kC, i, 2)), northRow = keys(edgeOf(south, 0, i, 0));
        if (eastColumn != westColumn) ++differing;
        if (southRow != northRow) ++differing;
        EXPECT_TRUE(eastColumn.contains(i)) << i;
        EXPECT_TRUE(southRow.contains(i)) << i;
    }
    EXPECT_EQ(differing, 0);
}

TEST(GroundMesh, SameInputGivesTheSameBytes) {
    const HeightTile t = makeTile(kTx, kTy, shapes()[4].f);
    const RtinErrors e1 = rtinErrors(t);
    RtinErrors e2;
    RtinScratch scratch;
    rtinErrors(makeTile(kTx, kTy, noise(5.0)), e2, scratch);  // dirty the scratch first
    rtinErrors(t, e2, scratch);
    ASSERT_EQ(e1.errors.size(), e2.errors.size());
    EXPECT_EQ(std::memcmp(e1.errors.data(), e2.errors.data(), e1.errors.size() * sizeof(float)), 0);

    const RtinErrors n = rtinErrors(makeTile(kTx + 1, kTy, shapes()[4].f));
    const GroundMesh m1 = buildGroundMesh(t, e1, {nullptr, &n, nullptr, nullptr}, 0.5F);
    GroundMesh m2;
    GroundMeshScratch meshScratch;
    buildGroundMesh(t, e1, {}, 0.1F, m2, meshScratch);
    buildGroundMesh(t, e2, {nullptr, &n, nullptr, nullptr}, 0.5F, m2, meshScratch);
    ASSERT_EQ(m1.vertices.size(), m2.vertices.size());
    ASSERT_EQ(m1.indices.size(), m2.indices.size());
    EXPECT_EQ(std::memcmp(m1.vertices.data(), m2.vertices.data(), m1.vertices.size() * sizeof(GroundVertex)), 0);
    EXPECT_EQ(std::memcmp(m1.indices.data(), m2.indices.data(), m1.indices.size() * sizeof(std::uint32_t)), 0);
}

TEST(GroundMesh, TileWithNoHeightGivesAnEmptyMesh) {
    HeightTile t;
    t.reset(TileId{kMeshZoom, kTx, kTy});
    const RtinErrors e = rtinErrors(t);
    EXPECT_TRUE(buildGroundMesh(t, e).empty());
    EXPECT_TRUE(buildGroundMesh(t, e).vertices.empty());
    const HeightTile none;  // never filled
    EXPECT_TRUE(rtinErrors(none).errors.empty());
    EXPECT_TRUE(buildGroundMesh(none, rtinErrors(none)).empty());
}

TEST(GroundMesh, SamplesWithoutHeightCountAsZero) {
    HeightTile t = makeTile(kTx, kTy, [](double, double) { return 5.0; });
    for (int r = 40; r < 90; ++r)
        for (int c = 100; c < 130; ++c) t.heights[HeightTile::index(r, c)] = kNoHeight;
    const GroundMesh m = buildGroundMesh(t, rtinErrors(t), {}, 0.5F);
    expectWithinBound(t, m, 0.5, "hole");  // against the samples with NaN as 0
    expectValidTriangulation(m, "hole");
    bool zeroVertex = false;
    for (const GroundVertex& v : m.vertices) {
        EXPECT_TRUE(std::isfinite(v.height));
        if (!t.hasHeight(v.row, v.column)) {
            EXPECT_EQ(v.height, 0.0F);
            zeroVertex = true;
        }
    }
    EXPECT_TRUE(zeroVertex);
}

// The reference: Martini's own walk of the hierarchy by triangle id, with the true deviation
// computed by brute force over each triangle's bounding box.
TEST(RtinErrors, EqualTheTrueDeviationOverMartinisHierarchy) {
    for (const TestSurface& s : {shapes()[1], shapes()[4]}) {
        const HeightTile t = makeTile(kTx, kTy, s.f);
        const RtinErrors fast = rtinErrors(t);
        std::vector<double> ref(kHeightSampleCount, 0.0);
        const int numTriangles = 2 * kC * kC - 2, numParents = numTriangles - kC * kC;
        for (int i = numTriangles - 1; i >= 0; --i) {
            int id = i + 2, ax = 0, ay = 0, bx = 0, by = 0, cx = 0, cy = 0;
            if (id & 1) {
                bx = by = cx = kC;
            } else {
                ax = ay = cy = kC;
            }
            while ((id >>= 1) > 1) {
                const int mx = (ax + bx) >> 1, my = (ay + by) >> 1;
                if (id & 1) {
                    bx = ax, by = ay, ax = cx, ay = cy;
                } else {
                    ax = bx, ay = by, bx = cx, by = cy;
                }
                cx = mx, cy = my;
            }
            GroundMesh tri;
            tri.vertices = {{static_cast<std::uint16_t>(ax), static_cast<std::uint16_t>(ay), t.at(ay, ax)},
                            {static_cast<std::uint16_t>(bx), static_cast<std::uint16_t>(by), t.at(by, bx)},
                            {static_cast<std::uint16_t>(cx), static_cast<std::uint16_t>(cy), t.at(cy, cx)}};
            tri.indices = {0, 1, 2};
            double dev = 0.0;
            forEachLatticePoint(tri, 0, 0, [&](long long x, long long y, double v) {
                dev = std::max(dev, std::fabs(v - sampleValue(t, static_cast<int>(x / 2), static_cast<int>(y / 2))));
            });
            forEachLatticePoint(tri, 0, 1, [&](long long x, long long y, double v) {
                dev = std::max(dev, std::fabs(v - centreValue(t, static_cast<int>(x / 2), static_cast<int>(y / 2))));
            });
            const std::size_t mid = HeightTile::index((ay + by) / 2, (ax + bx) / 2);
            ref[mid] = std::max(ref[mid], dev);
            if (i < numParents) {
                ref[mid] = std::max({ref[mid], ref[HeightTile::index((ay + cy) / 2, (ax + cx) / 2)],
                                     ref[HeightTile::index((by + cy) / 2, (bx + cx) / 2)]});
            }
        }
        double worst = 0.0;
        for (std::size_t i = 0; i < kHeightSampleCount; ++i) {
            EXPECT_GE(static_cast<double>(fast.errors[i]), ref[i] - kTolerance) << s.name << " sample " << i;
            worst = std::max(worst, std::fabs(fast.errors[i] - ref[i]));
        }
        EXPECT_LE(worst, kTolerance) << s.name;
    }
}
