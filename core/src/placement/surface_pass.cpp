#include "terrabit/core/placement/surface_pass.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "parallel_p.h"
#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/placement/greedy_mesh.h"
#include "terrabit/core/placement/placement_hash.h"

namespace terrabit::core::placement {

const TileSurfaces* SurfacePass::tile(const TileId& id) const {
    const auto it = mCache.find(id);
    return it == mCache.end() ? nullptr : &it->second;
}

Status SurfacePass::run(const PassRule& pass, PassContext& ctx, PassReport& report) {
    const auto start = std::chrono::steady_clock::now();
    const SurfacePassRule& rule = pass.surface;
    const LayerSource& source = *ctx.layers;
    const std::vector<LayerInfo>& infos = ctx.index->map().layers;
    const int layer = source.layerId(rule.layer);
    if (layer < 0 || static_cast<std::size_t>(layer) >= infos.size()) {
        return Error{ctx.rules->source() + ":" + std::to_string(pass.line) + ": pass '" + pass.name + "': no layer '" +
                     rule.layer + "'"};
    }
    auto program = ctx.compile(pass, "mask", rule.mask.empty() ? rule.layer : rule.mask);
    if (!program) return program.error();

    // What a patch is made of: each class of the layer, then the layer's own remaining cells.
    struct Part {
        int layer;
        std::array<std::uint8_t, 3> colour;
    };
    std::vector<Part> parts;
    const auto colourOf = [&](int id) {
        const Rgb c = rule.colour ? *rule.colour : infos[static_cast<std::size_t>(id)].colour;
        return std::array<std::uint8_t, 3>{c.r, c.g, c.b};
    };
    for (const int c : infos[static_cast<std::size_t>(layer)].classes) parts.push_back({c, colourOf(c)});
    parts.push_back({layer, colourOf(layer)});

    std::vector<int> layersRead(program->layersRead().begin(), program->layersRead().end());
    for (const Part& p : parts) layersRead.push_back(p.layer);
    std::sort(layersRead.begin(), layersRead.end());
    layersRead.erase(std::unique(layersRead.begin(), layersRead.end()), layersRead.end());
    const std::uint64_t ruleKey = hashCombine(ctx.commonKey, hashText(PlacementRules::describe(pass)));

    std::vector<std::size_t> toRun;
    std::vector<std::uint64_t> keys(ctx.order.size());
    std::vector<TileSurfaces*> results(ctx.order.size());
    for (std::size_t i = 0; i < ctx.order.size(); ++i) {
        const TileId& t = ctx.order[i];
        keys[i] = hashCombine(hashCombine(ruleKey, (std::uint64_t{t.x} << 32) | t.y),
                              ctx.hashes->neighbourhood(t, layersRead));
        results[i] = &mCache[t];
        if (results[i]->key != keys[i] || keys[i] == 0) toRun.push_back(i);
    }

    struct Scratch {
        explicit Scratch(const algebra::LayerProgram& p) : evaluator(p) {}
        algebra::LayerEvaluator evaluator;
        BitTile mask, cells, taken, mesh;
        std::vector<CellRect> rects;
    };
    std::vector<Scratch> scratch;
    for (int w = 0; w < ctx.threads; ++w) scratch.emplace_back(*program);
    std::vector<Status> failures(toRun.size());
    if (!reportProgress(ctx.progress, 0.0, "meshing surfaces"))
        return cancelled("bake cancelled while meshing surfaces");
    detail::parallelFor(toRun.size(), ctx.threads, [&](std::size_t k, int worker) {
        const std::size_t i = toRun[k];
        const TileId& t = ctx.order[i];
        Scratch& s = scratch[static_cast<std::size_t>(worker)];
        TileSurfaces& out = *results[i];
        out.patches.clear();
        if (Status st = s.evaluator.evaluate(source, t, s.mask); !st) {
            failures[k] = st;
            return;
        }
        s.taken.reset();
        for (const Part& part : parts) {
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
            patch.layer = infos[static_cast<std::size_t>(part.layer)].name;
            patch.elevation = static_cast<float>(rule.elevationMetres);
            patch.colour = part.colour;
            patch.rects = s.rects;
            out.patches.push_back(std::move(patch));
        }
        out.key = keys[i];
    });
    for (const Status& s : failures) {
        if (!s) return Error{"pass '" + pass.name + "' mask: " + s.message()};
    }
    const std::unordered_set<TileId> baked(ctx.order.begin(), ctx.order.end());
    std::erase_if(mCache, [&](const auto& kv) { return !baked.contains(kv.first); });
    report.name = pass.name;
    report.kind = pass.kind;
    report.tilesRun = toRun.size();
    report.tilesReused = ctx.order.size() - toRun.size();
    report.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Status::success();
}

}  // namespace terrabit::core::placement
