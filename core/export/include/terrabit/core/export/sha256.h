#pragma once
/// SHA-256 (FIPS 180-4), for the rules hash the manifest records: the same digest `sha256sum`
/// prints, so a user can check which rules document produced a bake.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace terrabit::core {

/// The 32-byte SHA-256 digest of the bytes.
std::array<std::uint8_t, 32> sha256(std::string_view bytes);
/// The digest as 64 lowercase hexadecimal digits, as `sha256sum` prints it.
std::string sha256Hex(std::string_view bytes);

}  // namespace terrabit::core
