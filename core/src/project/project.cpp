#include "terrabit/core/project/project.h"
#include "terrabit/core/text_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>
#include <variant>

#include "terrabit/core/rules/layer_name.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::project {

namespace {

using Json = nlohmann::ordered_json;

/// One step of a path into the document: an object key or an array index.
using PathStep = std::variant<std::string, std::size_t>;
using JsonPath = std::vector<PathStep>;

// -- where a value is: a structural walk over the text ---------------------------------------
// nlohmann's DOM keeps no positions, so errors about values (as opposed to syntax) find their
// value again by walking the text along the same path. The text is known to be valid JSON here.

class Locator {
public:
    explicit Locator(std::string_view text) : mText(text) {}

    /// Byte offset of the value at `path` (of its key when `atKey` and the last step is a key);
    /// 0 when it cannot be found.
    std::size_t offsetOf(const JsonPath& path, bool atKey) {
        mPos = 0;
        skipWs();
        for (std::size_t i = 0; i < path.size(); ++i) {
            const bool last = i + 1 == path.size();
            if (const auto* key = std::get_if<std::string>(&path[i])) {
                if (!findKey(*key, last && atKey)) return 0;
                if (last && atKey) return mPos;
            } else if (!findIndex(std::get<std::size_t>(path[i]))) {
                return 0;
            }
        }
        return mPos;
    }

private:
    bool at(char c) const { return mPos < mText.size() && mText[mPos] == c; }
    void skipWs() {
        while (mPos < mText.size() &&
               (mText[mPos] == ' ' || mText[mPos] == '\t' || mText[mPos] == '\n' || mText[mPos] == '\r')) {
            ++mPos;
        }
    }
    std::string readString() {
        std::string out;
        ++mPos;  // opening quote
        while (mPos < mText.size() && mText[mPos] != '"') {
            if (mText[mPos] == '\\' && mPos + 1 < mText.size()) {
                out += mText[mPos + 1];  // good enough to compare plain keys
                mPos += 2;
            } else {
                out += mText[mPos++];
            }
        }
        ++mPos;  // closing quote
        return out;
    }
    void skipValue() {
        skipWs();
        if (at('"')) {
            readString();
        } else if (at('{') || at('[')) {
            int depth = 0;
            while (mPos < mText.size()) {
                const char c = mText[mPos];
                if (c == '"') {
                    readString();
                    continue;
                }
                if (c == '{' || c == '[') ++depth;
                if (c == '}' || c == ']') {
                    if (--depth == 0) {
                        ++mPos;
                        break;
                    }
                }
                ++mPos;
            }
        } else {
            while (mPos < mText.size() && std::strchr(",}] \t\r\n", mText[mPos]) == nullptr) ++mPos;
        }
        skipWs();
    }
    bool findKey(const std::string& key, bool stopAtKey) {
        if (!at('{')) return false;
        ++mPos;
        skipWs();
        while (at('"')) {
            const std::size_t keyPos = mPos;
            const std::string k = readString();
            skipWs();
            if (at(':')) ++mPos;
            skipWs();
            if (k == key) {
                if (stopAtKey) mPos = keyPos;
                return true;
            }
            skipValue();
            if (at(',')) ++mPos;
            skipWs();
        }
        return false;
    }
    bool findIndex(std::size_t index) {
        if (!at('[')) return false;
        ++mPos;
        skipWs();
        for (std::size_t i = 0; i < index; ++i) {
            if (at(']')) return false;
            skipValue();
            if (at(',')) ++mPos;
            skipWs();
        }
        return !at(']');
    }

    std::string_view mText;
    std::size_t mPos = 0;
};

/// 1-based line and column (in UTF-8 code points) of a byte offset.
std::pair<int, int> lineColumn(std::string_view text, std::size_t offset) {
    int line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++line;
            column = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++column;
        }
    }
    return {line, column};
}

std::string pathText(const JsonPath& path) {
    std::string out;
    for (const PathStep& s : path) {
        if (const auto* key = std::get_if<std::string>(&s)) {
            if (!out.empty()) out += '.';
            out += *key;
        } else {
            out += '[' + std::to_string(std::get<std::size_t>(s)) + ']';
        }
    }
    return out;
}

/// Reads the parsed document, checking types and ranges; the first problem is kept with the
/// path of the value it is about.
class ProjectReader {
public:
    ProjectReader(std::string_view text, std::string_view source, std::filesystem::path baseDir)
        : mText(text), mSource(source), mBaseDir(std::move(baseDir)) {}

    Result<Project> read(const Json& doc) {
        Project p;
        if (!doc.is_object()) return fail({}, false, "a project is a JSON object ({ … })");
        static const char* const kKeys[] = {"format",        "version",     "map",        "open_options", "dem",
                                            "zoom",          "tiles",       "rules_file", "rules_text",   "rule_edits",
                                            "seed",          "expressions", "camera",     "map_view",     "overlay",
                                            "hidden_layers", "export"};
        if (!checkKeys(doc, {}, kKeys)) return *mError;

        if (!doc.contains("format") || !doc["format"].is_string() ||
            doc["format"].get<std::string>() != kProjectFormat) {
            return fail(
                {"format"}, !doc.contains("format"),
                std::string("not a Terrabit project: \"format\" must be \"") + std::string(kProjectFormat) + "\"");
        }
        if (!doc.contains("version") || !doc["version"].is_number_integer()) {
            return fail({"version"}, !doc.contains("version"), "\"version\" must be an integer");
        }
        const auto version = doc["version"].get<std::int64_t>();
        if (version > kProjectVersion || version < 1) {
            return fail({"version"}, false,
                        "version " + std::to_string(version) + " is not supported (this Terrabit reads version " +
                            std::to_string(kProjectVersion) + ")");
        }

        if (!path(doc, {"map"}, p.map)) return *mError;
        if (!strings(doc, {"open_options"}, p.openOptions)) return *mError;
        std::vector<std::string> dems;
        if (!strings(doc, {"dem"}, dems)) return *mError;
        for (std::size_t i = 0; i < dems.size(); ++i) {
            if (dems[i].empty()) return fail({"dem", i}, false, "expected the path of a DEM file, not \"\"");
            // A tile set keeps its encoding prefix; the path after it is relative like a file's.
            const DemEntry d = splitDemEntry(dems[i]);
            const std::filesystem::path resolved =
                (d.path.is_absolute() ? d.path : mBaseDir / d.path).lexically_normal();
            p.dems.push_back(d.encoding.empty() ? resolved : std::filesystem::path(d.encoding + resolved.string()));
        }
        if (doc.contains("zoom")) {
            std::int64_t z = 0;
            if (!integer(doc["zoom"], {"zoom"}, z)) return *mError;
            if (z < 0 || z > kMaxZoom) {
                return fail({"zoom"}, false,
                            "zoom " + std::to_string(z) + " is outside 0.." + std::to_string(kMaxZoom));
            }
            p.zoom = static_cast<int>(z);
        }
        if (!strings(doc, {"tiles"}, p.tiles)) return *mError;
        for (std::size_t i = 0; i < p.tiles.size(); ++i) {
            auto tile = TileId::fromQuadkey(p.tiles[i]);
            if (!tile) return fail({"tiles", i}, false, "tile " + tile.message());
            if (tile->zoom != p.zoom) {
                return fail({"tiles", i}, false,
                            "tile '" + p.tiles[i] + "' is at zoom " + std::to_string(tile->zoom) +
                                ", not the project's zoom " + std::to_string(p.zoom));
            }
        }
        if (!path(doc, {"rules_file"}, p.rulesFile)) return *mError;
        if (!string(doc, {"rules_text"}, p.rulesText)) return *mError;

        if (doc.contains("rule_edits")) {
            const Json& edits = doc["rule_edits"];
            if (!edits.is_array()) return fail({"rule_edits"}, false, "expected a list of {path, value}");
            for (std::size_t i = 0; i < edits.size(); ++i) {
                static const char* const kEditKeys[] = {"path", "value"};
                const JsonPath at = {"rule_edits", i};
                if (!edits[i].is_object()) return fail(at, false, "expected {\"path\": …, \"value\": …}");
                if (!checkKeys(edits[i], at, kEditKeys)) return *mError;
                RuleEdit e;
                if (!requiredString(edits[i], at, "path", e.path)) return *mError;
                if (!requiredString(edits[i], at, "value", e.value)) return *mError;
                p.ruleEdits.push_back(std::move(e));
            }
        }

        if (doc.contains("expressions")) {
            const Json& list = doc["expressions"];
            if (!list.is_array()) return fail({"expressions"}, false, "expected a list of {name, text, colour}");
            for (std::size_t i = 0; i < list.size(); ++i) {
                static const char* const kExprKeys[] = {"name", "text", "colour"};
                const JsonPath at = {"expressions", i};
                if (!list[i].is_object()) return fail(at, false, "expected {\"name\": …, \"text\": …}");
                if (!checkKeys(list[i], at, kExprKeys)) return *mError;
                DerivedLayer d;
                if (!requiredString(list[i], at, "name", d.name)) return *mError;
                if (!isLayerName(d.name)) {
                    return fail(withKey(at, "name"), false,
                                "'" + d.name + "' is not a layer name (" + std::string(kLayerNameRule) + ")");
                }
                for (const DerivedLayer& other : p.expressions) {
                    if (other.name == d.name)
                        return fail(withKey(at, "name"), false, "layer '" + d.name + "' is defined twice");
                }
                if (!requiredString(list[i], at, "text", d.text)) return *mError;
                if (list[i].contains("colour")) {
                    if (!string(list[i], withKey(at, "colour"), d.colour, "colour")) return *mError;
                    if (!colour(d.colour)) return fail(withKey(at, "colour"), false, "expected a colour \"#rrggbb\"");
                }
                p.expressions.push_back(std::move(d));
            }
        }

        if (doc.contains("seed")) {
            const Json& s = doc["seed"];
            if (!s.is_number_unsigned() && !(s.is_number_integer() && s.get<std::int64_t>() >= 0)) {
                return fail({"seed"}, false, "the seed is a whole number 0..18446744073709551615");
            }
            p.seed = s.get<std::uint64_t>();
        }

        if (doc.contains("camera")) {
            static const char* const kCamKeys[] = {"target", "distance", "heading", "pitch"};
            const Json& c = doc["camera"];
            if (!c.is_object()) return fail({"camera"}, false, "expected {target, distance, heading, pitch}");
            if (!checkKeys(c, {"camera"}, kCamKeys)) return *mError;
            if (c.contains("target") && !lonLat(c["target"], {"camera", "target"}, p.camera.target)) return *mError;
            if (!number(c, {"camera", "distance"}, p.camera.distance, 0.0, 1e8)) return *mError;
            if (!number(c, {"camera", "heading"}, p.camera.heading, -360.0, 360.0)) return *mError;
            if (!number(c, {"camera", "pitch"}, p.camera.pitch, -90.0, 90.0)) return *mError;
        }
        if (doc.contains("map_view")) {
            static const char* const kViewKeys[] = {"centre", "metres_per_pixel"};
            const Json& v = doc["map_view"];
            if (!v.is_object()) return fail({"map_view"}, false, "expected {centre, metres_per_pixel}");
            if (!checkKeys(v, {"map_view"}, kViewKeys)) return *mError;
            if (v.contains("centre") && !lonLat(v["centre"], {"map_view", "centre"}, p.mapView.centre)) return *mError;
            if (!number(v, {"map_view", "metres_per_pixel"}, p.mapView.metresPerPixel, 0.0, 1e7)) return *mError;
        }
        if (!string(doc, {"overlay"}, p.overlay)) return *mError;
        if (!strings(doc, {"hidden_layers"}, p.hiddenLayers)) return *mError;
        if (doc.contains("export")) {
            static const char* const kExportKeys[] = {"folder", "formats", "plain_nodes"};
            const Json& e = doc["export"];
            if (!e.is_object()) return fail({"export"}, false, "expected {folder, formats, plain_nodes}");
            if (!checkKeys(e, {"export"}, kExportKeys)) return *mError;
            if (!path(e, {"export", "folder"}, p.exportSettings.folder)) return *mError;
            if (!strings(e, {"export", "formats"}, p.exportSettings.formats)) return *mError;
            if (e.contains("plain_nodes")) {
                if (!e["plain_nodes"].is_boolean())
                    return fail({"export", "plain_nodes"}, false, "expected true or false");
                p.exportSettings.plainNodes = e["plain_nodes"].get<bool>();
            }
        }
        return p;
    }

    /// An error at the value (or key) the path names.
    Error fail(const JsonPath& at, bool atKey, const std::string& what) {
        Locator locator(mText);
        // A missing key is reported at its object; a value at its own position.
        const JsonPath where = atKey && !at.empty() ? JsonPath(at.begin(), at.end() - 1) : at;
        const std::size_t offset = locator.offsetOf(where, false);
        const auto [line, column] = lineColumn(mText, offset);
        std::string message = mSource + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
        if (!at.empty()) message += pathText(at) + ": ";
        message += what;
        mError = Error{message};
        return *mError;
    }

private:
    static JsonPath withKey(JsonPath at, std::string key) {
        at.emplace_back(std::move(key));
        return at;
    }
    /// The value at the last step of `at` inside `parent` (the object holding it).
    static const Json& child(const Json& parent, const JsonPath& at) {
        return parent[std::get<std::string>(at.back())];
    }

    template <std::size_t N>
    bool checkKeys(const Json& object, const JsonPath& at, const char* const (&keys)[N]) {
        for (auto it = object.begin(); it != object.end(); ++it) {
            bool known = false;
            for (const char* k : keys) known = known || it.key() == k;
            if (!known) {
                std::string list;
                for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
                Locator locator(mText);
                const std::size_t offset = locator.offsetOf(withKey(at, it.key()), true);
                const auto [line, column] = lineColumn(mText, offset);
                mError = Error{mSource + ":" + std::to_string(line) + ":" + std::to_string(column) + ": unknown key '" +
                               it.key() + "'" + (at.empty() ? "" : " in " + pathText(at)) +
                               " (expected one of: " + list + ")"};
                return false;
            }
        }
        return true;
    }
    bool string(const Json& parent, const JsonPath& at, std::string& out, const char* = nullptr) {
        const std::string& key = std::get<std::string>(at.back());
        if (!parent.contains(key)) return true;
        if (!parent[key].is_string()) {
            fail(at, false, "expected a string");
            return false;
        }
        out = parent[key].get<std::string>();
        return true;
    }
    bool requiredString(const Json& object, const JsonPath& at, const char* key, std::string& out) {
        if (!object.contains(key)) {
            fail(withKey(at, key), true, std::string("missing \"") + key + "\"");
            return false;
        }
        return string(object, withKey(at, key), out);
    }
    bool strings(const Json& parent, const JsonPath& at, std::vector<std::string>& out) {
        const std::string& key = std::get<std::string>(at.back());
        if (!parent.contains(key)) return true;
        const Json& list = child(parent, at);
        if (!list.is_array()) {
            fail(at, false, "expected a list of strings");
            return false;
        }
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!list[i].is_string()) {
                JsonPath item = at;
                item.emplace_back(i);
                fail(item, false, "expected a string");
                return false;
            }
            out.push_back(list[i].get<std::string>());
        }
        return true;
    }
    bool path(const Json& parent, const JsonPath& at, std::filesystem::path& out) {
        std::string text;
        if (!string(parent, at, text)) return false;
        if (text.empty()) return true;
        std::filesystem::path p(text);
        out = (p.is_absolute() ? p : mBaseDir / p).lexically_normal();
        return true;
    }
    bool integer(const Json& value, const JsonPath& at, std::int64_t& out) {
        if (!value.is_number_integer()) {
            fail(at, false, "expected a whole number");
            return false;
        }
        out = value.get<std::int64_t>();
        return true;
    }
    bool number(const Json& parent, const JsonPath& at, double& out, double lo, double hi) {
        const std::string& key = std::get<std::string>(at.back());
        if (!parent.contains(key)) return true;
        const Json& v = parent[key];
        if (!v.is_number()) {
            fail(at, false, "expected a number");
            return false;
        }
        const double d = v.get<double>();
        if (!(d >= lo && d <= hi)) {
            std::ostringstream s;
            s << d << " is outside " << lo << ".." << hi;
            fail(at, false, s.str());
            return false;
        }
        out = d;
        return true;
    }
    bool lonLat(const Json& v, const JsonPath& at, LonLat& out) {
        if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number()) {
            fail(at, false, "expected [longitude, latitude] in degrees");
            return false;
        }
        const double lon = v[0].get<double>(), lat = v[1].get<double>();
        if (!(lon >= -180.0 && lon <= 180.0 && lat >= -90.0 && lat <= 90.0)) {
            fail(at, false, "longitude must be in -180..180 and latitude in -90..90");
            return false;
        }
        out = {lon, lat};
        return true;
    }
    static bool colour(std::string_view s) {
        if (s.size() != 7 || s[0] != '#') return false;
        for (char c : s.substr(1)) {
            if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
        }
        return true;
    }

    std::string_view mText;
    std::string mSource;
    std::filesystem::path mBaseDir;
    std::optional<Error> mError;
};

/// The path as the file should store it: relative to baseDir when both share a root and the
/// relative form exists, else absolute.
std::string storedPath(const std::filesystem::path& p, const std::filesystem::path& baseDir) {
    if (p.empty()) return {};
    if (!p.is_absolute() || baseDir.empty()) return p.generic_string();
    const std::filesystem::path rel = p.lexically_relative(baseDir);
    if (rel.empty()) return p.generic_string();
    return rel.generic_string();
}

}  // namespace

DemEntry splitDemEntry(const std::filesystem::path& dem) {
    const std::string s = dem.string();
    for (const std::string_view prefix : {std::string_view("terrarium:"), std::string_view("terrain-rgb:")}) {
        if (s.starts_with(prefix)) return {std::string(prefix), std::filesystem::path(s.substr(prefix.size()))};
    }
    return {{}, dem};
}

Result<Project> parseProject(std::string_view json, std::string_view sourceName, const std::filesystem::path& baseDir) {
    Json doc;
    try {
        doc = Json::parse(json.begin(), json.end());
    } catch (const Json::parse_error& e) {
        // e.byte counts the characters read, up to the end of the token the parser refused:
        // step back to where that token starts, which is where the user has to look.
        std::size_t offset = e.byte > 0 ? std::min<std::size_t>(e.byte - 1, json.size()) : 0;
        if (offset < json.size() && json[offset] == '"') {
            std::size_t open = offset;
            while (open > 0 && !(json[open - 1] == '"' && (open < 2 || json[open - 2] != '\\'))) --open;
            if (open > 0) offset = open - 1;
        } else {
            while (offset > 0 && offset < json.size() && std::isalnum(static_cast<unsigned char>(json[offset - 1])) &&
                   std::isalnum(static_cast<unsigned char>(json[offset]))) {
                --offset;
            }
        }
        const auto [line, column] = lineColumn(json, offset);
        std::string what = e.what();
        // nlohmann's text starts with "[json.exception.parse_error.101] parse error at line …, column …: "
        if (const auto p = what.find(": syntax error"); p != std::string::npos) what = what.substr(p + 2);
        return Error{std::string(sourceName) + ":" + std::to_string(line) + ":" + std::to_string(column) +
                     ": not valid JSON: " + what};
    } catch (const std::exception& e) {
        return Error{std::string(sourceName) + ":1:1: not valid JSON: " + e.what()};
    }
    try {
        ProjectReader reader(json, sourceName, baseDir);
        return reader.read(doc);
    } catch (const std::exception& e) {
        // A value nlohmann refuses to convert that the checks above let through.
        return Error{std::string(sourceName) + ":1:1: " + e.what()};
    }
}

Result<Project> loadProject(const std::filesystem::path& file) {
    auto text = readTextFile(file, "project");
    if (!text) return text.error();
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(file, ec);
    return parseProject(*text, file.string(), (ec ? file : absolute).parent_path());
}

std::string serializeProject(const Project& p, const std::filesystem::path& baseDir) {
    Json doc = Json::object();
    doc["format"] = kProjectFormat;
    doc["version"] = kProjectVersion;
    if (!p.map.empty()) doc["map"] = storedPath(p.map, baseDir);
    if (!p.openOptions.empty()) doc["open_options"] = p.openOptions;
    if (!p.dems.empty()) {
        Json dems = Json::array();
        for (const std::filesystem::path& d : p.dems) {
            const DemEntry e = splitDemEntry(d);
            dems.push_back(e.encoding + storedPath(e.path, baseDir));
        }
        doc["dem"] = dems;
    }
    doc["zoom"] = p.zoom;
    doc["tiles"] = p.tiles;
    if (!p.rulesFile.empty()) doc["rules_file"] = storedPath(p.rulesFile, baseDir);
    if (!p.rulesText.empty()) doc["rules_text"] = p.rulesText;
    if (!p.ruleEdits.empty()) {
        Json edits = Json::array();
        for (const RuleEdit& e : p.ruleEdits) edits.push_back({{"path", e.path}, {"value", e.value}});
        doc["rule_edits"] = edits;
    }
    if (!p.expressions.empty()) {
        Json list = Json::array();
        for (const DerivedLayer& d : p.expressions)
            list.push_back({{"name", d.name}, {"text", d.text}, {"colour", d.colour}});
        doc["expressions"] = list;
    }
    doc["seed"] = p.seed;
    doc["camera"] = {{"target", {p.camera.target.lon, p.camera.target.lat}},
                     {"distance", p.camera.distance},
                     {"heading", p.camera.heading},
                     {"pitch", p.camera.pitch}};
    doc["map_view"] = {{"centre", {p.mapView.centre.lon, p.mapView.centre.lat}},
                       {"metres_per_pixel", p.mapView.metresPerPixel}};
    if (!p.overlay.empty()) doc["overlay"] = p.overlay;
    if (!p.hiddenLayers.empty()) doc["hidden_layers"] = p.hiddenLayers;
    const ExportSettings& e = p.exportSettings;
    if (!e.folder.empty() || !e.formats.empty() || e.plainNodes) {
        Json ex = Json::object();
        if (!e.folder.empty()) ex["folder"] = storedPath(e.folder, baseDir);
        ex["formats"] = e.formats;
        ex["plain_nodes"] = e.plainNodes;
        doc["export"] = ex;
    }
    return doc.dump(2) + "\n";
}

Status saveProject(const Project& project, const std::filesystem::path& file) {
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(file, ec);
    const std::filesystem::path target = ec ? file : absolute;
    const std::string text = serializeProject(project, target.parent_path());
    const std::filesystem::path temp = target.string() + ".saving~";

    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Error{file.string() + ": cannot save the project: " + std::strerror(errno)};
    const char* data = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string reason = std::strerror(errno);
            ::close(fd);
            std::filesystem::remove(temp, ec);
            return Error{file.string() + ": cannot save the project: " + reason};
        }
        data += n;
        left -= static_cast<std::size_t>(n);
    }
    // Flushed before the rename, so the name never points at a file the disk has not got.
    const bool synced = ::fsync(fd) == 0;
    const int syncErrno = errno;
    const bool closed = ::close(fd) == 0;
    if (!synced || !closed) {
        const std::string reason = std::strerror(synced ? errno : syncErrno);
        std::filesystem::remove(temp, ec);
        return Error{file.string() + ": cannot save the project: " + reason};
    }
    std::filesystem::rename(temp, target, ec);
    if (ec) {
        std::filesystem::remove(temp, ec);
        return Error{file.string() + ": cannot save the project: " + ec.message()};
    }
    return Status::success();
}

}  // namespace terrabit::core::project
