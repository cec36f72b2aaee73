#include "terrabit/ui/document/job_runner.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

namespace terrabit::ui {

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
    mPool.setMaxThreadCount(1);  // one job at a time: only the running job touches the pipeline
    connect(&mWatcher, &QFutureWatcherBase::finished, this, &JobRunner::workDone);
}

JobRunner::~JobRunner() {
    blockSignals(true);
    mCancel = true;
    mPool.waitForDone();
    mWatcher.waitForFinished();
}

void JobRunner::start(Kind kind, Work work, Failed failed) {
    ++mSerial;
    mCancel = false;
    mRunning = kind;
    mLastPercent = -1;
    const core::ProgressCallback progress = [this](double fraction, std::string_view stage) {
        // Called on the worker: post only whole-percent steps so the UI thread is not flooded.
        const int percent = static_cast<int>(fraction * 100.0);
        if (percent != mLastPercent.exchange(percent)) {
            const QString text = QString::fromUtf8(stage.data(), static_cast<int>(stage.size()));
            QMetaObject::invokeMethod(
                this, [this, fraction, text] { emit this->progress(fraction, text); }, Qt::QueuedConnection);
        }
        return !mCancel.load();
    };
    mWatcher.setFuture(
        QtConcurrent::run(&mPool, [work = std::move(work), failed = std::move(failed), progress]() -> Finish {
            try {
                return work(progress);
            } catch (const std::exception& e) {
                const QString message = QString("unexpected failure: ") + e.what();
                return [failed, message](bool) { failed(message); };
            }
        }));
    emit busyChanged(true);
}

void JobRunner::cancel() {
    if (busy()) mCancel = true;
}

void JobRunner::waitForWork() { mWatcher.waitForFinished(); }

void JobRunner::post(Finish partial) {
    QMetaObject::invokeMethod(
        this,
        [this, partial = std::move(partial), serial = mSerial.load()] {
            if (serial == mSerial.load() && busy() && !mCancel.load()) partial(false);
        },
        Qt::QueuedConnection);
}

void JobRunner::workDone() {
    mRunning = Kind::None;
    const Finish finish = mWatcher.future().result();
    const bool cancelled = mCancel.exchange(false);
    if (finish) finish(cancelled);
    emit settled();
    if (!busy()) emit busyChanged(false);
}

}  // namespace terrabit::ui
