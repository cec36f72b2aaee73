#include "terrabit/core/placement/vegetation_pass.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <numbers>
#include <unordered_set>

#include "parallel_p.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/placement/placement_hash.h"

namespace terrabit::core::placement {

namespace {

using Clock = std::chrono::steady_clock;

/// One class made ready to run: its layer, species and compiled expressions.
struct ClassPlan {
    int layer = -1;
    std::vector<int> species;     ///< catalogue indices
    std::vector<double> weights;  ///< same order
    algebra::LayerProgram zone;   ///< plantable cells of the class
    algebra::LayerProgram plant;  ///< cells to plant (ANDed with zone unless the rules give `plant`)
};

/// The candidates of one tile: which cells would get a plant before spacing, and of which class.
struct Candidates {
    BitTile all;
    std::vector<std::uint32_t> cells;  ///< (y * 256 + x) << 8 | class, ascending (row order)
    std::vector<VegetationTally> tallies;
};

std::string number(double v) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc{} ? std::string(buf, end) : std::string("0");
}

}  // namespace

const TileVegetation* VegetationPass::tile(const TileId& id) const {
    const auto it = mCache.find(id);
    return it == mCache.end() ? nullptr : &it->second;
}

Status VegetationPass::run(const PassRule& pass, PassContext& ctx, PassReport& report) {
    const auto start = Clock::now();
    const VegetationPassRule& rule = pass.vegetation;
    const LayerSource& source = *ctx.layers;
    const GroundFrame& frame = ctx.frame;
    const std::uint64_t passKey = ctx.passKey(pass);

    // -- plans: species and expressions per class ------------------------------------------------
    std::vector<ClassPlan> plans(rule.classes.size());
    const std::string zone = rule.zone.empty() ? rule.layer : rule.zone;
    for (std::size_t c = 0; c < rule.classes.size(); ++c) {
        const VegetationClassRule& cr = rule.classes[c];
        ClassPlan& plan = plans[c];
        plan.layer = source.layerId(cr.layer);
        if (plan.layer < 0)
            return Error{ctx.rules->source() + ":" + std::to_string(cr.line) + ": no layer '" + cr.layer + "'"};
        for (const SpeciesWeight& w : cr.species) {
            const AssetInfo* a = ctx.catalogue->find(w.asset);
            if (!a) {
                return Error{ctx.rules->source() + ":" + std::to_string(w.line) + ": pass '" + pass.name + "' class " +
                             cr.layer + ": the catalogue has no asset '" + w.asset + "'"};
            }
            plan.species.push_back(static_cast<int>(a - ctx.catalogue->assets().data()));
            plan.weights.push_back(w.weight);
        }
        const std::string avoid = cr.avoid.empty() || cr.avoid == "none" ? "" : " & ~(" + cr.avoid + ")";
        auto zoneProgram = ctx.compile(pass, "classes." + cr.layer, "(" + zone + ") & " + cr.layer + avoid);
        if (!zoneProgram) return zoneProgram.error();
        plan.zone = std::move(*zoneProgram);
        std::string plant;
        if (!rule.plant.empty()) {
            plant = "(" + rule.plant + ") & " + cr.layer + avoid;
        } else if (rule.scatter == ScatterKind::Noise) {
            plant = "noise(" + rule.noiseScale + ", " + number(cr.density) + ")";
        } else {
            plant = "random(" + number(cr.density) + ")";
        }
        auto plantProgram = ctx.compile(pass, "classes." + cr.layer, plant);
        if (!plantProgram) return plantProgram.error();
        plan.plant = std::move(*plantProgram);
    }
    const bool plantOverrides = !rule.plant.empty();

    // -- spacing, in cells, and how far a cell must look for rivals ------------------------------
    const double spacingCells = rule.spacingMetres / frame.metresPerCell();
    double maxJitter = 0.0;
    for (const VegetationClassRule& c : rule.classes) maxJitter = std::max(maxJitter, c.jitter);
    const int reachCells =
        rule.spacingMetres > 0.0 ? static_cast<int>(std::ceil(spacingCells + maxJitter * std::numbers::sqrt2)) : 0;
    if (reachCells > kTileCells) {
        return Error{ctx.rules->source() + ":" + std::to_string(pass.line) + ": pass '" + pass.name + "' spacing: " +
                     number(rule.spacingMetres) + " m is wider than a tile at zoom " + std::to_string(frame.zoom)};
    }

    // -- keys: the rule (classes present around the tile only) and the layers read ----------------
    std::vector<int> layersRead;
    for (const ClassPlan& p : plans) {
        for (const algebra::LayerProgram* prog : {&p.zone, &p.plant}) {
            for (const int l : prog->layersRead()) layersRead.push_back(l);
        }
    }
    std::sort(layersRead.begin(), layersRead.end());
    layersRead.erase(std::unique(layersRead.begin(), layersRead.end()), layersRead.end());
    PassRule passOnly = pass;
    passOnly.vegetation.classes.clear();
    const std::uint64_t ruleKey = hashCombine(ctx.commonKey, hashText(PlacementRules::describe(passOnly)));
    std::vector<std::uint64_t> classKeys;
    for (const VegetationClassRule& c : rule.classes) classKeys.push_back(hashText(PlacementRules::describeClass(c)));

    const auto keyOf = [&](const TileId& t) {
        std::uint64_t k = hashCombine(ruleKey, (std::uint64_t{t.x} << 32) | t.y);
        k = hashCombine(k, ctx.hashes->neighbourhood(t, layersRead));
        const std::vector<TileId> around = neighbourhoodOf(t);
        for (std::size_t c = 0; c < plans.size(); ++c) {
            const bool present = std::any_of(around.begin(), around.end(),
                                             [&](const TileId& n) { return ctx.hashes->at(n, plans[c].layer) != 0; });
            // A class with no cell near the tile cannot change it, so its parameters stay out.
            k = hashCombine(k, present ? classKeys[c] : std::uint64_t{0x616273656e74} + c);
        }
        return k;
    };
    std::vector<std::uint64_t> keys(ctx.order.size());
    std::vector<std::size_t> toRun;
    for (std::size_t i = 0; i < ctx.order.size(); ++i) {
        keys[i] = keyOf(ctx.order[i]);
        const auto it = mCache.find(ctx.order[i]);
        if (it == mCache.end() || it->second.key != keys[i]) toRun.push_back(i);
    }

    // -- stage A: candidates of the tiles to run (and, for spacing, their neighbours) ------------
    std::vector<TileId> needed;
    for (const std::size_t i : toRun) {
        if (reachCells > 0) {
            for (const TileId& n : neighbourhoodOf(ctx.order[i])) needed.push_back(n);
        } else {
            needed.push_back(ctx.order[i]);
        }
    }
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
    std::unordered_map<TileId, Candidates> candidates;
    for (const TileId& t : needed) candidates[t];
    std::vector<std::vector<algebra::LayerEvaluator>> evaluators(static_cast<std::size_t>(ctx.threads));
    for (auto& perWorker : evaluators) {
        for (const ClassPlan& p : plans) {
            perWorker.emplace_back(p.zone);
            perWorker.emplace_back(p.plant);
        }
    }
    std::vector<Status> failures(needed.size());
    if (!reportProgress(ctx.progress, 0.0, "planting")) return cancelled("bake cancelled while planting");
    detail::parallelFor(needed.size(), ctx.threads, [&](std::size_t i, int worker) {
        const TileId& t = needed[i];
        Candidates& out = candidates.find(t)->second;
        auto& ev = evaluators[static_cast<std::size_t>(worker)];
        BitTile zoneTaken, zoneCells, plantCells;
        out.tallies.assign(plans.size(), {});
        for (std::size_t c = 0; c < plans.size(); ++c) {
            if (Status s = ev[2 * c].evaluate(source, t, zoneCells); !s) {
                failures[i] = s;
                return;
            }
            zoneCells.andNot(zoneTaken);  // a cell belongs to the first class that takes it
            zoneTaken |= zoneCells;
            // Most classes have no cell in most tiles, and a random mask costs a hash per cell:
            // without a zone there is nothing to plant, so it is not drawn.
            if (!plantOverrides && zoneCells.none()) continue;
            if (Status s = ev[2 * c + 1].evaluate(source, t, plantCells); !s) {
                failures[i] = s;
                return;
            }
            if (!plantOverrides) plantCells &= zoneCells;
            plantCells.andNot(out.all);
            out.all |= plantCells;
            const int n = zoneCells.count();
            out.tallies[c].zoneCells = static_cast<std::size_t>(n);
            out.tallies[c].requestedInstances = rule.classes[c].density * n;
            plantCells.forEachSetCell([&](int x, int y) {
                out.cells.push_back((static_cast<std::uint32_t>(y * kTileCells + x) << 8) |
                                    static_cast<std::uint32_t>(c));
            });
        }
        std::sort(out.cells.begin(), out.cells.end());
    });
    for (const Status& s : failures) {
        if (!s) return Error{"pass '" + pass.name + "': " + s.message()};
    }

    // -- stage B: plants of the tiles to run ----------------------------------------------------
    // A cell's jittered position, in global cells: a pure function of the cell and its class.
    const auto positionOf = [&](std::uint64_t h, std::int64_t gx, std::int64_t gy, std::size_t c) {
        const double j = rule.classes[c].jitter;
        return Vec2{static_cast<double>(gx) + 0.5 + (unitInterval(draw(h, 0)) - 0.5) * j,
                    static_cast<double>(gy) + 0.5 + (unitInterval(draw(h, 1)) - 0.5) * j};
    };
    const auto classAt = [](const Candidates& cand, std::uint32_t index) {
        const auto it = std::lower_bound(cand.cells.begin(), cand.cells.end(), index << 8);
        return (it != cand.cells.end() && (*it >> 8) == index) ? static_cast<std::size_t>(*it & 0xff) : std::size_t{0};
    };

    std::vector<TileVegetation*> results(ctx.order.size());
    for (std::size_t i = 0; i < ctx.order.size(); ++i) results[i] = &mCache[ctx.order[i]];
    if (!reportProgress(ctx.progress, 0.5, "planting")) return cancelled("bake cancelled while planting");
    detail::parallelFor(toRun.size(), ctx.threads, [&](std::size_t k, int) {
        const std::size_t i = toRun[k];
        const TileId& t = ctx.order[i];
        TileVegetation& out = *results[i];
        const Candidates& own = candidates.find(t)->second;
        out.instances.clear();
        out.trunks.reset();
        out.tallies = own.tallies;
        // The candidates of the 3 × 3 tiles around, by (dx + 1, dy + 1).
        const Candidates* around[3][3] = {};
        if (reachCells > 0) {
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    const TileId n{t.zoom, t.x + static_cast<std::uint32_t>(dx), t.y + static_cast<std::uint32_t>(dy)};
                    const auto it = candidates.find(n);
                    around[dy + 1][dx + 1] = it == candidates.end() ? nullptr : &it->second;
                }
            }
        }
        const std::int64_t ox = std::int64_t{t.x} * kTileCells, oy = std::int64_t{t.y} * kTileCells;

        // True when no rival candidate closer than the spacing outranks the cell.
        const auto keeps = [&](std::int64_t gx, std::int64_t gy, Vec2 pos, std::uint64_t priority) {
            for (std::int64_t ry = gy - reachCells; ry <= gy + reachCells; ++ry) {
                if (ry < oy - kTileCells || ry >= oy + 2 * kTileCells) continue;
                const std::int64_t ty = (ry - oy + kTileCells) / kTileCells - 1;  // -1, 0 or 1
                const int row = static_cast<int>(ry - (oy + ty * kTileCells));
                for (std::int64_t x0 = gx - reachCells; x0 <= gx + reachCells;) {
                    const std::int64_t tx = (x0 - ox + kTileCells) / kTileCells - 1;
                    const std::int64_t tileEnd = ox + (tx + 1) * kTileCells;  // exclusive
                    const std::int64_t x1 = std::min(gx + reachCells + 1, tileEnd);
                    const Candidates* cand = (tx >= -1 && tx <= 1) ? around[ty + 1][tx + 1] : nullptr;
                    if (cand) {
                        const std::int64_t base = ox + tx * kTileCells;
                        const std::uint64_t* words = cand->all.row(row);
                        const int lx0 = static_cast<int>(x0 - base), lx1 = static_cast<int>(x1 - base);
                        for (int w = lx0 >> 6; w <= (lx1 - 1) >> 6; ++w) {
                            std::uint64_t bits = words[w] & spanWordMask(w, lx0, lx1);
                            while (bits) {
                                const int lx = w * 64 + std::countr_zero(bits);
                                bits &= bits - 1;
                                const std::int64_t cx = base + lx;
                                if (cx == gx && ry == gy) continue;
                                const std::size_t cc =
                                    classAt(*cand, static_cast<std::uint32_t>(row * kTileCells + lx));
                                const std::uint64_t h = cellHash(passKey, cx, ry);
                                const Vec2 d = positionOf(h, cx, ry, cc) - pos;
                                if (dot(d, d) >= spacingCells * spacingCells) continue;
                                const std::uint64_t p = draw(h, 5);
                                if (p > priority || (p == priority && (ry < gy || (ry == gy && cx < gx)))) return false;
                            }
                        }
                    }
                    x0 = x1;
                }
            }
            return true;
        };

        for (const std::uint32_t packed : own.cells) {
            const std::uint32_t index = packed >> 8;
            const std::size_t c = packed & 0xff;
            const int x = static_cast<int>(index % kTileCells), y = static_cast<int>(index / kTileCells);
            const std::int64_t gx = ox + x, gy = oy + y;
            const std::uint64_t h = cellHash(passKey, gx, gy);
            const Vec2 pos = positionOf(h, gx, gy, c);
            if (reachCells > 0 && !keeps(gx, gy, pos, draw(h, 5))) continue;
            const VegetationClassRule& cr = rule.classes[c];
            const int pick = pickWeighted(plans[c].weights, draw(h, 4));
            if (pick < 0) continue;
            PlantedInstance p;
            p.asset = plans[c].species[static_cast<std::size_t>(pick)];
            p.rule = static_cast<std::uint8_t>(c);
            p.cellX = static_cast<std::uint8_t>(x);
            p.cellY = static_cast<std::uint8_t>(y);
            const float scale =
                static_cast<float>(cr.minScale + unitInterval(draw(h, 3)) * (cr.maxScale - cr.minScale));
            p.instance.position = groundToScene(frame.cellToGround(pos), 0.0);
            p.instance.yaw = static_cast<float>(unitInterval(draw(h, 2)) * 2.0 * std::numbers::pi);
            p.instance.scale = {scale, scale, scale};
            out.instances.push_back(p);
            out.trunks.set(x, y);
            ++out.tallies[c].instances;
        }
        out.key = keys[i];
    });

    // -- trunks into placed_vegetation, for every baked tile ---------------------------------------
    OccupancyMap& placed = ctx.layers->placedVegetation();
    for (std::size_t i = 0; i < ctx.order.size(); ++i) {
        if (BitTile* b = placed.tile(ctx.order[i])) *b |= results[i]->trunks;
    }
    const std::unordered_set<TileId> baked(ctx.order.begin(), ctx.order.end());
    std::erase_if(mCache, [&](const auto& kv) { return !baked.contains(kv.first); });
    report.name = pass.name;
    report.kind = pass.kind;
    report.tilesRun = toRun.size();
    report.tilesReused = ctx.order.size() - toRun.size();
    report.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return Status::success();
}

}  // namespace terrabit::core::placement
