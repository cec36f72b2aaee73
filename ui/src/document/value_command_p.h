#pragma once
// One undoable change of the document: the values of one part of it before and after, applied
// through one of the document's apply functions. Successive edits with the same merge key (a
// slider dragged over one parameter) merge into one undo step.

#include <QUndoCommand>

#include <string>

namespace terrabit::ui {

template <class Document, class T>
class ValueCommand : public QUndoCommand {
public:
    using Apply = void (Document::*)(T);
    ValueCommand(Document* doc, Apply apply, T before, T after, QString text, int mergeId = -1,
                 std::string mergeKey = {})
        : QUndoCommand(std::move(text)),
          mDoc(doc),
          mApply(apply),
          mBefore(std::move(before)),
          mAfter(std::move(after)),
          mMergeId(mergeId),
          mMergeKey(std::move(mergeKey)) {}
    void redo() override { (mDoc->*mApply)(mAfter); }
    void undo() override { (mDoc->*mApply)(mBefore); }
    int id() const override { return mMergeId; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* o = dynamic_cast<const ValueCommand*>(other);
        if (!o || o->mMergeKey.empty() || o->mMergeKey != mMergeKey) return false;
        mAfter = o->mAfter;
        return true;
    }

private:
    Document* mDoc;
    Apply mApply;
    T mBefore;
    T mAfter;
    int mMergeId;
    std::string mMergeKey;
};

}  // namespace terrabit::ui
