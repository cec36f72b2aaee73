#pragma once
// Private to core: reading a parameter's YAML value, shared by the rules parser (which has the
// document's nodes, with their positions) and parseParam (which loads a rule edit's text).

#include <yaml-cpp/yaml.h>

#include <string>

#include "terrabit/core/placement/rule_schema.h"

namespace terrabit::core::placement::schema_detail {

/// Why a value was refused: where (the node's mark; a sub-path such as "[1]" or ".palm" below
/// the parameter's own path) and what.
struct ParamError {
    YAML::Mark mark;
    std::string subPath;
    std::string what;
};

/// Reads the value of a parameter from its YAML node, checking it as checkParam does. Species
/// weights carry their lines. Throws ParamError.
ParamValue readParam(const ParamSpec& spec, const YAML::Node& node);

}  // namespace terrabit::core::placement::schema_detail
