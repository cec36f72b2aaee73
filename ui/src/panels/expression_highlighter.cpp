#include "terrabit/ui/panels/expression_highlighter.h"

#include "terrabit/ui/panels/layer_name_validator.h"

namespace terrabit::ui {

ExpressionHighlighter::ExpressionHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
    mFunction.setForeground(QColor(0x1a, 0x4f, 0xb0));
    mFunction.setFontWeight(QFont::Bold);
    mLayer.setForeground(QColor(0x2e, 0x7d, 0x32));
    mUnknown.setForeground(QColor(0x8d, 0x3f, 0x00));
    mUnknown.setFontItalic(true);
    mNumber.setForeground(QColor(0xb2, 0x55, 0x00));
    mOperator.setForeground(QColor(0x7b, 0x1f, 0xa2));
    mOperator.setFontWeight(QFont::Bold);
    mComment.setForeground(QColor(0x80, 0x80, 0x80));
    mComment.setFontItalic(true);
}

const QStringList& ExpressionHighlighter::functionNames() {
    static const QStringList kNames = {"dilate", "erode", "open",   "close", "edge",   "shift", "random", "noise",
                                       "all",    "none",  "square", "disk",  "height", "slope", "aspect"};
    return kNames;
}

void ExpressionHighlighter::setLayerNames(const QStringList& names) {
    mLayers = QSet<QString>(names.begin(), names.end());
    rehighlight();
}

void ExpressionHighlighter::highlightBlock(const QString& text) {
    const int n = static_cast<int>(text.size());
    int i = 0;
    while (i < n) {
        const QChar c = text[i];
        if (c == '#') {
            setFormat(i, n - i, mComment);
            return;
        }
        if (isLayerNameStart(c)) {
            int j = i + 1;
            while (j < n && isLayerNameChar(text[j])) ++j;
            const QString word = text.mid(i, j - i);
            // A definition's own name (before '=') is neither a layer nor unknown.
            int k = j;
            while (k < n && text[k].isSpace()) ++k;
            const bool defines = k < n && text[k] == '=';
            // aspect's compass directions read as values, like numbers.
            static const QStringList kDirections = {"N", "NE", "E", "SE", "S", "SW", "W", "NW",
                                                    "n", "ne", "e", "se", "s", "sw", "w", "nw"};
            if (functionNames().contains(word)) {
                setFormat(i, j - i, mFunction);
            } else if (kDirections.contains(word) && !mLayers.contains(word)) {
                setFormat(i, j - i, mNumber);
            } else if (mLayers.contains(word)) {
                setFormat(i, j - i, mLayer);
            } else if (!defines) {
                setFormat(i, j - i, mUnknown);
            }
            i = j;
        } else if (c == '"') {
            int j = i + 1;
            while (j < n && text[j] != '"') ++j;
            const QString word = text.mid(i + 1, j - i - 1);
            setFormat(i, std::min(n, j + 1) - i, mLayers.contains(word) ? mLayer : mUnknown);
            i = j + 1;
        } else if (c.isDigit() || (c == '.' && i + 1 < n && text[i + 1].isDigit())) {
            int j = i + 1;
            while (j < n && (text[j].isDigit() || text[j] == '.')) ++j;
            if (text.mid(j, 3) == "deg") {
                j += 3;
            } else if (j < n && (text[j] == 'm' || text[j] == QChar(0x00b0))) {
                ++j;
            }
            setFormat(i, j - i, mNumber);
            i = j;
        } else if (QString("|^&-~=<>").contains(c)) {
            setFormat(i, 1, mOperator);
            ++i;
        } else {
            ++i;
        }
    }
}

}  // namespace terrabit::ui
