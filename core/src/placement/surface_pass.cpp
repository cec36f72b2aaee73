#include "terrabit/core/placement/surface_pass.h"

#include <algorithm>

#include "pass_frame_p.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/placement/greedy_mesh.h"
#include "terrabit/core/placement/placement_hash.h"
#include "terrabit/core/placement/road_markings.h"
#include "terrabit/core/placement/road_uv.h"
#include "terrabit/core/placement/surface_shape.h"

namespace terrabit::core::placement {

namespace {

/// One run of the pass: the mask and the parts a patch is made of (plan), and the kernel that
/// meshes one tile.
class SurfaceRun {
public:
    SurfaceRun(const PassRule& pass, PassContext& ctx) : mPass(pass), mRule(pass.surface), mCtx(ctx) {}

    /// Plan: the mask, each class of the layer and then the layer's own remaining cells, and
    /// every baked tile's key (the rule, the common key, what the mask and parts read around it).
    Status plan(detail::PassFrame<TileSurfaces>& frame) {
        const std::vector<LayerInfo>& infos = mCtx.index->map().layers;
        const int layer = mCtx.layers->layerId(mRule.layer);
        if (layer < 0 || static_cast<std::size_t>(layer) >= infos.size()) {
            return Error{mCtx.rules->source() + ":" + std::to_string(mPass.line) + ": pass '" + mPass.name +
                         "': no layer '" + mRule.layer + "'"};
        }
        auto ast = mCtx.parse(mPass, "mask", mRule.mask.empty() ? mRule.layer : mRule.mask);
        if (!ast) return ast.error();
        mMaskAst = std::move(*ast);
        mMask = algebra::LayerProgram::compile(mMaskAst);
        const auto colourOf = [&](int id) {
            const Rgb c = mRule.colour ? *mRule.colour : infos[static_cast<std::size_t>(id)].colour;
            return std::array<std::uint8_t, 3>{c.r, c.g, c.b};
        };
        for (const int c : infos[static_cast<std::size_t>(layer)].classes) mParts.push_back({c, colourOf(c)});
        mParts.push_back({layer, colourOf(layer)});
        for (const Part& p : mParts) {
            mPartLayers.push_back(p.layer);
            mFamilies.push_back(layerFamily(infos, p.layer));
        }

        std::vector<int> layersRead(mMask.layersRead().begin(), mMask.layersRead().end());
        for (const Part& p : mParts) layersRead.push_back(p.layer);
        std::sort(layersRead.begin(), layersRead.end());
        layersRead.erase(std::unique(layersRead.begin(), layersRead.end()), layersRead.end());
        const std::uint64_t ruleKey = detail::ruleKeyOf(mCtx, mPass);
        for (std::size_t i = 0; i < frame.tileCount(); ++i) {
            const TileId& t = frame.tile(i);
            frame.setKey(i, hashCombine(detail::tileKey(ruleKey, t), mCtx.hashes->neighbourhood(t, layersRead)));
        }
        return Status::success();
    }

    /// Kernel: the patches of the stale tiles.
    Status kernel(detail::PassFrame<TileSurfaces>& frame) {
        std::vector<Scratch> scratch;
        for (int w = 0; w < mCtx.threads; ++w) scratch.emplace_back(mMask);
        const std::vector<std::size_t> stale = frame.staleTiles();
        if (Status s = frame.progress(0.0); !s) return s;
        return frame.runTiles(stale, "pass '" + mPass.name + "' mask: ", [&](std::size_t i, int worker) {
            return meshTile(frame.tile(i), scratch[static_cast<std::size_t>(worker)], frame.result(i));
        });
    }

    /// Commit: nothing; patches go into the scene from the cache when it is assembled.
    void commit(detail::PassFrame<TileSurfaces>&) {}

private:
    /// What a patch is made of: a layer's cells, in a colour.
    struct Part {
        int layer;
        std::array<std::uint8_t, 3> colour;
    };
    struct Scratch {
        explicit Scratch(const algebra::LayerProgram& p) : evaluator(p) {}
        algebra::LayerEvaluator evaluator;
        BitTile mask, cells, taken, mesh;
        std::vector<CellRect> rects;
        SurfaceShaper shaper;
        std::vector<SurfaceShape> shapes;
    };

    /// Gives back what a patch's lists grew beyond their size: a patch stays in the cache, and a
    /// dropped tile's moves into the scene as it is. On monaco-region's nearest 2,048 tiles the
    /// cached results held 304 MB instead of 344 MB.
    static void fitToSize(SurfacePatch& p) {
        for (SharedVector<Vec2>* v :
             {&p.markings, &p.paving, &p.gravel, &p.sidewalks, &p.roadUv, &p.shape.outline, &p.shape.triangles}) {
            v->shrink_to_fit();
        }
        p.rects.shrink_to_fit();
        p.shape.ringEnds.shrink_to_fit();
        p.shape.polygonEnds.shrink_to_fit();
    }

    /// A tile's patches, part by part; a cell goes to the first part that has it.
    Status meshTile(const TileId& t, Scratch& s, TileSurfaces& out) const {
        const LayerSource& source = *mCtx.layers;
        out.patches.clear();
        if (Status st = s.evaluator.evaluate(source, t, s.mask); !st) return st;
        s.taken.reset();
        // The real shapes of the parts, each cut like its cells (the mask, then the parts before).
        s.shaper.setLeaveOutBridges(mCtx.terrain);
        if (Status st = s.shaper.shapeTile(*mCtx.index, t, mPartLayers, &mMaskAst, s.mask, s.shapes); !st) {
            return st;
        }
        for (std::size_t k = 0; k < mParts.size(); ++k) {
            const Part& part = mParts[k];
            const BitTile* bits = source.tile(t, part.layer);
            if (!bits) continue;
            s.cells = s.mask;
            s.cells &= *bits;
            s.cells.andNot(s.taken);
            if (s.cells.none()) continue;
            s.taken |= s.cells;
            greedyMesh(s.cells, s.rects, s.mesh);
            SurfacePatch patch;
            patch.tile = t;
            patch.layer = mCtx.index->map().layers[static_cast<std::size_t>(part.layer)].name;
            patch.elevation = static_cast<float>(mRule.elevationMetres);
            patch.colour = part.colour;
            patch.texture = mRule.texture;
            patch.rects = s.rects;
            patch.shape = std::move(s.shapes[k]);
            if (patch.texture != SurfaceTexture::None && !patch.shape.empty()) {
                roadTextureCoordinates(*mCtx.index, t, mFamilies[k], mCtx.frame.metresPerCell(), mCtx.terrain,
                                       patch.shape.triangles.edit(), patch.roadUv.edit());
            }
            if (mRule.markings == RoadMarkingKind::Lanes && !patch.shape.empty()) {
                RoadPaint paint;
                roadMarkings(*mCtx.index, t, mFamilies[k], mCtx.frame.metresPerCell(), s.cells, mCtx.terrain,
                             RoadMarkingStyle{}, paint);
                patch.markings = std::move(paint.markings);
                patch.paving = std::move(paint.paving);
                patch.gravel = std::move(paint.gravel);
                patch.sidewalks = std::move(paint.sidewalks);
            }
            fitToSize(patch);
            out.patches.push_back(std::move(patch));
        }
        out.patches.shrink_to_fit();
        return Status::success();
    }

    const PassRule& mPass;
    const SurfacePassRule& mRule;
    PassContext& mCtx;
    algebra::ExpressionAst mMaskAst;
    algebra::LayerProgram mMask;
    std::vector<Part> mParts;                  ///< the layer's classes in order, the layer itself last
    std::vector<int> mPartLayers;              ///< the parts' layers, in the same order
    std::vector<std::vector<char>> mFamilies;  ///< per part: its layer and that layer's classes, by layer id
};

}  // namespace

std::size_t heldBytes(const TileSurfaces& r) {
    using detail::bufferBytes;
    std::size_t bytes = sizeof(TileSurfaces) + bufferBytes(r.patches);
    for (const SurfacePatch& p : r.patches) {
        bytes += bufferBytes(p.layer) + bufferBytes(p.markings) + bufferBytes(p.paving) + bufferBytes(p.gravel) +
                 bufferBytes(p.sidewalks) + bufferBytes(p.rects) + bufferBytes(p.roadUv) +
                 bufferBytes(p.shape.outline) + bufferBytes(p.shape.ringEnds) + bufferBytes(p.shape.polygonEnds) +
                 bufferBytes(p.shape.triangles);
    }
    return bytes;
}

const TileSurfaces* SurfacePass::tile(const TileId& id) const { return detail::cachedTile(mCache, id); }

std::optional<TileSurfaces> SurfacePass::take(const TileId& id) { return detail::takeTile(mCache, id); }

void SurfacePass::keepOnly(const std::unordered_set<TileId>& keep) { detail::keepTiles(mCache, keep); }

std::vector<std::pair<TileId, std::size_t>> SurfacePass::cachedBytes() const { return detail::cachedBytesOf(mCache); }

Status SurfacePass::run(const PassRule& pass, PassContext& ctx, PassReport& report) {
    return detail::runPass<SurfaceRun>(pass, ctx, mCache, "meshing surfaces", report);
}

}  // namespace terrabit::core::placement
