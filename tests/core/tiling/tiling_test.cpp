#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <thread>

#include "terrabit/core/raster/rasterizer.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/tiling/layer_store.h"
#include "terrabit/core/tiling/rasterize_tiles.h"
#include "terrabit/core/tiling/tile_index.h"
#include "terrabit/core/tiling/tile_rasterizer.h"
#include "tiling_test_support.h"

using namespace terrabit::core;
using terrabit::core::test::cellFeature;

namespace {

constexpr int kTilingZoom = 17;
// Tiles around Monaco at z17 (x 68 893, y 47 863 holds the harbour).
constexpr std::uint32_t kTilingX0 = 68890;
constexpr std::uint32_t kTilingY0 = 47860;

const char* kTilingRules = R"(
layers:
  - name: area
    match: [{kind: area, tags: {kind: area}}]
  - name: solid
    coverage: conservative
    match: [{kind: area, tags: {kind: solid}}, {kind: line, tags: {kind: wall}}]
    width: 1.5
  - name: vegetation
    classes:
      - name: grass
        match: [{kind: area, tags: {kind: grass}}]
      - name: trees
        point_radius: 3
        match: [{kind: point, tags: {kind: tree}}]
  - name: road
    match: [{kind: line, tags: {kind: road}}]
    width: {tag: width, default: 6}
)";

RuleSet rules() {
    auto r = RuleSet::parse(kTilingRules, "test.yaml");
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? std::move(*r) : RuleSet();
}

/// Random features over a block of 4 × 3 tiles (and a little beyond it).
MapData randomMap(unsigned seed, int count) {
    std::mt19937 rng(seed);
    const Vec2 o = test::tileOrigin(kTilingX0, kTilingY0);
    std::uniform_real_distribution<double> x(o.x - 40, o.x + 4 * 256 + 40), y(o.y - 40, o.y + 3 * 256 + 40);
    std::uniform_real_distribution<double> size(2, 90), unit(0, 1);
    MapData map;
    map.source = "random";
    const char* areaKinds[] = {"area", "solid", "grass"};
    for (int i = 0; i < count; ++i) {
        const std::string id = "f" + std::to_string(i);
        const Vec2 c{x(rng), y(rng)};
        const int type = i % 4;
        if (type == 0 || type == 1) {
            // A polygon with 3..9 vertices around c, sometimes with a hole.
            std::vector<Vec2> pts;
            const int n = 3 + static_cast<int>(unit(rng) * 7);
            const double r = size(rng);
            for (int k = 0; k < n; ++k) {
                const double a = 2 * M_PI * (k + unit(rng) * 0.8) / n;
                pts.push_back(c + Vec2{std::cos(a), std::sin(a)} * (r * (0.5 + unit(rng))));
            }
            std::vector<std::uint32_t> ends{static_cast<std::uint32_t>(pts.size())};
            if (unit(rng) < 0.3) {
                pts.insert(pts.end(), {c + Vec2{-3, -3}, c + Vec2{3, -3}, c + Vec2{0, 3}});
                ends.push_back(static_cast<std::uint32_t>(pts.size()));
            }
            map.features.push_back(
                cellFeature(id, FeatureKind::Area, {{"kind", areaKinds[i % 3]}}, pts, kTilingZoom, ends));
        } else if (type == 2) {
            std::vector<Vec2> pts{c};
            const int n = 1 + static_cast<int>(unit(rng) * 5);
            for (int k = 0; k < n; ++k) pts.push_back(pts.back() + Vec2{size(rng) - 45, size(rng) - 45});
            std::vector<Tag> tags{{"kind", unit(rng) < 0.7 ? "road" : "wall"}};
            if (unit(rng) < 0.3) tags.push_back({"width", "14"});
            map.features.push_back(cellFeature(id, FeatureKind::Line, tags, pts, kTilingZoom));
        } else {
            map.features.push_back(cellFeature(id, FeatureKind::Point, {{"kind", "tree"}}, {c}, kTilingZoom));
        }
    }
    for (const Feature& f : map.features) {
        map.extent.extend(f.bounds.min);
        map.extent.extend(f.bounds.max);
    }
    return map;
}

/// A random map classified by the test rules and indexed at kTilingZoom, held together: the entries
/// point into the map and the index into the entries, so it stays where it was made.
struct IndexedMap {
    MapData map;
    ClassifiedMap classified;
    TileIndex index;
};

std::unique_ptr<IndexedMap> indexedRandomMap(unsigned seed, int count) {
    auto m = std::make_unique<IndexedMap>();
    m->map = randomMap(seed, count);
    m->classified = classify(m->map, rules());
    auto index = TileIndex::build(m->classified, kTilingZoom);
    if (!index.ok()) {
        ADD_FAILURE() << index.message();
        return nullptr;
    }
    m->index = std::move(*index);
    return m;
}

/// The reference: every entry drawn whole (no clipping) into one grid over a block of tiles,
/// with the index's own cell coordinates and sizes.
BitGrid referenceLayer(const TileIndex& index, int layer, std::uint32_t tx0, std::uint32_t ty0, int tilesX,
                       int tilesY) {
    const ClassifiedMap& map = index.map();
    BitGrid grid(256 * tilesX, 256 * tilesY);
    Rasterizer r;
    const Vec2 origin = test::tileOrigin(tx0, ty0);
    std::vector<int> wanted{layer};
    for (int c : map.layers[static_cast<std::size_t>(layer)].classes) wanted.push_back(c);
    for (std::uint32_t e = 0; e < map.entries.size(); ++e) {
        const LayerEntry& entry = map.entries[e];
        if (std::find(wanted.begin(), wanted.end(), entry.layer) == wanted.end()) continue;
        std::vector<Vec2> pts;
        for (const Vec2& p : index.cells(e)) pts.push_back(p - origin);
        const Coverage coverage = map.layers[entry.layer].coverage;
        const Feature& f = *entry.feature;
        if (f.kind == FeatureKind::Area) {
            EXPECT_TRUE(r.polygon(PolygonView{pts, f.partEnds}, {FillRule::EvenOdd, coverage}, grid.view()));
        } else if (f.kind == FeatureKind::Line) {
            std::uint32_t begin = 0;
            for (std::uint32_t end : f.partEnds) {
                const std::span<const Vec2> part(pts.data() + begin, end - begin);
                EXPECT_TRUE(r.polyline(part, 2 * index.sizeCells(e), coverage, grid.view()));
                begin = end;
            }
        } else {
            for (const Vec2& p : pts) EXPECT_TRUE(r.point(p, index.sizeCells(e), coverage, grid.view()));
        }
    }
    return grid;
}

}  // namespace

TEST(TileIndex, HoldsExactlyTheEntriesWhoseReachTouchesEachTile) {
    const auto indexed = indexedRandomMap(7, 400);
    ASSERT_NE(indexed, nullptr);
    const ClassifiedMap& classified = indexed->classified;
    const TileIndex& index = indexed->index;
    ASSERT_GE(index.tiles().size(), 12u);
    std::size_t pairs = 0;
    for (std::size_t s = 0; s < index.tiles().size(); ++s) {
        const TileId t = index.tiles()[s];
        std::vector<std::uint32_t> expected;
        for (std::uint32_t e = 0; e < classified.entries.size(); ++e) {
            const Box2& reach = index.reach(e);
            if (256.0 * t.x <= reach.max.x && 256.0 * (t.x + 1) > reach.min.x && 256.0 * t.y <= reach.max.y &&
                256.0 * (t.y + 1) > reach.min.y) {
                expected.push_back(e);
            }
        }
        const auto got = index.entries(s);
        EXPECT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), expected) << "tile " << t.quadkey();
        pairs += expected.size();
    }
    // Every entry is somewhere, and tiles are sorted north to south, west to east.
    EXPECT_GE(pairs, classified.entries.size());
    EXPECT_TRUE(std::is_sorted(index.tiles().begin(), index.tiles().end(), [](const TileId& a, const TileId& b) {
        return a.y < b.y || (a.y == b.y && a.x < b.x);
    }));
}

TEST(TileIndex, ListsEachCrossingNodeUnderTheTilesItReaches) {
    // Crossing nodes (highway=crossing points, which no layer of these rules takes) in the middle
    // of a tile, near a corner of four, and far off; a bus stop, which is none.
    const RuleSet r = rules();
    const TileId origin{kTilingZoom, kTilingX0, kTilingY0};
    const auto node = [&](std::string id, std::vector<Tag> tags, Vec2 local) {  // cells of `origin`
        Feature f;
        f.id = std::move(id);
        f.kind = FeatureKind::Point;
        f.tags = std::move(tags);
        f.points = {origin.cellToMercator(local)};
        f.partEnds = {1};
        f.updateBounds();
        return f;
    };
    const Vec2 corner{256.0 * kTilingX0, 256.0 * kTilingY0};
    MapData map = randomMap(5, 20);
    map.features.push_back(node("n1", {{"highway", "crossing"}, {"crossing", "zebra"}}, {128, 128}));
    map.features.push_back(node("n2", {{"highway", "crossing"}}, {256 + 10, 256 - 20}));
    map.features.push_back(node("n3", {{"highway", "crossing"}}, {256 * 40, 128}));
    map.features.push_back(node("n4", {{"highway", "bus_stop"}}, {100, 100}));
    const ClassifiedMap classified = classify(map, r);
    ASSERT_EQ(classified.crossings.size(), 3u);
    EXPECT_EQ(classified.crossings[0]->id, "n1");
    std::vector<TileId> tiles;
    for (std::uint32_t y = 0; y < 3; ++y) {
        for (std::uint32_t x = 0; x < 3; ++x) tiles.push_back({kTilingZoom, kTilingX0 + x, kTilingY0 + y});
    }
    auto index = TileIndex::build(classified, kTilingZoom, tiles);
    ASSERT_TRUE(index.ok()) << index.message();
    for (std::uint32_t i = 0; i < classified.crossings.size(); ++i) {
        const Vec2 m = classified.crossings[i]->points[0];
        const Vec2 expected = origin.mercatorToCell(m) + corner;
        EXPECT_NEAR(index->crossingCell(i).x, expected.x, 1e-6);
        EXPECT_NEAR(index->crossingCell(i).y, expected.y, 1e-6);
    }
    std::size_t listed = 0;
    for (std::size_t s = 0; s < index->tiles().size(); ++s) {
        const TileId t = index->tiles()[s];
        std::vector<std::uint32_t> expected;
        for (std::uint32_t i = 0; i < classified.crossings.size(); ++i) {
            const Vec2 c = index->crossingCell(i);
            if (c.x >= 256.0 * t.x - kCrossingReachCells && c.x < 256.0 * (t.x + 1) + kCrossingReachCells &&
                c.y >= 256.0 * t.y - kCrossingReachCells && c.y < 256.0 * (t.y + 1) + kCrossingReachCells) {
                expected.push_back(i);
            }
        }
        const auto got = index->crossings(s);
        EXPECT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), expected) << "tile " << t.quadkey();
        listed += got.size();
    }
    EXPECT_EQ(listed, 1u + 4u) << "the middle one in its tile, the corner one in four, the far one in none";
}

TEST(TileIndex, ExplicitTilesAreCheckedAndKept) {
    const RuleSet r = rules();
    const MapData map = randomMap(3, 50);
    const ClassifiedMap classified = classify(map, r);
    const std::vector<TileId> tiles{{kTilingZoom, kTilingX0 + 1, kTilingY0},
                                    {kTilingZoom, kTilingX0, kTilingY0},
                                    {kTilingZoom, kTilingX0 + 30, kTilingY0 + 30}};
    auto index = TileIndex::build(classified, kTilingZoom, tiles);
    ASSERT_TRUE(index.ok()) << index.message();
    EXPECT_EQ(index->tiles().size(), 3u);
    EXPECT_EQ(index->tiles()[0], (TileId{kTilingZoom, kTilingX0, kTilingY0}));
    EXPECT_TRUE(index->entries(*index->slot({kTilingZoom, kTilingX0 + 30, kTilingY0 + 30})).empty());

    const std::vector<TileId> twice{{kTilingZoom, kTilingX0, kTilingY0}, {kTilingZoom, kTilingX0, kTilingY0}};
    EXPECT_FALSE(TileIndex::build(classified, kTilingZoom, twice).ok());
    const std::vector<TileId> otherZoom{{kTilingZoom - 1, kTilingX0 / 2, kTilingY0 / 2}};
    EXPECT_FALSE(TileIndex::build(classified, kTilingZoom, otherZoom).ok());
    auto tooMany = TileIndex::build(classified, kTilingZoom, {}, 4);
    ASSERT_FALSE(tooMany.ok());
    EXPECT_NE(tooMany.message().find("more than the limit of 4"), std::string::npos);
}

TEST(TileRasterizer, EveryTileEqualsTheSameBlockOfOneUnclippedRegion) {
    const RuleSet r = rules();
    const MapData map = randomMap(11, 600);
    const ClassifiedMap classified = classify(map, r);
    std::vector<TileId> tiles;
    for (std::uint32_t y = 0; y < 3; ++y) {
        for (std::uint32_t x = 0; x < 4; ++x) tiles.push_back({kTilingZoom, kTilingX0 + x, kTilingY0 + y});
    }
    auto index = TileIndex::build(classified, kTilingZoom, tiles);
    ASSERT_TRUE(index.ok()) << index.message();
    TileRasterizer tr;
    std::vector<BitTile> out(classified.layers.size());
    for (std::size_t layer = 0; layer < classified.layers.size(); ++layer) {
        const BitGrid region = referenceLayer(*index, static_cast<int>(layer), kTilingX0, kTilingY0, 4, 3);
        int set = 0;
        for (std::size_t s = 0; s < index->tiles().size(); ++s) {
            ASSERT_TRUE(tr.rasterize(*index, s, out));
            const TileId t = index->tiles()[s];
            const BitTile expected =
                region.tileAt(256 * static_cast<int>(t.x - kTilingX0), 256 * static_cast<int>(t.y - kTilingY0));
            EXPECT_EQ(out[layer], expected) << "layer " << classified.layers[layer].name << " tile " << t.quadkey()
                                            << ": " << (out[layer] ^ expected).count() << " cells differ";
            set += out[layer].count();
        }
        EXPECT_GT(set, 1000) << classified.layers[layer].name;  // the comparison is not vacuous
    }
}

TEST(TileRasterizer, RoadAlongATileBorderIsSeamless) {
    // A wide road running just beside the vertical border between two tiles, and one along the
    // horizontal border, each drawn per tile and over the 512 × 512 region of four tiles.
    const RuleSet r = rules();
    MapData map;
    const Vec2 o = test::tileOrigin(kTilingX0, kTilingY0);
    map.features.push_back(cellFeature("w1", FeatureKind::Line, {{"kind", "road"}},
                                       {o + Vec2{255.3, 10.2}, o + Vec2{256.6, 250.7}, o + Vec2{257.9, 500.1}},
                                       kTilingZoom));
    map.features.push_back(cellFeature("w2", FeatureKind::Line, {{"kind", "wall"}},
                                       {o + Vec2{3.1, 256.4}, o + Vec2{509.7, 255.2}}, kTilingZoom));
    const ClassifiedMap classified = classify(map, r);
    const std::vector<TileId> tiles{{kTilingZoom, kTilingX0, kTilingY0},
                                    {kTilingZoom, kTilingX0 + 1, kTilingY0},
                                    {kTilingZoom, kTilingX0, kTilingY0 + 1},
                                    {kTilingZoom, kTilingX0 + 1, kTilingY0 + 1}};
    auto index = TileIndex::build(classified, kTilingZoom, tiles);
    ASSERT_TRUE(index.ok());
    TileRasterizer tr;
    std::vector<BitTile> out(classified.layers.size());
    for (const char* name : {"road", "solid"}) {
        const int layer = r.layerId(name);
        const BitGrid region = referenceLayer(*index, layer, kTilingX0, kTilingY0, 2, 2);
        int total = 0;
        for (std::size_t s = 0; s < 4; ++s) {
            ASSERT_TRUE(tr.rasterize(*index, s, out));
            const TileId t = index->tiles()[s];
            EXPECT_EQ(out[static_cast<std::size_t>(layer)],
                      region.tileAt(256 * static_cast<int>(t.x - kTilingX0), 256 * static_cast<int>(t.y - kTilingY0)))
                << name << " in tile " << t.quadkey();
            total += out[static_cast<std::size_t>(layer)].count();
        }
        EXPECT_GT(total, 1000) << name;
    }
}

TEST(TileRasterizer, LargeRingsSkipFarChunksWithoutChangingABit) {
    // A wobbly sea-like ring of 3000 vertices around a block of 4 × 3 tiles, with a wobbly
    // island (hole) of 600: tiles see only the chunks near them, and still every cell matches
    // the unclipped region.
    const RuleSet r = rules();
    MapData map;
    const Vec2 centre = test::tileOrigin(kTilingX0, kTilingY0) + Vec2{512, 384};
    std::vector<Vec2> pts;
    for (int i = 0; i < 3000; ++i) {
        const double a = 2 * M_PI * i / 3000;
        const double radius = 520 + 60 * std::sin(17 * a) + 9 * std::cos(131 * a);
        pts.push_back(centre + Vec2{std::cos(a), std::sin(a)} * radius);
    }
    for (int i = 0; i < 600; ++i) {
        const double a = -2 * M_PI * i / 600;
        const double radius = 150 + 40 * std::sin(7 * a);
        pts.push_back(centre + Vec2{std::cos(a) * radius + 100, std::sin(a) * radius});
    }
    map.features.push_back(cellFeature("sea", FeatureKind::Area, {{"kind", "solid"}}, pts, kTilingZoom, {3000, 3600}));
    const ClassifiedMap classified = classify(map, r);
    std::vector<TileId> tiles;
    for (std::uint32_t y = 0; y < 3; ++y) {
        for (std::uint32_t x = 0; x < 4; ++x) tiles.push_back({kTilingZoom, kTilingX0 + x, kTilingY0 + y});
    }
    auto index = TileIndex::build(classified, kTilingZoom, tiles);
    ASSERT_TRUE(index.ok());
    ASSERT_FALSE(index->chunks(0).empty());
    const int layer = r.layerId("solid");
    const BitGrid region = referenceLayer(*index, layer, kTilingX0, kTilingY0, 4, 3);
    TileRasterizer tr;
    std::vector<BitTile> out(classified.layers.size());
    int set = 0, clear = 0;
    for (std::size_t s = 0; s < index->tiles().size(); ++s) {
        ASSERT_TRUE(tr.rasterize(*index, s, out));
        const TileId t = index->tiles()[s];
        EXPECT_EQ(out[static_cast<std::size_t>(layer)],
                  region.tileAt(256 * static_cast<int>(t.x - kTilingX0), 256 * static_cast<int>(t.y - kTilingY0)))
            << t.quadkey();
        set += out[static_cast<std::size_t>(layer)].count();
        clear += 65536 - out[static_cast<std::size_t>(layer)].count();
    }
    EXPECT_GT(set, 100000);
    EXPECT_GT(clear, 50000);
}

TEST(TileRasterizer, LineWidthInMetresBecomesCellsAtTheLatitude) {
    const RuleSet r = rules();
    MapData map;
    const Vec2 o = test::tileOrigin(kTilingX0, kTilingY0);
    // A 20 m road (width tag) running east along y = 100.3 in the tile.
    map.features.push_back(cellFeature("w1", FeatureKind::Line, {{"kind", "road"}, {"width", "20"}},
                                       {o + Vec2{-50, 100.3}, o + Vec2{300, 100.3}}, kTilingZoom));
    const ClassifiedMap classified = classify(map, r);
    const std::vector<TileId> tiles{{kTilingZoom, kTilingX0, kTilingY0}};
    auto index = TileIndex::build(classified, kTilingZoom, tiles);
    ASSERT_TRUE(index.ok());
    const double latitude = mercatorToLonLat(map.features[0].bounds.centre()).lat;
    const double halfCells = 10.0 / metresPerCell(latitude, kTilingZoom);
    EXPECT_NEAR(index->sizeCells(0), halfCells, 1e-9);
    // It agrees with the tile's latitude to well under a thousandth.
    const double tileLatitude = TileId{kTilingZoom, kTilingX0, kTilingY0}.boundsLonLat().centre().y;
    EXPECT_NEAR(halfCells, 10.0 / metresPerCell(tileLatitude, kTilingZoom), halfCells * 1e-3);

    TileRasterizer tr;
    std::vector<BitTile> out(classified.layers.size());
    ASSERT_TRUE(tr.rasterize(*index, 0, out));
    int expectedRows = 0;
    for (int j = 0; j < 256; ++j) expectedRows += std::fabs(j + 0.5 - 100.3) <= halfCells;
    int rows = 0;
    for (int j = 0; j < 256; ++j) rows += out[static_cast<std::size_t>(r.layerId("road"))].test(128, j);
    EXPECT_EQ(rows, expectedRows);
    EXPECT_GT(rows, 20);  // 20 m at 43.7° N is about 23 cells at z17
}

TEST(TileRasterizer, ParentLayerIsTheUnionOfItsClasses) {
    const RuleSet r = rules();
    const auto indexed = indexedRandomMap(5, 300);
    ASSERT_NE(indexed, nullptr);
    const ClassifiedMap& classified = indexed->classified;
    const TileIndex& index = indexed->index;
    TileRasterizer tr;
    std::vector<BitTile> out(classified.layers.size());
    const auto veg = static_cast<std::size_t>(r.layerId("vegetation"));
    const auto grass = static_cast<std::size_t>(r.layerId("grass"));
    const auto trees = static_cast<std::size_t>(r.layerId("trees"));
    int set = 0;
    for (std::size_t s = 0; s < index.tiles().size(); ++s) {
        ASSERT_TRUE(tr.rasterize(index, s, out));
        EXPECT_EQ(out[veg], out[grass] | out[trees]);
        set += out[veg].count();
    }
    EXPECT_GT(set, 0);
}

TEST(TileRasterizer, DrawTouchesOnlyTheLayersItNamesAndTheyEqualRasterize) {
    const auto indexed = indexedRandomMap(17, 400);
    ASSERT_NE(indexed, nullptr);
    const ClassifiedMap& classified = indexed->classified;
    const TileIndex& index = indexed->index;
    TileRasterizer full;
    TileRasterizer drawing;
    std::vector<BitTile> expected(classified.layers.size());
    int drawnLayers = 0, untouchedLayers = 0;
    for (std::size_t s = 0; s < index.tiles().size(); ++s) {
        ASSERT_TRUE(full.rasterize(index, s, expected));
        std::vector<BitTile> out(classified.layers.size(), BitTile::full());  // stale bits everywhere
        ASSERT_TRUE(drawing.draw(index, s, out));
        ASSERT_EQ(drawing.drawn().size(), classified.layers.size());
        for (std::size_t l = 0; l < out.size(); ++l) {
            if (drawing.drawn()[l]) {
                ++drawnLayers;
                EXPECT_EQ(out[l], expected[l]) << "layer " << classified.layers[l].name << " of slot " << s;
            } else {
                ++untouchedLayers;
                EXPECT_EQ(out[l], BitTile::full()) << "draw() wrote layer " << classified.layers[l].name;
                EXPECT_TRUE(expected[l].none())
                    << "layer " << classified.layers[l].name << " of slot " << s << " has bits but was not drawn";
            }
        }
    }
    EXPECT_GT(drawnLayers, 0);
    EXPECT_GT(untouchedLayers, 0);
}

TEST(RasterizeTiles, StoreEqualsPerTileRasterizeAndStaysRightInReusedMemory) {
    // rasterizeTiles stores only the layers draw() names; a store's memory goes back to a pool
    // when it goes away and the next store takes it with the old bits still in it.
    const RuleSet r = rules();
    const auto indexed = indexedRandomMap(23, 500);
    ASSERT_NE(indexed, nullptr);
    const ClassifiedMap& classified = indexed->classified;
    const TileIndex& index = indexed->index;
    LayerStore reference(r.layerNames(), index.tiles());
    TileRasterizer tr;
    std::vector<BitTile> out(classified.layers.size());
    for (std::size_t s = 0; s < index.tiles().size(); ++s) {
        ASSERT_TRUE(tr.rasterize(index, s, out));
        reference.store(s, out);  // every layer looked at
    }
    const auto other = indexedRandomMap(29, 900);
    ASSERT_NE(other, nullptr);
    for (int round = 0; round < 3; ++round) {
        {
            auto stale = rasterizeTiles(other->index);  // leaves its bits in the pool
            ASSERT_TRUE(stale.ok());
        }
        auto store = rasterizeTiles(index);
        ASSERT_TRUE(store.ok()) << store.message();
        EXPECT_EQ(store->hash(), reference.hash()) << "round " << round;
        for (std::size_t s = 0; s < index.tiles().size(); ++s) {
            for (int l = 0; l < static_cast<int>(classified.layers.size()); ++l) {
                const BitTile* a = store->at(s, l);
                const BitTile* b = reference.at(s, l);
                ASSERT_EQ(a == nullptr, b == nullptr) << "slot " << s << " layer " << l;
                if (a) {
                    EXPECT_EQ(*a, *b) << "slot " << s << " layer " << l;
                }
            }
        }
    }
}

TEST(RasterizeTiles, SameBitsForAnyThreadCountAndTileOrder) {
    const auto indexed = indexedRandomMap(21, 800);
    ASSERT_NE(indexed, nullptr);
    const ClassifiedMap& classified = indexed->classified;
    const TileIndex& index = indexed->index;
    RasterizeTilesOptions one;
    one.threads = 1;
    auto reference = rasterizeTiles(index, one);
    ASSERT_TRUE(reference.ok()) << reference.message();

    std::vector<TileId> shuffled = index.tiles();
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
    auto shuffledIndex = TileIndex::build(classified, kTilingZoom, shuffled);
    ASSERT_TRUE(shuffledIndex.ok());
    for (int threads : {2, 3, 8}) {
        RasterizeTilesOptions options;
        options.threads = threads;
        auto store = rasterizeTiles(threads == 3 ? *shuffledIndex : index, options);
        ASSERT_TRUE(store.ok()) << store.message();
        EXPECT_EQ(store->hash(), reference->hash()) << threads << " threads";
        for (const TileId& t : index.tiles()) {
            for (int l = 0; l < static_cast<int>(classified.layers.size()); ++l) {
                const BitTile* a = store->tile(t, l);
                const BitTile* b = reference->tile(t, l);
                ASSERT_EQ(a == nullptr, b == nullptr);
                if (a) {
                    EXPECT_EQ(*a, *b);
                }
            }
        }
    }
}

TEST(RasterizeTiles, ProgressIsReportedAndCancelStops) {
    const auto indexed = indexedRandomMap(2, 100);
    ASSERT_NE(indexed, nullptr);
    const TileIndex& index = indexed->index;
    std::vector<double> seen;
    RasterizeTilesOptions options;
    options.progress = [&seen](double f, std::string_view stage) {
        EXPECT_EQ(stage, "rasterizing");
        seen.push_back(f);
        return true;
    };
    ASSERT_TRUE(rasterizeTiles(index, options).ok());
    ASSERT_GE(seen.size(), 2u);
    EXPECT_EQ(seen.front(), 0.0);
    EXPECT_EQ(seen.back(), 1.0);

    options.progress = [](double, std::string_view) { return false; };
    auto cancelled = rasterizeTiles(index, options);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_NE(cancelled.message().find("cancelled"), std::string::npos);
}

TEST(LayerStore, IsALayerSourceWithEmptyLayersReadAsNull) {
    const RuleSet r = rules();
    MapData map;
    const Vec2 o = test::tileOrigin(kTilingX0, kTilingY0);
    map.features.push_back(cellFeature("w1", FeatureKind::Area, {{"kind", "area"}},
                                       {o + Vec2{10, 10}, o + Vec2{50, 10}, o + Vec2{50, 50}}, kTilingZoom));
    const ClassifiedMap classified = classify(map, r);
    auto index = TileIndex::build(classified, kTilingZoom);
    ASSERT_TRUE(index.ok());
    auto store = rasterizeTiles(*index);
    ASSERT_TRUE(store.ok());
    const LayerSource& source = *store;
    EXPECT_EQ(source.layerNames(), r.layerNames());
    EXPECT_EQ(source.layerId("road"), r.layerId("road"));
    const TileId tile{kTilingZoom, kTilingX0, kTilingY0};
    ASSERT_NE(source.tile(tile, source.layerId("area")), nullptr);
    EXPECT_GT(source.tile(tile, source.layerId("area"))->count(), 600);
    EXPECT_EQ(source.tile(tile, source.layerId("road")), nullptr);
    EXPECT_EQ(source.tile({kTilingZoom, kTilingX0 + 5, kTilingY0}, 0), nullptr);
    EXPECT_EQ(source.tile(tile, 99), nullptr);
}

TEST(LayerStore, KeepsEveryStoredTileWhateverTheLayerCountOrThreads) {
    // Tiles with more layers than one of the store's chunks holds, stored from two threads at
    // once, each layer with its own pattern; stored again, a slot reads its newest bits.
    constexpr int kLayers = 420;  // about 280 of them hold bits: more than a chunk (256 tiles)
    constexpr std::uint32_t kTiles = 12;
    std::vector<std::string> names;
    for (int l = 0; l < kLayers; ++l) names.push_back("layer" + std::to_string(l));
    std::vector<TileId> tiles;
    for (std::uint32_t i = 0; i < kTiles; ++i) tiles.push_back(TileId{kTilingZoom, kTilingX0 + i, kTilingY0});
    LayerStore store(names, tiles);
    const auto pattern = [](std::size_t slot, int layer, int round) {
        BitTile t;
        if ((layer + round) % 3 != 0) {  // every third layer stays empty
            t.set(static_cast<int>(slot * 7 + static_cast<std::size_t>(round)) % 256, layer % 256);
            t.set(layer % 256, static_cast<int>(slot) + 100);
        }
        return t;
    };
    for (int round = 0; round < 2; ++round) {
        std::vector<std::thread> writers;
        for (std::size_t first = 0; first < 2; ++first) {
            writers.emplace_back([&, first] {
                std::vector<BitTile> layers(kLayers);
                for (std::size_t s = first; s < kTiles; s += 2) {
                    for (int l = 0; l < kLayers; ++l) layers[static_cast<std::size_t>(l)] = pattern(s, l, round);
                    store.store(s, layers);
                }
            });
        }
        for (std::thread& w : writers) w.join();
        for (std::size_t s = 0; s < kTiles; ++s) {
            EXPECT_FALSE(store.emptyAt(s));
            for (int l = 0; l < kLayers; ++l) {
                const BitTile expected = pattern(s, l, round);
                const BitTile* got = store.at(s, l);
                if (expected.none()) {
                    EXPECT_EQ(got, nullptr) << "slot " << s << " layer " << l;
                } else {
                    ASSERT_NE(got, nullptr) << "slot " << s << " layer " << l;
                    EXPECT_TRUE(*got == expected) << "slot " << s << " layer " << l << " round " << round;
                }
            }
        }
    }
}
