// The ground image against a per-cell reference: each cell takes the colour of the last styled
// layer set there (or bare), north on the top texture row; holes clear alpha only.

#include "terrabit/render/ground_style.h"

#include <gtest/gtest.h>

#include "render_test_support.h"

namespace terrabit::render {
namespace {

core::Rgb texel(const osg::Image& image, int x, int y) {
    const unsigned char* p = image.data(x, 255 - y);
    return {p[0], p[1], p[2]};
}

TEST(GroundStyle, EachCellTakesTheLastStyledLayerSetThere) {
    const auto tiles = test::syntheticTiles(2, 1);
    const core::LayerStore store = test::syntheticLayers(tiles, 11);
    GroundStyle style;
    style.layers = test::syntheticLayerInfos();
    // A layer the source does not have is skipped, not an error.
    core::LayerInfo missing;
    missing.name = "lava";
    missing.colour = {255, 0, 0};
    style.layers.insert(style.layers.begin() + 1, missing);
    for (const core::TileId& tile : tiles) {
        osg::ref_ptr<osg::Image> image = makeGroundImage(store, tile, style);
        ASSERT_EQ(image->s(), 256);
        ASSERT_EQ(image->t(), 256);
        int painted = 0;
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                core::Rgb expected = style.bare;
                for (const core::LayerInfo& info : style.layers) {
                    const int id = store.layerId(info.name);
                    const core::BitTile* bits = id < 0 ? nullptr : store.tile(tile, id);
                    if (bits && bits->test(x, y)) expected = info.colour;
                }
                painted += !(expected == style.bare);
                ASSERT_EQ(texel(*image, x, y), expected) << tile.quadkey() << " cell " << x << "," << y;
                ASSERT_EQ(image->data(x, 255 - y)[3], 255);
            }
        }
        EXPECT_GT(painted, 1000) << "the synthetic layers cover something";
    }
}

TEST(GroundStyle, TileTheSourceDoesNotHoldIsBare) {
    const auto tiles = test::syntheticTiles(1, 1);
    const core::LayerStore store = test::syntheticLayers(tiles, 3);
    GroundStyle style;
    style.layers = test::syntheticLayerInfos();
    const core::TileId elsewhere = *core::TileId::fromZxy(17, 10, 10);
    osg::ref_ptr<osg::Image> image = makeGroundImage(store, elsewhere, style);
    for (int y = 0; y < 256; y += 17) {
        for (int x = 0; x < 256; x += 13) EXPECT_EQ(texel(*image, x, y), style.bare);
    }
}

TEST(GroundStyle, MaskImageAndHolesKeepColoursAndClearOnlyAlpha) {
    core::BitTile mask;
    mask.fillSpan(10, 0, 50);
    const core::Rgb on{1, 2, 3};
    GroundStyle style;
    osg::ref_ptr<osg::Image> image = makeMaskGroundImage(mask, on, style);
    EXPECT_EQ(texel(*image, 49, 10), on);
    EXPECT_EQ(texel(*image, 50, 10), style.bare);
    EXPECT_EQ(texel(*image, 0, 11), style.bare);
    const core::CellRect hole{40, 5, 60, 12};  // [40, 60) × [5, 12)
    cutGroundHoles(*image, std::span(&hole, 1));
    for (int y = 0; y < 256; ++y) {
        for (int x = 0; x < 256; ++x) {
            const bool inHole = x >= 40 && x < 60 && y >= 5 && y < 12;
            ASSERT_EQ(image->data(x, 255 - y)[3], inHole ? 0 : 255) << x << "," << y;
        }
    }
    EXPECT_EQ(texel(*image, 45, 10), on) << "a hole keeps its colour for filtering";
}

TEST(GroundStyle, ShrunkImageTexelsAreTheMeansOfTheTexelsTheyCover) {
    const auto tiles = test::syntheticTiles(1, 1);
    const core::LayerStore store = test::syntheticLayers(tiles, 5);
    GroundStyle style;
    style.layers = test::syntheticLayerInfos();
    osg::ref_ptr<osg::Image> image = makeGroundImage(store, tiles.front(), style);
    const core::CellRect hole{3, 7, 90, 31};
    cutGroundHoles(*image, std::span(&hole, 1));
    for (const int side : {256, 64, 16, 1}) {
        SCOPED_TRACE(side);
        osg::ref_ptr<osg::Image> small = shrinkGroundImage(*image, side);
        ASSERT_EQ(small->s(), side);
        ASSERT_EQ(small->t(), side);
        const int f = 256 / side;
        for (int y = 0; y < side; y += std::max(1, side / 8)) {
            for (int x = 0; x < side; x += std::max(1, side / 8)) {
                for (int c = 0; c < 4; ++c) {
                    double sum = 0.0;
                    for (int v = y * f; v < (y + 1) * f; ++v) {
                        for (int u = x * f; u < (x + 1) * f; ++u) sum += image->data(u, v)[c];
                    }
                    const double mean = sum / (f * f);
                    ASSERT_LE(std::abs(small->data(x, y)[c] - mean), 0.5) << x << "," << y << " channel " << c;
                }
            }
        }
    }
}

}  // namespace
}  // namespace terrabit::render
