#pragma once
// Private to core: the length parser behind Feature::metresTag (feature.cpp). Tests see it
// through their private include of core/src.

#include <optional>
#include <string_view>

namespace terrabit::core {

/// Parses a length in metres as OSM writes them ("12", "12.5 m", "40 ft", "12'6\""); nothing
/// when the text is not a length. Negative and non-finite values are rejected.
std::optional<double> parseMetres(std::string_view text);

}  // namespace terrabit::core
