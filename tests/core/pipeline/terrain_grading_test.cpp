// The graded ground through the Session (issue #18 Terrain): small OSM maps made here, on DEMs
// made here (a hillside, a valley, a bowl, a bump), baked like any map — road grades within the
// rules' bound (and a rule edit that tightens it), a bridge's deck kept level between its rims
// with the valley under it left as it is and drawn by the GLB, a lake flat at its shore's lowest
// height, a river that never climbs along its flow.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline_test_support.h"
#include "support/scratch_dir.h"
#include "support/test_dems.h"
#include "terrabit/core/collision/character_mover.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/scene/bridge_deck.h"

namespace terrabit::core::pipeline {
namespace {

using namespace core::test;

/// Ground metres per Mercator metre at Monaco.
const double kScale = std::cos(test::kMonacoCentre.lat * std::numbers::pi / 180.0);

/// A way of a small OSM map: its points (Mercator metres from Monaco's centre) and tags.
struct Way {
    std::vector<Vec2> points;
    std::vector<std::pair<std::string, std::string>> tags;
    bool closed = false;
};

/// Writes an OSM XML file of `ways` (each with nodes of its own, but for points shared exactly,
/// which share a node: ways joined end to end are connected).
std::filesystem::path writeOsm(const std::filesystem::path& path, const std::vector<Way>& ways) {
    std::ostringstream nodes, body;
    std::vector<Vec2> known;
    const auto nodeOf = [&](Vec2 p) {
        for (std::size_t i = 0; i < known.size(); ++i) {
            if (known[i] == p) return i + 1;
        }
        known.push_back(p);
        const LonLat ll = mercatorToLonLat(kCentre + p);
        nodes.precision(12);
        nodes << "  <node id=\"" << known.size() << "\" version=\"1\" lat=\"" << ll.lat << "\" lon=\"" << ll.lon
              << "\"/>\n";
        return known.size();
    };
    for (std::size_t w = 0; w < ways.size(); ++w) {
        body << "  <way id=\"" << w + 1 << "\" version=\"1\">\n";
        std::vector<std::size_t> refs;
        for (const Vec2& p : ways[w].points) refs.push_back(nodeOf(p));
        if (ways[w].closed) refs.push_back(refs.front());
        for (const std::size_t r : refs) body << "    <nd ref=\"" << r << "\"/>\n";
        for (const auto& [k, v] : ways[w].tags) body << "    <tag k=\"" << k << "\" v=\"" << v << "\"/>\n";
        body << "  </way>\n";
    }
    std::ofstream out(path);
    out << "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\" generator=\"terrabit tests\">\n"
        << nodes.str() << body.str() << "</osm>\n";
    return path;
}

std::unique_ptr<Session> openOrFail(const std::filesystem::path& map, const std::filesystem::path& dem) {
    SessionInput input = monacoInput(dem);
    input.map.file = map;
    return test::openOrFail(std::move(input));
}

double groundAt(const Session& s, Vec2 offset) {
    auto h = s.groundHeight(kCentre + offset);
    EXPECT_TRUE(h.ok()) << h.message();
    return h.ok() ? double(*h) : std::nan("");
}

/// The DEM's own height at a point, before grading.
double rawAt(const Session& s, Vec2 offset) {
    const Vec2 m = kCentre + offset;
    auto tile = tileAt(m, s.zoom());
    EXPECT_TRUE(tile.ok());
    auto raw = s.rawHeightTile(*tile);
    EXPECT_TRUE(raw.ok());
    const Vec2 cell = GroundFrame{{}, s.zoom()}.mercatorToCell(m);
    return terrain::heightAt(**raw, {cell.x - double(tile->x) * kTileCells, cell.y - double(tile->y) * kTileCells});
}

/// The steepest grade of the ground along a straight line, over steps of `stepMetres` Mercator
/// metres (rise over ground run).
double steepestGrade(const Session& s, Vec2 from, Vec2 to, double stepMetres) {
    const Vec2 d = to - from;
    const double length = std::hypot(d.x, d.y);
    const int steps = static_cast<int>(length / stepMetres);
    double steepest = 0.0;
    double previous = groundAt(s, from);
    for (int i = 1; i <= steps; ++i) {
        const double h = groundAt(s, from + d * (double(i) / steps));
        steepest = std::max(steepest, std::abs(h - previous) / (length / steps * kScale));
        previous = h;
    }
    return steepest;
}

TEST(TerrainGrading, RoadGradesStayWithinTheRulesBoundAndARuleEditTightensThem) {
    terrabit::test::ScratchDir dir;
    // A ramp rising 35 % eastwards on the ground for 29 m (10 m), flat either side; a road
    // straight over it.
    const auto dem = test::writeMercatorDem(dir.path() / "ramp.tif", [](Vec2 m) {
        return 200.0 + 0.35 * kScale * std::clamp(m.x - kCentre.x, -20.0, 20.0);
    });
    const auto map = writeOsm(dir.path() / "road.osm", {{{{-400, 0}, {0, 0}, {400, 0}}, {{"highway", "residential"}}}});
    auto session = openOrFail(map, dem);
    ASSERT_TRUE(session);
    EXPECT_GT(session->grading().stats().segments, 0u);
    // Along the road, in 5 m steps: within the default 12 %; beside it, the hill as it is.
    EXPECT_LE(steepestGrade(*session, {-350, 0}, {350, 0}, 5.0), 0.12 * 1.02);
    EXPECT_NEAR(steepestGrade(*session, {-350, 60}, {350, 60}, 5.0), 0.35, 0.03);

    // max_road_grade 0.05 on the surface passes grades the road again, and the bake stands on it.
    auto rules = session->rulesWith({{"passes.roads.max_road_grade", "0.05"}});
    ASSERT_TRUE(rules.ok()) << rules.message();
    ASSERT_TRUE(session->setRules(*rules).ok());
    EXPECT_LE(steepestGrade(*session, {-350, 0}, {350, 0}, 5.0), 0.05 * 1.02);
    auto scene = session->bake({});
    ASSERT_TRUE(scene.ok()) << scene.message();
    EXPECT_FALSE(scene->ground.empty());
}

/// A valley 50 m deep and 160 m wide across the road; roads on the rims, a bridge between.
double valley(Vec2 m) {
    const double x = std::abs(m.x - kCentre.x);
    return x < 80.0 ? 50.0 + 50.0 * x / 80.0 : 100.0;
}

/// The valley's DEM and a map of the road across it, its middle 200 m a bridge, opened in a
/// Session (null, with a test failure, when it does not open).
std::unique_ptr<Session> bridgeOverValley(const terrabit::test::ScratchDir& dir) {
    const auto dem = test::writeMercatorDem(dir.path() / "valley.tif", valley);
    const auto map = writeOsm(dir.path() / "bridge.osm",
                              {{{{-300, 0}, {-100, 0}}, {{"highway", "secondary"}}},
                               {{{-100, 0}, {0, 0}, {100, 0}}, {{"highway", "secondary"}, {"bridge", "yes"}}},
                               {{{100, 0}, {300, 0}}, {{"highway", "secondary"}}}});
    return openOrFail(map, dem);
}

/// bridgeOverValley baked with the default options. False (with a test failure) unless it
/// opened, baked and has its one bridge.
bool bakeBridgeOverValley(const terrabit::test::ScratchDir& dir, std::unique_ptr<Session>& session,
                          std::optional<Scene>& scene) {
    session = bridgeOverValley(dir);
    if (!session) return false;
    auto baked = session->bake({});
    EXPECT_TRUE(baked.ok()) << baked.message();
    if (!baked.ok()) return false;
    scene = std::move(*baked);
    EXPECT_EQ(scene->bridges.size(), 1u);
    return scene->bridges.size() == 1;
}

TEST(TerrainGrading, ABridgeKeepsItsDeckBetweenItsRimsAndTheValleyUnderItIsNotDraped) {
    terrabit::test::ScratchDir dir;
    std::unique_ptr<Session> session;
    std::optional<Scene> scene;
    ASSERT_TRUE(bakeBridgeOverValley(dir, session, scene));
    const BridgeDeck& deck = scene->bridges.front();
    EXPECT_EQ(deck.id, "w2");
    EXPECT_GT(deck.width, 0.0f);
    for (const Vec3f& p : deck.centreline) {
        EXPECT_NEAR(double(p.y) + scene->originHeight, 100.0, 0.2) << "the deck runs level between its rims";
    }
    // The ground under the deck is the valley as the DEM has it (not draped, not raised), about
    // 50 m below the deck at its middle.
    for (const double x : {-60.0, -30.0, 0.0, 30.0, 60.0}) {
        EXPECT_EQ(groundAt(*session, {x, 0}), rawAt(*session, {x, 0})) << "at x " << x;
        EXPECT_NEAR(groundAt(*session, {x, 0}), valley(kCentre + Vec2{x, 0}), 2.5) << "at x " << x;
    }
    EXPECT_GT(double(deck.centreline[deck.centreline.size() / 2].y) + scene->originHeight - groundAt(*session, {0, 0}),
              45.0);
    // The road surface is not draped into the valley under the deck, and is on the approaches:
    // neither its cells nor its real shape (what the exports draw) reach under the deck.
    const auto roadCovers = [&](Vec2 offset) {
        const Vec2 cell = scene->frame.mercatorToCell(kCentre + offset);
        for (const SurfacePatch& p : scene->surfaces) {
            if (p.layer != "road") continue;
            const double x = cell.x - double(p.tile.x) * kTileCells, y = cell.y - double(p.tile.y) * kTileCells;
            for (const CellRect& r : p.rects) {
                if (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1) return true;
            }
        }
        return false;
    };
    const auto shapeCovers = [&](Vec2 offset) {
        const Vec2 cell = scene->frame.mercatorToCell(kCentre + offset);
        for (const SurfacePatch& p : scene->surfaces) {
            if (p.layer != "road") continue;
            const Vec2 q{cell.x - double(p.tile.x) * kTileCells, cell.y - double(p.tile.y) * kTileCells};
            for (std::size_t i = 0; i + 2 < p.shape.triangles.size(); i += 3) {
                const Vec2 a = p.shape.triangles[i], b = p.shape.triangles[i + 1], c = p.shape.triangles[i + 2];
                const auto side = [&](Vec2 u, Vec2 v) { return (v.x - u.x) * (q.y - u.y) - (v.y - u.y) * (q.x - u.x); };
                const double d1 = side(a, b), d2 = side(b, c), d3 = side(c, a);
                if ((d1 <= 0 && d2 <= 0 && d3 <= 0) || (d1 >= 0 && d2 >= 0 && d3 >= 0)) return true;
            }
        }
        return false;
    };
    for (const auto& covers : {std::function<bool(Vec2)>(roadCovers), std::function<bool(Vec2)>(shapeCovers)}) {
        EXPECT_FALSE(covers({0, 0}));
        EXPECT_FALSE(covers({-50, 0}));
        EXPECT_TRUE(covers({-200, 0}));
        EXPECT_TRUE(covers({200, 0}));
    }
    // The deck is drawn: faces on top at its height, and the GLB has the bridge's material.
    const std::vector<PlinthFace> faces = bridgeDeckFaces(deck);
    ASSERT_FALSE(faces.empty());
    EXPECT_NEAR(faces.front().corners[0].y, deck.centreline.front().y, 1e-3);
    EXPECT_GT(faces.front().normal.y, 0.99f);
    auto report = session->exportScene(*scene, session->exportOptions({ExportFormat::Glb}, dir.path() / "out"));
    ASSERT_TRUE(report.ok()) << report.message();
    std::ifstream glb(dir.path() / "out" / "scene.glb", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(glb)), std::istreambuf_iterator<char>());
    EXPECT_NE(bytes.find("\"name\":\"bridge\""), std::string::npos);
}

// The collision grid stands on the deck: grading leaves the valley under a bridge (the ground
// mesh shows it), but a probe on the bridge answers the deck's height and a mover walking the
// road across it stays on the deck, where without it it would drop into the valley and be
// stopped by a wall steeper than it climbs.
TEST(TerrainGrading, TheCollisionGridStandsOnABridgesDeckAndAMoverCrossesOnIt) {
    terrabit::test::ScratchDir dir;
    std::unique_ptr<Session> session;
    std::optional<Scene> scene;
    ASSERT_TRUE(bakeBridgeOverValley(dir, session, scene));
    auto report = session->exportScene(*scene, session->exportOptions({ExportFormat::Collision}, dir.path() / "out"));
    ASSERT_TRUE(report.ok()) << report.message();
    const Result<CollisionGrid> grid = readCollisionFile(dir.path() / "out" / "collision.tbcg");
    ASSERT_TRUE(grid.ok()) << grid.message();
    ASSERT_TRUE(grid->hasHeights());
    const auto cellAt = [&](Vec2 offset) { return scene->frame.mercatorToCell(kCentre + offset); };

    // Probes: on the deck the deck's height (level at the rims' 100 m), beside it the valley.
    for (const double x : {-60.0, -30.0, 0.0, 30.0, 60.0}) {
        EXPECT_NEAR(grid->groundHeight(cellAt({x, 0})), 100.0, 0.2) << "on the deck at x " << x;
        EXPECT_NEAR(grid->groundHeight(cellAt({x, 40})), valley(kCentre + Vec2{x, 40}), 2.5) << "beside it at x " << x;
    }
    // The ground mesh still has the valley under the deck.
    EXPECT_LT(groundAt(*session, {0, 0}), 55.0);
    // The deck is not steep ground.
    const int steep = grid->layerId("steep");
    ASSERT_GE(steep, 0);
    const Vec2 middle = cellAt({0, 0});
    EXPECT_EQ(grid->layersAt(std::int64_t(std::floor(middle.x)), std::int64_t(std::floor(middle.y)),
                             std::uint64_t{1} << steep),
              0u);

    // A mover along the road from the west rim to the east one, at most 20° uphill: it crosses,
    // and never stands below the deck.
    CharacterMover mover(*grid, GroundLimits{0.3, 20.0});
    Vec2 at = cellAt({-200, 0});
    const Vec2 end = cellAt({200, 0});
    const int steps = 80;
    const Vec2 step = (end - at) * (1.0 / steps);
    double lowest = INFINITY;
    for (int i = 0; i < steps; ++i) {
        const MoveResult r = mover.move(at, step, Footprint::disk(0.3), 0);
        ASSERT_FALSE(r.blocked()) << "step " << i << " at " << at.x << "," << at.y;
        at = r.position;
        lowest = std::min(lowest, double(grid->groundHeight(at)));
    }
    EXPECT_NEAR(at.x, end.x, 1e-6);
    EXPECT_GT(lowest, 99.5) << "it stayed at deck height";
}

TEST(TerrainGrading, ALakeIsFlatAtTheLowestHeightOfItsShore) {
    terrabit::test::ScratchDir dir;
    // A tilted bowl: the shore is lowest on its west side.
    const auto bowl = [](Vec2 m) {
        const Vec2 d = m - kCentre;
        return 300.0 + 0.0005 * (d.x * d.x + d.y * d.y) + 0.05 * d.x;
    };
    const auto dem = test::writeMercatorDem(dir.path() / "bowl.tif", bowl);
    const std::vector<Vec2> shore = {{-120, -90}, {120, -90}, {120, 90}, {-120, 90}};
    const auto map = writeOsm(dir.path() / "lake.osm", {{shore, {{"natural", "water"}, {"water", "lake"}}, true}});
    auto session = openOrFail(map, dem);
    ASSERT_TRUE(session);
    ASSERT_EQ(session->grading().lakes().size(), 1u);
    double lowest = 1e9;
    for (std::size_t i = 0; i < shore.size(); ++i) {
        const Vec2 a = shore[i], b = shore[(i + 1) % shore.size()];
        for (int k = 0; k <= 2000; ++k) lowest = std::min(lowest, bowl(kCentre + a + (b - a) * (k / 2000.0)));
    }
    const double level = groundAt(*session, {0, 0});
    EXPECT_NEAR(level, lowest, 0.1) << "the lake lies at its shore's lowest height";
    for (double x = -110; x <= 110; x += 10) {
        for (double y = -80; y <= 80; y += 10) ASSERT_EQ(groundAt(*session, {x, y}), level) << x << "," << y;
    }
    EXPECT_NEAR(groundAt(*session, {0, 200}), bowl(kCentre + Vec2{0, 200}), 0.3) << "beyond the shore: the terrain";
}

TEST(TerrainGrading, ARiverNeverClimbsAlongItsFlow) {
    terrabit::test::ScratchDir dir;
    // A valley falling eastwards with a bump 10 m high the river cuts through.
    const auto bump = [](Vec2 m) {
        const double x = m.x - kCentre.x;
        return 80.0 - 0.03 * x + 10.0 * std::exp(-(x - 50.0) * (x - 50.0) / 2000.0);
    };
    const auto dem = test::writeMercatorDem(dir.path() / "bump.tif", bump);
    const auto map = writeOsm(dir.path() / "river.osm", {{{{-250, 0}, {-20, 5}, {250, 0}}, {{"waterway", "river"}}}});
    auto session = openOrFail(map, dem);
    ASSERT_TRUE(session);
    // Its centreline, drawn west to east.
    const auto centre = [](double x) { return Vec2{x, x < -20 ? 5.0 * (x + 250) / 230 : 5.0 - 5.0 * (x + 20) / 270}; };
    double previous = groundAt(*session, centre(-240));
    for (double x = -239; x <= 240; x += 1.0) {
        const double h = groundAt(*session, centre(x));
        ASSERT_LE(h, previous + 1e-3) << "the river climbs at x " << x;
        previous = h;
    }
    EXPECT_LT(groundAt(*session, centre(50)), bump(kCentre + Vec2{50, 0}) - 5.0) << "cut through the bump";
}

}  // namespace
}  // namespace terrabit::core::pipeline
