#pragma once
// What a fuzz target does when an entry point breaks its contract (a wrong answer, not just a
// crash the sanitizers would catch): print what broke and abort, so libFuzzer keeps the input.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace terrabit::fuzz {

/// Aborts with `what` when `ok` is false.
inline void require(bool ok, std::string_view what) {
    if (ok) return;
    std::fprintf(stderr, "fuzz contract broken: %.*s\n", static_cast<int>(what.size()), what.data());
    std::abort();
}

/// A new folder under the system's temporary folder, named `prefix` and a unique suffix, removed
/// with everything in it when the fuzzer exits: for targets whose entry point reads files. Once
/// per process.
inline std::filesystem::path scratchFolder(std::string_view prefix) {
    static std::filesystem::path folder;
    std::string pattern = (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    require(::mkdtemp(pattern.data()) != nullptr, "a scratch folder is made");
    folder = pattern;
    std::atexit([] {
        std::error_code ec;
        std::filesystem::remove_all(folder, ec);
    });
    return folder;
}

}  // namespace terrabit::fuzz
