#pragma once
/// ProbePanel: the collision-probe tool's controls — the shape (point, rectangle, triangle,
/// character), its size, the blocking expression, the probe and walk switches — and the
/// result: red when blocked, green when clear, with the layers under the probe and, on terrain,
/// the ground height where it probed (or where the walking character stands).

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;

namespace terrabit::ui {

class ExpressionEditor;
class ProbeTool;
struct ProbeOutcome;

class ProbePanel : public QWidget {
    Q_OBJECT
public:
    ProbePanel(ProbeTool* tool, QWidget* parent = nullptr);

    QComboBox* shapeBox() const { return mShape; }
    QDoubleSpinBox* sizeBox() const { return mSize; }
    ExpressionEditor* blockingEditor() const { return mBlocking; }
    QPushButton* probeButton() const { return mProbeButton; }
    QPushButton* walkButton() const { return mWalkButton; }
    QLabel* resultLabel() const { return mResult; }
    /// "Ground 123.4 m" on terrain; empty otherwise.
    QLabel* heightLabel() const { return mHeight; }

private:
    void showOutcome(const ProbeOutcome& outcome);
    void showMove();
    void showHeight(float metres);

    ProbeTool* mTool;
    QComboBox* mShape;
    QDoubleSpinBox* mSize;
    ExpressionEditor* mBlocking;
    QLabel* mBlockingError;
    QPushButton* mProbeButton;
    QPushButton* mWalkButton;
    QLabel* mResult;
    QLabel* mLayers;
    QLabel* mHeight;
};

}  // namespace terrabit::ui
