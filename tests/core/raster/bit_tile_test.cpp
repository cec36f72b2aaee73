#include <gtest/gtest.h>

#include "terrabit/core/raster/bit_tile.h"

using namespace terrabit::core;

TEST(BitTile, SetAndTest) {
    BitTile t;
    t.set(3, 4);
    EXPECT_TRUE(t.test(3, 4));
    EXPECT_EQ(t.count(), 1);
}
