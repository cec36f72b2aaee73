#include <gtest/gtest.h>

#include "terrabit/core/raster/rasterizer.h"

using namespace terrabit::core;

TEST(Rasterizer, Square) {
    Rasterizer r;
    BitTile t;
    ASSERT_TRUE(r.rectangle(Box2{{10, 10}, {20, 20}}, Coverage::CellCentre, t).ok());
    EXPECT_EQ(t.count(), 100);
}
