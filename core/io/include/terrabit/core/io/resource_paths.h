#pragma once
/// Finding Terrabit's resources (default rules, assets) from wherever the executable runs: the
/// build tree, an installed prefix, or the source tree.

#include <filesystem>
#include <optional>

namespace terrabit::core::io {

/// The running executable's path (from /proc/self/exe; `argv0` made absolute otherwise).
std::filesystem::path currentExecutable(const char* argv0);

/// The resources folder: the first of <exe dir>/resources, <exe dir>/../share/terrabit/resources,
/// and a `resources` folder in any parent of the executable's folder (a build tree inside the
/// source tree), that holds rules/default.yaml; else the source tree's resources compiled in
/// (TERRABIT_RESOURCES_DIR) when it still exists. Nothing when none is found.
std::optional<std::filesystem::path> findResourcesDir(const std::filesystem::path& executable);

/// <resources>/rules/default.yaml, or nothing when no resources folder is found.
std::optional<std::filesystem::path> defaultRulesFile(const std::filesystem::path& executable);

}  // namespace terrabit::core::io
