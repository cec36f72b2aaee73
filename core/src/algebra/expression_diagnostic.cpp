#include "terrabit/core/algebra/expression_diagnostic.h"

#include <algorithm>
#include <vector>

namespace terrabit::core::algebra {

namespace {

bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0u) == 0x80u; }

/// Lines longer than this (code points) are shown as kContextCharacters around the spot.
constexpr int kMaxShownCharacters = 160;
constexpr int kContextCharacters = 60;

int codePoints(std::string_view s) {
    int n = 0;
    for (char c : s) n += isContinuationByte(c) ? 0 : 1;
    return n;
}

}  // namespace

std::string ExpressionDiagnostic::text() const {
    std::string out = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
    out += '\n';
    // A long line (a generated expression, a file of one line) shows only the stretch around
    // the spot, between "…" marks, so the message stays readable.
    std::vector<std::size_t> starts;  // each code point's first byte
    for (std::size_t i = 0; i < lineText.size(); ++i) {
        if (!isContinuationByte(lineText[i])) starts.push_back(i);
    }
    const int count = static_cast<int>(starts.size());
    const int spot = std::clamp(column - 1, 0, count);
    int first = 0, end = count;  // the code points shown
    if (count > kMaxShownCharacters) {
        first = std::max(0, spot - kContextCharacters);
        end = std::min(count, spot + std::min(std::max(length, 1), kContextCharacters) + kContextCharacters);
    }
    const auto byteOf = [&](int k) { return k < count ? starts[static_cast<std::size_t>(k)] : lineText.size(); };
    const bool cutBefore = first > 0, cutAfter = end < count;
    if (cutBefore) out += "…";
    out += lineText.substr(byteOf(first), byteOf(end) - byteOf(first));
    if (cutAfter) out += "…";
    out += '\n';
    // Pad with the line's own whitespace characters so a tab before the spot still lines up.
    if (cutBefore) out += ' ';
    for (int k = first; k < spot; ++k) out += lineText[byteOf(k)] == '\t' ? '\t' : ' ';
    for (int col = std::max(count, spot) + 1; col < column; ++col) out += ' ';
    out += '^';
    const int underline = cutAfter ? std::min(length, end - spot) : length;
    for (int i = 1; i < underline; ++i) out += '~';
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
