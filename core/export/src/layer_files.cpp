#include "terrabit/core/export/layer_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>

#include "ordered_runs_p.h"
#include "terrabit/core/export/output_file.h"
#include "terrabit/core/io/tile_writer.h"
#include "terrabit/core/tiling/layer_store.h"

namespace terrabit::core {

namespace {

// Distinct, readable preview colours for sources that come without rules (sRGB).
constexpr Rgb kPalette[] = {{196, 78, 82},  {107, 107, 107}, {66, 135, 245},  {76, 153, 76},
                            {221, 132, 82}, {129, 114, 179}, {204, 185, 116}, {100, 181, 205}};

std::atomic<std::uint64_t> gStagingCounter{0};

/// Replaces the staging folder's name in a message by the folder the user asked for.
std::string unstaged(std::string message, const std::string& staging, const std::string& folder) {
    for (std::size_t at = message.find(staging); at != std::string::npos; at = message.find(staging, at)) {
        message.replace(at, staging.size(), folder);
        at += folder.size();
    }
    return message;
}

Status syncFile(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Error{"cannot open '" + file.string() + "' to flush it: " + std::system_category().message(errno)};
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) return Error{"cannot flush '" + file.string() + "' to disk: " + std::system_category().message(err)};
    return Status::success();
}

/// Flushes the files from several threads at once. A journalling file system (ext4, XFS)
/// commits concurrent fsyncs together, so thousands of small layer files cost a few journal
/// commits instead of one each: one at a time they took most of a whole-city export.
Status syncFiles(const std::filesystem::path& root, const std::vector<std::string>& files) {
    constexpr std::size_t kFlushers = 16;
    std::atomic<std::size_t> next{0};
    std::vector<Status> failures(std::min(kFlushers, files.size()), Status::success());
    std::vector<std::thread> flushers;
    for (std::size_t k = 0; k < failures.size(); ++k) {
        flushers.emplace_back([&, k] {
            for (std::size_t i = next++; i < files.size(); i = next++) {
                if (Status s = syncFile(root / files[i]); !s) {
                    failures[k] = s;
                    next = files.size();
                    return;
                }
            }
        });
    }
    for (std::thread& t : flushers) t.join();
    for (const Status& s : failures) {
        if (!s) return s;
    }
    return Status::success();
}

/// Removes the staging folder whatever happens, unless released.
struct StagingGuard {
    std::filesystem::path path;
    ~StagingGuard() {
        std::error_code ec;
        if (!path.empty()) std::filesystem::remove_all(path, ec);
    }
};

}  // namespace

Result<std::vector<LayerInfo>> layerStylesFor(const LayerSource& source, std::span<const LayerInfo> styles) {
    std::vector<LayerInfo> out;
    if (styles.empty()) {
        const std::vector<std::string>& names = source.layerNames();
        for (std::size_t i = 0; i < names.size(); ++i) {
            LayerInfo info;
            info.name = names[i];
            info.colour = kPalette[i % std::size(kPalette)];
            out.push_back(std::move(info));
        }
        return out;
    }
    for (const LayerInfo& s : styles) {
        if (source.layerId(s.name) < 0) return Error{"layers: no layer named '" + s.name + "' in the layer source"};
        out.push_back(s);
    }
    return out;
}

Result<std::vector<std::string>> writeLayerFiles(const LayerSource& source, std::span<const TileId> tiles,
                                                 const std::vector<LayerInfo>& styles,
                                                 const std::filesystem::path& folder, const ProgressCallback& progress,
                                                 int threads) {
    for (const LayerInfo& s : styles) {
        if (s.name.empty() || s.name.find('/') != std::string::npos || s.name == "." || s.name == "..") {
            return Error{"layers: '" + s.name + "' cannot be a file name"};
        }
    }
    if (Status s = createFolder(folder); !s) return Error{"layers: " + s.message()};
    StagingGuard staging{
        folder / (".staging-" + std::to_string(::getpid()) + "-" + std::to_string(gStagingCounter.fetch_add(1)))};
    if (Status s = createFolder(staging.path); !s) return Error{"layers: " + s.message()};
    const std::string stagingName = staging.path.string();
    const std::string folderName = folder.string();

    std::vector<std::string> names;
    for (const LayerInfo& s : styles) names.push_back(s.name);
    std::vector<int> ids;
    for (const LayerInfo& s : styles) ids.push_back(source.layerId(s.name));

    // A tile's files: the tile writer reads a LayerStore whose layer ids follow `styles`; a
    // one-tile store is an 8 KiB copy per layer, nothing next to the GeoTIFF encoding. GDAL
    // encodes separate files on separate threads safely.
    const auto encode = [&](const TileId& tile) {
        LayerStore store(names, {tile});
        std::vector<BitTile> bits(styles.size());
        for (std::size_t l = 0; l < styles.size(); ++l) {
            const BitTile* b = ids[l] >= 0 ? source.tile(tile, ids[l]) : nullptr;
            bits[l] = b ? *b : BitTile{};
        }
        store.store(0, bits);
        return io::writeTile(store, 0, styles, staging.path);
    };
    std::vector<std::string> written;
    const Status encoded = detail::inOrderedRuns(
        tiles.size(), threads, [&](std::size_t k) { return encode(tiles[k]); },
        [&](std::size_t k, const Result<io::TileFiles>& files) -> Status {
            if (!reportProgress(progress, double(k) / double(tiles.size() + 1), "writing layer files")) {
                return cancelled("layers: export cancelled");
            }
            if (!files) return Error{"layers: " + unstaged(files.message(), stagingName, folderName)};
            for (const std::string& f : files->layers) written.push_back(f);
            written.push_back(files->preview);
            return Status::success();
        });
    if (!encoded) return encoded.error();
    // Everything is encoded: flush it, then move each tile's folder into place.
    if (Status s = syncFiles(staging.path, written); !s)
        return Error{"layers: " + unstaged(s.message(), stagingName, folderName)};
    for (const TileId& t : tiles) {
        const std::filesystem::path target = folder / t.quadkey();
        std::error_code ec;
        std::filesystem::remove_all(target, ec);  // an earlier export of this tile
        if (ec) return Error{"layers: cannot replace '" + target.string() + "': " + ec.message()};
        std::filesystem::rename(staging.path / t.quadkey(), target, ec);
        if (ec)
            return Error{"layers: cannot move the files of tile " + t.quadkey() + " into '" + target.string() +
                         "': " + ec.message()};
    }
    reportProgress(progress, 1.0, "writing layer files");
    return written;
}

}  // namespace terrabit::core
