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

/// Writes `"key": value` lines of an object whose values are compact, except the named arrays
/// of objects, written one element per line; keys in sorted order (nlohmann's object order).
class ManifestText {
public:
    void value(const std::string& key, const json& v) { mParts[key] = v.dump(); }
    void lines(const std::string& key, std::string body) { mParts[key] = std::move(body); }

    std::string finish() const {
        std::string out = "{\n";
        bool first = true;
        for (const auto& [key, text] : mParts) {
            if (!first) out += ",\n";
            first = false;
            out += "  " + json(key).dump() + ": " + text;
        }
        out += "\n}\n";
        return out;
    }

private:
    std::map<std::string, std::string> mParts;
};

/// Opens "[", adds elements one per line, closes "]".
class LineArray {
public:
    void add(std::string_view element) {
        mText += mCount++ == 0 ? "\n    " : ",\n    ";
        mText += element;
    }
    std::string& text() { return mText; }
    std::string finish() { return mCount == 0 ? "[]" : "[" + mText + "\n  ]"; }

private:
    std::string mText;
    std::size_t mCount = 0;
};

}  // namespace

Result<std::string> encodeManifest(const Scene& scene, std::string_view rulesDocument) {
    if (Status s = checkSceneForExport(scene); !s) return Error{"manifest: " + s.message()};
    try {
        // JSON-escaped names, computed once: ids repeat on every instance line.
        std::vector<std::string> assetJson, sourceJson, tileJson;
        for (const std::string& a : scene.assets) assetJson.push_back(json(a).dump());
        for (const std::string& s : scene.sources) sourceJson.push_back(json(s).dump());
        const auto sourceText = [&](std::uint32_t s) -> const std::string& {
            static const std::string kNull = "null";
            return s == Instance::kNoSource ? kNull : sourceJson[s];
        };

        ManifestText doc;
        doc.value("assets", json(scene.assets));
        json tiles = json::array();
        for (const TileId& t : scene.tiles) tiles.push_back(t.quadkey());
        doc.value("tiles", tiles);
        doc.value("format", "terrabit-manifest");
        doc.value("version", kManifestVersion);
        doc.value("seed", scene.seed);
        doc.value("rulesSha256", sha256Hex(rulesDocument));
        doc.value("instanceCount", scene.instanceCount());
        doc.value("frame", json{{"origin", {{"lon", scene.frame.origin.lon}, {"lat", scene.frame.origin.lat}}},
                                {"zoom", scene.frame.zoom},
                                {"metresPerCell", scene.frame.metresPerCell()},
                                {"axes", "metres on the ground; +x east, +y up, +z south; origin at frame.origin"}});

        json perAsset = json::object();
        for (std::size_t a = 0; a < scene.assets.size(); ++a) {
            perAsset[scene.assets[a]] =
                a < scene.statistics.instancesPerAsset.size() ? scene.statistics.instancesPerAsset[a] : 0;
        }
        const SceneStatistics& st = scene.statistics;
        doc.value("statistics", json{{"buildingsPlaced", st.buildingsPlaced},
                                     {"buildingsBlocked", st.buildingsBlocked},
                                     {"buildingsUnmatched", st.buildingsUnmatched},
                                     {"instancesPerAsset", perAsset},
                                     {"vegetationCellsRequested", st.vegetationCellsRequested},
                                     {"vegetationInstances", st.vegetationInstances},
                                     {"requestedDensity", st.requestedDensity},
                                     {"achievedDensity", st.achievedDensity}});

        // Hot for big scenes (a line per tree): formatted by hand, keys in sorted order.
        LineArray instances;
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
                instances.add(line);
            }
        }
        doc.lines("instances", instances.finish());

        LineArray buildings;
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
            buildings.add(record.dump());
        }
        doc.lines("buildings", buildings.finish());
        return doc.finish();
    } catch (const std::exception& e) {
        return Error{std::string("manifest: ") + e.what()};
    }
}

}  // namespace terrabit::core
