#include "terrabit/core/scale/shard_plan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "shard_plan_p.h"

namespace terrabit::core::scale {

namespace {

constexpr int kMaxShards = 65536;

std::optional<long long> number(std::string_view text) {
    long long v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
    return v;
}

/// The building pass's phase of a tile (building_pass.h: 9 phases by x mod 3, y mod 3, run in
/// this order).
int phaseOf(const TileId& t) { return static_cast<int>((t.y % 3) * 3 + (t.x % 3)); }

Result<ShardSpec> checkedSpec(long long index, long long count, std::string_view what) {
    if (count < 1 || count > kMaxShards) {
        return Error{std::string(what) + ": shard count " + std::to_string(count) + " is outside 1.." +
                     std::to_string(kMaxShards)};
    }
    if (index < 0 || index >= count) {
        return Error{std::string(what) + ": shard index " + std::to_string(index) + " is outside 0.." +
                     std::to_string(count - 1)};
    }
    return ShardSpec{static_cast<int>(index), static_cast<int>(count)};
}

}  // namespace

std::string ShardSpec::text() const { return std::to_string(index) + "/" + std::to_string(count); }

Result<ShardSpec> parseShardSpec(std::string_view text) {
    const std::size_t slash = text.find('/');
    const auto k = slash == std::string_view::npos ? std::nullopt : number(text.substr(0, slash));
    const auto n = slash == std::string_view::npos ? std::nullopt : number(text.substr(slash + 1));
    if (!k || !n) return Error{"--shard: '" + std::string(text) + "' is not K/N (e.g. 0/4)"};
    return checkedSpec(*k, *n, "--shard " + std::string(text));
}

EnvironmentLookup processEnvironment() {
    return [](std::string_view name) -> std::optional<std::string> {
        const char* v = std::getenv(std::string(name).c_str());
        if (!v) return std::nullopt;
        return std::string(v);
    };
}

Result<std::optional<EnvironmentShard>> shardFromEnvironment(const EnvironmentLookup& env) {
    struct Engine {
        const char* index;
        std::vector<const char*> counts;  // the first one set gives the count
        const char* minimum;              // subtracted from the index when set (Slurm's --array=1-4)
    };
    const Engine engines[] = {
        {"SLURM_ARRAY_TASK_ID", {"SLURM_ARRAY_TASK_COUNT"}, "SLURM_ARRAY_TASK_MIN"},
        {"JOB_COMPLETION_INDEX", {"TERRABIT_SHARD_COUNT"}, nullptr},
        {"AWS_BATCH_JOB_ARRAY_INDEX", {"AWS_BATCH_JOB_ARRAY_SIZE", "TERRABIT_SHARD_COUNT"}, nullptr},
    };
    for (const Engine& e : engines) {
        const auto indexText = env(e.index);
        if (!indexText) continue;
        std::optional<std::string> countText;
        std::string countName;
        for (const char* c : e.counts) {
            countText = env(c);
            if (countText) {
                countName = c;
                break;
            }
        }
        std::string names;
        for (const char* c : e.counts) names += (names.empty() ? "" : " or ") + std::string(c);
        if (!countText) return Error{std::string(e.index) + " is set but " + names + " is not: how many shards?"};
        const auto index = number(*indexText);
        const auto count = number(*countText);
        if (!index) return Error{std::string(e.index) + "='" + *indexText + "' is not a number"};
        if (!count) return Error{countName + "='" + *countText + "' is not a number"};
        long long k = *index;
        if (e.minimum) {
            if (const auto minText = env(e.minimum)) {
                const auto minimum = number(*minText);
                if (!minimum) return Error{std::string(e.minimum) + "='" + *minText + "' is not a number"};
                k -= *minimum;
            }
        }
        auto spec = checkedSpec(k, *count, std::string(e.index) + "/" + countName);
        if (!spec) return spec.error();
        return std::optional<EnvironmentShard>(EnvironmentShard{*spec, std::string(e.index) + "/" + countName});
    }
    return std::optional<EnvironmentShard>();
}

namespace {

/// The index in `keyed` (sorted by quadkey) nearest `at`, not below `from`, where a group of
/// tiles under one ancestor `levels` up ends (or the end); the upper one on a tie.
template <class Keyed>
std::size_t nearestGroupEdge(const std::vector<Keyed>& keyed, std::size_t at, std::size_t from, int levels) {
    const auto edge = [&](std::size_t i) {
        if (i == 0 || i >= keyed.size()) return true;
        const std::string& a = keyed[i - 1].quadkey;
        const std::string& b = keyed[i].quadkey;
        const std::size_t n = a.size() - std::min<std::size_t>(a.size(), static_cast<std::size_t>(levels));
        return a.compare(0, n, b, 0, n) != 0;
    };
    std::size_t up = at, down = at;
    while (!edge(up)) ++up;
    while (down > from && !edge(down)) --down;
    return edge(down) && at - down < up - at ? down : up;
}

}  // namespace

ShardPlan planShards(std::span<const TileId> tiles, std::span<const std::uint64_t> weights, int count,
                     int alignLevels) {
    ShardPlan plan;
    const std::size_t shards = static_cast<std::size_t>(std::max(count, 1));
    plan.tiles.resize(shards);
    plan.weights.assign(shards, 0);
    plan.keys.resize(shards);

    struct Keyed {
        std::string quadkey;
        TileId tile;
        std::uint64_t weight = 1;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        keyed.push_back({tiles[i].quadkey(), tiles[i], 1 + (i < weights.size() ? weights[i] : 0)});
    }
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return a.quadkey < b.quadkey; });
    std::vector<std::uint64_t> before(keyed.size() + 1, 0);  // weight of keyed[0, i)
    for (std::size_t i = 0; i < keyed.size(); ++i) before[i + 1] = before[i] + keyed[i].weight;
    const std::uint64_t total = before.back();

    // Cut k sits where the running weight is nearest k/N of the total, leaving every shard at
    // least one tile while there are tiles enough.
    std::vector<std::size_t> cuts(shards + 1, 0);
    cuts[shards] = keyed.size();
    for (std::size_t k = 1; k < shards; ++k) {
        const double ideal = static_cast<double>(total) * static_cast<double>(k) / static_cast<double>(shards);
        std::size_t i = static_cast<std::size_t>(
            std::upper_bound(before.begin(), before.end(), static_cast<std::uint64_t>(ideal)) - before.begin());
        i = i == 0 ? 0 : i - 1;  // before[i] <= ideal < before[i + 1]
        if (i + 1 < before.size() &&
            static_cast<double>(before[i + 1]) - ideal < ideal - static_cast<double>(before[i])) {
            ++i;
        }
        const std::size_t lowest = std::min(cuts[k - 1] + 1, keyed.size());
        const std::size_t highest = keyed.size() > shards - k ? keyed.size() - (shards - k) : lowest;
        cuts[k] = std::clamp(i, lowest, std::max(lowest, highest));
        if (alignLevels > 0) cuts[k] = nearestGroupEdge(keyed, cuts[k], cuts[k - 1], alignLevels);
    }

    for (std::size_t k = 0; k < shards; ++k) {
        const std::size_t lo = cuts[k], hi = cuts[k + 1];
        plan.weights[k] = before[hi] - before[lo];
        for (std::size_t i = lo; i < hi; ++i) plan.tiles[k].push_back(keyed[i].tile);
        std::sort(plan.tiles[k].begin(), plan.tiles[k].end(), northToSouth);
        // The fewest prefixes: from each uncovered tile, the shortest prefix whose tiles all lie
        // in this run.
        for (std::size_t i = lo; i < hi;) {
            const std::string& qk = keyed[i].quadkey;
            for (std::size_t len = 0; len <= qk.size(); ++len) {
                const std::string_view prefix = std::string_view(qk).substr(0, len);
                const auto first = std::lower_bound(keyed.begin(), keyed.end(), prefix,
                                                    [](const Keyed& a, std::string_view p) { return a.quadkey < p; });
                auto last = first;
                while (last != keyed.end() && std::string_view(last->quadkey).substr(0, len) == prefix) ++last;
                const auto a = static_cast<std::size_t>(first - keyed.begin());
                const auto b = static_cast<std::size_t>(last - keyed.begin());
                if (a >= lo && b <= hi) {
                    plan.keys[k].emplace_back(prefix);
                    i = b;
                    break;
                }
            }
        }
    }
    return plan;
}

int placementReachTiles(std::span<const placement::PassKind> passes) {
    using placement::PassKind;
    // needed[p]: how far around the own tiles the placed layer written by passes before p must
    // be right; every pass's results are needed on the own tiles (radius 0).
    int neededOutput = 0;  // of the passes walked so far' inputs, i.e. of the earlier passes
    int reach = 0;
    for (auto it = passes.rbegin(); it != passes.rend(); ++it) {
        // Results of this pass are needed where later passes read its output, and on the own tiles.
        int results = 0;
        switch (*it) {
            case PassKind::Buildings:
                results = neededOutput + 1;  // a footprint writes one tile beyond its owner
                break;
            case PassKind::Vegetation:
                results = neededOutput;  // trunks stay in the planting tile
                break;
            case PassKind::Surface:
                results = 0;  // writes no layer
                break;
        }
        reach = std::max(reach, results);
        const int reads = *it == PassKind::Surface ? 1 : 2;
        neededOutput = std::max(neededOutput, results + reads);
    }
    return reach;
}

namespace {

/// bakeClosure over the tiles of `content`, built once for every batch of a bake.
std::vector<TileId> closureIn(std::span<const TileId> own, const std::unordered_set<TileId>& content, int reachTiles) {
    std::unordered_set<TileId> chosen;
    std::vector<TileId> work;
    const auto take = [&](const TileId& t) {
        if (content.contains(t) && chosen.insert(t).second) work.push_back(t);
    };
    for (const TileId& t : own) {
        for (int dy = -reachTiles; dy <= reachTiles; ++dy) {
            for (int dx = -reachTiles; dx <= reachTiles; ++dx) {
                if (const auto n = t.neighbour(dx, dy)) take(*n);
            }
        }
    }
    // Earlier-phase tiles within two wrote into a tile's region before it ran; theirs in turn
    // depend on earlier phases still, so the chain ends after at most eight steps.
    while (!work.empty()) {
        const TileId t = work.back();
        work.pop_back();
        for (int dy = -2; dy <= 2; ++dy) {
            for (int dx = -2; dx <= 2; ++dx) {
                const auto n = t.neighbour(dx, dy);
                if (n && phaseOf(*n) < phaseOf(t)) take(*n);
            }
        }
    }
    std::vector<TileId> out(chosen.begin(), chosen.end());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

std::vector<TileId> bakeClosure(std::span<const TileId> own, std::span<const TileId> all, int reachTiles) {
    return closureIn(own, std::unordered_set<TileId>(all.begin(), all.end()), reachTiles);
}

namespace {

/// The tiles beside `closure` (not in it) that a shard must bake too: those holding an area
/// feature whose bounds cover a closure tile that does not hold it. The building pass collects
/// footprints from the baked tiles' entries, and a footprint whose box centre lies in a tile
/// (its owner) may not reach that tile — a ring-shaped building around a courtyard. The ring's
/// own results are never read: it runs in later phases than any closure tile within two tiles,
/// and writes beyond everything the own tiles read.
std::vector<TileId> footprintRing(const TileIndex& index, std::span<const TileId> closure) {
    const std::unordered_set<TileId> inClosure(closure.begin(), closure.end());
    std::unordered_set<TileId> checked;
    std::vector<TileId> ring;
    const auto holds = [&](const TileId& t, std::uint32_t e) {
        const auto slot = index.slot(t);
        if (!slot) return false;
        const auto list = index.entries(*slot);
        return std::binary_search(list.begin(), list.end(), e);
    };
    for (const TileId& t : closure) {
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                const auto r = t.neighbour(dx, dy);
                if (!r || inClosure.contains(*r) || !checked.insert(*r).second) continue;
                const auto slot = index.slot(*r);
                if (!slot) continue;
                bool needed = false;
                for (const std::uint32_t e : index.entries(*slot)) {
                    if (index.kind(e) != FeatureKind::Area) continue;
                    // The closure tiles the entry's bounds cover but whose entries lack it.
                    const Box2& b = index.reach(e);
                    const auto first = [](double v) { return static_cast<std::int64_t>(std::floor(v / kTileCells)); };
                    for (std::int64_t y = first(b.min.y); y <= first(b.max.y) && !needed; ++y) {
                        for (std::int64_t x = first(b.min.x); x <= first(b.max.x) && !needed; ++x) {
                            const auto u = TileId::fromZxy(r->zoom, x, y);
                            needed = u && inClosure.contains(*u) && !holds(*u, e);
                        }
                    }
                    if (needed) break;
                }
                if (needed) ring.push_back(*r);
            }
        }
    }
    return ring;
}

/// The weights planShards balances shards by: a tile's feature entries.
std::vector<std::uint64_t> entryWeights(const TileIndex& index) {
    std::vector<std::uint64_t> weights(index.tiles().size(), 0);
    for (std::size_t slot = 0; slot < weights.size(); ++slot) weights[slot] = index.entries(slot).size();
    return weights;
}

/// Part k of a plan with the tiles its results depend on (`content`: the index's tiles).
ShardWork workOf(const TileIndex& index, const std::unordered_set<TileId>& content, ShardPlan& plan, std::size_t k,
                 int reach) {
    ShardWork work;
    work.own = std::move(plan.tiles[k]);
    work.prefixes = std::move(plan.keys[k]);
    work.weight = plan.weights[k];
    work.baked = closureIn(work.own, content, reach);
    const std::vector<TileId> ring = footprintRing(index, work.baked);
    work.baked.insert(work.baked.end(), ring.begin(), ring.end());
    std::sort(work.baked.begin(), work.baked.end());
    return work;
}

int reachOf(const placement::PlacementRules& rules) {
    std::vector<placement::PassKind> kinds;
    for (const placement::PassRule& p : rules.passes()) kinds.push_back(p.kind);
    return placementReachTiles(kinds);
}

}  // namespace

ShardWork shardWork(const TileIndex& index, const ShardSpec& spec, const placement::PlacementRules& rules,
                    int alignLevels) {
    ShardPlan plan = planShards(index.tiles(), entryWeights(index), spec.count, alignLevels);
    const std::unordered_set<TileId> content(index.tiles().begin(), index.tiles().end());
    return workOf(index, content, plan, static_cast<std::size_t>(spec.index), reachOf(rules));
}

std::vector<ShardWork> batchWorks(const TileIndex& index, std::span<const TileId> of, std::size_t batchTiles,
                                  const placement::PlacementRules& rules, int alignLevels) {
    const std::size_t tiles = of.size();
    if (tiles == 0) return {};
    const std::size_t size = std::max<std::size_t>(batchTiles, 1);
    const std::size_t count = std::min<std::size_t>((tiles + size - 1) / size, kMaxShards);
    // Unit weights: a run of consecutive quadkeys of at most `size` tiles each.
    ShardPlan plan = planShards(of, {}, static_cast<int>(count), alignLevels);
    const int reach = reachOf(rules);
    std::vector<ShardWork> works;
    works.reserve(count);
    const std::unordered_set<TileId> content(index.tiles().begin(), index.tiles().end());
    for (std::size_t k = 0; k < count; ++k) {
        if (!plan.tiles[k].empty()) works.push_back(workOf(index, content, plan, k, reach));
    }
    const std::vector<std::uint64_t> weights = entryWeights(index);
    for (ShardWork& w : works) {
        w.weight = 0;
        for (const TileId& t : w.own) w.weight += 1 + weights[*index.slot(t)];
    }
    return works;
}

}  // namespace terrabit::core::scale
