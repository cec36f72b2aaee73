#pragma once
// What a fuzz target does when an entry point breaks its contract (a wrong answer, not just a
// crash the sanitizers would catch): print what broke and abort, so libFuzzer keeps the input.

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace terrabit::fuzz {

/// Aborts with `what` when `ok` is false.
inline void require(bool ok, std::string_view what) {
    if (ok) return;
    std::fprintf(stderr, "fuzz contract broken: %.*s\n", static_cast<int>(what.size()), what.data());
    std::abort();
}

}  // namespace terrabit::fuzz
