#include "terrabit/core/algebra/expression_diagnostic.h"

#include <algorithm>

namespace terrabit::core::algebra {

namespace {

bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0u) == 0x80u; }

int codePoints(std::string_view s) {
    int n = 0;
    for (char c : s) n += isContinuationByte(c) ? 0 : 1;
    return n;
}

}  // namespace

std::string ExpressionDiagnostic::text() const {
    std::string out = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
    out += '\n';
    out += lineText;
    out += '\n';
    // Pad with the line's own whitespace characters so a tab before the spot still lines up.
    int col = 1;
    for (std::size_t i = 0; i < lineText.size() && col < column; ++i) {
        if (isContinuationByte(lineText[i])) continue;
        out += lineText[i] == '\t' ? '\t' : ' ';
        ++col;
    }
    for (; col < column; ++col) out += ' ';
    out += '^';
    for (int i = 1; i < length; ++i) out += '~';
    return out;
}

ExpressionDiagnostic ExpressionDiagnostic::at(std::string_view text, int byteOffset, int byteLength, std::string what) {
    const std::size_t offset = std::min(static_cast<std::size_t>(std::max(byteOffset, 0)), text.size());
    const std::size_t lineStart = [&] {
        const std::size_t p = text.rfind('\n', offset == 0 ? std::string_view::npos : offset - 1);
        return (offset == 0 || p == std::string_view::npos) ? std::size_t{0} : p + 1;
    }();
    std::size_t lineEnd = text.find('\n', lineStart);
    if (lineEnd == std::string_view::npos) lineEnd = text.size();

    ExpressionDiagnostic d;
    d.line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(lineStart), '\n'));
    d.column = 1 + codePoints(text.substr(lineStart, offset - lineStart));
    std::string_view lineView = text.substr(lineStart, lineEnd - lineStart);
    if (!lineView.empty() && lineView.back() == '\r') lineView.remove_suffix(1);
    d.lineText = std::string(lineView);
    // The underline stays on the spot's line.
    const std::size_t end = std::min(offset + static_cast<std::size_t>(std::max(byteLength, 0)), lineEnd);
    d.length = std::max(1, codePoints(text.substr(offset, end - offset)));
    d.what = std::move(what);
    return d;
}

}  // namespace terrabit::core::algebra
