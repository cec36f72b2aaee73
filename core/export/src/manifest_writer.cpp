#include "terrabit/core/export/manifest_writer.h"

#include <charconv>
#include <map>
#include <nlohmann/json.hpp>

#include "terrabit/core/export/glb_scene_writer.h"
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

void appendTransform(std::string& out, const Instance& instance) {
    const std::array<float, 16> m = transformMatrix(instance);
    out += '[';
    for (int k = 0; k < 16; ++k) {
        if (k > 0) out += ',';
        appendFloat(out, m[static_cast<std::size_t>(k)]);
    }
    out += ']';
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

}  // namespace

Status writeManifest(const Scene& scene, std::string_view rulesDocument, const ManifestSink& sink) {
    if (Status s = checkSceneForExport(scene); !s) return Error{"manifest: " + s.message()};
    try {
        // JSON-escaped names, computed once: ids repeat on every instance line.
        std::vector<std::string> assetJson, sourceJson;
        for (const std::string& a : scene.assets) assetJson.push_back(json(a).dump());
        for (const std::string& s : scene.sources) sourceJson.push_back(json(s).dump());
        const auto sourceText = [&](std::uint32_t s) -> const std::string& {
            static const std::string kNull = "null";
            return s == Instance::kNoSource ? kNull : sourceJson[s];
        };

        // `"key": value` lines, keys sorted (nlohmann's object order); the values of the two
        // line arrays (empty here) are written element by element when their key comes.
        std::map<std::string, std::string> doc;
        doc["assets"] = json(scene.assets).dump();
        json tiles = json::array();
        for (const TileId& t : scene.tiles) tiles.push_back(t.quadkey());
        doc["tiles"] = tiles.dump();
        doc["format"] = json("terrabit-manifest").dump();
        doc["version"] = json(kManifestVersion).dump();
        doc["seed"] = json(scene.seed).dump();
        doc["rulesSha256"] = json(sha256Hex(rulesDocument)).dump();
        doc["instanceCount"] = json(scene.instanceCount()).dump();
        doc["frame"] = json{{"origin", {{"lon", scene.frame.origin.lon}, {"lat", scene.frame.origin.lat}}},
                            {"zoom", scene.frame.zoom},
                            {"metresPerCell", scene.frame.metresPerCell()},
                            {"axes", "metres on the ground; +x east, +y up, +z south; origin at frame.origin"}}
                           .dump();
        json perAsset = json::object();
        for (std::size_t a = 0; a < scene.assets.size(); ++a) {
            perAsset[scene.assets[a]] =
                a < scene.statistics.instancesPerAsset.size() ? scene.statistics.instancesPerAsset[a] : 0;
        }
        const SceneStatistics& st = scene.statistics;
        doc["statistics"] = json{{"buildingsPlaced", st.buildingsPlaced},
                                 {"buildingsBlocked", st.buildingsBlocked},
                                 {"buildingsUnmatched", st.buildingsUnmatched},
                                 {"instancesPerAsset", perAsset},
                                 {"vegetationCellsRequested", st.vegetationCellsRequested},
                                 {"vegetationInstances", st.vegetationInstances},
                                 {"requestedDensity", st.requestedDensity},
                                 {"achievedDensity", st.achievedDensity}}
                                .dump();
        doc["instances"] = doc["buildings"] = "";

        // Hot for big scenes (a line per tree): formatted by hand, keys in sorted order.
        const auto instances = [&](PieceWriter& w) -> Status {
            LineArray out(w);
            std::string line;
            for (const InstanceBlock& b : scene.blocks) {
                const std::string qk = json(b.tile.quadkey()).dump();
                const std::string head = "{\"asset\":" + assetJson[static_cast<std::size_t>(b.asset)] + ",\"block\":[" +
                                         std::to_string(b.blockX) + "," + std::to_string(b.blockY) + "],\"source\":";
                for (const Instance& i : b.instances) {
                    line.assign(head);
                    line += sourceText(i.source);
                    line += ",\"tile\":";
                    line += qk;
                    line += ",\"transform\":";
                    appendTransform(line, i);
                    line += '}';
                    if (Status s = out.add(line); !s) return s;
                }
            }
            out.finish();
            return Status::success();
        };
        const auto buildings = [&](PieceWriter& w) -> Status {
            LineArray out(w);
            for (const BuildingRecord& b : scene.buildings) {
                json transform = nullptr;
                if (b.outcome == BuildingOutcome::Placed) {
                    transform = json::array();
                    for (float v : transformMatrix(b.placement)) transform.push_back(floatJson(v));
                }
                const json record{
                    {"asset", b.asset >= 0 ? json(scene.assets[static_cast<std::size_t>(b.asset)]) : json(nullptr)},
                    {"outcome", outcomeName(b.outcome)},
                    {"source", b.source == Instance::kNoSource ? json(nullptr) : json(scene.sources[b.source])},
                    {"target",
                     {{"centre", {b.target.centre.x, b.target.centre.y}},
                      {"halfExtents", {b.target.halfExtents.x, b.target.halfExtents.y}},
                      {"angle", b.target.angle}}},
                    {"tile", b.tile.quadkey()},
                    {"transform", transform}};
                if (Status s = out.add(record.dump()); !s) return s;
            }
            out.finish();
            return Status::success();
        };

        PieceWriter w(sink);
        w.text() += "{\n";
        bool first = true;
        for (const auto& [key, text] : doc) {
            if (!first) w.text() += ",\n";
            first = false;
            w.text() += "  " + json(key).dump() + ": ";
            if (key == "instances") {
                if (Status s = instances(w); !s) return s;
            } else if (key == "buildings") {
                if (Status s = buildings(w); !s) return s;
            } else {
                w.text() += text;
            }
        }
        w.text() += "\n}\n";
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
