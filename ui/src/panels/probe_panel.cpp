#include "terrabit/ui/panels/probe_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

#include "terrabit/ui/panels/expression_editor.h"
#include "terrabit/ui/views/probe_tool.h"

namespace terrabit::ui {

ProbePanel::ProbePanel(ProbeTool* tool, QWidget* parent) : QWidget(parent), mTool(tool) {
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    mShape = new QComboBox(this);
    mShape->addItems({tr("Point"), tr("Rectangle"), tr("Triangle"), tr("Character")});
    form->addRow(tr("Shape"), mShape);
    mSize = new QDoubleSpinBox(this);
    mSize->setRange(0.1, 200.0);
    mSize->setValue(tool->sizeMetres());
    mSize->setSuffix(" m");
    mSize->setToolTip(tr("Rectangle and triangle size; the character's width"));
    form->addRow(tr("Size"), mSize);
    mBlocking = new ExpressionEditor(this);
    mBlocking->setSingleLine(true);
    mBlocking->setText(tool->blockingExpression());
    mBlocking->setToolTip(tr("Cells that block: a layer expression (Enter applies it)"));
    form->addRow(tr("Blocking"), mBlocking);
    layout->addLayout(form);
    mBlockingError = new QLabel(this);
    mBlockingError->setWordWrap(true);
    mBlockingError->setStyleSheet("color: #c62828");
    mBlockingError->hide();
    layout->addWidget(mBlockingError);
    auto* buttons = new QHBoxLayout;
    mProbeButton = new QPushButton(tr("Probe (click the map)"), this);
    mProbeButton->setCheckable(true);
    mWalkButton = new QPushButton(tr("Walk (W A S D)"), this);
    mWalkButton->setCheckable(true);
    mWalkButton->setToolTip(tr("Click the map to place the character, then move it with W, A, S and D"));
    buttons->addWidget(mProbeButton);
    buttons->addWidget(mWalkButton);
    layout->addLayout(buttons);
    mResult = new QLabel(tr("No probe yet"), this);
    mResult->setAlignment(Qt::AlignCenter);
    mResult->setMinimumHeight(32);
    mResult->setStyleSheet("border-radius: 4px; background: #eeeeee; font-weight: bold");
    layout->addWidget(mResult);
    mLayers = new QLabel(this);
    mLayers->setWordWrap(true);
    layout->addWidget(mLayers);
    mHeight = new QLabel(this);
    mHeight->setObjectName("probeGroundHeight");
    mHeight->setToolTip(tr("The ground height there, metres above the elevation data's datum"));
    layout->addWidget(mHeight);
    layout->addStretch(1);

    connect(mShape, &QComboBox::currentIndexChanged, this, [this](int i) { mTool->setShape(ProbeShape(i)); });
    connect(mSize, &QDoubleSpinBox::valueChanged, this, [this](double v) { mTool->setSizeMetres(v); });
    connect(mBlocking, &ExpressionEditor::committed, this, [this](const QString& text) {
        if (core::Status s = mTool->setBlockingExpression(text.trimmed()); !s) {
            mBlockingError->setText(QString::fromStdString(s.message()));
            mBlockingError->show();
            return;
        }
        mBlocking->setDiagnostic({});
        mBlockingError->hide();
    });
    connect(mProbeButton, &QPushButton::toggled, mTool, &ProbeTool::setActive);
    connect(mWalkButton, &QPushButton::toggled, mTool, &ProbeTool::setWalking);
    connect(mTool, &ProbeTool::activeChanged, this, [this](bool on) {
        const QSignalBlocker block(mProbeButton);
        mProbeButton->setChecked(on);
    });
    connect(mTool, &ProbeTool::walkingChanged, this, [this](bool on) {
        const QSignalBlocker block(mWalkButton);
        mWalkButton->setChecked(on);
    });
    connect(mTool, &ProbeTool::probed, this, &ProbePanel::showOutcome);
    connect(mTool, &ProbeTool::characterMoved, this, &ProbePanel::showMove);
}

void ProbePanel::showOutcome(const ProbeOutcome& o) {
    mResult->setText(o.blocked ? tr("BLOCKED") : tr("CLEAR"));
    mResult->setStyleSheet(QString("border-radius: 4px; font-weight: bold; color: white; background: %1")
                               .arg(o.blocked ? "#e53935" : "#43a047"));
    mLayers->setText(o.layers.isEmpty() ? tr("No layer under the probe")
                                        : tr("Layers hit: %1").arg(o.layers.join(", ")));
    showHeight(o.groundHeight);
}

void ProbePanel::showHeight(float metres) {
    mHeight->setText(std::isnan(metres) ? QString() : tr("Ground %1 m").arg(double(metres), 0, 'f', 1));
}

void ProbePanel::showMove() {
    const auto& m = mTool->lastMove();
    const bool blocked = m.blocked();
    mResult->setText(blocked ? tr("WALL: stopped%1").arg(m.blockedX != m.blockedY ? tr(", sliding") : QString())
                             : tr("walking"));
    mResult->setStyleSheet(QString("border-radius: 4px; font-weight: bold; color: white; background: %1")
                               .arg(blocked ? "#ef6c00" : "#43a047"));
    showHeight(mTool->groundHeight(m.position));
}

}  // namespace terrabit::ui
