#pragma once
/// Handing freed memory back to the system. glibc's allocator keeps the pages of what a program
/// frees in the middle of its heap mapped, for the next allocations: after a large bake's scene
/// is replaced by the next batch's, the old scene's pages stay resident (0.7 GB of the app's
/// 4.2 GB on a synthetic country). malloc_trim gives them back; on other C libraries these do
/// nothing.

namespace terrabit::ui {

/// Gives the pages of freed memory back to the system now. Takes tens of milliseconds after a
/// large scene is freed: call it off the UI thread (releaseFreedMemory).
void releaseFreedMemoryNow();

/// releaseFreedMemoryNow on a thread of Qt's global pool; a call while one is running or waiting
/// is dropped (the one running gives back what was freed before it looks).
void releaseFreedMemory();

}  // namespace terrabit::ui
