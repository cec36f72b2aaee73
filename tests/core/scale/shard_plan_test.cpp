// The cut of a tile set into shards, the halo a shard bakes, and the shard index of array jobs.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "shard_plan_p.h"
#include "terrabit/core/scale/shard_plan.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::scale;

std::vector<TileId> block(int zoom, std::uint32_t x0, std::uint32_t y0, std::uint32_t w, std::uint32_t h) {
    std::vector<TileId> out;
    for (std::uint32_t y = y0; y < y0 + h; ++y) {
        for (std::uint32_t x = x0; x < x0 + w; ++x) out.push_back(TileId::fromZxy(zoom, x, y).value());
    }
    return out;
}

EnvironmentLookup environment(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
        const auto it = vars.find(std::string(name));
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

TEST(ShardPlanTest, ParsesKOfNAndRejectsWhatIsNot) {
    EXPECT_EQ(parseShardSpec("1/4").value(), (ShardSpec{1, 4}));
    EXPECT_EQ(parseShardSpec("0/1").value(), (ShardSpec{0, 1}));
    EXPECT_FALSE(parseShardSpec("4/4"));
    EXPECT_FALSE(parseShardSpec("-1/4"));
    EXPECT_FALSE(parseShardSpec("1/0"));
    EXPECT_FALSE(parseShardSpec("1"));
    EXPECT_FALSE(parseShardSpec("a/b"));
    EXPECT_FALSE(parseShardSpec("1/4x"));
    EXPECT_NE(parseShardSpec("5/4").message().find("outside 0..3"), std::string::npos);
}

TEST(ShardPlanTest, EveryTileIsInExactlyOneShardAndShardsAreBalanced) {
    const std::vector<TileId> tiles = block(12, 2000, 1500, 20, 15);  // 300 tiles
    std::vector<std::uint64_t> weights(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) weights[i] = (i * 37) % 11;  // uneven features
    const ShardPlan plan = planShards(tiles, weights, 4);
    ASSERT_EQ(plan.tiles.size(), 4u);
    std::set<TileId> seen;
    for (const auto& shard : plan.tiles) {
        for (const TileId& t : shard) EXPECT_TRUE(seen.insert(t).second) << t.quadkey() << " in two shards";
    }
    EXPECT_EQ(seen.size(), tiles.size());
    const std::uint64_t total = std::accumulate(plan.weights.begin(), plan.weights.end(), std::uint64_t{0});
    EXPECT_EQ(total, tiles.size() + std::accumulate(weights.begin(), weights.end(), std::uint64_t{0}));
    for (std::uint64_t w : plan.weights) {
        // Within one tile's weight (at most 11) of a quarter.
        EXPECT_LE(w > total / 4 ? w - total / 4 : total / 4 - w, 11u) << w << " of " << total;
    }
}

TEST(ShardPlanTest, TheSameTilesInAnyOrderGiveTheSameShards) {
    std::vector<TileId> tiles = block(15, 17000, 11800, 9, 7);
    const ShardPlan a = planShards(tiles, {}, 3);
    std::reverse(tiles.begin(), tiles.end());
    const ShardPlan b = planShards(tiles, {}, 3);
    EXPECT_EQ(a.tiles, b.tiles);
    EXPECT_EQ(a.keys, b.keys);
}

TEST(ShardPlanTest, ShardsAreRunsOfQuadkeysCoveredByPrefixes) {
    // A whole 8 × 8 block under one zoom-9 tile: two shards are exactly two of its children
    // pairs, each named by two prefixes.
    const TileId parent = TileId::fromZxy(9, 260, 180).value();
    const std::vector<TileId> tiles = block(12, parent.x * 8, parent.y * 8, 8, 8);
    const ShardPlan plan = planShards(tiles, {}, 2);
    const std::string p = parent.quadkey();
    EXPECT_EQ(plan.keys[0], (std::vector<std::string>{p + "0", p + "1"}));
    EXPECT_EQ(plan.keys[1], (std::vector<std::string>{p + "2", p + "3"}));
    for (const TileId& t : plan.tiles[0]) {
        const std::string qk = t.quadkey();
        EXPECT_TRUE(qk.rfind(p + "0", 0) == 0 || qk.rfind(p + "1", 0) == 0) << qk;
    }
}

TEST(ShardPlanTest, MoreShardsThanTilesLeavesTheLastOnesEmpty) {
    const std::vector<TileId> tiles = block(10, 500, 400, 3, 1);
    const ShardPlan plan = planShards(tiles, {}, 5);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(plan.tiles[static_cast<std::size_t>(k)].size(), 1u);
    EXPECT_TRUE(plan.tiles[3].empty());
    EXPECT_TRUE(plan.tiles[4].empty());
}

TEST(ShardPlanTest, AlignedRunsHoldWholeGroupsOfTilesUnderOneAncestor) {
    // 37 × 29 tiles straddling several zoom-9 ancestors (groups of up to 8 × 8 at zoom 12),
    // cut into runs of about 50: unaligned, runs split groups; aligned, never.
    const std::vector<TileId> tiles = block(12, 2045, 1503, 37, 29);
    const std::size_t runs = (tiles.size() + 49) / 50;
    const auto groupOf = [](const TileId& t) {
        const std::string qk = t.quadkey();
        return qk.substr(0, qk.size() - 3);
    };
    const auto splitGroups = [&](const ShardPlan& plan) {
        std::map<std::string, std::set<std::size_t>> runsOf;
        for (std::size_t k = 0; k < plan.tiles.size(); ++k) {
            for (const TileId& t : plan.tiles[k]) runsOf[groupOf(t)].insert(k);
        }
        return std::count_if(runsOf.begin(), runsOf.end(), [](const auto& g) { return g.second.size() > 1; });
    };
    EXPECT_GT(splitGroups(planShards(tiles, {}, static_cast<int>(runs))), 0);
    const ShardPlan aligned = planShards(tiles, {}, static_cast<int>(runs), 3);
    EXPECT_EQ(splitGroups(aligned), 0);
    std::set<TileId> seen;
    for (const auto& run : aligned.tiles) {
        EXPECT_LE(run.size(), 50u + 64u);  // at most a group more than the run it was
        for (const TileId& t : run) EXPECT_TRUE(seen.insert(t).second) << t.quadkey() << " in two runs";
    }
    EXPECT_EQ(seen.size(), tiles.size());
}

TEST(ShardPlanTest, TheHaloHoldsTheNeighbourhoodAndEarlierBuildingPhases) {
    const std::vector<TileId> all = block(14, 9000, 6000, 30, 30);
    const TileId centre = TileId::fromZxy(14, 9015, 6015).value();
    const std::vector<TileId> baked = bakeClosure(std::vector<TileId>{centre}, all, 1);
    const std::set<TileId> set(baked.begin(), baked.end()), content(all.begin(), all.end());
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) EXPECT_TRUE(set.contains(*centre.neighbour(dx, dy)));
    }
    // Every baked tile has its earlier-phase tiles within two tiles baked too.
    const auto phase = [](const TileId& t) { return (t.y % 3) * 3 + (t.x % 3); };
    for (const TileId& t : baked) {
        for (int dy = -2; dy <= 2; ++dy) {
            for (int dx = -2; dx <= 2; ++dx) {
                const TileId n = *t.neighbour(dx, dy);
                if (content.contains(n) && phase(n) < phase(t)) {
                    EXPECT_TRUE(set.contains(n)) << n.quadkey() << " for " << t.quadkey();
                }
            }
        }
    }
    // Never beyond the chain's reach: one ring plus eight phase steps of two tiles.
    for (const TileId& t : baked) {
        EXPECT_LE(std::max(std::abs(int(t.x) - int(centre.x)), std::abs(int(t.y) - int(centre.y))), 1 + 16);
    }
    // Tiles without content stop the halo.
    EXPECT_EQ(bakeClosure(std::vector<TileId>{centre}, std::vector<TileId>{centre}, 3), std::vector<TileId>{centre});
}

TEST(ShardPlanTest, TheHaloGrowsWithThePassesThatReadEarlierPlacements) {
    using placement::PassKind;
    // Alone, a pass needs nothing around its tiles but what the building chain adds.
    EXPECT_EQ(placementReachTiles(std::vector<PassKind>{PassKind::Vegetation}), 0);
    EXPECT_EQ(placementReachTiles(std::vector<PassKind>{PassKind::Buildings}), 1);
    // The default rules: vegetation reads the buildings two tiles around; they reach one more.
    EXPECT_EQ(placementReachTiles(std::vector<PassKind>{PassKind::Buildings, PassKind::Surface, PassKind::Surface,
                                                        PassKind::Vegetation}),
              3);
    // A second vegetation pass reads the first's trunks two tiles around.
    EXPECT_EQ(
        placementReachTiles(std::vector<PassKind>{PassKind::Buildings, PassKind::Vegetation, PassKind::Vegetation}), 5);
}

TEST(ShardPlanTest, ArrayJobsOfSlurmKubernetesAndAwsBatchNameTheShard) {
    auto slurm = shardFromEnvironment(environment({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}));
    ASSERT_TRUE(slurm && *slurm);
    EXPECT_EQ((*slurm)->spec, (ShardSpec{3, 8}));
    EXPECT_NE((*slurm)->source.find("SLURM_ARRAY_TASK_ID"), std::string::npos);
    // sbatch --array=1-8 numbers tasks from 1.
    auto fromOne = shardFromEnvironment(
        environment({{"SLURM_ARRAY_TASK_ID", "8"}, {"SLURM_ARRAY_TASK_COUNT", "8"}, {"SLURM_ARRAY_TASK_MIN", "1"}}));
    ASSERT_TRUE(fromOne && *fromOne);
    EXPECT_EQ((*fromOne)->spec, (ShardSpec{7, 8}));
    auto k8s = shardFromEnvironment(environment({{"JOB_COMPLETION_INDEX", "0"}, {"TERRABIT_SHARD_COUNT", "2"}}));
    ASSERT_TRUE(k8s && *k8s);
    EXPECT_EQ((*k8s)->spec, (ShardSpec{0, 2}));
    auto aws =
        shardFromEnvironment(environment({{"AWS_BATCH_JOB_ARRAY_INDEX", "5"}, {"AWS_BATCH_JOB_ARRAY_SIZE", "6"}}));
    ASSERT_TRUE(aws && *aws);
    EXPECT_EQ((*aws)->spec, (ShardSpec{5, 6}));
    auto none = shardFromEnvironment(environment({{"HOME", "/root"}}));
    ASSERT_TRUE(none);
    EXPECT_FALSE(*none);
}

TEST(ShardPlanTest, ArrayJobVariablesThatDoNotMakeAShardAreErrors) {
    const auto noCount = shardFromEnvironment(environment({{"JOB_COMPLETION_INDEX", "1"}}));
    ASSERT_FALSE(noCount);
    EXPECT_NE(noCount.message().find("TERRABIT_SHARD_COUNT"), std::string::npos) << noCount.message();
    EXPECT_FALSE(shardFromEnvironment(environment({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "2"}})));
    EXPECT_FALSE(shardFromEnvironment(environment({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "2"}})));
}

}  // namespace
}  // namespace terrabit::test
