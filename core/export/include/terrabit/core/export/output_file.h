#pragma once
/// OutputFile: a file that appears whole or not at all. Bytes go to a temporary file in the
/// destination folder; commit() flushes them to the disk (fsync), renames the temporary over the
/// destination and syncs the folder. Any failure — and destruction without commit() — removes
/// the temporary, so a full disk, a crash of the writer or a cancelled export never leaves a
/// truncated file under the destination name.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "terrabit/core/result.h"

namespace terrabit::core {

/// Faults to inject into every OutputFile of an export, for tests of the failure paths: the
/// write that would take the total past `failAfterBytes` writes only up to that total and then
/// fails with `error` (ENOSPC by default: "No space left on device"), as a full disk does.
/// A default-constructed value injects nothing.
struct WriteFaults {
    /// Bytes all files together may receive before writes fail; UINT64_MAX = never fail.
    std::uint64_t failAfterBytes = UINT64_MAX;
    /// The errno reported once the budget is spent.
    int error = 28;  // ENOSPC on Linux; spelled out so this header needs no <cerrno>
    /// Bytes written so far through files sharing this value (updated by OutputFile).
    std::uint64_t written = 0;
};

class OutputFile {
public:
    /// Opens a new temporary file beside `destination` (same folder, hidden name, mode 0666
    /// less the umask). The folder must exist. Errors name the destination and the OS reason.
    /// `faults`, when given, must outlive the file.
    static Result<OutputFile> create(const std::filesystem::path& destination, WriteFaults* faults = nullptr);

    OutputFile(OutputFile&& other) noexcept;
    OutputFile& operator=(OutputFile&& other) noexcept;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    /// Removes the temporary file unless commit() succeeded.
    ~OutputFile();

    /// Appends bytes. After the first failure every later call fails too and commit() refuses.
    /// Errors name the destination and the OS reason ("No space left on device").
    Status write(std::span<const std::uint8_t> bytes);
    /// Appends text (UTF-8 as given).
    Status write(std::string_view text);

    /// Flushes to the disk, renames the temporary over the destination and syncs the folder.
    /// On failure the temporary is removed and the destination is left as it was.
    Status commit();
    /// Removes the temporary now (what the destructor does when commit() was not reached).
    void discard();

    /// The final path.
    const std::filesystem::path& destination() const { return mDestination; }
    /// The temporary path (empty once committed or discarded).
    const std::filesystem::path& temporary() const { return mTemporary; }
    /// Bytes written so far.
    std::uint64_t size() const { return mSize; }

private:
    OutputFile() = default;
    Status fail(std::string_view what, int error);

    std::filesystem::path mDestination;
    std::filesystem::path mTemporary;
    int mFd = -1;
    std::uint64_t mSize = 0;
    bool mFailed = false;
    WriteFaults* mFaults = nullptr;
};

/// Writes a whole file atomically through OutputFile: bytes → temporary → fsync → rename.
Status writeFileAtomically(const std::filesystem::path& destination, std::span<const std::uint8_t> bytes,
                           WriteFaults* faults = nullptr);
/// Text version of writeFileAtomically.
Status writeFileAtomically(const std::filesystem::path& destination, std::string_view text,
                           WriteFaults* faults = nullptr);

/// Creates a folder and its parents. Errors name the folder and the OS reason (for example
/// "Not a directory" when a parent is a regular file).
Status createFolder(const std::filesystem::path& folder);

}  // namespace terrabit::core
