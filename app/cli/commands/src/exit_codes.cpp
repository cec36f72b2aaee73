#include "terrabit/cli/exit_codes.h"

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

core::Error nothingUsable(core::Error error) {
    if (error.kind == core::ErrorKind::BadArguments) error.kind = core::ErrorKind::BadInput;
    return error;
}

int fail(std::ostream& err, const core::Error& error, const ErrorStyle& style) {
    if (!style.everyLine) {
        err << style.prefix << error.message << '\n';
        return exitCode(error.kind);
    }
    std::string_view rest = error.message;
    do {
        const std::size_t newline = rest.find('\n');
        err << style.prefix << rest.substr(0, newline) << '\n';
        rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
    } while (!rest.empty());
    return exitCode(error.kind);
}

}  // namespace terrabit::cli
