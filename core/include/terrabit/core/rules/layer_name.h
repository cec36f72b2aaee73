#pragma once
/// The one rule for a layer's name, wherever a name is given: the rules' layers and classes,
/// named expressions, a project's derived layers, the app's layer editor, and the names an
/// expression reads without quotes. ASCII letters, digits and _, not starting with a digit.

#include <string_view>

namespace terrabit::core {

/// What a layer name is, for messages: "'x y' is not a layer name (" + kLayerNameRule + ")".
inline constexpr std::string_view kLayerNameRule = "letters, digits and _, not starting with a digit";

/// True for a character a layer name may start with.
constexpr bool isLayerNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

/// True for a character a layer name may hold after its first.
constexpr bool isLayerNameChar(char c) { return isLayerNameStart(c) || (c >= '0' && c <= '9'); }

/// True when `name` is a layer name.
constexpr bool isLayerName(std::string_view name) {
    if (name.empty() || !isLayerNameStart(name.front())) return false;
    for (char c : name.substr(1)) {
        if (!isLayerNameChar(c)) return false;
    }
    return true;
}

}  // namespace terrabit::core
