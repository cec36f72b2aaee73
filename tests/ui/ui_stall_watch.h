#pragma once
// Shared by the ui tests that watch the UI thread on large selections: how long it went without
// serving a timer (its own CPU time, and wall time), resident memory, the large test project.

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QObject>
#include <QTimer>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "terrabit/core/project/project.h"

namespace terrabit::test {

/// The UI thread's CPU time, milliseconds.
inline double uiThreadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

/// Resident memory of this process, MiB (0 where /proc is not there).
inline double residentMiB() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    }
    return 0.0;
}

/// Ticks every 5 ms on the UI thread and keeps the longest time between two ticks: as wall
/// time, and as the UI thread's own CPU time. Work on the UI thread shows in both; a machine
/// busy with other processes stretches only the wall time, so the CPU time is what gates.
class StallWatch {
public:
    StallWatch() {
        mTimer.setInterval(5);
        QObject::connect(&mTimer, &QTimer::timeout, [this] { tick(); });
    }
    void start() {
        mWall.start();
        mLastWall = 0;
        mLastCpu = uiThreadCpuMs();
        mTimer.start();
    }
    void stop() {
        tick();
        mTimer.stop();
    }
    qint64 longestWallMs() const { return mLongestWall; }
    double longestCpuMs() const { return mLongestCpu; }
    int ticks() const { return mTicks; }

private:
    void tick() {
        ++mTicks;
        const qint64 wall = mWall.elapsed();
        const double cpu = uiThreadCpuMs();
        mLongestWall = std::max(mLongestWall, wall - mLastWall);
        mLongestCpu = std::max(mLongestCpu, cpu - mLastCpu);
        mLastWall = wall;
        mLastCpu = cpu;
    }
    QTimer mTimer;
    QElapsedTimer mWall;
    qint64 mLastWall = 0, mLongestWall = 0;
    double mLastCpu = 0, mLongestCpu = 0;
    int mTicks = 0;
};

/// How long an event waits on the UI thread: a thread of its own posts a stamped event every
/// 5 ms to this object (which lives on the UI thread), and the longest wait from posting to
/// delivery is kept. Posted events are delivered in order with the UI thread's own work (its
/// slices, the jobs' results), so this is how long input or a repaint would wait. StallWatch's
/// timer says more than that while the loop is kept busy by posted events: Qt then serves timers
/// only when it runs out of other work.
class EventLatencyWatch : public QObject {
public:
    ~EventLatencyWatch() override { stop(); }
    void start() {
        mLongestNs = 0;
        mRunning = true;
        mPoster = std::thread([this] {
            while (mRunning) {
                QCoreApplication::postEvent(this, new Stamp(nowNs()));
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        });
    }
    void stop() {
        if (!mPoster.joinable()) return;
        mRunning = false;
        mPoster.join();
        QCoreApplication::sendPostedEvents(this, kStampType);
    }
    double longestMs() const { return static_cast<double>(mLongestNs) / 1e6; }

protected:
    bool event(QEvent* e) override {
        if (e->type() != kStampType) return QObject::event(e);
        mLongestNs = std::max(mLongestNs, nowNs() - static_cast<Stamp*>(e)->postedNs);
        return true;
    }

private:
    static constexpr QEvent::Type kStampType = static_cast<QEvent::Type>(QEvent::User + 71);
    struct Stamp : QEvent {
        explicit Stamp(std::int64_t ns) : QEvent(kStampType), postedNs(ns) {}
        std::int64_t postedNs;
    };
    static std::int64_t nowNs() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    std::thread mPoster;
    std::atomic<bool> mRunning{false};
    std::int64_t mLongestNs = 0;  ///< touched on the UI thread only
};

/// A project on the repository's monaco-region extract at zoom 17 (1,608 tiles with content),
/// nothing selected.
inline std::filesystem::path writeRegionProject(const std::filesystem::path& dir) {
    core::project::Project p;
    p.map = std::filesystem::path(TERRABIT_TEST_DATA_DIR) / "monaco-region-2016-03-05.osm.pbf";
    p.zoom = 17;
    const auto file = dir / "region.terrabit";
    EXPECT_TRUE(core::project::saveProject(p, file).ok());
    return file;
}

}  // namespace terrabit::test
