#include "terrabit/core/placement/placement_rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "../rules/yaml_document_p.h"
#include "terrabit/core/algebra/expression_ast.h"

namespace terrabit::core::placement {

const char* passKindName(PassKind kind) {
    switch (kind) {
        case PassKind::Buildings:
            return "buildings";
        case PassKind::Surface:
            return "surface";
        case PassKind::Vegetation:
            return "vegetation";
    }
    return "unknown";
}

namespace {

/// Thrown inside the parser only, caught at its entry: the message is complete.
struct PassesError {
    std::string message;
};

std::string joined(std::initializer_list<std::string_view> keys) {
    std::string out;
    for (std::string_view k : keys) {
        if (!out.empty()) out += ", ";
        out += k;
    }
    return out;
}

/// Says where a key of a pass is written: "<source>:<line>:<column>: <path>" — or only the
/// line of the pass when the rules were made in code.
using Locate = std::function<std::string(const std::string& key)>;

/// The layer's own name and its classes' names.
std::vector<std::string> classNamesOf(const std::vector<LayerInfo>& layers, int id) {
    std::vector<std::string> out{layers[static_cast<std::size_t>(id)].name};
    for (int c : layers[static_cast<std::size_t>(id)].classes) out.push_back(layers[static_cast<std::size_t>(c)].name);
    return out;
}

int layerIdOf(const std::vector<LayerInfo>& layers, std::string_view name) {
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (layers[i].name == name) return static_cast<int>(i);
    }
    return -1;
}

std::string knownLayers(const std::vector<LayerInfo>& layers) {
    std::string out;
    for (const LayerInfo& l : layers) {
        if (l.parent >= 0) continue;
        if (!out.empty()) out += ", ";
        out += l.name;
    }
    return out;
}

/// Checks one pass's meaning: layers exist, values lie in range, expressions compile.
Status checkPass(const PlacementRules& rules, const PassRule& pass, const std::vector<LayerInfo>& layers,
                 const Locate& at) {
    const auto bad = [&](const std::string& key, const std::string& problem) {
        return Status(Error{at(key) + ": " + problem});
    };
    const std::vector<std::string> names = PlacementRules::expressionLayerNames(layers);
    const auto compiles = [&](const std::string& key, const std::string& text) -> Status {
        if (text.empty()) return Status::success();
        algebra::ExpressionOptions options;
        options.latitude = 45.0;  // any latitude: metres only need to mean something here
        algebra::ExpressionDiagnostic diagnostic;
        const auto ast = algebra::ExpressionAst::parse(rules.expressionDocument(text), names, options, &diagnostic);
        if (ast.ok()) return Status::success();
        return bad(key, "expression '" + text + "': " + diagnostic.what);
    };
    const auto layerOf = [&](const std::string& key, const std::string& name) -> Result<int> {
        const int id = layerIdOf(layers, name);
        if (id < 0) return Error{at(key) + ": no layer '" + name + "' (layers: " + knownLayers(layers) + ")"};
        return id;
    };
    const auto range = [&](const std::string& key, double v, double lo, double hi) -> Status {
        if (std::isfinite(v) && v >= lo && v <= hi) return Status::success();
        std::ostringstream s;
        s << "expected a number in " << lo << ".." << hi << ", got " << v;
        return bad(key, s.str());
    };

    switch (pass.kind) {
        case PassKind::Buildings: {
            const BuildingPassRule& b = pass.buildings;
            if (auto id = layerOf("layer", b.layer); !id) return id.error();
            if (Status s = compiles("blocked_by", b.blockedBy); !s) return s;
            if (Status s = range("margin", b.fit.marginMetres, 0.0, 1000.0); !s) return s;
            if (Status s = range("variety", b.fit.variety, 0.0, 1.0); !s) return s;
            if (!(b.fit.minScale > 0.0) || !(b.fit.maxScale >= b.fit.minScale) || !std::isfinite(b.fit.maxScale)) {
                return bad("scale", "expected [min, max] with 0 < min <= max");
            }
            if (Status s = range("storey_height", b.storeyHeightMetres, 0.1, 100.0); !s) return s;
            if (b.category.empty()) return bad("category", "the category is empty");
            break;
        }
        case PassKind::Surface: {
            const SurfacePassRule& s = pass.surface;
            if (auto id = layerOf("layer", s.layer); !id) return id.error();
            if (Status st = compiles("mask", s.mask); !st) return st;
            if (Status st = range("elevation", s.elevationMetres, -1000.0, 1000.0); !st) return st;
            break;
        }
        case PassKind::Vegetation: {
            const VegetationPassRule& v = pass.vegetation;
            auto id = layerOf("layer", v.layer);
            if (!id) return id.error();
            if (Status s = compiles("zone", v.zone); !s) return s;
            if (Status s = compiles("plant", v.plant); !s) return s;
            if (v.scatter == ScatterKind::Noise) {
                if (Status s = compiles("noise_scale", "noise(" + v.noiseScale + ", 0.5)"); !s) return s;
            }
            if (Status s = range("spacing", v.spacingMetres, 0.0, 100.0); !s) return s;
            if (v.classes.empty()) return bad("classes", "no class is planted: list at least one");
            const std::vector<std::string> allowed = classNamesOf(layers, *id);
            std::set<std::string> seen;
            for (const VegetationClassRule& c : v.classes) {
                const std::string key = "classes." + c.layer;
                if (std::find(allowed.begin(), allowed.end(), c.layer) == allowed.end()) {
                    std::string list;
                    for (const std::string& n : allowed) list += (list.empty() ? "" : ", ") + n;
                    return bad(key, "'" + c.layer + "' is not " + v.layer + " or one of its classes (" + list + ")");
                }
                if (!seen.insert(c.layer).second) return bad(key, "class '" + c.layer + "' is listed twice");
                if (Status s = range(key + ".density", c.density, 0.0, 1.0); !s) return s;
                if (Status s = range(key + ".jitter", c.jitter, 0.0, 1.0); !s) return s;
                if (!(c.minScale > 0.0) || !(c.maxScale >= c.minScale) || !std::isfinite(c.maxScale)) {
                    return bad(key + ".scale", "expected [min, max] with 0 < min <= max");
                }
                if (Status s = compiles(key + ".avoid", c.avoid); !s) return s;
                if (c.species.empty()) return bad(key + ".species", "no species: give at least one asset id");
                for (const SpeciesWeight& w : c.species) {
                    if (!(w.weight > 0.0) || !std::isfinite(w.weight)) {
                        return bad(key + ".species." + w.asset, "the weight must be a positive number");
                    }
                }
            }
            break;
        }
    }
    return Status::success();
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

// -- the YAML parser ------------------------------------------------------------------------------

class PassesParser {
public:
    PassesParser(std::string source, const std::vector<LayerInfo>& layers)
        : mSource(std::move(source)), mLayers(layers) {}

    Result<PlacementRules> run(std::string_view text) {
        return yaml_detail::parseDocument<PassesError>(mSource, text,
                                                       [&](const YAML::Node& root) -> Result<PlacementRules> {
                                                           PlacementRules rules;
                                                           rules.mSource = mSource;
                                                           document(root, rules);
                                                           return rules;
                                                       });
    }

private:
    std::string where(const YAML::Node& at) const { return yaml_detail::where(mSource, at.Mark()); }

    [[noreturn]] void fail(const YAML::Node& at, const std::string& path, const std::string& problem) const {
        throw PassesError{where(at) + ": " + (path.empty() ? "" : path + ": ") + problem};
    }

    static std::string typeName(const YAML::Node& n) {
        switch (n.Type()) {
            case YAML::NodeType::Map:
                return "map";
            case YAML::NodeType::Sequence:
                return "list";
            case YAML::NodeType::Scalar:
                return "value";
            case YAML::NodeType::Null:
                return "empty value";
            default:
                return "nothing";
        }
    }

    void checkKeys(const YAML::Node& map, const std::string& path,
                   std::initializer_list<std::string_view> allowed) const {
        if (!map.IsMap()) fail(map, path, "expected a map, not a " + typeName(map));
        std::set<std::string> seen;
        for (auto it = map.begin(); it != map.end(); ++it) {
            const YAML::Node key = it->first;
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
        if (!n.IsScalar()) fail(n, path, "expected a single value, not a " + typeName(n));
        return n.Scalar();
    }

    double real(const YAML::Node& n, const std::string& path) const {
        const std::string s = scalar(n, path);
        double v = 0.0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v)) {
            fail(n, path, "expected a number, got '" + s + "'");
        }
        return v;
    }

    double within(const YAML::Node& n, const std::string& path, double lo, double hi) const {
        const double v = real(n, path);
        if (v < lo || v > hi) {
            std::ostringstream s;
            s << "expected a number in " << lo << ".." << hi << ", got '" << n.Scalar() << "'";
            fail(n, path, s.str());
        }
        return v;
    }

    std::uint64_t seed(const YAML::Node& n, const std::string& path) const {
        const std::string s = scalar(n, path);
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc{} || end != s.data() + s.size()) {
            fail(n, path, "expected a whole number 0..18446744073709551615, got '" + s + "'");
        }
        return v;
    }

    /// `[min, max]` or a single number (min = max), both > 0 and min <= max.
    std::pair<double, double> scaleRange(const YAML::Node& n, const std::string& path) const {
        if (n.IsScalar()) {
            const double v = real(n, path);
            if (!(v > 0.0)) fail(n, path, "expected a positive scale");
            return {v, v};
        }
        if (!n.IsSequence() || n.size() != 2) fail(n, path, "expected [min, max] or one number");
        const double lo = real(n[0], path + "[0]");
        const double hi = real(n[1], path + "[1]");
        if (!(lo > 0.0) || !(hi >= lo)) fail(n, path, "expected [min, max] with 0 < min <= max");
        return {lo, hi};
    }

    std::vector<std::string> words(const YAML::Node& n, const std::string& path) const {
        std::vector<std::string> out;
        if (n.IsScalar()) {
            out.push_back(n.Scalar());
        } else if (n.IsSequence()) {
            for (std::size_t i = 0; i < n.size(); ++i)
                out.push_back(scalar(n[i], path + "[" + std::to_string(i) + "]"));
        } else {
            fail(n, path, "expected a value or a list of values, not a " + typeName(n));
        }
        return out;
    }

    std::vector<TagCondition> conditions(const YAML::Node& n, const std::string& path) const {
        if (!n.IsMap()) fail(n, path, "expected a map of tag conditions ({key: value}), not a " + typeName(n));
        std::vector<TagCondition> out;
        for (auto it = n.begin(); it != n.end(); ++it) {
            TagCondition c;
            c.key = scalar(it->first, path);
            const std::vector<std::string> values = words(it->second, path + "." + c.key);
            if (!(values.size() == 1 && values[0] == "*")) c.values = values;
            out.push_back(std::move(c));
        }
        return out;
    }

    void document(const YAML::Node& root, PlacementRules& rules) {
        if (!root.IsMap()) fail(root, "", "a rules document is a map, not a " + typeName(root));
        const std::optional<YAML::Node> expressions = find(root, "expressions");
        const std::optional<YAML::Node> passes = find(root, "passes");
        if (expressions) {
            const YAML::Node& e = *expressions;
            if (!e.IsMap()) fail(e, "expressions", "expected a map of name: expression, not a " + typeName(e));
            for (auto it = e.begin(); it != e.end(); ++it) {
                ExpressionRule x;
                x.name = scalar(it->first, "expressions");
                x.text = scalar(it->second, "expressions." + x.name);
                x.line = it->first.Mark().line + 1;
                for (const ExpressionRule& other : rules.mExpressions) {
                    if (other.name == x.name) fail(it->first, "expressions", "'" + x.name + "' is defined twice");
                }
                rules.mExpressions.push_back(std::move(x));
            }
            // Compile the definitions together (they may use each other in any order); a failure
            // is blamed on the definition holding the diagnostic's line.
            algebra::ExpressionOptions options;
            options.latitude = 45.0;
            const std::vector<std::string> names = PlacementRules::expressionLayerNames(mLayers);
            algebra::ExpressionDiagnostic d;
            const auto ast = algebra::ExpressionAst::parse(rules.expressionDocument("none"), names, options, &d);
            if (!ast.ok()) {
                int line = 1;
                auto it = e.begin();
                for (const ExpressionRule& x : rules.mExpressions) {
                    const int lines = 1 + static_cast<int>(std::count(x.text.begin(), x.text.end(), '\n'));
                    if (d.line < line + lines) break;
                    line += lines;
                    ++it;
                }
                if (it == e.end()) fail(e, "expressions", d.what);
                fail(it->second, "expressions." + it->first.Scalar(),
                     "expression '" + it->second.Scalar() + "': " + d.what);
            }
        }
        if (!passes) {
            fail(root, "",
                 "no 'passes:' section: the document says how layers become a scene there (see "
                 "resources/rules/default.yaml)");
        }
        const YAML::Node& list = *passes;
        if (!list.IsSequence() || list.size() == 0) fail(list, "passes", "expected a non-empty list of passes");
        std::set<std::string> names;
        bool buildings = false;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string path = "passes[" + std::to_string(i) + "]";
            std::map<std::string, YAML::Mark> marks;
            PassRule p = pass(list[i], path, marks);
            if (!names.insert(p.name).second) fail(list[i], path, "a pass named '" + p.name + "' comes earlier");
            if (p.kind == PassKind::Buildings) {
                if (buildings) fail(list[i], path, "only one buildings pass is allowed");
                buildings = true;
            }
            const Locate at = [&](const std::string& key) {
                std::string head = key;
                if (const auto dot = head.find('.'); dot != std::string::npos) head = head.substr(0, dot);
                const auto it = marks.find(key) != marks.end() ? marks.find(key) : marks.find(head);
                std::string w = mSource;
                if (it != marks.end()) {
                    w += ":" + std::to_string(it->second.line + 1) + ":" + std::to_string(it->second.column + 1);
                } else {
                    w += ":" + std::to_string(p.line);
                }
                return w + ": " + path + "." + key;
            };
            if (Status s = checkPass(rules, p, mLayers, at); !s) throw PassesError{s.message()};
            rules.mPasses.push_back(std::move(p));
        }
    }

    PassRule pass(const YAML::Node& n, const std::string& path, std::map<std::string, YAML::Mark>& marks) const {
        if (!n.IsMap()) fail(n, path, "a pass is a map with 'name:' and 'type:', not a " + typeName(n));
        PassRule p;
        p.line = n.Mark().line + 1;
        const std::optional<YAML::Node> name = find(n, "name");
        const std::optional<YAML::Node> type = find(n, "type");
        if (!name) fail(n, path, "a pass needs a 'name:'");
        if (!type) fail(n, path, "a pass needs a 'type:' (buildings, surface or vegetation)");
        p.name = scalar(*name, path + ".name");
        const std::string kind = scalar(*type, path + ".type");
        const std::string at = path + " '" + p.name + "'";
        if (kind == "buildings") {
            p.kind = PassKind::Buildings;
            checkKeys(n, at,
                      {"name", "type", "seed", "layer", "box", "blocked_by", "margin", "scale", "variety", "height",
                       "storey_height", "category", "filters"});
        } else if (kind == "surface") {
            p.kind = PassKind::Surface;
            checkKeys(n, at, {"name", "type", "seed", "layer", "mask", "elevation", "colour"});
        } else if (kind == "vegetation") {
            p.kind = PassKind::Vegetation;
            checkKeys(n, at,
                      {"name", "type", "seed", "layer", "zone", "plant", "avoid", "scatter", "noise_scale", "density",
                       "jitter", "scale", "spacing", "classes"});
        } else {
            fail(*type, path + ".type",
                 "unknown pass type '" + kind + "' (expected one of: buildings, surface, vegetation)");
        }
        for (auto it = n.begin(); it != n.end(); ++it) marks[it->first.Scalar()] = it->second.Mark();

        if (auto s = find(n, "seed")) p.seed = seed(*s, at + ".seed");
        switch (p.kind) {
            case PassKind::Buildings:
                buildingPass(n, at, p.buildings);
                break;
            case PassKind::Surface:
                surfacePass(n, at, p.surface);
                break;
            case PassKind::Vegetation:
                vegetationPass(n, at, p.vegetation, marks);
                break;
        }
        return p;
    }

    void buildingPass(const YAML::Node& n, const std::string& at, BuildingPassRule& b) const {
        b.fit = FitOptions{0.4, 1.0, 1.0, 0.1};
        if (auto v = find(n, "layer")) b.layer = scalar(*v, at + ".layer");
        if (auto v = find(n, "box")) {
            const std::string s = scalar(*v, at + ".box");
            if (s == "oriented") {
                b.box = TargetBoxKind::Oriented;
            } else if (s == "axis_aligned") {
                b.box = TargetBoxKind::AxisAligned;
            } else {
                fail(*v, at + ".box", "expected oriented or axis_aligned, got '" + s + "'");
            }
        }
        if (auto v = find(n, "blocked_by")) b.blockedBy = scalar(*v, at + ".blocked_by");
        if (auto v = find(n, "margin")) b.fit.marginMetres = within(*v, at + ".margin", 0.0, 1000.0);
        if (auto v = find(n, "scale")) std::tie(b.fit.minScale, b.fit.maxScale) = scaleRange(*v, at + ".scale");
        if (auto v = find(n, "variety")) b.fit.variety = within(*v, at + ".variety", 0.0, 1.0);
        if (auto v = find(n, "height")) {
            const std::string s = scalar(*v, at + ".height");
            if (s == "tags") {
                b.height = HeightSource::Tags;
            } else if (s == "model") {
                b.height = HeightSource::Model;
            } else {
                fail(*v, at + ".height", "expected tags or model, got '" + s + "'");
            }
        }
        if (auto v = find(n, "storey_height")) b.storeyHeightMetres = within(*v, at + ".storey_height", 0.1, 100.0);
        if (auto v = find(n, "category")) b.category = scalar(*v, at + ".category");
        if (auto v = find(n, "filters")) {
            if (!v->IsSequence()) fail(*v, at + ".filters", "expected a list of filters, not a " + typeName(*v));
            for (std::size_t i = 0; i < v->size(); ++i) {
                const YAML::Node f = (*v)[i];
                const std::string fp = at + ".filters[" + std::to_string(i) + "]";
                checkKeys(f, fp, {"when", "any_tags", "all_tags", "none_tags"});
                ModelFilterRule rule;
                rule.line = f.Mark().line + 1;
                if (auto w = find(f, "when")) rule.when = conditions(*w, fp + ".when");
                if (auto w = find(f, "any_tags")) rule.models.anyTags = words(*w, fp + ".any_tags");
                if (auto w = find(f, "all_tags")) rule.models.allTags = words(*w, fp + ".all_tags");
                if (auto w = find(f, "none_tags")) rule.models.noneTags = words(*w, fp + ".none_tags");
                b.filters.push_back(std::move(rule));
            }
        }
    }

    void surfacePass(const YAML::Node& n, const std::string& at, SurfacePassRule& s) const {
        const auto layer = find(n, "layer");
        if (!layer) fail(n, at, "a surface pass needs a 'layer:'");
        s.layer = scalar(*layer, at + ".layer");
        if (auto v = find(n, "mask")) s.mask = scalar(*v, at + ".mask");
        if (auto v = find(n, "elevation")) s.elevationMetres = within(*v, at + ".elevation", -1000.0, 1000.0);
        if (auto v = find(n, "colour")) {
            const std::string text = scalar(*v, at + ".colour");
            s.colour = parseRgb(text);
            if (!s.colour) fail(*v, at + ".colour", "expected a colour \"#rrggbb\", got '" + text + "'");
        }
    }

    void vegetationPass(const YAML::Node& n, const std::string& at, VegetationPassRule& v,
                        std::map<std::string, YAML::Mark>& marks) const {
        if (auto x = find(n, "layer")) v.layer = scalar(*x, at + ".layer");
        if (auto x = find(n, "zone")) v.zone = scalar(*x, at + ".zone");
        if (auto x = find(n, "plant")) v.plant = scalar(*x, at + ".plant");
        if (auto x = find(n, "scatter")) {
            const std::string s = scalar(*x, at + ".scatter");
            if (s == "random") {
                v.scatter = ScatterKind::Random;
            } else if (s == "noise") {
                v.scatter = ScatterKind::Noise;
            } else {
                fail(*x, at + ".scatter", "expected random or noise, got '" + s + "'");
            }
        }
        if (auto x = find(n, "noise_scale")) v.noiseScale = scalar(*x, at + ".noise_scale");
        if (auto x = find(n, "spacing")) v.spacingMetres = within(*x, at + ".spacing", 0.0, 100.0);

        // Pass-wide values every class falls back to.
        VegetationClassRule defaults;
        defaults.avoid = "none";
        if (auto x = find(n, "density")) defaults.density = within(*x, at + ".density", 0.0, 1.0);
        if (auto x = find(n, "jitter")) defaults.jitter = within(*x, at + ".jitter", 0.0, 1.0);
        if (auto x = find(n, "scale")) std::tie(defaults.minScale, defaults.maxScale) = scaleRange(*x, at + ".scale");
        if (auto x = find(n, "avoid")) defaults.avoid = scalar(*x, at + ".avoid");

        const auto classes = find(n, "classes");
        if (!classes) fail(n, at, "a vegetation pass needs 'classes:' (class layer: {species: {asset: weight}})");
        if (!classes->IsMap()) fail(*classes, at + ".classes", "expected a map of class: settings");
        for (auto it = classes->begin(); it != classes->end(); ++it) {
            VegetationClassRule c = defaults;
            c.layer = scalar(it->first, at + ".classes");
            c.line = it->first.Mark().line + 1;
            const std::string cp = at + ".classes." + c.layer;
            const YAML::Node body = it->second;
            checkKeys(body, cp, {"density", "jitter", "scale", "avoid", "species"});
            marks["classes." + c.layer] = it->first.Mark();
            for (auto k = body.begin(); k != body.end(); ++k) {
                marks["classes." + c.layer + "." + k->first.Scalar()] = k->second.Mark();
            }
            if (auto x = find(body, "density")) c.density = within(*x, cp + ".density", 0.0, 1.0);
            if (auto x = find(body, "jitter")) c.jitter = within(*x, cp + ".jitter", 0.0, 1.0);
            if (auto x = find(body, "scale")) std::tie(c.minScale, c.maxScale) = scaleRange(*x, cp + ".scale");
            if (auto x = find(body, "avoid")) c.avoid = scalar(*x, cp + ".avoid");
            const auto species = find(body, "species");
            if (!species) fail(body, cp, "a class needs 'species:' ({asset id: weight, …})");
            if (!species->IsMap() || species->size() == 0) {
                fail(*species, cp + ".species", "expected a map of asset id: weight");
            }
            for (auto s = species->begin(); s != species->end(); ++s) {
                SpeciesWeight w;
                w.asset = scalar(s->first, cp + ".species");
                w.line = s->first.Mark().line + 1;
                w.weight = real(s->second, cp + ".species." + w.asset);
                if (!(w.weight > 0.0)) fail(s->second, cp + ".species." + w.asset, "the weight must be positive");
                c.species.push_back(std::move(w));
            }
            v.classes.push_back(std::move(c));
        }
    }

    std::string mSource;
    const std::vector<LayerInfo>& mLayers;
};

Result<PlacementRules> PlacementRules::parse(std::string_view text, std::string_view sourceName,
                                             const std::vector<LayerInfo>& layers) {
    return PassesParser(std::string(sourceName), layers).run(text);
}

bool PlacementRules::declaresPasses(std::string_view text) {
    try {
        const YAML::Node root = YAML::Load(std::string(text));
        if (!root.IsMap()) return true;
        for (auto it = root.begin(); it != root.end(); ++it) {
            if (it->first.IsScalar() && it->first.Scalar() == "passes") return true;
        }
        return false;
    } catch (const YAML::Exception&) {
        return true;  // not YAML: parse() says what is wrong with it
    }
}

Result<PlacementRules> PlacementRules::load(const std::filesystem::path& file, const std::vector<LayerInfo>& layers) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return badArguments(file.string() + ": cannot read the rules file");
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), file.string(), layers);
}

Status PlacementRules::check(const std::vector<LayerInfo>& layers) const {
    std::set<std::string> names;
    bool buildings = false;
    for (std::size_t i = 0; i < mPasses.size(); ++i) {
        const PassRule& p = mPasses[i];
        const std::string path = "passes[" + std::to_string(i) + "]";
        const std::string head = mSource + ":" + std::to_string(p.line) + ": " + path;
        if (p.name.empty()) return Error{head + ": the pass has no name"};
        if (!names.insert(p.name).second) return Error{head + ": a pass named '" + p.name + "' comes earlier"};
        if (p.kind == PassKind::Buildings) {
            if (buildings) return Error{head + ": only one buildings pass is allowed"};
            buildings = true;
        }
        const Locate at = [&](const std::string& key) { return head + "." + key; };
        if (Status s = checkPass(*this, p, layers, at); !s) return s;
    }
    return Status::success();
}

Status PlacementRules::checkCatalogue(const AssetCatalogue& catalogue) const {
    for (std::size_t i = 0; i < mPasses.size(); ++i) {
        const PassRule& p = mPasses[i];
        const std::string path = "passes[" + std::to_string(i) + "] '" + p.name + "'";
        if (p.kind == PassKind::Buildings && catalogue.ofCategory(p.buildings.category).empty()) {
            return Error{mSource + ":" + std::to_string(p.line) + ": " + path + ".category: the catalogue has no '" +
                         p.buildings.category + "' model"};
        }
        if (p.kind != PassKind::Vegetation) continue;
        for (const VegetationClassRule& c : p.vegetation.classes) {
            for (const SpeciesWeight& w : c.species) {
                if (!catalogue.find(w.asset)) {
                    return Error{mSource + ":" + std::to_string(w.line) + ": " + path + ".classes." + c.layer +
                                 ".species: the catalogue has no asset '" + w.asset + "'"};
                }
            }
        }
    }
    return Status::success();
}

std::string PlacementRules::expressionDocument(std::string_view expression) const {
    std::string doc;
    for (const ExpressionRule& e : mExpressions) {
        // Parentheses let a definition span lines and keep each one a single statement.
        doc += e.name + " = (" + e.text + ")\n";
    }
    doc += expression;
    return doc;
}

std::vector<std::string> PlacementRules::expressionLayerNames(const std::vector<LayerInfo>& layers) {
    std::vector<std::string> names;
    names.reserve(layers.size() + 2);
    for (const LayerInfo& l : layers) names.push_back(l.name);
    names.emplace_back(kPlacedBuildingsLayer);
    names.emplace_back(kPlacedVegetationLayer);
    return names;
}

std::string PlacementRules::describe(const PassRule& p) {
    std::ostringstream s;
    s << "name=" << p.name << ";kind=" << passKindName(p.kind) << ";seed=" << p.seed;
    const auto tags = [&](const char* key, const std::vector<std::string>& v) {
        s << ";" << key << "=";
        for (const std::string& t : v) s << t << ",";
    };
    switch (p.kind) {
        case PassKind::Buildings: {
            const BuildingPassRule& b = p.buildings;
            s << ";layer=" << b.layer << ";box=" << static_cast<int>(b.box) << ";blocked=" << b.blockedBy
              << ";category=" << b.category << ";margin=" << number(b.fit.marginMetres)
              << ";scale=" << number(b.fit.minScale) << "," << number(b.fit.maxScale)
              << ";variety=" << number(b.fit.variety) << ";height=" << static_cast<int>(b.height)
              << ";storey=" << number(b.storeyHeightMetres);
            for (const ModelFilterRule& f : b.filters) {
                s << ";filter:";
                for (const TagCondition& c : f.when) {
                    s << c.key << "=";
                    for (const std::string& v : c.values) s << v << "|";
                    s << "&";
                }
                tags("any", f.models.anyTags);
                tags("all", f.models.allTags);
                tags("none", f.models.noneTags);
            }
            break;
        }
        case PassKind::Surface: {
            const SurfacePassRule& r = p.surface;
            s << ";layer=" << r.layer << ";mask=" << r.mask << ";elevation=" << number(r.elevationMetres);
            if (r.colour) s << ";colour=" << int(r.colour->r) << "," << int(r.colour->g) << "," << int(r.colour->b);
            break;
        }
        case PassKind::Vegetation: {
            const VegetationPassRule& v = p.vegetation;
            s << ";layer=" << v.layer << ";zone=" << v.zone << ";plant=" << v.plant
              << ";scatter=" << static_cast<int>(v.scatter) << ";noise=" << v.noiseScale
              << ";spacing=" << number(v.spacingMetres);
            for (const VegetationClassRule& c : v.classes) s << ";" << describeClass(c);
            break;
        }
    }
    return s.str();
}

std::string PlacementRules::describeClass(const VegetationClassRule& c) {
    std::ostringstream s;
    s << "class=" << c.layer << ",density=" << number(c.density) << ",jitter=" << number(c.jitter)
      << ",scale=" << number(c.minScale) << ":" << number(c.maxScale) << ",avoid=" << c.avoid << ",species=";
    for (const SpeciesWeight& w : c.species) s << w.asset << ":" << number(w.weight) << "/";
    return s.str();
}

}  // namespace terrabit::core::placement
