#include "terrabit/core/placement/building_pass.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <numbers>
#include <sstream>

#include "parallel_p.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/placement/model_matcher.h"
#include "terrabit/core/placement/occupancy_map.h"
#include "terrabit/core/placement/placement_hash.h"
#include "terrabit/core/placement/target_box.h"

namespace terrabit::core::placement {

namespace {

using Clock = std::chrono::steady_clock;

/// One footprint to place: its feature, target box and the hash of everything about it.
struct Target {
    const Feature* feature = nullptr;
    OrientedBox box;           ///< ground metres
    std::uint64_t hash = 0;    ///< feature id, geometry and tags
    std::uint64_t idHash = 0;  ///< feature id only (keys the seeded choice)
};

/// The phase of a tile: tiles of one phase are at least 3 apart on some axis.
int phaseOf(const TileId& t) { return static_cast<int>((t.y % 3) * 3 + (t.x % 3)); }

/// Per-worker scratch: after the first buildings nothing here allocates.
struct Scratch {
    std::vector<CellSpan> spans;
    std::vector<ModelFit> fits;
    std::vector<Vec2> ground;
    std::vector<Vec2> hull;
};

/// The height a building's tags give, metres; NaN when they give none.
double taggedHeight(const Feature& f, double storeyHeight) {
    if (const auto h = f.metresTag("height"); h && *h > 0.0) return *h;
    if (const auto levels = f.tag("building:levels")) {
        double n = 0.0;
        const auto [end, ec] = std::from_chars(levels->data(), levels->data() + levels->size(), n);
        if (ec == std::errc{} && end == levels->data() + levels->size() && n > 0.0 && std::isfinite(n)) {
            return n * storeyHeight;
        }
    }
    return std::numeric_limits<double>::quiet_NaN();
}

std::string metres(double v) {
    std::ostringstream s;
    s.precision(0);
    s << std::fixed << v;
    return s.str();
}

}  // namespace

const TileBuildings* BuildingPass::tile(const TileId& id) const {
    const auto it = mCache.find(id);
    return it == mCache.end() ? nullptr : &it->second;
}

Status BuildingPass::run(const PassRule& pass, PassContext& ctx, PassReport& report) {
    const auto start = Clock::now();
    const BuildingPassRule& rule = pass.buildings;
    const TileIndex& index = *ctx.index;
    const ClassifiedMap& map = index.map();
    const auto assets = ctx.catalogue->assets();
    const GroundFrame& frame = ctx.frame;
    const std::uint64_t passKey = ctx.passKey(pass);
    const std::uint64_t ruleKey = hashCombine(ctx.commonKey, hashText(PlacementRules::describe(pass)));

    // -- models: the category's assets, and the subset each filter allows --------------------
    const auto catalogueIndex = [&](const AssetInfo* a) { return static_cast<int>(a - assets.data()); };
    std::vector<int> anyModel;
    for (const AssetInfo* a : ctx.catalogue->ofCategory(rule.category)) anyModel.push_back(catalogueIndex(a));
    std::vector<std::vector<int>> filterModels;
    for (const ModelFilterRule& f : rule.filters) {
        AssetFilter filter = f.models;
        filter.category = rule.category;
        std::vector<int> allowed;
        for (const AssetInfo* a : ctx.catalogue->select(filter)) allowed.push_back(catalogueIndex(a));
        filterModels.push_back(std::move(allowed));
    }
    const auto allowedFor = [&](const Feature& f) -> std::span<const int> {
        for (std::size_t i = 0; i < rule.filters.size(); ++i) {
            const auto& when = rule.filters[i].when;
            if (std::all_of(when.begin(), when.end(), [&](const TagCondition& c) { return c.holds(f); })) {
                return filterModels[i];
            }
        }
        return anyModel;
    };
    const ModelMatcher matcher(*ctx.catalogue, rule.fit);

    // -- the tiles placement reaches: the baked ones and their neighbours ------------------------
    std::vector<TileId> reach;
    for (const TileId& t : ctx.order) {
        for (const TileId& n : neighbourhoodOf(t)) reach.push_back(n);
    }
    std::sort(reach.begin(), reach.end());
    reach.erase(std::unique(reach.begin(), reach.end()), reach.end());

    // -- what blocks buildings, over every reachable tile -------------------------------------------
    OccupancyMap blocking(reach);
    std::unordered_map<TileId, std::uint64_t> blockingHash;
    for (const TileId& t : reach) blockingHash.emplace(t, 0);
    if (rule.blockedBy != "none" && !rule.blockedBy.empty()) {
        auto program = ctx.compile(pass, "blocked_by", rule.blockedBy);
        if (!program) return program.error();
        std::vector<algebra::LayerEvaluator> evaluators;
        for (int w = 0; w < ctx.threads; ++w) evaluators.emplace_back(*program);
        std::vector<Status> failures(reach.size());
        detail::parallelFor(reach.size(), ctx.threads, [&](std::size_t i, int worker) {
            BitTile* out = blocking.tile(reach[i]);
            failures[i] = evaluators[static_cast<std::size_t>(worker)].evaluate(*ctx.layers, reach[i], *out);
            blockingHash.find(reach[i])->second = out->any() ? out->hash() : 0;
        });
        for (const Status& s : failures) {
            if (!s) return Error{"pass '" + pass.name + "' blocked_by: " + s.message()};
        }
    }

    // -- targets: each footprint once, with its owner tile -------------------------------------
    int layerId = -1;
    for (std::size_t i = 0; i < map.layers.size(); ++i) {
        if (map.layers[i].name == rule.layer) layerId = static_cast<int>(i);
    }
    const auto inLayer = [&](std::uint16_t l) {
        return layerId >= 0 && (l == layerId || (l < map.layers.size() && map.layers[l].parent == layerId));
    };
    std::vector<std::uint32_t> entries;
    {
        std::vector<std::uint8_t> seen(map.entries.size(), 0);
        for (const TileId& t : ctx.order) {
            const auto slot = index.slot(t);
            if (!slot) continue;
            for (const std::uint32_t e : index.entries(*slot)) {
                const LayerEntry& entry = map.entries[e];
                if (seen[e] || !inLayer(entry.layer) || entry.feature->kind != FeatureKind::Area) continue;
                seen[e] = 1;
                entries.push_back(e);
            }
        }
        std::sort(entries.begin(), entries.end());
    }
    std::vector<Target> targets(entries.size());
    std::vector<Scratch> scratch(static_cast<std::size_t>(ctx.threads));
    detail::parallelFor(entries.size(), ctx.threads, [&](std::size_t i, int worker) {
        Scratch& s = scratch[static_cast<std::size_t>(worker)];
        const std::span<const Vec2> cells = index.cells(entries[i]);
        s.ground.clear();
        for (const Vec2 c : cells) s.ground.push_back(frame.cellToGround(c));
        Target& t = targets[i];
        t.feature = map.entries[entries[i]].feature;
        if (rule.box == TargetBoxKind::Oriented) {
            convexHull(s.ground, s.hull);
            t.box = minimumAreaBox(s.hull);
        } else {
            t.box = axisAlignedBox(s.ground);
        }
        t.idHash = hashText(t.feature->id);
        std::uint64_t h = hashCombine(t.idHash, cells);
        for (const Tag& tag : t.feature->tags) h = hashCombine(hashCombine(h, hashText(tag.key)), hashText(tag.value));
        t.hash = h;
    });

    // Owner of each target: the baked tile holding its box's centre.
    std::unordered_map<TileId, std::vector<std::uint32_t>> owned;
    for (const TileId& t : ctx.order) owned.emplace(t, std::vector<std::uint32_t>{});
    for (std::uint32_t i = 0; i < targets.size(); ++i) {
        const Vec2 c = frame.groundToCell(targets[i].box.centre);
        if (!isFinite(c)) continue;
        const TileId owner{frame.zoom, static_cast<std::uint32_t>(std::floor(c.x / kTileCells)),
                           static_cast<std::uint32_t>(std::floor(c.y / kTileCells))};
        if (const auto it = owned.find(owner); it != owned.end()) it->second.push_back(i);
    }
    for (auto& [tile, list] : owned) {
        // Largest first (they are the hardest to fit), then by feature id, so the order does not
        // depend on how the features were read.
        std::sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) {
            const double aa = boxArea(targets[a].box), ab = boxArea(targets[b].box);
            if (aa != ab) return aa > ab;
            if (targets[a].feature->id != targets[b].feature->id)
                return targets[a].feature->id < targets[b].feature->id;
            return a < b;
        });
    }

    // -- the phases ------------------------------------------------------------------------------------
    OccupancyMap& occupancy = ctx.layers->placedBuildings();
    occupancy = OccupancyMap(reach);
    std::unordered_map<TileId, std::uint64_t> keys;
    for (const TileId& t : ctx.order) keys.emplace(t, 0);
    std::unordered_map<TileId, TileBuildings*> results;
    for (const TileId& t : ctx.order) results.emplace(t, &mCache[t]);  // made here, filled by one worker each
    std::vector<std::uint8_t> ran(ctx.order.size(), 0);

    const auto keyOf = [&](const TileId& t) {
        std::uint64_t k = hashCombine(ruleKey, (std::uint64_t{t.x} << 32) | t.y);
        for (const std::uint32_t i : owned.find(t)->second) k = hashCombine(k, targets[i].hash);
        for (const TileId& n : neighbourhoodOf(t)) {
            const auto b = blockingHash.find(n);
            k = hashCombine(k, b == blockingHash.end() ? 0 : b->second);
        }
        // Earlier-phase tiles within two tiles wrote into this tile's region before it ran.
        for (int dy = -2; dy <= 2; ++dy) {
            for (int dx = -2; dx <= 2; ++dx) {
                const auto n = t.neighbour(dx, dy);
                if (!n || phaseOf(*n) >= phaseOf(t)) continue;
                const auto it = keys.find(*n);
                if (it != keys.end()) k = hashCombine(k, it->second);
            }
        }
        return k;
    };

    const auto placeTile = [&](const TileId& t, TileBuildings& out, Scratch& s) {
        out.buildings.clear();
        out.warnings.clear();
        const CellRegion region = CellRegion::around(t);
        for (const std::uint32_t i : owned.find(t)->second) {
            const Target& target = targets[i];
            const Feature& f = *target.feature;
            PlacedBuilding b;
            b.featureId = f.id;
            b.record.tile = t;
            b.record.target = target.box;
            b.record.outcome = BuildingOutcome::NoModelFits;
            const double boxW = 2.0 * target.box.halfExtents.x;
            const double boxD = 2.0 * target.box.halfExtents.y;
            matcher.fits(boxW, boxD, allowedFor(f), s.fits);
            matcher.chooseVariety(
                s.fits, boxW * boxD,
                draw(hashCombine(hashCombine(passKey, target.idHash), (std::uint64_t{t.x} << 32) | t.y), 0));
            bool inReach = false;
            for (const ModelFit& fit : s.fits) {
                const AssetInfo& a = assets[static_cast<std::size_t>(fit.asset)];
                const double mw = fit.turned ? a.footprint.depth : a.footprint.width;
                const double md = fit.turned ? a.footprint.width : a.footprint.depth;
                OrientedBox placed = target.box;
                placed.halfExtents = {0.5 * fit.scale * mw, 0.5 * fit.scale * md};
                const std::array<Vec2, 4> corners = boxCorners(placed);
                std::array<Vec2, 4> cells;
                for (std::size_t c = 0; c < 4; ++c) cells[c] = frame.groundToCell(corners[c]);
                if (!footprintSpans(cells, region, s.spans)) continue;
                inReach = true;
                // This code is hot: every fit of every building ends here until one is clear.
                if (!occupancy.isClear(s.spans, &blocking)) continue;
                occupancy.mark(s.spans);
                b.footprintCells = cells;
                b.record.outcome = BuildingOutcome::Placed;
                b.record.asset = fit.asset;
                Instance& in = b.record.placement;
                in.position = groundToScene(target.box.centre, 0.0);
                in.yaw = static_cast<float>(target.box.angle + (fit.turned ? std::numbers::pi / 2 : 0.0));
                double heightScale = fit.scale;
                if (rule.height == HeightSource::Tags && a.height > 0.0) {
                    const double h = taggedHeight(f, rule.storeyHeightMetres);
                    if (std::isfinite(h)) heightScale = h / a.height;
                }
                in.scale = {static_cast<float>(fit.scale), static_cast<float>(heightScale),
                            static_cast<float>(fit.scale)};
                break;
            }
            if (b.record.outcome != BuildingOutcome::Placed && inReach) {
                b.record.outcome = BuildingOutcome::Blocked;
            } else if (b.record.outcome != BuildingOutcome::Placed && !s.fits.empty()) {
                out.warnings.push_back("building " + f.id + ": its " + metres(boxW) + " m × " + metres(boxD) +
                                       " m footprint reaches beyond the tiles next to " + t.quadkey() +
                                       ", where it belongs; no model was placed");
            }
            out.buildings.push_back(std::move(b));
        }
    };

    const auto remark = [&](const TileId& t, const TileBuildings& cached, Scratch& s) {
        const CellRegion region = CellRegion::around(t);
        for (const PlacedBuilding& b : cached.buildings) {
            if (b.record.outcome != BuildingOutcome::Placed) continue;
            if (footprintSpans(b.footprintCells, region, s.spans)) occupancy.mark(s.spans);
        }
    };

    std::vector<std::size_t> byPhase[9];
    for (std::size_t i = 0; i < ctx.order.size(); ++i) byPhase[phaseOf(ctx.order[i])].push_back(i);
    for (int phase = 0; phase < 9; ++phase) {
        if (!reportProgress(ctx.progress, phase / 9.0, "placing buildings")) {
            return cancelled("bake cancelled while placing buildings");
        }
        const std::vector<std::size_t>& list = byPhase[phase];
        // Keys first (they read earlier phases' keys only), then the tiles in parallel.
        for (const std::size_t i : list) keys.find(ctx.order[i])->second = keyOf(ctx.order[i]);
        detail::parallelFor(list.size(), ctx.threads, [&](std::size_t k, int worker) {
            const TileId& t = ctx.order[list[k]];
            TileBuildings& result = *results.find(t)->second;
            const std::uint64_t key = keys.find(t)->second;
            Scratch& s = scratch[static_cast<std::size_t>(worker)];
            if (result.key == key && key != 0) {
                remark(t, result, s);
                return;
            }
            placeTile(t, result, s);
            result.key = key;
            ran[list[k]] = 1;
        });
    }

    // Forget tiles no longer baked, so a later bake of them starts afresh.
    std::erase_if(mCache, [&](const auto& kv) { return results.find(kv.first) == results.end(); });
    report.name = pass.name;
    report.kind = pass.kind;
    report.tilesRun = static_cast<std::size_t>(std::count(ran.begin(), ran.end(), 1));
    report.tilesReused = ctx.order.size() - report.tilesRun;
    if (ctx.warnings) {
        // In the index's order, over the baked tiles only: a streamed bake of a country runs
        // thousands of small bakes over one index.
        std::vector<std::pair<std::size_t, const TileBuildings*>> bySlot;
        for (const auto& [t, result] : mCache) {
            if (!result.warnings.empty()) bySlot.emplace_back(index.slot(t).value_or(0), &result);
        }
        std::sort(bySlot.begin(), bySlot.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [slot, result] : bySlot) {
            for (const std::string& w : result->warnings) ctx.warnings->push_back(w);
        }
    }
    report.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return Status::success();
}

}  // namespace terrabit::core::placement
