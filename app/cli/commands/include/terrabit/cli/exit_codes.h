#pragma once
/// terrabit-cli's exit codes, derived from an error's kind in this one place, and the one way
/// the commands print an error. No command picks an exit code itself or decides anything from
/// a message's text: a command turns a failure into an Error of the right kind (a message it
/// makes: badArguments(), ioError(), cancelled(); a callee's: its own kind, or withKind() /
/// nothingUsable() where the command knows better) and returns fail().

#include <ostream>
#include <string_view>

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

/// `error` as "nothing usable" (exit 1) even when its kind says bad arguments; other kinds keep
/// theirs. For a step whose every failure a command reports as nothing usable: compose opening
/// its map, and what bake and render do once the map is open (baking, writing, drawing) — a
/// problem of the arguments that shows only then (a bad ground error bound, a walkability rule
/// the collision grid cannot use) has always ended those commands with 1.
core::Error nothingUsable(core::Error error);

/// How a command's errors look on stderr: a prefix before the message's first line, or before
/// each of its lines.
struct ErrorStyle {
    std::string_view prefix = "error: ";
    bool everyLine = true;  ///< the prefix before every line of the message, not only the first
};
/// info, tiles, rasterize, merge: "error: " before each line.
inline constexpr ErrorStyle kErrorLines{};
/// bake: "error: " before the message.
inline constexpr ErrorStyle kBakeErrors{"error: ", false};
/// compose, probe, render: the command's name before the message.
inline constexpr ErrorStyle kComposeErrors{"terrabit-cli compose: ", false};
inline constexpr ErrorStyle kProbeErrors{"terrabit-cli probe: ", false};
inline constexpr ErrorStyle kRenderErrors{"terrabit-cli render: ", false};

/// Prints `error` on `err` in `style` and returns its exit code: the one way every command
/// reports a failure.
int fail(std::ostream& err, const core::Error& error, const ErrorStyle& style = kErrorLines);

}  // namespace terrabit::cli
