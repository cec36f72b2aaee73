#include "render_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/render/tile_geometry.h"

namespace terrabit::test {

namespace {

/// A small counter-based hash: the same inputs give the same pseudo-random numbers everywhere.
std::uint32_t mix(std::uint32_t a, std::uint32_t b) {
    std::uint64_t z = (std::uint64_t{a} << 32 | b) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::uint32_t>(z ^ (z >> 31));
}

double unit(std::uint32_t h) { return (h & 0xffffff) / double(0x1000000); }

core::Box3f modelBox(const core::AssetInfo& info, const core::Instance& in) {
    const std::array<float, 16> m = core::transformMatrix(in);
    core::Box3f box;
    for (int c = 0; c < 8; ++c) {
        const double x = (c & 1) ? info.bounds.max[0] : info.bounds.min[0];
        const double y = (c & 2) ? info.bounds.max[1] : info.bounds.min[1];
        const double z = (c & 4) ? info.bounds.max[2] : info.bounds.min[2];
        box.extend(core::Vec3f{static_cast<float>(m[0] * x + m[4] * y + m[8] * z + m[12]),
                               static_cast<float>(m[1] * x + m[5] * y + m[9] * z + m[13]),
                               static_cast<float>(m[2] * x + m[6] * y + m[10] * z + m[14])});
    }
    return box;
}

}  // namespace

const core::AssetCatalogue& shippedCatalogue() {
    static const core::AssetCatalogue catalogue = [] {
        core::AssetCatalogueOptions options;
        options.verifyModels = true;  // fills every entry's bounds
        auto c = core::AssetCatalogue::load(std::string(TERRABIT_RESOURCES_DIR) + "/assets/catalogue.yaml", options);
        EXPECT_TRUE(c.ok()) << c.message();
        return c.ok() ? std::move(*c) : core::AssetCatalogue();
    }();
    return catalogue;
}

std::vector<core::TileId> syntheticTiles(int cols, int rows) {
    std::vector<core::TileId> tiles;
    for (int y = 0; y < rows; ++y) {
        for (int x = 0; x < cols; ++x) tiles.push_back(*core::TileId::fromZxy(17, 68890 + x, 47860 + y));
    }
    return tiles;
}

core::Scene syntheticScene(const SyntheticSceneSpec& spec) {
    core::Scene scene;
    scene.tiles = syntheticTiles(spec.cols, spec.rows);
    scene.frame = {core::placement::sceneOrigin(scene.tiles), 17};
    scene.blockCells = spec.blockCells;
    scene.seed = 7;
    scene.assets = {"broadleaf_oak", "house_gabled", "palm"};  // sorted, as the baker sorts them
    const core::AssetCatalogue& catalogue = shippedCatalogue();
    const int perSide = core::kTileCells / spec.blockCells;
    for (const core::TileId& tile : scene.tiles) {
        const render::TilePlacement p = render::tilePlacement(scene.frame, tile);
        for (int by = 0; by < perSide; ++by) {
            for (int bx = 0; bx < perSide; ++bx) {
                auto addBlock = [&](int asset, std::vector<core::Instance> instances) {
                    core::InstanceBlock b;
                    b.asset = asset;
                    b.tile = tile;
                    b.blockX = bx;
                    b.blockY = by;
                    const core::AssetInfo& info = *catalogue.find(scene.assets[static_cast<std::size_t>(asset)]);
                    for (const core::Instance& in : instances) b.bounds.extend(modelBox(info, in));
                    b.instances = std::move(instances);
                    scene.blocks.push_back(std::move(b));
                };
                const double cx = (bx + 0.5) * spec.blockCells, cy = (by + 0.5) * spec.blockCells;
                if (spec.buildings && bx == by) {
                    core::Instance house;
                    const osg::Vec3d at = p.at(cx, cy);
                    house.position = {static_cast<float>(at.x()), 0.0f, static_cast<float>(at.z())};
                    house.yaw = 0.3f * static_cast<float>(bx);
                    house.scale = {1.2f, 1.5f, 1.1f};
                    addBlock(1, {house});
                }
                if (spec.treesPerBlock > 0 && by == 1) {
                    std::vector<core::Instance> trees;
                    for (int i = 0; i < spec.treesPerBlock; ++i) {
                        const std::uint32_t h =
                            mix(spec.treeSeed, static_cast<std::uint32_t>(i + 100 * bx + 10000 * tile.x));
                        core::Instance t;
                        const osg::Vec3d at =
                            p.at(bx * spec.blockCells + 2.0 + unit(h) * (spec.blockCells - 4),
                                 by * spec.blockCells + 2.0 + unit(mix(h, 1)) * (spec.blockCells - 4));
                        t.position = {static_cast<float>(at.x()), 0.0f, static_cast<float>(at.z())};
                        t.yaw = static_cast<float>(unit(mix(h, 2)) * 6.28);
                        const float s = 0.8f + 0.4f * static_cast<float>(unit(mix(h, 3)));
                        t.scale = {s, s, s};
                        trees.push_back(t);
                    }
                    addBlock(bx % 2 == 0 ? 0 : 2, std::move(trees));
                }
            }
        }
        if (spec.surfaces) {
            core::SurfacePatch road;
            road.tile = tile;
            road.layer = "road";
            road.elevation = 0.05f;
            road.colour = {95, 95, 95};
            road.rects = {{0, 120, 256, 128}, {120, 0, 128, 120}};
            core::SurfacePatch water;
            water.tile = tile;
            water.layer = "water";
            water.elevation = -0.3f;
            water.colour = {59, 131, 189};
            water.rects = {{200, 200, 256, 256}};
            scene.surfaces.push_back(road);
            scene.surfaces.push_back(water);
        }
    }
    std::sort(scene.blocks.begin(), scene.blocks.end(), [](const core::InstanceBlock& a, const core::InstanceBlock& b) {
        return std::tie(a.tile.y, a.tile.x, a.blockY, a.blockX, a.asset) <
               std::tie(b.tile.y, b.tile.x, b.blockY, b.blockX, b.asset);
    });
    return scene;
}

core::LayerStore syntheticLayers(const std::vector<core::TileId>& tiles, std::uint32_t seed) {
    const std::vector<std::string> names = {"water", "vegetation", "road", "building"};
    core::LayerStore store(names, tiles);
    for (std::size_t slot = 0; slot < tiles.size(); ++slot) {
        std::vector<core::BitTile> layers(names.size());
        for (std::size_t l = 0; l < names.size(); ++l) {
            for (int r = 0; r < 12; ++r) {
                const std::uint32_t h = mix(seed, static_cast<std::uint32_t>(slot * 1000 + l * 100 + r));
                const int x0 = static_cast<int>(unit(h) * 230), y0 = static_cast<int>(unit(mix(h, 1)) * 230);
                const int w = 4 + static_cast<int>(unit(mix(h, 2)) * 40),
                          hgt = 4 + static_cast<int>(unit(mix(h, 3)) * 40);
                for (int y = y0; y < std::min(256, y0 + hgt); ++y) layers[l].fillSpan(y, x0, std::min(256, x0 + w));
            }
        }
        store.store(slot, layers);
    }
    return store;
}

std::vector<core::LayerInfo> syntheticLayerInfos() {
    std::vector<core::LayerInfo> infos(4);
    infos[0].name = "water";
    infos[0].colour = {59, 131, 189};
    infos[1].name = "vegetation";
    infos[1].colour = {90, 158, 75};
    infos[2].name = "road";
    infos[2].colour = {95, 95, 95};
    infos[3].name = "building";
    infos[3].colour = {200, 85, 61};
    return infos;
}

}  // namespace terrabit::test
