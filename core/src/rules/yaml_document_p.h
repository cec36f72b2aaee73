#pragma once
// Private to core: what every YAML document Terrabit reads (rules, passes, the asset catalogue)
// shares — positions in errors as editors count them, and turning yaml-cpp's exceptions and a
// parser's own error into an Error that says where.

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <utility>

#include "terrabit/core/result.h"

namespace terrabit::core::yaml_detail {

/// "source:line:column" with yaml-cpp's 0-based marks shown 1-based; "source" alone when the
/// mark is unknown.
inline std::string where(std::string_view source, const YAML::Mark& mark) {
    std::string s(source);
    if (mark.is_null() || mark.line < 0) return s;
    return s + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

/// Whether `s` can be written as a plain YAML scalar, in block and flow context alike, and read
/// back as the same string: letters, digits and _ - . / only, not starting like a number, and
/// no word YAML reads as a boolean or null.
bool plainWord(std::string_view s);
/// `s` as a YAML scalar that reads back as exactly `s`: plain when plainWord allows, else
/// double-quoted with its quotes, backslashes and control characters escaped.
std::string yamlScalar(std::string_view s);

/// "map", "list", "value", "empty value": a node's kind, for messages.
inline std::string typeName(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Map:
            return "map";
        case YAML::NodeType::Sequence:
            return "list";
        case YAML::NodeType::Scalar:
            return "value";
        case YAML::NodeType::Null:
            return "empty value";
        default:
            return "nothing";
    }
}

/// Parses `text` and returns `document(root)`. A parser reports problems by throwing
/// `ParseError` (anything with a `message` member); yaml-cpp's own exceptions, from loading or
/// from conversions nobody foresaw, become errors naming source, line and column.
template <class ParseError, class Document>
auto parseDocument(const std::string& source, std::string_view text, Document&& document)
    -> decltype(document(std::declval<const YAML::Node&>())) {
    try {
        YAML::Node root;
        try {
            root = YAML::Load(std::string(text));
        } catch (const YAML::Exception& e) {
            return Error{where(source, e.mark) + ": not valid YAML: " + e.msg};
        }
        return document(root);
    } catch (const ParseError& e) {
        return Error{e.message};
    } catch (const YAML::Exception& e) {
        return Error{where(source, e.mark) + ": " + e.msg};
    }
}

}  // namespace terrabit::core::yaml_detail
