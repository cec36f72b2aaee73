#pragma once
/// ExpressionEditor: a text field for layer expressions with syntax highlighting, completion of
/// layer and function names (Ctrl+Space, or after two letters), and the compiler's diagnostic
/// underlined at its exact line, column and length, with the message as the tooltip there.
/// In single-line mode (the rules panel's fields) Enter commits instead of breaking the line.

#include <QPlainTextEdit>

#include "terrabit/core/algebra/expression_diagnostic.h"

class QCompleter;
class QStringListModel;

namespace terrabit::ui {

class ExpressionHighlighter;

class ExpressionEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit ExpressionEditor(QWidget* parent = nullptr);

    /// Names offered for completion and highlighted as known: the layers; functions are added.
    void setLayerNames(const QStringList& names);
    QCompleter* completer() const { return mCompleter; }
    ExpressionHighlighter* highlighter() const { return mHighlighter; }

    /// Underlines the diagnostic's span (line/column in code points, 1-based); a diagnostic with
    /// line 0 clears the underline.
    void setDiagnostic(const core::algebra::ExpressionDiagnostic& diagnostic);
    const core::algebra::ExpressionDiagnostic& diagnostic() const { return mDiagnostic; }
    /// The document positions [start, end) the underline covers (UTF-16 units); empty when none.
    std::pair<int, int> diagnosticRange() const { return mRange; }

    void setSingleLine(bool single);
    /// Plain text, as the algebra reads it.
    QString text() const { return toPlainText(); }
    void setText(const QString& text);

signals:
    /// Enter in single-line mode, or focus leaving after a change.
    void committed(const QString& text);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    bool event(QEvent* event) override;

private:
    void insertCompletion(const QString& completion);
    QString wordUnderCursor() const;
    void showCompletions(bool force);

    QCompleter* mCompleter;
    QStringListModel* mModel;
    ExpressionHighlighter* mHighlighter;
    core::algebra::ExpressionDiagnostic mDiagnostic;
    std::pair<int, int> mRange{0, 0};
    bool mSingleLine = false;
    QString mCommitted;
};

}  // namespace terrabit::ui
