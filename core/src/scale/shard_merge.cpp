#include "terrabit/core/scale/shard_merge.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "terrabit/core/export/output_file.h"
#include "terrabit/core/export/tileset_writer.h"
#include "terrabit/core/scale/shard_record.h"

namespace terrabit::core::scale {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadArguments = 2;

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

/// A manifest as encodeManifest lays it out — `"key": value` per line, keys sorted, the arrays
/// "instances" and "buildings" one element per line — read as a stream: the small entries are
/// kept, the arrays are read element by element, so merging a region's manifests of millions
/// of instances holds a line per shard, not the manifests.
class ManifestEntries {
public:
    /// The small entries (every key but the line arrays), their values as written.
    static Result<std::map<std::string, std::string>> read(const fs::path& file) {
        std::ifstream in(file, std::ios::binary);
        if (!in) return Error{file.string() + ": cannot read"};
        std::map<std::string, std::string> entries;
        std::string line;
        if (!std::getline(in, line) || line != "{") return Error{file.string() + ": not a Terrabit manifest"};
        while (std::getline(in, line)) {
            if (line == "}") return entries;
            const std::size_t colon = line.find("\": ");
            if (line.rfind("  \"", 0) != 0 || colon == std::string::npos) {
                return Error{file.string() + ": unexpected manifest line: " + line.substr(0, 80)};
            }
            std::string key = line.substr(3, colon - 3);
            std::string value = line.substr(colon + 3);
            if (value == "[") {  // a line array: skip its elements
                while (std::getline(in, line) && line.rfind("  ]", 0) != 0) {
                }
                continue;
            }
            if (!value.empty() && value.back() == ',') value.pop_back();
            entries.emplace(std::move(key), std::move(value));
        }
        return Error{file.string() + ": the manifest ends early"};
    }
};

/// The elements of one line array of a manifest, one at a time.
class LineArrayReader {
public:
    LineArrayReader(const fs::path& file, const std::string& key) : mIn(file, std::ios::binary) {
        const std::string header = "  \"" + key + "\": [";
        std::string line;
        while (std::getline(mIn, line)) {
            if (line == header) {
                mOpen = true;
                return;
            }
            if (line.rfind(header, 0) == 0) return;  // "[]": empty
        }
    }
    /// The next element, without its separator; false after the last.
    bool next(std::string& element) {
        if (!mOpen || !std::getline(mIn, element) || element.rfind("  ]", 0) == 0) {
            mOpen = false;
            return false;
        }
        element.erase(0, 4);
        if (!element.empty() && element.back() == ',') element.pop_back();
        return true;
    }

private:
    std::ifstream mIn;
    bool mOpen = false;
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

/// Writes a one-per-line array from sorted streams: each round takes the element with the
/// smallest key (`keyOf`, which may fail), so streams sorted by that key merge into one sorted
/// array; equal keys keep their stream's order.
template <typename Key, typename KeyOf>
Result<std::size_t> mergeLines(std::vector<LineArrayReader>& readers, KeyOf keyOf, BufferedFile& file) {
    struct Head {
        std::string line;
        Key key{};
        bool live = false;
    };
    std::vector<Head> heads(readers.size());
    // A heap of the live streams, smallest (key, stream) on top: a region's batches are
    // hundreds of streams.
    std::vector<std::size_t> live;
    const auto after = [&](std::size_t a, std::size_t b) {
        return std::tie(heads[b].key, b) < std::tie(heads[a].key, a);
    };
    const auto advance = [&](std::size_t i) -> Status {
        heads[i].live = readers[i].next(heads[i].line);
        if (!heads[i].live) return Status::success();
        auto k = keyOf(heads[i].line);
        if (!k) return k.error();
        heads[i].key = std::move(*k);
        return Status::success();
    };
    for (std::size_t i = 0; i < readers.size(); ++i) {
        if (Status s = advance(i); !s) return s.error();
        if (heads[i].live) live.push_back(i);
    }
    std::make_heap(live.begin(), live.end(), after);
    std::size_t count = 0;
    while (!live.empty()) {
        std::pop_heap(live.begin(), live.end(), after);
        const std::size_t best = live.back();
        Status w = file.write(count++ == 0 ? std::string_view("[\n    ") : std::string_view(",\n    "));
        if (w) w = file.write(heads[best].line);
        if (!w) return w.error();
        if (Status s = advance(best); !s) return s.error();
        if (heads[best].live) {
            std::push_heap(live.begin(), live.end(), after);
        } else {
            live.pop_back();
        }
    }
    if (Status w = file.write(count == 0 ? std::string_view("[]") : std::string_view("\n  ]")); !w) return w.error();
    return count;
}

class Merger {
public:
    Merger(std::vector<Shard> shards, std::vector<TileId> tiles, fs::path outDir, bool move, std::ostream& out)
        : mShards(std::move(shards)), mTiles(std::move(tiles)), mOut(std::move(outDir)), mMove(move), mReport(out) {}

    Status manifest() {
        std::vector<std::map<std::string, std::string>> parts;
        std::vector<fs::path> files;
        for (const Shard& s : mShards) {
            if (!s.has("manifest.json")) continue;
            auto entries = ManifestEntries::read(s.folder / "manifest.json");
            if (!entries) return entries.error();
            parts.push_back(std::move(*entries));
            files.push_back(s.folder / "manifest.json");
            mManifestShards.push_back(&s);
        }
        if (parts.empty()) return Status::success();
        // Everything but the per-tile content must be the same bake.
        std::map<std::string, std::string> merged;
        for (const char* key : {"format", "version", "seed", "rulesSha256", "frame"}) {
            const auto a = parts.front().find(key);
            if (a == parts.front().end()) return Error{files.front().string() + ": no \"" + key + "\""};
            for (std::size_t i = 1; i < parts.size(); ++i) {
                const auto b = parts[i].find(key);
                if (b == parts[i].end() || b->second != a->second) {
                    return Error{"shards " + mManifestShards.front()->folder.string() + " and " +
                                 mManifestShards[i]->folder.string() +
                                 " come from different bakes (their manifests differ in \"" + key + "\")"};
                }
            }
            merged[key] = a->second;
        }

        std::set<std::string> assets;
        json perAsset = json::object();
        std::uint64_t placed = 0, blocked = 0, unmatched = 0, vegetationCells = 0, vegetationInstances = 0,
                      instanceCount = 0;
        try {
            for (const auto& p : parts) {
                for (const std::string& a : json::parse(p.at("assets")).get<std::vector<std::string>>()) {
                    assets.insert(a);
                }
                const json st = json::parse(p.at("statistics"));
                placed += st.at("buildingsPlaced").get<std::uint64_t>();
                blocked += st.at("buildingsBlocked").get<std::uint64_t>();
                unmatched += st.at("buildingsUnmatched").get<std::uint64_t>();
                vegetationCells += st.at("vegetationCellsRequested").get<std::uint64_t>();
                vegetationInstances += st.at("vegetationInstances").get<std::uint64_t>();
                for (const auto& [id, n] : st.at("instancesPerAsset").items()) {
                    perAsset[id] = perAsset.value(id, std::uint64_t{0}) + n.get<std::uint64_t>();
                }
                instanceCount += json::parse(p.at("instanceCount")).get<std::uint64_t>();
            }
        } catch (const std::exception& e) {
            return Error{std::string("manifest: ") + e.what()};
        }
        // The densities are sums in the bake's order: pass, then tile north to south, then class.
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
        double requestedTotal = 0.0;
        for (const Tally& t : tallies) requestedTotal += t.requested;
        const double cells = static_cast<double>(vegetationCells);

        merged["assets"] = json(std::vector<std::string>(assets.begin(), assets.end())).dump();
        json tiles = json::array();
        for (const TileId& t : mTiles) tiles.push_back(t.quadkey());
        merged["tiles"] = tiles.dump();
        merged["instanceCount"] = json(instanceCount).dump();
        merged["statistics"] = json{
            {"buildingsPlaced", placed},
            {"buildingsBlocked", blocked},
            {"buildingsUnmatched", unmatched},
            {"instancesPerAsset", perAsset},
            {"vegetationCellsRequested", vegetationCells},
            {"vegetationInstances", vegetationInstances},
            {"requestedDensity", cells > 0 ? requestedTotal / cells : 0.0},
            {"achievedDensity",
             cells > 0 ? static_cast<double>(vegetationInstances) / cells
                       : 0.0}}.dump();
        merged["buildings"] = merged["instances"] = "";  // streamed below, in key order

        // Instances go by tile in scene order (a tile's lines as its shard wrote them);
        // buildings by source feature id, then tile (SceneBaker's order).
        const auto instanceKey = [](const std::string& line) -> Result<std::uint64_t> {
            auto t = TileId::fromQuadkey(stringField(line, "tile"));
            if (!t) return Error{"manifest: an instance without a valid tile: " + line.substr(0, 80)};
            return rowMajorKey(*t);
        };
        using BuildingKey = std::pair<std::string, std::uint64_t>;
        const auto buildingKey = [](const std::string& line) -> Result<BuildingKey> {
            try {
                const json b = json::parse(line);
                auto t = TileId::fromQuadkey(b.at("tile").get<std::string>());
                if (!t) return Error{"manifest: a building without a valid tile: " + line.substr(0, 80)};
                return BuildingKey{b.at("source").is_string() ? b.at("source").get<std::string>() : "",
                                   rowMajorKey(*t)};
            } catch (const std::exception& e) {
                return Error{std::string("manifest: ") + e.what()};
            }
        };

        const fs::path destination = mOut / "manifest.json";
        auto output = OutputFile::create(destination);
        if (!output) return output.error();
        BufferedFile buffered(*output);
        BufferedFile* file = &buffered;
        std::size_t instances = 0, buildings = 0;
        Status w = file->write("{\n");
        bool first = true;
        for (const auto& [key, value] : merged) {
            if (w) w = file->write(first ? "  " : ",\n  ");
            first = false;
            if (w) w = file->write(json(key).dump() + ": ");
            if (!w) break;
            if (key == "instances" || key == "buildings") {
                std::vector<LineArrayReader> readers;
                for (const fs::path& f : files) readers.emplace_back(f, key);
                Result<std::size_t> n = key == "instances" ? mergeLines<std::uint64_t>(readers, instanceKey, *file)
                                                           : mergeLines<BuildingKey>(readers, buildingKey, *file);
                if (!n) return n.error();
                (key == "instances" ? instances : buildings) = *n;
            } else {
                w = file->write(value);
            }
        }
        if (w) w = file->write("\n}\n");
        if (w) w = file->flush();
        if (!w) return w;
        if (instances != instanceCount) {
            return Error{"manifest: the shards' instanceCount says " + std::to_string(instanceCount) + " but " +
                         std::to_string(instances) + " instances were merged"};
        }
        if (Status c = output->commit(); !c) return c;
        mReport << "  " << destination.string() << " (" << instances << " instances, " << buildings << " buildings)\n";
        return Status::success();
    }

    Status tiles3d() {
        std::vector<TilesetLeaf> leaves;
        GroundFrame frame;
        std::uint64_t seed = 0;
        std::optional<std::string> bake;  // origin, zoom and seed, which every shard must share
        std::size_t copied = 0;
        for (const Shard& s : mShards) {
            const std::string tilesetName = "3dtiles/tileset.json";
            if (!s.has(tilesetName)) continue;
            auto text = readText(s.folder / tilesetName);
            if (!text) return text.error();
            try {
                const json doc = json::parse(*text);
                const json& extras = doc.at("asset").at("extras").at("terrabit");
                const std::string same = json{
                    {"originLon", extras.at("originLon")},
                    {"originLat", extras.at("originLat")},
                    {"zoom", extras.at("zoom")},
                    {"seed",
                     extras.at("seed")}}.dump();
                if (bake && *bake != same) {
                    return Error{(s.folder / tilesetName).string() + ": a tileset of a different bake (" + same +
                                 " against " + *bake + ")"};
                }
                bake = same;
                frame.origin = {extras.at("originLon").get<double>(), extras.at("originLat").get<double>()};
                frame.zoom = extras.at("zoom").get<int>();
                seed = std::stoull(extras.at("seed").get<std::string>());
                std::vector<const json*> stack{&doc.at("root")};
                while (!stack.empty()) {
                    const json& node = *stack.back();
                    stack.pop_back();
                    if (node.contains("children")) {
                        for (const json& c : node.at("children")) stack.push_back(&c);
                    }
                    if (!node.contains("content")) continue;
                    const std::string uri = node.at("content").at("uri").get<std::string>();
                    const fs::path relative = fs::path(uri);
                    TilesetLeaf leaf;
                    leaf.quadkey = relative.stem().string();
                    leaf.region = node.at("boundingVolume").at("region").get<std::array<double, 6>>();
                    leaf.transform = node.at("transform").get<std::array<double, 16>>();
                    leaves.push_back(std::move(leaf));
                    if (Status c = transferFile(s.folder / "3dtiles" / relative, mOut / "3dtiles" / relative, mMove);
                        !c) {
                        return c;
                    }
                    ++copied;
                }
            } catch (const std::exception& e) {
                return Error{(s.folder / tilesetName).string() + ": " + e.what()};
            }
        }
        if (leaves.empty()) return Status::success();
        auto tileset = encodeTilesetLeaves(frame, seed, mTiles, std::move(leaves), "tiles");
        if (!tileset) return tileset.error();
        if (Status s = writeFileAtomically(mOut / "3dtiles" / "tileset.json", *tileset); !s) return s;
        mReport << "  " << (mOut / "3dtiles" / "tileset.json").string() << " (" << copied << " tile contents)\n";
        return Status::success();
    }

    Status layers() {
        std::size_t copied = 0;
        for (const Shard& s : mShards) {
            for (const std::string& f : s.record.files) {
                if (f.rfind("layers/", 0) != 0) continue;
                if (Status c = transferFile(s.folder / f, mOut / f, mMove); !c) return c;
                ++copied;
            }
        }
        if (copied > 0) mReport << "  " << (mOut / "layers").string() << "/ (" << copied << " files)\n";
        return Status::success();
    }

private:
    std::vector<Shard> mShards;
    std::vector<TileId> mTiles;  // every shard's tiles, in scene order
    fs::path mOut;
    bool mMove = false;
    std::ostream& mReport;
    std::vector<const Shard*> mManifestShards;
};

}  // namespace

int runMerge(const MergeCommand& command, std::ostream& out, std::ostream& err) {
    if (command.shards.empty()) {
        err << "error: merge: give the shards' output folders\n";
        return kExitBadArguments;
    }
    if (command.outDir.empty()) {
        err << "error: --out: give a folder for the merged scene\n";
        return kExitBadArguments;
    }
    std::vector<Shard> shards;
    bool failed = false;
    for (const fs::path& folder : command.shards) {
        auto record = readShardRecord(folder);
        if (!record) {
            err << "error: " << record.message() << '\n';
            failed = true;
            continue;
        }
        shards.push_back({folder, std::move(*record)});
    }
    if (failed) return kExitFailed;

    // One shard per index of one count: name what is missing, so just those can be rerun.
    const int count = shards.front().record.shard.count;
    std::vector<const Shard*> byIndex(static_cast<std::size_t>(count), nullptr);
    for (const Shard& s : shards) {
        if (s.record.shard.count != count) {
            err << "error: " << s.folder.string() << " is shard " << s.record.shard.text() << " but "
                << shards.front().folder.string() << " is shard " << shards.front().record.shard.text()
                << ": shards of different cuts\n";
            return kExitFailed;
        }
        const Shard*& slot = byIndex[static_cast<std::size_t>(s.record.shard.index)];
        if (slot) {
            err << "error: " << slot->folder.string() << " and " << s.folder.string() << " are both shard "
                << s.record.shard.text() << '\n';
            return kExitFailed;
        }
        slot = &s;
    }
    for (int k = 0; k < count && !command.subset; ++k) {
        if (!byIndex[static_cast<std::size_t>(k)]) {
            const std::string spec = ShardSpec{k, count}.text();
            err << "error: shard " << spec << " is missing: bake it alone with --shard " << spec
                << " and merge again\n";
            failed = true;
        }
    }
    if (failed) return kExitFailed;

    std::vector<TileId> tiles;
    for (const Shard& s : shards) tiles.insert(tiles.end(), s.record.tiles.begin(), s.record.tiles.end());
    std::sort(tiles.begin(), tiles.end(),
              [](const TileId& a, const TileId& b) { return rowMajorKey(a) < rowMajorKey(b); });
    if (std::adjacent_find(tiles.begin(), tiles.end()) != tiles.end()) {
        err << "error: two shards baked the same tile: shards of different bakes\n";
        return kExitFailed;
    }
    if (tiles.empty()) {
        err << "error: the shards hold no tiles\n";
        return kExitFailed;
    }
    // Shards with tiles must have written the same formats, or the merge would lose tiles.
    for (const char* file : {"manifest.json", "3dtiles/tileset.json"}) {
        const Shard* with = nullptr;
        const Shard* without = nullptr;
        for (const Shard& s : shards) {
            if (s.record.tiles.empty()) continue;
            (s.has(file) ? with : without) = &s;
        }
        if (with && without) {
            err << "error: " << with->folder.string() << " has " << file << " but " << without->folder.string()
                << " has not: shards baked with different --format\n";
            return kExitFailed;
        }
    }
    for (const Shard& s : shards) {
        for (const std::string& f : s.record.files) {
            if (f == "scene.glb" || f == "collision.tbcg") {
                err << "warning: " << (s.folder / f).string()
                    << " covers the shard's tiles only and cannot be joined; bake it on one machine\n";
            }
        }
    }

    std::error_code ec;
    fs::create_directories(command.outDir, ec);
    if (ec) {
        err << "error: " << command.outDir.string() << ": " << ec.message() << '\n';
        return kExitFailed;
    }
    out << "merging " << count << " shards, " << tiles.size() << " tiles, into " << command.outDir.string() << ":\n";
    Merger merger(shards, tiles, command.outDir, command.moveParts, out);
    Status s = merger.tiles3d();
    if (s) s = merger.manifest();
    if (s) s = merger.layers();
    if (!s) {
        err << "error: " << s.message() << '\n';
        return kExitFailed;
    }
    return kExitOk;
}

namespace {

Status mergeQuietly(const std::vector<fs::path>& parts, const fs::path& outDir, bool subset) {
    MergeCommand command;
    command.shards = parts;
    command.outDir = outDir;
    command.moveParts = true;
    command.subset = subset;
    std::ostringstream out, err;
    if (runMerge(command, out, err) != kExitOk) {
        std::string message = err.str();
        while (!message.empty() && message.back() == '\n') message.pop_back();
        return Error{"joining the batches: " + message};
    }
    return Status::success();
}

}  // namespace

Status mergeParts(const std::vector<fs::path>& parts, const fs::path& outDir, std::size_t maxOpen) {
    maxOpen = std::max<std::size_t>(maxOpen, 2);
    if (parts.size() <= maxOpen) return mergeQuietly(parts, outDir, false);
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
        std::sort(group.tiles.begin(), group.tiles.end(),
                  [](const TileId& a, const TileId& b) { return rowMajorKey(a) < rowMajorKey(b); });
        group.files.assign(files.begin(), files.end());
        groups.push_back(round / std::to_string(g));
        if (Status s = mergeQuietly(members, groups.back(), true); !s) return s;
        if (Status s = writeShardRecord(groups.back(), group); !s) return s;
    }
    Status s = mergeParts(groups, outDir, maxOpen);
    fs::remove_all(round, ec);
    return s;
}

}  // namespace terrabit::core::scale
