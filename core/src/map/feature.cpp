#include "terrabit/core/map/feature.h"

#include <charconv>
#include <cmath>

#include "feature_p.h"

namespace terrabit::core {

namespace {

constexpr double kMetresPerFoot = 0.3048;
constexpr double kMetresPerInch = 0.0254;

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

/// Reads a leading unsigned decimal number; advances s past it.
std::optional<double> leadingNumber(std::string_view& s) {
    double v = 0.0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
    if (ec != std::errc{} || end == s.data()) return std::nullopt;
    s.remove_prefix(static_cast<std::size_t>(end - s.data()));
    return v;
}

}  // namespace

std::optional<std::string_view> Feature::tag(std::string_view key) const {
    for (const Tag& t : tags) {
        if (t.key == key) return std::string_view(t.value);
    }
    return std::nullopt;
}

std::optional<double> Feature::metresTag(std::string_view key) const {
    const auto value = tag(key);
    if (!value) return std::nullopt;
    return parseMetres(*value);
}

void Feature::updateBounds() {
    bounds = Box2{};
    for (const Vec2& p : points) bounds.extend(p);
}

std::optional<double> parseMetres(std::string_view text) {
    std::string_view s = trim(text);
    if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
    auto number = leadingNumber(s);
    if (!number || !std::isfinite(*number)) return std::nullopt;
    s = trim(s);
    double metres = *number;
    if (s.empty() || s == "m" || s == "metre" || s == "metres" || s == "meter" || s == "meters") {
        // Plain numbers are metres (OSM's default unit for width and height).
    } else if (s == "ft" || s == "feet" || s == "foot") {
        metres = *number * kMetresPerFoot;
    } else if (s.front() == '\'') {
        // Feet and inches as OSM writes them: 12'6"
        s.remove_prefix(1);
        s = trim(s);
        metres = *number * kMetresPerFoot;
        if (!s.empty()) {
            const auto inches = leadingNumber(s);
            if (!inches || s != "\"") return std::nullopt;
            metres += *inches * kMetresPerInch;
        }
    } else {
        return std::nullopt;
    }
    return metres;
}

}  // namespace terrabit::core
