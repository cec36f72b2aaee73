#pragma once
// Private to export: bytes an encoder appends now and hands on later, in order, held in memory
// or in an unnamed file (a GLB streamed over a bake's batches: its binary chunk and the JSON of
// its large arrays wait there until the file can be written, since the JSON comes first).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

#include "terrabit/core/result.h"

namespace terrabit::core::detail {

class SpillBytes {
public:
    using Sink = std::function<Status(std::span<const std::uint8_t>)>;

    /// In memory, in blocks of up to 64 MiB: it grows without copying what it holds (a vector's
    /// doubling held its old and new arrays at once), and a block's unwritten capacity is never
    /// touched, so never resident.
    SpillBytes() = default;
    /// In an unnamed file of `folder` (made and unlinked at once: nothing is left behind, even
    /// on a crash), written through a buffer of kFileBuffer bytes.
    static Result<SpillBytes> inFolder(const std::filesystem::path& folder);
    SpillBytes(SpillBytes&& other) noexcept;
    SpillBytes& operator=(SpillBytes&& other) noexcept;
    SpillBytes(const SpillBytes&) = delete;
    SpillBytes& operator=(const SpillBytes&) = delete;
    ~SpillBytes();

    static constexpr std::size_t kFileBuffer = std::size_t{1} << 20;

    void append(const void* data, std::size_t bytes);
    /// Zeros up to a multiple of 4 bytes.
    void pad4();
    std::uint64_t size() const { return mSize; }
    bool empty() const { return mSize == 0; }
    /// Bytes held in memory: all of them, or the file's write buffer.
    std::uint64_t heldBytes() const;
    /// The first write that failed (the message names the folder and the OS reason); later
    /// appends do nothing.
    const Status& status() const { return mStatus; }
    /// Hands bytes [from, to) to `sink` in order, in pieces; a file's are read back.
    Status replay(std::uint64_t from, std::uint64_t to, const Sink& sink);
    Status replay(const Sink& sink) { return replay(0, mSize, sink); }

private:
    void flushBuffer();

    static constexpr std::size_t kBlock = std::size_t{64} << 20;
    std::vector<std::vector<std::uint8_t>> mBlocks;  ///< in memory
    int mFd = -1;                                    ///< in a file
    std::filesystem::path mFolder;
    std::vector<std::uint8_t> mBuffer;  ///< the file's bytes not written yet
    std::uint64_t mSize = 0;
    Status mStatus;
};

}  // namespace terrabit::core::detail
