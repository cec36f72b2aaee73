// Whole numbers read back from the JSON files Terrabit writes (shard records, manifests, level
// sources, instance indexes): a float, a value beyond the type or the bounds, or a negative count
// is an error saying which value, never a cast (undefined for a float out of range).

#include "terrabit/core/json_number.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace terrabit::core {
namespace {

using nlohmann::json;

std::string refusal(const json& v, auto read) {
    try {
        read(v);
    } catch (const std::out_of_range& e) {
        return e.what();
    }
    return "";
}

TEST(JsonWholeNumber, ReadsIntegersWithinTheTypeAndBounds) {
    EXPECT_EQ(wholeNumber<int>(json(-7), "x"), -7);
    EXPECT_EQ(wholeNumber<std::uint64_t>(json(std::numeric_limits<std::uint64_t>::max()), "x"),
              std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(wholeNumber<std::int64_t>(json(std::numeric_limits<std::int64_t>::min()), "x"),
              std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(wholeNumber<long long>(json(30), "zoom", 0, 30), 30);
    EXPECT_EQ(wholeNumber<std::uint32_t>(json(0xffffff), "a colour", 0, 0xffffff), 0xffffffu);
}

TEST(JsonWholeNumber, RefusesFloatsAndValuesBeyondTheTypeOrTheBoundsSayingWhich) {
    const auto asInt = [](const json& v) { return wholeNumber<int>(v, "the zoom", 0, 30); };
    EXPECT_EQ(refusal(json(6.39e23), asInt), "the zoom is not a whole number: 6.39e+23");
    EXPECT_EQ(refusal(json(1.0), asInt), "the zoom is not a whole number: 1.0");
    EXPECT_EQ(refusal(json("3"), asInt), "the zoom is not a whole number: \"3\"");
    EXPECT_EQ(refusal(json(31), asInt), "the zoom is not within [0, 30]: 31");
    EXPECT_EQ(refusal(json(-1), asInt), "the zoom is not within [0, 30]: -1");
    // A negative count is not a huge one; an unsigned beyond a signed type is not a negative one.
    const auto asCount = [](const json& v) { return wholeNumber<std::uint64_t>(v, "a count"); };
    EXPECT_NE(refusal(json(-1), asCount), "");
    const auto asSigned = [](const json& v) { return wholeNumber<std::int64_t>(v, "an offset"); };
    EXPECT_NE(refusal(json(std::uint64_t{1} << 63), asSigned), "");
    const auto asByte = [](const json& v) { return wholeNumber<std::uint8_t>(v, "a channel"); };
    EXPECT_NE(refusal(json(256), asByte), "");
    EXPECT_EQ(refusal(json(255), asByte), "");
}

}  // namespace
}  // namespace terrabit::core
