#include "terrabit/cli/exit_codes.h"

#include <string_view>

namespace terrabit::cli {

int exitCode(core::ErrorKind kind) {
    switch (kind) {
        case core::ErrorKind::BadArguments:
            return kExitBadArguments;
        case core::ErrorKind::BadInput:
        case core::ErrorKind::Io:
        case core::ErrorKind::Cancelled:
        case core::ErrorKind::Internal:
            return kExitNothingUsable;
    }
    return kExitNothingUsable;
}

int fail(std::ostream& err, const core::Error& error) {
    std::string_view rest = error.message;
    do {
        const std::size_t newline = rest.find('\n');
        err << "error: " << rest.substr(0, newline) << '\n';
        rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
    } while (!rest.empty());
    return exitCode(error.kind);
}

}  // namespace terrabit::cli
