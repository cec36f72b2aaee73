#include "terrabit/ui/document/freed_memory.h"

#include <QThreadPool>

#include <atomic>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace terrabit::ui {

void releaseFreedMemoryNow() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void releaseFreedMemory() {
    static std::atomic<bool> queued{false};
    if (queued.exchange(true)) return;
    QThreadPool::globalInstance()->start([] {
        // Cleared first: memory freed while this one runs is given back by the next call.
        queued = false;
        releaseFreedMemoryNow();
    });
}

}  // namespace terrabit::ui
