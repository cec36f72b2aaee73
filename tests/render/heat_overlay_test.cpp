// The heat map against a naive count: each cell's colour is the ramp colour of the fraction of
// set cells in its window, counted cell by cell across the neighbouring tiles.

#include "terrabit/render/heat_overlay.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace terrabit::render {
namespace {

unsigned char toByte(float v) { return static_cast<unsigned char>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); }

TEST(HeatOverlay, DensityWindowCountsCellsAcrossTileBorders) {
    const core::TileId centre = *core::TileId::fromZxy(17, 1000, 2000);
    std::map<core::TileId, core::BitTile> tiles;
    std::mt19937 rng(5);
    std::bernoulli_distribution on(0.3);
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            if (dx == 1 && dy == -1) continue;  // a missing neighbour reads as clear
            core::BitTile& t = tiles[*centre.neighbour(dx, dy)];
            for (int y = 0; y < 256; ++y) {
                for (int x = 0; x < 256; ++x) {
                    if (on(rng)) t.set(x, y);
                }
            }
        }
    }
    const MaskLookup lookup = [&](const core::TileId& t) -> const core::BitTile* {
        const auto it = tiles.find(t);
        return it == tiles.end() ? nullptr : &it->second;
    };
    auto setAt = [&](int gx, int gy) {  // cell coordinates relative to the centre tile
        const int tx = gx < 0 ? -1 : (gx >= 256 ? 1 : 0), ty = gy < 0 ? -1 : (gy >= 256 ? 1 : 0);
        const core::BitTile* t = lookup(*centre.neighbour(tx, ty));
        return t && t->test(gx - tx * 256, gy - ty * 256);
    };
    HeatOverlayStyle style;
    style.radiusCells = 3;
    style.opacity = 0.8f;
    osg::ref_ptr<osg::Image> image = makeHeatImage(lookup, centre, style);
    // Corners and edges (where the window leaves the tile) and a stripe through the middle.
    for (int y : {0, 1, 2, 3, 128, 252, 253, 254, 255}) {
        for (int x = 0; x < 256; ++x) {
            int count = 0;
            for (int wy = y - 3; wy <= y + 3; ++wy) {
                for (int wx = x - 3; wx <= x + 3; ++wx) count += setAt(wx, wy);
            }
            const osg::Vec4 c = heatColour(count / 49.0, style.opacity);
            const unsigned char* p = image->data(x, 255 - y);
            ASSERT_EQ(p[0], toByte(c.r())) << x << "," << y;
            ASSERT_EQ(p[1], toByte(c.g())) << x << "," << y;
            ASSERT_EQ(p[2], toByte(c.b())) << x << "," << y;
            ASSERT_EQ(p[3], toByte(c.a())) << x << "," << y;
        }
    }
}

TEST(HeatOverlay, RadiusZeroShowsTheCellsInOneColour) {
    const core::TileId tile = *core::TileId::fromZxy(17, 5, 5);
    core::BitTile bits;
    bits.set(3, 4);
    HeatOverlayStyle style;
    style.colour = {10, 20, 30};
    style.opacity = 0.5f;
    osg::ref_ptr<osg::Image> image = makeHeatImage([&](const core::TileId&) { return &bits; }, tile, style);
    const unsigned char* p = image->data(3, 255 - 4);
    EXPECT_EQ(p[0], 10);
    EXPECT_EQ(p[1], 20);
    EXPECT_EQ(p[2], 30);
    EXPECT_EQ(p[3], 128);
    EXPECT_EQ(image->data(4, 255 - 4)[3], 0);
    EXPECT_EQ(image->data(3, 255 - 5)[3], 0);
}

TEST(HeatOverlay, RampRunsFromBlueThroughYellowToRedAndEmptyIsClear) {
    EXPECT_EQ(heatColour(0.0, 1.0f).a(), 0.0f);
    const osg::Vec4 low = heatColour(0.01, 1.0f), mid = heatColour(0.5, 1.0f), high = heatColour(1.0, 1.0f);
    EXPECT_GT(low.b(), low.r());
    EXPECT_GT(mid.g(), mid.b());
    EXPECT_GT(mid.r(), mid.b());
    EXPECT_GT(high.r(), high.g());
    EXPECT_GT(high.r(), high.b());
    EXPECT_LT(low.a(), high.a());
    EXPECT_FLOAT_EQ(high.a(), 1.0f);
}

}  // namespace
}  // namespace terrabit::render
