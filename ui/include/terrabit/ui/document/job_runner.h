#pragma once
/// JobRunner: the document's long work (reading a map, baking, exporting) on one worker thread,
/// one job at a time, with throttled progress and cancellation. A job is two halves: the work,
/// run on the worker, returns what to do with its result on the UI thread — so a job's result
/// never needs a type shared with the others, and nothing touches the document off the UI
/// thread.
///
/// Threading: every function is called on the thread that owns the runner (the UI thread).

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>

#include "terrabit/core/progress.h"

namespace terrabit::ui {

class JobRunner : public QObject {
    Q_OBJECT
public:
    enum class Kind { None, Load, Bake, Export };
    /// Run on the UI thread when the work is done; `cancelled`: a stop was asked for meanwhile.
    using Finish = std::function<void(bool cancelled)>;
    /// Run on the worker; reports through the callback (which returns false once a stop is asked for).
    using Work = std::function<Finish(const core::ProgressCallback&)>;
    /// Run on the UI thread instead of Finish when the work threw (core never throws; the
    /// standard library and Qt may, e.g. bad_alloc).
    using Failed = std::function<void(const QString& message)>;

    explicit JobRunner(QObject* parent = nullptr);
    /// Asks the running job to stop and waits for it.
    ~JobRunner() override;

    /// Starts a job; the runner must be idle.
    void start(Kind kind, Work work, Failed failed);
    Kind running() const { return mRunning; }
    bool busy() const { return mRunning != Kind::None; }
    /// Asks the running job to stop (its progress callback returns false from now on).
    void cancel();
    /// Blocks until the running job's work is done (its Finish runs later, from the event loop).
    void waitForWork();
    /// Called by the running job's work, on the worker: runs `partial` on the UI thread soon —
    /// a result that is ready before the job ends (a batch of a progressive bake) — unless the
    /// job has been cancelled by then. Partials run in the order posted, before the job's Finish.
    void post(Finish partial);

signals:
    /// A job started (true) or ended with nothing started after it (false).
    void busyChanged(bool busy);
    /// Progress of the running job, 0..1, in whole-percent steps, and what it is doing.
    void progress(double fraction, const QString& stage);
    /// A job's Finish has run; listeners may start the next job now.
    void settled();

private:
    void workDone();

    QThreadPool mPool;
    QFutureWatcher<Finish> mWatcher;
    Kind mRunning = Kind::None;
    std::atomic<bool> mCancel{false};
    std::atomic<unsigned> mSerial{0};  ///< counts jobs started: a partial of an older job is dropped
    std::atomic<int> mLastPercent{-1};
};

}  // namespace terrabit::ui
