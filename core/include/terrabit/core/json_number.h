#pragma once
/// Whole numbers read from JSON files Terrabit wrote and may read back damaged (a shard's
/// records, manifests and level sources, instance indexes). nlohmann's get<T>() converts a float,
/// or an integer beyond T's range, as a C++ cast does: undefined for a float out of range (the
/// level source fuzzer read 6.4e23 as centimetres), and a negative count becomes a huge one.

#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace terrabit::core {

/// `v` as a T: an integer within [lo, hi] (T's range by default); else std::out_of_range saying
/// which value (`what`) and what it was.
template <class T>
T wholeNumber(const nlohmann::json& v, std::string_view what, T lo = std::numeric_limits<T>::min(),
              T hi = std::numeric_limits<T>::max()) {
    const auto fail = [&](const std::string& why) {
        return std::out_of_range(std::string(what) + " " + why + ": " + v.dump());
    };
    if (!v.is_number_integer()) throw fail("is not a whole number");
    const auto within = [&](auto n) { return std::cmp_less_equal(lo, n) && std::cmp_less_equal(n, hi); };
    if (v.is_number_unsigned() ? !within(v.get<std::uint64_t>()) : !within(v.get<std::int64_t>())) {
        throw fail("is not within [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return v.is_number_unsigned() ? static_cast<T>(v.get<std::uint64_t>()) : static_cast<T>(v.get<std::int64_t>());
}

}  // namespace terrabit::core
