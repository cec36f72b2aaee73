#pragma once
// Comparing two baked scenes field by field (the Scene has no operator==: it is plain data that
// only tests compare whole).

#include <gtest/gtest.h>

#include "terrabit/core/scene/scene.h"

namespace terrabit::test {

inline void expectSameScene(const core::Scene& a, const core::Scene& b) {
    EXPECT_EQ(a.tiles, b.tiles);
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.frame.origin, b.frame.origin);
    EXPECT_EQ(a.assets, b.assets);
    EXPECT_EQ(a.sources, b.sources);
    ASSERT_EQ(a.blocks.size(), b.blocks.size());
    for (std::size_t i = 0; i < a.blocks.size(); ++i) {
        EXPECT_EQ(a.blocks[i].tile, b.blocks[i].tile);
        EXPECT_EQ(a.blocks[i].asset, b.blocks[i].asset);
        EXPECT_EQ(a.blocks[i].instances, b.blocks[i].instances) << "block " << i;
    }
    ASSERT_EQ(a.buildings.size(), b.buildings.size());
    for (std::size_t i = 0; i < a.buildings.size(); ++i) {
        EXPECT_EQ(a.buildings[i].source, b.buildings[i].source);
        EXPECT_EQ(a.buildings[i].outcome, b.buildings[i].outcome);
        EXPECT_EQ(a.buildings[i].asset, b.buildings[i].asset);
        EXPECT_EQ(a.buildings[i].placement, b.buildings[i].placement);
    }
    EXPECT_EQ(a.instanceCount(), b.instanceCount());
}

}  // namespace terrabit::test
