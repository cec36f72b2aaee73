#include "terrabit/core/scale/shard_record.h"
#include "terrabit/core/json_number.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

namespace terrabit::core::scale {

namespace {

using nlohmann::json;

constexpr std::string_view kFormat = "terrabit-shard";
constexpr int kVersion = 1;

/// A file a shard wrote, as its record names it: a path inside the shard's folder, its parts
/// separated by single slashes, none of them empty, "." or "..". merge reads the file from the
/// shard's folder and writes it at the same path in its output, so anything else (an absolute
/// path, a way up) would have it read and write outside both.
bool isPathInsideFolder(std::string_view path) {
    if (path.empty()) return false;
    for (std::size_t from = 0; from <= path.size();) {
        const std::size_t slash = std::min(path.find('/', from), path.size());
        const std::string_view part = path.substr(from, slash - from);
        if (part.empty() || part == "." || part == ".." || part.find('\0') != std::string_view::npos) return false;
        from = slash + 1;
    }
    return true;
}

}  // namespace

std::string encodeShardRecord(const ShardRecord& record) {
    json tiles = json::array();
    for (const TileId& t : record.tiles) tiles.push_back(t.quadkey());
    // Doubles are written as the shortest decimal that reads back to the same value (nlohmann),
    // so the merge sums exactly the numbers the shard summed.
    json tallies = json::array();
    for (const VegetationTileTally& v : record.tallies) {
        tallies.push_back(json::array({v.tile.quadkey(), v.pass, v.zoneCells, v.instances, v.requestedInstances}));
    }
    const json doc{{"format", kFormat},
                   {"version", kVersion},
                   {"shard", {{"index", record.shard.index}, {"count", record.shard.count}}},
                   {"tiles", tiles},
                   {"prefixes", record.prefixes},
                   {"weight", record.weight},
                   {"bakedTiles", record.bakedTiles},
                   {"vegetationTallies", tallies},
                   {"files", record.files},
                   {"milliseconds", record.milliseconds}};
    return doc.dump(1) + "\n";
}

Result<ShardRecord> decodeShardRecord(std::string_view text, std::string_view where) {
    const std::string at(where);
    try {
        const json doc = json::parse(text);
        if (doc.value("format", std::string()) != kFormat) return Error{at + ": not a Terrabit shard record"};
        if (!doc.contains("version") || !doc["version"].is_number_integer() ||
            doc["version"].get<std::int64_t>() != kVersion) {
            return Error{at + ": shard record version " + doc.value("version", json()).dump() + " is not " +
                         std::to_string(kVersion)};
        }
        ShardRecord r;
        r.shard.index = wholeNumber<int>(doc.at("shard").at("index"), "the shard's index");
        r.shard.count = wholeNumber<int>(doc.at("shard").at("count"), "the shard count");
        if (r.shard.count < 1 || r.shard.index < 0 || r.shard.index >= r.shard.count) {
            return Error{at + ": shard " + r.shard.text() + " is not a valid K/N"};
        }
        for (const json& q : doc.at("tiles")) {
            auto t = TileId::fromQuadkey(q.get<std::string>());
            if (!t) return Error{at + ": " + t.message()};
            r.tiles.push_back(*t);
        }
        r.prefixes = doc.at("prefixes").get<std::vector<std::string>>();
        r.weight = wholeNumber<std::uint64_t>(doc.at("weight"), "the weight");
        r.bakedTiles = wholeNumber<std::size_t>(doc.at("bakedTiles"), "the baked tiles");
        for (const json& v : doc.at("vegetationTallies")) {
            auto t = TileId::fromQuadkey(v.at(0).get<std::string>());
            if (!t) return Error{at + ": " + t.message()};
            r.tallies.push_back({*t, wholeNumber<std::uint32_t>(v.at(1), "a tally's pass"),
                                 wholeNumber<std::size_t>(v.at(2), "a tally's cells"),
                                 wholeNumber<std::size_t>(v.at(3), "a tally's plants"), v.at(4).get<double>()});
        }
        r.files = doc.at("files").get<std::vector<std::string>>();
        for (const std::string& f : r.files) {
            if (!isPathInsideFolder(f)) {
                return Error{at + ": file " + json(f).dump() +
                             " is not a path inside the shard's folder (a shard names only files it wrote there)"};
            }
        }
        r.milliseconds = doc.at("milliseconds").get<double>();
        return r;
    } catch (const std::exception& e) {
        return Error{at + ": " + e.what()};
    }
}

ShardRecord makeShardRecord(const ShardSpec& spec, const ShardWork& work) {
    ShardRecord r;
    r.shard = spec;
    r.tiles = work.own;
    r.prefixes = work.prefixes;
    r.weight = work.weight;
    r.bakedTiles = work.baked.size();
    return r;
}

Status removeShardRecord(const std::filesystem::path& folder) {
    std::error_code ec;
    std::filesystem::remove(folder / kShardRecordFile, ec);
    if (ec) return Error{(folder / kShardRecordFile).string() + ": " + ec.message()};
    return Status::success();
}

Status writeShardRecord(const std::filesystem::path& folder, const ShardRecord& record) {
    std::error_code created;
    std::filesystem::create_directories(folder, created);
    if (created) return Error{folder.string() + ": " + created.message()};
    const std::filesystem::path file = folder / kShardRecordFile;
    const std::filesystem::path temporary = folder / (std::string(".") + std::string(kShardRecordFile) + ".tmp");
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << encodeShardRecord(record);
        out.flush();
        if (!out) return Error{temporary.string() + ": cannot write the shard record"};
    }
    std::error_code ec;
    std::filesystem::rename(temporary, file, ec);
    if (ec) return Error{file.string() + ": " + ec.message()};
    return Status::success();
}

Result<ShardRecord> readShardRecord(const std::filesystem::path& folder) {
    const std::filesystem::path file = folder / kShardRecordFile;
    std::error_code ec;
    if (!std::filesystem::exists(folder, ec)) return Error{folder.string() + ": no such shard folder"};
    if (!std::filesystem::is_directory(folder, ec)) {
        return Error{folder.string() +
                     " is a file, not a shard's output folder (merge takes the folders bake --shard wrote)"};
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        return Error{file.string() + " is missing: that shard failed or has not finished (rerun it alone)"};
    }
    std::ostringstream text;
    text << in.rdbuf();
    return decodeShardRecord(text.str(), file.string());
}

}  // namespace terrabit::core::scale
