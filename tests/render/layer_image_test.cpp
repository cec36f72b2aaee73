#include <gtest/gtest.h>

#include "terrabit/render/layer_image.h"

using namespace terrabit;

TEST(LayerImage, SetCellsTakeTheLayerColourAndNorthIsTheTopTextureRow) {
    core::BitTile tile;
    tile.set(0, 0);      // north-west corner
    tile.set(255, 255);  // south-east corner
    const render::Rgba on{200, 30, 40, 255};
    osg::ref_ptr<osg::Image> image = render::makeLayerImage(tile, on);
    ASSERT_EQ(image->s(), 256);
    ASSERT_EQ(image->t(), 256);
    // Texture row 255 is the top (north) edge.
    const unsigned char* nw = image->data(0, 255);
    EXPECT_EQ(nw[0], 200);
    EXPECT_EQ(nw[3], 255);
    const unsigned char* se = image->data(255, 0);
    EXPECT_EQ(se[1], 30);
    const unsigned char* clear = image->data(1, 255);
    EXPECT_EQ(clear[3], 0);
}
