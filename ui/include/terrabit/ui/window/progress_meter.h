#pragma once
/// The main window's progress meter: the stage under way and its share done ("baking 42%"),
/// drawn by the style as a QProgressBar is, but repainted with the window's next paint and at
/// most every kRepaintMs.
///
/// Why not QProgressBar: its setValue repaints at once, and with the viewport's QOpenGLWidget in
/// the window every repaint composes the whole window. Under software GL that cost 24 ms a time:
/// a bake of every monaco-region tile reported progress about 50 times and so held the UI thread
/// for 1.2 s, in stalls the viewport's own slices were kept far below.

#include <QElapsedTimer>
#include <QString>
#include <QTimer>
#include <QWidget>

class QStyleOptionProgressBar;

namespace terrabit::ui {

class ProgressMeter : public QWidget {
    Q_OBJECT
public:
    explicit ProgressMeter(QWidget* parent = nullptr);

    /// The share done (0 … 1, clamped) of `stage`. Repaints only when what is drawn changes
    /// (the stage, a whole percent, or the bar by a pixel), and then at most every kRepaintMs.
    void setProgress(double fraction, const QString& stage);
    /// Back to nothing done, no stage.
    void reset();

    /// What the meter draws: its share in thousandths, and its text.
    int permille() const { return mPermille; }
    QString text() const;
    /// Repaints it has asked for (update()) since it was made.
    int repaintsRequested() const { return mRequests; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static constexpr int kRepaintMs = 100;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void styleOption(QStyleOptionProgressBar& option) const;
    void requestRepaint();
    void repaintNow();

    int mPermille = 0;
    QString mStage;
    QString mDrawnStage;      ///< the stage when a repaint was last asked for
    int mDrawnPermille = -1;  ///< the share then
    QElapsedTimer mSinceRepaint;
    QTimer mLater;  ///< single shot: a repaint put off until kRepaintMs after the last
    int mRequests = 0;
};

}  // namespace terrabit::ui
