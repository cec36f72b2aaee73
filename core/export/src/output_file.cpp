#include "terrabit/core/export/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

namespace terrabit::core {

namespace {

std::string reason(int error) { return std::system_category().message(error); }

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// Distinguishes temporaries of several exports running at once in one process; the pid
// distinguishes processes. Both only need to be unique, not unpredictable: O_EXCL refuses to
// reuse a name someone else holds.
std::atomic<std::uint64_t> gTemporaryCounter{0};

}  // namespace

Result<OutputFile> OutputFile::create(const std::filesystem::path& destination, WriteFaults* faults) {
    if (destination.filename().empty()) return ioError("cannot write " + quoted(destination) + ": not a file name");
    const std::filesystem::path folder = destination.parent_path().empty() ? "." : destination.parent_path();
    OutputFile file;
    file.mDestination = destination;
    file.mFaults = faults;
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string name = "." + destination.filename().string() + "." + std::to_string(::getpid()) + "." +
                                 std::to_string(gTemporaryCounter.fetch_add(1)) + ".tmp";
        const std::filesystem::path temporary = folder / name;
        // 0666 less the umask: the permissions a plain fopen() would give the final file.
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            file.mFd = fd;
            file.mTemporary = temporary;
            return file;
        }
        if (errno != EEXIST) {
            return ioError("cannot write " + quoted(destination) + ": cannot create a temporary file in " +
                           quoted(folder) + ": " + reason(errno));
        }
    }
    return ioError("cannot write " + quoted(destination) + ": no free temporary name in " + quoted(folder));
}

OutputFile::OutputFile(OutputFile&& other) noexcept { *this = std::move(other); }

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
    if (this == &other) return *this;
    discard();
    mDestination = std::move(other.mDestination);
    mTemporary = std::exchange(other.mTemporary, {});
    mFd = std::exchange(other.mFd, -1);
    mSize = other.mSize;
    mFailed = other.mFailed;
    mFaults = other.mFaults;
    return *this;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() {
    if (mFd >= 0) {
        ::close(mFd);
        mFd = -1;
    }
    if (!mTemporary.empty()) {
        ::unlink(mTemporary.c_str());
        mTemporary.clear();
    }
}

Status OutputFile::fail(std::string_view what, int error) {
    mFailed = true;
    const std::string message = "cannot write " + quoted(mDestination) +
                                (what.empty() ? "" : " (" + std::string(what) + ")") + ": " + reason(error);
    discard();
    return ioError(message);
}

Status OutputFile::write(std::span<const std::uint8_t> bytes) {
    if (mFailed || mFd < 0) return ioError("cannot write " + quoted(mDestination) + ": the file is already closed");
    std::size_t allowed = bytes.size();
    bool injected = false;
    if (mFaults != nullptr && mFaults->written + bytes.size() > mFaults->failAfterBytes) {
        allowed = mFaults->failAfterBytes > mFaults->written
                      ? static_cast<std::size_t>(mFaults->failAfterBytes - mFaults->written)
                      : 0;
        injected = true;
    }
    const std::uint8_t* p = bytes.data();
    std::size_t left = allowed;
    while (left > 0) {
        const ssize_t n = ::write(mFd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail("", errno);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
        mSize += static_cast<std::uint64_t>(n);
        if (mFaults != nullptr) mFaults->written += static_cast<std::uint64_t>(n);
    }
    if (injected) return fail("", mFaults->error);
    return Status::success();
}

Status OutputFile::write(std::string_view text) {
    return write(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

Status OutputFile::commit() {
    if (mFailed || mFd < 0) return ioError("cannot write " + quoted(mDestination) + ": the file is already closed");
    // fsync before rename: otherwise a crash right after the rename can leave the new name
    // pointing at a file whose blocks never reached the disk.
    if (::fsync(mFd) != 0) return fail("flushing to disk", errno);
    const int fd = std::exchange(mFd, -1);
    if (::close(fd) != 0) return fail("closing", errno);
    if (::rename(mTemporary.c_str(), mDestination.c_str()) != 0) return fail("renaming the temporary file", errno);
    mTemporary.clear();
    // The rename itself lives in the folder: sync it so the new name survives a power cut.
    const std::filesystem::path folder = mDestination.parent_path().empty() ? "." : mDestination.parent_path();
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);  // best effort: some file systems refuse fsync on folders, the data is safe anyway
        ::close(dir);
    }
    return Status::success();
}

Status writeFileAtomically(const std::filesystem::path& destination, std::span<const std::uint8_t> bytes,
                           WriteFaults* faults) {
    Result<OutputFile> file = OutputFile::create(destination, faults);
    if (!file) return file.error();
    if (Status s = file->write(bytes); !s) return s;
    return file->commit();
}

Status writeFileAtomically(const std::filesystem::path& destination, std::string_view text, WriteFaults* faults) {
    return writeFileAtomically(
        destination, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()),
        faults);
}

Status createFolder(const std::filesystem::path& folder) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) return ioError("cannot create the folder '" + folder.string() + "': " + ec.message());
    if (!std::filesystem::is_directory(folder, ec)) {
        return ioError("cannot create the folder '" + folder.string() + "': a file of that name is in the way");
    }
    return Status::success();
}

}  // namespace terrabit::core
