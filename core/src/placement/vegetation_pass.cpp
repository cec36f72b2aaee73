#include "terrabit/core/placement/vegetation_pass.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <numbers>

#include "pass_frame_p.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/placement/placement_hash.h"
#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::core::placement {

namespace {

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

/// The candidates of the 3 × 3 tiles around a tile, by (dx + 1, dy + 1), and the tile's first
/// global cell.
struct CandidatesAround {
    const Candidates* at[3][3] = {};
    std::int64_t ox = 0, oy = 0;
};

/// One run of the pass: its plan (classes, spacing, keys) and its two kernels, candidates and
/// plants. Candidates come first for every tile a stale tile reads, because spacing compares a
/// cell with its rivals across tile borders.
class VegetationRun {
public:
    VegetationRun(const PassRule& pass, PassContext& ctx)
        : mPass(pass), mRule(pass.vegetation), mCtx(ctx), mPassKey(ctx.passKey(pass)) {}

    /// Plan: each class's species and expressions, the spacing, then the tiles' keys.
    Status plan(detail::PassFrame<TileVegetation>& frame) {
        mPlans.resize(mRule.classes.size());
        for (std::size_t c = 0; c < mRule.classes.size(); ++c) {
            if (Status s = planClass(c); !s) return s;
        }
        if (Status s = planSpacing(); !s) return s;
        planKeys(frame);
        return Status::success();
    }

    /// Kernel: candidates, then plants, of the stale tiles.
    Status kernel(detail::PassFrame<TileVegetation>& frame) {
        const std::vector<std::size_t> stale = frame.staleTiles();
        if (Status s = findCandidates(frame, stale); !s) return s;
        return plant(frame, stale);
    }

    /// Commit: every baked tile's trunks into placed_vegetation. A plant names its trunk's
    /// cell, so the cache keeps no trunk bits of its own (8 KiB a tile).
    void commit(const detail::PassFrame<TileVegetation>& frame) const {
        OccupancyMap& placed = mCtx.layers->placedVegetation();
        for (std::size_t i = 0; i < frame.tileCount(); ++i) {
            const std::vector<PlantedInstance>& plants = frame.result(i).instances;
            if (plants.empty()) continue;  // a tile's bits are allocated when first written
            BitTile* b = placed.tile(frame.tile(i));
            if (!b) continue;
            for (const PlantedInstance& p : plants) b->set(p.cellX, p.cellY);
        }
    }

private:
    /// Plan: every baked tile's key — the rule (of the classes present around the tile only), the
    /// common key and the layers read around the tile.
    void planKeys(detail::PassFrame<TileVegetation>& frame) const {
        std::vector<int> layersRead;
        for (const ClassPlan& p : mPlans) {
            for (const algebra::LayerProgram* prog : {&p.zone, &p.plant}) {
                for (const int l : prog->layersRead()) layersRead.push_back(l);
            }
        }
        std::sort(layersRead.begin(), layersRead.end());
        layersRead.erase(std::unique(layersRead.begin(), layersRead.end()), layersRead.end());
        PassRule passOnly = mPass;
        passOnly.vegetation.classes.clear();
        const std::uint64_t ruleKey = detail::ruleKeyOf(mCtx, passOnly);
        std::vector<std::uint64_t> classKeys;
        for (const VegetationClassRule& c : mRule.classes)
            classKeys.push_back(hashText(PlacementRules::describeClass(c)));
        const LayerHashes& hashes = *mCtx.hashes;
        for (std::size_t i = 0; i < frame.tileCount(); ++i) {
            const TileId& t = frame.tile(i);
            std::uint64_t k = hashCombine(detail::tileKey(ruleKey, t), hashes.neighbourhood(t, layersRead));
            // On terrain a plant stands on the heights at its trunk, which may lie in a neighbour.
            if (mCtx.terrain) k = hashCombine(k, hashes.heightNeighbourhood(t));
            const std::vector<TileId> around = neighbourhoodOf(t);
            for (std::size_t c = 0; c < mPlans.size(); ++c) {
                const bool present = std::any_of(around.begin(), around.end(),
                                                 [&](const TileId& n) { return hashes.at(n, mPlans[c].layer) != 0; });
                // A class with no cell near the tile cannot change it, so its parameters stay out.
                k = hashCombine(k, present ? classKeys[c] : std::uint64_t{0x616273656e74} + c);
            }
            frame.setKey(i, k);
        }
    }

    /// Kernel A: the candidates of the stale tiles and, with a spacing, of their neighbours.
    Status findCandidates(const detail::PassFrame<TileVegetation>& frame, std::span<const std::size_t> stale) {
        std::vector<TileId> needed;
        for (const std::size_t i : stale) needed.push_back(frame.tile(i));
        if (mReachCells > 0) {
            needed = detail::tilesAround(needed);
        } else {
            std::sort(needed.begin(), needed.end());  // distinct already: each baked tile once
        }
        for (const TileId& t : needed) mCandidates[t];
        std::vector<std::vector<algebra::LayerEvaluator>> evaluators(static_cast<std::size_t>(mCtx.threads));
        for (auto& perWorker : evaluators) {
            for (const ClassPlan& p : mPlans) {
                perWorker.emplace_back(p.zone);
                perWorker.emplace_back(p.plant);
            }
        }
        if (Status s = frame.progress(0.0); !s) return s;
        const Status s = detail::parallelTry(needed.size(), mCtx.threads, [&](std::size_t i, int worker) {
            return candidatesOf(needed[i], evaluators[static_cast<std::size_t>(worker)],
                                mCandidates.find(needed[i])->second);
        });
        if (!s) return Error{"pass '" + mPass.name + "': " + s.message()};
        return s;
    }

    /// Kernel B: the plants of the stale tiles.
    Status plant(detail::PassFrame<TileVegetation>& frame, std::span<const std::size_t> stale) const {
        if (Status s = frame.progress(0.5); !s) return s;
        return frame.runTiles(stale, "", [&](std::size_t i, int) {
            plantTile(frame.tile(i), frame.result(i));
            return Status::success();
        });
    }

    /// A class's layer, species (catalogue indices and weights) and its zone and plant programs.
    Status planClass(std::size_t c) {
        const VegetationClassRule& cr = mRule.classes[c];
        ClassPlan& plan = mPlans[c];
        plan.layer = mCtx.layers->layerId(cr.layer);
        if (plan.layer < 0)
            return Error{mCtx.rules->source() + ":" + std::to_string(cr.line) + ": no layer '" + cr.layer + "'"};
        for (const SpeciesWeight& w : cr.species) {
            const AssetInfo* a = mCtx.catalogue->find(w.asset);
            if (!a) {
                return Error{mCtx.rules->source() + ":" + std::to_string(w.line) + ": pass '" + mPass.name +
                             "' class " + cr.layer + ": the catalogue has no asset '" + w.asset + "'"};
            }
            plan.species.push_back(static_cast<int>(a - mCtx.catalogue->assets().data()));
            plan.weights.push_back(w.weight);
        }
        const std::string zone = mRule.zone.empty() ? mRule.layer : mRule.zone;
        const std::string avoid = cr.avoid.empty() || cr.avoid == "none" ? "" : " & ~(" + cr.avoid + ")";
        auto zoneProgram = mCtx.compile(mPass, "classes." + cr.layer, "(" + zone + ") & " + cr.layer + avoid);
        if (!zoneProgram) return zoneProgram.error();
        plan.zone = std::move(*zoneProgram);
        std::string plant;
        if (plantOverrides()) {
            plant = "(" + mRule.plant + ") & " + cr.layer + avoid;
        } else if (mRule.scatter == ScatterKind::Noise) {
            plant = "noise(" + mRule.noiseScale + ", " + number(cr.density) + ")";
        } else {
            plant = "random(" + number(cr.density) + ")";
        }
        auto plantProgram = mCtx.compile(mPass, "classes." + cr.layer, plant);
        if (!plantProgram) return plantProgram.error();
        plan.plant = std::move(*plantProgram);
        return Status::success();
    }

    /// The spacing in cells, and how far a cell must look for rivals (at most a tile).
    Status planSpacing() {
        mSpacingCells = mRule.spacingMetres / mCtx.frame.metresPerCell();
        double maxJitter = 0.0;
        for (const VegetationClassRule& c : mRule.classes) maxJitter = std::max(maxJitter, c.jitter);
        mReachCells = mRule.spacingMetres > 0.0
                          ? static_cast<int>(std::ceil(mSpacingCells + maxJitter * std::numbers::sqrt2))
                          : 0;
        if (mReachCells > kTileCells) {
            return Error{mCtx.rules->source() + ":" + std::to_string(mPass.line) + ": pass '" + mPass.name +
                         "' spacing: " + number(mRule.spacingMetres) + " m is wider than a tile at zoom " +
                         std::to_string(mCtx.frame.zoom)};
        }
        return Status::success();
    }

    /// The rules' own `plant` expression replaces the zone-and-density draw.
    bool plantOverrides() const { return !mRule.plant.empty(); }

    /// A tile's candidates, class by class in the rules' order.
    Status candidatesOf(const TileId& t, std::vector<algebra::LayerEvaluator>& ev, Candidates& out) const {
        const LayerSource& source = *mCtx.layers;
        BitTile zoneTaken, zoneCells, plantCells;
        out.tallies.assign(mPlans.size(), {});
        for (std::size_t c = 0; c < mPlans.size(); ++c) {
            if (Status s = ev[2 * c].evaluate(source, t, zoneCells); !s) return s;
            zoneCells.andNot(zoneTaken);  // a cell belongs to the first class that takes it
            zoneTaken |= zoneCells;
            // Most classes have no cell in most tiles, and a random mask costs a hash per cell:
            // without a zone there is nothing to plant, so it is not drawn.
            if (!plantOverrides() && zoneCells.none()) continue;
            if (Status s = ev[2 * c + 1].evaluate(source, t, plantCells); !s) return s;
            if (!plantOverrides()) plantCells &= zoneCells;
            plantCells.andNot(out.all);
            out.all |= plantCells;
            const int n = zoneCells.count();
            out.tallies[c].zoneCells = static_cast<std::size_t>(n);
            out.tallies[c].requestedInstances = mRule.classes[c].density * n;
            plantCells.forEachSetCell([&](int x, int y) {
                out.cells.push_back((static_cast<std::uint32_t>(y * kTileCells + x) << 8) |
                                    static_cast<std::uint32_t>(c));
            });
        }
        std::sort(out.cells.begin(), out.cells.end());
        return Status::success();
    }

    /// A cell's jittered position, in global cells: a pure function of the cell and its class.
    Vec2 positionOf(std::uint64_t h, std::int64_t gx, std::int64_t gy, std::size_t c) const {
        const double j = mRule.classes[c].jitter;
        return Vec2{static_cast<double>(gx) + 0.5 + (unitInterval(draw(h, 0)) - 0.5) * j,
                    static_cast<double>(gy) + 0.5 + (unitInterval(draw(h, 1)) - 0.5) * j};
    }

    /// The class of a candidate cell (y * 256 + x) of a tile.
    static std::size_t classAt(const Candidates& cand, std::uint32_t index) {
        const auto it = std::lower_bound(cand.cells.begin(), cand.cells.end(), index << 8);
        return (it != cand.cells.end() && (*it >> 8) == index) ? static_cast<std::size_t>(*it & 0xff) : std::size_t{0};
    }

    CandidatesAround candidatesAround(const TileId& t) const {
        CandidatesAround around;
        around.ox = std::int64_t{t.x} * kTileCells;
        around.oy = std::int64_t{t.y} * kTileCells;
        if (mReachCells == 0) return around;
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                const TileId n{t.zoom, t.x + static_cast<std::uint32_t>(dx), t.y + static_cast<std::uint32_t>(dy)};
                const auto it = mCandidates.find(n);
                around.at[dy + 1][dx + 1] = it == mCandidates.end() ? nullptr : &it->second;
            }
        }
        return around;
    }

    /// True when no rival candidate closer than the spacing outranks the cell. This code is hot:
    /// every candidate of a spaced pass looks at every candidate within reach, word by word.
    bool keeps(const CandidatesAround& around, std::int64_t gx, std::int64_t gy, Vec2 pos,
               std::uint64_t priority) const {
        const std::int64_t ox = around.ox, oy = around.oy;
        for (std::int64_t ry = gy - mReachCells; ry <= gy + mReachCells; ++ry) {
            if (ry < oy - kTileCells || ry >= oy + 2 * kTileCells) continue;
            const std::int64_t ty = (ry - oy + kTileCells) / kTileCells - 1;  // -1, 0 or 1
            const int row = static_cast<int>(ry - (oy + ty * kTileCells));
            for (std::int64_t x0 = gx - mReachCells; x0 <= gx + mReachCells;) {
                const std::int64_t tx = (x0 - ox + kTileCells) / kTileCells - 1;
                const std::int64_t tileEnd = ox + (tx + 1) * kTileCells;  // exclusive
                const std::int64_t x1 = std::min(gx + mReachCells + 1, tileEnd);
                const Candidates* cand = (tx >= -1 && tx <= 1) ? around.at[ty + 1][tx + 1] : nullptr;
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
                            const std::size_t cc = classAt(*cand, static_cast<std::uint32_t>(row * kTileCells + lx));
                            const std::uint64_t h = cellHash(mPassKey, cx, ry);
                            const Vec2 d = positionOf(h, cx, ry, cc) - pos;
                            if (dot(d, d) >= mSpacingCells * mSpacingCells) continue;
                            const std::uint64_t p = draw(h, 5);
                            if (p > priority || (p == priority && (ry < gy || (ry == gy && cx < gx)))) return false;
                        }
                    }
                }
                x0 = x1;
            }
        }
        return true;
    }

    /// A tile's plants: each candidate cell that keeps its place gets a species, yaw and scale.
    void plantTile(const TileId& t, TileVegetation& out) const {
        const Candidates& own = mCandidates.find(t)->second;
        // The pass keeps every tile's plants for the next bake: reserved at the candidates (each
        // gives one plant at most, and most do) rather than grown by doubling, which held up to
        // twice what they use (a region's plants are a hundred megabytes).
        out.instances.clear();
        out.instances.reserve(own.cells.size());
        out.tallies = own.tallies;
        const CandidatesAround around = candidatesAround(t);
        // A trunk stays within its cell (jitter ≤ 1 cell), so within the tile: its heights.
        const terrain::HeightTile* ground = mCtx.terrain ? mCtx.layers->heights(t) : nullptr;
        for (const std::uint32_t packed : own.cells) {
            const std::uint32_t index = packed >> 8;
            const std::size_t c = packed & 0xff;
            const int x = static_cast<int>(index % kTileCells), y = static_cast<int>(index / kTileCells);
            const std::int64_t gx = around.ox + x, gy = around.oy + y;
            const std::uint64_t h = cellHash(mPassKey, gx, gy);
            const Vec2 pos = positionOf(h, gx, gy, c);
            if (mReachCells > 0 && !keeps(around, gx, gy, pos, draw(h, 5))) continue;
            const VegetationClassRule& cr = mRule.classes[c];
            const int pick = pickWeighted(mPlans[c].weights, draw(h, 4));
            if (pick < 0) continue;
            PlantedInstance p;
            p.asset = mPlans[c].species[static_cast<std::size_t>(pick)];
            p.rule = static_cast<std::uint8_t>(c);
            p.cellX = static_cast<std::uint8_t>(x);
            p.cellY = static_cast<std::uint8_t>(y);
            const float scale =
                static_cast<float>(cr.minScale + unitInterval(draw(h, 3)) * (cr.maxScale - cr.minScale));
            p.position = groundToScene(mCtx.frame.cellToGround(pos), standHeight(ground, t, pos));
            p.yaw = static_cast<float>(unitInterval(draw(h, 2)) * 2.0 * std::numbers::pi);
            p.scale = scale;
            out.instances.push_back(p);
            ++out.tallies[c].instances;
        }
    }

    /// The scene y a plant at `pos` (global cells) stands at: 0 on the flat world; on terrain the
    /// height at its trunk less the origin's (0 where no DEM reaches).
    double standHeight(const terrain::HeightTile* ground, const TileId& t, Vec2 pos) const {
        if (!ground || ground->heights.size() != terrain::kHeightSampleCount) return 0.0;
        const float h =
            terrain::heightAt(*ground, {pos.x - double(t.x) * kTileCells, pos.y - double(t.y) * kTileCells});
        return h == h ? static_cast<double>(h) - mCtx.originHeight : 0.0;
    }

    const PassRule& mPass;
    const VegetationPassRule& mRule;
    PassContext& mCtx;
    std::uint64_t mPassKey;
    std::vector<ClassPlan> mPlans;  ///< per class of the rule
    double mSpacingCells = 0.0;     ///< the minimum spacing, cells
    int mReachCells = 0;            ///< how far a cell looks for rivals, cells (0: no spacing)
    std::unordered_map<TileId, Candidates> mCandidates;
};

}  // namespace

std::size_t heldBytes(const TileVegetation& r) {
    using detail::bufferBytes;
    return sizeof(TileVegetation) + bufferBytes(r.instances) + bufferBytes(r.tallies);
}

const TileVegetation* VegetationPass::tile(const TileId& id) const { return detail::cachedTile(mCache, id); }

std::optional<TileVegetation> VegetationPass::take(const TileId& id) { return detail::takeTile(mCache, id); }

void VegetationPass::keepOnly(const std::unordered_set<TileId>& keep) { detail::keepTiles(mCache, keep); }

std::vector<std::pair<TileId, std::size_t>> VegetationPass::cachedBytes() const {
    return detail::cachedBytesOf(mCache);
}

Status VegetationPass::run(const PassRule& pass, PassContext& ctx, PassReport& report) {
    return detail::runPass<VegetationRun>(pass, ctx, mCache, "planting", report);
}

}  // namespace terrabit::core::placement
