#pragma once
/// The one colour type of core: layer previews, rule colours and the vertex colours of meshes.
/// (There were two `Rgb`s, in mesh_builder.h and rule_set.h, white and black by default: an ODR
/// violation a unity build of the tests showed, since the linker keeps one inline constructor.)

#include <cstdint>

namespace terrabit::core {

/// An sRGB colour, 0–255 per channel, as a designer picks it; black by default.
struct Rgb {
    std::uint8_t r = 0;
    std::uint8_t g = 0;
    std::uint8_t b = 0;
    friend constexpr bool operator==(Rgb, Rgb) = default;
};

}  // namespace terrabit::core
