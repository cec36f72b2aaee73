#pragma once
/// Reading a whole text document a user names: rules, a catalogue, a project, an expression.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "terrabit/core/result.h"

namespace terrabit::core {

/// The largest text document read: far above any real rules file or project, and it keeps a
/// wrong path (a map, /dev/zero) from filling memory.
inline constexpr std::uint64_t kMaxTextFileBytes = 64ull << 20;

/// The whole of `file`. `what` names the document in the error ("rules file", "catalogue"…),
/// which says what is wrong: missing or unreadable (the system's reason), a folder, not text
/// (a NUL byte in it), or larger than kMaxTextFileBytes.
Result<std::string> readTextFile(const std::filesystem::path& file, std::string_view what);

}  // namespace terrabit::core
