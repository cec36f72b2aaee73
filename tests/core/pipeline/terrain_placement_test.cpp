// Placement on the ground (the Terrain issue): the Monaco sample baked through the Session on
// DEMs the tests make — a cone, a tilted plane, a cliff — with every placed building checked
// against the terrain under its model's footprint (its base at or below the lowest, its plinth
// at or above the highest), every plant against the height at its trunk, steep footprints
// blocked by the rule and not without it, and the same bytes at any thread count and after rule
// edits that re-bake and reuse.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numbers>
#include <sstream>
#include <string>

#include "manifest_writer_p.h"
#include "pipeline_test_support.h"
#include "support/scratch_dir.h"
#include "support/test_dems.h"
#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/export/manifest_writer.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/project/project.h"

namespace terrabit::core::pipeline {
namespace {

using namespace core::test;

/// Heights are compared to a millimetre: scene y are floats of heights near 100 m.
constexpr double kMillimetre = 1e-3;

/// A cone 300 m high at Monaco's centre, falling 1 m per 5 Mercator metres.
double cone(Vec2 m) { return 300.0 - 0.2 * std::hypot(m.x - kCentre.x, m.y - kCentre.y); }
/// A plane rising 6 m per 100 m east and 3 m per 100 m north.
double plane(Vec2 m) { return 120.0 + 0.06 * (m.x - kCentre.x) + 0.03 * (m.y - kCentre.y); }

std::filesystem::path writeDem(const terrabit::test::ScratchDir& dir, const std::string& name,
                               const std::function<double(Vec2)>& height) {
    // 5 m pixels over 8 km: the whole Monaco sample at zoom 17.
    return test::writeMercatorDem(dir.path() / name, height, 5.0, 4000.0);
}

/// The ground a placed model stands on, ground metres (east, north): a rectangle per rectangle
/// of its ground outline (its catalogue footprint for a box model), scaled and turned by its
/// instance, corners counter-clockwise.
std::vector<std::array<Vec2, 4>> footprintsOf(const Instance& in, const AssetInfo& a) {
    std::vector<OutlineRect> rects = a.outline;
    if (rects.empty())
        rects.push_back(
            {-0.5 * a.footprint.width, -0.5 * a.footprint.depth, 0.5 * a.footprint.width, 0.5 * a.footprint.depth});
    const double c = std::cos(in.yaw), s = std::sin(in.yaw);
    const Vec2 centre{in.position.x, -in.position.z};
    const Vec2 u{c, s}, v{-s, c};  // the model's +X, and its -Z
    std::vector<std::array<Vec2, 4>> out;
    for (const OutlineRect& r : rects) {
        const auto at = [&](double x, double z) { return centre + u * (x * in.scale.x) - v * (z * in.scale.z); };
        out.push_back({at(r.x0, r.z1), at(r.x1, r.z1), at(r.x1, r.z0), at(r.x0, r.z0)});
    }
    return out;
}

/// The lowest and highest ground the Session answers at a 9 × 9 grid of points over a
/// footprint rectangle (its corners and edges included).
std::pair<double, double> groundUnder(const Session& session, const Scene& scene, const std::array<Vec2, 4>& r) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int i = 0; i <= 8; ++i) {
        for (int j = 0; j <= 8; ++j) {
            const double a = i / 8.0, b = j / 8.0;
            const Vec2 p = r[0] + (r[1] - r[0]) * a + (r[3] - r[0]) * b;
            auto h = session.groundHeight(scene.frame.groundToMercator(p));
            EXPECT_TRUE(h.ok());
            if (!h.ok() || std::isnan(*h)) continue;
            lo = std::min(lo, double(*h));
            hi = std::max(hi, double(*h));
        }
    }
    return {lo, hi};
}

/// Whether a point lies in a convex quadrilateral (corners counter-clockwise), up to 1 cm.
bool inQuad(const std::array<Vec2, 4>& q, Vec2 p) {
    for (std::size_t i = 0; i < 4; ++i) {
        const Vec2 a = q[i], b = q[(i + 1) % 4];
        if (cross(b - a, p - a) < -0.01 * length(b - a)) return false;
    }
    return true;
}

/// The plinths of one building standing on rectangles of one of its models (centre inside).
std::vector<const Plinth*> plinthsOn(const std::vector<const Plinth*>& plinths,
                                     const std::vector<std::array<Vec2, 4>>& rects) {
    std::vector<const Plinth*> out;
    for (const Plinth* p : plinths) {
        if (std::any_of(rects.begin(), rects.end(), [&](const auto& r) { return inQuad(r, p->box.centre); })) {
            out.push_back(p);
        }
    }
    return out;
}

/// Every further prefab of a building stands at or below the lowest ground under it, and where
/// the ground rises under it a plinth of its own (per rectangle) reaches at least the highest;
/// returns how many stood on rising ground.
std::size_t checkPartsStandOnTheGround(const Session& session, const Scene& scene, const BuildingRecord& b,
                                       const std::vector<const Plinth*>& plinths) {
    std::size_t rising = 0;
    const std::string& id = scene.sources[b.source];
    for (const BuildingPart& part : b.parts) {
        const AssetInfo* asset = session.catalogue().find(scene.assets[static_cast<std::size_t>(part.asset)]);
        EXPECT_NE(asset, nullptr);
        if (!asset) continue;
        const double base = double(part.placement.position.y) + scene.originHeight;
        for (const auto& rect : footprintsOf(part.placement, *asset)) {
            const auto [lo, hi] = groundUnder(session, scene, rect);
            EXPECT_LE(base, lo + kMillimetre) << id << ": a further prefab floats above the ground under it";
            if (hi <= base + kMillimetre) continue;
            ++rising;
            const std::vector<const Plinth*> own = plinthsOn(plinths, {rect});
            EXPECT_EQ(own.size(), 1u) << id << ": the ground rises under a further prefab, which has no plinth";
            if (own.size() != 1) continue;
            EXPECT_NEAR(double(own[0]->bottom) + scene.originHeight, base, kMillimetre) << id;
            EXPECT_GE(double(own[0]->top) + scene.originHeight + kMillimetre, hi)
                << id << ": the ground under a further prefab rises above its plinth";
        }
    }
    return rising;
}

/// Every placed building stands at or below the lowest ground under its model's footprint, and
/// its plinth (when the ground rises under it) reaches at least the highest; so does each of
/// its further prefabs on its own plinth. Returns how many buildings were checked and, with
/// `partsRising`, how many rectangles of further prefabs stood on rising ground.
std::size_t checkBuildingsStandOnTheGround(const Session& session, const Scene& scene,
                                           std::size_t* partsRising = nullptr) {
    std::map<std::uint32_t, std::vector<const Plinth*>> plinthsOf;
    for (const Plinth& p : scene.plinths) plinthsOf[p.source].push_back(&p);
    std::size_t checked = 0, rising = 0;
    for (const BuildingRecord& b : scene.buildings) {
        if (b.outcome != BuildingOutcome::Placed) continue;
        const std::string& id = scene.sources[b.source];
        const AssetInfo* asset = session.catalogue().find(scene.assets[static_cast<std::size_t>(b.asset)]);
        EXPECT_NE(asset, nullptr);
        if (!asset) continue;
        EXPECT_TRUE(b.hasGround()) << id;
        // A model with a ground outline stands on a plinth per rectangle of it (its yard is ground).
        const std::vector<const Plinth*>& all = plinthsOf[b.source];
        const std::vector<const Plinth*> mine = plinthsOn(all, footprintsOf(b.placement, *asset));
        if (!mine.empty()) {
            EXPECT_EQ(mine.size(), std::max<std::size_t>(1, asset->outline.size())) << id;
        }
        rising += checkPartsStandOnTheGround(session, scene, b, all);
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (const auto& rect : footprintsOf(b.placement, *asset)) {
            const auto [rectLo, rectHi] = groundUnder(session, scene, rect);
            lo = std::min(lo, rectLo);
            hi = std::max(hi, rectHi);
        }
        const double base = double(b.placement.position.y) + scene.originHeight;
        EXPECT_NEAR(base, b.groundMin, kMillimetre) << id << ": it stands on the lowest ground it covers";
        EXPECT_LE(base, lo + kMillimetre) << id << " floats above the ground under it";
        const double top = mine.empty() ? base : double(mine.front()->top) + scene.originHeight;
        EXPECT_GE(top + kMillimetre, hi) << id << ": the ground under it rises above its plinth";
        EXPECT_GE(double(b.groundMax) + kMillimetre, hi) << id;
        if (!mine.empty()) {
            EXPECT_NEAR(double(mine.front()->bottom) + scene.originHeight, base, kMillimetre) << id;
            EXPECT_NEAR(top, b.groundMax, kMillimetre) << id;
        }
        ++checked;
    }
    if (partsRising) *partsRising = rising;
    return checked;
}

/// Every generated building's walls stand on the lowest ground its footprint's cells reach, and
/// where that ground rises its plinth (over the footprint's box, holding the whole outline)
/// reaches the highest. Checked at a grid of points inside the outline at least
/// kInsetMetres from its edges (a footprint's cells are those whose centre it holds, less cells
/// a neighbour took: its edges are not all sampled). Returns how many were checked.
std::size_t checkGeneratedBuildingsStandOnTheGround(const Session& session, const Scene& scene) {
    constexpr double kInsetMetres = 2.0;
    std::map<std::uint32_t, const Plinth*> plinthOf;
    for (const Plinth& p : scene.plinths) plinthOf[p.source] = &p;
    std::map<std::uint32_t, const BuildingRecord*> recordOf;
    for (const BuildingRecord& b : scene.buildings) recordOf[b.source] = &b;
    std::size_t checked = 0;
    for (const GeneratedBuilding& g : scene.generated) {
        const std::string& id = scene.sources[g.source];
        const BuildingRecord& b = *recordOf.at(g.source);
        const double base = double(g.base) + scene.originHeight;
        if (b.partOfSource != Instance::kNoSource) {
            // A part of the building it was mapped within stands on that one, not on the ground.
            const BuildingRecord& whole = *recordOf.at(b.partOfSource);
            EXPECT_FALSE(b.hasGround()) << id;
            EXPECT_GE(base, double(whole.groundMin) - kMillimetre) << id;
            ++checked;
            continue;
        }
        EXPECT_TRUE(b.hasGround()) << id;
        EXPECT_NEAR(base, b.groundMin, kMillimetre) << id << ": its walls stand on the lowest ground";
        const auto plinth = plinthOf.find(g.source);
        if (!(b.groundMax > b.groundMin)) {
            EXPECT_EQ(plinth, plinthOf.end()) << id << ": level ground needs no plinth";
            ++checked;
            continue;
        }
        if (plinth == plinthOf.end()) {
            ADD_FAILURE() << id << ": the ground rises under it but it has no plinth";
            continue;
        }
        const Plinth& p = *plinth->second;
        EXPECT_NEAR(double(p.bottom) + scene.originHeight, base, kMillimetre) << id;
        EXPECT_NEAR(double(p.top) + scene.originHeight, b.groundMax, kMillimetre) << id;
        // The plinth's box holds the outline.
        const Vec2 u{std::cos(p.box.angle), std::sin(p.box.angle)}, v{-u.y, u.x};
        for (const Vec2& q : g.outline) {
            const Vec2 d = q - p.box.centre;
            EXPECT_LE(std::abs(d.x * u.x + d.y * u.y), p.box.halfExtents.x + 1e-3) << id;
            EXPECT_LE(std::abs(d.x * v.x + d.y * v.y), p.box.halfExtents.y + 1e-3) << id;
        }
        // The ground inside the outline: within [base, top].
        const auto inside = [&](Vec2 q) {
            bool in = false;
            for (std::size_t i = 0, j = g.outline.size() - 1; i < g.outline.size(); j = i++) {
                const Vec2 a = g.outline[j], c = g.outline[i];
                if ((a.y <= q.y) != (c.y <= q.y) && q.x < a.x + (q.y - a.y) / (c.y - a.y) * (c.x - a.x)) in = !in;
                const Vec2 ac = c - a, aq = q - a;
                const double t = std::clamp((aq.x * ac.x + aq.y * ac.y) / (ac.x * ac.x + ac.y * ac.y), 0.0, 1.0);
                if (std::hypot(aq.x - ac.x * t, aq.y - ac.y * t) < kInsetMetres) return false;
            }
            return in;
        };
        for (int i = 0; i <= 16; ++i) {
            for (int j = 0; j <= 16; ++j) {
                const Vec2 q = p.box.centre + u * (p.box.halfExtents.x * (i / 8.0 - 1.0)) +
                               v * (p.box.halfExtents.y * (j / 8.0 - 1.0));
                if (!inside(q)) continue;
                auto h = session.groundHeight(scene.frame.groundToMercator(q));
                EXPECT_TRUE(h.ok()) << h.message();
                if (!h.ok() || std::isnan(*h)) continue;
                EXPECT_LE(base, double(*h) + kMillimetre) << id << " floats above the ground under it";
                EXPECT_GE(double(p.top) + scene.originHeight + kMillimetre, double(*h))
                    << id << ": the ground under it rises above its plinth";
            }
        }
        ++checked;
    }
    return checked;
}

/// Every plant (an instance without a source) stands within a centimetre of the ground at its
/// trunk; returns how many were checked.
std::size_t checkPlantsStandOnTheGround(const Session& session, const Scene& scene) {
    std::size_t checked = 0, far = 0;
    for (const InstanceBlock& b : scene.blocks) {
        for (const Instance& in : b.instances) {
            if (in.source != Instance::kNoSource) continue;
            const Vec2 m = scene.frame.groundToMercator({in.position.x, -in.position.z});
            auto h = session.groundHeight(m);
            EXPECT_TRUE(h.ok());
            if (!h.ok() || std::isnan(*h)) continue;
            const double y = double(in.position.y) + scene.originHeight;
            if (std::abs(y - *h) > 0.01 && ++far <= 5) {
                ADD_FAILURE() << scene.assets[static_cast<std::size_t>(b.asset)] << " at " << m.x << "," << m.y
                              << " stands at " << y << " m, the ground is at " << *h << " m";
            }
            ++checked;
        }
    }
    EXPECT_EQ(far, 0u);
    return checked;
}

TEST(TerrainPlacement, OnAConeAndATiltedPlaneNothingFloatsAndNothingIsSwallowed) {
    terrabit::test::ScratchDir dir;
    for (const auto& [name, height] :
         {std::pair<std::string, std::function<double(Vec2)>>{"cone.tif", cone}, {"plane.tif", plane}}) {
        SCOPED_TRACE(name);
        auto session = openOrFail(monacoInput(writeDem(dir, name, height)));
        ASSERT_TRUE(session);
        auto scene = session->bake(seeded(2022));
        ASSERT_TRUE(scene.ok()) << scene.message();
        ASSERT_TRUE(scene->terrain);
        // The frame: y = 0 is the ground height at the scene origin — the graded ground's
        // (the origin may lie in a harbour basin, flat at its shore's lowest height), the DEM's
        // own height there the analytic surface's.
        const Vec2 origin = lonLatToMercator(scene->frame.origin);
        auto ground = session->groundHeight(origin);
        ASSERT_TRUE(ground.ok());
        EXPECT_NEAR(scene->originHeight, *ground, kMillimetre);
        auto originTile = tileAt(origin, session->zoom());
        ASSERT_TRUE(originTile.ok());
        auto raw = session->rawHeightTile(*originTile);
        ASSERT_TRUE(raw.ok());
        const Vec2 cell = GroundFrame{{}, session->zoom()}.mercatorToCell(origin);
        EXPECT_NEAR(terrain::heightAt(**raw, {cell.x - double(originTile->x) * kTileCells,
                                              cell.y - double(originTile->y) * kTileCells}),
                    height(origin), 0.05);
        std::size_t partsRising = 0;
        EXPECT_GT(checkBuildingsStandOnTheGround(*session, *scene, &partsRising), 200u);
        EXPECT_GT(partsRising, 500u) << "further prefabs on sloping ground, each on its own plinth";
        RecordProperty(name + "_parts_rising", std::to_string(partsRising));
        const std::size_t generated = checkGeneratedBuildingsStandOnTheGround(*session, *scene);
        EXPECT_GT(generated, 20u);
        RecordProperty(name + "_generated_checked", std::to_string(generated));
        EXPECT_GT(scene->plinths.size(), 100u) << "sloping ground gives plinths";
        EXPECT_GT(checkPlantsStandOnTheGround(*session, *scene), 1000u);
        // The statistics: the tiles' height range.
        EXPECT_TRUE(std::isfinite(scene->statistics.minHeight));
        EXPECT_LT(scene->statistics.minHeight, scene->originHeight);
        EXPECT_GT(scene->statistics.maxHeight, scene->originHeight);
    }
}

TEST(TerrainPlacement, ACliffBlocksTheBuildingsAcrossItUnlessTheRuleAllowsTheStep) {
    terrabit::test::ScratchDir dir;
    // A 30 m step along a north-south line through the sample, a second along an east-west one.
    const auto dem = writeDem(dir, "cliff.tif", [](Vec2 m) {
        return 50.0 + (m.x > kCentre.x ? 30.0 : 0.0) + (m.y > kCentre.y + 300.0 ? 30.0 : 0.0);
    });
    auto session = openOrFail(monacoInput(dem));
    ASSERT_TRUE(session);
    auto steep = session->bake(seeded(2022));
    ASSERT_TRUE(steep.ok()) << steep.message();
    const std::size_t blocked = steep->statistics.buildingsBlockedBySlope;
    EXPECT_GT(blocked, 3u) << "buildings across the cliff are blocked";
    std::size_t counted = 0;
    for (const BuildingRecord& b : steep->buildings) {
        if (b.outcome == BuildingOutcome::Placed) {
            EXPECT_LE(double(b.groundMax) - b.groundMin, 8.0) << "the default max_ground_step is 8 m";
        }
        if (b.outcome == BuildingOutcome::BlockedBySlope) ++counted;
    }
    EXPECT_EQ(counted, blocked);
    const std::string manifest = manifestOf(*steep);
    EXPECT_NE(manifest.find("\"outcome\":\"blocked: slope\""), std::string::npos);
    EXPECT_NE(manifest.find("\"buildingsBlockedBySlope\":" + std::to_string(blocked)), std::string::npos);
    EXPECT_GT(checkBuildingsStandOnTheGround(*session, *steep), 200u);

    // A large limit: none is blocked by slope; they stand on tall plinths instead.
    auto lenient = session->rulesWith({{"passes.buildings.max_ground_step", "1000"}});
    ASSERT_TRUE(lenient.ok()) << lenient.message();
    ASSERT_TRUE(session->setRules(*lenient).ok());
    auto allowed = session->bake(seeded(2022));
    ASSERT_TRUE(allowed.ok()) << allowed.message();
    EXPECT_EQ(allowed->statistics.buildingsBlockedBySlope, 0u);
    // Those blocked get a prefab or, where none fills them, a generated building.
    const auto built = [](const Scene& s) { return s.statistics.buildingsPlaced + s.statistics.buildingsGenerated; };
    EXPECT_GE(built(*allowed), built(*steep) + blocked / 2);
    const auto tall = std::count_if(allowed->plinths.begin(), allowed->plinths.end(),
                                    [](const Plinth& p) { return p.top - p.bottom > 25.0f; });
    EXPECT_GT(tall, 3) << "buildings across the cliff stand on plinths as high as the step";
    EXPECT_GT(checkBuildingsStandOnTheGround(*session, *allowed), 200u);

    // Back to the document's rules: the same bytes as the first bake.
    ASSERT_TRUE(session->setRules(session->baseRules()).ok());
    auto again = session->bake(seeded(2022));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(manifestOf(*again), manifest);
}

TEST(TerrainPlacement, TheSameBytesAtOneAndTwoThreadsAndAfterARuleEditThatReusesTheBuildings) {
    terrabit::test::ScratchDir dir;
    const auto dem = writeDem(dir, "cone.tif", cone);
    auto one = openOrFail([&] {
        SessionInput input = monacoInput(dem);
        input.threads = 1;
        return input;
    }());
    auto two = openOrFail(monacoInput(dem));
    ASSERT_TRUE(one && two);
    auto a = one->bake(seeded(5, 1));
    auto b = two->bake(seeded(5, 2));
    ASSERT_TRUE(a.ok() && b.ok());
    const std::string manifest = manifestOf(*a);
    EXPECT_EQ(manifest, manifestOf(*b));
    EXPECT_NE(manifest.find("\"originHeight\":"), std::string::npos);
    EXPECT_NE(manifest.find("\"ground\":["), std::string::npos);

    // A vegetation edit re-runs vegetation only: every building tile is reused, its buildings
    // on the same ground.
    auto denser = two->rulesWith({{"passes.vegetation.density", "0.2"}});
    ASSERT_TRUE(denser.ok()) << denser.message();
    ASSERT_TRUE(two->setRules(*denser).ok());
    auto c = two->bake(seeded(5, 2));
    ASSERT_TRUE(c.ok());
    const placement::PassReport* buildings = two->report().pass("buildings");
    ASSERT_NE(buildings, nullptr);
    EXPECT_EQ(buildings->tilesRun, 0u);
    EXPECT_GT(buildings->tilesReused, 0u);
    ASSERT_EQ(c->buildings.size(), b->buildings.size());
    for (std::size_t i = 0; i < c->buildings.size(); ++i) {
        EXPECT_EQ(c->buildings[i].placement, b->buildings[i].placement);
    }
    EXPECT_GT(checkPlantsStandOnTheGround(*two, *c), 1000u);
    // Back again: the first bytes.
    ASSERT_TRUE(two->setRules(two->baseRules()).ok());
    auto d = two->bake(seeded(5, 2));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(manifestOf(*d), manifest);
}

TEST(TerrainPlacement, WithoutADemTheSceneIsFlatAndItsManifestSaysNothingOfTerrain) {
    auto session = openOrFail(monacoInput({}));
    ASSERT_TRUE(session);
    auto scene = session->bake(seeded(2022));
    ASSERT_TRUE(scene.ok());
    EXPECT_FALSE(scene->terrain);
    EXPECT_EQ(scene->originHeight, 0.0);
    EXPECT_TRUE(scene->plinths.empty());
    for (const InstanceBlock& b : scene->blocks) {
        for (const Instance& in : b.instances) ASSERT_EQ(in.position.y, 0.0f);
    }
    const std::string manifest = manifestOf(*scene);
    for (const char* key : {"originHeight", "\"ground\"", "buildingsBlockedBySlope", "minHeight"}) {
        EXPECT_EQ(manifest.find(key), std::string::npos) << key;
    }
}

TEST(TerrainPlacement, AProjectsDemListReachesTheSessionAndSurvivesARoundTrip) {
    const std::filesystem::path base = "/projects/monaco";
    const std::string text = R"({"format": "terrabit-project", "version": 1, "map": "../maps/m.osm.pbf",
        "dem": ["../dem/a.tif", "/data/b.vrt"]})";
    auto project = project::parseProject(text, "p.terrabit", base);
    ASSERT_TRUE(project.ok()) << project.message();
    const std::vector<std::filesystem::path> expected{"/projects/dem/a.tif", "/data/b.vrt"};
    EXPECT_EQ(project->dems, expected);
    auto input = projectInput(*project, kRules);
    ASSERT_TRUE(input.ok());
    EXPECT_EQ(input->dems, expected);
    const std::string saved = project::serializeProject(*project, base);
    EXPECT_NE(saved.find("\"../dem/a.tif\""), std::string::npos) << saved;
    auto again = project::parseProject(saved, "p.terrabit", base);
    ASSERT_TRUE(again.ok()) << again.message();
    EXPECT_EQ(*again, *project);

    // The same error style as every key: file, line and column, and what is wrong.
    auto bad =
        project::parseProject(R"({"format": "terrabit-project", "version": 1, "dem": [""]})", "p.terrabit", base);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("p.terrabit:1:"), std::string::npos) << bad.message();
    EXPECT_NE(bad.message().find("DEM"), std::string::npos) << bad.message();
    auto notAList =
        project::parseProject(R"({"format": "terrabit-project", "version": 1, "dem": 3})", "p.terrabit", base);
    EXPECT_FALSE(notAList.ok());
}

// The manifest's steep share is the share of cells slope(>35deg) holds among the cells with a
// height, over the scene's tiles: counted again here with compose() on the session's layers.
// A pass's zone may use relief: with `- height(<200m) - slope(>40deg)` the vegetation pass
// plants only on ground at least 200 m high and no steeper than 40°. The ground rises east,
// 0.1 per Mercator metre (200 m at Monaco's centre), and a band east of it climbs at 1.5 (64° on
// the ground); the default zone plants on all of it.
TEST(TerrainPlacement, AZoneWithReliefPlantsOnlyWhereTheReliefAllows) {
    terrabit::test::ScratchDir dir;
    constexpr double kBandWest = 100.0, kBandEast = 250.0;
    const auto ground = [](Vec2 m) {
        const double dx = m.x - kCentre.x;
        return 200.0 + 0.1 * dx + 1.5 * std::clamp(dx - kBandWest, 0.0, kBandEast - kBandWest);
    };
    auto session = openOrFail(monacoInput(writeDem(dir, "ramp.tif", ground)));
    ASSERT_TRUE(session);
    struct Counts {
        std::size_t low = 0, steep = 0, allowed = 0;
    };
    // Plants (instances without a source) by the ground of the cell their trunk stands in, as
    // the relief layers see it (the graded ground: roads and lakes reshape it): low where every
    // corner is below 200 m, steep where the corners' gradient is beyond 42°, allowed where every
    // corner is above 200 m and the gradient below 38°.
    const auto count = [&](const Scene& scene) {
        Counts c;
        const double cellMetres = scene.frame.metresPerCell();
        for (const InstanceBlock& b : scene.blocks) {
            for (const Instance& in : b.instances) {
                if (in.source != Instance::kNoSource) continue;
                const Vec2 cell = scene.frame.groundToCell({in.position.x, -in.position.z});
                const Vec2 c0{std::floor(cell.x), std::floor(cell.y)};
                double h[2][2];
                for (int y = 0; y < 2; ++y) {
                    for (int x = 0; x < 2; ++x) {
                        auto at = session->groundHeight(scene.frame.cellToMercator(c0 + Vec2{double(x), double(y)}));
                        EXPECT_TRUE(at.ok());
                        h[y][x] = at.ok() ? double(*at) : 0.0;
                    }
                }
                const double lo = std::min({h[0][0], h[0][1], h[1][0], h[1][1]});
                const double hi = std::max({h[0][0], h[0][1], h[1][0], h[1][1]});
                const double gx = (h[0][1] + h[1][1] - h[0][0] - h[1][0]) / (2.0 * cellMetres);
                const double gy = (h[1][0] + h[1][1] - h[0][0] - h[0][1]) / (2.0 * cellMetres);
                const double degrees = std::atan(std::hypot(gx, gy)) * 180.0 / std::numbers::pi;
                if (hi < 200.0) {
                    ++c.low;
                } else if (degrees > 42.0) {
                    ++c.steep;
                } else if (lo > 200.0 && degrees < 38.0) {
                    ++c.allowed;
                }
            }
        }
        return c;
    };
    auto before = session->bake(seeded(5));
    ASSERT_TRUE(before.ok()) << before.message();
    const Counts everywhere = count(*before);
    EXPECT_GT(everywhere.low, 100u);
    EXPECT_GT(everywhere.steep, 10u);
    EXPECT_GT(everywhere.allowed, 100u);

    auto rules = session->rulesWith(
        {{"passes.vegetation.zone", "vegetation - non_plantable - placed_buildings - height(<200m) - slope(>40deg)"}});
    ASSERT_TRUE(rules.ok()) << rules.message();
    ASSERT_TRUE(session->setRules(std::move(*rules)).ok());
    auto after = session->bake(seeded(5));
    ASSERT_TRUE(after.ok()) << after.message();
    const Counts relief = count(*after);
    EXPECT_EQ(relief.low, 0u) << "no plant below 200 m";
    EXPECT_EQ(relief.steep, 0u) << "no plant on the 64° band";
    EXPECT_GT(relief.allowed, everywhere.allowed / 2) << "plants stay where the relief allows";
    EXPECT_GT(checkPlantsStandOnTheGround(*session, *after), 100u);
}

TEST(TerrainPlacement, TheSteepShareIsWhatTheSlopeExpressionCovers) {
    terrabit::test::ScratchDir dir;
    // Flat west of the centre, a 54° hillside (1 m per Mercator metre, 1.38 per ground metre)
    // east of it, so both counts are large and neither is all.
    const auto dem = writeDem(dir, "half.tif", [](Vec2 m) { return 50.0 + std::max(0.0, m.x - kCentre.x); });
    auto session = openOrFail(monacoInput(dem));
    ASSERT_TRUE(session);
    auto scene = session->bake(seeded(7));
    ASSERT_TRUE(scene.ok()) << scene.message();
    const SceneStatistics& st = scene->statistics;
    auto steep = algebra::compose(session->layers(), scene->tiles, "slope(>35deg)", {});
    auto any = algebra::compose(session->layers(), scene->tiles, "height(>-10000m)", {});
    ASSERT_TRUE(steep.ok()) << steep.message();
    ASSERT_TRUE(any.ok()) << any.message();
    std::uint64_t steepCells = 0, cells = 0;
    for (const BitTile& b : steep->masks) steepCells += b.count();
    for (const BitTile& b : any->masks) cells += b.count();
    EXPECT_EQ(st.steepCells, steepCells);
    EXPECT_EQ(st.cellsWithHeight, cells);
    EXPECT_GT(steepCells, cells / 10);  // both sides of the fold are in the scene
    EXPECT_LT(steepCells, cells);
    const std::string manifest = manifestOf(*scene);
    EXPECT_NE(manifest.find("\"steepCells\":" + std::to_string(steepCells)), std::string::npos);
    EXPECT_NE(manifest.find("\"steepShare\":"), std::string::npos);
}

}  // namespace
}  // namespace terrabit::core::pipeline
