#include "terrabit/render/scene_graph.h"

#include <osg/Geode>
#include <osg/LOD>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>

#include "terrabit/core/export/tileset_levels.h"
#include "terrabit/core/placement/surface_shape.h"
#include "terrabit/core/scene/surface_paint.h"
#include "terrabit/render/instanced_block.h"
#include "terrabit/render/mask_tiles.h"
#include "terrabit/render/tile_geometry.h"

namespace terrabit::render {

namespace {

/// Fingerprints of what a sub-graph shows: equal fingerprints mean the node can stay.
class Fingerprint {
public:
    void add(std::uint64_t v) {
        // splitmix64's finaliser on the running state: cheap, and every input bit reaches every
        // output bit.
        std::uint64_t z = mState ^ (v + 0x9e3779b97f4a7c15ULL + (mState << 6) + (mState >> 2));
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        mState = z ^ (z >> 31);
    }
    void add(float f) { add(static_cast<std::uint64_t>(std::bit_cast<std::uint32_t>(f))); }
    void add(std::string_view s) {
        add(static_cast<std::uint64_t>(s.size()));
        for (char c : s) add(static_cast<std::uint64_t>(static_cast<unsigned char>(c)));
    }
    std::uint64_t value() const { return mState; }

private:
    std::uint64_t mState = 0x2545f4914f6cdd1dULL;
};

/// What a real-shape surface looks like: its triangles' corners.
std::uint64_t shapeKey(const core::SurfaceShape& shape) {
    Fingerprint f;
    f.add(static_cast<std::uint64_t>(shape.triangles.size()));
    for (const core::Vec2& v : shape.triangles) {
        f.add(std::bit_cast<std::uint64_t>(v.x));
        f.add(std::bit_cast<std::uint64_t>(v.y));
    }
    return f.value();
}

osg::BoundingBox tileBox(const TilePlacement& p) {
    const osg::Vec3d a = p.at(0, 0), b = p.at(core::kTileCells, core::kTileCells);
    return {osg::Vec3(std::min(a.x(), b.x()), 0.0f, std::min(a.z(), b.z())),
            osg::Vec3(std::max(a.x(), b.x()), 0.0f, std::max(a.z(), b.z()))};
}

osg::BoundingBox osgBoundsOf(const core::Box3f& b) {
    if (b.empty()) return {};
    return {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z};
}

void replaceOrAdd(osg::Group& group, osg::Node* old, osg::Node* node) {
    if (old && node) {
        group.replaceChild(old, node);
    } else if (old) {
        group.removeChild(old);
    } else if (node) {
        group.addChild(node);
    }
}

}  // namespace

struct SceneGraph::TileInput {
    std::vector<const core::InstanceBlock*> blocks;
    std::vector<const core::SurfacePatch*> surfaces;
    std::vector<const core::Plinth*> plinths;
    std::vector<const core::GeneratedBuilding*> generated;
    std::vector<const core::BridgeDeck*> bridges;
    const MaskTiles* mask = nullptr;
    /// On terrain: the tile's ground mesh (nullptr: the flat quad at y = 0).
    const core::GroundTile* ground = nullptr;
    const core::Scene* scene = nullptr;
    const std::vector<AssetModel>* models = nullptr;
    const std::vector<std::string>* assets = nullptr;
};

SceneGraph::SceneGraph(const core::AssetCatalogue& catalogue, AssetModelCache& models, SceneGraphOptions options)
    : mCatalogue(&catalogue), mModels(&models), mOptions(std::move(options)) {
    mRoot = new osg::Group;
    mRoot->setName("terrabit scene");
    applyLighting(*mRoot->getOrCreateStateSet(), mOptions.lighting);
    mSun = makeSunLight(mOptions.lighting);
    mSun->setName("sun");
    mSun->setStateSetModes(*mRoot->getOrCreateStateSet(), osg::StateAttribute::ON);
    mTilesGroup = new osg::Group;
    mTilesGroup->setName("tiles");
    mOverlays = new osg::Group;
    mOverlays->setName("overlays");
    mProbes = new osg::Group;
    mProbes->setName("probes");
    mRoot->addChild(mSun);
    mRoot->addChild(mTilesGroup);
    mRoot->addChild(mOverlays);
    mRoot->addChild(mProbes);
    mInstancingState = makeInstancingStateSet();
}

SceneGraph::~SceneGraph() = default;

core::Status SceneGraph::setScene(const core::Scene& scene, const core::LayerSource* layers) {
    if (auto synced = syncTiles(scene, layers, {}); !synced) return synced.error();
    return core::Status::success();
}

core::Status SceneGraph::updateTile(const core::Scene& scene, const core::LayerSource* layers,
                                    const core::TileId& tile) {
    const core::TileId only[] = {tile};
    return updateTiles(scene, layers, only);
}

core::Status SceneGraph::updateTiles(const core::Scene& scene, const core::LayerSource* layers,
                                     std::span<const core::TileId> tiles) {
    if (auto updated = updateTilesUntil(scene, layers, tiles, std::chrono::steady_clock::time_point::max()); !updated) {
        return updated.error();
    }
    return core::Status::success();
}

core::Result<std::size_t> SceneGraph::updateTilesUntil(const core::Scene& scene, const core::LayerSource* layers,
                                                       std::span<const core::TileId> tiles,
                                                       std::chrono::steady_clock::time_point deadline) {
    if (tiles.empty()) return std::size_t{0};
    if (mHaveFrame && (scene.frame.origin != mFrame.origin || scene.frame.zoom != mFrame.zoom)) {
        return core::Error{"update of tile " + tiles.front().quadkey() +
                           ": the scene's frame differs from the graph's; show the new scene with setScene"};
    }
    return syncTiles(scene, layers, tiles, deadline);
}

core::Result<std::size_t> SceneGraph::syncTiles(const core::Scene& scene, const core::LayerSource* layers,
                                                std::span<const core::TileId> only,
                                                std::chrono::steady_clock::time_point deadline) {
    // Everything that can fail happens before the graph is touched, so an error leaves it whole.
    std::vector<AssetModel> models;
    models.reserve(scene.assets.size());
    if (mOptions.instances) {
        for (const std::string& id : scene.assets) {
            const core::AssetInfo* info = mCatalogue->find(id);
            if (!info) return core::Error{"scene asset '" + id + "' is not in the catalogue"};
            core::Result<AssetModel> model = mModels->model(*info);
            if (!model) return core::Error{"scene asset '" + id + "': " + model.message()};
            models.push_back(std::move(model).value());
        }
    }
    const std::vector<core::TileId> wanted =
        only.empty() ? scene.tiles : std::vector<core::TileId>(only.begin(), only.end());
    std::optional<MaskTiles> mask;
    if (mOptions.ground && !mOptions.groundExpression.empty() && layers) {
        core::algebra::ExpressionOptions opts;
        opts.zoom = scene.frame.zoom;
        opts.latitude = scene.frame.origin.lat;
        opts.seed = scene.seed;
        core::Result<MaskTiles> m = MaskTiles::evaluate(*layers, wanted, mOptions.groundExpression, opts, false);
        if (!m) return m.error();
        mask = std::move(m).value();
    }

    mReport = {};
    const bool frameChanged = !mHaveFrame || scene.frame.origin != mFrame.origin || scene.frame.zoom != mFrame.zoom;
    if (frameChanged) {
        while (!mTiles.empty()) removeTile(mTiles.begin());
    }
    mFrame = scene.frame;
    mHaveFrame = true;
    mSeed = scene.seed;
    mAssets = scene.assets;

    std::map<core::TileId, TileInput> inputs;
    const std::set<core::TileId> wantedSet(wanted.begin(), wanted.end());
    // The scene keeps its tiles, and each kind of item, north to south (core::Scene): a call for
    // a few tiles (the viewport's slices make thousands) finds theirs by binary search instead
    // of walking the whole scene each time. A scene in another order is walked.
    const SceneOrder& order = orderOf(scene);
    const bool tilesSorted = order.tiles;
    const std::set<core::TileId> sceneTiles =
        tilesSorted ? std::set<core::TileId>() : std::set<core::TileId>(scene.tiles.begin(), scene.tiles.end());
    for (const core::TileId& t : wanted) {
        const bool inScene = tilesSorted
                                 ? std::binary_search(scene.tiles.begin(), scene.tiles.end(), t, core::northToSouth)
                                 : sceneTiles.count(t) > 0;
        if (inScene) {
            TileInput& in = inputs[t];
            in.mask = mask ? &*mask : nullptr;
            in.scene = &scene;
            if (scene.terrain) {
                in.ground = scene.groundOf(t);
                if (in.ground && in.ground->mesh.empty()) in.ground = nullptr;
            }
            in.models = &models;
            in.assets = &scene.assets;
        }
    }
    // Each input tile's items of one kind, in the scene's order.
    const auto collect = [&inputs](const auto& items, bool sorted, auto member, auto accept) {
        using Item = typename std::decay_t<decltype(items)>::value_type;
        if (sorted) {
            for (auto& [tile, input] : inputs) {
                for (const Item& item : std::ranges::equal_range(items, tile, core::northToSouth, &Item::tile)) {
                    if (accept(item)) (input.*member).push_back(&item);
                }
            }
            return;
        }
        for (const Item& item : items) {
            const auto it = inputs.find(item.tile);
            if (it != inputs.end() && accept(item)) (it->second.*member).push_back(&item);
        }
    };
    const auto any = [](const auto&) { return true; };
    if (mOptions.instances) {
        collect(scene.blocks, order.blocks, &TileInput::blocks, [&](const core::InstanceBlock& b) {
            return !b.instances.empty() && b.asset >= 0 && static_cast<std::size_t>(b.asset) < scene.assets.size();
        });
    }
    collect(scene.surfaces, order.surfaces, &TileInput::surfaces, any);
    if (mOptions.instances) {
        collect(scene.plinths, order.plinths, &TileInput::plinths, any);
        collect(scene.generated, order.generated, &TileInput::generated, any);
    }
    collect(scene.bridges, order.bridges, &TileInput::bridges, any);

    // Tiles the scene no longer holds (among those this call looks at) go: a call for a few
    // tiles looks only them up (the viewport's slices make thousands of calls on a graph of
    // thousands of tiles).
    if (only.empty()) {
        for (auto it = mTiles.begin(); it != mTiles.end();) {
            if (!inputs.count(it->first)) {
                removeTile(it++);
            } else {
                ++it;
            }
        }
    } else {
        for (const core::TileId& t : wantedSet) {
            const auto it = mTiles.find(t);
            if (it != mTiles.end() && !inputs.count(t)) removeTile(it);
        }
    }
    if (deadline == std::chrono::steady_clock::time_point::max()) {
        // All of them, in the graph's own (sorted) order: a written graph's bytes depend on it.
        for (const auto& [tile, input] : inputs) syncTile(tile, input, layers);
        if (mGridVisible) rebuildGrid();
        return wanted.size();
    }
    // In the order asked for, so that a late call has brought in the leading tiles.
    std::size_t taken = 0;
    while (taken < wanted.size()) {
        const core::TileId& tile = wanted[taken++];
        if (const auto in = inputs.find(tile); in != inputs.end()) syncTile(tile, in->second, layers);
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    if (mGridVisible) rebuildGrid();
    return taken;
}

const SceneGraph::SceneOrder& SceneGraph::orderOf(const core::Scene& scene) {
    const std::array<const void*, 6> data{scene.tiles.data(),   scene.blocks.data(),    scene.surfaces.data(),
                                          scene.plinths.data(), scene.generated.data(), scene.bridges.data()};
    const std::array<std::size_t, 6> sizes{scene.tiles.size(),   scene.blocks.size(),    scene.surfaces.size(),
                                           scene.plinths.size(), scene.generated.size(), scene.bridges.size()};
    std::array<core::TileId, 12> ends{};
    const auto endsOf = [&](const auto& items, std::size_t k) {
        if (items.empty()) return;
        using Item = typename std::decay_t<decltype(items)>::value_type;
        if constexpr (std::is_same_v<Item, core::TileId>) {
            ends[2 * k] = items.front();
            ends[2 * k + 1] = items.back();
        } else {
            ends[2 * k] = items.front().tile;
            ends[2 * k + 1] = items.back().tile;
        }
    };
    endsOf(scene.tiles, 0);
    endsOf(scene.blocks, 1);
    endsOf(scene.surfaces, 2);
    endsOf(scene.plinths, 3);
    endsOf(scene.generated, 4);
    endsOf(scene.bridges, 5);
    if (data == mOrder.data && sizes == mOrder.sizes && ends == mOrder.ends) return mOrder;
    mOrder.ends = ends;
    const auto sorted = [](const auto& items) {
        using Item = typename std::decay_t<decltype(items)>::value_type;
        return std::ranges::is_sorted(items, core::northToSouth, &Item::tile);
    };
    mOrder.data = data;
    mOrder.sizes = sizes;
    mOrder.tiles = std::is_sorted(scene.tiles.begin(), scene.tiles.end(), core::northToSouth);
    mOrder.blocks = sorted(scene.blocks);
    mOrder.surfaces = sorted(scene.surfaces);
    mOrder.plinths = sorted(scene.plinths);
    mOrder.generated = sorted(scene.generated);
    mOrder.bridges = sorted(scene.bridges);
    return mOrder;
}

void SceneGraph::removeTile(std::map<core::TileId, TileEntry>::iterator it) {
    TileEntry& e = it->second;
    mReport.removed += (e.ground.node ? 1 : 0) + (e.plinths.node ? 1 : 0) + (e.generated.node ? 1 : 0) +
                       (e.buildingBoxes.node ? 1 : 0) + e.surfaceEntries.size() + e.blocks.size();
    mTilesGroup->removeChild(e.group);
    if (const auto quad = mHeatQuads.find(it->first); quad != mHeatQuads.end()) {
        if (quad->second.node && mHeat) mHeat->removeChild(quad->second.node);
        mHeatQuads.erase(quad);
    }
    mTiles.erase(it);
}

namespace {

/// How far out plants and props are drawn as their cards, all of them and then the share a
/// thinned level keeps (times DistanceLod::instances).
constexpr double kCardReach = 2.0;
constexpr float kThinnedShare = 0.25f;
constexpr double kThinnedReach = 4.0;

/// `node` drawn while the eye is within [near, far) metres of its tile's centre. Every level of a
/// tile measures to the same point, so its building blocks and its boxes take turns exactly
/// (measured to each block's own centre, both or neither would show near the boundary).
osg::ref_ptr<osg::LOD> tileLod(const TilePlacement& tile, osg::ref_ptr<osg::Node> node, double near, double far) {
    osg::ref_ptr<osg::LOD> lod = new osg::LOD;
    lod->setCenterMode(osg::LOD::UNION_OF_BOUNDING_SPHERE_AND_USER_DEFINED);
    lod->setCenter(tile.at(0.5 * core::kTileCells, 0.5 * core::kTileCells));
    lod->setRadius(0.0);
    lod->addChild(node, static_cast<float>(near), static_cast<float>(far));
    lod->setName(node->getName());
    return lod;
}

/// DetailView: the coarsest ground image a tile gets, 16 × 16 texels (1 KiB), and how many
/// times finer than the view needs an image may be before it is made anew.
constexpr int kMinGroundSide = 16;
constexpr int kGroundSlack = 4;
/// DetailView: a tile's blocks (and dressed buildings) come back within this many times their
/// farthest range, and go beyond this many: the first so they are in before a level draws them,
/// the two apart so a tile on the edge is not rebuilt back and forth.
constexpr double kDetailBack = 1.2;
constexpr double kDetailGone = 1.5;

}  // namespace

SceneGraph::Detail SceneGraph::detailOf(const core::TileId& tile, const TileEntry* held) const {
    Detail d;
    if (!mView) return d;
    const TilePlacement placement = tilePlacement(mFrame, tile);
    // As the levels measure: to the tile's centre (tileLod).
    const osg::Vec3d centre = placement.at(0.5 * core::kTileCells, 0.5 * core::kTileCells);
    const double toCentre = (mView->eye - centre).length();
    if (mView->pixelsPerRadian > 0.0) {
        // Its ground's box (on terrain it stands above or below y = 0): the nearest point of it.
        const osg::BoundingBox box = held && held->ground.node ? held->ground.box : tileBox(placement);
        const osg::Vec3d eye = mView->eye;
        const osg::Vec3d nearest{std::clamp(eye.x(), double(box.xMin()), double(box.xMax())),
                                 std::clamp(eye.y(), double(box.yMin()), double(box.yMax())),
                                 std::clamp(eye.z(), double(box.zMin()), double(box.zMax()))};
        const double across = (placement.at(core::kTileCells, 0) - placement.at(0, 0)).length();
        const double pixels = across / std::max((eye - nearest).length(), 1.0) * mView->pixelsPerRadian;
        int side = kMinGroundSide;
        while (side < kFullGroundSide && side < pixels) side *= 2;
        const bool keepFiner = held && held->groundSide > side && held->groundSide < kGroundSlack * side;
        d.groundSide = keepFiner ? held->groundSide : side;
    }
    const double reach = std::max(mOptions.lod.buildings, kThinnedReach * mOptions.lod.instances);
    if (mOptions.lod.buildings > 0.0 && mOptions.lod.instances > 0.0) {
        d.blocks = toCentre < reach * (held && held->holdsBlocks ? kDetailGone : kDetailBack);
        const bool dressed = held && held->generatedDetail == core::GeneratedDetail::Dressed;
        d.generated = toCentre < mOptions.lod.buildings * (dressed ? kDetailGone : kDetailBack)
                          ? core::GeneratedDetail::Dressed
                          : core::GeneratedDetail::Block;
        d.markings = toCentre < mOptions.lod.buildings * (held && held->holdsMarkings ? kDetailGone : kDetailBack);
    }
    return d;
}

std::vector<core::TileId> SceneGraph::tilesOutOfDetail() const {
    std::vector<std::pair<double, core::TileId>> off;
    for (const auto& [tile, e] : mTiles) {
        const Detail want = detailOf(tile, &e);
        const bool ground = e.groundSide != 0 && e.groundSide != want.groundSide;
        const bool blocks = e.hasBlocks && e.holdsBlocks != want.blocks;
        const bool generated = e.generated.node && e.generatedDetail != want.generated;
        const bool markings = e.hasMarkings && e.holdsMarkings != want.markings;
        if (!ground && !blocks && !generated && !markings) continue;
        const TilePlacement placement = tilePlacement(mFrame, tile);
        const osg::Vec3d centre = placement.at(0.5 * core::kTileCells, 0.5 * core::kTileCells);
        off.emplace_back(mView ? (mView->eye - centre).length2() : 0.0, tile);
    }
    std::sort(off.begin(), off.end());
    std::vector<core::TileId> out;
    out.reserve(off.size());
    for (const auto& [distance, tile] : off) out.push_back(tile);
    return out;
}

void SceneGraph::syncTile(const core::TileId& tile, const TileInput& input, const core::LayerSource* layers) {
    auto [it, inserted] = mTiles.try_emplace(tile);
    TileEntry& e = it->second;
    const Detail detail = detailOf(tile, inserted ? nullptr : &e);
    if (inserted) {
        e.group = new osg::Group;
        e.group->setName(tile.quadkey());
        e.surfaces = new osg::Group;
        e.surfaces->setName("surfaces");
        e.instances = new osg::Group;
        e.instances->setName("instances");
        e.instances->setStateSet(mInstancingState);
        e.group->addChild(e.surfaces);
        e.group->addChild(e.instances);
        mTilesGroup->addChild(e.group);
    }
    const TilePlacement placement = tilePlacement(mFrame, tile);

    // Surfaces below the ground show through holes cut into it.
    // Around sunken surfaces in their real shapes the ground takes their outline instead.
    std::vector<core::CellRect> holes;
    std::vector<const core::SurfaceShape*> sunkenShapes;
    if (mOptions.surfaces) {
        for (const core::SurfacePatch* p : input.surfaces) {
            if (p->elevation >= 0.0f) continue;
            if (p->shape.empty()) {
                holes.insert(holes.end(), p->rects.begin(), p->rects.end());
            } else {
                sunkenShapes.push_back(&p->shape);
            }
        }
    }

    // On terrain, the ground mesh and the frame it stands in: the ground and every draped
    // surface change with it.
    std::uint64_t meshKey = 0;
    if (input.ground) {
        Fingerprint m;
        m.add(std::bit_cast<std::uint64_t>(input.scene->originHeight));
        for (const core::terrain::GroundVertex& v : input.ground->mesh.vertices) {
            m.add(static_cast<std::uint64_t>(v.column) << 48 | static_cast<std::uint64_t>(v.row) << 32 |
                  std::bit_cast<std::uint32_t>(v.height));
        }
        m.add(static_cast<std::uint64_t>(input.ground->mesh.indices.size()));
        meshKey = m.value();
    }

    // Ground. The layers of surfaces drawn in their real shapes are not painted on it: their
    // cells would show as a staircase of colour beside the smooth edges (a road's, a shore's);
    // what lies under them (a park, bare earth) shows there instead.
    if (mOptions.ground) {
        GroundStyle style = mOptions.style;
        if (mOptions.surfaces) {
            std::erase_if(style.layers, [&](const core::LayerInfo& info) {
                return std::any_of(input.surfaces.begin(), input.surfaces.end(), [&](const core::SurfacePatch* p) {
                    return !p->shape.empty() && p->layer == info.name;
                });
            });
        }
        Fingerprint f;
        const core::BitTile* maskBits = nullptr;
        if (input.mask) {
            maskBits = input.mask->tile(tile);
            f.add(std::string_view(input.mask->expression()));
            f.add(maskBits ? maskBits->hash() : 0u);
            const core::Rgb c = mOptions.groundExpressionColour;
            f.add(static_cast<std::uint64_t>(c.r << 16 | c.g << 8 | c.b));
        } else if (layers) {
            for (const core::LayerInfo& info : style.layers) {
                const int id = layers->layerId(info.name);
                const core::BitTile* bits = id >= 0 ? layers->tile(tile, id) : nullptr;
                f.add(std::string_view(info.name));
                f.add(bits ? bits->hash() : 0u);
                f.add(static_cast<std::uint64_t>(info.colour.r << 16 | info.colour.g << 8 | info.colour.b));
            }
        }
        for (const core::CellRect& r : holes) {
            f.add(static_cast<std::uint64_t>(r.x0) << 48 | static_cast<std::uint64_t>(r.y0) << 32 |
                  static_cast<std::uint64_t>(r.x1) << 16 | r.y1);
        }
        if (input.ground) f.add(meshKey);
        for (const core::SurfaceShape* shape : sunkenShapes) f.add(shapeKey(*shape));
        f.add(static_cast<std::uint64_t>(detail.groundSide));
        const std::uint64_t key = f.value();
        if (e.ground.node && e.ground.key == key) {
            ++mReport.kept;
        } else {
            osg::ref_ptr<osg::Image> image;
            if (input.mask) {
                image = maskBits ? makeMaskGroundImage(*maskBits, mOptions.groundExpressionColour, style)
                                 : makeMaskGroundImage(core::BitTile{}, mOptions.groundExpressionColour, style);
            } else if (layers) {
                image = makeGroundImage(*layers, tile, style);
            } else {
                image = makeMaskGroundImage(core::BitTile{}, style.bare, style);
            }
            cutGroundHoles(*image, holes);
            if (detail.groundSide < kFullGroundSide) image = shrinkGroundImage(*image, detail.groundSide);
            core::SurfaceShape around;
            bool shapedAround = false;  // the ground is the tile less the sunken shapes
            if (!sunkenShapes.empty()) {
                core::placement::SurfaceShaper shaper;
                // On failure the ground stays whole, as without shapes.
                shapedAround = shaper.groundAround(sunkenShapes, around).ok();
            }
            osg::ref_ptr<osg::Geode> node;
            if (shapedAround) {
                // A tile all under water (the open sea) has no ground at all.
                node = around.empty() ? osg::ref_ptr<osg::Geode>(new osg::Geode)
                                      : makeGroundAround(*input.scene, tile, input.ground, around, image);
            } else {
                node = input.ground ? makeGroundMesh(*input.scene, *input.ground, image)
                                    : makeGroundQuad(placement, image);
            }
            node->setName("ground " + tile.quadkey());
            if (e.ground.node) {
                e.group->replaceChild(e.ground.node, node);
                ++mReport.replaced;
            } else {
                e.group->insertChild(0, node);
                ++mReport.added;
            }
            e.ground.node = node;
            e.ground.key = key;
            e.ground.box = input.ground ? node->getBoundingBox() : tileBox(placement);
        }
        e.groundSide = detail.groundSide;
    }
    syncHeatQuad(tile);

    // Surfaces, keyed by layer.
    std::map<std::string, Entry, std::less<>> surfaces;
    if (mOptions.surfaces) {
        e.hasMarkings = false;
        for (const core::SurfacePatch* p : input.surfaces) {
            const bool marked = !p->shape.empty() && !p->markings.empty();
            e.hasMarkings = e.hasMarkings || marked;
            std::string name = p->layer;
            for (int n = 2; surfaces.count(name); ++n) name = p->layer + "#" + std::to_string(n);
            Fingerprint f;
            f.add(p->elevation);
            // Draped: the ground under it (the same mesh gives the same drape).
            if (input.ground) f.add(meshKey);
            f.add(static_cast<std::uint64_t>(p->colour[0] << 16 | p->colour[1] << 8 | p->colour[2]));
            f.add(static_cast<std::uint64_t>(p->texture));
            for (const core::CellRect& r : p->rects) {
                f.add(static_cast<std::uint64_t>(r.x0) << 48 | static_cast<std::uint64_t>(r.y0) << 32 |
                      static_cast<std::uint64_t>(r.x1) << 16 | r.y1);
            }
            f.add(shapeKey(p->shape));
            f.add(static_cast<std::uint64_t>(marked && detail.markings));
            for (const core::Vec2& uv : p->roadUv) {
                f.add(std::bit_cast<std::uint64_t>(uv.x));
                f.add(std::bit_cast<std::uint64_t>(uv.y));
            }
            for (const core::SurfacePaint& paint : core::kSurfacePaints) {
                const core::SharedVector<core::Vec2>& painted = (*p).*paint.triangles;
                f.add(static_cast<std::uint64_t>(painted.size()));
                for (const core::Vec2& v : painted) {
                    f.add(std::bit_cast<std::uint64_t>(v.x));
                    f.add(std::bit_cast<std::uint64_t>(v.y));
                }
            }
            Entry entry;
            entry.key = f.value();
            const auto old = e.surfaceEntries.find(name);
            if (old != e.surfaceEntries.end() && old->second.key == entry.key) {
                entry = old->second;
                ++mReport.kept;
            } else {
                entry.node = !p->shape.empty() ? makeShapedSurfaceMesh(*input.scene, input.ground, *p, detail.markings)
                             : input.ground    ? makeDrapedSurfaceMesh(*input.scene, *input.ground, *p)
                                               : makeSurfaceMesh(placement, *p);
                if (entry.node) entry.node->setName(name + " " + tile.quadkey());
                replaceOrAdd(*e.surfaces, old != e.surfaceEntries.end() ? old->second.node.get() : nullptr,
                             entry.node.get());
                ++(old != e.surfaceEntries.end() ? mReport.replaced : mReport.added);
            }
            surfaces.emplace(std::move(name), std::move(entry));
        }
    }
    for (auto& [name, old] : e.surfaceEntries) {
        if (!surfaces.count(name)) {
            e.surfaces->removeChild(old.node);
            ++mReport.removed;
        }
    }
    e.surfaceEntries = std::move(surfaces);

    // Plinths and bridge decks (scenes on terrain only): one node for the tile.
    {
        Fingerprint f;
        for (const core::Plinth* p : input.plinths) {
            for (const double v :
                 {p->box.centre.x, p->box.centre.y, p->box.halfExtents.x, p->box.halfExtents.y, p->box.angle}) {
                f.add(std::bit_cast<std::uint64_t>(v));
            }
            f.add(p->bottom);
            f.add(p->top);
        }
        for (const core::BridgeDeck* b : input.bridges) {
            f.add(b->width);
            for (const core::Vec3f& c : b->centreline) {
                f.add(c.x);
                f.add(c.y);
                f.add(c.z);
            }
        }
        const std::uint64_t key = input.plinths.empty() && input.bridges.empty() ? 0 : f.value();
        syncTileMesh(
            *e.group, e.plinths, key,
            [&]() -> osg::ref_ptr<osg::Node> {
                osg::ref_ptr<osg::Node> plinths = makePlinthMesh(input.plinths);
                osg::ref_ptr<osg::Node> decks = makeBridgeMesh(input.bridges);
                if (!plinths || !decks) return plinths ? plinths : decks;
                osg::ref_ptr<osg::Group> both = new osg::Group;
                both->addChild(plinths);
                both->addChild(decks);
                return both;
            },
            "plinths " + tile.quadkey());
    }

    // Generated buildings: one mesh for the tile, rebuilt when any of their records changes.
    {
        Fingerprint f;
        for (const core::GeneratedBuilding* g : input.generated) {
            f.add(static_cast<std::uint64_t>(g->outline.size()));
            for (const core::Vec2& p : g->outline) {
                f.add(std::bit_cast<std::uint64_t>(p.x));
                f.add(std::bit_cast<std::uint64_t>(p.y));
            }
            f.add(g->base);
            f.add(g->wallHeight);
            f.add(g->roofHeight);
            f.add(std::string_view(g->roofShape));
        }
        f.add(static_cast<std::uint64_t>(detail.generated));
        syncTileMesh(
            *e.group, e.generated, input.generated.empty() ? 0 : f.value(),
            [&] { return makeGeneratedBuildingMesh(input.generated, detail.generated); },
            "generated buildings " + tile.quadkey());
        e.generatedDetail = detail.generated;
    }

    // Instanced blocks, keyed by block and asset id (asset indices shift between scenes). With
    // distance levels each is an LOD: its models within their range, nothing beyond.
    std::map<BlockKey, Entry> blocks;
    std::vector<const core::InstanceBlock*> buildingBlocks;  // those the far boxes stand for
    Fingerprint buildingKeys;
    for (const core::InstanceBlock* b : input.blocks) {
        const std::string& asset = (*input.assets)[static_cast<std::size_t>(b->asset)];
        const AssetModel& model = (*input.models)[static_cast<std::size_t>(b->asset)];
        const core::AssetInfo* info = mCatalogue->find(asset);
        const bool building = info && info->category == "building";
        // Far off (DetailView) only the prefab buildings' boxes stand for the blocks.
        if (!detail.blocks && !(building && mOptions.lod.buildings > 0.0)) continue;
        const double range = building ? mOptions.lod.buildings : mOptions.lod.instances;
        BlockKey key{b->blockY, b->blockX, asset};
        Fingerprint f;
        f.add(std::string_view(asset));
        f.add(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(model.geometry().get())));
        for (const core::Instance& i : b->instances) {
            f.add(i.position.x);
            f.add(i.position.y);
            f.add(i.position.z);
            f.add(i.yaw);
            f.add(i.scale.x);
            f.add(i.scale.y);
            f.add(i.scale.z);
        }
        // A thinned level's plants depend on the seed's ranks too.
        if (range > 0.0 && !building) f.add(mSeed);
        Entry entry;
        entry.key = f.value();
        if (building && mOptions.lod.buildings > 0.0) {
            buildingBlocks.push_back(b);
            buildingKeys.add(entry.key);
        }
        if (!detail.blocks) continue;
        const auto old = e.blocks.find(key);
        if (old != e.blocks.end() && old->second.key == entry.key) {
            entry = old->second;
            ++mReport.kept;
        } else {
            // A plant's model, its cards and its thinned cards (a quarter of them, chosen by the
            // rank the 3D Tiles levels thin by) draw from one transform buffer, the thinned
            // ones first: the thinned level draws the buffer's first instances.
            const AssetModel& cards = model.impostor();
            const bool carded = range > 0.0 && !building && cards.geometry();
            std::vector<core::Instance> ordered;
            std::size_t thinnedCount = 0;
            if (carded) {
                ordered.assign(b->instances.begin(), b->instances.end());
                const auto thinnedEnd =
                    std::stable_partition(ordered.begin(), ordered.end(), [&](const core::Instance& i) {
                        return core::plantRank(mSeed, i.position.x, i.position.z) < kThinnedShare;
                    });
                thinnedCount = static_cast<std::size_t>(thinnedEnd - ordered.begin());
            }
            const std::span<const core::Instance> drawn =
                carded ? std::span<const core::Instance>(ordered) : std::span<const core::Instance>(b->instances);
            const osg::ref_ptr<osg::TextureBuffer> transforms = instanceTransformBuffer(drawn);
            entry.node = makeInstancedBlock(model, drawn, b->bounds, transforms);
            if (!entry.node) continue;  // a model without triangles draws nothing
            if (range > 0.0) {
                osg::ref_ptr<osg::LOD> lod = tileLod(placement, entry.node, 0.0, range);
                // Plants and props become their cards (a fifth to a tenth of a tree's triangles)
                // beyond their range, thin out to a quarter of them beyond twice it, and go beyond
                // four times it.
                if (carded) {
                    if (osg::ref_ptr<osg::Geode> all = makeInstancedBlock(cards, drawn, b->bounds, transforms)) {
                        lod->addChild(all, static_cast<float>(range), static_cast<float>(kCardReach * range));
                    }
                    if (osg::ref_ptr<osg::Geode> thinned =
                            makeInstancedBlock(cards, drawn.first(thinnedCount), b->bounds, transforms)) {
                        lod->addChild(thinned, static_cast<float>(kCardReach * range),
                                      static_cast<float>(kThinnedReach * range));
                    }
                }
                entry.node = lod;
            }
            entry.node->setName(asset + " " + tile.quadkey() + " " + std::to_string(b->blockX) + "," +
                                std::to_string(b->blockY));
            entry.box = b->bounds.empty() ? instanceBounds(model.bounds(), b->instances) : osgBoundsOf(b->bounds);
            entry.instances = b->instances.size();
            replaceOrAdd(*e.instances, old != e.blocks.end() ? old->second.node.get() : nullptr, entry.node.get());
            ++(old != e.blocks.end() ? mReport.replaced : mReport.added);
        }
        blocks.emplace(std::move(key), std::move(entry));
    }
    for (auto& [key, old] : e.blocks) {
        if (!blocks.count(key)) {
            e.instances->removeChild(old.node);
            ++mReport.removed;
        }
    }
    e.blocks = std::move(blocks);
    e.holdsBlocks = detail.blocks;
    e.holdsMarkings = detail.markings;
    e.hasBlocks = !input.blocks.empty();

    // Beyond DistanceLod::buildings: the prefab buildings' boxes, one mesh for the tile.
    syncTileMesh(
        *e.group, e.buildingBoxes, buildingBlocks.empty() ? 0 : buildingKeys.value(),
        [&]() -> osg::ref_ptr<osg::Node> {
            std::vector<core::ModelBounds> bounds;
            std::vector<core::FacadeColours> colours;
            for (const AssetModel& m : *input.models) {
                bounds.push_back(m.bounds());
                colours.push_back(m.facade());
            }
            osg::ref_ptr<osg::Geode> boxes = makeInstanceBoxes(buildingBlocks, bounds, colours);
            if (!boxes) return nullptr;
            return tileLod(placement, boxes, mOptions.lod.buildings, std::numeric_limits<float>::max());
        },
        "building boxes " + tile.quadkey());
}

void SceneGraph::syncTileMesh(osg::Group& group, Entry& entry, std::uint64_t key,
                              const std::function<osg::ref_ptr<osg::Node>()>& make, const std::string& name) {
    if (key == entry.key && (key == 0 || entry.node)) {
        if (key != 0) ++mReport.kept;
        return;
    }
    osg::ref_ptr<osg::Node> node = make();
    if (node) node->setName(name);
    replaceOrAdd(group, entry.node.get(), node.get());
    ++(entry.node ? (node ? mReport.replaced : mReport.removed) : mReport.added);
    entry.node = node;
    entry.key = key;
}

namespace {

/// The drawables (draw calls) under a node: a tile's one-mesh entries may hold several (a
/// generated building mesh draws its opaque and its glass parts apart; plinths and bridge
/// decks are two geodes).
std::size_t drawablesIn(const osg::Node* node) {
    if (!node) return 0;
    if (const osg::Geode* geode = node->asGeode()) return geode->getNumDrawables();
    std::size_t n = 0;
    if (const osg::Group* group = node->asGroup()) {
        for (unsigned i = 0; i < group->getNumChildren(); ++i) n += drawablesIn(group->getChild(i));
    }
    return n;
}

}  // namespace

GraphCounts SceneGraph::counts() const {
    GraphCounts c;
    c.tiles = mTiles.size();
    for (const auto& [tile, e] : mTiles) {
        c.groundDrawables += drawablesIn(e.ground.node.get());
        if (e.ground.node) c.groundTexels += static_cast<std::size_t>(e.groundSide) * e.groundSide;
        if (!e.blocks.empty()) ++c.tilesHoldingBlocks;
        for (const auto& [name, s] : e.surfaceEntries) c.surfaceDrawables += drawablesIn(s.node.get());
        c.plinthDrawables += drawablesIn(e.plinths.node.get());
        c.generatedDrawables += drawablesIn(e.generated.node.get());
        if (const osg::Geode* g = e.generated.node ? e.generated.node->asGeode() : nullptr) {
            for (unsigned d = 0; d < g->getNumDrawables(); ++d) {
                const osg::Geometry* geometry = g->getDrawable(d)->asGeometry();
                for (unsigned p = 0; geometry && p < geometry->getNumPrimitiveSets(); ++p) {
                    c.generatedTriangles += geometry->getPrimitiveSet(p)->getNumIndices() / 3;
                }
            }
        }
        c.buildingBoxDrawables += drawablesIn(e.buildingBoxes.node.get());
        c.instancedDrawables += e.blocks.size();
        for (const auto& [key, b] : e.blocks) c.instances += b.instances;
    }
    for (const auto& [tile, quad] : mHeatQuads) {
        if (quad.node) c.overlayTexels += static_cast<std::size_t>(quad.side) * quad.side;
    }
    return c;
}

std::vector<core::TileId> SceneGraph::tiles() const {
    std::vector<core::TileId> out;
    out.reserve(mTiles.size());
    for (const auto& [tile, e] : mTiles) out.push_back(tile);
    return out;
}

osg::Group* SceneGraph::tileNode(const core::TileId& tile) const {
    const auto it = mTiles.find(tile);
    return it == mTiles.end() ? nullptr : it->second.group.get();
}

osg::Node* SceneGraph::groundNode(const core::TileId& tile) const {
    const auto it = mTiles.find(tile);
    return it == mTiles.end() ? nullptr : it->second.ground.node.get();
}

osg::Node* SceneGraph::surfaceNode(const core::TileId& tile, std::string_view layer) const {
    const auto it = mTiles.find(tile);
    if (it == mTiles.end()) return nullptr;
    const auto s = it->second.surfaceEntries.find(layer);
    return s == it->second.surfaceEntries.end() ? nullptr : s->second.node.get();
}

osg::Node* SceneGraph::blockNode(const core::TileId& tile, int blockX, int blockY, std::string_view asset) const {
    const auto it = mTiles.find(tile);
    if (it == mTiles.end()) return nullptr;
    const auto b = it->second.blocks.find(BlockKey{blockY, blockX, std::string(asset)});
    return b == it->second.blocks.end() ? nullptr : b->second.node.get();
}

osg::BoundingBox SceneGraph::bounds() const {
    osg::BoundingBox box;
    for (const auto& [tile, e] : mTiles) {
        box.expandBy(tileBox(tilePlacement(mFrame, tile)));
        for (const auto& [key, b] : e.blocks) box.expandBy(b.box);
    }
    return box;
}

core::Status SceneGraph::setHeatOverlay(const core::LayerSource& layers, std::string_view expression,
                                        const HeatOverlayStyle& style) {
    core::algebra::ExpressionOptions opts;
    opts.zoom = mFrame.zoom;
    opts.latitude = mFrame.origin.lat;
    opts.seed = mSeed;
    const std::vector<core::TileId> shown = tiles();
    core::Result<MaskTiles> mask = MaskTiles::evaluate(layers, shown, expression, opts, style.radiusCells > 0);
    if (!mask) return mask.error();
    clearHeatOverlay();
    mHeat = new osg::Group;
    mHeat->setName("heat overlay: " + std::string(expression));
    mHeatMask = std::move(*mask);
    mHeatStyle = style;
    for (const core::TileId& t : shown) syncHeatQuad(t);
    mOverlays->addChild(mHeat);
    return core::Status::success();
}

void SceneGraph::syncHeatQuad(const core::TileId& tile) {
    if (!mHeat) return;
    const auto e = mTiles.find(tile);
    const int side = e != mTiles.end() && e->second.groundSide > 0 ? e->second.groundSide : kFullGroundSide;
    HeatQuad& quad = mHeatQuads[tile];
    if (quad.side == side) return;
    if (quad.node) mHeat->removeChild(quad.node);
    quad = HeatQuad{nullptr, side};
    const MaskLookup lookup = [&](const core::TileId& t) { return mHeatMask.tile(t); };
    osg::ref_ptr<osg::Image> image = makeHeatImage(lookup, tile, mHeatStyle);
    // Nothing to show (no cell of the mask on or, with a radius, near the tile): no quad.
    const unsigned char* p = image->data();
    bool shows = false;
    for (std::size_t i = 3, n = std::size_t(image->s()) * image->t() * 4; i < n && !shows; i += 4) shows = p[i] != 0;
    if (!shows) return;
    if (side < image->s()) image = shrinkGroundImage(*image, side);
    quad.node = makeOverlayQuad(tilePlacement(mFrame, tile), image, mHeatStyle.heightMetres);
    mHeat->addChild(quad.node);
}

void SceneGraph::clearHeatOverlay() {
    if (mHeat) mOverlays->removeChild(mHeat);
    mHeat = nullptr;
    mHeatMask = MaskTiles();
    mHeatQuads.clear();
}

void SceneGraph::setTileGridVisible(bool visible, const TileGridStyle& style) {
    mGridVisible = visible;
    mGridStyle = style;
    rebuildGrid();
}

void SceneGraph::rebuildGrid() {
    if (mGrid) mOverlays->removeChild(mGrid);
    mGrid = nullptr;
    if (!mGridVisible) return;
    const std::vector<core::TileId> shown = tiles();
    mGrid = makeTileGrid(mFrame, shown, mGridStyle);
    mOverlays->addChild(mGrid);
}

void SceneGraph::setHighlight(const core::BuildingRecord* record, const HighlightStyle& style) {
    if (mHighlight) mOverlays->removeChild(mHighlight);
    mHighlight = nullptr;
    if (!record) return;
    const core::AssetInfo* asset = nullptr;
    if (record->asset >= 0 && static_cast<std::size_t>(record->asset) < mAssets.size()) {
        asset = mCatalogue->find(mAssets[static_cast<std::size_t>(record->asset)]);
    }
    mHighlight = makeBuildingHighlight(*record, asset, style);
    mOverlays->addChild(mHighlight);
}

void SceneGraph::setProbes(std::span<const ProbeVisual> probes, const ProbeStyle& style) {
    mProbes->removeChildren(0, mProbes->getNumChildren());
    for (const ProbeVisual& p : probes) mProbes->addChild(makeProbeVisual(p, mFrame, style));
}

}  // namespace terrabit::render
