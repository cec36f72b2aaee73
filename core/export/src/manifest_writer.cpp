#include "terrabit/core/export/manifest_writer.h"
#include "manifest_writer_p.h"
#include "terrabit/core/json_number.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/instance_file.h"
#include "terrabit/core/export/sha256.h"

namespace terrabit::core {

namespace {

using nlohmann::json;

/// The shortest decimal that reads back as the same float (std::to_chars guarantees it and is
/// locale- and platform-independent, so the bytes are stable). -0 is written as 0.
void appendFloat(std::string& out, float v) {
    if (v == 0.0f) v = 0.0f;
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

/// A float as the JSON number with the same shortest decimal (nlohmann would print the double
/// nearest the float, with nine more digits of noise).
json floatJson(float v) {
    std::string s;
    appendFloat(s, v);
    return json::parse(s);
}

/// Hands text to a sink in pieces of about kPiece bytes: a region's manifest is hundreds of
/// megabytes, written as it is made rather than held.
class PieceWriter {
public:
    explicit PieceWriter(const ManifestSink& sink) : mSink(sink) { mText.reserve(kPiece + 4096); }
    std::string& text() { return mText; }
    /// Passes the text on once a piece is full; after a failure every call fails.
    Status flush(bool force = false) {
        if (!mStatus || (!force && mText.size() < kPiece) || mText.empty()) return mStatus;
        mStatus = mSink(mText);
        mText.clear();
        return mStatus;
    }

private:
    static constexpr std::size_t kPiece = std::size_t{1} << 20;
    const ManifestSink& mSink;
    std::string mText;
    Status mStatus = Status::success();
};

/// Opens "[", adds elements one per line, closes "]".
class LineArray {
public:
    explicit LineArray(PieceWriter& w) : mWriter(w) {}
    Status add(std::string_view element) {
        mWriter.text() += mCount++ == 0 ? "[\n    " : ",\n    ";
        mWriter.text() += element;
        return mWriter.flush();
    }
    void finish() { mWriter.text() += mCount == 0 ? "[]" : "\n  ]"; }

private:
    PieceWriter& mWriter;
    std::size_t mCount = 0;
};

/// Hot for big scenes (a line per tree): formatted by hand, keys in sorted order.
Status writeInstances(const Scene& scene, PieceWriter& w) {
    // JSON-escaped names, computed once: ids repeat on every instance line.
    std::vector<std::string> assetJson, sourceJson;
    for (const std::string& a : scene.assets) assetJson.push_back(json(a).dump());
    for (const std::string& s : scene.sources) sourceJson.push_back(json(s).dump());
    const auto sourceText = [&](std::uint32_t s) -> const std::string& {
        static const std::string kNull = "null";
        return s == Instance::kNoSource ? kNull : sourceJson[s];
    };
    LineArray out(w);
    std::string line;
    for (const InstanceBlock& b : scene.blocks) {
        const std::string qk = json(b.tile.quadkey()).dump();
        const std::string head = instanceLineHead(assetJson[static_cast<std::size_t>(b.asset)], b.blockX, b.blockY);
        for (const Instance& i : b.instances) {
            line.assign(head);
            appendInstanceLineTail(line, sourceText(i.source), qk, transformMatrix(i));
            if (Status s = out.add(line); !s) return s;
        }
    }
    out.finish();
    return Status::success();
}

/// The source table of instances.bin: the source ids the instances name, sorted and each once,
/// and where each of Scene::sources stands in it (kInstanceNoSource when no instance names it).
struct InstanceSources {
    std::vector<std::string> ids;
    std::vector<std::uint32_t> place;  ///< by Scene::sources index
};

InstanceSources instanceSources(const Scene& scene) {
    std::vector<bool> named(scene.sources.size(), false);
    for (const InstanceBlock& b : scene.blocks) {
        for (const Instance& i : b.instances) {
            if (i.source != Instance::kNoSource) named[i.source] = true;
        }
    }
    std::vector<std::uint32_t> order;
    for (std::uint32_t s = 0; s < named.size(); ++s) {
        if (named[s]) order.push_back(s);
    }
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return scene.sources[a] < scene.sources[b]; });
    InstanceSources out;
    out.place.assign(scene.sources.size(), kInstanceNoSource);
    for (const std::uint32_t s : order) {
        if (out.ids.empty() || out.ids.back() != scene.sources[s]) out.ids.push_back(scene.sources[s]);
        out.place[s] = static_cast<std::uint32_t>(out.ids.size() - 1);
    }
    return out;
}

/// The blocks instances.bin holds: those with instances.
std::uint32_t instanceFileBlocks(const Scene& scene) {
    return static_cast<std::uint32_t>(std::count_if(scene.blocks.begin(), scene.blocks.end(),
                                                    [](const InstanceBlock& b) { return !b.instances.empty(); }));
}

/// Hot for big scenes (a record per tree): instances.bin, a block at a time.
Status writeInstanceFile(const Scene& scene, const InstanceSources& sources, const ManifestSink& sink) {
    PieceWriter w(sink);
    w.text() += InstanceFileHeader{scene.instanceCount(), instanceFileBlocks(scene)}.encode();
    for (const InstanceBlock& b : scene.blocks) {
        for (const Instance& i : b.instances) {
            appendInstanceRecord(w.text(), transformMatrix(i),
                                 i.source == Instance::kNoSource ? kInstanceNoSource : sources.place[i.source]);
            if (Status s = w.flush(); !s) return s;
        }
    }
    return w.flush(true);
}

/// instances.bin's index: a line per block with instances, in the file's order.
Status writeInstanceBlocks(const Scene& scene, PieceWriter& w) {
    LineArray out(w);
    std::uint64_t offset = kInstanceHeaderBytes;
    for (const InstanceBlock& b : scene.blocks) {
        if (b.instances.empty()) continue;
        const InstanceBlockEntry entry{
            scene.assets[static_cast<std::size_t>(b.asset)], b.tile, b.blockX, b.blockY, offset, b.instances.size()};
        offset += entry.count * kInstanceRecordBytes;
        if (Status s = out.add(entry.encode()); !s) return s;
    }
    out.finish();
    return Status::success();
}

Status writeInstanceSources(const InstanceSources& sources, PieceWriter& w) {
    LineArray out(w);
    for (const std::string& id : sources.ids) {
        if (Status s = out.add(json(id).dump()); !s) return s;
    }
    out.finish();
    return Status::success();
}

Status writeBuildings(const Scene& scene, PieceWriter& w) {
    // Each generated building by its (tile, source): Scene::generated is sorted so.
    const auto generatedOf = [&](const BuildingRecord& b) -> const GeneratedBuilding* {
        const auto it = std::lower_bound(scene.generated.begin(), scene.generated.end(), b,
                                         [](const GeneratedBuilding& g, const BuildingRecord& r) {
                                             if (g.tile != r.tile) return northToSouth(g.tile, r.tile);
                                             return g.source < r.source;
                                         });
        return it != scene.generated.end() && it->tile == b.tile && it->source == b.source ? &*it : nullptr;
    };
    LineArray out(w);
    for (const BuildingRecord& b : scene.buildings) {
        json transform = nullptr;
        if (b.outcome == BuildingOutcome::Placed) {
            transform = json::array();
            for (float v : transformMatrix(b.placement)) transform.push_back(floatJson(v));
        }
        json record{{"asset", b.asset >= 0 ? json(scene.assets[static_cast<std::size_t>(b.asset)]) : json(nullptr)},
                    {"outcome", outcomeText(b, scene.sources, scene.layerNames)},
                    {"source", b.source == Instance::kNoSource ? json(nullptr) : json(scene.sources[b.source])},
                    {"target",
                     {{"centre", {b.target.centre.x, b.target.centre.y}},
                      {"halfExtents", {b.target.halfExtents.x, b.target.halfExtents.y}},
                      {"angle", b.target.angle}}},
                    {"tile", b.tile.quadkey()},
                    {"transform", transform}};
        if (scene.terrain && b.hasGround()) {
            record["ground"] = json::array({floatJson(b.groundMin), floatJson(b.groundMax)});
        }
        if (!b.parts.empty()) {
            json parts = json::array();
            for (const BuildingPart& p : b.parts) {
                json t = json::array();
                for (float v : transformMatrix(p.placement)) t.push_back(floatJson(v));
                const bool known = p.asset >= 0 && static_cast<std::size_t>(p.asset) < scene.assets.size();
                parts.push_back(
                    {{"asset", known ? json(scene.assets[static_cast<std::size_t>(p.asset)]) : json(nullptr)},
                     {"transform", t}});
            }
            record["parts"] = std::move(parts);
        }
        if (b.outcome == BuildingOutcome::Generated) {
            if (const GeneratedBuilding* g = generatedOf(b)) {
                json outline = json::array();
                for (const Vec2 p : g->outline) outline.push_back({p.x, p.y});
                record["generated"] = {{"base", floatJson(g->base)},
                                       {"outline", std::move(outline)},
                                       {"roofHeight", floatJson(g->roofHeight)},
                                       {"roofShape", g->roofShape},
                                       {"wallHeight", floatJson(g->wallHeight)}};
                if (!g->courtyards.empty()) {
                    json yards = json::array();
                    for (const std::vector<Vec2>& yard : g->courtyards) {
                        json ring = json::array();
                        for (const Vec2 p : yard) ring.push_back({p.x, p.y});
                        yards.push_back(std::move(ring));
                    }
                    record["generated"]["courtyards"] = std::move(yards);
                }
            }
        }
        if (Status s = out.add(record.dump()); !s) return s;
    }
    out.finish();
    return Status::success();
}

}  // namespace

ManifestStatistics ManifestStatistics::of(const Scene& scene) {
    const SceneStatistics& st = scene.statistics;
    ManifestStatistics out;
    out.buildingsPlaced = st.buildingsPlaced;
    out.buildingsBlocked = st.buildingsBlocked;
    out.buildingsUnmatched = st.buildingsUnmatched;
    out.buildingsGenerated = st.buildingsGenerated;
    out.footprintCells = st.footprintCells;
    out.footprintCellsCovered = st.footprintCellsCovered;
    out.placedCells = st.placedCells;
    out.placedCellsOutside = st.placedCellsOutside;
    for (std::size_t a = 0; a < scene.assets.size(); ++a) {
        out.instancesPerAsset[scene.assets[a]] = a < st.instancesPerAsset.size() ? st.instancesPerAsset[a] : 0;
    }
    out.vegetationCellsRequested = st.vegetationCellsRequested;
    out.vegetationInstances = st.vegetationInstances;
    out.requestedDensity = st.requestedDensity;
    out.achievedDensity = st.achievedDensity;
    out.terrain = scene.terrain;
    if (scene.terrain) {
        out.buildingsBlockedBySlope = st.buildingsBlockedBySlope;
        out.minHeight = st.minHeight;
        out.maxHeight = st.maxHeight;
        out.cellsWithHeight = st.cellsWithHeight;
        out.steepCells = st.steepCells;
        out.heightsFilledFromCoarser = st.heightsFilledFromCoarser;
        out.heightsInpainted = st.heightsInpainted;
        out.heightsAbsurd = st.heightsAbsurd;
    }
    return out;
}

Result<ManifestStatistics> ManifestStatistics::parse(std::string_view text) {
    try {
        const nlohmann::json st = nlohmann::json::parse(text);
        ManifestStatistics out;
        out.buildingsPlaced = wholeNumber<std::uint64_t>(st.at("buildingsPlaced"), "buildingsPlaced");
        out.buildingsBlocked = wholeNumber<std::uint64_t>(st.at("buildingsBlocked"), "buildingsBlocked");
        out.buildingsUnmatched = wholeNumber<std::uint64_t>(st.at("buildingsUnmatched"), "buildingsUnmatched");
        // The building fill's counts, 0 in a manifest written before them.
        const auto count = [&](const char* key) {
            return st.contains(key) ? wholeNumber<std::uint64_t>(st.at(key), key) : std::uint64_t{0};
        };
        out.buildingsGenerated = count("buildingsGenerated");
        out.footprintCells = count("footprintCells");
        out.footprintCellsCovered = count("footprintCellsCovered");
        out.placedCells = count("placedCells");
        out.placedCellsOutside = count("placedCellsOutside");
        out.vegetationCellsRequested =
            wholeNumber<std::uint64_t>(st.at("vegetationCellsRequested"), "vegetationCellsRequested");
        out.vegetationInstances = wholeNumber<std::uint64_t>(st.at("vegetationInstances"), "vegetationInstances");
        for (const auto& [id, n] : st.at("instancesPerAsset").items()) {
            out.instancesPerAsset[id] = wholeNumber<std::uint64_t>(n, id);
        }
        if (st.contains("buildingsBlockedBySlope")) {
            out.terrain = true;
            out.buildingsBlockedBySlope =
                wholeNumber<std::uint64_t>(st.at("buildingsBlockedBySlope"), "buildingsBlockedBySlope");
            const auto height = [](const nlohmann::json& v) {
                return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
            };
            out.minHeight = height(st.at("minHeight"));
            out.maxHeight = height(st.at("maxHeight"));
            out.cellsWithHeight = wholeNumber<std::uint64_t>(st.at("cellsWithHeight"), "cellsWithHeight");
            out.steepCells = wholeNumber<std::uint64_t>(st.at("steepCells"), "steepCells");
            out.heightsFilledFromCoarser = count("heightsFilledFromCoarser");
            out.heightsInpainted = count("heightsInpainted");
            out.heightsAbsurd = count("heightsAbsurd");
        }
        return out;
    } catch (const std::exception& e) {
        return Error{std::string("manifest: ") + e.what()};
    }
}

void ManifestStatistics::add(const ManifestStatistics& other) {
    buildingsPlaced += other.buildingsPlaced;
    buildingsBlocked += other.buildingsBlocked;
    buildingsUnmatched += other.buildingsUnmatched;
    buildingsGenerated += other.buildingsGenerated;
    footprintCells += other.footprintCells;
    footprintCellsCovered += other.footprintCellsCovered;
    placedCells += other.placedCells;
    placedCellsOutside += other.placedCellsOutside;
    for (const auto& [id, n] : other.instancesPerAsset) instancesPerAsset[id] += n;
    vegetationCellsRequested += other.vegetationCellsRequested;
    vegetationInstances += other.vegetationInstances;
    terrain = terrain || other.terrain;
    buildingsBlockedBySlope += other.buildingsBlockedBySlope;
    // NaN is "no height": the other side wins (fmin/fmax ignore one NaN).
    minHeight = std::fmin(minHeight, other.minHeight);
    maxHeight = std::fmax(maxHeight, other.maxHeight);
    cellsWithHeight += other.cellsWithHeight;
    steepCells += other.steepCells;
    heightsFilledFromCoarser += other.heightsFilledFromCoarser;
    heightsInpainted += other.heightsInpainted;
    heightsAbsurd += other.heightsAbsurd;
}

std::string ManifestStatistics::encode() const {
    // A share of two counts, null when the whole is 0 (the shares are derived from the counts, so
    // merged shards agree with one bake).
    const auto share = [](std::uint64_t part, std::uint64_t whole) {
        return whole > 0 ? nlohmann::json(static_cast<double>(part) / static_cast<double>(whole))
                         : nlohmann::json(nullptr);
    };
    nlohmann::json perAsset = nlohmann::json::object();
    for (const auto& [id, n] : instancesPerAsset) perAsset[id] = n;
    nlohmann::json doc{{"buildingsPlaced", buildingsPlaced},
                       {"buildingsBlocked", buildingsBlocked},
                       {"buildingsUnmatched", buildingsUnmatched},
                       {"buildingsGenerated", buildingsGenerated},
                       {"footprintCells", footprintCells},
                       {"footprintCellsCovered", footprintCellsCovered},
                       {"footprintCoverage", share(footprintCellsCovered, footprintCells)},
                       {"placedCells", placedCells},
                       {"placedCellsOutside", placedCellsOutside},
                       {"placedOutsideShare", share(placedCellsOutside, placedCells)},
                       {"instancesPerAsset", perAsset},
                       {"vegetationCellsRequested", vegetationCellsRequested},
                       {"vegetationInstances", vegetationInstances},
                       {"requestedDensity", requestedDensity},
                       {"achievedDensity", achievedDensity}};
    if (terrain) {
        const auto height = [](double v) { return v == v ? nlohmann::json(v) : nlohmann::json(nullptr); };
        doc["buildingsBlockedBySlope"] = buildingsBlockedBySlope;
        doc["minHeight"] = height(minHeight);
        doc["maxHeight"] = height(maxHeight);
        doc["cellsWithHeight"] = cellsWithHeight;
        doc["steepCells"] = steepCells;
        doc["heightsFilledFromCoarser"] = heightsFilledFromCoarser;
        doc["heightsInpainted"] = heightsInpainted;
        doc["heightsAbsurd"] = heightsAbsurd;
        doc["steepShare"] = cellsWithHeight > 0
                                ? nlohmann::json(static_cast<double>(steepCells) / static_cast<double>(cellsWithHeight))
                                : nlohmann::json(nullptr);
    }
    return doc.dump();
}

std::string manifestAssets(std::span<const std::string> assets) {
    return json(std::vector<std::string>(assets.begin(), assets.end())).dump();
}

std::string manifestTiles(std::span<const TileId> tiles) {
    json out = json::array();
    for (const TileId& t : tiles) out.push_back(t.quadkey());
    return out.dump();
}

namespace {

/// The entries of a scene's manifest (see the shape in manifest_writer.h).
ManifestEntries manifestEntries(const Scene& scene, std::string_view rulesDocument) {
    ManifestEntries doc;
    doc["assets"] = manifestAssets(scene.assets);
    doc["tiles"] = manifestTiles(scene.tiles);
    doc["format"] = json("terrabit-manifest").dump();
    doc["version"] = json(kManifestVersion).dump();
    doc["seed"] = json(scene.seed).dump();
    doc["rulesSha256"] = json(sha256Hex(rulesDocument)).dump();
    doc["instanceCount"] = json(scene.instanceCount()).dump();
    json frame{{"origin", {{"lon", scene.frame.origin.lon}, {"lat", scene.frame.origin.lat}}},
               {"zoom", scene.frame.zoom},
               {"metresPerCell", scene.frame.metresPerCell()},
               {"axes", "metres on the ground; +x east, +y up, +z south; origin at frame.origin"}};
    if (scene.terrain) {
        frame["originHeight"] = scene.originHeight;
        frame["axes"] =
            "metres on the ground; +x east, +y up, +z south; origin at frame.origin, y = 0 at frame.originHeight "
            "metres above the DEM's vertical datum";
    }
    doc["frame"] = frame.dump();
    doc["statistics"] = ManifestStatistics::of(scene).encode();
    return doc;
}

}  // namespace

Status writeManifestLayout(const ManifestEntries& entries, const std::function<Status(std::string_view)>& write,
                           const std::function<Status(std::string_view key)>& lineArray,
                           std::span<const std::string_view> lineArrays) {
    // The line arrays take their place among the entries in key order.
    std::map<std::string_view, const std::string*> keys;
    for (const auto& [key, value] : entries) keys.emplace(key, &value);
    for (const std::string_view key : lineArrays) keys[key] = nullptr;
    Status s = write("{\n");
    bool first = true;
    for (const auto& [key, value] : keys) {
        if (s) s = write(first ? "  " : ",\n  ");
        first = false;
        if (s) s = write(json(key).dump() + ": ");
        if (s) s = value ? write(*value) : lineArray(key);
        if (!s) return s;
    }
    return write("\n}\n");
}

std::string instanceLineHead(std::string_view assetJson, int blockX, int blockY) {
    return "{\"asset\":" + std::string(assetJson) + ",\"block\":[" + std::to_string(blockX) + "," +
           std::to_string(blockY) + "],\"source\":";
}

void appendInstanceLineTail(std::string& line, std::string_view sourceJson, std::string_view quadkeyJson,
                            const std::array<float, 16>& transform) {
    line += sourceJson;
    line += ",\"tile\":";
    line += quadkeyJson;
    line += ",\"transform\":[";
    for (std::size_t k = 0; k < transform.size(); ++k) {
        if (k > 0) line += ',';
        appendFloat(line, transform[k]);
    }
    line += "]}";
}

Status writeLineArray(std::span<const std::string> elements, const std::function<Status(std::string_view)>& write) {
    Status s = write(elements.empty() ? "[]" : "[\n    ");
    for (std::size_t i = 0; s && i < elements.size(); ++i) {
        if (i > 0) s = write(",\n    ");
        if (s) s = write(elements[i]);
    }
    if (s && !elements.empty()) s = write("\n  ]");
    return s;
}

Result<InstanceEncoding> parseInstanceEncoding(std::string_view name) {
    if (name == "auto") return InstanceEncoding::Auto;
    if (name == "json") return InstanceEncoding::Json;
    if (name == "binary") return InstanceEncoding::Binary;
    return badArguments("unknown instance encoding '" + std::string(name) + "' (known: auto, json, binary)");
}

bool writesBinaryInstances(InstanceEncoding encoding, std::uint64_t instances, std::uint64_t above) {
    return encoding == InstanceEncoding::Binary || (encoding == InstanceEncoding::Auto && instances > above);
}

Status writeManifest(const Scene& scene, std::string_view rulesDocument, const ManifestSink& sink,
                     const ManifestSink* instanceFile) {
    if (Status s = checkSceneForExport(scene); !s) return Error{"manifest: " + s.message()};
    try {
        ManifestEntries entries = manifestEntries(scene, rulesDocument);
        InstanceSources sources;
        if (instanceFile) {
            sources = instanceSources(scene);
            if (Status s = writeInstanceFile(scene, sources, *instanceFile); !s) return s;
            entries[std::string(kManifestInstanceFile)] =
                instanceFileEntry(InstanceFileHeader{scene.instanceCount(), 0}.fileBytes());
        }
        PieceWriter w(sink);
        const Status s = writeManifestLayout(
            entries,
            [&](std::string_view text) {
                w.text() += text;
                return Status::success();
            },
            [&](std::string_view key) {
                if (key == kManifestInstances) return writeInstances(scene, w);
                if (key == kManifestInstanceBlocks) return writeInstanceBlocks(scene, w);
                if (key == kManifestInstanceSources) return writeInstanceSources(sources, w);
                return writeBuildings(scene, w);
            },
            instanceFile ? std::span<const std::string_view>(kBinaryManifestLineArrays)
                         : std::span<const std::string_view>(kJsonManifestLineArrays));
        if (!s) return s;
        return w.flush(true);
    } catch (const std::exception& e) {
        return Error{std::string("manifest: ") + e.what()};
    }
}

Result<std::string> encodeManifest(const Scene& scene, std::string_view rulesDocument) {
    std::string text;
    const Status s = writeManifest(scene, rulesDocument, [&text](std::string_view piece) {
        text += piece;
        return Status::success();
    });
    if (!s) return s.error();
    return text;
}

}  // namespace terrabit::core
