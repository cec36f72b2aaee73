#pragma once
/// terrabit-cli's exit codes, derived from an error's kind in this one place, and the one way
/// the commands print an error. No command decides anything from a message's text.

#include <ostream>

#include "terrabit/core/result.h"

namespace terrabit::cli {

/// Done: something usable was read and processed (problems in the data are warnings).
inline constexpr int kExitOk = 0;
/// Nothing usable was read, the map could be read only in part (without --allow-partial),
/// nothing could be baked, an output could not be written, or the job was cancelled.
inline constexpr int kExitNothingUsable = 1;
/// Bad arguments: an option, a tile selection, rules, a catalogue, an expression.
inline constexpr int kExitBadArguments = 2;

/// The exit code for a failure of this kind.
int exitCode(core::ErrorKind kind);

/// Prints `error` on `err`, "error: " before each of its lines, and returns its exit code.
int fail(std::ostream& err, const core::Error& error);

}  // namespace terrabit::cli
