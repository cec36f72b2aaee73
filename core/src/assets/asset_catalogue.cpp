#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/text_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "../rules/yaml_document_p.h"
#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/assets/ground_outline.h"

namespace terrabit::core {

namespace {

using yaml_detail::where;
using yaml_detail::yamlScalar;

std::string formatNumber(double v);

/// How far an outline rectangle may reach past its footprint box, metres: the millimetre
/// rounding of written sizes, with room to spare.
constexpr double kOutlineSlack = 0.005;
/// The most rectangles an outline may have: placement rasterizes each for every pose it tries.
constexpr std::size_t kMaxOutlineRects = 32;
/// The largest a model may be along any axis, metres: a prefab bigger than a town is a mistake
/// of units (a model in millimetres read as metres), and its ground outline alone would be a
/// raster of millions of millions of cells.
constexpr double kMaxModelMetres = 10000.0;

/// Why an outline does not fit its footprint (`what` empty when it does), and which rectangle.
struct OutlineProblem {
    std::size_t rect = 0;  ///< 0-based index of the offending rectangle, or the count when the list is too long
    std::string what;
};
OutlineProblem outlineProblem(const std::vector<OutlineRect>& outline, const AssetFootprint& f);

std::string describe(const YAML::Node& node) {
    if (node.IsScalar()) return "'" + node.Scalar() + "'";
    if (node.IsSequence()) return "a list";
    if (node.IsMap()) return "a map";
    return "nothing";
}

// Turns one catalogue entry into an AssetInfo; everything it reports carries the location.
class EntryParser {
public:
    EntryParser(std::string_view source, const std::filesystem::path& baseDir) : mSource(source), mBaseDir(baseDir) {}

    Result<AssetInfo> parse(const YAML::Node& entry, std::size_t index) {
        mAssetName = "asset #" + std::to_string(index + 1);
        if (!entry.IsMap()) {
            return Error{where(mSource, entry.Mark()) + ": " + mAssetName + ": expected a map of keys, got " +
                         describe(entry)};
        }
        AssetInfo info;
        info.line = entry.Mark().is_null() ? 0 : entry.Mark().line + 1;
        // The id first, so every later message can name the asset.
        if (const YAML::Node id = entry["id"]; id) {
            Result<std::string> s = text(id, "id");
            if (!s) return s.error();
            if (s->empty()) return fail(id, "id", "must not be empty");
            info.id = *s;
            mAssetName = "asset '" + info.id + "'";
        } else {
            return fail(entry, "id", "is missing");
        }
        bool haveFootprint = false;
        bool haveHeight = false;
        std::set<std::string> seen;
        for (auto it = entry.begin(); it != entry.end(); ++it) {
            const YAML::Node key = it->first;
            const YAML::Node value = it->second;
            if (!key.IsScalar()) return fail(key, "?", "keys must be plain words");
            const std::string& name = key.Scalar();
            if (!seen.insert(name).second) return fail(key, name, "appears twice");
            if (name == "id") continue;
            if (name == "file") {
                Result<std::string> s = text(value, name);
                if (!s) return s.error();
                if (s->empty()) return fail(value, name, "must not be empty");
                info.file = *s;
                mFileNode = value;
            } else if (name == "category") {
                Result<std::string> s = text(value, name);
                if (!s) return s.error();
                if (s->empty()) return fail(value, name, "must not be empty");
                info.category = *s;
            } else if (name == "footprint") {
                Result<AssetFootprint> f = footprint(value);
                if (!f) return f.error();
                info.footprint = *f;
                haveFootprint = true;
            } else if (name == "height") {
                Result<double> h = size(value, name);
                if (!h) return h.error();
                info.height = *h;
                haveHeight = true;
            } else if (name == "tags") {
                if (value.IsNull()) continue;
                if (!value.IsSequence()) return fail(value, name, "expected a list of words, got " + describe(value));
                for (const YAML::Node& t : value) {
                    Result<std::string> s = text(t, name);
                    if (!s) return s.error();
                    if (s->empty()) return fail(t, name, "a tag must not be empty");
                    if (!info.hasTag(*s)) info.tags.push_back(*s);
                }
            } else if (name == "outline") {
                Result<std::vector<OutlineRect>> o = outlineRects(value);
                if (!o) return o.error();
                info.outline = std::move(*o);
                mOutlineNode = value;
                if (value.IsSequence()) {
                    for (const YAML::Node& r : value) mOutlineRectNodes.push_back(r);
                }
                mHaveOutline = true;
            } else if (name == "weight") {
                Result<double> w = number(value, name);
                if (!w) return w.error();
                if (*w < 0.0) return fail(value, name, "must be zero or more, got " + value.Scalar());
                info.weight = *w;
            } else {
                return fail(key, name,
                            "is not a catalogue key (expected id, file, category, footprint, outline, "
                            "height, tags or weight)");
            }
        }
        if (info.file.empty()) return fail(entry, "file", "is missing");
        if (info.category.empty()) return fail(entry, "category", "is missing");

        const std::filesystem::path file(info.file);
        info.path = (file.is_absolute() ? file : mBaseDir / file).lexically_normal();
        std::error_code ec;
        if (!std::filesystem::is_regular_file(info.path, ec)) {
            return fail(mFileNode, "file", "model '" + info.path.string() + "' does not exist");
        }
        mNeedsMesh = !haveFootprint || !haveHeight;
        mHaveFootprint = haveFootprint;
        mHaveHeight = haveHeight;
        return info;
    }

    // Reads the mesh when a size is missing (or when asked to verify) and fills the gaps; then
    // holds the outline to the footprint.
    Status measure(AssetInfo& info, bool verify) {
        if (Status s = measureMesh(info, verify); !s) return s;
        if (const OutlineProblem p = outlineProblem(info.outline, info.footprint); !p.what.empty()) {
            const bool given = mHaveOutline && p.rect < mOutlineRectNodes.size();
            return fail(given ? mOutlineRectNodes[p.rect] : mHaveOutline ? mOutlineNode : mFileNode, "outline", p.what);
        }
        return Status::success();
    }

private:
    Status measureMesh(AssetInfo& info, bool verify) {
        if (!mNeedsMesh && !verify) return Status::success();
        Result<AssetMesh> mesh = readAssetMesh(info.path);
        if (!mesh) return fail(mFileNode, "file", mesh.message());
        info.bounds = mesh->bounds();
        for (const auto& [axis, name] : {std::pair{0, "X"}, {1, "Y"}, {2, "Z"}}) {
            const double size = info.bounds.size(axis);
            if (size > kMaxModelMetres) {
                // Three digits say how far off it is (1e+30, not 1.0000000150474662e+30).
                char rounded[32];
                std::snprintf(rounded, sizeof rounded, "%.3g", size);
                return fail(mFileNode, "file",
                            "model '" + info.path.string() + "' measures " +
                                (size < 1e6 ? formatNumber(size) : std::string(rounded)) + " metres along " + name +
                                "; a model may measure at most " + formatNumber(kMaxModelMetres) +
                                " (are its units metres?)");
            }
        }
        if (!mHaveFootprint) {
            info.footprint = mesh->footprint();
            info.footprintMeasured = true;
            if (info.footprint.width <= 0.0 || info.footprint.depth <= 0.0) {
                return fail(mFileNode, "footprint",
                            "model '" + info.path.string() +
                                "' is flat in X or Z, so its footprint cannot be measured; "
                                "give footprint: {width, depth}");
            }
        }
        if (!mHaveHeight) {
            info.height = mesh->height();
            info.heightMeasured = true;
            if (info.height <= 0.0) {
                return fail(
                    mFileNode, "height",
                    "model '" + info.path.string() + "' is flat in Y, so its height cannot be measured; give height");
            }
        }
        if (!mHaveOutline) {
            // Measured in the mesh's metres about its bounds' centre, then stretched to the
            // footprint (the box placement takes the model to fill when the two differ).
            const double sx = info.footprint.width / info.bounds.size(0);
            const double sz = info.footprint.depth / info.bounds.size(2);
            const double hx = 0.5 * info.footprint.width, hz = 0.5 * info.footprint.depth;
            info.outline = groundOutline(*mesh);
            for (OutlineRect& r : info.outline) {
                r = {std::clamp(r.x0 * sx, -hx, hx), std::clamp(r.z0 * sz, -hz, hz), std::clamp(r.x1 * sx, -hx, hx),
                     std::clamp(r.z1 * sz, -hz, hz)};
            }
            info.outlineMeasured = true;
        }
        return Status::success();
    }

    Error fail(const YAML::Node& node, std::string_view key, std::string_view what) const {
        return Error{where(mSource, node.Mark()) + ": " + mAssetName + ": key '" + std::string(key) + "' " +
                     std::string(what)};
    }

    Result<std::string> text(const YAML::Node& node, std::string_view key) const {
        if (!node.IsScalar()) return fail(node, key, "expected a word, got " + describe(node));
        return node.Scalar();
    }

    Result<double> number(const YAML::Node& node, std::string_view key) const {
        if (!node.IsScalar()) return fail(node, key, "expected a number, got " + describe(node));
        double v = 0.0;
        if (!YAML::convert<double>::decode(node, v) || !std::isfinite(v)) {
            return fail(node, key, "expected a number, got '" + node.Scalar() + "'");
        }
        return v;
    }

    /// A model's size along one axis: more than 0 and at most kMaxModelMetres.
    Result<double> size(const YAML::Node& node, std::string_view key) const {
        Result<double> v = number(node, key);
        if (!v) return v;
        if (*v <= 0.0) return fail(node, key, "must be more than 0 metres, got " + node.Scalar());
        if (*v > kMaxModelMetres) {
            return fail(node, key,
                        "must be at most " + formatNumber(kMaxModelMetres) + " metres, got " + node.Scalar());
        }
        return v;
    }

    // outline: [[x0, z0, x1, z1], …] in metres; held to the footprint once that is known.
    Result<std::vector<OutlineRect>> outlineRects(const YAML::Node& node) const {
        const char* const shape = "expected a list of rectangles [x0, z0, x1, z1] in metres";
        if (node.IsNull()) return std::vector<OutlineRect>{};
        if (!node.IsSequence()) return fail(node, "outline", std::string(shape) + ", got " + describe(node));
        if (node.size() > kMaxOutlineRects) {
            return fail(node, "outline",
                        "has " + std::to_string(node.size()) + " rectangles; at most " +
                            std::to_string(kMaxOutlineRects) + " are allowed");
        }
        std::vector<OutlineRect> out;
        for (const YAML::Node& r : node) {
            if (!r.IsSequence() || r.size() != 4) {
                return fail(r, "outline", std::string(shape) + ", got " + describe(r));
            }
            double v[4];
            for (std::size_t i = 0; i < 4; ++i) {
                Result<double> n = number(r[i], "outline");
                if (!n) return n.error();
                v[i] = *n;
            }
            out.push_back({v[0], v[1], v[2], v[3]});
        }
        return out;
    }

    Result<AssetFootprint> footprint(const YAML::Node& node) const {
        AssetFootprint f;
        if (node.IsSequence()) {
            if (node.size() != 2) return fail(node, "footprint", "expected [width, depth] or {width: …, depth: …}");
            Result<double> w = size(node[0], "footprint");
            if (!w) return w.error();
            Result<double> d = size(node[1], "footprint");
            if (!d) return d.error();
            return AssetFootprint{*w, *d};
        }
        if (!node.IsMap()) {
            return fail(node, "footprint", "expected {width: …, depth: …} in metres, got " + describe(node));
        }
        bool haveWidth = false;
        bool haveDepth = false;
        for (auto it = node.begin(); it != node.end(); ++it) {
            const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
            if (name == "width" || name == "depth") {
                Result<double> v = size(it->second, "footprint." + name);
                if (!v) return v.error();
                (name == "width" ? f.width : f.depth) = *v;
                (name == "width" ? haveWidth : haveDepth) = true;
            } else {
                return fail(it->first, "footprint." + name, "is not a footprint key (expected width and depth)");
            }
        }
        if (!haveWidth) return fail(node, "footprint.width", "is missing");
        if (!haveDepth) return fail(node, "footprint.depth", "is missing");
        return f;
    }

    std::string mSource;
    std::filesystem::path mBaseDir;
    std::string mAssetName;
    YAML::Node mFileNode;
    YAML::Node mOutlineNode;
    std::vector<YAML::Node> mOutlineRectNodes;
    bool mHaveOutline = false;
    bool mNeedsMesh = false;
    bool mHaveFootprint = false;
    bool mHaveHeight = false;
};

Result<AssetCatalogue> parseUnguarded(std::string_view yaml, const std::filesystem::path& baseDir,
                                      std::string_view source, const AssetCatalogueOptions& options) {
    YAML::Node root;
    try {
        root = YAML::Load(std::string(yaml));
    } catch (const YAML::ParserException& e) {
        return Error{where(source, e.mark) + ": YAML syntax error: " + e.msg};
    }
    if (!root || root.IsNull()) return Error{std::string(source) + ": the catalogue is empty (expected 'assets:')"};
    if (!root.IsMap()) {
        return Error{where(source, root.Mark()) + ": expected a map with 'version' and 'assets', got " +
                     describe(root)};
    }
    YAML::Node assets;
    std::set<std::string> seen;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
        if (!seen.insert(name).second)
            return Error{where(source, it->first.Mark()) + ": key '" + name + "' appears twice"};
        if (name == "version") {
            int version = 0;
            if (!it->second.IsScalar() || !YAML::convert<int>::decode(it->second, version)) {
                return Error{where(source, it->second.Mark()) + ": key 'version' expected a whole number, got " +
                             describe(it->second)};
            }
            if (version != AssetCatalogue::kFormatVersion) {
                return Error{where(source, it->second.Mark()) + ": key 'version' is " + std::to_string(version) +
                             "; this Terrabit reads version " + std::to_string(AssetCatalogue::kFormatVersion)};
            }
        } else if (name == "assets") {
            assets = it->second;
        } else {
            return Error{where(source, it->first.Mark()) + ": key '" + name +
                         "' is not a catalogue key (expected version and assets)"};
        }
    }
    if (!assets) return Error{where(source, root.Mark()) + ": key 'assets' is missing"};
    AssetCatalogue catalogue;
    if (assets.IsNull()) return catalogue;
    if (!assets.IsSequence()) {
        return Error{where(source, assets.Mark()) + ": key 'assets' expected a list of assets, got " +
                     describe(assets)};
    }
    std::size_t index = 0;
    for (const YAML::Node& entry : assets) {
        EntryParser parser(source, baseDir);
        Result<AssetInfo> info = parser.parse(entry, index++);
        if (!info) return info.error();
        if (catalogue.find(info->id) != nullptr) {
            return Error{where(source, entry["id"].Mark()) + ": asset '" + info->id +
                         "': key 'id' is used twice (also at line " + std::to_string(catalogue.find(info->id)->line) +
                         ")"};
        }
        if (Status s = parser.measure(*info, options.verifyModels); !s) return s.error();
        if (Status s = catalogue.add(std::move(*info)); !s) {
            return Error{where(source, entry.Mark()) + ": " + s.message()};
        }
    }
    return catalogue;
}

// Millimetres are the finest size worth writing; trailing zeros are dropped so hand-typed
// values read back as typed, and a catalogue written, read and written again is the same text.
// Two kinds of value do not survive that rounding and are written in the shortest form that
// reads back exactly: a huge one (its %.3f form has hundreds of digits; the fuzzer found 2e144
// cut to its first 63) and a non-zero one that rounds to 0 (0.0004 written as 0 would no longer
// be a positive size).
std::string formatNumber(double v) {
    char buf[64];
    if (std::fabs(v) < 1e15) {
        std::snprintf(buf, sizeof buf, "%.3f", v);
        std::string s(buf);
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
        if (s == "-0") s = "0";
        if (s != "0" || v == 0.0) return s;
    }
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

OutlineProblem outlineProblem(const std::vector<OutlineRect>& outline, const AssetFootprint& f) {
    if (outline.size() > kMaxOutlineRects) {
        return {outline.size(), "has " + std::to_string(outline.size()) + " rectangles; at most " +
                                    std::to_string(kMaxOutlineRects) + " are allowed"};
    }
    const double hx = 0.5 * f.width + kOutlineSlack, hz = 0.5 * f.depth + kOutlineSlack;
    for (std::size_t i = 0; i < outline.size(); ++i) {
        const OutlineRect& r = outline[i];
        const std::string which = "rectangle " + std::to_string(i + 1) + " [" + formatNumber(r.x0) + ", " +
                                  formatNumber(r.z0) + ", " + formatNumber(r.x1) + ", " + formatNumber(r.z1) + "]";
        if (!(r.x0 < r.x1) || !(r.z0 < r.z1) || !std::isfinite(r.x0) || !std::isfinite(r.x1) || !std::isfinite(r.z0) ||
            !std::isfinite(r.z1)) {
            return {i, which + " is empty (it needs x0 < x1 and z0 < z1)"};
        }
        if (r.x0 < -hx || r.x1 > hx || r.z0 < -hz || r.z1 > hz) {
            return {i, which + " reaches outside the footprint box [" + formatNumber(-0.5 * f.width) + ", " +
                           formatNumber(-0.5 * f.depth) + ", " + formatNumber(0.5 * f.width) + ", " +
                           formatNumber(0.5 * f.depth) + "]"};
        }
    }
    return {};
}

}  // namespace

Result<AssetCatalogue> AssetCatalogue::parse(std::string_view yaml, const std::filesystem::path& baseDir,
                                             std::string_view sourceName, const AssetCatalogueOptions& options) {
    // yaml-cpp reports through exceptions; none may leave core.
    try {
        return parseUnguarded(yaml, baseDir, sourceName, options);
    } catch (const YAML::Exception& e) {
        return Error{where(sourceName, e.mark) + ": " + e.msg};
    } catch (const std::exception& e) {
        return Error{std::string(sourceName) + ": " + e.what()};
    }
}

Result<AssetCatalogue> AssetCatalogue::load(const std::filesystem::path& file, const AssetCatalogueOptions& options) {
    auto text = readTextFile(file, "catalogue");
    if (!text) return text.error();
    return parse(*text, file.parent_path(), file.string(), options);
}

Status AssetCatalogue::add(AssetInfo info) {
    const std::string name = "asset '" + info.id + "'";
    if (info.id.empty()) return Error{"an asset has no id"};
    if (find(info.id) != nullptr) return Error{name + ": id is used twice"};
    if (info.category.empty()) return Error{name + ": no category"};
    if (!(info.footprint.width > 0.0) || !(info.footprint.depth > 0.0) || !std::isfinite(info.footprint.width) ||
        !std::isfinite(info.footprint.depth)) {
        return Error{name + ": footprint " + formatNumber(info.footprint.width) + " × " +
                     formatNumber(info.footprint.depth) + " m is not positive"};
    }
    if (!(info.height > 0.0) || !std::isfinite(info.height)) {
        return Error{name + ": height " + formatNumber(info.height) + " m is not positive"};
    }
    if (std::max({info.footprint.width, info.footprint.depth, info.height}) > kMaxModelMetres) {
        return Error{name + ": " + formatNumber(info.footprint.width) + " × " + formatNumber(info.footprint.depth) +
                     " × " + formatNumber(info.height) + " m is larger than a model may be (" +
                     formatNumber(kMaxModelMetres) + " m along any axis)"};
    }
    if (!(info.weight >= 0.0) || !std::isfinite(info.weight)) {
        return Error{name + ": weight " + formatNumber(info.weight) + " is negative"};
    }
    if (const OutlineProblem p = outlineProblem(info.outline, info.footprint); !p.what.empty()) {
        return Error{name + ": outline " + p.what};
    }
    mAssets.push_back(std::move(info));
    return Status::success();
}

void AssetCatalogue::merge(const AssetCatalogue& other) {
    for (const AssetInfo& info : other.mAssets) {
        auto it = std::find_if(mAssets.begin(), mAssets.end(), [&](const AssetInfo& a) { return a.id == info.id; });
        if (it != mAssets.end()) {
            *it = info;
        } else {
            mAssets.push_back(info);
        }
    }
}

const AssetInfo* AssetCatalogue::find(std::string_view id) const {
    for (const AssetInfo& a : mAssets) {
        if (a.id == id) return &a;
    }
    return nullptr;
}

std::vector<const AssetInfo*> AssetCatalogue::ofCategory(std::string_view category) const {
    AssetFilter filter;
    filter.category = std::string(category);
    return select(filter);
}

std::vector<const AssetInfo*> AssetCatalogue::select(const AssetFilter& filter) const {
    std::vector<const AssetInfo*> out;
    for (const AssetInfo& a : mAssets) {
        if (!filter.category.empty() && a.category != filter.category) continue;
        if (!std::all_of(filter.allTags.begin(), filter.allTags.end(),
                         [&](const std::string& t) { return a.hasTag(t); })) {
            continue;
        }
        if (!filter.anyTags.empty() && std::none_of(filter.anyTags.begin(), filter.anyTags.end(),
                                                    [&](const std::string& t) { return a.hasTag(t); })) {
            continue;
        }
        if (std::any_of(filter.noneTags.begin(), filter.noneTags.end(),
                        [&](const std::string& t) { return a.hasTag(t); })) {
            continue;
        }
        out.push_back(&a);
    }
    return out;
}

std::vector<std::string> AssetCatalogue::categories() const {
    std::set<std::string> set;
    for (const AssetInfo& a : mAssets) set.insert(a.category);
    return {set.begin(), set.end()};
}

std::string AssetCatalogue::toYaml(std::string_view headerComment) const {
    std::string out;
    std::string_view rest = headerComment;
    while (!rest.empty()) {
        const std::size_t nl = rest.find('\n');
        const std::string_view line = rest.substr(0, nl);
        out += line.empty() ? "#\n" : "# " + std::string(line) + "\n";
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
    }
    out += "version: " + std::to_string(kFormatVersion) + "\n";
    out += "assets:\n";
    for (const AssetInfo& a : mAssets) {
        out += "  - id: " + yamlScalar(a.id) + "\n";
        out += "    file: " + yamlScalar(a.file.empty() ? a.path.generic_string() : a.file) + "\n";
        out += "    category: " + yamlScalar(a.category) + "\n";
        out += "    footprint: {width: " + formatNumber(a.footprint.width) +
               ", depth: " + formatNumber(a.footprint.depth) + "}\n";
        if (!a.outline.empty()) {
            out += "    outline: [";
            for (std::size_t i = 0; i < a.outline.size(); ++i) {
                const OutlineRect& r = a.outline[i];
                out += std::string(i ? ", " : "") + "[" + formatNumber(r.x0) + ", " + formatNumber(r.z0) + ", " +
                       formatNumber(r.x1) + ", " + formatNumber(r.z1) + "]";
            }
            out += "]\n";
        }
        out += "    height: " + formatNumber(a.height) + "\n";
        out += "    tags: [";
        for (std::size_t i = 0; i < a.tags.size(); ++i) out += (i ? ", " : "") + yamlScalar(a.tags[i]);
        out += "]\n";
        out += "    weight: " + formatNumber(a.weight) + "\n";
    }
    return out;
}

}  // namespace terrabit::core
