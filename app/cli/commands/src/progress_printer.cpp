#include "terrabit/cli/progress_printer.h"

#include <cmath>
#include <memory>
#include <string>

namespace terrabit::cli {

using core::ProgressCallback;

ProgressCallback progressPrinter(std::ostream& out, bool terminal) {
    struct State {
        std::string stage;
        int last = -1;
        bool lineOpen = false;  ///< a terminal line is being redrawn
    };
    auto state = std::make_shared<State>();
    return [&out, terminal, state](double fraction, std::string_view stage) {
        const int percent = static_cast<int>(std::floor(std::fmin(std::fmax(fraction, 0.0), 1.0) * 100.0));
        const bool newStage = stage != state->stage;
        if (newStage) {
            if (terminal && state->lineOpen) out << '\n';
            state->stage = std::string(stage);
            state->last = -1;
        }
        const int step = terminal ? 1 : 10;
        if (newStage || percent / step != state->last / step) {
            if (terminal) {
                out << '\r' << stage << ' ' << percent << '%' << (percent == 100 ? "\n" : "") << std::flush;
                state->lineOpen = percent != 100;
            } else {
                out << stage << ' ' << percent << "%\n" << std::flush;
            }
            state->last = percent;
        }
        return true;
    };
}

}  // namespace terrabit::cli
