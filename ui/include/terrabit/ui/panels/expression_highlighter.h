#pragma once
/// ExpressionHighlighter: colours a layer expression as it is typed — functions, known layer
/// names, unknown names, numbers and distances, operators and comments.

#include <QSet>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace terrabit::ui {

class ExpressionHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit ExpressionHighlighter(QTextDocument* document);

    /// The layer names that count as known (the rest of the identifiers are marked unknown).
    void setLayerNames(const QStringList& names);
    /// The functions and keywords of the language (dilate, erode, …, all, none, square, disk).
    static const QStringList& functionNames();

    /// The format given to each kind of token (tests look at them).
    QTextCharFormat functionFormat() const { return mFunction; }
    QTextCharFormat layerFormat() const { return mLayer; }
    QTextCharFormat unknownFormat() const { return mUnknown; }

protected:
    void highlightBlock(const QString& text) override;

private:
    QSet<QString> mLayers;
    QTextCharFormat mFunction, mLayer, mUnknown, mNumber, mOperator, mComment;
};

}  // namespace terrabit::ui
