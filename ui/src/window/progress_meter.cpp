#include "terrabit/ui/window/progress_meter.h"

#include <QStyleOptionProgressBar>
#include <QStylePainter>

#include <algorithm>
#include <cmath>

namespace terrabit::ui {

ProgressMeter::ProgressMeter(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    mLater.setSingleShot(true);
    connect(&mLater, &QTimer::timeout, this, &ProgressMeter::repaintNow);
}

void ProgressMeter::setProgress(double fraction, const QString& stage) {
    mPermille = std::isfinite(fraction) ? static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000.0)) : 0;
    mStage = stage;
    requestRepaint();
}

void ProgressMeter::reset() { setProgress(0.0, QString()); }

QString ProgressMeter::text() const {
    const QString percent = QString::number(mPermille / 10) + QLatin1Char('%');
    return mStage.isEmpty() ? percent : mStage + QLatin1Char(' ') + percent;
}

void ProgressMeter::requestRepaint() {
    // The text shows whole percents and the bar moves by whole pixels: a thousandth of a bar
    // narrower than a thousand pixels is not worth a paint.
    const bool percentChanged = mPermille / 10 != mDrawnPermille / 10 || mDrawnPermille < 0;
    const bool barMoved = std::abs(mPermille - mDrawnPermille) * std::max(width(), 1) >= 1000;
    if (mStage == mDrawnStage && !percentChanged && !barMoved) return;
    if (mLater.isActive()) return;  // the repaint already put off draws the newest
    const qint64 since = mSinceRepaint.isValid() ? mSinceRepaint.elapsed() : kRepaintMs;
    if (since >= kRepaintMs) {
        repaintNow();
    } else {
        mLater.start(static_cast<int>(kRepaintMs - since));
    }
}

void ProgressMeter::repaintNow() {
    mDrawnStage = mStage;
    mDrawnPermille = mPermille;
    mSinceRepaint.start();
    ++mRequests;
    update();
}

void ProgressMeter::styleOption(QStyleOptionProgressBar& option) const {
    option.initFrom(this);
    option.state |= QStyle::State_Horizontal;
    option.minimum = 0;
    option.maximum = 1000;
    option.progress = mPermille;
    option.textVisible = true;
    option.text = text();
    option.textAlignment = Qt::AlignCenter;
}

void ProgressMeter::paintEvent(QPaintEvent*) {
    QStylePainter painter(this);
    QStyleOptionProgressBar option;
    styleOption(option);
    // One line, cut short with an ellipsis where the stage is long (some styles wrap it).
    option.text = fontMetrics().elidedText(option.text, Qt::ElideRight, std::max(0, width() - 8));
    painter.drawControl(QStyle::CE_ProgressBar, option);
}

QSize ProgressMeter::sizeHint() const {
    // Room for a stage's name and its share ("joining the batches 100%") on one line, whatever
    // the stage of the moment, so the status bar does not jump as stages change.
    QStyleOptionProgressBar option;
    styleOption(option);
    const QFontMetrics metrics = fontMetrics();
    const QSize text(metrics.horizontalAdvance(QStringLiteral("joining the batches 100%")) + 16, metrics.height() + 8);
    return style()->sizeFromContents(QStyle::CT_ProgressBar, &option, text, this);
}

QSize ProgressMeter::minimumSizeHint() const { return {sizeHint().height(), sizeHint().height()}; }

}  // namespace terrabit::ui
