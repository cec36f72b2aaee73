#pragma once
/// Progress and cancellation for long jobs (QgsFeedback's idea without a QObject): core calls
/// the callback now and then; the ui turns it into Qt signals, the CLI into a line on stderr.

#include <functional>
#include <string_view>

namespace terrabit::core {

/// Called with the fraction done (0..1) and what is being done ("reading", "rasterizing"…).
/// Returning false asks the job to stop as soon as it can; the job then returns an error that
/// says it was cancelled. An empty callback means "no progress wanted, never cancel".
using ProgressCallback = std::function<bool(double fraction, std::string_view stage)>;

/// Reports progress if a callback is set; returns false when the job should stop.
inline bool reportProgress(const ProgressCallback& progress, double fraction, std::string_view stage) {
    return !progress || progress(fraction, stage);
}

}  // namespace terrabit::core
