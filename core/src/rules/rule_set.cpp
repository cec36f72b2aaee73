#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/rules/layer_name.h"
#include "terrabit/core/text_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "yaml_document_p.h"

namespace terrabit::core {

bool TagCondition::holds(const Feature& f) const {
    const auto value = f.tag(key);
    if (!value) return false;
    if (values.empty()) return true;
    return std::find(values.begin(), values.end(), *value) != values.end();
}

bool FeatureMatcher::matches(const Feature& f) const {
    if (!(kinds & (1u << static_cast<unsigned>(f.kind)))) return false;
    if (!sourceLayers.empty() &&
        std::find(sourceLayers.begin(), sourceLayers.end(), f.sourceLayer) == sourceLayers.end()) {
        return false;
    }
    for (const TagCondition& c : tags) {
        if (!c.holds(f)) return false;
    }
    for (const TagCondition& c : except) {
        if (c.holds(f)) return false;
    }
    return true;
}

double WidthRule::widthOf(const Feature& f) const {
    if (!fromTag.empty()) {
        if (const auto w = f.metresTag(fromTag); w && *w > 0.0) return *w;
    }
    for (const std::string& key : byKeys) {
        const auto value = f.tag(key);
        if (!value) continue;
        for (const auto& [v, metres] : values) {
            if (v == *value) return metres;
        }
    }
    return defaultMetres;
}

std::optional<Rgb> parseRgb(std::string_view text) {
    if (!text.empty() && text.front() == '#') text.remove_prefix(1);
    if (text.size() != 6) return std::nullopt;
    std::uint8_t c[3];
    for (int i = 0; i < 3; ++i) {
        unsigned v = 0;
        const char* begin = text.data() + 2 * i;
        const auto [end, ec] = std::from_chars(begin, begin + 2, v, 16);
        if (ec != std::errc{} || end != begin + 2) return std::nullopt;
        c[i] = static_cast<std::uint8_t>(v);
    }
    return Rgb{c[0], c[1], c[2]};
}

std::vector<LayerInfo> RuleSet::layerInfos() const {
    std::vector<LayerInfo> out;
    out.reserve(mLayers.size());
    for (const LayerRule& l : mLayers) out.push_back(l.info);
    return out;
}

std::vector<std::string> RuleSet::layerNames() const {
    std::vector<std::string> out;
    out.reserve(mLayers.size());
    for (const LayerRule& l : mLayers) out.push_back(l.info.name);
    return out;
}

int RuleSet::layerId(std::string_view name) const {
    for (std::size_t i = 0; i < mLayers.size(); ++i) {
        if (mLayers[i].info.name == name) return static_cast<int>(i);
    }
    return -1;
}

bool RuleSet::wantsSea() const {
    return std::any_of(mLayers.begin(), mLayers.end(), [](const LayerRule& l) { return l.sea; });
}

// ---------------------------------------------------------------------------------------------
// Parsing and schema checks.

namespace {

/// Raised inside the parser only and turned into an Error at its boundary: every check can then
/// stop the parse in one line. Never leaves this file.
struct RulesError {
    std::string message;
};

// Preview colours for layers that name none, by layer id.
constexpr Rgb kPalette[] = {{214, 39, 40}, {44, 160, 44},   {127, 127, 127}, {31, 119, 180}, {148, 103, 189},
                            {140, 86, 75}, {227, 119, 194}, {188, 189, 34},  {23, 190, 207}, {255, 127, 14}};

std::string joined(std::initializer_list<std::string_view> keys) {
    std::string out;
    for (std::string_view k : keys) {
        if (!out.empty()) out += ", ";
        out += k;
    }
    return out;
}

}  // namespace

class RulesParser {
public:
    explicit RulesParser(std::string source) : mSource(std::move(source)) {}

    Result<RuleSet> run(std::string_view text) {
        return yaml_detail::parseDocument<RulesError>(mSource, text, [&](const YAML::Node& root) -> Result<RuleSet> {
            RuleSet rules;
            rules.mSource = mSource;
            document(root, rules);
            return rules;
        });
    }

private:
    [[noreturn]] void fail(const YAML::Node& at, const std::string& path, const std::string& problem) const {
        throw RulesError{yaml_detail::where(mSource, at.Mark()) + ": " + (path.empty() ? "" : path + ": ") + problem};
    }

    /// Checks that every key of a map is allowed and appears once.
    void checkKeys(const YAML::Node& map, const std::string& path,
                   std::initializer_list<std::string_view> allowed) const {
        std::set<std::string> seen;
        for (auto it = map.begin(); it != map.end(); ++it) {
            const YAML::Node key = it->first;  // a copy: the iterator hands out a temporary pair
            if (!key.IsScalar()) fail(key, path, "keys must be plain words");
            const std::string& k = key.Scalar();
            if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
                fail(key, path, "unknown key '" + k + "' (expected one of: " + joined(allowed) + ")");
            }
            if (!seen.insert(k).second) fail(key, path, "key '" + k + "' appears twice");
        }
    }

    static std::optional<YAML::Node> find(const YAML::Node& map, std::string_view key) {
        for (auto it = map.begin(); it != map.end(); ++it) {
            if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
        }
        return std::nullopt;
    }

    std::string scalar(const YAML::Node& n, const std::string& path) const {
        if (!n.IsScalar()) fail(n, path, "expected a single value, not a " + yaml_detail::typeName(n));
        return n.Scalar();
    }

    double positive(const YAML::Node& n, const std::string& path, bool allowZero = false) const {
        const std::string s = scalar(n, path);
        double v = 0.0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v)) {
            fail(n, path, "expected a number of metres, got '" + s + "'");
        }
        if (v < 0.0 || (!allowZero && v == 0.0)) fail(n, path, "expected a positive number of metres, got '" + s + "'");
        return v;
    }

    bool boolean(const YAML::Node& n, const std::string& path) const {
        const std::string s = scalar(n, path);
        if (s == "true" || s == "yes") return true;
        if (s == "false" || s == "no") return false;
        fail(n, path, "expected true or false, got '" + s + "'");
    }

    /// A scalar or a list of scalars, as a list.
    std::vector<std::string> words(const YAML::Node& n, const std::string& path) const {
        std::vector<std::string> out;
        if (n.IsScalar()) {
            out.push_back(n.Scalar());
        } else if (n.IsSequence()) {
            if (n.size() == 0) fail(n, path, "the list is empty");
            for (std::size_t i = 0; i < n.size(); ++i)
                out.push_back(scalar(n[i], path + "[" + std::to_string(i) + "]"));
        } else {
            fail(n, path, "expected a value or a list of values, not a " + yaml_detail::typeName(n));
        }
        return out;
    }

    void document(const YAML::Node& root, RuleSet& rules) {
        if (!root.IsMap())
            fail(root, "", "a rules document is a map with a 'layers:' section, not a " + yaml_detail::typeName(root));
        std::optional<YAML::Node> layersNode;
        for (auto it = root.begin(); it != root.end(); ++it) {
            const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string();
            if (key == "version") {
                const std::string v = scalar(it->second, "version");
                if (v != "1") fail(it->second, "version", "only version 1 is understood, not '" + v + "'");
            } else if (key == "layers") {
                if (layersNode) fail(it->first, "", "key 'layers' appears twice");
                layersNode = it->second;
            } else if (key == "expressions" || key == "passes") {
                // The placement rules' sections (placement_rules.h): not ours to check.
                rules.mOtherSections.push_back(key);
            } else {
                fail(it->first, "",
                     "unknown key '" + key + "' (expected one of: version, layers, expressions, passes)");
            }
        }
        if (!layersNode) fail(root, "", "no 'layers:' section");
        const YAML::Node& layers = *layersNode;
        if (!layers.IsSequence())
            fail(layers, "layers", "expected a list of layers, not a " + yaml_detail::typeName(layers));
        if (layers.size() == 0) fail(layers, "layers", "the list is empty");
        std::set<std::string> names;
        for (std::size_t i = 0; i < layers.size(); ++i) {
            layer(layers[i], "layers[" + std::to_string(i) + "]", rules, names);
        }
    }

    void layer(const YAML::Node& n, const std::string& path, RuleSet& rules, std::set<std::string>& names) {
        if (!n.IsMap()) fail(n, path, "a layer is a map with at least 'name:', not a " + yaml_detail::typeName(n));
        checkKeys(
            n, path,
            {"name", "description", "colour", "color", "coverage", "match", "classes", "width", "point_radius", "sea"});
        const int id = static_cast<int>(rules.mLayers.size());
        rules.mLayers.push_back(common(n, path, id, names, nullptr));
        const auto classesNode = find(n, "classes");
        if (classesNode) {
            const YAML::Node& classes = *classesNode;
            if (!classes.IsSequence() || classes.size() == 0) {
                fail(classes, path + ".classes", "expected a non-empty list of classes");
            }
            for (std::size_t i = 0; i < classes.size(); ++i) {
                const std::string cpath = path + ".classes[" + std::to_string(i) + "]";
                const YAML::Node& c = classes[i];
                if (!c.IsMap())
                    fail(c, cpath, "a class is a map with at least 'name:', not a " + yaml_detail::typeName(c));
                checkKeys(
                    c, cpath,
                    {"name", "description", "colour", "color", "coverage", "match", "width", "point_radius", "sea"});
                const int cid = static_cast<int>(rules.mLayers.size());
                LayerRule parent = rules.mLayers[static_cast<std::size_t>(id)];
                LayerRule cls = common(c, cpath, cid, names, &parent);
                cls.info.parent = id;
                if (cls.match.empty() && !cls.sea) fail(c, cpath, "class '" + cls.info.name + "' has no 'match:'");
                rules.mLayers.push_back(std::move(cls));
                rules.mLayers[static_cast<std::size_t>(id)].info.classes.push_back(cid);
            }
        }
        const LayerRule& l = rules.mLayers[static_cast<std::size_t>(id)];
        if (l.match.empty() && !classesNode && !l.sea) {
            fail(
                n, path,
                "layer '" + l.info.name + "' has neither 'match:', 'classes:' nor 'sea: true'; nothing can go into it");
        }
    }

    /// The keys layers and classes share. A class inherits its parent's coverage, width and
    /// point radius unless it sets its own.
    LayerRule common(const YAML::Node& n, const std::string& path, int id, std::set<std::string>& names,
                     const LayerRule* parent) {
        LayerRule l;
        l.line = n.Mark().line + 1;
        const auto nameNode = find(n, "name");
        if (!nameNode) fail(n, path, "missing 'name:'");
        const YAML::Node& name = *nameNode;
        l.info.name = scalar(name, path + ".name");
        if (!isLayerName(l.info.name)) {
            fail(name, path + ".name",
                 "'" + l.info.name + "' is not a layer name (" + std::string(kLayerNameRule) + ")");
        }
        if (!names.insert(l.info.name).second)
            fail(name, path + ".name", "a layer or class named '" + l.info.name + "' already exists");

        l.info.colour = kPalette[static_cast<std::size_t>(id) % std::size(kPalette)];
        const auto british = find(n, "colour");
        const auto american = find(n, "color");
        if (british && american) fail(*american, path, "give 'colour' or 'color', not both");
        if (const auto colour = british ? british : american) {
            const std::string s = scalar(*colour, path + ".colour");
            const auto rgb = parseRgb(s);
            if (!rgb) fail(*colour, path + ".colour", "expected a colour like \"#3a7d44\", got '" + s + "'");
            l.info.colour = *rgb;
        }

        if (parent) {
            l.info.coverage = parent->info.coverage;
            l.width = parent->width;
            l.pointRadiusMetres = parent->pointRadiusMetres;
        }
        if (const auto c_ = find(n, "coverage")) {
            const YAML::Node& c = *c_;
            const std::string s = scalar(c, path + ".coverage");
            if (s == "centre" || s == "center") {
                l.info.coverage = Coverage::CellCentre;
            } else if (s == "conservative") {
                l.info.coverage = Coverage::Conservative;
            } else {
                fail(c, path + ".coverage", "expected 'centre' or 'conservative', got '" + s + "'");
            }
        }
        if (const auto m_ = find(n, "match")) {
            const YAML::Node& m = *m_;
            if (!m.IsSequence() || m.size() == 0) fail(m, path + ".match", "expected a non-empty list of matchers");
            for (std::size_t i = 0; i < m.size(); ++i)
                l.match.push_back(matcher(m[i], path + ".match[" + std::to_string(i) + "]"));
        }
        if (const auto w_ = find(n, "width")) {
            const YAML::Node& w = *w_;
            l.width = width(w, path + ".width");
        }
        if (const auto r_ = find(n, "point_radius")) {
            const YAML::Node& r = *r_;
            l.pointRadiusMetres = positive(r, path + ".point_radius", true);
        }
        if (const auto s_ = find(n, "sea")) {
            const YAML::Node& s = *s_;
            l.sea = boolean(s, path + ".sea");
        }
        return l;
    }

    FeatureMatcher matcher(const YAML::Node& n, const std::string& path) const {
        if (!n.IsMap())
            fail(n, path, "a matcher is a map (kind, layer, tags, except), not a " + yaml_detail::typeName(n));
        checkKeys(n, path, {"kind", "layer", "tags", "except"});
        if (n.size() == 0) fail(n, path, "an empty matcher would match everything; say what to match");
        FeatureMatcher m;
        if (const auto k_ = find(n, "kind")) {
            const YAML::Node& k = *k_;
            m.kinds = 0;
            for (const std::string& s : words(k, path + ".kind")) {
                if (s == "point") {
                    m.kinds |= 1u << static_cast<unsigned>(FeatureKind::Point);
                } else if (s == "line") {
                    m.kinds |= 1u << static_cast<unsigned>(FeatureKind::Line);
                } else if (s == "area") {
                    m.kinds |= 1u << static_cast<unsigned>(FeatureKind::Area);
                } else {
                    fail(k, path + ".kind", "expected point, line or area, got '" + s + "'");
                }
            }
        }
        if (const auto l_ = find(n, "layer")) {
            const YAML::Node& l = *l_;
            m.sourceLayers = words(l, path + ".layer");
        }
        if (const auto t_ = find(n, "tags")) {
            const YAML::Node& t = *t_;
            m.tags = conditions(t, path + ".tags");
        }
        if (const auto e_ = find(n, "except")) {
            const YAML::Node& e = *e_;
            m.except = conditions(e, path + ".except");
        }
        return m;
    }

    std::vector<TagCondition> conditions(const YAML::Node& n, const std::string& path) const {
        if (!n.IsMap() || n.size() == 0) fail(n, path, "expected a map of tag: value (\"*\" for any value, or a list)");
        std::vector<TagCondition> out;
        std::set<std::string> seen;
        for (auto it = n.begin(); it != n.end(); ++it) {
            TagCondition c;
            c.key = scalar(it->first, path);
            if (!seen.insert(c.key).second) fail(it->first, path, "tag '" + c.key + "' appears twice");
            const std::vector<std::string> values = words(it->second, path + "." + c.key);
            if (!(values.size() == 1 && values[0] == "*")) c.values = values;
            out.push_back(std::move(c));
        }
        return out;
    }

    WidthRule width(const YAML::Node& n, const std::string& path) const {
        WidthRule w;
        if (n.IsScalar()) {
            w.defaultMetres = positive(n, path);
            return w;
        }
        if (!n.IsMap()) fail(n, path, "expected a width in metres or a map (tag, by, values, default)");
        checkKeys(n, path, {"tag", "by", "values", "default"});
        if (const auto t_ = find(n, "tag")) {
            const YAML::Node& t = *t_;
            w.fromTag = scalar(t, path + ".tag");
        }
        if (const auto b_ = find(n, "by")) {
            const YAML::Node& b = *b_;
            w.byKeys = words(b, path + ".by");
        }
        if (const auto v_ = find(n, "values")) {
            const YAML::Node& v = *v_;
            if (!v.IsMap() || v.size() == 0) fail(v, path + ".values", "expected a map of tag value: metres");
            if (w.byKeys.empty()) fail(v, path + ".values", "'values' needs 'by:' naming the tag(s) to look up");
            std::set<std::string> seen;
            for (auto it = v.begin(); it != v.end(); ++it) {
                const std::string key = scalar(it->first, path + ".values");
                if (!seen.insert(key).second) fail(it->first, path + ".values", "value '" + key + "' appears twice");
                w.values.emplace_back(key, positive(it->second, path + ".values." + key));
            }
        }
        if (const auto d_ = find(n, "default")) {
            const YAML::Node& d = *d_;
            w.defaultMetres = positive(d, path + ".default");
        }
        return w;
    }

    std::string mSource;
};

Result<RuleSet> RuleSet::parse(std::string_view text, std::string_view sourceName) {
    return RulesParser(std::string(sourceName)).run(text);
}

Result<RuleSet> RuleSet::load(const std::filesystem::path& file) {
    auto text = readTextFile(file, "rules file");
    if (!text) return text.error();
    return parse(*text, file.string());
}

}  // namespace terrabit::core
