#include "terrabit/ui/panels/expression_editor.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QScrollBar>
#include <QStringListModel>
#include <QTextBlock>
#include <QToolTip>

#include "terrabit/ui/panels/expression_highlighter.h"
#include "terrabit/ui/panels/layer_name_validator.h"

namespace terrabit::ui {

ExpressionEditor::ExpressionEditor(QWidget* parent) : QPlainTextEdit(parent) {
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setTabChangesFocus(true);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    mHighlighter = new ExpressionHighlighter(document());
    mModel = new QStringListModel(this);
    mCompleter = new QCompleter(mModel, this);
    mCompleter->setWidget(this);
    mCompleter->setCompletionMode(QCompleter::PopupCompletion);
    mCompleter->setCaseSensitivity(Qt::CaseInsensitive);
    mCompleter->setModelSorting(QCompleter::CaseInsensitivelySortedModel);
    connect(mCompleter, qOverload<const QString&>(&QCompleter::activated), this, &ExpressionEditor::insertCompletion);
    setLayerNames({});
}

void ExpressionEditor::setLayerNames(const QStringList& names) {
    QStringList all = names;
    all << ExpressionHighlighter::functionNames();
    all.removeDuplicates();
    all.sort(Qt::CaseInsensitive);
    mModel->setStringList(all);
    mHighlighter->setLayerNames(names);
}

void ExpressionEditor::setSingleLine(bool single) {
    mSingleLine = single;
    if (single) {
        setLineWrapMode(QPlainTextEdit::NoWrap);
        setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        const int h = fontMetrics().height() + 2 * (frameWidth() + int(document()->documentMargin())) + 2;
        setFixedHeight(h);
    }
}

void ExpressionEditor::setText(const QString& text) {
    if (text == toPlainText()) return;
    setPlainText(text);
    mCommitted = text;
    moveCursor(QTextCursor::End);
}

void ExpressionEditor::setDiagnostic(const core::algebra::ExpressionDiagnostic& d) {
    mDiagnostic = d;
    mRange = {0, 0};
    QList<QTextEdit::ExtraSelection> selections;
    if (d.line > 0) {
        const QTextBlock block = document()->findBlockByNumber(d.line - 1);
        if (block.isValid()) {
            // Columns count code points; QTextDocument counts UTF-16 units.
            const QString line = block.text();
            auto unitOf = [&](int codePoints) {
                int unit = 0;
                for (int cp = 0; cp < codePoints && unit < line.size(); ++cp)
                    unit += line[unit].isHighSurrogate() ? 2 : 1;
                return unit;
            };
            const int start = unitOf(d.column - 1);
            int end = unitOf(d.column - 1 + std::max(1, d.length));
            if (end <= start) end = start + 1;  // past the end of the line: underline one cell
            QTextEdit::ExtraSelection sel;
            sel.cursor = QTextCursor(document());
            const int docEnd = document()->characterCount() - 1;
            const int a = std::min(block.position() + start, docEnd);
            const int b = std::min(block.position() + end, std::max(docEnd, a));
            sel.cursor.setPosition(a == b && a > 0 ? a - 1 : a);
            sel.cursor.setPosition(b, QTextCursor::KeepAnchor);
            sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            sel.format.setUnderlineColor(QColor(0xd3, 0x2f, 0x2f));
            sel.format.setBackground(QColor(0xff, 0xeb, 0xee));
            sel.format.setToolTip(QString::fromStdString(d.what));
            selections << sel;
            mRange = {sel.cursor.selectionStart(), sel.cursor.selectionEnd()};
        }
    }
    setExtraSelections(selections);
}

bool ExpressionEditor::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int pos = cursorForPosition(help->pos()).position();
        if (mDiagnostic.line > 0 && pos >= mRange.first && pos <= mRange.second) {
            QToolTip::showText(help->globalPos(), QString::fromStdString(mDiagnostic.what), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QPlainTextEdit::event(e);
}

QString ExpressionEditor::wordUnderCursor() const {
    QTextCursor c = textCursor();
    const QString line = c.block().text();
    int i = c.positionInBlock();
    int start = i;
    while (start > 0 && isLayerNameChar(line[start - 1])) --start;
    return line.mid(start, i - start);
}

void ExpressionEditor::insertCompletion(const QString& completion) {
    QTextCursor c = textCursor();
    const int prefix = static_cast<int>(wordUnderCursor().size());
    c.movePosition(QTextCursor::Left, QTextCursor::KeepAnchor, prefix);
    const bool function = ExpressionHighlighter::functionNames().contains(completion) && completion != "all" &&
                          completion != "none" && completion != "square" && completion != "disk";
    c.insertText(function ? completion + "(" : completion);
    setTextCursor(c);
}

void ExpressionEditor::showCompletions(bool force) {
    const QString prefix = wordUnderCursor();
    if (!force && prefix.size() < 2) {
        mCompleter->popup()->hide();
        return;
    }
    if (prefix != mCompleter->completionPrefix()) {
        mCompleter->setCompletionPrefix(prefix);
        mCompleter->popup()->setCurrentIndex(mCompleter->completionModel()->index(0, 0));
    }
    if (mCompleter->completionCount() == 0 ||
        (mCompleter->completionCount() == 1 && mCompleter->currentCompletion() == prefix && !force)) {
        mCompleter->popup()->hide();
        return;
    }
    QRect r = cursorRect();
    r.setWidth(mCompleter->popup()->sizeHintForColumn(0) +
               mCompleter->popup()->verticalScrollBar()->sizeHint().width());
    mCompleter->complete(r);
}

void ExpressionEditor::keyPressEvent(QKeyEvent* e) {
    if (mCompleter->popup()->isVisible()) {
        switch (e->key()) {
            case Qt::Key_Enter:
            case Qt::Key_Return:
            case Qt::Key_Escape:
            case Qt::Key_Tab:
            case Qt::Key_Backtab:
                e->ignore();  // the completer's popup takes these
                return;
            default:
                break;
        }
    }
    const bool ctrlSpace = e->key() == Qt::Key_Space && (e->modifiers() & Qt::ControlModifier);
    if (ctrlSpace) {
        showCompletions(true);
        return;
    }
    if (mSingleLine && (e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter)) {
        mCommitted = toPlainText();
        emit committed(mCommitted);
        return;
    }
    QPlainTextEdit::keyPressEvent(e);
    if (!e->text().isEmpty() && isLayerNameChar(e->text()[0])) {
        showCompletions(false);
    } else if (mCompleter->popup()->isVisible() && !e->text().isEmpty()) {
        mCompleter->popup()->hide();
    }
}

void ExpressionEditor::focusOutEvent(QFocusEvent* e) {
    QPlainTextEdit::focusOutEvent(e);
    if (mSingleLine && toPlainText() != mCommitted && !mCompleter->popup()->isVisible()) {
        mCommitted = toPlainText();
        emit committed(mCommitted);
    }
}

}  // namespace terrabit::ui
