#pragma once
/// ProbePanel: the collision-probe tool's controls — the shape (point, rectangle, triangle,
/// character), its size, the blocking expression, the probe and walk switches — and the
/// result: red when blocked, green when clear, with the layers under the probe.

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

private:
    void showOutcome(const ProbeOutcome& outcome);
    void showMove();

    ProbeTool* mTool;
    QComboBox* mShape;
    QDoubleSpinBox* mSize;
    ExpressionEditor* mBlocking;
    QLabel* mBlockingError;
    QPushButton* mProbeButton;
    QPushButton* mWalkButton;
    QLabel* mResult;
    QLabel* mLayers;
};

}  // namespace terrabit::ui
