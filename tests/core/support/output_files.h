#pragma once
// Reading back what a command wrote: a file's bytes, and every file below a folder with its
// bytes, for tests that compare whole outputs byte for byte.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

/// Expects the same files below both folders (`skip` leaving some out), byte for byte; fails
/// with the names of the differing files rather than dumping megabytes.
inline void expectSameFiles(const std::filesystem::path& expected, const std::filesystem::path& actual,
                            const std::function<bool(const std::string&)>& skip = {}) {
    const auto a = filesUnder(expected, skip), b = filesUnder(actual, skip);
    ASSERT_FALSE(a.empty());
    std::vector<std::string> namesA, namesB;
    for (const auto& [k, v] : a) namesA.push_back(k);
    for (const auto& [k, v] : b) namesB.push_back(k);
    ASSERT_EQ(namesA, namesB);
    for (const auto& [name, bytes] : a) {
        EXPECT_TRUE(bytes == b.at(name)) << name << " differs (" << bytes.size() << " against " << b.at(name).size()
                                         << " bytes)";
    }
}

}  // namespace terrabit::test
