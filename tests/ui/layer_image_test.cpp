#include <gtest/gtest.h>

#include "terrabit/ui/views/layer_image.h"

using namespace terrabit;

TEST(UiLayerImage, SetCellsTakeTheLayerColourInRowOrder) {
    core::BitTile tile;
    tile.set(5, 7);
    const QImage image = ui::layerImage(tile, QColor(10, 20, 30));
    ASSERT_EQ(image.size(), QSize(256, 256));
    EXPECT_EQ(image.pixel(5, 7), QColor(10, 20, 30).rgba());
    EXPECT_EQ(qAlpha(image.pixel(6, 7)), 0);
    EXPECT_EQ(qAlpha(image.pixel(7, 5)), 0);
}
