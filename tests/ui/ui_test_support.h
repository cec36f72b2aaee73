#pragma once
// Shared by the ui tests: temporary folders and where the repository's resources are.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace terrabit::test {

/// A fresh folder under the system's temporary folder, removed with everything in it.
class TempDir {
public:
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "terrabit-ui-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) std::abort();
        mPath = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(mPath, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return mPath; }

private:
    std::filesystem::path mPath;
};

/// The repository's resources/ folder (compiled in by tests/ui/CMakeLists.txt).
inline std::filesystem::path resourcesDir() { return TERRABIT_RESOURCES_DIR; }
/// The sample project the app opens on first start.
inline std::filesystem::path samplePath() { return resourcesDir() / "projects" / "sample.terrabit"; }

}  // namespace terrabit::test
