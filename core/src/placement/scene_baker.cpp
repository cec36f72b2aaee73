#include "terrabit/core/placement/scene_baker.h"

#include "terrabit/core/algebra/relief_mask.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <exception>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "ground_p.h"
#include "pass_frame_p.h"
#include "terrabit/core/placement/placement_hash.h"

namespace terrabit::core::placement {

namespace {

using Clock = std::chrono::steady_clock;

/// A hash of everything placement reads from the catalogue.
std::uint64_t catalogueHash(const AssetCatalogue& catalogue) {
    std::uint64_t h = hashText("catalogue");
    for (const AssetInfo& a : catalogue.assets()) {
        h = hashCombine(h, hashText(a.id));
        h = hashCombine(h, hashText(a.category));
        h = hashCombine(h, a.footprint.width);
        h = hashCombine(h, a.footprint.depth);
        h = hashCombine(h, a.height);
        h = hashCombine(h, a.weight);
        for (const std::string& t : a.tags) h = hashCombine(h, hashText(t));
        // Nothing for an empty outline (the box), so a catalogue of boxes keeps its hash.
        for (const OutlineRect& r : a.outline) {
            for (double v : {r.x0, r.z0, r.x1, r.z1}) h = hashCombine(h, v);
        }
        for (int i = 0; i < 3; ++i) {
            h = hashCombine(h, a.bounds.empty() ? 0.0 : a.bounds.min[static_cast<std::size_t>(i)]);
            h = hashCombine(h, a.bounds.empty() ? 0.0 : a.bounds.max[static_cast<std::size_t>(i)]);
        }
    }
    return h;
}

/// Tiles in the scene's order: north to south, then west to east.

/// The model's box in model space: its measured bounds, or its footprint and height.
void modelBox(const AssetInfo& a, double lo[3], double hi[3]) {
    if (!a.bounds.empty()) {
        for (int i = 0; i < 3; ++i) {
            lo[i] = a.bounds.min[static_cast<std::size_t>(i)];
            hi[i] = a.bounds.max[static_cast<std::size_t>(i)];
        }
        return;
    }
    lo[0] = -a.footprint.width / 2;
    hi[0] = a.footprint.width / 2;
    lo[1] = 0.0;
    hi[1] = a.height;
    lo[2] = -a.footprint.depth / 2;
    hi[2] = a.footprint.depth / 2;
}

/// The layer source must hold the index's layers, in the same order.
Status checkLayers(const TileIndex& index, const LayerSource& base) {
    const std::vector<LayerInfo>& infos = index.map().layers;
    const std::vector<std::string>& names = base.layerNames();
    if (names.size() != infos.size() ||
        !std::equal(infos.begin(), infos.end(), names.begin(),
                    [](const LayerInfo& l, const std::string& n) { return l.name == n; })) {
        return Error{"bake: the layer source's layers are not the map's layers (rasterize the same index)"};
    }
    return Status::success();
}

/// The tiles to bake, sorted: the options' (each one of the index's) or all of the index's.
Result<std::vector<TileId>> bakedTiles(const TileIndex& index, const BakeOptions& options) {
    if (options.tiles.empty()) return index.tiles();
    // Checked tile by tile, not against a sorted copy of the index: a streamed bake runs
    // thousands of small bakes over one country's index.
    std::vector<TileId> baked = options.tiles;
    std::sort(baked.begin(), baked.end());
    baked.erase(std::unique(baked.begin(), baked.end()), baked.end());
    for (const TileId& t : baked) {
        if (!index.slot(t)) return Error{"bake: a tile to bake is not one of the map's tiles"};
    }
    return baked;
}

/// The order the baked tiles are handed out in: the options' permutation of them, or theirs.
Result<std::vector<TileId>> tileOrder(const BakeOptions& options, const std::vector<TileId>& baked) {
    if (options.order.empty()) return baked;
    std::vector<TileId> a = options.order, b = baked;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) return Error{"bake: the tile order is not a permutation of the map's tiles"};
    return options.order;
}

/// The tiles whose results make the scene, row-major: the options' (a subset of the baked
/// ones) or every baked tile.
Result<std::vector<TileId>> sceneTilesOf(const BakeOptions& options, const std::vector<TileId>& order) {
    std::vector<TileId> sceneTiles = options.sceneTiles.empty() ? order : options.sceneTiles;
    std::sort(sceneTiles.begin(), sceneTiles.end(), northToSouth);
    if (!options.sceneTiles.empty()) {
        std::vector<TileId> a = sceneTiles, b = order;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        a.erase(std::unique(a.begin(), a.end()), a.end());
        if (a.size() != sceneTiles.size() || !std::includes(b.begin(), b.end(), a.begin(), a.end())) {
            return Error{"bake: the scene's tiles are not a subset of the baked tiles"};
        }
    }
    return sceneTiles;
}

/// PassContext::commonKey: the seed, the frame, the catalogue and the named expressions.
std::uint64_t commonKeyOf(std::uint64_t seed, const GroundFrame& frame, const AssetCatalogue& catalogue,
                          const PlacementRules& rules) {
    std::uint64_t common = hashCombine(hashText("terrabit-placement-1"), seed);
    common = hashCombine(common, frame.origin.lon);
    common = hashCombine(common, frame.origin.lat);
    common = hashCombine(common, static_cast<std::uint64_t>(frame.zoom));
    common = hashCombine(common, catalogueHash(catalogue));
    for (const ExpressionRule& e : rules.expressions()) {
        common = hashCombine(hashCombine(common, hashText(e.name)), hashText(e.text));
    }
    return common;
}

/// The frame's terrain: whether the bake stands on heights, and the height of y = 0
/// (BakeOptions::originHeight).
void terrainOf(const BakeOptions& options, const LayerSource& layers, std::span<const TileId> reach,
               std::span<const TileId> baked, PassContext& ctx) {
    if (options.originHeight) {
        ctx.terrain = true;
        ctx.originHeight = *options.originHeight;
        return;
    }
    ctx.terrain =
        std::any_of(reach.begin(), reach.end(), [&](const TileId& t) { return layers.heights(t) != nullptr; });
    if (!ctx.terrain) return;
    detail::GroundSampler ground(layers, ctx.frame.zoom);
    const float atOrigin = ground.at(ctx.frame.mercatorToCell(lonLatToMercator(ctx.frame.origin)));
    if (atOrigin == atOrigin) {
        ctx.originHeight = atOrigin;
        return;
    }
    float lowest = std::numeric_limits<float>::infinity();
    for (const TileId& t : baked) {
        if (const terrain::HeightTile* h = layers.heights(t)) {
            for (const float v : h->heights) {
                if (v == v) lowest = std::min(lowest, v);
            }
        }
    }
    ctx.originHeight = std::isfinite(lowest) ? lowest : 0.0;
}

/// A pass's result for a tile, or nullptr when the pass or the tile has none.
template <class Pass>
auto resultOf(const std::unordered_map<std::string, Pass>& passes, const std::string& name, const TileId& t)
    -> decltype(passes.begin()->second.tile(t)) {
    const auto it = passes.find(name);
    return it == passes.end() ? nullptr : it->second.tile(t);
}

/// Every tile with a cached result in some pass, and the bytes its results hold over every pass
/// (heldBytes, and the cache's node and key per pass).
template <class Buildings, class Surfaces, class Vegetation>
std::unordered_map<TileId, std::size_t> cachedBytesByTile(const Buildings& buildings, const Surfaces& surfaces,
                                                          const Vegetation& vegetation) {
    std::unordered_map<TileId, std::size_t> out;
    const auto add = [&](const auto& passes) {
        for (const auto& [name, pass] : passes) {
            for (const auto& [t, bytes] : pass.cachedBytes())
                out[t] += bytes + sizeof(TileId) + detail::kCacheNodeBytes;
        }
    };
    add(buildings);
    add(surfaces);
    add(vegetation);
    return out;
}

/// One instance on its way into a block; asset is a catalogue index until the end.
struct Item {
    TileId tile;
    int blockX = 0, blockY = 0;
    int asset = -1;
    Instance instance;
    const std::string* featureId = nullptr;  ///< buildings: the footprint's id (in a pass's cache)
};

/// A building's outcome with its footprint's id, until the ids are numbered.
struct Record {
    std::string featureId;
    BuildingRecord record;
    std::string blockerId;  ///< when blocked by a building: its feature id
    std::string partOfId;   ///< when generated as a part of another building: its feature id
};

/// A plinth with its building's id, until the ids are numbered.
struct PlinthItem {
    const std::string* featureId = nullptr;
    Plinth plinth;
};

/// A generated building with its footprint's id, until the ids are numbered.
struct GeneratedItem {
    const std::string* featureId = nullptr;
    GeneratedBuilding building;
};

/// What the passes' results hand to the scene, in pass order, then tile order (the instances
/// go into blocks a tile at a time instead: makeTileBlocks).
struct Gathered {
    /// Per catalogue asset: 1 when a plant uses it (marked per asset, not listed per instance:
    /// a region has millions); the buildings' assets come with their records.
    std::vector<std::uint8_t> plantAssets;
    std::vector<Record> records;
    std::vector<PlinthItem> plinths;
    std::vector<GeneratedItem> generated;
    double requestedTotal = 0.0;  ///< vegetation instances asked for, summed in this order
};

void gatherBuildings(const TileBuildings& r, const TileId& t, const PassContext& ctx, Gathered& out) {
    // On terrain, ground that rises under a footprint gets a plinth from the lowest up to its
    // highest: a placed model's rectangle (one per rectangle of its ground outline: an L's yard
    // stays ground), or a generated building's footprint box; each further prefab its own, from
    // the ground under it.
    const auto plinthUnder = [&](const PlacedBuilding& b) {
        if (!ctx.terrain) return;
        const auto add = [&](const OrientedBox& box, float lo, float hi) {
            if (!(hi > lo)) return;  // level ground, or no heights (NaN)
            Plinth p;
            p.tile = t;
            p.box = box;
            p.bottom = static_cast<float>(double(lo) - ctx.originHeight);
            p.top = static_cast<float>(double(hi) - ctx.originHeight);
            out.plinths.push_back({&b.featureId, p});
        };
        if (b.record.hasGround()) {
            for (const OrientedBox& box : b.outlineBoxes.empty() ? std::span<const OrientedBox>(&b.placedBox, 1)
                                                                 : std::span<const OrientedBox>(b.outlineBoxes)) {
                add(box, b.record.groundMin, b.record.groundMax);
            }
        }
        for (const PlacedBuilding::PartGround& part : b.partGrounds) add(part.box, part.groundMin, part.groundMax);
    };
    for (const PlacedBuilding& b : r.buildings) {
        out.records.push_back({b.featureId, b.record, b.blockerId, b.partOfId});
        // A part that does not rise above the building it was mapped within has nothing to draw.
        if (b.record.outcome == BuildingOutcome::Generated && !b.generated.outline.empty()) {
            out.generated.push_back({&b.featureId, b.generated});
            plinthUnder(b);
        }
        if (b.record.outcome == BuildingOutcome::Placed) plinthUnder(b);
    }
}

/// A tile's placed buildings' instances (each one's first model and its parts), each in the
/// block holding its box's centre, appended to `items` (asset: a catalogue index).
void buildingItems(const TileBuildings& r, const TileId& t, const GroundFrame& frame, int blockCells,
                   std::vector<Item>& items) {
    const auto local = [&](double v, std::uint32_t tileIndex) {
        const double l = std::floor(v) - static_cast<double>(tileIndex) * kTileCells;
        return std::clamp(static_cast<int>(l), 0, kTileCells - 1);
    };
    for (const PlacedBuilding& b : r.buildings) {
        if (b.record.outcome != BuildingOutcome::Placed) continue;
        const Vec2 cell = frame.groundToCell(b.record.target.centre);
        const int bx = local(cell.x, t.x) / blockCells, by = local(cell.y, t.y) / blockCells;
        items.push_back({t, bx, by, b.record.asset, b.record.placement, &b.featureId});
        for (const BuildingPart& part : b.record.parts) {
            items.push_back({t, bx, by, part.asset, part.placement, &b.featureId});
        }
    }
}

/// Marks catalogue asset `a` in `occurs` (one flag per catalogue asset).
void markAsset(std::vector<std::uint8_t>& occurs, int a) {
    if (a >= 0 && static_cast<std::size_t>(a) < occurs.size()) occurs[static_cast<std::size_t>(a)] = 1;
}

void gatherVegetation(const TileVegetation& r, const TileId& t, std::size_t passIndex, Scene& scene, Gathered& out) {
    for (const PlantedInstance& p : r.instances) markAsset(out.plantAssets, p.asset);
    for (const VegetationTally& tally : r.tallies) {
        scene.statistics.vegetationCellsRequested += tally.zoneCells;
        scene.statistics.vegetationInstances += tally.instances;
        out.requestedTotal += tally.requestedInstances;
        scene.vegetationTallies.push_back(
            {t, static_cast<std::uint32_t>(passIndex), tally.zoneCells, tally.instances, tally.requestedInstances});
    }
}

/// Scene::assets: the catalogue ids used, sorted by id. Returns the catalogue index of each
/// scene asset, and fills `sceneAsset` with the way back.
std::vector<int> numberAssets(std::span<const AssetInfo> assets, const Gathered& g,
                              std::unordered_map<int, int>& sceneAsset, Scene& scene) {
    std::vector<std::uint8_t> occurs = g.plantAssets;
    for (const Record& r : g.records) {
        markAsset(occurs, r.record.asset);
        for (const BuildingPart& p : r.record.parts) markAsset(occurs, p.asset);
    }
    std::vector<int> used;
    for (std::size_t a = 0; a < occurs.size(); ++a) {
        if (occurs[a]) used.push_back(static_cast<int>(a));
    }
    std::sort(used.begin(), used.end(), [&](int a, int b) {
        return assets[static_cast<std::size_t>(a)].id < assets[static_cast<std::size_t>(b)].id;
    });
    for (std::size_t i = 0; i < used.size(); ++i) {
        sceneAsset.emplace(used[i], static_cast<int>(i));
        scene.assets.push_back(assets[static_cast<std::size_t>(used[i])].id);
    }
    return used;
}

/// Scene::sources (the building feature ids, sorted) and Scene::buildings in that order, with
/// their outcomes counted. Returns each feature id's source number.
std::unordered_map<std::string, std::uint32_t> numberSources(const std::unordered_map<int, int>& sceneAsset,
                                                             Gathered& g, Scene& scene) {
    // Sorted as positions, the records then moved once into their order: a country's 200,000
    // records moved at every level of a merge sort took a third of a second.
    std::vector<std::uint32_t> byId(g.records.size());
    for (std::size_t i = 0; i < byId.size(); ++i) byId[i] = static_cast<std::uint32_t>(i);
    std::sort(byId.begin(), byId.end(), [&](std::uint32_t i, std::uint32_t j) {
        const Record& a = g.records[i];
        const Record& b = g.records[j];
        if (a.featureId != b.featureId) return a.featureId < b.featureId;
        if (a.record.tile != b.record.tile) return northToSouth(a.record.tile, b.record.tile);
        return i < j;  // as a stable sort leaves them
    });
    {
        std::vector<Record> sorted;
        sorted.reserve(g.records.size());
        for (const std::uint32_t i : byId) sorted.push_back(std::move(g.records[i]));
        g.records = std::move(sorted);
    }
    std::unordered_map<std::string, std::uint32_t> sourceOf;
    sourceOf.reserve(g.records.size());
    scene.sources.reserve(g.records.size());
    scene.buildings.reserve(scene.buildings.size() + g.records.size());
    for (Record& r : g.records) {
        auto [it, fresh] = sourceOf.emplace(r.featureId, static_cast<std::uint32_t>(scene.sources.size()));
        if (fresh) scene.sources.push_back(r.featureId);
        r.record.source = it->second;
        r.record.placement.source = it->second;
        if (r.record.asset >= 0) r.record.asset = sceneAsset.at(r.record.asset);
        for (BuildingPart& p : r.record.parts) {
            p.asset = sceneAsset.at(p.asset);
            p.placement.source = it->second;
        }
        switch (r.record.outcome) {
            case BuildingOutcome::Placed:
                ++scene.statistics.buildingsPlaced;
                break;
            case BuildingOutcome::Blocked:
                ++scene.statistics.buildingsBlocked;
                break;
            case BuildingOutcome::NoModelFits:
                ++scene.statistics.buildingsUnmatched;
                break;
            case BuildingOutcome::BlockedBySlope:
                ++scene.statistics.buildingsBlockedBySlope;
                break;
            case BuildingOutcome::Generated:
                ++scene.statistics.buildingsGenerated;
                break;
        }
        scene.buildings.push_back(std::move(r.record));  // its ids stay in `r` for below
    }
    // A blocker (or the building a part was mapped within) is numbered when it is a building of
    // this scene (not one of a tile baked only as the halo of a streamed batch, say).
    const std::size_t firstRecord = scene.buildings.size() - g.records.size();
    for (std::size_t i = 0; i < g.records.size(); ++i) {
        const auto numbered = [&](const std::string& id) {
            const auto it = id.empty() ? sourceOf.end() : sourceOf.find(id);
            return it == sourceOf.end() ? Instance::kNoSource : it->second;
        };
        scene.buildings[firstRecord + i].blockerSource = numbered(g.records[i].blockerId);
        scene.buildings[firstRecord + i].partOfSource = numbered(g.records[i].partOfId);
    }
    for (PlinthItem& p : g.plinths) {
        p.plinth.source = sourceOf.at(*p.featureId);
        scene.plinths.push_back(p.plinth);
    }
    std::stable_sort(scene.plinths.begin(), scene.plinths.end(), [](const Plinth& a, const Plinth& b) {
        return a.tile != b.tile ? northToSouth(a.tile, b.tile) : a.source < b.source;
    });
    for (GeneratedItem& item : g.generated) {
        item.building.source = sourceOf.at(*item.featureId);
        scene.generated.push_back(std::move(item.building));
    }
    std::sort(scene.generated.begin(), scene.generated.end(),
              [](const GeneratedBuilding& a, const GeneratedBuilding& b) {
                  return a.tile != b.tile ? northToSouth(a.tile, b.tile) : a.source < b.source;
              });
    return sourceOf;
}

/// A tile's item in the order items go into blocks: by block row, block column and (scene)
/// asset; within a block in placement order. Sorting packed keys with the item's index as the
/// tie-break gives that order without moving the items themselves.
struct BlockOrderKey {
    std::uint64_t key;  ///< block row, block column, asset
    std::uint32_t item;
    bool operator<(const BlockOrderKey& o) const { return key != o.key ? key < o.key : item < o.item; }
};

/// A block's place in its tile's order: block row, block column, then (scene) asset. Block
/// indices < 256, assets < 2^16: the fields never overlap.
std::uint64_t blockKey(int blockX, int blockY, int asset) {
    return (std::uint64_t(blockY) << 24) | (std::uint64_t(blockX) << 16) | std::uint64_t(asset);
}
std::uint64_t blockKey(const InstanceBlock& b) { return blockKey(b.blockX, b.blockY, b.asset); }

/// One tile's items in blockOrder into `order` (reused).
void blockOrder(std::span<const Item> items, std::vector<BlockOrderKey>& order) {
    order.resize(items.size());
    for (std::size_t k = 0; k < items.size(); ++k) {
        const Item& i = items[k];
        order[k] = {blockKey(i.blockX, i.blockY, i.asset), static_cast<std::uint32_t>(k)};
    }
    std::sort(order.begin(), order.end());
}

/// Grows a block's bounds by an instance's transformed model box (`lo`, `hi`: modelBox). Only
/// the two extreme corners along each axis are transformed: each coordinate is a rounded sum
/// of per-axis terms, which never decreases when a term grows, so they give the bounds all
/// eight corners give, to the bit.
void extendBounds(InstanceBlock& b, const double lo[3], const double hi[3], const Instance& in) {
    const double c = std::cos(in.yaw), s = std::sin(in.yaw);
    const double x0 = lo[0] * in.scale.x, x1 = hi[0] * in.scale.x;
    const double y0 = lo[1] * in.scale.y, y1 = hi[1] * in.scale.y;
    const double z0 = lo[2] * in.scale.z, z1 = hi[2] * in.scale.z;
    const auto [cx0, cx1] = std::minmax({c * x0, c * x1});
    const auto [sz0, sz1] = std::minmax({s * z0, s * z1});
    const auto [sx0, sx1] = std::minmax({-s * x0, -s * x1});
    const auto [cz0, cz1] = std::minmax({c * z0, c * z1});
    const auto [ya, yb] = std::minmax({y0, y1});
    b.bounds.extend(Vec3f{static_cast<float>(cx0 + sz0 + in.position.x), static_cast<float>(ya + in.position.y),
                          static_cast<float>(sx0 + cz0 + in.position.z)});
    b.bounds.extend(Vec3f{static_cast<float>(cx1 + sz1 + in.position.x), static_cast<float>(yb + in.position.y),
                          static_cast<float>(sx1 + cz1 + in.position.z)});
}

/// One tile's instances as its blocks, appended to `out`: `items` (asset: a scene index, source
/// numbered) in blockOrder. `used` maps scene assets to the catalogue.
void makeTileBlocks(std::span<const Item> items, std::span<const AssetInfo> assets, std::span<const int> used,
                    std::vector<BlockOrderKey>& order, std::vector<InstanceBlock>& out) {
    blockOrder(items, order);
    // A block is a run of equal keys; its instances are reserved at their count (grown by
    // doubling, a region's blocks held up to twice what they used).
    for (std::size_t k = 0; k < order.size();) {
        std::size_t end = k + 1;
        while (end < order.size() && order[end].key == order[k].key) ++end;
        const Item& first = items[order[k].item];
        InstanceBlock b;
        b.asset = first.asset;
        b.tile = first.tile;
        b.blockX = first.blockX;
        b.blockY = first.blockY;
        double lo[3], hi[3];
        modelBox(assets[static_cast<std::size_t>(used[static_cast<std::size_t>(first.asset)])], lo, hi);
        std::vector<Instance>& list = b.instances.edit();
        list.reserve(end - k);
        for (; k < end; ++k) {
            const Item& i = items[order[k].item];
            list.push_back(i.instance);
            extendBounds(b, lo, hi, i.instance);
        }
        out.push_back(std::move(b));
    }
}

/// Surfaces by tile (row-major), then layer; a tile's patches of one layer keep pass order.
void sortSurfaces(Scene& scene) {
    std::stable_sort(scene.surfaces.begin(), scene.surfaces.end(), [](const SurfacePatch& a, const SurfacePatch& b) {
        if (a.tile != b.tile) return northToSouth(a.tile, b.tile);
        return a.layer < b.layer;
    });
}

/// With terrain: the lowest and highest height of the scene tiles' samples (per tile in
/// parallel; min and max do not depend on the order they are taken in).
void heightRange(const LayerSource& layers, std::span<const TileId> tiles, int threads, SceneStatistics& st) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    struct TileRange {
        float lo = kInf, hi = -kInf;
        std::uint64_t cells = 0, steep = 0;
    };
    std::vector<TileRange> perTile(tiles.size());
    // The relief layers' own definitions: a cell has a height when its four corners do, and is
    // steep as slope(>35deg) says.
    const auto withHeight =
        algebra::ReliefMask::make(algebra::ReliefMask::Kind::Height, -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::infinity());
    const auto steep = algebra::ReliefMask::make(algebra::ReliefMask::Kind::Slope, SceneStatistics::kSteepDegrees,
                                                 std::numeric_limits<double>::infinity());
    detail::parallelFor(tiles.size(), threads, [&](std::size_t i, int) {
        const terrain::HeightTile* h = layers.heights(tiles[i]);
        if (!h) return;
        TileRange& r = perTile[i];
        for (const float v : h->heights) {
            if (v != v) continue;
            r.lo = std::min(r.lo, v);
            r.hi = std::max(r.hi, v);
        }
        std::array<std::uint64_t, 4> words{};
        for (int row = 0; row < kTileCells; ++row) {
            withHeight.fillRow(*h, row, 0, 4, words.data());
            for (std::uint64_t w : words) r.cells += static_cast<std::uint64_t>(std::popcount(w));
            steep.fillRow(*h, row, 0, 4, words.data());
            for (std::uint64_t w : words) r.steep += static_cast<std::uint64_t>(std::popcount(w));
        }
    });
    float lo = kInf, hi = -kInf;
    for (const TileRange& r : perTile) {
        lo = std::min(lo, r.lo);
        hi = std::max(hi, r.hi);
        st.cellsWithHeight += r.cells;
        st.steepCells += r.steep;
    }
    if (lo <= hi) {
        st.minHeight = lo;
        st.maxHeight = hi;
    }
}

// The footprint counts are compiled for x86-64-v3 (POPCNT) and the baseline, as the bit tiles'
// counts are, and the loader picks one for the running CPU: in the baseline std::popcount is a
// libgcc call per word, two thirds of the figures' time.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define TERRABIT_COUNT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TERRABIT_COUNT_CLONES
#endif

/// One tile's cells of the footprint layers (their union), of placed_buildings, of both, and of
/// placed_buildings alone; `placed` may be null.
struct FootprintCounts {
    std::uint64_t footprint = 0, covered = 0, placed = 0, outside = 0;
};
TERRABIT_COUNT_CLONES FootprintCounts countFootprint(std::span<const BitTile* const> foots, const BitTile* placed) {
    FootprintCounts f;
    for (int row = 0; row < kTileCells; ++row) {
        for (int w = 0; w < BitTile::kWordsPerRow; ++w) {
            std::uint64_t foot = 0;
            for (const BitTile* b : foots) foot |= b->row(row)[w];
            const std::uint64_t p = placed ? placed->row(row)[w] : 0;
            f.footprint += static_cast<std::uint64_t>(std::popcount(foot));
            f.covered += static_cast<std::uint64_t>(std::popcount(foot & p));
            f.placed += static_cast<std::uint64_t>(std::popcount(p));
            f.outside += static_cast<std::uint64_t>(std::popcount(p & ~foot));
        }
    }
    return f;
}

/// The footprint figures of the statistics: per scene tile (in parallel; integer sums do not
/// depend on the order) the cells of the building passes' footprint layers, of placed_buildings,
/// and of both and of the latter alone.
void footprintFigures(const LayerSource& layers, const PlacementRules& rules, std::span<const TileId> tiles,
                      int threads, SceneStatistics& st) {
    std::vector<int> footprintLayers;
    for (const PassRule& p : rules.passes()) {
        if (p.kind != PassKind::Buildings) continue;
        const int id = layers.layerId(p.buildings.layer);
        if (id >= 0) footprintLayers.push_back(id);
    }
    const int placedLayer = layers.layerId(kPlacedBuildingsLayer);
    std::vector<FootprintCounts> perTile(tiles.size());
    detail::parallelFor(tiles.size(), threads, [&](std::size_t i, int) {
        const BitTile* placed = placedLayer >= 0 ? layers.tile(tiles[i], placedLayer) : nullptr;
        // The tiles once, not per word: each lookup is a hash-map find.
        std::vector<const BitTile*> foots;
        for (const int l : footprintLayers) {
            if (const BitTile* b = layers.tile(tiles[i], l)) foots.push_back(b);
        }
        if (foots.empty() && placed == nullptr) return;
        perTile[i] = countFootprint(foots, placed);
    });
    for (const FootprintCounts& f : perTile) {
        st.footprintCells += f.footprint;
        st.footprintCellsCovered += f.covered;
        st.placedCells += f.placed;
        st.placedCellsOutside += f.outside;
    }
}

void computeDensities(double requestedTotal, SceneStatistics& st) {
    const double cells = static_cast<double>(st.vegetationCellsRequested);
    st.requestedDensity = cells > 0 ? requestedTotal / cells : 0.0;
    st.achievedDensity = cells > 0 ? static_cast<double>(st.vegetationInstances) / cells : 0.0;
}

}  // namespace

const PassReport* BakeReport::pass(std::string_view name) const {
    for (const PassReport& p : passes) {
        if (p.name == name) return &p;
    }
    return nullptr;
}

LonLat sceneOrigin(std::span<const TileId> tiles) {
    Box2 box;
    for (const TileId& t : tiles) {
        const Box2 b = t.boundsMercator();
        box.extend(b.min);
        box.extend(b.max);
    }
    return box.empty() ? LonLat{} : mercatorToLonLat(box.centre());
}

SceneBaker::SceneBaker(const TileIndex& index, const LayerSource& layers, const AssetCatalogue& catalogue)
    : mIndex(&index), mBase(&layers), mCatalogue(&catalogue), mLayers(std::make_unique<PlacementLayers>(layers)) {}

SceneBaker::~SceneBaker() = default;

Status SceneBaker::setRules(PlacementRules rules) {
    if (Status s = rules.check(mIndex->map().layers); !s) return s;
    if (Status s = rules.checkCatalogue(*mCatalogue); !s) return s;
    mRules = std::move(rules);
    mHaveRules = true;
    return Status::success();
}

void SceneBaker::clearCache() {
    mBuildingPasses.clear();
    mSurfacePasses.clear();
    mVegetationPasses.clear();
    mPlantBlocks.clear();
    mHashes.clear();
}

/// How a scene numbers what its blocks hold: scene asset -> catalogue asset (`used`), and back,
/// and building sources by feature id; and its frame.
struct BlockNumbering {
    const GroundFrame& frame;
    std::span<const AssetInfo> assets;
    std::span<const int> used;
    const std::unordered_map<int, int>& sceneAsset;
    const std::unordered_map<std::string, std::uint32_t>& sourceOf;
};

/// What a worker reuses from tile to tile while making blocks.
struct BlockScratch {
    std::vector<Item> items;
    std::vector<BlockOrderKey> order;
    std::vector<InstanceBlock> buildings, plants;
};

/// Merges two runs of one tile's blocks, each in block order, into `out` in block order.
/// False, `out` left partly filled, when both hold a block of the same key.
bool mergeBlocks(std::vector<InstanceBlock>& a, std::vector<InstanceBlock>& b, std::vector<InstanceBlock>& out) {
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        if (i < a.size() && j < b.size() && blockKey(a[i]) == blockKey(b[j])) return false;
        if (j == b.size() || (i < a.size() && blockKey(a[i]) < blockKey(b[j]))) {
            out.push_back(std::move(a[i++]));
        } else {
            out.push_back(std::move(b[j++]));
        }
    }
    return true;
}

/// One bake: checks the options, sets up the passes' context and the placed layers, runs the
/// passes in rule order and assembles the scene from their results, working on the baker's
/// caches, hashes, placed layers and report.
class SceneBaker::BakeRun {
public:
    BakeRun(SceneBaker& baker, const BakeOptions& options) : mBaker(baker), mOptions(options) {}
    /// SceneBaker::bake, less the catch of what threads and containers throw.
    Result<Scene> run();

private:
    /// Runs every pass in rule order over ctx.order; `reach` is the baked tiles and their
    /// neighbours, where the placed layers live.
    Status runPasses(PassContext& ctx, std::span<const TileId> reach);
    Status runPass(const PassRule& pass, PassContext& ctx, std::span<const TileId> reach, PassReport& report);
    /// The tiles whose cached results fit BakeOptions::cacheBudgetBytes; fills the report's
    /// cache figures as they will be once the others are dropped (the kept results stay as
    /// they are, so nothing needs counting again).
    std::unordered_set<TileId> tilesWithinBudget(const PassContext& ctx) const;
    /// The scene of `tiles` (row-major) from the passes' results. With `keep`, the results of
    /// tiles it lacks are taken from the caches as they are used (moved into the scene where
    /// they can be), so the caches shrink while the scene grows.
    Scene assemble(const PassContext& ctx, std::vector<TileId> tiles, const std::unordered_set<TileId>* keep) const;
    /// Forgets the cached results of tiles not in `keep`.
    void keepOnly(const std::unordered_set<TileId>& keep) const;
    /// Appends tile t's instances to `items` in pass order, numbered for the scene: its
    /// buildings' and (or) its plants'.
    void tileItems(const TileId& t, bool buildings, bool plants, const BlockNumbering& numbering,
                   std::vector<Item>& items) const;
    /// Tile t's blocks into `out` (BakeOptions::keepPlantBlocks): its plant blocks are the last
    /// scene's when its vegetation results did not change (true is returned), else made again;
    /// `kept` receives them for the next bake. Its buildings' blocks are made each time (their
    /// sources are numbered per scene), and merged with the plants' in block order. A block
    /// that would hold both buildings and plants of one asset makes the tile's blocks the
    /// plain way, and keeps none.
    bool tileBlocksKeepingPlants(const TileId& t, const BlockNumbering& numbering, BlockScratch& s,
                                 std::vector<InstanceBlock>& out, std::optional<PlantBlocks>& kept) const;

    SceneBaker& mBaker;
    const BakeOptions& mOptions;
};

Result<Scene> SceneBaker::bake(const BakeOptions& options) {
    try {
        return BakeRun(*this, options).run();
    } catch (const std::exception& e) {
        // Threads and containers may throw (system_error, bad_alloc); core never does.
        return Error{std::string("bake failed: ") + e.what()};
    }
}

Result<Scene> SceneBaker::BakeRun::run() {
    const auto start = Clock::now();
    mBaker.mReport = BakeReport();
    if (!mBaker.mHaveRules) return Error{"bake: no rules set"};
    if (mOptions.blockCells < 1 || mOptions.blockCells > kTileCells) {
        return Error{"bake: block size " + std::to_string(mOptions.blockCells) + " cells is outside 1..256"};
    }
    if (Status s = checkLayers(*mBaker.mIndex, *mBaker.mBase); !s) return s.error();

    PassContext ctx;
    ctx.index = mBaker.mIndex;
    ctx.catalogue = mBaker.mCatalogue;
    ctx.rules = &mBaker.mRules;
    ctx.sceneSeed = mOptions.seed;
    ctx.threads = detail::workerCount(mOptions.threads);
    ctx.hashes = &mBaker.mHashes;
    ctx.warnings = &mBaker.mReport.warnings;
    ctx.frame.zoom = mBaker.mIndex->zoom();
    ctx.frame.origin = mOptions.origin ? *mOptions.origin : sceneOrigin(mBaker.mIndex->tiles());
    auto baked = bakedTiles(*mBaker.mIndex, mOptions);
    if (!baked) return baked.error();
    auto order = tileOrder(mOptions, *baked);
    if (!order) return order.error();
    ctx.order = std::move(*order);
    ctx.forgetUnbaked = mOptions.forgetUnbaked;
    auto sceneTiles = sceneTilesOf(mOptions, ctx.order);
    if (!sceneTiles) return sceneTiles.error();
    ctx.commonKey = commonKeyOf(mOptions.seed, ctx.frame, *mBaker.mCatalogue, mBaker.mRules);

    // The placed layers start clear over the baked tiles and their neighbours.
    const std::vector<TileId> reach = detail::tilesAround(ctx.order);
    terrainOf(mOptions, *mBaker.mBase, reach, *baked, ctx);
    if (ctx.terrain)
        ctx.commonKey = hashCombine(hashCombine(ctx.commonKey, std::uint64_t{0x7465727261696e}), ctx.originHeight);
    *mBaker.mLayers = PlacementLayers(*mBaker.mBase);
    mBaker.mLayers->placedBuildings() = OccupancyMap(reach);
    mBaker.mLayers->placedVegetation() = OccupancyMap(reach);
    ctx.layers = mBaker.mLayers.get();
    std::vector<int> all(mBaker.mLayers->layerNames().size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    mBaker.mHashes.clear();
    mBaker.mHashes.compute(*mBaker.mLayers, reach, all, ctx.threads);
    if (ctx.terrain) mBaker.mHashes.computeHeights(*mBaker.mBase, reach, ctx.threads);

    if (Status s = runPasses(ctx, reach); !s) return s.error();
    const std::size_t passCount = mBaker.mRules.passes().size();
    if (!reportProgress(mOptions.progress, static_cast<double>(passCount) / static_cast<double>(passCount + 1),
                        "assembling")) {
        return cancelled("bake cancelled while assembling the scene");
    }
    std::optional<std::unordered_set<TileId>> keep;
    if (mOptions.cacheBudgetBytes) keep = tilesWithinBudget(ctx);
    Scene scene = assemble(ctx, std::move(*sceneTiles), keep ? &*keep : nullptr);
    if (keep) {
        keepOnly(*keep);
    } else {
        const CacheFootprint held = mBaker.cacheFootprint();
        mBaker.mReport.cachedTiles = held.tiles;
        mBaker.mReport.cachedBytes = held.bytes;
    }
    mBaker.mReport.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    reportProgress(mOptions.progress, 1.0, "assembling");
    return scene;
}

Status SceneBaker::BakeRun::runPasses(PassContext& ctx, std::span<const TileId> reach) {
    const std::size_t passCount = mBaker.mRules.passes().size();
    for (std::size_t p = 0; p < passCount; ++p) {
        const PassRule& pass = mBaker.mRules.passes()[p];
        // Each pass reports 0..1 of its own share; the assembly has the last share.
        ctx.progress = [&progress = mOptions.progress, p, passCount](double f, std::string_view stage) {
            return !progress || progress((static_cast<double>(p) + f) / static_cast<double>(passCount + 1), stage);
        };
        PassReport report;
        if (Status s = runPass(pass, ctx, reach, report); !s) return s;
        mBaker.mReport.passes.push_back(std::move(report));
    }
    // Passes no longer in the rules keep nothing.
    std::unordered_set<std::string> current;
    for (const PassRule& p : mBaker.mRules.passes()) current.insert(p.name);
    std::erase_if(mBaker.mBuildingPasses, [&](const auto& kv) { return !current.contains(kv.first); });
    std::erase_if(mBaker.mSurfacePasses, [&](const auto& kv) { return !current.contains(kv.first); });
    std::erase_if(mBaker.mVegetationPasses, [&](const auto& kv) { return !current.contains(kv.first); });
    return Status::success();
}

Status SceneBaker::BakeRun::runPass(const PassRule& pass, PassContext& ctx, std::span<const TileId> reach,
                                    PassReport& report) {
    // A pass that writes a placed layer rehashes it: later passes key their tiles on it.
    const auto rehash = [&](int layer) {
        mBaker.mHashes.compute(*mBaker.mLayers, reach, std::vector<int>{layer}, ctx.threads);
    };
    switch (pass.kind) {
        case PassKind::Buildings:
            if (Status s = mBaker.mBuildingPasses[pass.name].run(pass, ctx, report); !s) return s;
            rehash(mBaker.mLayers->placedBuildingsLayer());
            break;
        case PassKind::Surface:
            return mBaker.mSurfacePasses[pass.name].run(pass, ctx, report);
        case PassKind::Vegetation:
            if (Status s = mBaker.mVegetationPasses[pass.name].run(pass, ctx, report); !s) return s;
            rehash(mBaker.mLayers->placedVegetationLayer());
            break;
    }
    return Status::success();
}

SceneBaker::CacheFootprint SceneBaker::cacheFootprint() const {
    CacheFootprint out;
    for (const auto& [t, bytes] : cachedBytesByTile(mBuildingPasses, mSurfacePasses, mVegetationPasses)) {
        ++out.tiles;
        out.bytes += bytes;
    }
    return out;
}

SceneBaker::CacheFootprint SceneBaker::cacheFootprint(std::span<const TileId> tiles) const {
    const std::unordered_map<TileId, std::size_t> bytes =
        cachedBytesByTile(mBuildingPasses, mSurfacePasses, mVegetationPasses);
    const std::unordered_set<TileId> wanted(tiles.begin(), tiles.end());
    CacheFootprint out;
    for (const TileId& t : wanted) {
        if (const auto it = bytes.find(t); it != bytes.end()) {
            ++out.tiles;
            out.bytes += it->second;
        }
    }
    return out;
}

std::unordered_set<TileId> SceneBaker::BakeRun::tilesWithinBudget(const PassContext& ctx) const {
    const std::unordered_map<TileId, std::size_t> bytes =
        cachedBytesByTile(mBaker.mBuildingPasses, mBaker.mSurfacePasses, mBaker.mVegetationPasses);
    const std::vector<TileId>& priority = mOptions.cachePriority.empty() ? ctx.order : mOptions.cachePriority;
    std::unordered_set<TileId> keep;
    std::size_t sum = 0;
    for (const TileId& t : priority) {
        const auto it = bytes.find(t);
        if (it == bytes.end() || keep.contains(t)) continue;
        if (sum + it->second > *mOptions.cacheBudgetBytes) break;  // the nearest tiles first, without gaps
        sum += it->second;
        keep.insert(t);
    }
    mBaker.mReport.cachedTiles = keep.size();
    mBaker.mReport.cachedBytes = sum;
    mBaker.mReport.droppedTiles = bytes.size() - keep.size();
    return keep;
}

void SceneBaker::BakeRun::keepOnly(const std::unordered_set<TileId>& keep) const {
    for (auto& [name, pass] : mBaker.mBuildingPasses) pass.keepOnly(keep);
    for (auto& [name, pass] : mBaker.mSurfacePasses) pass.keepOnly(keep);
    for (auto& [name, pass] : mBaker.mVegetationPasses) pass.keepOnly(keep);
}

void SceneBaker::BakeRun::tileItems(const TileId& t, bool buildings, bool plants, const BlockNumbering& numbering,
                                    std::vector<Item>& items) const {
    const std::size_t first = items.size();
    for (const PassRule& pass : mBaker.mRules.passes()) {
        if (pass.kind == PassKind::Buildings && buildings) {
            if (const auto* r = resultOf(mBaker.mBuildingPasses, pass.name, t)) {
                buildingItems(*r, t, numbering.frame, mOptions.blockCells, items);
            }
        } else if (pass.kind == PassKind::Vegetation && plants) {
            if (const auto* r = resultOf(mBaker.mVegetationPasses, pass.name, t)) {
                for (const PlantedInstance& p : r->instances) {
                    items.push_back(
                        {t, p.cellX / mOptions.blockCells, p.cellY / mOptions.blockCells, p.asset, p.instance()});
                }
            }
        }
    }
    for (std::size_t k = first; k < items.size(); ++k) {
        Item& i = items[k];
        i.asset = numbering.sceneAsset.at(i.asset);
        // Building instances name their footprint as their source.
        if (i.featureId) i.instance.source = numbering.sourceOf.at(*i.featureId);
    }
}

bool SceneBaker::BakeRun::tileBlocksKeepingPlants(const TileId& t, const BlockNumbering& numbering, BlockScratch& s,
                                                  std::vector<InstanceBlock>& out,
                                                  std::optional<PlantBlocks>& kept) const {
    PlantBlocks now;
    now.blockCells = mOptions.blockCells;
    for (const PassRule& pass : mBaker.mRules.passes()) {
        if (pass.kind != PassKind::Vegetation) continue;
        const auto* r = resultOf(mBaker.mVegetationPasses, pass.name, t);
        now.keys.push_back(r ? r->key : 0);
    }
    s.plants.clear();
    const auto last = mBaker.mPlantBlocks.find(t);
    const bool same =
        last != mBaker.mPlantBlocks.end() && last->second.blockCells == now.blockCells && last->second.keys == now.keys;
    if (same) {
        // The last scene's blocks, their instances shared; its assets numbered for this scene.
        for (const InstanceBlock& b : last->second.blocks) {
            s.plants.push_back(b);
            s.plants.back().asset = numbering.sceneAsset.at(b.asset);
        }
        std::sort(s.plants.begin(), s.plants.end(),
                  [](const InstanceBlock& a, const InstanceBlock& b) { return blockKey(a) < blockKey(b); });
    } else {
        s.items.clear();
        tileItems(t, false, true, numbering, s.items);
        makeTileBlocks(s.items, numbering.assets, numbering.used, s.order, s.plants);
    }
    s.items.clear();
    tileItems(t, true, false, numbering, s.items);
    s.buildings.clear();
    makeTileBlocks(s.items, numbering.assets, numbering.used, s.order, s.buildings);
    const std::size_t first = out.size();
    now.blocks = s.plants;  // shares their instances
    if (!mergeBlocks(s.buildings, s.plants, out)) {
        out.resize(first);
        s.items.clear();
        tileItems(t, true, true, numbering, s.items);
        makeTileBlocks(s.items, numbering.assets, numbering.used, s.order, out);
        return false;
    }
    for (InstanceBlock& b : now.blocks) b.asset = numbering.used[static_cast<std::size_t>(b.asset)];
    kept = std::move(now);
    return same;
}

Scene SceneBaker::BakeRun::assemble(const PassContext& ctx, std::vector<TileId> tiles,
                                    const std::unordered_set<TileId>* keep) const {
    const auto dropping = [keep](const TileId& t) { return keep && !keep->contains(t); };
    Scene scene;
    scene.frame = ctx.frame;
    scene.seed = ctx.sceneSeed;
    scene.layerNames = ctx.layers->layerNames();
    scene.blockCells = mOptions.blockCells;
    scene.tiles = std::move(tiles);  // row-major
    scene.terrain = ctx.terrain;
    scene.originHeight = ctx.terrain ? ctx.originHeight : 0.0;
    Gathered gathered;
    const auto assets = mBaker.mCatalogue->assets();
    gathered.plantAssets.assign(assets.size(), 0);
    // Listed once at their size rather than grown by doubling: a country has hundreds of
    // thousands.
    std::size_t records = 0;
    for (const auto& [name, pass] : mBaker.mBuildingPasses) {
        for (const TileId& t : scene.tiles) {
            if (const TileBuildings* r = pass.tile(t)) records += r->buildings.size();
        }
    }
    gathered.records.reserve(records);
    for (std::size_t passIndex = 0; passIndex < mBaker.mRules.passes().size(); ++passIndex) {
        const PassRule& pass = mBaker.mRules.passes()[passIndex];
        for (const TileId& t : scene.tiles) {
            switch (pass.kind) {
                case PassKind::Buildings:
                    if (const auto* r = resultOf(mBaker.mBuildingPasses, pass.name, t)) {
                        gatherBuildings(*r, t, ctx, gathered);
                    }
                    break;
                case PassKind::Surface:
                    if (dropping(t)) {
                        const auto it = mBaker.mSurfacePasses.find(pass.name);
                        std::optional<TileSurfaces> r;
                        if (it != mBaker.mSurfacePasses.end()) r = it->second.take(t);
                        if (r) std::move(r->patches.begin(), r->patches.end(), std::back_inserter(scene.surfaces));
                    } else if (const auto* r = resultOf(mBaker.mSurfacePasses, pass.name, t)) {
                        scene.surfaces.insert(scene.surfaces.end(), r->patches.begin(), r->patches.end());
                    }
                    break;
                case PassKind::Vegetation:
                    if (const auto* r = resultOf(mBaker.mVegetationPasses, pass.name, t)) {
                        gatherVegetation(*r, t, passIndex, scene, gathered);
                    }
                    break;
            }
        }
    }
    std::unordered_map<int, int> sceneAsset;
    const std::vector<int> used = numberAssets(assets, gathered, sceneAsset, scene);
    const std::unordered_map<std::string, std::uint32_t> sourceOf = numberSources(sceneAsset, gathered, scene);
    // The instances go into blocks a tile at a time, from every pass in pass order: a region's
    // millions are never listed all at once (as one list they were 270 MB at the app's peak on
    // monaco-region, twice what they held, grown by doubling). Tiles make their blocks in
    // parallel, a run of them at a time (a country's 20 million plants took 3.8 s on one
    // thread); the runs' blocks then join the scene in tile order, so any thread count gives
    // the same scene, and dropped tiles give up their results run by run.
    scene.statistics.instancesPerAsset.assign(scene.assets.size(), 0);
    const BlockNumbering numbering{ctx.frame, assets, used, sceneAsset, sourceOf};
    const int threads = std::max(1, ctx.threads);
    std::vector<BlockScratch> scratch(static_cast<std::size_t>(threads));
    const std::size_t run = 64 * static_cast<std::size_t>(threads);
    std::vector<std::vector<InstanceBlock>> made;
    // With keepPlantBlocks, each tile's plant blocks as this scene holds them, for the next bake.
    std::vector<std::optional<PlantBlocks>> plants(mOptions.keepPlantBlocks ? scene.tiles.size() : 0);
    std::atomic<std::size_t> shared{0};
    for (std::size_t from = 0; from < scene.tiles.size(); from += run) {
        const std::size_t n = std::min(run, scene.tiles.size() - from);
        made.assign(n, {});
        detail::parallelFor(n, threads, [&](std::size_t k, int worker) {
            BlockScratch& s = scratch[static_cast<std::size_t>(worker)];
            const TileId& t = scene.tiles[from + k];
            if (!mOptions.keepPlantBlocks) {
                s.items.clear();
                tileItems(t, true, true, numbering, s.items);
                makeTileBlocks(s.items, assets, used, s.order, made[k]);
            } else if (tileBlocksKeepingPlants(t, numbering, s, made[k], plants[from + k])) {
                ++shared;
            }
        });
        for (std::size_t k = 0; k < n; ++k) {
            for (InstanceBlock& b : made[k]) {
                scene.statistics.instancesPerAsset[static_cast<std::size_t>(b.asset)] += b.instances.size();
                scene.blocks.push_back(std::move(b));
            }
            const TileId& t = scene.tiles[from + k];
            if (dropping(t)) {
                // Its instances are in the blocks now; the rest of its results go with them.
                for (auto& [name, pass] : mBaker.mBuildingPasses) pass.take(t);
                for (auto& [name, pass] : mBaker.mVegetationPasses) pass.take(t);
            }
        }
    }
    mBaker.mPlantBlocks.clear();
    for (std::size_t i = 0; i < plants.size(); ++i) {
        if (plants[i]) mBaker.mPlantBlocks.emplace(scene.tiles[i], std::move(*plants[i]));
    }
    mBaker.mReport.plantTilesShared = shared;
    sortSurfaces(scene);
    computeDensities(gathered.requestedTotal, scene.statistics);
    if (scene.terrain) heightRange(*mBaker.mBase, scene.tiles, ctx.threads, scene.statistics);
    footprintFigures(*mBaker.mLayers, mBaker.mRules, scene.tiles, ctx.threads, scene.statistics);
    return scene;
}

}  // namespace terrabit::core::placement
