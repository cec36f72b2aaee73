#include "terrabit/core/scale/shard_merge.h"
#include "terrabit/core/json_number.h"

#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "collision_file_join_p.h"
#include "instance_file_join_p.h"
#include "terrabit/core/export/instance_file.h"
#include "terrabit/core/export/manifest_writer.h"
#include "terrabit/core/export/output_file.h"
#include "terrabit/core/export/scene_part_file.h"
#include "terrabit/core/export/tileset_writer.h"
#include "terrabit/core/scale/shard_record.h"

namespace terrabit::core::scale {

namespace {

/// The collision grid file's name in a bake's folder (scene_export.cpp writes it).
constexpr const char* kCollisionFile = "collision.tbcg";
/// The osgb root's name in a bake's folder, and its group files' folder (render/scene_export.h).
constexpr const char* kSceneGraphRoot = "scene.osgb";
constexpr const char* kSceneGraphFolder = "scene";

using nlohmann::json;
namespace fs = std::filesystem;

/// Tiles in the scene's order: north to south, then west to east.
std::uint64_t rowMajorKey(const TileId& t) { return (std::uint64_t{t.y} << 32) | t.x; }

Result<std::string> readText(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{file.string() + ": cannot read"};
    std::ostringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof()) return Error{file.string() + ": read failed"};
    return text.str();
}

/// Copies `from` to `to` atomically, or with `move` renames it there (the parts of a streamed
/// bake live in the output folder, so the rename stays on one file system).
Status transferFile(const fs::path& from, const fs::path& to, bool move) {
    if (move) {
        std::error_code ec;
        fs::create_directories(to.parent_path(), ec);
        if (!ec) fs::rename(from, to, ec);
        if (ec) return Error{from.string() + " -> " + to.string() + ": " + ec.message()};
        return Status::success();
    }
    auto bytes = readText(from);
    if (!bytes) return bytes.error();
    std::error_code ec;
    fs::create_directories(to.parent_path(), ec);
    if (ec) return Error{to.parent_path().string() + ": " + ec.message()};
    return writeFileAtomically(to, *bytes);
}

struct Shard {
    fs::path folder;
    ShardRecord record;
    bool has(std::string_view file) const {
        return std::find(record.files.begin(), record.files.end(), file) != record.files.end();
    }
};

/// A file read front to back a line at a time, a megabyte at a time: a part's manifest is tens
/// of megabytes of short lines.
class LineScanner {
public:
    explicit LineScanner(const fs::path& file) : mIn(file, std::ios::binary) {}
    bool opened() const { return mIn.is_open(); }
    /// The next line without its '\n' and where it starts in the file; false after the last.
    bool next(std::string_view& line, std::uint64_t& offset) {
        for (;;) {
            const char* begin = mBuf.data() + mPos;
            const std::size_t left = mBuf.size() - mPos;
            const auto* newline = static_cast<const char*>(left ? std::memchr(begin, '\n', left) : nullptr);
            if (newline || (mEnd && left > 0)) {
                const std::size_t length = newline ? static_cast<std::size_t>(newline - begin) : left;
                line = std::string_view(begin, length);
                offset = mBase + mPos;
                mPos += length + (newline ? 1 : 0);
                return true;
            }
            if (mEnd) return false;
            mBuf.erase(0, mPos);  // keeps the start of a line that crosses the block's end
            mBase += mPos;
            mPos = 0;
            const std::size_t kept = mBuf.size();
            mBuf.resize(kept + kBlock);
            mIn.read(mBuf.data() + kept, static_cast<std::streamsize>(kBlock));
            mBuf.resize(kept + static_cast<std::size_t>(mIn.gcount()));
            mEnd = mIn.gcount() < static_cast<std::streamsize>(kBlock);
        }
    }

private:
    static constexpr std::size_t kBlock = std::size_t{1} << 20;
    std::ifstream mIn;
    std::string mBuf;
    std::size_t mPos = 0;
    std::uint64_t mBase = 0;  ///< where mBuf starts in the file
    bool mEnd = false;
};

/// Where a line array's elements lie in its file: from the first element's line to the line
/// "  ]" that closes it (equal when the array is empty).
struct ByteRange {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
    std::size_t elements = 0;
};

/// A manifest as writeManifestLayout lays it out — `"key": value` per line, keys sorted, the
/// arrays "instances" and "buildings" one element per line, each indented by four spaces — read
/// in one pass: the small entries are kept, of the line arrays only where they lie, so merging a
/// region's manifests of millions of instances never holds them.
struct ManifestPart {
    std::map<std::string, std::string> entries;  ///< every key but the line arrays, values as written
    std::map<std::string, ByteRange> arrays;

    static Result<ManifestPart> read(const fs::path& file) {
        LineScanner in(file);
        if (!in.opened()) return Error{file.string() + ": cannot read"};
        ManifestPart part;
        std::string_view line;
        std::uint64_t at = 0;
        if (!in.next(line, at) || line != "{") return Error{file.string() + ": not a Terrabit manifest"};
        while (in.next(line, at)) {
            if (line == "}") return part;
            const std::size_t colon = line.find("\": ");
            if (!line.starts_with("  \"") || colon == std::string_view::npos) {
                return Error{file.string() + ": unexpected manifest line: " + std::string(line.substr(0, 80))};
            }
            std::string key(line.substr(3, colon - 3));
            std::string_view value = line.substr(colon + 3);
            if (value == "[") {  // a line array: note where its elements lie
                ByteRange range;
                bool closed = false;
                while (!closed && in.next(line, at)) {
                    if (range.begin == 0) range.begin = at;
                    closed = line.starts_with("  ]");
                    range.end = at;
                    range.elements += closed ? 0 : 1;
                }
                if (!closed) break;
                part.arrays.emplace(std::move(key), range);
                continue;
            }
            if (!value.empty() && value.back() == ',') value.remove_suffix(1);
            if (value == "[]") part.arrays.emplace(key, ByteRange{});
            part.entries.emplace(std::move(key), std::string(value));
        }
        return Error{file.string() + ": the manifest ends early"};
    }
};

/// The value of `"key":"…"` in a compact JSON line (instance lines are written by hand, keys
/// sorted, so the quadkey is the value after `,"tile":"`).
std::string_view stringField(std::string_view line, std::string_view key) {
    const std::string pattern = "\"" + std::string(key) + "\":\"";
    const std::size_t at = line.find(pattern);
    if (at == std::string_view::npos) return {};
    const std::size_t start = at + pattern.size();
    const std::size_t end = line.find('"', start);
    return end == std::string_view::npos ? std::string_view{} : line.substr(start, end - start);
}

/// An output file written a megabyte at a time: a merged manifest is millions of short lines,
/// and OutputFile::write is a system call each.
class BufferedFile {
public:
    explicit BufferedFile(OutputFile& file) : mFile(file) { mText.reserve(kPiece + 4096); }
    Status write(std::string_view text) {
        if (text.size() >= kPiece / 16) {  // a block of lines: straight through
            Status s = flush();
            return s ? mFile.write(text) : s;
        }
        mText += text;
        return mText.size() >= kPiece ? flush() : Status::success();
    }
    Status flush() {
        Status s = mText.empty() ? Status::success() : mFile.write(mText);
        mText.clear();
        return s;
    }

private:
    static constexpr std::size_t kPiece = std::size_t{1} << 20;
    OutputFile& mFile;
    std::string mText;
};

/// One line array of a part's manifest, read at any byte: the join looks at a few elements to
/// find where a run of them ends, and copies the run's bytes whole.
class LineArrayFile {
public:
    LineArrayFile(const fs::path& file, ByteRange range) : mFile(file), mIn(file, std::ios::binary), mRange(range) {}

    ByteRange range() const { return mRange; }

    /// The element on the line that starts at `offset` (before the range's end), without its
    /// indent and separator; `next` is where the next line starts.
    Status elementAt(std::uint64_t offset, std::string& element, std::uint64_t& next) {
        auto line = lineAt(offset);
        if (!line) return line.error();
        next = offset + line->size();
        std::string_view text = line->substr(0, line->size() - 1);
        if (!text.starts_with("    ")) {
            return Error{mFile.string() + ": unexpected manifest line: " + std::string(text.substr(0, 80))};
        }
        text.remove_prefix(4);
        if (text.ends_with(',')) text.remove_suffix(1);
        element.assign(text);
        return Status::success();
    }

    /// Where the first line at or after `offset` starts (the range's end when none does).
    Result<std::uint64_t> lineFrom(std::uint64_t offset) {
        if (offset <= mRange.begin) return mRange.begin;
        if (offset >= mRange.end) return mRange.end;
        auto rest = lineAt(offset - 1);  // a line starts at `offset` when a newline ends the last
        if (!rest) return rest.error();
        return std::min(mRange.end, offset - 1 + rest->size());
    }

    /// Writes the elements on the lines from `from` to `to` as they stand, the last without its
    /// separator.
    Status copy(std::uint64_t from, std::uint64_t to, BufferedFile& out) {
        // Every element's line but the array's last ends ",\n".
        const std::uint64_t stop = to - (to == mRange.end ? 1 : 2);
        if (from >= mWindowAt && to <= mWindowAt + mWindow.size()) {  // a short run, looked at already
            return out.write(std::string_view(mWindow).substr(from - mWindowAt, stop - from));
        }
        if (Status s = seek(from); !s) return s;
        for (std::uint64_t at = from; at < to;) {
            const std::size_t got = readSome(static_cast<std::size_t>(std::min<std::uint64_t>(kCopy, to - at)));
            if (got == 0) return Error{mFile.string() + ": the manifest ends early"};
            const std::size_t keep = at >= stop ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(got, stop - at));
            if (Status w = out.write(std::string_view(mChunk.data(), keep)); !w) return w;
            at += got;
        }
        return Status::success();
    }

private:
    static constexpr std::size_t kWindow = std::size_t{32} << 10;
    static constexpr std::size_t kCopy = std::size_t{256} << 10;

    Status seek(std::uint64_t offset) {
        mIn.clear();
        mIn.seekg(static_cast<std::streamoff>(offset));
        return mIn ? Status::success() : Status(Error{mFile.string() + ": cannot read"});
    }
    /// The bytes from `offset` to the end of its line, the '\n' included, from a window of the
    /// file: looking at elements one after another (parts that interleave) reads the file a
    /// window at a time, not a line.
    Result<std::string_view> lineAt(std::uint64_t offset) {
        const bool inside = offset >= mWindowAt && offset < mWindowAt + mWindow.size();
        if (inside) {
            const std::string_view rest = std::string_view(mWindow).substr(offset - mWindowAt);
            if (const std::size_t newline = rest.find('\n'); newline != std::string_view::npos) {
                return rest.substr(0, newline + 1);
            }
        }
        // The window reaches back too: a bisection looks at lines before the last one as well.
        mWindowAt = offset - std::min<std::uint64_t>(offset, kWindow / 2);
        if (Status s = seek(mWindowAt); !s) return s.error();
        mWindow.clear();
        for (;;) {  // a window, grown until it holds the whole line
            const std::size_t kept = mWindow.size();
            mWindow.resize(kept + kWindow);
            mIn.read(mWindow.data() + kept, static_cast<std::streamsize>(kWindow));
            mWindow.resize(kept + static_cast<std::size_t>(mIn.gcount()));
            const std::size_t from = static_cast<std::size_t>(offset - mWindowAt);
            if (const std::size_t newline = mWindow.find('\n', std::max(kept, from)); newline != std::string::npos) {
                return std::string_view(mWindow).substr(from, newline + 1 - from);
            }
            if (mWindow.size() < kept + kWindow) return Error{mFile.string() + ": a manifest line ends early"};
        }
    }
    std::size_t readSome(std::size_t bytes) {
        if (mChunk.size() < bytes) mChunk.resize(bytes);
        mIn.read(mChunk.data(), static_cast<std::streamsize>(bytes));
        return static_cast<std::size_t>(mIn.gcount());
    }

    fs::path mFile;
    std::ifstream mIn;
    ByteRange mRange;
    std::string mChunk;   ///< a block being copied
    std::string mWindow;  ///< the bytes from mWindowAt last looked at
    std::uint64_t mWindowAt = 0;
};

/// What a merge of line arrays wrote.
struct MergedLines {
    std::size_t elements = 0;
    std::size_t runs = 0;  ///< blocks of consecutive elements copied whole from one part
};

/// Writes a one-per-line array from parts sorted by a key (`keyOf`, which may fail): the
/// elements of every part, smallest key first, equal keys in their parts' order. The parts of a
/// bake are runs of consecutive quadkeys, so a part's elements come in long runs that go before
/// any other part's next element (whole parts, when their tiles do not interleave): each run
/// is found by looking at a few of its elements — galloping, then bisecting its bytes — and
/// copied a block at a time. Parts that interleave element by element (buildings, ordered by
/// source feature) cost a key per element, as a line-by-line merge would.
template <typename Key, typename KeyOf>
class LineMerge {
public:
    LineMerge(std::vector<LineArrayFile>& parts, KeyOf keyOf, BufferedFile& file)
        : mParts(parts), mKeyOf(std::move(keyOf)), mFile(file), mHeads(parts.size()) {}

    Result<MergedLines> run() {
        if (Status s = start(); !s) return s.error();
        while (!mLive.empty()) {
            std::pop_heap(mLive.begin(), mLive.end(), heapOrder());
            const std::size_t best = mLive.back();
            auto run = findRun(best);
            if (!run) return run.error();
            if (Status w = copyRun(best, run->bad); !w) return w.error();
            if (run->bad == mParts[best].range().end) {
                mLive.pop_back();
                continue;
            }
            if (Status s = advance(best, *run); !s) return s.error();
            std::push_heap(mLive.begin(), mLive.end(), heapOrder());
        }
        if (Status w = mFile.write(mMerged.runs == 0 ? std::string_view("[]") : std::string_view("\n  ]")); !w) {
            return w.error();
        }
        return mMerged;
    }

private:
    struct Head {
        std::uint64_t at = 0;    ///< where the part's next element starts
        std::uint64_t next = 0;  ///< where the element after it starts
        Key key{};
    };

    /// Where the run of the part on top of the heap ends.
    struct Run {
        std::uint64_t good = 0;  ///< the elements before `good` go first
        std::uint64_t bad = 0;   ///< the element at `bad` does not (or the part's end)
        bool badSeen = false;    ///< mSeen holds the element at `bad`
    };

    /// Reads the element of part i at `at` into `h`.
    Status probe(std::size_t i, std::uint64_t at, Head& h) {
        h.at = at;
        if (Status s = mParts[i].elementAt(at, mElement, h.next); !s) return s;
        auto k = mKeyOf(mElement);
        if (!k) return k.error();
        h.key = std::move(*k);
        return Status::success();
    }

    /// The heap's order: smallest (key, part) on top.
    auto heapOrder() const {
        return [this](std::size_t a, std::size_t b) { return std::tie(mHeads[b].key, b) < std::tie(mHeads[a].key, a); };
    }

    /// Every part with elements is live, its head on its first element; every part is copied
    /// to its end, so the count of elements is known now.
    Status start() {
        for (std::size_t i = 0; i < mParts.size(); ++i) {
            if (mParts[i].range().begin == mParts[i].range().end) continue;
            mMerged.elements += mParts[i].range().elements;
            if (Status s = probe(i, mParts[i].range().begin, mHeads[i]); !s) return s;
            mLive.push_back(i);
        }
        std::make_heap(mLive.begin(), mLive.end(), heapOrder());
        return Status::success();
    }

    /// The run of `best` (just popped off the heap): every element of it that goes before the
    /// other parts' smallest, the one now on top.
    Result<Run> findRun(std::size_t best) {
        Run run{mHeads[best].next, mParts[best].range().end, false};
        if (mLive.size() > 1) {
            const std::size_t rival = mLive.front();
            if (Status s = gallop(best, rival, run); !s) return s.error();
            if (Status s = bisect(best, rival, run); !s) return s.error();
        }
        return run;
    }

    bool goesFirst(const Head& h, std::size_t best, std::size_t rival) const {
        return std::tie(h.key, best) < std::tie(mHeads[rival].key, rival);
    }

    /// Looks further and further ahead until an element does not go first...
    Status gallop(std::size_t best, std::size_t rival, Run& run) {
        for (std::uint64_t step = 0; run.good < run.bad; step = step == 0 ? 1 << 16 : step * 2) {
            auto at = mParts[best].lineFrom(run.good + step);
            if (!at) return at.error();
            if (*at >= run.bad) break;
            if (Status s = probe(best, *at, mSeen); !s) return s;
            if (!goesFirst(mSeen, best, rival)) {
                run.bad = *at;
                run.badSeen = true;
                break;
            }
            run.good = mSeen.next;
        }
        return Status::success();
    }

    /// ... then bisects the bytes between the last that did and it.
    Status bisect(std::size_t best, std::size_t rival, Run& run) {
        while (run.good < run.bad) {
            auto at = mParts[best].lineFrom(run.good + std::max<std::uint64_t>((run.bad - run.good) / 2, 1));
            if (!at) return at.error();
            if (*at >= run.bad) *at = run.good;
            if (Status s = probe(best, *at, mSeen); !s) return s;
            if (goesFirst(mSeen, best, rival)) {
                run.good = mSeen.next;
            } else {
                run.bad = *at;
                run.badSeen = true;
            }
        }
        return Status::success();
    }

    /// Writes the elements of `best` from its head to `bad`, after the array's opening or a
    /// separator.
    Status copyRun(std::size_t best, std::uint64_t bad) {
        Status w = mFile.write(mMerged.runs++ == 0 ? std::string_view("[\n") : std::string_view(",\n"));
        if (w) w = mParts[best].copy(mHeads[best].at, bad, mFile);
        return w;
    }

    /// Moves the head of `best` to the element after its run, reusing the search's look at it.
    Status advance(std::size_t best, const Run& run) {
        Head& head = mHeads[best];
        if (run.badSeen && mSeen.at == run.bad) {
            head = mSeen;
            return Status::success();
        }
        return probe(best, run.bad, head);
    }

    std::vector<LineArrayFile>& mParts;
    KeyOf mKeyOf;
    BufferedFile& mFile;
    std::vector<Head> mHeads;  ///< per part
    /// A heap of the parts with elements left (heapOrder): a region's batches are hundreds of
    /// parts.
    std::vector<std::size_t> mLive;
    Head mSeen;            ///< the last element looked at
    std::string mElement;  ///< the element probe() read last
    MergedLines mMerged;
};

template <typename Key, typename KeyOf>
Result<MergedLines> mergeLines(std::vector<LineArrayFile>& parts, KeyOf keyOf, BufferedFile& file) {
    return LineMerge<Key, KeyOf>(parts, std::move(keyOf), file).run();
}

/// A merged instance's place: its tile in scene order (a tile's lines stay as its shard wrote
/// them).
Result<std::uint64_t> instanceKey(const std::string& line) {
    auto t = TileId::fromQuadkey(stringField(line, "tile"));
    if (!t) return Error{"manifest: an instance without a valid tile: " + line.substr(0, 80)};
    return rowMajorKey(*t);
}

/// A merged building's place: its source feature id, then its tile (SceneBaker's order).
using BuildingKey = std::pair<std::string, std::uint64_t>;
Result<BuildingKey> buildingKey(const std::string& line) {
    // Building lines are compact JSON with sorted keys, "source" a feature id or null:
    // read the two fields in place, and parse the line only when they are not plain.
    constexpr std::string_view kSource = "\"source\":";
    const std::size_t at = line.find(kSource);
    const std::string_view tile = stringField(line, "tile");
    if (at != std::string::npos && !tile.empty()) {
        const std::size_t from = at + kSource.size();
        const std::size_t close = line[from] == '"' ? line.find('"', from + 1) : std::string::npos;
        const bool plain =
            line.compare(from, 4, "null") == 0 || (close != std::string::npos && line.find('\\', from) > close);
        auto t = TileId::fromQuadkey(tile);
        if (plain && t) {
            return BuildingKey{close == std::string::npos ? "" : line.substr(from + 1, close - from - 1),
                               rowMajorKey(*t)};
        }
    }
    try {
        const json b = json::parse(line);
        auto t = TileId::fromQuadkey(b.at("tile").get<std::string>());
        if (!t) return Error{"manifest: a building without a valid tile: " + line.substr(0, 80)};
        return BuildingKey{b.at("source").is_string() ? b.at("source").get<std::string>() : "", rowMajorKey(*t)};
    } catch (const std::exception& e) {
        return Error{std::string("manifest: ") + e.what()};
    }
}

/// Every element of a line array of a part's manifest (a short one: an index, a table).
Result<std::vector<std::string>> lineArrayElements(const fs::path& file, ByteRange range) {
    LineArrayFile in(file, range);
    std::vector<std::string> elements;
    elements.reserve(range.elements);
    std::string element;
    for (std::uint64_t at = range.begin; at < range.end;) {
        std::uint64_t next = 0;
        if (Status s = in.elementAt(at, element, next); !s) return s.error();
        elements.push_back(element);
        at = next;
    }
    return elements;
}

/// A merge's progress: each output an equal share, and within one its files (or parts) as they
/// are joined. Cancelled when the callback says stop.
class MergeProgress {
public:
    static constexpr int kOutputs = 6;  ///< 3dtiles, manifest, collision, layers, osgb, glb

    explicit MergeProgress(ProgressCallback callback) : mCallback(std::move(callback)) {}

    /// The next output starts, with `items` to join (at least one is counted).
    Status start(std::string_view output, std::uint64_t items) {
        mStage = "joining " + std::string(output);
        mFrom = double(mStarted++) / kOutputs;
        mItems = std::max<std::uint64_t>(1, items);
        mDone = 0;
        return tell();
    }
    /// One more of the output's items joined.
    Status step() {
        ++mDone;
        return tell();
    }
    /// Every output joined.
    Status finish() const {
        if (!reportProgress(mCallback, 1.0, "joined")) return cancelled("merge cancelled");
        return Status::success();
    }

private:
    Status tell() const {
        const double share = double(std::min(mDone, mItems)) / double(mItems) / kOutputs;
        if (!reportProgress(mCallback, std::min(1.0, mFrom + share), mStage)) return cancelled("merge cancelled");
        return Status::success();
    }

    ProgressCallback mCallback;
    std::string mStage;
    int mStarted = 0;
    double mFrom = 0.0;
    std::uint64_t mItems = 1, mDone = 0;
};

class Merger {
public:
    Merger(std::vector<Shard> shards, std::vector<TileId> tiles, const MergeJob& job, MergeReport& report)
        : mShards(std::move(shards)),
          mTiles(std::move(tiles)),
          mOut(job.outDir),
          mMove(job.moveParts),
          mKeepLevelSources(job.keepLevelSources),
          mAutoBinaryAbove(job.autoBinaryAbove),
          mSceneGraphRoot(job.sceneGraphRoot),
          mReport(report),
          mProgress(job.progress) {}

    Status manifest() {
        if (Status s = mProgress.start("manifest.json", 1); !s) return s;
        if (Status s = readManifestParts(); !s) return s;
        if (mParts.empty()) return Status::success();
        auto binary = binaryInstances();
        if (!binary) return binary.error();
        auto entries = mergedEntries();
        if (!entries) return entries.error();
        // Binary parts of an `auto` bake small enough for JSON: their joined instances.bin is
        // read back into JSON lines, then removed.
        const bool toJson = *binary && mAutoBinaryAbove && mInstanceCount <= *mAutoBinaryAbove;
        // With binary instances, instances.bin first: the manifest holds its index.
        JoinedInstanceFile joined;
        if (*binary) {
            auto j = joinInstanceFiles();
            if (!j) return j.error();
            joined = std::move(j).value();
            if (!toJson) (*entries)[std::string(kManifestInstanceFile)] = instanceFileEntry(joined.bytes);
        }
        const bool writesBinary = *binary && !toJson;
        const fs::path destination = mOut / "manifest.json";
        auto output = OutputFile::create(destination);
        if (!output) return output.error();
        BufferedFile file(*output);
        const auto write = [&](std::string_view text) { return file.write(text); };
        MergedLines instances, buildings;
        if (*binary) instances = {static_cast<std::size_t>(joined.instances), static_cast<std::size_t>(joined.runs)};
        Status w = writeManifestLayout(
            *entries, write,
            [&](std::string_view key) -> Status {
                if (key == kManifestInstanceBlocks) return writeLineArray(joined.blocks, write);
                if (key == kManifestInstanceSources) return writeLineArray(joined.sources, write);
                if (key == kManifestInstances && toJson) return writeInstanceLines(joined, write);
                auto n = mergeArray(key, file);
                if (!n) return n.error();
                (key == kManifestInstances ? instances : buildings) = *n;
                return Status::success();
            },
            writesBinary ? std::span<const std::string_view>(kBinaryManifestLineArrays)
                         : std::span<const std::string_view>(kJsonManifestLineArrays));
        if (w) w = file.flush();
        if (!w) return w;
        if (instances.elements != mInstanceCount) {
            return Error{"manifest: the shards' instanceCount says " + std::to_string(mInstanceCount) + " but " +
                         std::to_string(instances.elements) + " instances were merged"};
        }
        if (Status c = output->commit(); !c) return c;
        if (!writesBinary) {  // an instances.bin of an earlier merge (or toJson's) is not this manifest's
            std::error_code ec;
            fs::remove(mOut / kInstanceFileName, ec);
        }
        MergedOutput written{MergedOutput::Kind::Manifest, destination};
        written.instances = instances.elements;
        written.instanceRuns = instances.runs;
        written.buildings = buildings.elements;
        written.buildingRuns = buildings.runs;
        mReport.written.push_back(written);
        return Status::success();
    }

    Status tiles3d() {
        if (Status s = mProgress.start("3dtiles", mTiles.size()); !s) return s;
        std::vector<TilesetLeaf> leaves;
        GroundFrame frame;
        std::uint64_t seed = 0;
        std::optional<std::string> bake;     // origin, zoom and seed, which every shard must share
        std::optional<double> originHeight;  // on terrain
        std::size_t copied = 0;
        for (const Shard& s : mShards) {
            const std::string tilesetName = "3dtiles/tileset.json";
            if (!s.has(tilesetName)) continue;
            auto text = readText(s.folder / tilesetName);
            if (!text) return text.error();
            try {
                const json doc = json::parse(*text);
                const json& extras = doc.at("asset").at("extras").at("terrabit");
                json sameJson{{"originLon", extras.at("originLon")},
                              {"originLat", extras.at("originLat")},
                              {"zoom", extras.at("zoom")},
                              {"seed", extras.at("seed")}};
                if (extras.contains("originHeight")) sameJson["originHeight"] = extras.at("originHeight");
                const std::string same = sameJson.dump();
                if (bake && *bake != same) {
                    return Error{(s.folder / tilesetName).string() + ": a tileset of a different bake (" + same +
                                 " against " + *bake + ")"};
                }
                bake = same;
                frame.origin = {extras.at("originLon").get<double>(), extras.at("originLat").get<double>()};
                frame.zoom = wholeNumber<int>(extras.at("zoom"), "the zoom", 0, 30);
                seed = std::stoull(extras.at("seed").get<std::string>());
                if (extras.contains("originHeight")) originHeight = extras.at("originHeight").get<double>();
                std::vector<const json*> stack{&doc.at("root")};
                while (!stack.empty()) {
                    const json& node = *stack.back();
                    stack.pop_back();
                    if (node.contains("children")) {
                        for (const json& c : node.at("children")) stack.push_back(&c);
                    }
                    // The baked tiles' contents; the inner tiles' coarse ones are made anew
                    // from the baked tiles' level sources, over every shard's tiles.
                    if (!node.contains("content") || node.contains("children")) continue;
                    const std::string uri = node.at("content").at("uri").get<std::string>();
                    const fs::path relative = fs::path(uri);
                    TilesetLeaf leaf;
                    leaf.quadkey = relative.stem().string();
                    // The content is copied from the shard's 3dtiles/ to the output's at its uri:
                    // only the baked tiles' own names may lead there (no way up, no absolute path).
                    if (leaf.quadkey.empty() || uri != "tiles/" + leaf.quadkey + ".glb" ||
                        !TileId::fromQuadkey(leaf.quadkey)) {
                        return Error{(s.folder / tilesetName).string() + ": a baked tile's content " +
                                     json(uri).dump() + " is not tiles/QUADKEY.glb"};
                    }
                    leaf.region = node.at("boundingVolume").at("region").get<std::array<double, 6>>();
                    leaf.transform = node.at("transform").get<std::array<double, 16>>();
                    const fs::path levelFile = levelSourcePath(leaf.quadkey);
                    auto levelText = readText(s.folder / levelFile);
                    if (!levelText) {
                        return Error{levelText.message() +
                                     " (the baked tile's level source, which shards write since 3D Tiles have levels "
                                     "of detail: rebake the shard)"};
                    }
                    auto level = decodeLevelSource(*levelText);
                    if (!level) return Error{(s.folder / levelFile).string() + ": " + level.message()};
                    leaf.level = std::move(level).value();
                    leaves.push_back(std::move(leaf));
                    if (Status c = transferFile(s.folder / "3dtiles" / relative, mOut / "3dtiles" / relative, mMove);
                        !c) {
                        return c;
                    }
                    if (mKeepLevelSources) {
                        if (Status c = transferFile(s.folder / levelFile, mOut / levelFile, mMove); !c) return c;
                    }
                    ++copied;
                    if (Status c = mProgress.step(); !c) return c;
                }
            } catch (const std::exception& e) {
                return Error{(s.folder / tilesetName).string() + ": " + e.what()};
            }
        }
        if (leaves.empty()) return Status::success();
        const LevelContentSink levels = [&](const std::string& uri, std::span<const std::uint8_t> glb) {
            return writeFileAtomically(mOut / "3dtiles" / uri, glb);
        };
        auto tileset = encodeTilesetLeaves(frame, seed, mTiles, std::move(leaves), "tiles", originHeight, levels);
        if (!tileset) return tileset.error();
        if (Status s = writeFileAtomically(mOut / "3dtiles" / "tileset.json", *tileset); !s) return s;
        mReport.written.push_back({MergedOutput::Kind::Tileset, mOut / "3dtiles" / "tileset.json", copied});
        return Status::success();
    }

    /// The parts' collision grid files joined into one (collision_file_join_p.h).
    Status collision() {
        if (Status s = mProgress.start(kCollisionFile, 1); !s) return s;
        std::vector<fs::path> files;
        for (const Shard& s : mShards) {
            if (s.has(kCollisionFile)) files.push_back(s.folder / kCollisionFile);
        }
        if (files.empty()) return Status::success();
        auto joined = joinCollisionFiles(files, mOut / kCollisionFile);
        if (!joined) return joined.error();
        MergedOutput w{MergedOutput::Kind::Collision, mOut / kCollisionFile, files.size()};
        w.tiles = joined->tiles;
        mReport.written.push_back(w);
        return Status::success();
    }

    Status layers() {
        const auto isLayerFile = [](const std::string& f) { return f.rfind("layers/", 0) == 0; };
        std::uint64_t files = 0;
        for (const Shard& s : mShards)
            files += std::count_if(s.record.files.begin(), s.record.files.end(), isLayerFile);
        if (Status s = mProgress.start("layers", files); !s) return s;
        std::size_t copied = 0;
        for (const Shard& s : mShards) {
            for (const std::string& f : s.record.files) {
                if (!isLayerFile(f)) continue;
                if (Status c = transferFile(s.folder / f, mOut / f, mMove); !c) return c;
                ++copied;
                if (Status c = mProgress.step(); !c) return c;
            }
        }
        if (copied > 0) mReport.written.push_back({MergedOutput::Kind::Layers, mOut / "layers", copied});
        return Status::success();
    }

    /// osgb: each shard's group files copied into scene/, then the root that refers to all of
    /// them. A group written by two shards was cut between them (shards baked with osgb hold
    /// whole groups; not so by a terrabit-cli before that, or when the shards' formats differ).
    Status sceneGraph() {
        // Left out without a root writer, and said so (unjoinableFiles).
        if (!mSceneGraphRoot) return mProgress.start(kSceneGraphRoot, 0);
        struct GroupFile {
            const Shard* shard;
            std::string file;  ///< relative to the shard's folder
        };
        std::map<std::string, GroupFile> groups;  // by quadkey: the root's order
        bool any = false;
        for (const Shard& s : mShards) {
            if (!s.has(kSceneGraphRoot)) continue;
            any = true;
            for (const std::string& f : s.record.files) {
                const fs::path path(f);
                if (path.parent_path() != kSceneGraphFolder || path.extension() != ".osgb") continue;
                const auto [at, added] = groups.emplace(path.stem().string(), GroupFile{&s, f});
                if (!added) {
                    return Error{"osgb: group " + at->first + " was written by shards " +
                                 at->second.shard->folder.string() + " and " + s.folder.string() +
                                 ", which cut its tiles between them; bake the shards again with this "
                                 "terrabit-cli and osgb in every shard's --format (each then holds whole groups)"};
                }
            }
        }
        if (Status s = mProgress.start(kSceneGraphRoot, groups.size()); !s) return s;
        if (!any) return Status::success();
        std::vector<std::string> quadkeys;
        for (const auto& [quadkey, g] : groups) {
            if (Status c = transferFile(g.shard->folder / g.file, mOut / g.file, mMove); !c) return c;
            quadkeys.push_back(quadkey);
            if (Status c = mProgress.step(); !c) return c;
        }
        if (Status st = mSceneGraphRoot(quadkeys, mOut / kSceneGraphRoot); !st) return st;
        mReport.written.push_back({MergedOutput::Kind::SceneGraph, mOut / kSceneGraphRoot, quadkeys.size()});
        return Status::success();
    }

    Status finish() const { return mProgress.finish(); }

    /// scene.glb, encoded from every shard's scene.part (GlbSceneStream), a part at a time: the
    /// shards in the order of their tiles' quadkeys (each holds a run of consecutive ones), so
    /// the bytes are those one machine writes. What is encoded waits in unnamed files in the
    /// work folder until the file is written.
    Status sceneGlb() {
        std::vector<const Shard*> parts;
        std::uint64_t tiles = 0;
        for (const Shard& s : mShards) {
            if (s.has(kScenePartFile) && !s.record.tiles.empty()) {
                parts.push_back(&s);
                tiles += s.record.tiles.size();
            }
        }
        if (Status s = mProgress.start("scene.glb", tiles); !s) return s;
        if (parts.empty()) return Status::success();
        const auto firstQuadkey = [](const Shard* s) {
            std::string first = s->record.tiles.front().quadkey();
            for (const TileId& t : s->record.tiles) first = std::min(first, t.quadkey());
            return first;
        };
        std::vector<std::pair<std::string, const Shard*>> ordered;
        for (const Shard* s : parts) ordered.emplace_back(firstQuadkey(s), s);
        std::sort(ordered.begin(), ordered.end());
        std::optional<GlbSceneStream> stream;
        GlbSceneOptions options;
        const Shard* first = nullptr;
        Scene part;
        std::vector<AssetMesh> meshes;
        for (const auto& [quadkey, shard] : ordered) {
            const fs::path file = shard->folder / kScenePartFile;
            Result<ScenePartReader> reader = ScenePartReader::open(file);
            if (!reader) return Error{"glb: " + reader.message()};
            if (!stream) {
                options = reader->options();
                Result<GlbSceneStream> opened = GlbSceneStream::open(options, mOut);
                if (!opened) return Error{"glb: " + opened.message(), opened.error().kind};
                stream.emplace(std::move(*opened));
                first = shard;
            } else if (const GlbSceneOptions& o = reader->options();
                       o.plainNodes != options.plainNodes || o.groundColour != options.groundColour ||
                       o.generator != options.generator || o.copyright != options.copyright) {
                return Error{"glb: " + first->folder.string() + " and " + shard->folder.string() +
                             " were baked with different GLB options (--plain-nodes, the ground colour): bake them "
                             "again alike"};
            }
            for (;;) {
                Result<bool> more = reader->next(part, meshes);
                if (!more) return Error{"glb: " + more.message()};
                if (!*more) break;
                if (Status st = stream->add(part, meshes); !st) {
                    return Error{"glb: " + file.string() + ": " + st.message() +
                                 " (shards of different bakes, or a shard's scene.part not its own)"};
                }
                for (std::size_t k = 0; k < part.tiles.size(); ++k) {
                    if (Status st = mProgress.step(); !st) return st;
                }
            }
        }
        Result<OutputFile> out = OutputFile::create(mOut / "scene.glb");
        if (!out) return out.error();
        if (Status st = stream->finish([&](std::span<const std::uint8_t> bytes) { return out->write(bytes); }); !st)
            return st;
        if (Status st = out->commit(); !st) return st;
        mReport.written.push_back({MergedOutput::Kind::Scene, mOut / "scene.glb", ordered.size()});
        return Status::success();
    }

private:
    /// The manifest of every shard that wrote one: its small entries and where its line arrays
    /// lie.
    Status readManifestParts() {
        for (const Shard& s : mShards) {
            if (!s.has("manifest.json")) continue;
            auto part = ManifestPart::read(s.folder / "manifest.json");
            if (!part) return part.error();
            mParts.push_back(std::move(*part));
            mPartFiles.push_back(s.folder / "manifest.json");
            mManifestShards.push_back(&s);
        }
        return Status::success();
    }

    /// The merged manifest's entries: what names the bake (every part must agree), then the
    /// assets, tiles, counts and statistics of all the parts.
    Result<ManifestEntries> mergedEntries() {
        ManifestEntries merged;
        for (const char* key : {"format", "version", "seed", "rulesSha256", "frame"}) {
            const auto a = mParts.front().entries.find(key);
            if (a == mParts.front().entries.end()) return Error{mPartFiles.front().string() + ": no \"" + key + "\""};
            for (std::size_t i = 1; i < mParts.size(); ++i) {
                const auto b = mParts[i].entries.find(key);
                if (b == mParts[i].entries.end() || b->second != a->second) {
                    return Error{"shards " + mManifestShards.front()->folder.string() + " and " +
                                 mManifestShards[i]->folder.string() +
                                 " come from different bakes (their manifests differ in \"" + key + "\")"};
                }
            }
            merged[key] = a->second;
        }
        std::set<std::string> assets;
        ManifestStatistics statistics;
        mInstanceCount = 0;
        try {
            for (const ManifestPart& p : mParts) {
                for (const std::string& a : json::parse(p.entries.at("assets")).get<std::vector<std::string>>()) {
                    assets.insert(a);
                }
                auto st = ManifestStatistics::parse(p.entries.at("statistics"));
                if (!st) return st.error();
                statistics.add(*st);
                mInstanceCount +=
                    wholeNumber<std::uint64_t>(json::parse(p.entries.at("instanceCount")), "the instance count");
            }
        } catch (const std::exception& e) {
            return Error{std::string("manifest: ") + e.what()};
        }
        const double cells = static_cast<double>(statistics.vegetationCellsRequested);
        statistics.requestedDensity = cells > 0 ? requestedVegetation() / cells : 0.0;
        statistics.achievedDensity = cells > 0 ? static_cast<double>(statistics.vegetationInstances) / cells : 0.0;
        merged["assets"] = manifestAssets(std::vector<std::string>(assets.begin(), assets.end()));
        merged["tiles"] = manifestTiles(mTiles);
        merged["instanceCount"] = json(mInstanceCount).dump();
        merged["statistics"] = statistics.encode();
        return merged;
    }

    /// The vegetation instances the rules asked for, summed in the bake's order (pass, then
    /// tile north to south, then class): a floating-point sum depends on its order.
    double requestedVegetation() const {
        struct Tally {
            std::uint32_t pass;
            std::uint64_t tile;
            double requested;
        };
        std::vector<Tally> tallies;
        for (const Shard* s : mManifestShards) {
            for (const VegetationTileTally& t : s->record.tallies) {
                tallies.push_back({t.pass, rowMajorKey(t.tile), t.requestedInstances});
            }
        }
        std::stable_sort(tallies.begin(), tallies.end(), [](const Tally& a, const Tally& b) {
            return std::tie(a.pass, a.tile) < std::tie(b.pass, b.tile);
        });
        double total = 0.0;
        for (const Tally& t : tallies) total += t.requested;
        return total;
    }

    /// Whether the parts' instances are in instances.bin (the manifest indexes it) rather than
    /// JSON lines; every part must say the same.
    Result<bool> binaryInstances() const {
        const auto binary = [](const ManifestPart& p) {
            return p.entries.count(std::string(kManifestInstanceFile)) > 0;
        };
        for (std::size_t i = 1; i < mParts.size(); ++i) {
            if (binary(mParts[i]) != binary(mParts.front())) {
                const std::size_t withFile = binary(mParts[i]) ? i : 0;
                const std::size_t without = withFile == 0 ? i : 0;
                return Error{mManifestShards[withFile]->folder.string() + " has its instances in " +
                             std::string(kInstanceFileName) + " but " + mManifestShards[without]->folder.string() +
                             " in its manifest: shards baked with different --instances"};
            }
        }
        return binary(mParts.front());
    }

    /// The "instances" line array of the joined instances.bin (what the bake of every tile at
    /// once writes with JSON instances): a block's records at a time, in the file's order.
    Status writeInstanceLines(const JoinedInstanceFile& joined,
                              const std::function<Status(std::string_view)>& write) const {
        const fs::path binFile = mOut / kInstanceFileName;
        std::ifstream in(binFile, std::ios::binary);
        if (!in) return Error{binFile.string() + ": cannot read the joined instances"};
        std::string records, text, line;
        std::size_t written = 0;
        for (const std::string& encoded : joined.blocks) {
            auto block = InstanceBlockEntry::parse(encoded);
            if (!block) return block.error();
            records.resize(static_cast<std::size_t>(block->count * kInstanceRecordBytes));
            in.seekg(static_cast<std::streamoff>(block->offset));
            in.read(records.data(), static_cast<std::streamsize>(records.size()));
            if (static_cast<std::size_t>(in.gcount()) != records.size()) {
                return Error{binFile.string() + ": read failed at byte " + std::to_string(block->offset)};
            }
            const std::string head = instanceLineHead(json(block->asset).dump(), block->blockX, block->blockY);
            const std::string quadkey = json(block->tile.quadkey()).dump();
            for (std::size_t at = 0; at < records.size(); at += kInstanceRecordBytes) {
                const std::uint32_t source = instanceRecordSource(records.data() + at);
                line.assign(head);
                appendInstanceLineTail(line, source == kInstanceNoSource ? "null" : joined.sources.at(source), quadkey,
                                       instanceRecordTransform(records.data() + at));
                text += written++ == 0 ? "[\n    " : ",\n    ";
                text += line;
            }
            if (text.size() >= (std::size_t{1} << 20)) {
                if (Status s = write(text); !s) return s;
                text.clear();
            }
        }
        text += written == 0 ? "[]" : "\n  ]";
        return write(text);
    }

    /// Joins the parts' instances.bin into the output's (instance_file_join_p.h).
    Result<JoinedInstanceFile> joinInstanceFiles() const {
        std::vector<InstanceFilePart> files;
        for (std::size_t i = 0; i < mParts.size(); ++i) {
            InstanceFilePart f;
            f.file = mManifestShards[i]->folder / kInstanceFileName;
            for (const std::string_view key : {kManifestInstanceBlocks, kManifestInstanceSources}) {
                const auto range = mParts[i].arrays.find(std::string(key));
                if (range == mParts[i].arrays.end()) {
                    return Error{mPartFiles[i].string() + ": no \"" + std::string(key) + "\" beside its instanceFile"};
                }
                auto elements = lineArrayElements(mPartFiles[i], range->second);
                if (!elements) return elements.error();
                (key == kManifestInstanceBlocks ? f.blocks : f.sources) = std::move(elements).value();
            }
            files.push_back(std::move(f));
        }
        return scale::joinInstanceFiles(files, mOut / kInstanceFileName);
    }

    /// Writes one line array of the merged manifest from the parts' (see mergeLines).
    Result<MergedLines> mergeArray(std::string_view key, BufferedFile& file) const {
        std::vector<LineArrayFile> readers;
        readers.reserve(mParts.size());
        for (std::size_t i = 0; i < mParts.size(); ++i) {
            const auto range = mParts[i].arrays.find(std::string(key));
            readers.emplace_back(mPartFiles[i], range == mParts[i].arrays.end() ? ByteRange{} : range->second);
        }
        return key == kManifestInstances ? mergeLines<std::uint64_t>(readers, instanceKey, file)
                                         : mergeLines<BuildingKey>(readers, buildingKey, file);
    }

    std::vector<Shard> mShards;
    std::vector<TileId> mTiles;  // every shard's tiles, in scene order
    fs::path mOut;
    bool mMove = false;
    bool mKeepLevelSources = false;
    std::optional<std::uint64_t> mAutoBinaryAbove;  ///< MergeJob::autoBinaryAbove
    decltype(MergeJob::sceneGraphRoot) mSceneGraphRoot;
    MergeReport& mReport;
    MergeProgress mProgress;
    std::vector<const Shard*> mManifestShards;  ///< the shards that wrote a manifest
    std::vector<ManifestPart> mParts;           ///< their manifests, in the same order
    std::vector<fs::path> mPartFiles;           ///< and where they are
    std::uint64_t mInstanceCount = 0;           ///< the instances their manifests count
};

/// Every folder's shard record; the error names every folder without a readable one.
Result<std::vector<Shard>> readShards(const std::vector<fs::path>& folders) {
    std::vector<Shard> shards;
    std::string unreadable;
    for (const fs::path& folder : folders) {
        auto record = readShardRecord(folder);
        if (!record) {
            unreadable += (unreadable.empty() ? "" : "\n") + record.message();
            continue;
        }
        shards.push_back({folder, std::move(*record)});
    }
    if (!unreadable.empty()) return Error{unreadable};
    return shards;
}

/// The shards must be one cut, each index once, and unless `subset` every index there. The
/// error names what is missing, so just those can be rerun.
Status checkCut(const std::vector<Shard>& shards, bool subset) {
    const int count = shards.front().record.shard.count;
    std::vector<const Shard*> byIndex(static_cast<std::size_t>(count), nullptr);
    for (const Shard& s : shards) {
        if (s.record.shard.count != count) {
            return Error{s.folder.string() + " is shard " + s.record.shard.text() + " but " +
                         shards.front().folder.string() + " is shard " + shards.front().record.shard.text() +
                         ": shards of different cuts"};
        }
        const Shard*& slot = byIndex[static_cast<std::size_t>(s.record.shard.index)];
        if (slot) {
            return Error{slot->folder.string() + " and " + s.folder.string() + " are both shard " +
                         s.record.shard.text()};
        }
        slot = &s;
    }
    std::string missing;
    for (int k = 0; k < count && !subset; ++k) {
        if (!byIndex[static_cast<std::size_t>(k)]) {
            const std::string spec = ShardSpec{k, count}.text();
            missing += (missing.empty() ? "" : "\n") +
                       ("shard " + spec + " is missing: bake it alone with --shard " + spec + " and merge again");
        }
    }
    if (!missing.empty()) return Error{missing};
    return Status::success();
}

/// Sorts tiles into the scene's order.
void sortRowMajor(std::vector<TileId>& tiles) { std::sort(tiles.begin(), tiles.end(), northToSouth); }

/// Every shard's tiles in the scene's order; no tile may be baked twice.
Result<std::vector<TileId>> mergedTiles(const std::vector<Shard>& shards) {
    std::vector<TileId> tiles;
    for (const Shard& s : shards) tiles.insert(tiles.end(), s.record.tiles.begin(), s.record.tiles.end());
    sortRowMajor(tiles);
    if (std::adjacent_find(tiles.begin(), tiles.end()) != tiles.end()) {
        return Error{"two shards baked the same tile: shards of different bakes"};
    }
    if (tiles.empty()) return Error{"the shards hold no tiles"};
    return tiles;
}

/// Shards with tiles must have written the same formats, or the merge would lose tiles.
Status checkSameFormats(const std::vector<Shard>& shards) {
    for (const char* file :
         {"manifest.json", "3dtiles/tileset.json", kCollisionFile, kSceneGraphRoot, kScenePartFile}) {
        const Shard* with = nullptr;
        const Shard* without = nullptr;
        for (const Shard& s : shards) {
            if (s.record.tiles.empty()) continue;
            (s.has(file) ? with : without) = &s;
        }
        if (with && without) {
            return Error{with->folder.string() + " has " + file + " but " + without->folder.string() +
                         " has not: shards baked with different --format"};
        }
    }
    return Status::success();
}

/// The whole-scene files, which cover a shard's tiles only and are not joined: the GLB, and the
/// osgb when the merge cannot write its root.
std::vector<fs::path> unjoinableFiles(const std::vector<Shard>& shards, bool joinsSceneGraph) {
    std::vector<fs::path> files;
    for (const Shard& s : shards) {
        for (const std::string& f : s.record.files) {
            if (f == "scene.glb" || (f == kSceneGraphRoot && !joinsSceneGraph)) files.push_back(s.folder / f);
        }
    }
    return files;
}

/// Removes the work folders `<prefix><pid>` in `folder` whose process is gone (a merge that was
/// killed), leaving those of merges still running.
void removeAbandoned(const fs::path& folder, const std::string& prefix) {
    std::error_code ec;
    std::vector<fs::path> abandoned;
    for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const std::string digits = name.substr(prefix.size());
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
            continue;
        const auto pid = static_cast<pid_t>(std::stol(digits));
        if (::kill(pid, 0) != 0 && errno == ESRCH) abandoned.push_back(e.path());
    }
    for (const fs::path& p : abandoned) fs::remove_all(p, ec);
}

/// Moves each file and folder of `work` into `out`, in place of what `out` held under its name.
Status moveIntoPlace(const fs::path& work, const fs::path& out) {
    std::error_code ec;
    std::vector<fs::path> entries;
    for (const fs::directory_entry& e : fs::directory_iterator(work, ec)) entries.push_back(e.path());
    if (ec) return ioError(work.string() + ": " + ec.message());
    std::sort(entries.begin(), entries.end());
    for (const fs::path& from : entries) {
        const fs::path to = out / from.filename();
        std::error_code none;  // a missing `to` is no error
        if (fs::symlink_status(to, none).type() == fs::file_type::directory) {
            fs::remove_all(to, ec);
            if (ec) return ioError(to.string() + ": cannot replace it: " + ec.message());
        }
        fs::rename(from, to, ec);
        if (ec) return ioError(from.string() + " -> " + to.string() + ": " + ec.message());
    }
    return Status::success();
}

}  // namespace

Status mergeShards(const MergeJob& job, MergeReport& report) {
    if (job.shards.empty()) return badArguments("merge: give the shards' output folders");
    if (job.outDir.empty()) return badArguments("--out: give a folder for the merged scene");
    for (const fs::path& shard : job.shards) {
        std::error_code same;
        if (fs::equivalent(shard, job.outDir, same)) {
            return badArguments("--out " + job.outDir.string() +
                                " is one of the shards: the merge would overwrite what it reads; give another folder");
        }
    }
    auto shards = readShards(job.shards);
    if (!shards) return shards.error();
    if (Status s = checkCut(*shards, job.subset); !s) return s;
    auto tiles = mergedTiles(*shards);
    if (!tiles) return tiles.error();
    if (Status s = checkSameFormats(*shards); !s) return s;
    report.unjoinable = unjoinableFiles(*shards, static_cast<bool>(job.sceneGraphRoot));

    std::error_code ec;
    fs::create_directories(job.outDir, ec);
    if (ec) return ioError(job.outDir.string() + ": " + ec.message());
    // Everything is written into a work folder in the output folder and moved into place once
    // the whole merge has succeeded: shards found to be of different bakes only while joining,
    // a full disk or a cancel leave the output folder as it was (an earlier merge in it too).
    const std::string workPrefix = ".terrabit-merge-";
    const fs::path work = job.outDir / (workPrefix + std::to_string(::getpid()));
    removeAbandoned(job.outDir, workPrefix);
    fs::remove_all(work, ec);
    fs::create_directories(work, ec);
    if (ec) return ioError(work.string() + ": " + ec.message());
    report.started = true;
    report.shardCount = shards->front().record.shard.count;
    report.tiles = tiles->size();
    MergeJob into = job;
    into.outDir = work;
    Status s = [&] {
        Merger merger(*shards, *tiles, into, report);
        Status st = merger.tiles3d();
        if (st) st = merger.manifest();
        if (st) st = merger.collision();
        if (st) st = merger.layers();
        if (st) st = merger.sceneGraph();
        if (st) st = merger.sceneGlb();
        if (st) st = merger.finish();
        return st;
    }();
    if (s) s = moveIntoPlace(work, job.outDir);
    fs::remove_all(work, ec);
    if (!s) {
        report.written.clear();  // nothing of it reached the output folder
        return s;
    }
    for (MergedOutput& w : report.written) w.path = job.outDir / w.path.lexically_relative(work);
    return s;
}

namespace {

Status mergeQuietly(const std::vector<fs::path>& parts, const fs::path& outDir, bool subset, bool keepLevelSources,
                    std::optional<std::uint64_t> autoBinaryAbove) {
    MergeJob job;
    job.autoBinaryAbove = autoBinaryAbove;
    job.keepLevelSources = keepLevelSources;
    job.shards = parts;
    job.outDir = outDir;
    job.moveParts = true;
    job.subset = subset;
    MergeReport report;  // a streamed bake's join says nothing of its own
    if (Status s = mergeShards(job, report); !s) {
        return Error{"joining the batches: " + s.message(), s.error().kind};
    }
    return Status::success();
}

}  // namespace

Status mergeParts(const std::vector<fs::path>& parts, const fs::path& outDir, std::size_t maxOpen,
                  bool keepLevelSources, std::optional<std::uint64_t> autoBinaryAbove) {
    maxOpen = std::max<std::size_t>(maxOpen, 2);
    if (parts.size() <= maxOpen) return mergeQuietly(parts, outDir, false, keepLevelSources, autoBinaryAbove);
    // Too many to read at once: join runs of maxOpen parts into groups, each a part of the next
    // round with a record covering its parts. The join sorts by tile, so rounds do not change
    // the bytes.
    const fs::path round = outDir / (".terrabit-join-" + std::to_string(parts.size()));  // one per round
    std::error_code ec;
    fs::remove_all(round, ec);
    std::vector<fs::path> groups;
    const std::size_t count = (parts.size() + maxOpen - 1) / maxOpen;
    for (std::size_t g = 0; g < count; ++g) {
        const std::vector<fs::path> members(
            parts.begin() + static_cast<std::ptrdiff_t>(g * maxOpen),
            parts.begin() + static_cast<std::ptrdiff_t>(std::min(parts.size(), (g + 1) * maxOpen)));
        ShardRecord group;
        group.shard = ShardSpec{static_cast<int>(g), static_cast<int>(count)};
        std::set<std::string> files;
        for (const fs::path& m : members) {
            auto record = readShardRecord(m);
            if (!record) return record.error();
            group.tiles.insert(group.tiles.end(), record->tiles.begin(), record->tiles.end());
            group.tallies.insert(group.tallies.end(), record->tallies.begin(), record->tallies.end());
            group.bakedTiles += record->bakedTiles;
            group.weight += record->weight;
            files.insert(record->files.begin(), record->files.end());
        }
        sortRowMajor(group.tiles);
        group.files.assign(files.begin(), files.end());
        groups.push_back(round / std::to_string(g));
        // A round's groups are parts of the next round: they keep their level sources.
        if (Status s = mergeQuietly(members, groups.back(), true, true, std::nullopt); !s) return s;
        if (Status s = writeShardRecord(groups.back(), group); !s) return s;
    }
    Status s = mergeParts(groups, outDir, maxOpen, keepLevelSources, autoBinaryAbove);
    fs::remove_all(round, ec);
    return s;
}

}  // namespace terrabit::core::scale
