#include <gtest/gtest.h>

#include "map/feature_p.h"
#include "terrabit/core/map/feature.h"

using namespace terrabit::core;

TEST(ParseMetres, PlainNumbersAreMetres) {
    EXPECT_DOUBLE_EQ(*parseMetres("12"), 12.0);
    EXPECT_DOUBLE_EQ(*parseMetres(" 12.5 "), 12.5);
    EXPECT_DOUBLE_EQ(*parseMetres("3 m"), 3.0);
    EXPECT_DOUBLE_EQ(*parseMetres("3m"), 3.0);
    EXPECT_DOUBLE_EQ(*parseMetres("7 metres"), 7.0);
}

TEST(ParseMetres, FeetAndInchesAreConverted) {
    EXPECT_NEAR(*parseMetres("10 ft"), 3.048, 1e-12);
    EXPECT_NEAR(*parseMetres("12'"), 12 * 0.3048, 1e-12);
    EXPECT_NEAR(*parseMetres("12'6\""), 12 * 0.3048 + 6 * 0.0254, 1e-12);
}

TEST(ParseMetres, RejectsWhatIsNotALength) {
    EXPECT_FALSE(parseMetres(""));
    EXPECT_FALSE(parseMetres("wide"));
    EXPECT_FALSE(parseMetres("-3"));
    EXPECT_FALSE(parseMetres("3;4"));
    EXPECT_FALSE(parseMetres("3 km/h"));
    EXPECT_FALSE(parseMetres("12'6"));
}

TEST(Feature, TagLookupFindsValuesAndReportsAbsence) {
    Feature f;
    f.tags = {{"building", "yes"}, {"height", "21 m"}, {"building:levels", "7"}};
    EXPECT_EQ(f.tag("building"), "yes");
    EXPECT_FALSE(f.tag("name"));
    EXPECT_DOUBLE_EQ(*f.metresTag("height"), 21.0);
    EXPECT_DOUBLE_EQ(*f.metresTag("building:levels"), 7.0);
    EXPECT_FALSE(f.metresTag("building"));
}

TEST(Feature, PartsFollowPartEnds) {
    Feature f;
    f.points = {{0, 0}, {1, 0}, {1, 1}, {5, 5}, {6, 5}, {6, 6}, {5, 6}};
    f.partEnds = {3, 7};
    ASSERT_EQ(f.partCount(), 2u);
    EXPECT_EQ(f.part(0).size(), 3u);
    EXPECT_EQ(f.part(1).size(), 4u);
    EXPECT_EQ(f.part(1)[0], (Vec2{5, 5}));
    f.updateBounds();
    EXPECT_EQ(f.bounds.min, (Vec2{0, 0}));
    EXPECT_EQ(f.bounds.max, (Vec2{6, 6}));
}
