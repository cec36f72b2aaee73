#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>

#include "yaml_document_p.h"

namespace terrabit::core::yaml_detail {

bool plainWord(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.' || c == '/';
        if (!ok) return false;
    }
    // Words YAML would read as something other than a string get quoted.
    static const char* const kReserved[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"};
    std::string lower(s);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* r : kReserved) {
        if (lower == r) return false;
    }
    if ((s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '.') return false;
    return true;
}

std::string yamlScalar(std::string_view s) {
    if (plainWord(s)) return std::string(s);
    // A double-quoted scalar: YAML folds a raw line break inside one into a space, so line
    // breaks, tabs and other control characters are escaped (found by the catalogue fuzzer:
    // a value with blank lines in it read back with one fewer).
    std::string out = "\"";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (u < 0x20 || u == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", u);
            out += hex;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace terrabit::core::yaml_detail
