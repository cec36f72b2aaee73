#pragma once
/// ExpressionDiagnostic: where and why a layer expression failed to compile, in the form an
/// editor underlines and a terminal prints (message, the source line, a caret under the spot).

#include <string>
#include <string_view>

namespace terrabit::core::algebra {

struct ExpressionDiagnostic {
    int line = 0;          ///< 1-based line of the spot; 0 when there is no diagnostic
    int column = 0;        ///< 1-based column of the spot, in characters (UTF-8 code points)
    int length = 0;        ///< characters underlined from column on (at least 1 when set)
    std::string what;      ///< the message without position ("unknown layer 'gras' (did you mean …)")
    std::string lineText;  ///< the whole source line holding the spot, without its line break

    /// "line L, column C: what", then the source line, then a caret line: spaces (tabs kept so
    /// the caret lines up) up to the column, '^' and '~' for the rest of the underlined length.
    std::string text() const;

    /// A diagnostic at a byte range of the text: computes line, column (code points) and the
    /// underline length from the byte offset and byte length; a range past the end points just
    /// after the last character.
    static ExpressionDiagnostic at(std::string_view text, int byteOffset, int byteLength, std::string what);
};

}  // namespace terrabit::core::algebra
