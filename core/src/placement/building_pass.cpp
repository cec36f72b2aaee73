#include "terrabit/core/placement/building_pass.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "footprint_window_p.h"
#include "generated_shape_p.h"
#include "ground_p.h"
#include "model_cells_p.h"
#include "pass_frame_p.h"
#include "pose_search_p.h"
#include "pose_set_p.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/placement/model_matcher.h"
#include "terrabit/core/placement/occupancy_map.h"
#include "terrabit/core/placement/placement_hash.h"
#include "terrabit/core/placement/target_box.h"
#include "terrabit/core/scene/generated_building_mesh.h"

namespace terrabit::core::placement {

namespace {

using detail::PoseSearch;

/// One footprint to place: its feature, target box and the hash of everything about it.
struct Target {
    const Feature* feature = nullptr;
    std::uint32_t entry = 0;   ///< the footprint's entry in the TileIndex (its cells and rings)
    OrientedBox box;           ///< ground metres
    std::uint64_t hash = 0;    ///< feature id, geometry and tags
    std::uint64_t idHash = 0;  ///< feature id only (keys the seeded choice)
};

/// The phase of a tile: tiles of one phase are at least 3 apart on some axis.
int phaseOf(const TileId& t) { return static_cast<int>((t.y % 3) * 3 + (t.x % 3)); }

/// The models a footprint may take: those of the first filter whose tag conditions it meets,
/// or else every model of the pass's category (catalogue indices).
class ModelChoice {
public:
    /// One choice of models, as the rule lists them and ordered by ground area (largest first,
    /// stable), which placeMore tries them in.
    struct Models {
        std::vector<int> assets;
        std::vector<int> largestFirst;
        /// placeFirst's last candidates, made once (BuildingRun::naturalFits): per matcher (the
        /// rule's, the shrink fallback's) and footprint shape (Scratch::shapedFootprint).
        std::array<std::array<std::vector<ModelFit>, 2>, 2> natural;
    };

    ModelChoice(const BuildingPassRule& rule, const AssetCatalogue& catalogue) : mRule(rule) {
        const auto assets = catalogue.assets();
        const auto indexOf = [&](const AssetInfo* a) { return static_cast<int>(a - assets.data()); };
        for (const AssetInfo* a : catalogue.ofCategory(rule.category)) mAny.assets.push_back(indexOf(a));
        for (const ModelFilterRule& f : rule.filters) {
            AssetFilter filter = f.models;
            filter.category = rule.category;
            Models allowed;
            for (const AssetInfo* a : catalogue.select(filter)) allowed.assets.push_back(indexOf(a));
            mFiltered.push_back(std::move(allowed));
        }
    }

    /// Orders every choice by `area` per catalogue asset, largest first (stable).
    void orderBy(std::span<const double> area) {
        for (Models* m : allModels()) {
            m->largestFirst = m->assets;
            std::stable_sort(m->largestFirst.begin(), m->largestFirst.end(), [&](int x, int y) {
                return area[static_cast<std::size_t>(x)] > area[static_cast<std::size_t>(y)];
            });
        }
    }

    const Models& allowedFor(const Feature& f) const {
        for (std::size_t i = 0; i < mRule.filters.size(); ++i) {
            const auto& when = mRule.filters[i].when;
            if (std::all_of(when.begin(), when.end(), [&](const TagCondition& c) { return c.holds(f); })) {
                return mFiltered[i];
            }
        }
        return mAny;
    }

    std::vector<Models*> allModels() {
        std::vector<Models*> all{&mAny};
        for (Models& m : mFiltered) all.push_back(&m);
        return all;
    }

private:
    const BuildingPassRule& mRule;
    Models mAny;
    std::vector<Models> mFiltered;  ///< per filter of the rule
};

/// Per-worker scratch: the footprint's pose search state (its window, box in cells, budgets and
/// own models' rectangles), and what the pass keeps beside it. After the first buildings nothing
/// here allocates.
struct Scratch : detail::FootprintSearch {
    std::vector<ModelFit> fits;
    std::vector<ModelFit> candidates;
    std::vector<Vec2> ground;
    std::vector<Vec2> hull;
    Rasterizer rasterizer;
    /// Model sizes (ground metres along the box's width and depth) for which every pose of the
    /// current footprint was looked at and refused, since its cells were last freed.
    std::vector<Vec2> refusedSizes;
    /// Outline models (an L) refused at every pose of the current footprint, as tried.
    std::vector<ModelFit> refusedShapes;
    /// The current footprint fills its target box so little that models with an outline (an L, a
    /// U, a courtyard block) are worth trying; in a nearly rectangular one a box fills more.
    bool shapedFootprint = false;
    /// The current footprint's models (ModelChoice::allowedFor).
    const ModelChoice::Models* models = nullptr;
    double cellsPerSquareMetre = 0.0;  ///< |cellU × cellV|
    double cellsPerMetreL1 = 0.0;      ///< the larger of cellU's and cellV's L1 norms
    /// Per candidate: the most cells any candidate from it on can take (EarlyFallback's bound).
    std::vector<double> cellsFrom;
    std::vector<OrientedBox> rects;  ///< takePose's: a further prefab's rectangles
};

/// A footprint's generated building, made while its prefabs are still being searched for, once
/// they can no longer cover min_fill of it (BuildingRun::giveUp).
struct EarlyFallback {
    enum class State { NotMade, Made, Impossible } state = State::NotMade;
    PlacedBuilding building;  ///< when Made: the footprint's outcome
};

std::string metres(double v) {
    std::ostringstream s;
    s.precision(0);
    s << std::fixed << v;
    return s.str();
}

/// What blocks buildings over the reachable tiles, and each tile's hash of it (for the keys).
struct Blocking {
    OccupancyMap mask;
    std::unordered_map<TileId, std::uint64_t> hashes;
    std::vector<int> layers;  ///< the layers its expression reads (ids into the context's), ascending
};

/// Plan: evaluates one of the rule's masks (blocked_by, keep_off) over every reachable tile
/// ("none" or empty: nothing).
Status evaluateMask(const PassRule& pass, const PassContext& ctx, std::span<const TileId> reach, std::string_view key,
                    const std::string& expression, Blocking& out) {
    out.mask = OccupancyMap(reach);
    out.layers.clear();
    for (const TileId& t : reach) out.hashes.emplace(t, 0);
    if (expression == "none" || expression.empty()) return Status::success();
    auto program = ctx.compile(pass, key, expression);
    if (!program) return program.error();
    out.layers.assign(program->layersRead().begin(), program->layersRead().end());
    std::vector<algebra::LayerEvaluator> evaluators;
    for (int w = 0; w < ctx.threads; ++w) evaluators.emplace_back(*program);
    // Evaluated into a worker's tile and kept only where something is set: most tiles of a
    // large map have no water (blocked_by) and many no road (keep_off).
    std::vector<BitTile> scratch(static_cast<std::size_t>(ctx.threads));
    const Status s = detail::parallelTry(reach.size(), ctx.threads, [&](std::size_t i, int worker) {
        BitTile& bits = scratch[static_cast<std::size_t>(worker)];
        const Status st = evaluators[static_cast<std::size_t>(worker)].evaluate(*ctx.layers, reach[i], bits);
        if (!st) return st;
        const bool any = bits.any();
        if (any) *out.mask.tile(reach[i]) = bits;
        out.hashes.find(reach[i])->second = any ? bits.hash() : 0;
        return Status::success();
    });
    if (!s) return Error{"pass '" + pass.name + "' " + std::string(key) + ": " + s.message()};
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
        t.entry = entries[i];
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

/// The shrink fallback's fit options: the rule's, with scales from kShrinkFloor up to the
/// range's minimum.
FitOptions shrinkOptions(FitOptions o) {
    constexpr double kShrinkFloor = 0.1;
    o.maxScale = o.minScale;
    o.minScale = std::min(kShrinkFloor, o.minScale);
    return o;
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
          mShrinkMatcher(*ctx.catalogue, shrinkOptions(mRule.fit)),
          mPassKey(ctx.passKey(pass)),
          mRuleKey(detail::ruleKeyOf(ctx, pass)),
          mCellMetres(ctx.frame.metresPerCell()),
          mScratch(static_cast<std::size_t>(ctx.threads)) {
        // Each model's ground area at scale 1: its outline's (its box's for a box model); and
        // its rectangles' half perimeters and count (mostCells).
        for (const AssetInfo& a : mAssets) {
            double area = a.footprint.width * a.footprint.depth;
            double halfPerimeter = a.footprint.width + a.footprint.depth;
            if (!a.outline.empty()) {
                area = 0.0;
                halfPerimeter = 0.0;
                for (const OutlineRect& r : a.outline) {
                    area += (r.x1 - r.x0) * (r.z1 - r.z0);
                    halfPerimeter += (r.x1 - r.x0) + (r.z1 - r.z0);
                }
            }
            mGroundAreas.push_back(area);
            mHalfPerimeters.push_back(halfPerimeter);
            mRectCounts.push_back(a.outline.empty() ? 1.0 : static_cast<double>(a.outline.size()));
        }
        // placeMore's order: its candidates are every allowed model at scale one.
        const double one = std::clamp(1.0, mRule.fit.minScale, mRule.fit.maxScale);
        std::vector<double> atOne;
        for (const double area : mGroundAreas) atOne.push_back(area * one * one);
        mModels.orderBy(atOne);
        for (ModelChoice::Models* m : mModels.allModels()) {
            for (const bool shaped : {false, true}) {
                naturalFits(m->assets, mMatcher.options(), shaped, m->natural[0][shaped]);
                naturalFits(m->assets, mShrinkMatcher.options(), shaped, m->natural[1][shaped]);
            }
        }
    }

    /// Plan: what blocks, the footprints and their owners; then the placed layer starts clear.
    /// The keys are made phase by phase in the kernel: a tile's key holds the keys of the
    /// earlier-phase tiles around it.
    Status plan(detail::PassFrame<TileBuildings>&) {
        const std::vector<TileId> reach = detail::tilesAround(mCtx.order);
        if (Status s = evaluateMask(mPass, mCtx, reach, "blocked_by", mRule.blockedBy, mBlocking); !s) return s;
        if (Status s = evaluateMask(mPass, mCtx, reach, "keep_off", mRule.keepOff, mKeepOff); !s) return s;
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
        mFrame = &frame;
        std::vector<std::size_t> byPhase[9];
        for (std::size_t i = 0; i < frame.tileCount(); ++i) byPhase[phaseOf(frame.tile(i))].push_back(i);
        // A phase waits for its slowest tile: the tiles with the most footprints start first, so
        // that the others fill in beside them (a phase's tiles never meet: any order, same result).
        for (std::vector<std::size_t>& phase : byPhase) {
            std::stable_sort(phase.begin(), phase.end(), [&](std::size_t a, std::size_t b) {
                return mOwned.find(frame.tile(a))->second.size() > mOwned.find(frame.tile(b))->second.size();
            });
        }
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
            for (const Blocking* mask : {&mBlocking, &mKeepOff}) {
                const auto b = mask->hashes.find(n);
                k = hashCombine(k, b == mask->hashes.end() ? 0 : b->second);
            }
        }
        // Which of blocked_by's layers a blocked footprint names.
        k = hashCombine(k, mCtx.hashes->neighbourhood(t, mBlocking.layers));
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
            out.buildings.push_back(placeBuilding(mTargets[i], t, region, s, ground, out));
        }
    }

    /// The heights findPose measures a pose's ground step on: none without terrain.
    detail::GroundSampler* heights(detail::GroundSampler& ground) const { return mCtx.terrain ? &ground : nullptr; }

    /// The rule's limits for findPose.
    detail::PoseLimits poseLimits() const {
        return {mRule.fit.marginMetres, mRule.tolerance, mRule.maxGroundStepMetres, mCellMetres};
    }

    /// findPose for a model of `w` × `d`, unless a model no larger along either side was refused
    /// everywhere in this footprint: its cells only get taken, and a larger model's cells cover a
    /// smaller one's at the same pose, so it would be refused too (up to the boundary tolerance
    /// and the pose grid, which differ a little with the size). Saves looking at every pose again
    /// for each further model of a footprint that nothing more fits.
    /// Box models only: an outline model (an L) may stand where a smaller box does not.
    PoseSearch findNewPose(const OrientedBox& box, const ModelFit& fit, Scratch& s, const CellRegion& region,
                           detail::GroundSampler& ground) const {
        const auto [w, d] = fitSize(fit);
        const AssetInfo& a = mAssets[static_cast<std::size_t>(fit.asset)];
        detail::scaleOutline(a.outline, fit.scale, fit.depthScale, s.outline);
        if (!s.outline.empty()) {
            // The same model in the same turn and size: its cells are the same, the free ones fewer.
            for (const ModelFit& r : s.refusedShapes) {
                if (r.asset == fit.asset && r.turned == fit.turned && r.reversed == fit.reversed &&
                    r.scale == fit.scale && r.depthScale == fit.depthScale) {
                    return PoseSearch{};
                }
            }
            PoseSearch found =
                detail::findPose(poseLimits(), box, w, d, fit.turned, fit.reversed, s, region, heights(ground));
            if (!found.found && !found.cutShort) s.refusedShapes.push_back(fit);
            return found;
        }
        for (const Vec2 r : s.refusedSizes) {
            if (r.x <= w && r.y <= d) return PoseSearch{};
        }
        PoseSearch found = detail::findPose(poseLimits(), box, w, d, fit.turned, false, s, region, heights(ground));
        if (!found.found && !found.cutShort) s.refusedSizes.push_back({w, d});
        return found;
    }

    /// A found pose becomes the footprint's: its cells taken (in the window and the building's
    /// list) and its model's instance in the record.
    void takePose(const PoseSearch& found, const ModelFit& fit, const Target& target, Scratch& s, PlacedBuilding& b) {
        s.window.take(s.spans);
        rememberOwnRects(found, fit, s);
        b.cells.insert(b.cells.end(), s.spans.begin(), s.spans.end());
        const AssetInfo& a = mAssets[static_cast<std::size_t>(fit.asset)];
        Instance in = placement(found.box, fit, a, *target.feature);
        if (found.ground.first == found.ground.first) {
            in.position.y = static_cast<float>(double(found.ground.first) - mCtx.originHeight);
        }
        if (b.record.outcome != BuildingOutcome::Placed) {
            b.record.outcome = BuildingOutcome::Placed;
            b.record.asset = fit.asset;
            b.record.placement = in;
            b.record.groundMin = found.ground.first;
            b.record.groundMax = found.ground.second;
            b.placedBox = found.box;
            b.outlineBoxes.clear();
            outlineRects(found.box, fit, a, in, b.outlineBoxes);
        } else {
            b.record.parts.push_back({fit.asset, in});
            if (found.ground.first == found.ground.first) {
                s.rects.clear();
                outlineRects(found.box, fit, a, in, s.rects);
                if (s.rects.empty()) s.rects.push_back(found.box);
                for (const OrientedBox& r : s.rects) {
                    b.partGrounds.push_back({r, found.ground.first, found.ground.second});
                }
            }
        }
    }

    /// Adds a taken pose's rectangles to s.ownRects: its box, or its outline's rectangles (s.outline,
    /// scaled, as findPose rasterized them: the model's +X along u and +Z along -v, or turned +X
    /// along v and +Z along u; reversed, both the other way).
    static void rememberOwnRects(const PoseSearch& found, const ModelFit& fit, Scratch& s) {
        if (s.outline.empty()) {
            s.ownRects.push_back({found.offU, found.offV, found.box.halfExtents.x, found.box.halfExtents.y});
            return;
        }
        const double sign = fit.reversed ? -1.0 : 1.0;
        for (const OutlineRect& r : s.outline) {
            const double u0 = fit.turned ? r.z0 : r.x0, u1 = fit.turned ? r.z1 : r.x1;
            const double v0 = fit.turned ? r.x0 : -r.z1, v1 = fit.turned ? r.x1 : -r.z0;
            s.ownRects.push_back({found.offU + sign * 0.5 * (u0 + u1), found.offV + sign * 0.5 * (v0 + v1),
                                  0.5 * (u1 - u0), 0.5 * (v1 - v0)});
        }
    }

    /// The rectangles of a placed model's ground outline (none for a box model), ground metres:
    /// the model's +X runs along its yaw, its +Z (south in model space) a quarter turn clockwise
    /// of it.
    static void outlineRects(const OrientedBox& pose, const ModelFit& fit, const AssetInfo& a, const Instance& in,
                             std::vector<OrientedBox>& out) {
        const Vec2 x{std::cos(double(in.yaw)), std::sin(double(in.yaw))}, z{x.y, -x.x};
        for (const OutlineRect& r : a.outline) {
            OrientedBox rect;
            rect.centre =
                pose.centre + x * (0.5 * (r.x0 + r.x1) * fit.scale) + z * (0.5 * (r.z0 + r.z1) * fit.depthScale);
            rect.halfExtents = {0.5 * (r.x1 - r.x0) * fit.scale, 0.5 * (r.z1 - r.z0) * fit.depthScale};
            rect.angle = double(in.yaw);
            out.push_back(rect);
        }
    }

    /// placeFirst's candidates after the matcher's fits: every model of `assets` at its natural
    /// size and at the range's minimum (`options`), each turned and in its half turns, largest
    /// first (stable): in an irregular footprint (a ring, a U) the box says little about where a
    /// model fits. The same for every footprint of a shape, so made once.
    void naturalFits(std::span<const int> assets, const FitOptions& options, bool shapedFootprint,
                     std::vector<ModelFit>& out) const {
        const double one = std::clamp(1.0, options.minScale, options.maxScale);
        for (const int asset : assets) {
            for (const bool turned : {false, true}) {
                for (const bool reversed : turnsOf(asset, shapedFootprint)) {
                    out.push_back({asset, turned, one, one, 0.0, reversed});
                    if (options.minScale < one) {
                        out.push_back({asset, turned, options.minScale, options.minScale, 0.0, reversed});
                    }
                }
            }
        }
        std::stable_sort(out.begin(), out.end(),
                         [&](const ModelFit& x, const ModelFit& y) { return groundArea(x) > groundArea(y); });
    }

    /// The half turns a model is tried in: a box model's footprint is the same either way; one
    /// with an outline (an L, a U) is tried in both, so with `turned` its wings may face any side.
    /// None for an outline model in a nearly rectangular footprint (Scratch::shapedFootprint).
    std::span<const bool> turnsOf(int asset, bool shapedFootprint) const {
        static constexpr bool kBoth[] = {false, true};
        if (mAssets[static_cast<std::size_t>(asset)].outline.empty()) return {kBoth, 1u};
        return {kBoth, shapedFootprint ? 2u : 0u};
    }

    /// The ground a fit stands on, square metres: its outline's area (its box's for a box model).
    double groundArea(const ModelFit& f) const {
        return mGroundAreas[static_cast<std::size_t>(f.asset)] * f.scale * f.depthScale;
    }

    /// The ground size of a fit along the box's width and depth, metres.
    std::pair<double, double> fitSize(const ModelFit& fit) const {
        const AssetInfo& a = mAssets[static_cast<std::size_t>(fit.asset)];
        const double mw = fit.turned ? a.footprint.depth * fit.depthScale : a.footprint.width * fit.scale;
        const double md = fit.turned ? a.footprint.width * fit.scale : a.footprint.depth * fit.depthScale;
        return {mw, md};
    }

    /// The most cells a fit's pose can take, at any offset: its box (each outline rectangle) is
    /// the parallelogram P with edges e1, e2 in cells, and a cell is taken when its centre lies in
    /// P grown by half a cell each way (the conservative rule), a convex body of area
    /// |e1 × e2| + |e1|₁ + |e2|₁ + 1 and perimeter 2(|e1| + |e2|) + 4, holding at most area +
    /// perimeter / 2 + 1 lattice points (Bokowski, Hadwiger and Wills). With |e| ≤ |e|₁ ≤ the
    /// larger axis's cells per metre (L1) times e's metres, and a cell for rounding, summed over
    /// the rectangles: ground area in cells + 2 · L1 · half the perimeters + 5 per rectangle.
    double mostCells(const ModelFit& fit, const Scratch& s) const {
        const auto a = static_cast<std::size_t>(fit.asset);
        return groundArea(fit) * s.cellsPerSquareMetre +
               2.0 * s.cellsPerMetreL1 * std::max(fit.scale, fit.depthScale) * mHalfPerimeters[a] +
               5.0 * mRectCounts[a];
    }

    /// s.cellsFrom[k]: the most cells any of s.candidates[k..] can take.
    void boundCellsFrom(Scratch& s) const {
        s.cellsFrom.resize(s.candidates.size());
        double most = 0.0;
        for (std::size_t k = s.candidates.size(); k-- > 0;) {
            most = std::max(most, mostCells(s.candidates[k], s));
            s.cellsFrom[k] = most;
        }
    }

    /// The most cells one of placeMore's models can take in this footprint.
    double mostCellsOfMore(const Scratch& s) const {
        const double one = std::clamp(1.0, mRule.fit.minScale, mRule.fit.maxScale);
        double most = 0.0;
        for (const int asset : s.models->assets) {
            for (const bool turned : {false, true})
                most = std::max(most, mostCells({asset, turned, one, one, 0.0, false}, s));
        }
        return most;
    }

    /// b without its prefabs: what the generate fallback starts from.
    static PlacedBuilding withoutPrefabs(const PlacedBuilding& b) {
        PlacedBuilding g = b;
        g.record.outcome = BuildingOutcome::NoModelFits;
        g.record.asset = -1;
        g.record.placement = Instance{};
        g.record.parts.clear();
        g.cells.clear();
        g.outlineBoxes.clear();
        g.partGrounds.clear();
        return g;
    }

    /// Whether the search for prefabs may stop: with at most `moreCells` more cells (and no more
    /// than are free) the prefabs cannot cover min_fill of the footprint, and its generated
    /// building, which it then falls back to, can be made (here, once, into `early`). Exact: a
    /// search that went on would end below min_fill and fall back to the same building, made
    /// from the footprint's cells free at load(), whatever the prefabs took since.
    bool giveUp(double moreCells, const Target& target, const TileId& t, Scratch& s, detail::GroundSampler& ground,
                const PlacedBuilding& b, EarlyFallback& early) {
        if (mRule.fallback != FallbackKind::Generate || !(mRule.minFill > 0.0)) return false;
        if (early.state == EarlyFallback::State::Impossible) return false;
        const double inside = static_cast<double>(std::max<std::int64_t>(1, s.window.insideCells()));
        const double reach = static_cast<double>(s.window.insideTakenSinceLoad()) +
                             std::min(static_cast<double>(s.window.freeInsideCells()), moreCells);
        if (reach / inside >= mRule.minFill) return false;
        if (early.state == EarlyFallback::State::NotMade) {
            early.building = withoutPrefabs(b);
            early.state = generate(target, t, s, ground, early.building) ? EarlyFallback::State::Made
                                                                         : EarlyFallback::State::Impossible;
        }
        return early.state == EarlyFallback::State::Made;
    }

    /// The first model: the matcher's fits, tightest first (with the seeded variety), each at
    /// full size and then a few steps smaller within the scale range, until one finds a pose.
    PoseSearch placeFirst(const Target& target, const TileId& t, const CellRegion& region, Scratch& s,
                          detail::GroundSampler& ground, const ModelMatcher& matcher, PlacedBuilding& b,
                          EarlyFallback& early) {
        const double boxW = 2.0 * target.box.halfExtents.x;
        const double boxD = 2.0 * target.box.halfExtents.y;
        matcher.fits(boxW, boxD, s.models->assets, s.fits);
        matcher.chooseVariety(
            s.fits, boxW * boxD,
            draw(hashCombine(hashCombine(mPassKey, target.idHash), (std::uint64_t{t.x} << 32) | t.y), 0));
        s.candidates.clear();
        const double minScale = matcher.options().minScale;
        for (int k = 0; k < kShrinkSteps; ++k) {
            const double f = std::pow(kShrinkFactor, k);
            for (const ModelFit& fit : s.fits) {
                if (k > 0 && std::min(fit.scale, fit.depthScale) * f < minScale) continue;
                for (const bool reversed : turnsOf(fit.asset, s.shapedFootprint)) {
                    s.candidates.push_back(
                        {fit.asset, fit.turned, fit.scale * f, fit.depthScale * f, fit.leftover, reversed});
                }
            }
        }
        // Then every model at its natural size and at the range's minimum, largest first.
        const std::vector<ModelFit>& natural = s.models->natural[&matcher == &mMatcher ? 0 : 1][s.shapedFootprint];
        s.candidates.insert(s.candidates.end(), natural.begin(), natural.end());
        boundCellsFrom(s);
        // After the first model, placeMore's: any allowed model at scale one.
        const double moreCells = std::max(0, static_cast<int>(std::floor(mRule.maxModels)) - 1) * mostCellsOfMore(s);
        PoseSearch summary;
        const double cellArea = mCellMetres * mCellMetres;
        const double free = static_cast<double>(s.window.freeInsideCells());
        for (std::size_t k = 0; k < s.candidates.size(); ++k) {
            const ModelFit& fit = s.candidates[k];
            // A model whose area exceeds the free cells by more than the tolerance cannot pass.
            if (groundArea(fit) / cellArea * (1.0 - mRule.tolerance) > free + 1.0) continue;
            if (giveUp(s.cellsFrom[k] + moreCells, target, t, s, ground, b, early)) return summary;
            const PoseSearch found = findNewPose(target.box, fit, s, region, ground);
            summary.inReach = summary.inReach || found.inReach;
            summary.blocked = summary.blocked || found.blocked;
            summary.tooSteep = summary.tooSteep || found.tooSteep;
            if (!found.found) continue;
            takePose(found, fit, target, s, b);
            summary.found = true;
            return summary;
        }
        return summary;
    }

    /// Further models in the footprint's still-free cells (¶120): every allowed model, as it is
    /// and turned 90°, at scale 1 (within the range), largest first,
    /// until max_models stand in it or none finds a pose.
    void placeMore(const Target& target, const TileId& t, const CellRegion& region, Scratch& s,
                   detail::GroundSampler& ground, PlacedBuilding& b, EarlyFallback& early) {
        const int maxModels = static_cast<int>(std::floor(mRule.maxModels));
        if (maxModels < 2) return;
        const FitOptions& o = mRule.fit;
        s.candidates.clear();
        const double one = std::clamp(1.0, o.minScale, o.maxScale);
        // Largest first (stable): the models in that order, each as it is and turned.
        for (const int asset : s.models->largestFirst) {
            for (const bool turned : {false, true}) {
                for (const bool reversed : turnsOf(asset, s.shapedFootprint))
                    s.candidates.push_back({asset, turned, one, one, 0.0, reversed});
            }
        }
        const double cellArea = mCellMetres * mCellMetres;
        boundCellsFrom(s);
        std::size_t next = 0;
        for (int placed = 1; placed < maxModels && next < s.candidates.size();) {
            const double free = static_cast<double>(s.window.freeInsideCells());
            bool found = false;
            // The free cells only shrink, so a model that found no pose never will: go on from it.
            for (; next < s.candidates.size(); ++next) {
                const ModelFit& fit = s.candidates[next];
                if (groundArea(fit) / cellArea * (1.0 - mRule.tolerance) > free) continue;
                if (giveUp((maxModels - placed) * s.cellsFrom[next], target, t, s, ground, b, early)) return;
                const PoseSearch pose = findNewPose(target.box, fit, s, region, ground);
                if (!pose.found) continue;
                takePose(pose, fit, target, s, b);
                found = true;
                ++placed;
                break;
            }
            if (!found) break;
        }
    }

    /// Tries the footprint's prefabs (placeFirst, placeMore), then the rule's fallback.
    PlacedBuilding placeBuilding(const Target& target, const TileId& t, const CellRegion& region, Scratch& s,
                                 detail::GroundSampler& ground, TileBuildings& out) {
        const Feature& f = *target.feature;
        PlacedBuilding b;
        b.featureId = f.id;
        b.record.tile = t;
        b.record.target = target.box;
        b.record.outcome = BuildingOutcome::NoModelFits;
        if (!s.window.load(mCtx.index->cells(target.entry), mCtx.index->partEnds(target.entry), kWindowPadCells, region,
                           *mOccupancy, &mBlocking.mask, &mKeepOff.mask, s.rasterizer)) {
            return b;  // no cell of it lies within reach: nothing can stand there
        }
        s.poseBudget = kPoseBudget;
        s.lookBudget = kLookBudget;
        s.refusedSizes.clear();
        s.refusedShapes.clear();
        s.ownRects.clear();
        s.models = &mModels.allowedFor(f);
        {
            // Ground metres to cells is affine (Mercator is linear in ground metres at the
            // scene's latitude): the box's centre and axes in cells once, then each pose is a
            // few additions.
            const Vec2 u{std::cos(target.box.angle), std::sin(target.box.angle)};
            s.cellCentre = mCtx.frame.groundToCell(target.box.centre);
            s.cellU = mCtx.frame.groundToCell(target.box.centre + u) - s.cellCentre;
            s.cellV = mCtx.frame.groundToCell(target.box.centre + Vec2{-u.y, u.x}) - s.cellCentre;
            s.cellsPerSquareMetre = std::abs(cross(s.cellU, s.cellV));
            s.cellsPerMetreL1 =
                std::max(std::abs(s.cellU.x) + std::abs(s.cellU.y), std::abs(s.cellV.x) + std::abs(s.cellV.y));
        }
        const double cell = mCellMetres;
        s.shapedFootprint = static_cast<double>(s.window.insideCells()) * cell * cell <
                            kShapedFill * 4.0 * target.box.halfExtents.x * target.box.halfExtents.y;
        EarlyFallback early;
        PoseSearch first = placeFirst(target, t, region, s, ground, mMatcher, b, early);
        s.poseBudget = kPoseBudget;
        s.lookBudget = kLookBudget;
        if (first.found && early.state != EarlyFallback::State::Made) placeMore(target, t, region, s, ground, b, early);
        if (early.state == EarlyFallback::State::Made) {
            mOccupancy->mark(early.building.cells);
            return std::move(early.building);
        }
        const double fill = static_cast<double>(s.window.insideTakenSinceLoad()) /
                            static_cast<double>(std::max<std::int64_t>(1, s.window.insideCells()));
        const bool filled = first.found && fill >= mRule.minFill;
        if (filled || (first.found && mRule.fallback != FallbackKind::Generate)) {
            mOccupancy->mark(b.cells);
            return b;
        }
        if (mRule.fallback == FallbackKind::Generate) {
            PlacedBuilding g = withoutPrefabs(b);
            if (generate(target, t, s, ground, g)) {
                mOccupancy->mark(g.cells);
                return g;
            }
            if (first.found) {  // the prefabs fill too little, but nothing can be made there either
                mOccupancy->mark(b.cells);
                return b;
            }
            if (g.record.outcome == BuildingOutcome::Blocked) {
                // Mapped within a generated building: it becomes a part of that one.
                if (const PlacedBuilding* by = nameBlocker(t, out, s, g); by && generatePart(target, t, *by, s, g)) {
                    return g;
                }
            }
            first.blocked = first.blocked || g.record.outcome == BuildingOutcome::Blocked;
            first.tooSteep = first.tooSteep || g.record.outcome == BuildingOutcome::BlockedBySlope;
        } else if (mRule.fallback == FallbackKind::Shrink) {
            s.window.untake();
            s.ownRects.clear();
            s.refusedSizes.clear();
            s.refusedShapes.clear();
            s.poseBudget = kPoseBudget;
            s.lookBudget = kLookBudget;
            const PoseSearch shrunk = placeFirst(target, t, region, s, ground, mShrinkMatcher, b, early);
            if (shrunk.found) {
                mOccupancy->mark(b.cells);
                return b;
            }
        }
        if (first.tooSteep) {
            b.record.outcome = BuildingOutcome::BlockedBySlope;
        } else if (first.blocked) {
            b.record.outcome = BuildingOutcome::Blocked;
            nameBlocker(t, out, s, b);
        } else if (!first.inReach && !s.fits.empty()) {
            const double boxW = 2.0 * target.box.halfExtents.x, boxD = 2.0 * target.box.halfExtents.y;
            out.warnings.push_back("building " + f.id + ": its " + metres(boxW) + " m × " + metres(boxD) +
                                   " m footprint reaches beyond the tiles next to " + t.quadkey() +
                                   ", where it belongs; no model was placed");
        }
        return b;
    }

    /// The blocked_by layer that holds most of a footprint's cells the mask took (`masked` of
    /// them), when it holds at least half of them; kNoLayer otherwise (a mask of "~park" or of
    /// "dilate(water, 2m)" takes cells no layer of it holds).
    std::uint16_t blockingLayer(const detail::FootprintWindow& w, int zoom, std::int64_t masked) const {
        std::uint16_t best = BuildingRecord::kNoLayer;
        std::int64_t most = 0;
        for (const int layer : mBlocking.layers) {
            const std::int64_t n = w.takenInsideCellsIn(*mCtx.layers, layer, zoom);
            if (n > most && layer < BuildingRecord::kNoLayer) {
                most = n;
                best = static_cast<std::uint16_t>(layer);
            }
        }
        return 2 * most >= masked ? best : BuildingRecord::kNoLayer;
    }

    /// Says what blocks a footprint: whatever held most of its cells that were taken before it
    /// was tried; for a building, the one whose cells cover most of the taken ones around it, in
    /// this tile so far or in a tile of an earlier phase (final before this one ran, so the
    /// answer is the same at any thread count).
    /// Returns the building named, nullptr when it is not a building or the pass cannot tell.
    const PlacedBuilding* nameBlocker(const TileId& t, const TileBuildings& sameTile, const Scratch& s,
                                      PlacedBuilding& b) const {
        const detail::FootprintWindow& w = s.window;
        const std::int64_t built = w.insideBuiltAtLoad(), masked = w.insideMaskedAtLoad();
        const std::int64_t unbaked = w.insideTakenAtLoad() - built - masked;
        if (masked > built && masked >= unbaked) {
            b.record.blocker = Blocker::Layers;
            b.record.blockerLayer = blockingLayer(w, t.zoom, masked);
            return nullptr;
        }
        if (unbaked > built) {
            b.record.blocker = Blocker::Unbaked;
            return nullptr;
        }
        b.record.blocker = Blocker::Building;
        // Most of the footprint's own taken cells first; a building beside it (whose cells
        // refused every pose) when none stands inside it.
        const PlacedBuilding* named = nullptr;
        for (const bool insideOnly : {true, false}) {
            std::int64_t best = 0;
            const auto consider = [&](const TileBuildings& tile) {
                for (const PlacedBuilding& other : tile.buildings) {
                    const std::int64_t n = w.loadedCellsOf(other.cells, insideOnly);
                    if (n > best) {
                        best = n;
                        named = &other;
                        b.blockerId = other.featureId;
                    }
                }
            };
            consider(sameTile);
            for (int dy = -2; dy <= 2; ++dy) {
                for (int dx = -2; dx <= 2; ++dx) {
                    const auto n = t.neighbour(dx, dy);
                    if (!n || phaseOf(*n) >= phaseOf(t)) continue;
                    const auto it = mOrderIndex.find(*n);
                    if (it != mOrderIndex.end()) consider(mFrame->result(it->second));
                }
            }
            if (best > 0) return named;
        }
        return nullptr;
    }

    /// The generate fallback: the footprint's free cells, its outer ring as the outline, heights
    /// from the tags. Mapped footprints often overlap their neighbours by a few cells, so it is
    /// blocked only when more than kGenerateBlockedShare of its cells are taken (water, an earlier
    /// building standing there). False, with the outcome saying why (blocked, blocked: slope),
    /// when nothing can be made.
    bool generate(const Target& target, const TileId& t, Scratch& s, detail::GroundSampler& ground, PlacedBuilding& g) {
        const std::int64_t inside = s.window.insideCells();
        if (static_cast<double>(s.window.insideTakenAtLoad()) > kGenerateBlockedShare * static_cast<double>(inside)) {
            g.record.outcome = BuildingOutcome::Blocked;
            return false;
        }
        s.window.freeInsideSpans(g.cells);
        std::pair<float, float> range{terrain::kNoHeight, terrain::kNoHeight};
        if (mCtx.terrain) {
            range = detail::groundRange(g.cells, ground);
            if (range.first == range.first && double(range.second) - range.first > mRule.maxGroundStepMetres) {
                g.record.outcome = BuildingOutcome::BlockedBySlope;
                g.cells.clear();
                return false;
            }
        }
        GeneratedBuilding& out = g.generated;
        out.tile = t;
        out.base = range.first == range.first ? static_cast<float>(double(range.first) - mCtx.originHeight) : 0.0f;
        if (!shape(target, out)) {
            g.cells.clear();
            return false;
        }
        g.record.groundMin = range.first;
        g.record.groundMax = range.second;
        g.record.outcome = BuildingOutcome::Generated;
        g.placedBox = target.box;  // what its plinth covers on terrain
        return true;
    }

    /// A generated building's shape (its base set): the footprint's outer ring as the outline,
    /// the roof and the wall heights from the tags. False when the ring makes no building.
    bool shape(const Target& target, GeneratedBuilding& out) const {
        return detail::shapeGeneratedBuilding(*target.feature, ringsOf(target), mCtx.frame, target.box.halfExtents,
                                              {mRule.storeyHeightMetres, mRule.wallHeightMetres}, out);
    }

    /// The footprint's rings, as the tile index keeps them.
    detail::FootprintRings ringsOf(const Target& target) const {
        return {mCtx.index->cells(target.entry), mCtx.index->partEnds(target.entry)};
    }

    /// A footprint mapped within a generated building (most of its cells are that building's)
    /// becomes a part of it, sharing its cells: when taller it rises from the other's eaves (from
    /// its base where it reaches beyond it), else the other's walls enclose it and it draws
    /// nothing of its own (an empty outline). False when `by` is no such building.
    bool generatePart(const Target& target, const TileId& t, const PlacedBuilding& by, const Scratch& s,
                      PlacedBuilding& g) const {
        if (by.record.outcome != BuildingOutcome::Generated) return false;
        const std::int64_t inside = s.window.insideCells();
        const std::int64_t within = s.window.loadedCellsOf(by.cells, true);
        if (2 * within < inside) return false;
        const GeneratedBuilding& c = by.generated;
        GeneratedBuilding& out = g.generated;
        out.tile = t;
        if (!shape(target, out)) return false;
        const bool enclosed = static_cast<double>(within) >= kPartEnclosedShare * static_cast<double>(inside);
        if (out.wallHeight > c.wallHeight + c.roofHeight + kPartRiseMetres) {
            const float eaves = enclosed ? c.wallHeight : 0.0f;
            out.base = c.base + eaves;
            out.wallHeight -= eaves;
        } else if (enclosed) {
            // The other building holds it whole: its volume is drawn already.
            out.outline.clear();
            out.base = c.base;
            out.wallHeight = c.wallHeight;
            out.roofHeight = c.roofHeight;
        } else {
            return false;  // not taller, and partly outside: its roof would fight the other's
        }
        g.cells.clear();
        g.record.outcome = BuildingOutcome::Generated;
        g.record.blocker = Blocker::None;
        // It stands on its building, not on the ground: no ground range, no plinth of its own.
        g.record.groundMin = g.record.groundMax = terrain::kNoHeight;
        g.partOfId = by.featureId;
        g.blockerId.clear();
        g.placedBox = target.box;
        return true;
    }

    /// A model's instance in a pose: on the pose's centre, turned with it, its height from the
    /// tags when the rule says so (else the mean of its ground scales).
    Instance placement(const OrientedBox& pose, const ModelFit& fit, const AssetInfo& a, const Feature& f) const {
        Instance in;
        in.position = groundToScene(pose.centre, 0.0);
        in.yaw = static_cast<float>(pose.angle + (fit.turned ? std::numbers::pi / 2 : 0.0) +
                                    (fit.reversed ? std::numbers::pi : 0.0));
        double heightScale = std::sqrt(fit.scale * fit.depthScale);
        if (mRule.height == HeightSource::Tags && a.height > 0.0) {
            const double h = detail::taggedHeight(f, mRule.storeyHeightMetres);
            if (std::isfinite(h)) heightScale = h / a.height;
        }
        in.scale = {static_cast<float>(fit.scale), static_cast<float>(heightScale), static_cast<float>(fit.depthScale)};
        return in;
    }

    /// A reused tile's buildings go back into the occupancy, for the phases after it.
    void remark(const TileId&, const TileBuildings& cached, Scratch&) {
        for (const PlacedBuilding& b : cached.buildings) mOccupancy->mark(b.cells);
    }

    /// Poses one footprint may try for its first model, and again for the further ones: enough for
    /// every model at every offset in all but the most irregular footprints, which fall back.
    static constexpr int kPoseBudget = 250;
    static constexpr int kLookBudget = 4000;
    /// Footprints filling less of their target box than this try models with outlines too: the
    /// least rectangular of the shipped ones (the L) fills 65 % of its box, the U 76 %.
    static constexpr double kShapedFill = 0.85;
    /// The share of a footprint's cells that must be taken for its generated building to be blocked.
    static constexpr double kGenerateBlockedShare = 0.5;
    /// A part whose cells lie this much within its building stands on that building's eaves;
    /// one reaching further out stands on the ground (its base) so no side of it floats.
    static constexpr double kPartEnclosedShare = 0.9;
    /// A part rises above the building it was mapped within when its eaves pass that building's
    /// top by more than this (less would be a sliver of wall, or roofs fighting for one plane).
    static constexpr float kPartRiseMetres = 0.5f;
    /// Cells around a footprint's bounds its window holds: the boundary spill a pose may have.
    static constexpr int kWindowPadCells = 4;
    /// The first model is tried at its fits' full size, then smaller by this factor per step.
    static constexpr double kShrinkFactor = 0.9;
    static constexpr int kShrinkSteps = 3;

    const PassRule& mPass;
    const BuildingPassRule& mRule;
    PassContext& mCtx;
    std::span<const AssetInfo> mAssets;
    ModelChoice mModels;
    ModelMatcher mMatcher;
    ModelMatcher mShrinkMatcher;          ///< the shrink fallback's: scales below the rule's range
    std::vector<double> mGroundAreas;     ///< per catalogue asset: its ground area at scale 1, square metres
    std::vector<double> mHalfPerimeters;  ///< per catalogue asset: its rectangles' half perimeters at scale 1, metres
    std::vector<double> mRectCounts;      ///< per catalogue asset: its outline's rectangles (1 for a box)
    std::uint64_t mPassKey;
    std::uint64_t mRuleKey;
    /// A cell's side in ground metres, once: the frame works it out from a cosine each time.
    double mCellMetres;
    std::vector<Scratch> mScratch;  ///< per worker
    Blocking mBlocking;
    Blocking mKeepOff;
    std::vector<Target> mTargets;
    std::unordered_map<TileId, std::vector<std::uint32_t>> mOwned;  ///< per baked tile: its targets, in order
    std::unordered_map<TileId, std::size_t> mOrderIndex;            ///< a baked tile's place in ctx.order
    OccupancyMap* mOccupancy = nullptr;                             ///< the placed_buildings layer
    const detail::PassFrame<TileBuildings>* mFrame = nullptr;       ///< the kernel's, for the tiles around
};

}  // namespace

std::size_t heldBytes(const TileBuildings& r) {
    using detail::bufferBytes;
    std::size_t bytes = sizeof(TileBuildings) + bufferBytes(r.buildings) + bufferBytes(r.warnings);
    for (const std::string& w : r.warnings) bytes += bufferBytes(w);
    for (const PlacedBuilding& b : r.buildings) {
        bytes += bufferBytes(b.featureId) + bufferBytes(b.record.parts) + bufferBytes(b.outlineBoxes) +
                 bufferBytes(b.partGrounds) + bufferBytes(b.generated.outline) + bufferBytes(b.generated.courtyards) +
                 bufferBytes(b.generated.roofShape) + bufferBytes(b.blockerId) + bufferBytes(b.partOfId) +
                 bufferBytes(b.cells);
        for (const std::vector<Vec2>& c : b.generated.courtyards) bytes += bufferBytes(c);
    }
    return bytes;
}

const TileBuildings* BuildingPass::tile(const TileId& id) const { return detail::cachedTile(mCache, id); }

std::optional<TileBuildings> BuildingPass::take(const TileId& id) { return detail::takeTile(mCache, id); }

void BuildingPass::keepOnly(const std::unordered_set<TileId>& keep) { detail::keepTiles(mCache, keep); }

std::vector<std::pair<TileId, std::size_t>> BuildingPass::cachedBytes() const { return detail::cachedBytesOf(mCache); }

Status BuildingPass::run(const PassRule& pass, PassContext& ctx, PassReport& report) {
    return detail::runPass<BuildingRun>(pass, ctx, mCache, "placing buildings", report);
}

}  // namespace terrabit::core::placement
