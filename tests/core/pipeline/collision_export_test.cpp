// The collision grid through the Session on the Monaco sample: with a DEM the export writes
// format version 2 and the grid read back answers the DEM's heights (the Session's own
// groundHeight, within the file's 1/1024 m step); without one it writes version 1 as before.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "pipeline_test_support.h"
#include "support/scratch_dir.h"
#include "support/test_dems.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/pipeline/session.h"

namespace terrabit::core::pipeline {
namespace {

using namespace core::test;

/// Bakes the session and exports collision.tbcg into `out`; returns its path.
std::filesystem::path exportCollision(Session& session, const std::filesystem::path& out) {
    placement::BakeOptions options;
    options.seed = 3;
    options.threads = 2;
    auto scene = session.bake(options);
    EXPECT_TRUE(scene.ok()) << scene.message();
    if (!scene.ok()) return {};
    auto report = session.exportScene(*scene, session.exportOptions({ExportFormat::Collision}, out));
    EXPECT_TRUE(report.ok()) << report.message();
    return out / "collision.tbcg";
}

std::uint32_t versionOf(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    unsigned char b[12] = {};
    in.read(reinterpret_cast<char*>(b), sizeof b);
    return std::uint32_t{b[8]} | std::uint32_t{b[9]} << 8 | std::uint32_t{b[10]} << 16 | std::uint32_t{b[11]} << 24;
}

TEST(CollisionExport, WithADemTheFileIsVersionTwoAndAnswersTheDemsHeights) {
    terrabit::test::ScratchDir dir;
    const Vec2 centre = lonLatToMercator(test::kMonacoCentre);
    // A hillside: a plane rising north-east with a ripple, 20 m pixels over all of Monaco.
    const auto dem = test::writeMercatorDem(
        dir.path() / "hill.tif",
        [centre](Vec2 m) {
            return 80.0 + 0.05 * (m.x - centre.x) + 0.08 * (m.y - centre.y) + 6.0 * std::sin((m.x - centre.x) / 90.0);
        },
        20.0, 4000.0);

    auto flat = Session::open(monacoInput());
    ASSERT_TRUE(flat.ok()) << flat.message();
    const std::filesystem::path v1 = exportCollision(**flat, dir.path() / "flat");
    EXPECT_EQ(versionOf(v1), 1u);

    SessionInput input = monacoInput();
    input.dems = {dem};
    auto opened = Session::open(input);
    ASSERT_TRUE(opened.ok()) << opened.message();
    Session& session = **opened;
    const std::filesystem::path v2 = exportCollision(session, dir.path() / "terrain");
    ASSERT_EQ(versionOf(v2), 2u);
    std::printf(
        "collision.tbcg for Monaco at z17 (%zu tiles): %ju bytes flat (version 1), %ju bytes with heights "
        "(version 2)\n",
        session.map().store.tiles().size(), static_cast<std::uintmax_t>(std::filesystem::file_size(v1)),
        static_cast<std::uintmax_t>(std::filesystem::file_size(v2)));

    const Result<CollisionGrid> flatGrid = readCollisionFile(v1);
    ASSERT_TRUE(flatGrid.ok()) << flatGrid.message();
    EXPECT_FALSE(flatGrid->hasHeights());
    const Result<CollisionGrid> grid = readCollisionFile(v2);
    ASSERT_TRUE(grid.ok()) << grid.message();
    ASSERT_TRUE(grid->hasHeights());
    // The map's own layers are those of the flat export: terrain moves what placement does
    // (buildings stand on plinths or are blocked by slope), never what the map says is where.
    const std::size_t mapLayers = session.map().store.layerNames().size();
    ASSERT_GE(static_cast<std::size_t>(grid->layerCount()), mapLayers);
    for (const TileId& t : session.map().store.tiles()) {
        for (std::size_t l = 0; l < mapLayers; ++l) {
            ASSERT_EQ(grid->tileBits(int(l), t), flatGrid->tileBits(int(l), t)) << "layer " << l << " " << t.quadkey();
        }
    }
    // And every layer written is the one the session's layers hold.
    for (const TileId& t : session.map().store.tiles()) {
        for (int l = 0; l < grid->layerCount() && l < int(session.layers().layerNames().size()); ++l) {
            const BitTile* bits = session.layers().tile(t, l);
            ASSERT_EQ(grid->tileBits(l, t), bits ? *bits : BitTile()) << "layer " << l << " " << t.quadkey();
        }
    }

    // Points all over the exported tiles: the grid's ground height is the Session's, but on
    // Monaco's bridges, where it is their decks'.
    const double cell = 2.0 * kMercatorHalfWorld / std::ldexp(1.0, 17 + 8);
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const auto& tiles = session.map().store.tiles();
    const auto standing = session.onBridgeDecks(session.layers(), tiles);
    int compared = 0, onDecks = 0;
    for (int i = 0; i < 3000; ++i) {
        const TileId& t = tiles[rng() % tiles.size()];
        const Vec2 p{t.x * 256.0 + 256.0 * u(rng), t.y * 256.0 + 256.0 * u(rng)};  // global cells
        const Vec2 mercator{-kMercatorHalfWorld + p.x * cell, kMercatorHalfWorld - p.y * cell};
        const Result<float> expected = session.groundHeight(mercator);
        ASSERT_TRUE(expected.ok()) << expected.message();
        const float got = grid->groundHeight(p);
        ASSERT_EQ(std::isnan(got), std::isnan(*expected)) << t.quadkey();
        if (std::isnan(got)) continue;
        const float deck = terrain::heightAt(*standing->heights(t), {p.x - t.x * 256.0, p.y - t.y * 256.0});
        if (deck != *expected) {
            ++onDecks;
            ASSERT_NEAR(got, deck, 1e-3) << t.quadkey() << " at " << p.x << "," << p.y << " (a bridge's deck)";
        } else {
            ASSERT_NEAR(got, *expected, 1e-3) << t.quadkey() << " at " << p.x << "," << p.y;
        }
        ++compared;
    }
    EXPECT_GT(compared, 2900) << "the DEM covers the map";
    EXPECT_LT(onDecks, compared / 20) << "bridges cover little of the map";
}

}  // namespace
}  // namespace terrabit::core::pipeline
