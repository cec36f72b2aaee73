#include "terrabit/core/text_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace terrabit::core {

Result<std::string> readTextFile(const std::filesystem::path& file, std::string_view what) {
    const std::string name = file.string() + ": ";
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
        return Error{name + "is a folder; the " + std::string(what) + " must be a file"};
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{name + "cannot open the " + std::string(what) + ": " + std::strerror(errno)};
    std::string text;
    char buffer[1 << 16];
    while (in) {
        in.read(buffer, sizeof buffer);
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxTextFileBytes) {
            return Error{name + "the " + std::string(what) + " is larger than " +
                         std::to_string(kMaxTextFileBytes >> 20) + " MiB: is it the right file?"};
        }
    }
    if (in.bad()) return Error{name + "cannot read the " + std::string(what) + ": " + std::strerror(errno)};
    if (text.find('\0') != std::string::npos) {
        return Error{name + "is not a text file (it holds a NUL byte): is it the right file?"};
    }
    return text;
}

}  // namespace terrabit::core
