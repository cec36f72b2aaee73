#include <gtest/gtest.h>

#include "terrabit/core/tile/tile_id.h"

using namespace terrabit::core;

TEST(TileId, LevelOneQuadkeysAreTheFourQuadrants) {
    EXPECT_EQ(TileId::fromZxy(1, 0, 0)->quadkey(), "0");
    EXPECT_EQ(TileId::fromZxy(1, 1, 0)->quadkey(), "1");
    EXPECT_EQ(TileId::fromZxy(1, 0, 1)->quadkey(), "2");
    EXPECT_EQ(TileId::fromZxy(1, 1, 1)->quadkey(), "3");
}
