#include "terrabit/core/placement/building_pass.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>

#include "ground_p.h"
#include "pass_frame_p.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/placement/model_matcher.h"
#include "terrabit/core/placement/occupancy_map.h"
#include "terrabit/core/placement/placement_hash.h"
#include "terrabit/core/placement/target_box.h"

namespace terrabit::core::placement {

namespace {

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

/// The models a footprint may take: those of the first filter whose tag conditions it meets,
/// or else every model of the pass's category (catalogue indices).
class ModelChoice {
public:
    ModelChoice(const BuildingPassRule& rule, const AssetCatalogue& catalogue) : mRule(rule) {
        const auto assets = catalogue.assets();
        const auto indexOf = [&](const AssetInfo* a) { return static_cast<int>(a - assets.data()); };
        for (const AssetInfo* a : catalogue.ofCategory(rule.category)) mAny.push_back(indexOf(a));
        for (const ModelFilterRule& f : rule.filters) {
            AssetFilter filter = f.models;
            filter.category = rule.category;
            std::vector<int> allowed;
            for (const AssetInfo* a : catalogue.select(filter)) allowed.push_back(indexOf(a));
            mFiltered.push_back(std::move(allowed));
        }
    }

    std::span<const int> allowedFor(const Feature& f) const {
        for (std::size_t i = 0; i < mRule.filters.size(); ++i) {
            const auto& when = mRule.filters[i].when;
            if (std::all_of(when.begin(), when.end(), [&](const TagCondition& c) { return c.holds(f); })) {
                return mFiltered[i];
            }
        }
        return mAny;
    }

private:
    const BuildingPassRule& mRule;
    std::vector<int> mAny;
    std::vector<std::vector<int>> mFiltered;  ///< per filter of the rule
};

/// What blocks buildings over the reachable tiles, and each tile's hash of it (for the keys).
struct Blocking {
    OccupancyMap mask;
    std::unordered_map<TileId, std::uint64_t> hashes;
};

/// Plan: evaluates the rule's blocked_by over every reachable tile ("none" blocks nothing).
Status evaluateBlocking(const PassRule& pass, const PassContext& ctx, std::span<const TileId> reach, Blocking& out) {
    const BuildingPassRule& rule = pass.buildings;
    out.mask = OccupancyMap(reach);
    for (const TileId& t : reach) out.hashes.emplace(t, 0);
    if (rule.blockedBy == "none" || rule.blockedBy.empty()) return Status::success();
    auto program = ctx.compile(pass, "blocked_by", rule.blockedBy);
    if (!program) return program.error();
    std::vector<algebra::LayerEvaluator> evaluators;
    for (int w = 0; w < ctx.threads; ++w) evaluators.emplace_back(*program);
    const Status s = detail::parallelTry(reach.size(), ctx.threads, [&](std::size_t i, int worker) {
        BitTile* bits = out.mask.tile(reach[i]);
        const Status st = evaluators[static_cast<std::size_t>(worker)].evaluate(*ctx.layers, reach[i], *bits);
        out.hashes.find(reach[i])->second = bits->any() ? bits->hash() : 0;
        return st;
    });
    if (!s) return Error{"pass '" + pass.name + "' blocked_by: " + s.message()};
    return s;
}

/// Plan: the area entries of the rule's layer (or its classes) that reach a baked tile, each
/// once, ascending.
std::vector<std::uint32_t> footprintEntries(const BuildingPassRule& rule, const PassContext& ctx) {
    const TileIndex& index = *ctx.index;
    const ClassifiedMap& map = index.map();
    int layerId = -1;
    for (std::size_t i = 0; i < map.layers.size(); ++i) {
        if (map.layers[i].name == rule.layer) layerId = static_cast<int>(i);
    }
    const auto inLayer = [&](std::uint16_t l) {
        return layerId >= 0 && (l == layerId || (l < map.layers.size() && map.layers[l].parent == layerId));
    };
    std::vector<std::uint32_t> entries;
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
    return entries;
}

/// Plan: each footprint's target box in ground metres and its hashes, in parallel.
std::vector<Target> makeTargets(const BuildingPassRule& rule, const PassContext& ctx,
                                std::span<const std::uint32_t> entries, std::vector<Scratch>& scratch) {
    const TileIndex& index = *ctx.index;
    std::vector<Target> targets(entries.size());
    detail::parallelFor(entries.size(), ctx.threads, [&](std::size_t i, int worker) {
        Scratch& s = scratch[static_cast<std::size_t>(worker)];
        const std::span<const Vec2> cells = index.cells(entries[i]);
        s.ground.clear();
        for (const Vec2 c : cells) s.ground.push_back(ctx.frame.cellToGround(c));
        Target& t = targets[i];
        t.feature = index.map().entries[entries[i]].feature;
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
    return targets;
}

/// Plan: the targets each baked tile owns (the tile holding the box's centre), in the order
/// they are tried.
std::unordered_map<TileId, std::vector<std::uint32_t>> ownedTargets(const PassContext& ctx,
                                                                    std::span<const Target> targets) {
    std::unordered_map<TileId, std::vector<std::uint32_t>> owned;
    for (const TileId& t : ctx.order) owned.emplace(t, std::vector<std::uint32_t>{});
    for (std::uint32_t i = 0; i < targets.size(); ++i) {
        const Vec2 c = ctx.frame.groundToCell(targets[i].box.centre);
        if (!isFinite(c)) continue;
        const TileId owner{ctx.frame.zoom, static_cast<std::uint32_t>(std::floor(c.x / kTileCells)),
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
    return owned;
}

/// One run of the pass: its plan, and the kernel that places one tile's buildings.
class BuildingRun {
public:
    BuildingRun(const PassRule& pass, PassContext& ctx)
        : mPass(pass),
          mRule(pass.buildings),
          mCtx(ctx),
          mAssets(ctx.catalogue->assets()),
          mModels(mRule, *ctx.catalogue),
          mMatcher(*ctx.catalogue, mRule.fit),
          mPassKey(ctx.passKey(pass)),
          mRuleKey(detail::ruleKeyOf(ctx, pass)),
          mScratch(static_cast<std::size_t>(ctx.threads)) {}

    /// Plan: what blocks, the footprints and their owners; then the placed layer starts clear.
    /// The keys are made phase by phase in the kernel: a tile's key holds the keys of the
    /// earlier-phase tiles around it.
    Status plan(detail::PassFrame<TileBuildings>&) {
        const std::vector<TileId> reach = detail::tilesAround(mCtx.order);
        if (Status s = evaluateBlocking(mPass, mCtx, reach, mBlocking); !s) return s;
        mTargets = makeTargets(mRule, mCtx, footprintEntries(mRule, mCtx), mScratch);
        mOwned = ownedTargets(mCtx, mTargets);
        for (std::size_t i = 0; i < mCtx.order.size(); ++i) mOrderIndex.emplace(mCtx.order[i], i);
        mOccupancy = &mCtx.layers->placedBuildings();
        *mOccupancy = OccupancyMap(reach);
        return Status::success();
    }

    /// Kernel, phase by phase (see building_pass.h): tiles of one phase write regions that never
    /// meet, so they run in parallel; a reused tile still marks its buildings for later phases.
    Status kernel(detail::PassFrame<TileBuildings>& frame) {
        std::vector<std::size_t> byPhase[9];
        for (std::size_t i = 0; i < frame.tileCount(); ++i) byPhase[phaseOf(frame.tile(i))].push_back(i);
        for (int phase = 0; phase < 9; ++phase) {
            if (Status s = frame.progress(phase / 9.0); !s) return s;
            // Keys first (they read earlier phases' keys only), then the tiles in parallel.
            for (const std::size_t i : byPhase[phase]) frame.setKey(i, keyOf(frame, frame.tile(i)));
            const Status s = frame.runTiles(
                byPhase[phase], "",
                [&](std::size_t i, int worker) {
                    placeTile(frame.tile(i), frame.result(i), scratch(worker));
                    return Status::success();
                },
                [&](std::size_t i, int worker) { remark(frame.tile(i), frame.result(i), scratch(worker)); });
            if (!s) return s;
        }
        return Status::success();
    }

    /// Commit: nothing left; the kernel marked the placed buildings as it went, since later
    /// phases must see them.
    void commit(detail::PassFrame<TileBuildings>&) {}

private:
    Scratch& scratch(int worker) { return mScratch[static_cast<std::size_t>(worker)]; }

    /// The rule, the footprints the tile owns, what blocks around it, and the keys of the
    /// earlier-phase tiles within two tiles (they wrote into this tile's region before it ran).
    std::uint64_t keyOf(const detail::PassFrame<TileBuildings>& frame, const TileId& t) const {
        std::uint64_t k = detail::tileKey(mRuleKey, t);
        for (const std::uint32_t i : mOwned.find(t)->second) k = hashCombine(k, mTargets[i].hash);
        for (const TileId& n : neighbourhoodOf(t)) {
            const auto b = mBlocking.hashes.find(n);
            k = hashCombine(k, b == mBlocking.hashes.end() ? 0 : b->second);
        }
        // On terrain a footprint's base and slope come from the heights it covers (up to the
        // neighbours).
        if (mCtx.terrain) k = hashCombine(k, mCtx.hashes->heightNeighbourhood(t));
        for (int dy = -2; dy <= 2; ++dy) {
            for (int dx = -2; dx <= 2; ++dx) {
                const auto n = t.neighbour(dx, dy);
                if (!n || phaseOf(*n) >= phaseOf(t)) continue;
                const auto it = mOrderIndex.find(*n);
                if (it != mOrderIndex.end()) k = hashCombine(k, frame.key(it->second));
            }
        }
        return k;
    }

    void placeTile(const TileId& t, TileBuildings& out, Scratch& s) {
        out.buildings.clear();
        out.warnings.clear();
        const CellRegion region = CellRegion::around(t);
        detail::GroundSampler ground(*mCtx.layers, t.zoom);
        for (const std::uint32_t i : mOwned.find(t)->second) {
            out.buildings.push_back(placeBuilding(mTargets[i], t, region, s, ground, out.warnings));
        }
    }

    /// The lowest and highest height at every corner of every cell of the spans, metres; both
    /// NaN when none of them has a height. Corners without a height are left out.
    static std::pair<float, float> groundRange(std::span<const CellSpan> spans, detail::GroundSampler& ground) {
        float lo = std::numeric_limits<float>::infinity(), hi = -std::numeric_limits<float>::infinity();
        // Each row of corners once: a span's top corners with those of the span above it (the
        // shape is convex, so the two ranges meet), its bottom corners with the span below.
        for (std::size_t i = 0; i < spans.size(); ++i) {
            const CellSpan& s = spans[i];
            std::int64_t x0 = s.x0, x1 = s.x1;
            if (i > 0 && spans[i - 1].y == s.y - 1) {
                x0 = std::min(x0, spans[i - 1].x0);
                x1 = std::max(x1, spans[i - 1].x1);
            }
            ground.rowRange(s.y, x0, x1, lo, hi);
            if (i + 1 == spans.size() || spans[i + 1].y != s.y + 1) ground.rowRange(s.y + 1, s.x0, s.x1, lo, hi);
        }
        if (lo > hi) return {terrain::kNoHeight, terrain::kNoHeight};
        return {lo, hi};
    }

    /// Tries the footprint's fits, tightest first, until one is clear of what is placed and
    /// what blocks.
    PlacedBuilding placeBuilding(const Target& target, const TileId& t, const CellRegion& region, Scratch& s,
                                 detail::GroundSampler& ground, std::vector<std::string>& warnings) {
        const Feature& f = *target.feature;
        PlacedBuilding b;
        b.featureId = f.id;
        b.record.tile = t;
        b.record.target = target.box;
        b.record.outcome = BuildingOutcome::NoModelFits;
        const double boxW = 2.0 * target.box.halfExtents.x;
        const double boxD = 2.0 * target.box.halfExtents.y;
        mMatcher.fits(boxW, boxD, mModels.allowedFor(f), s.fits);
        mMatcher.chooseVariety(
            s.fits, boxW * boxD,
            draw(hashCombine(hashCombine(mPassKey, target.idHash), (std::uint64_t{t.x} << 32) | t.y), 0));
        bool inReach = false;
        bool tooSteep = false;  // a fit was clear, but the ground under it too steep
        for (const ModelFit& fit : s.fits) {
            const AssetInfo& a = mAssets[static_cast<std::size_t>(fit.asset)];
            const double mw = fit.turned ? a.footprint.depth : a.footprint.width;
            const double md = fit.turned ? a.footprint.width : a.footprint.depth;
            OrientedBox placed = target.box;
            placed.halfExtents = {0.5 * fit.scale * mw, 0.5 * fit.scale * md};
            const std::array<Vec2, 4> corners = boxCorners(placed);
            std::array<Vec2, 4> cells;
            for (std::size_t c = 0; c < 4; ++c) cells[c] = mCtx.frame.groundToCell(corners[c]);
            if (!footprintSpans(cells, region, s.spans)) continue;
            inReach = true;
            // This code is hot: every fit of every building ends here until one is clear.
            if (!mOccupancy->isClear(s.spans, &mBlocking.mask)) continue;
            // On terrain: the ground under every cell the model covers, and its step.
            std::pair<float, float> range{terrain::kNoHeight, terrain::kNoHeight};
            if (mCtx.terrain) {
                range = groundRange(s.spans, ground);
                if (range.first == range.first && double(range.second) - range.first > mRule.maxGroundStepMetres) {
                    tooSteep = true;
                    continue;
                }
            }
            mOccupancy->mark(s.spans);
            b.footprintCells = cells;
            b.placedBox = placed;
            b.record.outcome = BuildingOutcome::Placed;
            b.record.asset = fit.asset;
            b.record.placement = placement(target, fit, a, f);
            b.record.groundMin = range.first;
            b.record.groundMax = range.second;
            // The base is the lowest ground under it: nothing of it floats (its plinth fills up to
            // groundMax). Where no DEM reaches it stands at the origin's height.
            if (range.first == range.first) {
                b.record.placement.position.y = static_cast<float>(double(range.first) - mCtx.originHeight);
            }
            return b;
        }
        if (tooSteep) {
            b.record.outcome = BuildingOutcome::BlockedBySlope;
        } else if (inReach) {
            b.record.outcome = BuildingOutcome::Blocked;
        } else if (!s.fits.empty()) {
            warnings.push_back("building " + f.id + ": its " + metres(boxW) + " m × " + metres(boxD) +
                               " m footprint reaches beyond the tiles next to " + t.quadkey() +
                               ", where it belongs; no model was placed");
        }
        return b;
    }

    /// The model's instance for a fit: on the box's centre, turned with it, its height from the
    /// tags when the rule says so.
    Instance placement(const Target& target, const ModelFit& fit, const AssetInfo& a, const Feature& f) const {
        Instance in;
        in.position = groundToScene(target.box.centre, 0.0);
        in.yaw = static_cast<float>(target.box.angle + (fit.turned ? std::numbers::pi / 2 : 0.0));
        double heightScale = fit.scale;
        if (mRule.height == HeightSource::Tags && a.height > 0.0) {
            const double h = taggedHeight(f, mRule.storeyHeightMetres);
            if (std::isfinite(h)) heightScale = h / a.height;
        }
        in.scale = {static_cast<float>(fit.scale), static_cast<float>(heightScale), static_cast<float>(fit.scale)};
        return in;
    }

    /// A reused tile's buildings go back into the occupancy, for the phases after it.
    void remark(const TileId& t, const TileBuildings& cached, Scratch& s) {
        const CellRegion region = CellRegion::around(t);
        for (const PlacedBuilding& b : cached.buildings) {
            if (b.record.outcome != BuildingOutcome::Placed) continue;
            if (footprintSpans(b.footprintCells, region, s.spans)) mOccupancy->mark(s.spans);
        }
    }

    const PassRule& mPass;
    const BuildingPassRule& mRule;
    PassContext& mCtx;
    std::span<const AssetInfo> mAssets;
    ModelChoice mModels;
    ModelMatcher mMatcher;
    std::uint64_t mPassKey;
    std::uint64_t mRuleKey;
    std::vector<Scratch> mScratch;  ///< per worker
    Blocking mBlocking;
    std::vector<Target> mTargets;
    std::unordered_map<TileId, std::vector<std::uint32_t>> mOwned;  ///< per baked tile: its targets, in order
    std::unordered_map<TileId, std::size_t> mOrderIndex;            ///< a baked tile's place in ctx.order
    OccupancyMap* mOccupancy = nullptr;                             ///< the placed_buildings layer
};

}  // namespace

const TileBuildings* BuildingPass::tile(const TileId& id) const { return detail::cachedTile(mCache, id); }

Status BuildingPass::run(const PassRule& pass, PassContext& ctx, PassReport& report) {
    return detail::runPass<BuildingRun>(pass, ctx, mCache, "placing buildings", report);
}

}  // namespace terrabit::core::placement
