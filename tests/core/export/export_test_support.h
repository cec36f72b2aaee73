#pragma once
// Synthetic baked scenes for the export tests: a few tiles near Monaco, blocks of instances of
// real shipped assets (resources/assets), building records with every outcome, road and water
// surfaces, and random bit layers. Deterministic for a given seed.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../support/memory_layer_source.h"
#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::test {

/// A fresh folder under the system temporary folder, removed with everything in it at the end.
class TempDir {
public:
    TempDir() {
        static int counter = 0;
        mPath = std::filesystem::temp_directory_path() /
                ("terrabit-export-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        std::filesystem::remove_all(mPath);
        std::filesystem::create_directories(mPath);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(mPath, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return mPath; }
    std::filesystem::path operator/(const std::string& name) const { return mPath / name; }

private:
    std::filesystem::path mPath;
};

/// The shipped asset catalogue (resources/assets/catalogue.yaml).
inline core::AssetCatalogue shippedCatalogue() {
    const std::filesystem::path file = std::filesystem::path(TERRABIT_RESOURCES_DIR) / "assets" / "catalogue.yaml";
    core::Result<core::AssetCatalogue> c = core::AssetCatalogue::load(file);
    EXPECT_TRUE(c.ok()) << c.message();
    return c.ok() ? std::move(c).value() : core::AssetCatalogue{};
}

inline std::vector<std::uint8_t> readBytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline std::string readText(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Every regular file under a folder, relative paths, sorted.
inline std::vector<std::string> filesUnder(const std::filesystem::path& dir) {
    std::vector<std::string> out;
    if (!std::filesystem::exists(dir)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), dir).string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// Every entry (file or folder) under a folder whose name starts with '.': temporaries and
/// staging folders that a failed export must not leave behind.
inline std::vector<std::string> hiddenEntriesUnder(const std::filesystem::path& dir) {
    std::vector<std::string> out;
    if (!std::filesystem::exists(dir)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (e.path().filename().string().starts_with(".")) out.push_back(e.path().string());
    }
    return out;
}

/// What the synthetic scene holds.
struct SceneSpec {
    std::uint64_t seed = 1;
    int tilesWide = 2;
    int tilesHigh = 2;
    int blocksPerTile = 6;  ///< blocks with vegetation per tile
    int treesPerBlock = 12;
    int buildingsPerTile = 5;  ///< building records per tile (a mix of outcomes)
    int zoom = 17;
};

/// The zoom-`zoom` tile holding Monaco's harbour, the north-west tile of the synthetic scenes.
inline core::TileId monacoTile(int zoom) {
    return core::tileAt(core::lonLatToMercator({7.4246, 43.7350}), zoom).value();
}

/// A synthetic scene over real shipped assets, and the meshes it uses.
struct TestScene {
    core::Scene scene;
    std::vector<core::AssetMesh> meshes;  ///< aligned with scene.assets
};

inline TestScene makeScene(const core::AssetCatalogue& catalogue, const SceneSpec& spec = {}) {
    using namespace core;
    TestScene out;
    Scene& s = out.scene;
    std::mt19937_64 rng(spec.seed);
    const TileId nw = monacoTile(spec.zoom);
    s.frame.zoom = spec.zoom;
    s.frame.origin = {7.4246, 43.7350};
    s.seed = spec.seed * 0x9E3779B97F4A7C15ull;  // a full 64-bit value: the exporters must keep every bit
    for (int y = 0; y < spec.tilesHigh; ++y) {
        for (int x = 0; x < spec.tilesWide; ++x) {
            s.tiles.push_back(
                TileId{spec.zoom, nw.x + static_cast<std::uint32_t>(x), nw.y + static_cast<std::uint32_t>(y)});
        }
    }

    // Two buildings and two plants from the shipped library, by category.
    std::vector<const AssetInfo*> buildings = catalogue.ofCategory("building");
    std::vector<const AssetInfo*> plants = catalogue.ofCategory("tree");
    for (const AssetInfo* a : catalogue.ofCategory("bush")) plants.push_back(a);
    EXPECT_GE(buildings.size(), 2u);
    EXPECT_GE(plants.size(), 2u);
    if (buildings.size() < 2 || plants.size() < 2) return out;
    // ids: two buildings, then two plants; Scene::assets holds them sorted.
    const std::vector<std::string> ids{buildings[0]->id, buildings[1]->id, plants[0]->id, plants[1]->id};
    s.assets = ids;
    std::sort(s.assets.begin(), s.assets.end());
    const auto assetIndex = [&](const std::string& id) {
        return static_cast<int>(std::find(s.assets.begin(), s.assets.end(), id) - s.assets.begin());
    };
    for (const std::string& id : s.assets) {
        Result<AssetMesh> m = readAssetMesh(catalogue.find(id)->path);
        EXPECT_TRUE(m.ok()) << m.message();
        out.meshes.push_back(m.ok() ? std::move(m).value() : AssetMesh{});
    }

    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const int blocksPerSide = kTileCells / s.blockCells;
    s.statistics.instancesPerAsset.assign(s.assets.size(), 0);
    std::uint32_t feature = 0;
    const auto newSource = [&](const std::string& kind) {
        s.sources.push_back(kind + "/" + std::to_string(1000 + feature++));
        return static_cast<std::uint32_t>(s.sources.size() - 1);
    };
    const auto instanceAt = [&](const TileId& t, double cx, double cy) {
        Instance i;
        const Vec2 ground = s.frame.cellToGround({double(t.x) * kTileCells + cx, double(t.y) * kTileCells + cy});
        i.position = groundToScene(ground, 0.0);
        i.yaw = static_cast<float>(unit(rng) * 6.283185307179586 - 3.141592653589793);
        const float k = static_cast<float>(0.8 + 0.4 * unit(rng));
        i.scale = {k, static_cast<float>(0.9 + 0.3 * unit(rng)), k};
        return i;
    };

    for (const TileId& t : s.tiles) {
        std::vector<InstanceBlock> tileBlocks;
        // Buildings: placed ones become instances in their block, the others only records.
        for (int b = 0; b < spec.buildingsPerTile; ++b) {
            BuildingRecord r;
            r.source = newSource("way");
            r.tile = t;
            const double cx = 16 + unit(rng) * 224, cy = 16 + unit(rng) * 224;
            r.target.centre = s.frame.cellToGround({double(t.x) * kTileCells + cx, double(t.y) * kTileCells + cy});
            r.target.halfExtents = {4 + 6 * unit(rng), 3 + 5 * unit(rng)};
            r.target.angle = unit(rng) * 3.0;
            r.outcome = static_cast<BuildingOutcome>(b % 3);
            if (r.outcome == BuildingOutcome::Placed) {
                r.asset = assetIndex(ids[static_cast<std::size_t>(b % 2)]);
                r.placement = instanceAt(t, cx, cy);
                r.placement.source = r.source;
                InstanceBlock block;
                block.asset = r.asset;
                block.tile = t;
                block.blockX = static_cast<int>(cx) / s.blockCells;
                block.blockY = static_cast<int>(cy) / s.blockCells;
                block.instances.push_back(r.placement);
                tileBlocks.push_back(block);
                ++s.statistics.buildingsPlaced;
            } else if (r.outcome == BuildingOutcome::Blocked) {
                ++s.statistics.buildingsBlocked;
            } else {
                ++s.statistics.buildingsUnmatched;
            }
            s.buildings.push_back(r);
        }
        // Vegetation blocks.
        for (int b = 0; b < spec.blocksPerTile; ++b) {
            InstanceBlock block;
            block.asset = assetIndex(ids[static_cast<std::size_t>(2 + b % 2)]);
            block.tile = t;
            block.blockX = static_cast<int>(rng() % blocksPerSide);
            block.blockY = static_cast<int>(rng() % blocksPerSide);
            for (int k = 0; k < spec.treesPerBlock; ++k) {
                Instance i = instanceAt(t, block.blockX * s.blockCells + unit(rng) * s.blockCells,
                                        block.blockY * s.blockCells + unit(rng) * s.blockCells);
                if (k % 5 == 0) i.source = newSource("node");  // single mapped trees keep their id
                block.instances.push_back(i);
            }
            tileBlocks.push_back(block);
        }
        // One block per (blockY, blockX, asset), in the Scene's order.
        std::sort(tileBlocks.begin(), tileBlocks.end(), [](const InstanceBlock& a, const InstanceBlock& b) {
            return std::tuple(a.blockY, a.blockX, a.asset) < std::tuple(b.blockY, b.blockX, b.asset);
        });
        for (InstanceBlock& b : tileBlocks) {
            if (!s.blocks.empty() && s.blocks.back().tile == b.tile && s.blocks.back().blockX == b.blockX &&
                s.blocks.back().blockY == b.blockY && s.blocks.back().asset == b.asset) {
                for (const Instance& i : b.instances) s.blocks.back().instances.push_back(i);
            } else {
                s.blocks.push_back(std::move(b));
            }
        }
        // Surfaces: a road crossing and a pond.
        SurfacePatch road;
        road.tile = t;
        road.layer = "road";
        road.elevation = 0.05f;
        road.colour = {107, 107, 107};
        const auto ry = static_cast<std::uint16_t>(40 + rng() % 150);
        road.rects = {{0, ry, 256, static_cast<std::uint16_t>(ry + 6)},
                      {100, 0, 106, ry},
                      {100, static_cast<std::uint16_t>(ry + 6), 106, 256}};
        SurfacePatch water;
        water.tile = t;
        water.layer = "water";
        water.elevation = -0.4f;
        water.colour = {66, 135, 245};
        water.rects = {{10, 200, 60, 240}, {20, 190, 50, 200}};
        s.surfaces.push_back(road);
        s.surfaces.push_back(water);
    }
    std::stable_sort(s.buildings.begin(), s.buildings.end(), [&](const BuildingRecord& a, const BuildingRecord& b) {
        return s.sources[a.source] < s.sources[b.source];
    });
    for (InstanceBlock& b : s.blocks) {
        s.statistics.instancesPerAsset[static_cast<std::size_t>(b.asset)] += b.instances.size();
        // The bounds placement records: the transformed corners of the model's box.
        const ModelBounds mb = out.meshes[static_cast<std::size_t>(b.asset)].bounds();
        for (const Instance& i : b.instances) {
            const std::array<float, 16> m = transformMatrix(i);
            for (int c = 0; c < 8; ++c) {
                const float x = static_cast<float>(c & 1 ? mb.max[0] : mb.min[0]);
                const float y = static_cast<float>(c & 2 ? mb.max[1] : mb.min[1]);
                const float z = static_cast<float>(c & 4 ? mb.max[2] : mb.min[2]);
                b.bounds.extend(Vec3f{m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13],
                                      m[2] * x + m[6] * y + m[10] * z + m[14]});
            }
        }
    }
    s.statistics.vegetationInstances =
        static_cast<std::size_t>(spec.blocksPerTile * spec.treesPerBlock) * s.tiles.size();
    s.statistics.vegetationCellsRequested = 5000;
    s.statistics.requestedDensity = 0.4;
    s.statistics.achievedDensity = 0.1234;
    return out;
}

/// Random bit layers "building", "road", "water", "vegetation" over the scene's tiles.
/// Adds generated buildings (Scene::generated) to a scene of at least two tiles, each with a
/// source of its own: a 30 m high L-shaped block in the first tile, a U-shaped block and a
/// gabled house in the second, around the tiles' centres.
inline void addGeneratedBuildings(core::Scene& s) {
    using namespace core;
    const auto add = [&](const TileId& tile, std::vector<Vec2> ring, float wall, float roof, const char* shape) {
        const Vec2 c = s.frame.cellToGround({(tile.x + 0.5) * kTileCells, (tile.y + 0.5) * kTileCells});
        for (Vec2& p : ring) p = {p.x + c.x, p.y + c.y};
        GeneratedBuilding g;
        g.tile = tile;
        s.sources.push_back("way/" + std::to_string(9000 + s.generated.size()));
        g.source = static_cast<std::uint32_t>(s.sources.size() - 1);
        g.outline = std::move(ring);
        g.wallHeight = wall;
        g.roofHeight = roof;
        g.roofShape = shape;
        s.generated.push_back(std::move(g));
    };
    add(s.tiles[0], {{0, 0}, {20, 0}, {20, 8}, {8, 8}, {8, 18}, {0, 18}}, 30.0f, 0.0f, "flat");
    add(s.tiles[1], {{0, 0}, {30, 0}, {30, 20}, {22, 20}, {22, 7}, {8, 7}, {8, 20}, {0, 20}}, 12.0f, 0.0f, "flat");
    add(s.tiles[1], {{-20, -20}, {-8, -20}, {-8, -12}, {-20, -12}}, 6.0f, 3.0f, "gabled");
}

inline MemoryLayerSource makeLayers(const core::Scene& scene, std::uint64_t seed = 3) {
    MemoryLayerSource layers({"building", "road", "water", "vegetation"});
    std::mt19937_64 rng(seed);
    for (const core::TileId& t : scene.tiles) {
        for (int l = 0; l < 4; ++l) {
            if ((t.x + t.y + static_cast<std::uint32_t>(l)) % 4 == 3) continue;  // some tiles lack a layer
            layers.randomize(t, l, 0.05 + 0.1 * l, rng);
        }
    }
    return layers;
}

/// Limits the size of any file this process writes (RLIMIT_FSIZE) for the scope: writes past it
/// fail in the kernel with EFBIG — a full disk as the OS reports it, even for root.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &mSaved);
        mHandler = std::signal(SIGXFSZ, SIG_IGN);  // otherwise the kernel kills the process
        rlimit limit = mSaved;
        limit.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limit);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &mSaved);
        std::signal(SIGXFSZ, mHandler);
    }

private:
    rlimit mSaved{};
    void (*mHandler)(int) = nullptr;
};

/// The part of a scene on `tiles`, as a streamed bake's batch has it: only its tiles' content,
/// and only the assets it uses, numbered in its own list.
inline TestScene streamPartOf(const TestScene& whole, const std::vector<core::TileId>& tiles) {
    const auto mine = [&](const core::TileId& t) { return std::find(tiles.begin(), tiles.end(), t) != tiles.end(); };
    TestScene part;
    core::Scene& s = part.scene;
    s = whole.scene;
    s.tiles.clear();
    for (const core::TileId& t : whole.scene.tiles) {
        if (mine(t)) s.tiles.push_back(t);
    }
    const auto keep = [&](auto& items) { std::erase_if(items, [&](const auto& i) { return !mine(i.tile); }); };
    keep(s.blocks), keep(s.surfaces), keep(s.plinths), keep(s.bridges), keep(s.generated);
    std::erase_if(s.ground, [&](const core::GroundTile& g) { return !mine(g.mesh.tile); });
    std::vector<int> used;
    for (const core::InstanceBlock& b : s.blocks) used.push_back(b.asset);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    s.assets.clear();
    for (const int a : used) {
        s.assets.push_back(whole.scene.assets[static_cast<std::size_t>(a)]);
        part.meshes.push_back(whole.meshes[static_cast<std::size_t>(a)]);
    }
    for (core::InstanceBlock& b : s.blocks) {
        b.asset = static_cast<int>(std::lower_bound(used.begin(), used.end(), b.asset) - used.begin());
    }
    return part;
}

/// The scene's tiles in runs of `size` consecutive quadkeys, as a streamed bake batches them.
inline std::vector<std::vector<core::TileId>> quadkeyRuns(const core::Scene& scene, std::size_t size) {
    std::vector<core::TileId> tiles = scene.tiles;
    std::sort(tiles.begin(), tiles.end(),
              [](const core::TileId& a, const core::TileId& b) { return a.quadkey() < b.quadkey(); });
    std::vector<std::vector<core::TileId>> runs;
    for (std::size_t k = 0; k < tiles.size(); ++k) {
        if (k % size == 0) runs.emplace_back();
        runs.back().push_back(tiles[k]);
    }
    return runs;
}

}  // namespace terrabit::test
