#pragma once
/// RecoveryStore: the autosave of unsaved work. While a project has unsaved changes the window
/// writes it here now and then (atomically); a clean save or close removes it. When Terrabit
/// starts and finds one, the previous session ended without saving — a crash — and the user is
/// offered the work back.

#include <QString>

#include <filesystem>
#include <utility>

#include "terrabit/core/project/project.h"
#include "terrabit/core/result.h"

namespace terrabit::ui {

class RecoveryStore {
public:
    /// A store in `folder` (created when needed).
    explicit RecoveryStore(std::filesystem::path folder);

    /// Writes the project and the file it belongs to (empty for an unsaved one).
    core::Status save(const core::project::Project& project, const std::filesystem::path& origin);
    /// True when a recovery file is waiting.
    bool exists() const;
    /// The recovered project and the file it belongs to.
    core::Result<std::pair<core::project::Project, std::filesystem::path>> load() const;
    /// Removes the recovery file.
    void clear();
    const std::filesystem::path& folder() const { return mFolder; }

private:
    std::filesystem::path mFolder;
};

}  // namespace terrabit::ui
