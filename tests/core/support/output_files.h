#pragma once
// Reading back what a command wrote: a file's bytes, and every file below a folder with its
// bytes, for tests that compare whole outputs byte for byte.

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

namespace terrabit::test {

inline std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Every regular file below `root` (none when it does not exist), by path relative to it with
/// '/' separators, with its bytes; `skip` leaves out the relative paths it returns true for.
inline std::map<std::string, std::string> filesUnder(const std::filesystem::path& root,
                                                     const std::function<bool(const std::string&)>& skip = {}) {
    std::map<std::string, std::string> files;
    if (!std::filesystem::exists(root)) return files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
        if (!e.is_regular_file()) continue;
        const std::string relative = std::filesystem::relative(e.path(), root).generic_string();
        if (skip && skip(relative)) continue;
        files[relative] = readFile(e.path());
    }
    return files;
}

}  // namespace terrabit::test
