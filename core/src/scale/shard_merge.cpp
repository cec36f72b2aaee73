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

Status copyFile(const fs::path& from, const fs::path& to) {
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

/// The top-level entries of a manifest as encodeManifest lays it out: `"key": text` per entry,
/// the arrays "instances" and "buildings" one element per line.
class ManifestParts {
public:
    static Result<ManifestParts> parse(const std::string& text, const std::string& where) {
        ManifestParts m;
        if (text.rfind("{\n", 0) != 0 || text.size() < 5 || text.compare(text.size() - 3, 3, "\n}\n") != 0) {
            return Error{where + ": not a Terrabit manifest"};
        }
        const std::string_view body = std::string_view(text).substr(2, text.size() - 5);
        // JSON strings escape newlines, so ",\n  \"" only ever separates top-level entries.
        std::size_t from = 0;
        while (from < body.size()) {
            std::size_t to = body.find(",\n  \"", from);
            if (to == std::string_view::npos) to = body.size();
            const std::string_view entry = body.substr(from, to - from);
            const std::size_t colon = entry.find("\": ");
            if (entry.size() < 4 || entry.substr(0, 3) != "  \"" || colon == std::string_view::npos) {
                return Error{where + ": unexpected manifest layout near byte " + std::to_string(from + 2)};
            }
            m.mParts[std::string(entry.substr(3, colon - 3))] = std::string(entry.substr(colon + 3));
            from = to + 2;
        }
        return m;
    }

    const std::string* find(const std::string& key) const {
        const auto it = mParts.find(key);
        return it == mParts.end() ? nullptr : &it->second;
    }

    /// The elements of a one-per-line array.
    std::vector<std::string_view> lines(const std::string& key) const {
        std::vector<std::string_view> out;
        const std::string* text = find(key);
        if (!text || *text == "[]" || text->size() < 11) return out;
        std::string_view body = std::string_view(*text).substr(6, text->size() - 6 - 4);  // "[\n    " … "\n  ]"
        std::size_t from = 0;
        while (from <= body.size()) {
            std::size_t to = body.find(",\n    ", from);
            if (to == std::string_view::npos) to = body.size();
            out.push_back(body.substr(from, to - from));
            from = to + 6;
        }
        return out;
    }

private:
    std::map<std::string, std::string> mParts;
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

std::string lineArray(const std::vector<std::string_view>& elements) {
    if (elements.empty()) return "[]";
    std::size_t size = 8;
    for (std::string_view e : elements) size += e.size() + 6;
    std::string out;
    out.reserve(size);
    out += '[';
    for (std::size_t i = 0; i < elements.size(); ++i) {
        out += i == 0 ? "\n    " : ",\n    ";
        out += elements[i];
    }
    return out + "\n  ]";
}

class Merger {
public:
    Merger(std::vector<Shard> shards, std::vector<TileId> tiles, fs::path outDir, std::ostream& out)
        : mShards(std::move(shards)), mTiles(std::move(tiles)), mOut(std::move(outDir)), mReport(out) {}

    Status manifest() {
        std::vector<ManifestParts> parts;
        const Shard* first = nullptr;
        for (const Shard& s : mShards) {
            if (!s.has("manifest.json")) continue;
            auto text = readText(s.folder / "manifest.json");
            if (!text) return text.error();
            auto p = ManifestParts::parse(*text, (s.folder / "manifest.json").string());
            if (!p) return p.error();
            parts.push_back(std::move(*p));
            mManifestShards.push_back(&s);
            if (!first) first = &s;
        }
        if (parts.empty()) return Status::success();
        // Everything but the per-tile content must be the same bake.
        for (const char* key : {"format", "version", "seed", "rulesSha256", "frame"}) {
            const std::string* a = parts.front().find(key);
            if (!a) return Error{(first->folder / "manifest.json").string() + ": no \"" + key + "\""};
            for (std::size_t i = 1; i < parts.size(); ++i) {
                const std::string* b = parts[i].find(key);
                if (!b || *b != *a) {
                    return Error{"shards " + first->folder.string() + " and " + mManifestShards[i]->folder.string() +
                                 " come from different bakes (their manifests differ in \"" + key + "\")"};
                }
            }
        }
        std::map<std::string, std::string> merged;
        for (const char* key : {"format", "version", "seed", "rulesSha256", "frame"}) merged[key] = *parts[0].find(key);

        std::set<std::string> assets;
        json perAsset = json::object();
        std::uint64_t placed = 0, blocked = 0, unmatched = 0, vegetationCells = 0, vegetationInstances = 0,
                      instanceCount = 0;
        try {
            for (const ManifestParts& p : parts) {
                for (const std::string& a : json::parse(*p.find("assets")).get<std::vector<std::string>>()) {
                    assets.insert(a);
                }
                const json st = json::parse(*p.find("statistics"));
                placed += st.at("buildingsPlaced").get<std::uint64_t>();
                blocked += st.at("buildingsBlocked").get<std::uint64_t>();
                unmatched += st.at("buildingsUnmatched").get<std::uint64_t>();
                vegetationCells += st.at("vegetationCellsRequested").get<std::uint64_t>();
                vegetationInstances += st.at("vegetationInstances").get<std::uint64_t>();
                for (const auto& [id, n] : st.at("instancesPerAsset").items()) {
                    perAsset[id] = perAsset.value(id, std::uint64_t{0}) + n.get<std::uint64_t>();
                }
                instanceCount += json::parse(*p.find("instanceCount")).get<std::uint64_t>();
            }
        } catch (const std::exception& e) {
            return Error{std::string("manifest: ") + e.what()};
        }
        // The densities are sums in the bake's order: pass, then tile north to south, then class.
        struct Tally {
            std::uint32_t pass;
            std::uint64_t tile;
            std::size_t shard, at;
            double requested;
        };
        std::vector<Tally> tallies;
        for (std::size_t s = 0; s < mManifestShards.size(); ++s) {
            const auto& list = mManifestShards[s]->record.tallies;
            for (std::size_t i = 0; i < list.size(); ++i) {
                tallies.push_back({list[i].pass, rowMajorKey(list[i].tile), s, i, list[i].requestedInstances});
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

        // Instances: by tile in scene order; a tile's lines stay as its shard wrote them.
        struct Line {
            std::uint64_t key;
            std::string_view text;
        };
        std::vector<Line> instances;
        for (const ManifestParts& p : parts) {
            // Hot: a line per instance, millions for a region; a tile's lines come together.
            std::string_view lastTile;
            std::uint64_t lastKey = 0;
            for (std::string_view l : p.lines("instances")) {
                const std::string_view quadkey = stringField(l, "tile");
                if (quadkey.empty() || quadkey != lastTile) {
                    auto t = TileId::fromQuadkey(quadkey);
                    if (!t) return Error{"manifest: an instance without a valid tile: " + std::string(l.substr(0, 80))};
                    lastTile = quadkey;
                    lastKey = rowMajorKey(*t);
                }
                instances.push_back({lastKey, l});
            }
        }
        std::stable_sort(instances.begin(), instances.end(),
                         [](const Line& a, const Line& b) { return a.key < b.key; });
        std::vector<std::string_view> instanceLines;
        for (const Line& l : instances) instanceLines.push_back(l.text);
        merged["instances"] = lineArray(instanceLines);

        // Buildings: by source feature id, then tile (SceneBaker's order).
        struct Building {
            std::string source;
            std::uint64_t tile;
            std::string_view text;
        };
        std::vector<Building> buildings;
        try {
            for (const ManifestParts& p : parts) {
                for (std::string_view l : p.lines("buildings")) {
                    const json b = json::parse(l);
                    auto t = TileId::fromQuadkey(b.at("tile").get<std::string>());
                    if (!t) return Error{"manifest: a building without a valid tile"};
                    buildings.push_back(
                        {b.at("source").is_string() ? b.at("source").get<std::string>() : "", rowMajorKey(*t), l});
                }
            }
        } catch (const std::exception& e) {
            return Error{std::string("manifest: ") + e.what()};
        }
        std::stable_sort(buildings.begin(), buildings.end(), [](const Building& a, const Building& b) {
            return std::tie(a.source, a.tile) < std::tie(b.source, b.tile);
        });
        std::vector<std::string_view> buildingLines;
        for (const Building& b : buildings) buildingLines.push_back(b.text);
        merged["buildings"] = lineArray(buildingLines);

        std::size_t size = 8;
        for (const auto& [key, value] : merged) size += key.size() + value.size() + 8;
        std::string text;
        text.reserve(size);
        text += "{\n";
        bool firstEntry = true;
        for (const auto& [key, value] : merged) {
            if (!firstEntry) text += ",\n";
            firstEntry = false;
            text += "  ";
            text += json(key).dump();
            text += ": ";
            text += value;
        }
        text += "\n}\n";
        if (Status s = writeFileAtomically(mOut / "manifest.json", text); !s) return s;
        mReport << "  " << (mOut / "manifest.json").string() << " (" << instances.size() << " instances, "
                << buildings.size() << " buildings, " << text.size() << " bytes)\n";
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
                    if (Status c = copyFile(s.folder / "3dtiles" / relative, mOut / "3dtiles" / relative); !c) return c;
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
                if (Status c = copyFile(s.folder / f, mOut / f); !c) return c;
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
    for (int k = 0; k < count; ++k) {
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
    Merger merger(shards, tiles, command.outDir, out);
    Status s = merger.tiles3d();
    if (s) s = merger.manifest();
    if (s) s = merger.layers();
    if (!s) {
        err << "error: " << s.message() << '\n';
        return kExitFailed;
    }
    return kExitOk;
}

}  // namespace terrabit::core::scale
