// The pipeline's Session on the Monaco sample: it bakes what a SceneBaker bakes from the same
// layers (the reference is assembled by hand from io::buildMapLayers, as the commands did
// before the Session), rule edits re-run only what they touch, a selection bakes only its tiles,
// layers rasterized a batch at a time bake like the whole map's, and every failure carries its
// kind and names what is wrong.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>

#include "manifest_writer_p.h"
#include "pipeline_test_support.h"
#include "support/scratch_dir.h"
#include "support/test_dems.h"
#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/export/manifest_writer.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/placement/scene_baker.h"

namespace terrabit::core::pipeline {
namespace {

using namespace core::test;

TEST(Session, BakesWhatASceneBakerBakesFromTheSameLayers) {
    auto session = openOrFail(monacoInput());
    ASSERT_TRUE(session);
    auto scene = session->bake(seeded(2022));
    ASSERT_TRUE(scene.ok()) << scene.message();
    ASSERT_GT(scene->tiles.size(), 20u);
    EXPECT_EQ(scene->tiles, session->map().index.tiles());

    // The reference: the steps the commands took by hand before there was a Session.
    io::MapInput input;
    input.file = kMonaco;
    input.rules = kRules;
    io::TileSelection selection;
    selection.zoom = 17;
    auto layers = io::buildMapLayers(input, selection, 1, {});
    ASSERT_TRUE(layers.ok()) << layers.message();
    auto catalogue = AssetCatalogue::load(kCatalogue);
    ASSERT_TRUE(catalogue.ok()) << catalogue.message();
    auto rules = placement::PlacementRules::parse(terrabit::test::readFile(kRules), kRules.string(),
                                                  (*layers)->rules.layerInfos());
    ASSERT_TRUE(rules.ok()) << rules.message();
    placement::SceneBaker baker((*layers)->index, (*layers)->store, *catalogue);
    ASSERT_TRUE(baker.setRules(*rules).ok());
    auto reference = baker.bake(seeded(2022));
    ASSERT_TRUE(reference.ok()) << reference.message();

    EXPECT_EQ(manifestOf(*scene), manifestOf(*reference));
    EXPECT_EQ(session->warnings().size(), (*layers)->map.warnings.size() + (*layers)->classified.warnings.size());
}

TEST(Session, ARuleEditRerunsOnlyThePassesItTouches) {
    auto session = openOrFail(monacoInput());
    ASSERT_TRUE(session);
    auto first = session->bake(seeded(7));
    ASSERT_TRUE(first.ok()) << first.message();

    auto denser = session->rulesWith({{"passes.vegetation.density", "0.2"}});
    ASSERT_TRUE(denser.ok()) << denser.message();
    ASSERT_TRUE(session->setRules(*denser).ok());
    auto second = session->bake(seeded(7));
    ASSERT_TRUE(second.ok()) << second.message();
    const placement::BakeReport& r = session->report();
    ASSERT_NE(r.pass("buildings"), nullptr);
    EXPECT_EQ(r.pass("buildings")->tilesRun, 0u);
    EXPECT_GT(r.pass("vegetation")->tilesRun, 0u);
    EXPECT_EQ(second->buildings.size(), first->buildings.size());
    EXPECT_GT(second->statistics.vegetationInstances, first->statistics.vegetationInstances);

    // The same as a fresh session baking the edited rules at once.
    auto fresh = openOrFail(monacoInput());
    ASSERT_TRUE(fresh);
    ASSERT_TRUE(fresh->setRules(*denser).ok());
    auto reference = fresh->bake(seeded(7));
    ASSERT_TRUE(reference.ok()) << reference.message();
    EXPECT_EQ(manifestOf(*second), manifestOf(*reference));

    // A bad edit names its path and leaves the rules in force alone.
    auto bad = session->rulesWith({{"passes.vegetation.density", "1.5"}});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("passes.vegetation.density"), std::string::npos) << bad.message();
    auto inForce = project::ruleValue(session->rules(), "passes.vegetation.density");
    ASSERT_TRUE(inForce.ok()) << inForce.message();
    EXPECT_EQ(*inForce, "0.2");
}

TEST(Session, ABakeOfSomeTilesKeepsTheOthersResultsWhenAskedTo) {
    // The desktop bakes a large selection in growing batches and starts again after a rule edit:
    // a bake of part of the tiles with forgetUnbaked off leaves the other tiles' cached results,
    // so the next bake of every tile reuses them; with it on (the default, for streamed batches
    // that never come back) they are gone and run again. Either way the scene is the same.
    const auto buildingsRunAfterPart = [](bool forget, std::optional<std::string>* manifest) -> std::size_t {
        auto session = openOrFail(monacoInput());
        if (!session) return 0;
        const std::vector<TileId> all = session->map().index.tiles();
        EXPECT_TRUE(session->bake(seeded(7)).ok());
        placement::BakeOptions part = seeded(7);
        part.tiles.assign(all.begin(), all.begin() + std::ptrdiff_t(all.size() / 4));
        part.forgetUnbaked = forget;
        EXPECT_TRUE(session->bake(part).ok());
        auto whole = session->bake(seeded(7));
        EXPECT_TRUE(whole.ok()) << whole.message();
        if (whole.ok()) *manifest = manifestOf(*whole);
        return session->report().pass("buildings")->tilesRun;
    };
    std::optional<std::string> kept, forgotten;
    const std::size_t runKept = buildingsRunAfterPart(false, &kept);
    const std::size_t runForgotten = buildingsRunAfterPart(true, &forgotten);
    auto reference = openOrFail(monacoInput());
    ASSERT_TRUE(reference);
    const std::size_t tiles = reference->map().index.tiles().size();
    // Forgotten: three quarters of the tiles at least run again. Kept: only those whose
    // neighbourhood the partial bake changed (near the quarter's edge).
    EXPECT_GE(runForgotten, tiles - tiles / 4);
    EXPECT_LT(runKept, runForgotten);
    EXPECT_LT(runKept, tiles / 2);
    auto scene = reference->bake(seeded(7));
    ASSERT_TRUE(scene.ok()) << scene.message();
    ASSERT_TRUE(kept && forgotten);
    EXPECT_EQ(*kept, manifestOf(*scene));
    EXPECT_EQ(*forgotten, manifestOf(*scene));
}

/// The fields of every surface patch a bake's cache budget moves instead of copying.
void expectSameSurfaces(const Scene& a, const Scene& b) {
    ASSERT_EQ(a.surfaces.size(), b.surfaces.size());
    for (std::size_t i = 0; i < a.surfaces.size(); ++i) {
        const SurfacePatch& p = a.surfaces[i];
        const SurfacePatch& q = b.surfaces[i];
        EXPECT_EQ(p.tile, q.tile) << "patch " << i;
        EXPECT_EQ(p.layer, q.layer) << "patch " << i;
        EXPECT_EQ(p.rects, q.rects) << "patch " << i;
        EXPECT_EQ(p.markings, q.markings) << "patch " << i;
        EXPECT_EQ(p.paving, q.paving) << "patch " << i;
        EXPECT_EQ(p.sidewalks, q.sidewalks) << "patch " << i;
        EXPECT_EQ(p.shape.outline, q.shape.outline) << "patch " << i;
        EXPECT_EQ(p.shape.triangles, q.shape.triangles) << "patch " << i;
    }
}

TEST(Session, ACacheBudgetDropsTheFarthestTilesResultsAndTheNextBakeComputesThemAgain) {
    // Memory by budget: the desktop keeps the cached results of the tiles nearest the camera
    // only. The scene is the same with any budget; a later bake reuses what was kept and runs
    // exactly the dropped tiles again.
    auto unbounded = openOrFail(monacoInput());
    ASSERT_TRUE(unbounded);
    auto reference = unbounded->bake(seeded(11));
    ASSERT_TRUE(reference.ok()) << reference.message();
    const placement::BakeReport whole = unbounded->report();
    const std::size_t tiles = reference->tiles.size();
    EXPECT_EQ(whole.cachedTiles, tiles);
    EXPECT_EQ(whole.droppedTiles, 0u);
    ASSERT_GT(whole.cachedBytes, 0u);

    auto session = openOrFail(monacoInput());
    ASSERT_TRUE(session);
    placement::BakeOptions options = seeded(11);
    options.cacheBudgetBytes = whole.cachedBytes / 3;
    // Nearest the map's last tile first: the reverse of the order the tiles are baked in.
    options.cachePriority.assign(reference->tiles.rbegin(), reference->tiles.rend());
    auto first = session->bake(options);
    ASSERT_TRUE(first.ok()) << first.message();
    const placement::BakeReport cut = session->report();
    EXPECT_LE(cut.cachedBytes, *options.cacheBudgetBytes);
    EXPECT_GT(cut.cachedTiles, 0u);
    EXPECT_LT(cut.cachedTiles, tiles);
    EXPECT_EQ(cut.cachedTiles + cut.droppedTiles, tiles);
    EXPECT_EQ(manifestOf(*first), manifestOf(*reference));
    expectSameSurfaces(*first, *reference);

    auto again = session->bake(options);
    ASSERT_TRUE(again.ok()) << again.message();
    for (const placement::PassReport& pass : session->report().passes) {
        EXPECT_EQ(pass.tilesRun, cut.droppedTiles) << pass.name;
        EXPECT_EQ(pass.tilesReused, cut.cachedTiles) << pass.name;
    }
    EXPECT_EQ(manifestOf(*again), manifestOf(*reference));
    expectSameSurfaces(*again, *reference);

    // A budget that holds everything drops nothing.
    options.cacheBudgetBytes = whole.cachedBytes;
    ASSERT_TRUE(session->bake(options).ok());
    EXPECT_EQ(session->report().droppedTiles, 0u);
    EXPECT_EQ(session->report().cachedBytes, whole.cachedBytes);
}

TEST(Session, ASelectionBakesOnlyItsTilesAndAnEmptyOneNothing) {
    auto session = openOrFail(monacoInput());
    ASSERT_TRUE(session);
    const std::vector<TileId>& all = session->map().index.tiles();
    ASSERT_GT(all.size(), 8u);
    // Given out of order and twice: the session sorts north to south.
    std::vector<TileId> some{all[5], all[1], all[3], all[1]};
    ASSERT_TRUE(session->select(some).ok());
    EXPECT_EQ(session->bakeTiles(), (std::vector<TileId>{all[1], all[3], all[5]}));
    auto scene = session->bake(seeded(1));
    ASSERT_TRUE(scene.ok()) << scene.message();
    EXPECT_EQ(scene->tiles, session->bakeTiles());
    for (const BuildingRecord& b : scene->buildings) {
        EXPECT_TRUE(std::find(scene->tiles.begin(), scene->tiles.end(), b.tile) != scene->tiles.end());
    }
    // The scene is centred on the selection, not on the map.
    EXPECT_NEAR(scene->frame.origin.lon, placement::sceneOrigin(session->bakeTiles()).lon, 1e-12);

    ASSERT_TRUE(session->select({}).ok());
    auto empty = session->bake(seeded(1));
    ASSERT_TRUE(empty.ok()) << empty.message();
    EXPECT_TRUE(empty->tiles.empty());
    EXPECT_EQ(empty->instanceCount(), 0u);
    EXPECT_EQ(empty->frame.zoom, 17);

    TileId parent = all[0];
    parent = TileId{16, parent.x / 2, parent.y / 2};
    const Status wrongZoom = session->select({parent});
    ASSERT_FALSE(wrongZoom.ok());
    EXPECT_EQ(wrongZoom.error().kind, ErrorKind::BadArguments);
    EXPECT_NE(wrongZoom.message().find(parent.quadkey()), std::string::npos) << wrongZoom.message();
}

TEST(Session, LayersRasterizedABatchAtATimeBakeLikeTheWholeMaps) {
    auto whole = openOrFail(monacoInput());
    ASSERT_TRUE(whole);
    SessionInput indexOnly = monacoInput();
    indexOnly.rasterize = false;
    auto streamed = openOrFail(indexOnly);
    ASSERT_TRUE(streamed);
    EXPECT_TRUE(streamed->map().store.tiles().empty()) << "an index-only session holds no layers";
    EXPECT_EQ(streamed->map().index.tiles(), whole->map().index.tiles());

    ASSERT_TRUE(streamed->rasterize(streamed->map().index.tiles()).ok());
    EXPECT_EQ(streamed->map().store.tiles().size(), whole->map().store.tiles().size());
    auto a = whole->bake(seeded(3));
    auto b = streamed->bake(seeded(3));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(manifestOf(*a), manifestOf(*b));
}

TEST(Session, ExportWritesTheSceneWithTheRulesAndThePlacedLayers) {
    SessionInput input = monacoInput();
    auto session = openOrFail(input);
    ASSERT_TRUE(session);
    ASSERT_TRUE(session->select({session->map().index.tiles()[0]}).ok());
    auto scene = session->bake(seeded(5));
    ASSERT_TRUE(scene.ok()) << scene.message();
    const std::filesystem::path out = std::filesystem::path(::testing::TempDir()) / "terrabit-session-export";
    std::filesystem::remove_all(out);
    auto report =
        session->exportScene(*scene, session->exportOptions({ExportFormat::Manifest, ExportFormat::Layers}, out));
    ASSERT_TRUE(report.ok()) << report.message();
    EXPECT_EQ(terrabit::test::readFile(out / "manifest.json"), manifestOf(*scene));
    bool placedBuildings = false;
    for (const ExportedFile& f : report->files) {
        if (f.path.string().find(placement::kPlacedBuildingsLayer) != std::string::npos) placedBuildings = true;
    }
    EXPECT_TRUE(placedBuildings) << "the placed layers are exported with the map's";
    std::filesystem::remove_all(out);
}

TEST(Session, FailuresCarryTheirKindAndNameWhatIsWrong) {
    // One wrong thing per case; the message must name it (`named` at its start when `atStart`).
    struct Case {
        const char* what;
        std::function<void(SessionInput&)> spoil;
        ErrorKind kind;
        std::string named;
        bool atStart = false;
    };
    const Case cases[] = {
        {"missing rules", [](SessionInput& i) { i.map.rules = "/no/such/rules.yaml"; }, ErrorKind::BadArguments,
         "/no/such/rules.yaml"},
        {"broken rules",
         [](SessionInput& i) {
             i.map.rulesText = "layers:\n  - name: building\n    match: [building\n";
             i.map.rulesName = "broken.yaml";
         },
         ErrorKind::BadArguments, "broken.yaml:", true},
        {"missing map", [](SessionInput& i) { i.map.file = "/no/such/map.osm.pbf"; }, ErrorKind::BadInput,
         "/no/such/map.osm.pbf"},
        // Checked before the map is read: no wait for a typo.
        {"missing catalogue", [](SessionInput& i) { i.catalogueFile = "/no/such/catalogue.yaml"; },
         ErrorKind::BadArguments, "/no/such/catalogue.yaml"},
        {"bad quadkey", [](SessionInput& i) { i.tiles.quadkeys = {"12345"}; }, ErrorKind::BadArguments, "12345"},
    };
    for (const Case& c : cases) {
        SessionInput input = monacoInput();
        c.spoil(input);
        auto s = Session::open(input);
        ASSERT_FALSE(s.ok()) << c.what;
        EXPECT_EQ(s.error().kind, c.kind) << c.what;
        const std::size_t at = s.message().find(c.named);
        EXPECT_TRUE(c.atStart ? at == 0 : at != std::string::npos) << c.what << ": " << s.message();
    }
    auto stopped = Session::open(monacoInput(), [](double, std::string_view) { return false; });
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error().kind, ErrorKind::Cancelled);
}

TEST(Session, WhatEachFrontEndNeedsOfThePassesIsAllItReads) {
    // Layers only: neither the passes nor the catalogue are read, so broken ones do not matter.
    std::string text = terrabit::test::readFile(kRules);
    text.replace(text.find("    density: 0.05\n"), 18, "    density: lots\n");
    SessionInput layersOnly = SessionInput::layersOnly({kMonaco, {}, {}, false, text, "edited.yaml"}, {}, 2);
    layersOnly.tiles.zoom = 16;
    auto layers = Session::open(layersOnly);
    ASSERT_TRUE(layers.ok()) << layers.message();
    EXPECT_FALSE((*layers)->hasPasses());
    EXPECT_FALSE((*layers)->map().store.tiles().empty());
    EXPECT_FALSE((*layers)->bake({}).ok()) << "no passes, nothing to bake";

    // Baking: the broken value is a bad argument that names the document.
    SessionInput baking = monacoInput();
    baking.map.rulesText = text;
    baking.map.rulesName = "edited.yaml";
    auto bake = Session::open(baking);
    ASSERT_FALSE(bake.ok());
    EXPECT_EQ(bake.error().kind, ErrorKind::BadArguments);
    EXPECT_NE(bake.message().find("edited.yaml"), std::string::npos) << bake.message();

    // Optional (render): a document without a passes section opens, and says why it has none.
    const std::string layersSection = text.substr(0, text.find("\npasses:") + 1);
    SessionInput render = monacoInput();
    render.passes = PassNeed::Optional;
    render.tiles.zoom = 16;
    render.map.rulesText = layersSection;
    auto drawn = Session::open(render);
    ASSERT_TRUE(drawn.ok()) << drawn.message();
    EXPECT_FALSE((*drawn)->hasPasses());
    ASSERT_TRUE((*drawn)->passesProblem().has_value());
    EXPECT_FALSE((*drawn)->catalogue().empty());
}

TEST(Session, WithoutDemsTheGroundHasNoHeightAndABadDemIsNamedBeforeTheMapIsRead) {
    auto session = openOrFail(monacoInput());
    ASSERT_TRUE(session);
    EXPECT_FALSE(session->hasTerrain());
    const TileId tile = session->map().index.tiles().front();
    auto first = session->heightTile(tile);
    ASSERT_TRUE(first.ok()) << first.message();
    EXPECT_EQ((*first)->tile, tile);
    EXPECT_EQ((*first)->noHeightCount(), terrain::kHeightSampleCount);
    auto again = session->heightTile(tile);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(first->get(), again->get()) << "a tile's heights are sampled once and kept";
    auto ground = session->groundHeight(tile.boundsMercator().centre());
    ASSERT_TRUE(ground.ok());
    EXPECT_TRUE(std::isnan(*ground));

    // Strict (the app adding a DEM): the bad DEM is named before the map is read.
    SessionInput input = monacoInput();
    input.map.file = "/no/such/map.osm.pbf";
    input.dems = {"/no/such/dem.tif"};
    input.strictDems = true;
    auto bad = Session::open(input);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().kind, ErrorKind::BadInput);
    EXPECT_EQ(bad.message().rfind("/no/such/dem.tif", 0), 0u) << bad.message();
    // Otherwise it is only left out: the open goes on and fails on the map.
    input.strictDems = false;
    auto tolerant = Session::open(input);
    ASSERT_FALSE(tolerant.ok());
    EXPECT_NE(tolerant.message().find("/no/such/map.osm.pbf"), std::string::npos) << tolerant.message();
    // With a good map: open, flat, the DEM named in the warnings.
    input.map.file = monacoInput().map.file;
    auto flat = Session::open(input);
    ASSERT_TRUE(flat.ok()) << flat.message();
    EXPECT_FALSE((*flat)->hasTerrain());
    const std::vector<std::string> warnings = (*flat)->warnings();
    EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(),
                            [](const std::string& w) { return w.rfind("/no/such/dem.tif: ", 0) == 0; }));
}

TEST(Session, WithADemEveryReaderOfTheLayersHasTheTilesHeightsWholeOrStreamed) {
    terrabit::test::ScratchDir dir;
    // A plane rising 1 m per 100 m east in Mercator metres, over the whole Monaco sample.
    const Vec2 centre = lonLatToMercator(test::kMonacoCentre);
    const auto dem = test::writeMercatorDem(
        dir.path() / "plane.tif", [centre](Vec2 m) { return 50.0 + 0.01 * (m.x - centre.x); }, 20.0, 4000.0);
    SessionInput input = monacoInput();
    input.dems = {dem};
    auto session = openOrFail(input);
    ASSERT_TRUE(session);
    ASSERT_TRUE(session->hasTerrain());
    const auto& tiles = session->map().store.tiles();
    ASSERT_FALSE(tiles.empty());
    for (const TileId& t : tiles) {
        const terrain::HeightTile* held = session->layers().heights(t);
        ASSERT_NE(held, nullptr) << t.quadkey();
        auto sampled = session->heightTile(t);
        ASSERT_TRUE(sampled.ok());
        EXPECT_EQ(held, sampled->get()) << "the layers hold the session's one copy of " << t.quadkey();
    }
    const TileId first = tiles.front();
    EXPECT_LT(session->layers().heights(first)->noHeightCount(), terrain::kHeightSampleCount);
    // The report sums what sampling found, and a tile the DEM misses is a warning.
    const TerrainReport report = session->terrainReport();
    EXPECT_EQ(report.tiles, tiles.size());
    std::uint64_t noHeight = 0;
    std::size_t partial = 0;
    for (const TileId& t : tiles) {
        noHeight += session->layers().heights(t)->noHeightCount();
        partial += session->layers().heights(t)->noHeightCount() > 0 ? 1 : 0;
    }
    EXPECT_EQ(report.noHeight, noHeight);
    EXPECT_EQ(report.tilesWithoutHeight, partial);
    const auto warnings = session->warnings();
    EXPECT_EQ(std::count_if(warnings.begin(), warnings.end(),
                            [](const std::string& w) { return w.starts_with("terrain: "); }),
              partial > 0 ? 1 : 0);

    // The placed layers of a bake pass the heights on.
    ASSERT_TRUE(session->bake(seeded(1)).ok());
    EXPECT_EQ(session->layers().heights(first), session->heightTile(first)->get());

    // Streamed: each batch rasterized gets its tiles' heights, the same values.
    SessionInput streamed = input;
    streamed.rasterize = false;
    auto batches = openOrFail(streamed);
    ASSERT_TRUE(batches);
    EXPECT_EQ(batches->layers().heights(first), nullptr) << "nothing is held before a batch is rasterized";
    const std::vector<TileId> batch{first};
    ASSERT_TRUE(batches->rasterize(batch).ok());
    const terrain::HeightTile* h = batches->layers().heights(first);
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->heights.size(), session->layers().heights(first)->heights.size());
    EXPECT_EQ(0, std::memcmp(h->heights.data(), session->layers().heights(first)->heights.data(),
                             h->heights.size() * sizeof(float)));
}

TEST(Session, WithADemTheCollisionGridBlocksSteepCellsAndWithoutOneItIsUnchanged) {
    terrabit::test::ScratchDir dir;
    // Flat west of the centre, 51° steep east of it (0.9 per Mercator metre, 1.25 per ground metre).
    const Vec2 centre = lonLatToMercator(test::kMonacoCentre);
    const auto dem = test::writeMercatorDem(
        dir.path() / "step.tif", [centre](Vec2 m) { return 20.0 + 0.9 * std::max(0.0, m.x - centre.x); }, 10.0, 4000.0);
    const auto exportCollision = [&](SessionInput input, const std::string& name) -> std::optional<CollisionGrid> {
        auto session = openOrFail(std::move(input));
        if (!session) return std::nullopt;
        auto scene = session->bake(seeded(4));
        EXPECT_TRUE(scene.ok()) << scene.message();
        if (!scene) return std::nullopt;
        auto report =
            session->exportScene(*scene, session->exportOptions({ExportFormat::Collision}, dir.path() / name));
        EXPECT_TRUE(report.ok()) << report.message();
        auto grid = readCollisionFile(dir.path() / name / "collision.tbcg");
        EXPECT_TRUE(grid.ok()) << grid.message();
        if (!grid) return std::nullopt;
        // The layers exported are the session's, plus steep with terrain.
        std::vector<std::string> names = session->layers().layerNames();
        if (session->hasTerrain()) names.push_back(std::string(kSteepLayer));
        EXPECT_EQ(grid->layerNames(), names);
        if (session->hasTerrain()) {
            // Of the ground the grid stands on: bridge decks stamped in (a deck is not steep).
            const auto standing = session->onBridgeDecks(session->layers(), scene->tiles);
            auto steep = algebra::compose(*standing, scene->tiles, kSteepExpression);
            EXPECT_TRUE(steep.ok()) << steep.message();
            std::uint64_t cells = 0;
            for (std::size_t i = 0; steep && i < steep->tiles.size(); ++i) {
                EXPECT_EQ(grid->tileBits(grid->layerId(kSteepLayer), steep->tiles[i]), steep->masks[i])
                    << steep->tiles[i].quadkey();
                cells += steep->masks[i].count();
            }
            // The step: some tiles are steep, and not all of them.
            EXPECT_GT(cells, 65536u);
            EXPECT_LT(cells, 65536u * scene->tiles.size() - 65536u);
        }
        return std::move(*grid);
    };

    const auto flat = exportCollision(monacoInput(), "flat");
    ASSERT_TRUE(flat);
    EXPECT_EQ(flat->layerId(kSteepLayer), -1) << "without a DEM the grid is today's";
    SessionInput withDem = monacoInput();
    withDem.dems = {dem};
    const auto relief = exportCollision(withDem, "relief");
    ASSERT_TRUE(relief);
    // The steep cells block: the walkable cells of a steep tile, with the default blocking
    // layers, exclude them.
    const int steep = relief->layerId(kSteepLayer);
    ASSERT_GE(steep, 0);
    const std::vector<std::string> blocking{"building", "water", std::string(kSteepLayer)};
    const auto mask = relief->layerMask(blocking);
    ASSERT_TRUE(mask.ok()) << mask.message();
    const TileId east = *tileAt(centre + Vec2{800.0, 0.0}, 17);
    EXPECT_EQ((relief->walkable(east, *mask) & relief->tileBits(steep, east)).count(), 0u);
    EXPECT_GT(relief->tileBits(steep, east).count(), 60000u);
}

}  // namespace
}  // namespace terrabit::core::pipeline
