#pragma once
/// Progress of long jobs as lines on a stream (the CLI's stderr).

#include <ostream>

#include "terrabit/core/progress.h"

namespace terrabit::cli {

/// A callback that writes "<stage> 42%" to `out`: on a terminal one line redrawn in place, else
/// a line per stage and every 10 %. Never cancels. `out` must outlive the callback.
core::ProgressCallback progressPrinter(std::ostream& out, bool terminal);

}  // namespace terrabit::cli
