#include "terrabit/core/io/resource_paths.h"

#include <system_error>

namespace terrabit::core::io {

namespace {

bool hasDefaultRules(const std::filesystem::path& dir) {
    std::error_code ec;
    return std::filesystem::is_regular_file(dir / "rules" / "default.yaml", ec);
}

}  // namespace

std::filesystem::path currentExecutable(const char* argv0) {
    std::error_code ec;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec && !self.empty()) return self;
    if (!argv0) return {};
    return std::filesystem::absolute(argv0, ec);
}

std::optional<std::filesystem::path> findResourcesDir(const std::filesystem::path& executable) {
    if (!executable.empty()) {
        const std::filesystem::path dir = executable.parent_path();
        for (const auto& candidate : {dir / "resources", dir / ".." / "share" / "terrabit" / "resources"}) {
            if (hasDefaultRules(candidate)) return candidate.lexically_normal();
        }
        // A build tree inside the source tree: walk up to the repository root.
        for (std::filesystem::path p = dir; !p.empty(); p = p.parent_path()) {
            if (hasDefaultRules(p / "resources")) return (p / "resources").lexically_normal();
            if (p == p.parent_path()) break;
        }
    }
#ifdef TERRABIT_RESOURCES_DIR
    if (hasDefaultRules(TERRABIT_RESOURCES_DIR)) return std::filesystem::path(TERRABIT_RESOURCES_DIR);
#endif
    return std::nullopt;
}

std::optional<std::filesystem::path> defaultRulesFile(const std::filesystem::path& executable) {
    const auto dir = findResourcesDir(executable);
    if (!dir) return std::nullopt;
    return *dir / "rules" / "default.yaml";
}

}  // namespace terrabit::core::io
