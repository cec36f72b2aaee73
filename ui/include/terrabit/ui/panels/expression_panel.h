#pragma once
/// ExpressionPanel: the layer-expression editor with a live preview. While the designer types,
/// the expression is compiled and run on the selected tiles (debounced: after a short pause),
/// showing the result and its coverage, or the error underlined where it is. "Save as layer"
/// keeps the expression as a named derived layer of the project.
///
/// The preview is computed on a worker thread (parse, evaluation over the selected tiles,
/// coverage and the picture) so typing never waits for it: a whole-city selection takes
/// seconds. Every edit, selection or layer change starts a new generation; an evaluation of an
/// older generation stops at its next tile and whatever it produced is dropped, so only the
/// latest text's preview is ever shown.

#include <QImage>
#include <QThreadPool>
#include <QTimer>
#include <QWidget>

#include <atomic>
#include <cstdint>
#include <memory>

#include "terrabit/core/algebra/area_coverage.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace terrabit::ui {

class ExpressionEditor;
class MapDocument;

class ExpressionPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExpressionPanel(MapDocument* document, QWidget* parent = nullptr);
    ~ExpressionPanel() override;

    ExpressionEditor* editor() const { return mEditor; }
    QLineEdit* nameEdit() const { return mName; }
    QPushButton* saveButton() const { return mSave; }
    /// What the preview shows now: the result on the selected tiles, and its coverage.
    const QImage& previewImage() const { return mPreview; }
    const core::algebra::AreaCoverage& previewCoverage() const { return mCoverage; }
    /// The status line: coverage, or the error.
    QString statusText() const;
    /// Milliseconds the preview waits after the last keystroke.
    static constexpr int kDebounceMs = 250;

    /// Starts the preview of the current text now (the timer does it after typing stops) and
    /// returns at once; previewUpdated() reports the result. With no text or no selected tiles
    /// it reports at once.
    void updatePreview();
    /// True from an edit until the preview of the latest text is shown (debouncing or
    /// evaluating).
    bool previewPending() const { return mDebounce.isActive() || mShownGeneration != mGeneration; }
    /// Saves the expression as a derived layer named by the name field; false with the reason
    /// shown when it cannot be.
    bool saveAsLayer();

    /// Internal: what a worker hands back (expression_panel.cpp).
    struct Result;

signals:
    /// The latest text's preview was computed (ok) or failed (the error is in statusText()).
    /// Never emitted for a superseded text.
    void previewUpdated(bool ok);

private:
    void refreshNames();
    /// An edit, a new selection or new layers: whatever is being evaluated is stale.
    void supersede();
    void showResult(const Result& result);

    MapDocument* mDocument;
    ExpressionEditor* mEditor;
    QLabel* mImageLabel;
    QLabel* mStatus;
    QLineEdit* mName;
    QToolButton* mColour;
    QPushButton* mSave;
    QTimer mDebounce;
    QTimer mBusyHint;  ///< says "evaluating" only when a preview takes a noticeable time
    /// The newest generation (UI thread) and its copy the workers poll to notice they are stale.
    std::uint64_t mGeneration = 0;
    std::uint64_t mShownGeneration = 0;
    std::shared_ptr<std::atomic<std::uint64_t>> mLatest = std::make_shared<std::atomic<std::uint64_t>>(0);
    QImage mPreview;
    core::algebra::AreaCoverage mCoverage;
    QColor mLayerColour{0xff, 0x98, 0x00};
    /// One evaluation at a time: a newer one queues behind a stale one, which stops at its next
    /// tile. Declared last so it is destroyed (waiting for its worker) first.
    QThreadPool mPool;
};

}  // namespace terrabit::ui
