#pragma once
/// ExpressionPanel: the layer-expression editor with a live preview. While the designer types,
/// the expression is compiled and run on the selected tiles (debounced: after a short pause),
/// showing the result and its coverage, or the error underlined where it is. "Save as layer"
/// keeps the expression as a named derived layer of the project.

#include <QImage>
#include <QTimer>
#include <QWidget>

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

    /// Runs the preview now (the timer does it after typing stops).
    void updatePreview();
    /// Saves the expression as a derived layer named by the name field; false with the reason
    /// shown when it cannot be.
    bool saveAsLayer();

signals:
    /// A preview was computed (ok) or failed (the error is in statusText()).
    void previewUpdated(bool ok);

private:
    void refreshNames();

    MapDocument* mDocument;
    ExpressionEditor* mEditor;
    QLabel* mImageLabel;
    QLabel* mStatus;
    QLineEdit* mName;
    QToolButton* mColour;
    QPushButton* mSave;
    QTimer mDebounce;
    QImage mPreview;
    core::algebra::AreaCoverage mCoverage;
    QColor mLayerColour{0xff, 0x98, 0x00};
};

}  // namespace terrabit::ui
