#include "spill_bytes_p.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

namespace terrabit::core::detail {

namespace {

std::string reason(int error) { return std::system_category().message(error); }

}  // namespace

Result<SpillBytes> SpillBytes::inFolder(const std::filesystem::path& folder) {
    std::string name = (folder / ".spill-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0) return ioError("cannot make a temporary file in '" + folder.string() + "': " + reason(errno));
    ::unlink(name.c_str());  // unnamed from now on: the OS removes it with its descriptor
    SpillBytes bytes;
    bytes.mFd = fd;
    bytes.mFolder = folder;
    bytes.mBuffer.reserve(kFileBuffer);
    return bytes;
}

SpillBytes::SpillBytes(SpillBytes&& other) noexcept { *this = std::move(other); }

SpillBytes& SpillBytes::operator=(SpillBytes&& other) noexcept {
    if (this == &other) return *this;
    if (mFd >= 0) ::close(mFd);
    mBlocks = std::move(other.mBlocks);
    mFd = std::exchange(other.mFd, -1);
    mFolder = std::move(other.mFolder);
    mBuffer = std::move(other.mBuffer);
    mSize = std::exchange(other.mSize, 0);
    mStatus = std::move(other.mStatus);
    return *this;
}

SpillBytes::~SpillBytes() {
    if (mFd >= 0) ::close(mFd);
}

void SpillBytes::append(const void* data, std::size_t bytes) {
    if (!mStatus) return;
    const auto* p = static_cast<const std::uint8_t*>(data);
    mSize += bytes;
    if (mFd < 0) {
        while (bytes > 0) {
            if (mBlocks.empty() || mBlocks.back().size() == kBlock) mBlocks.emplace_back().reserve(kBlock);
            std::vector<std::uint8_t>& last = mBlocks.back();
            const std::size_t k = std::min(bytes, kBlock - last.size());
            last.insert(last.end(), p, p + k);
            p += k, bytes -= k;
        }
        return;
    }
    while (bytes > 0) {
        const std::size_t k = std::min(bytes, kFileBuffer - mBuffer.size());
        mBuffer.insert(mBuffer.end(), p, p + k);
        p += k, bytes -= k;
        if (mBuffer.size() == kFileBuffer) flushBuffer();
    }
}

void SpillBytes::pad4() {
    static constexpr std::uint8_t kZeros[4] = {};
    if (mSize % 4 != 0) append(kZeros, 4 - mSize % 4);
}

std::uint64_t SpillBytes::heldBytes() const {
    if (mFd >= 0) return mBuffer.capacity();
    std::uint64_t held = 0;
    for (const std::vector<std::uint8_t>& b : mBlocks) held += b.size();
    return held;
}

void SpillBytes::flushBuffer() {
    std::size_t done = 0;
    while (mStatus && done < mBuffer.size()) {
        const ssize_t n = ::write(mFd, mBuffer.data() + done, mBuffer.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            mStatus = ioError("cannot write a temporary file in '" + mFolder.string() + "': " + reason(errno));
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    mBuffer.clear();
}

Status SpillBytes::replay(std::uint64_t from, std::uint64_t to, const Sink& sink) {
    if (!mStatus) return mStatus;
    to = std::min(to, mSize);
    if (from >= to) return Status::success();
    if (mFd < 0) {
        std::uint64_t at = 0;
        for (const std::vector<std::uint8_t>& block : mBlocks) {
            const std::uint64_t end = at + block.size();
            if (end > from && at < to) {
                const std::uint64_t a = std::max(from, at) - at, b = std::min(to, end) - at;
                if (Status s = sink({block.data() + a, static_cast<std::size_t>(b - a)}); !s) return s;
            }
            at = end;
        }
        return Status::success();
    }
    flushBuffer();
    if (!mStatus) return mStatus;
    std::vector<std::uint8_t> piece(std::min<std::uint64_t>(to - from, 4 * kFileBuffer));
    for (std::uint64_t at = from; at < to;) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(to - at, piece.size()));
        const ssize_t n = ::pread(mFd, piece.data(), want, static_cast<off_t>(at));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            return ioError("cannot read back a temporary file in '" + mFolder.string() +
                           "': " + (n == 0 ? std::string("it is shorter than written") : reason(errno)));
        }
        if (Status s = sink({piece.data(), static_cast<std::size_t>(n)}); !s) return s;
        at += static_cast<std::uint64_t>(n);
    }
    return Status::success();
}

}  // namespace terrabit::core::detail
