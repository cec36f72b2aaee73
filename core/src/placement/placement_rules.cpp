#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/text_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <span>

#include "../rules/yaml_document_p.h"
#include "rule_schema_p.h"
#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/placement/rule_schema.h"

namespace terrabit::core::placement {

using yaml_detail::typeName;

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

std::string joined(std::span<const std::string_view> keys) {
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

/// Checks one pass's meaning: every declared parameter against its declaration (rule_schema.h),
/// layers exist, expressions compile, the vegetation classes are the layer's and unique.
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
    const auto checkValue = [&](const ParamSpec& spec, const std::string& key, const ParamValue& value) -> Status {
        if (const std::optional<ParamProblem> p = paramProblem(spec, value)) return bad(key + p->subPath, p->problem);
        if (spec.type == ParamType::Expression) return compiles(key, std::get<std::string>(value));
        if (spec.type == ParamType::Layer) {
            if (auto id = layerOf(key, std::get<std::string>(value)); !id) return id.error();
        }
        return Status::success();
    };

    for (const ParamSpec& spec : passParams()) {
        if (!spec.appliesTo(pass.kind) || spec.scope != ParamScope::Pass) continue;
        if (Status s = checkValue(spec, std::string(spec.key), spec.get(pass, nullptr)); !s) return s;
    }
    switch (pass.kind) {
        case PassKind::Buildings:
            if (pass.buildings.category.empty()) return bad("category", "the category is empty");
            break;
        case PassKind::Surface:
            break;
        case PassKind::Vegetation: {
            const VegetationPassRule& v = pass.vegetation;
            if (v.scatter == ScatterKind::Noise) {
                if (Status s = compiles("noise_scale", "noise(" + v.noiseScale + ", 0.5)"); !s) return s;
            }
            if (v.classes.empty()) return bad("classes", "no class is planted: list at least one");
            const std::vector<std::string> allowed = classNamesOf(layers, layerIdOf(layers, v.layer));
            std::set<std::string> seen;
            for (const VegetationClassRule& c : v.classes) {
                const std::string key = "classes." + c.layer;
                if (std::find(allowed.begin(), allowed.end(), c.layer) == allowed.end()) {
                    std::string list;
                    for (const std::string& n : allowed) list += (list.empty() ? "" : ", ") + n;
                    return bad(key, "'" + c.layer + "' is not " + v.layer + " or one of its classes (" + list + ")");
                }
                if (!seen.insert(c.layer).second) return bad(key, "class '" + c.layer + "' is listed twice");
                for (const ParamSpec& spec : passParams()) {
                    if (!spec.appliesTo(pass.kind) || !spec.perClass()) continue;
                    if (Status s = checkValue(spec, key + "." + std::string(spec.key), spec.get(pass, &c)); !s)
                        return s;
                }
            }
            break;
        }
    }
    return Status::success();
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

    void checkKeys(const YAML::Node& map, const std::string& path, std::span<const std::string_view> allowed) const {
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
        } else if (kind == "surface") {
            p.kind = PassKind::Surface;
        } else if (kind == "vegetation") {
            p.kind = PassKind::Vegetation;
        } else {
            fail(*type, path + ".type",
                 "unknown pass type '" + kind + "' (expected one of: buildings, surface, vegetation)");
        }
        checkKeys(n, at, passKeys(p.kind));
        for (auto it = n.begin(); it != n.end(); ++it) marks[it->first.Scalar()] = it->second.Mark();

        // The declared parameters: defaults first, then what the pass writes. Keys every class
        // may override land in `classDefaults`, which each class starts from.
        VegetationClassRule classDefaults;
        for (const ParamSpec& spec : passParams()) {
            if (!spec.appliesTo(p.kind) || spec.required) continue;
            const Result<ParamValue>& value = defaultOf(spec);
            if (!value) throw PassesError{"internal: the default of '" + std::string(spec.key) + "' does not parse"};
            spec.set(p, &classDefaults, *value);
        }
        for (const ParamSpec& spec : passParams()) {
            if (!spec.appliesTo(p.kind) || spec.scope == ParamScope::Class) continue;
            const std::string key(spec.key);
            if (auto v = find(n, key)) {
                spec.set(p, &classDefaults, read(spec, *v, at + "." + key));
            } else if (spec.required) {
                fail(n, at, std::string("a ") + passKindName(p.kind) + " pass needs a '" + key + ":'");
            }
        }
        if (p.kind == PassKind::Buildings) filters(n, at, p.buildings);
        if (p.kind == PassKind::Vegetation) classes(n, at, p, classDefaults, marks);
        return p;
    }

    /// A declared parameter's value: read and checked as the schema says, errors where it stands.
    ParamValue read(const ParamSpec& spec, const YAML::Node& n, const std::string& path) const {
        try {
            return schema_detail::readParam(spec, n);
        } catch (const schema_detail::ParamError& e) {
            throw PassesError{yaml_detail::where(mSource, e.mark) + ": " + path + e.subPath + ": " + e.what};
        }
    }

    void filters(const YAML::Node& n, const std::string& at, BuildingPassRule& b) const {
        const auto v = find(n, "filters");
        if (!v) return;
        if (!v->IsSequence()) fail(*v, at + ".filters", "expected a list of filters, not a " + typeName(*v));
        static constexpr std::string_view kFilterKeys[] = {"when", "any_tags", "all_tags", "none_tags"};
        for (std::size_t i = 0; i < v->size(); ++i) {
            const YAML::Node f = (*v)[i];
            const std::string fp = at + ".filters[" + std::to_string(i) + "]";
            checkKeys(f, fp, kFilterKeys);
            ModelFilterRule rule;
            rule.line = f.Mark().line + 1;
            if (auto w = find(f, "when")) rule.when = conditions(*w, fp + ".when");
            if (auto w = find(f, "any_tags")) rule.models.anyTags = words(*w, fp + ".any_tags");
            if (auto w = find(f, "all_tags")) rule.models.allTags = words(*w, fp + ".all_tags");
            if (auto w = find(f, "none_tags")) rule.models.noneTags = words(*w, fp + ".none_tags");
            b.filters.push_back(std::move(rule));
        }
    }

    void classes(const YAML::Node& n, const std::string& at, PassRule& p, const VegetationClassRule& defaults,
                 std::map<std::string, YAML::Mark>& marks) const {
        const auto classes = find(n, "classes");
        if (!classes) fail(n, at, "a vegetation pass needs 'classes:' (class layer: {species: {asset: weight}})");
        if (!classes->IsMap()) fail(*classes, at + ".classes", "expected a map of class: settings");
        const std::vector<std::string_view> keys = classKeys();
        for (auto it = classes->begin(); it != classes->end(); ++it) {
            VegetationClassRule c = defaults;
            c.layer = scalar(it->first, at + ".classes");
            c.line = it->first.Mark().line + 1;
            const std::string cp = at + ".classes." + c.layer;
            const YAML::Node body = it->second;
            checkKeys(body, cp, keys);
            marks["classes." + c.layer] = it->first.Mark();
            for (auto k = body.begin(); k != body.end(); ++k) {
                marks["classes." + c.layer + "." + k->first.Scalar()] = k->second.Mark();
            }
            for (const ParamSpec& spec : passParams()) {
                if (!spec.appliesTo(PassKind::Vegetation) || !spec.perClass()) continue;
                const std::string key(spec.key);
                if (auto x = find(body, key)) {
                    spec.set(p, &c, read(spec, *x, cp + "." + key));
                } else if (spec.required) {
                    fail(body, cp, "a class needs '" + key + ":' (" + expectedValue(spec) + ")");
                }
            }
            p.vegetation.classes.push_back(std::move(c));
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
    auto text = readTextFile(file, "rules file");
    if (!text) return withKind(text.error(), ErrorKind::BadArguments);
    return parse(*text, file.string(), layers);
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

// The descriptions come from the schema, so a declared parameter can never be missing from a
// cache key (which would let a re-bake reuse tiles made with the old value). They only key
// caches: no output byte depends on their text.
std::string PlacementRules::describe(const PassRule& p) {
    std::string s = "name=" + p.name + ";kind=" + passKindName(p.kind);
    for (const ParamSpec& spec : passParams()) {
        if (!spec.appliesTo(p.kind) || spec.scope != ParamScope::Pass) continue;
        s += ";" + std::string(spec.key) + "=" + formatParam(spec, spec.get(p, nullptr));
    }
    const auto tags = [&](const char* key, const std::vector<std::string>& v) {
        s += ";" + std::string(key) + "=";
        for (const std::string& t : v) s += t + ",";
    };
    for (const ModelFilterRule& f : p.buildings.filters) {
        s += ";filter:";
        for (const TagCondition& c : f.when) {
            s += c.key + "=";
            for (const std::string& v : c.values) s += v + "|";
            s += "&";
        }
        tags("any", f.models.anyTags);
        tags("all", f.models.allTags);
        tags("none", f.models.noneTags);
    }
    for (const VegetationClassRule& c : p.vegetation.classes) s += ";" + describeClass(c);
    return s;
}

std::string PlacementRules::describeClass(const VegetationClassRule& c) {
    static const PassRule kNoPass;  // class values live in the class; getters ignore the pass
    std::string s = "class=" + c.layer;
    for (const ParamSpec& spec : passParams()) {
        if (!spec.appliesTo(PassKind::Vegetation) || !spec.perClass()) continue;
        s += "," + std::string(spec.key) + "=" + formatParam(spec, spec.get(kNoPass, &c));
    }
    return s;
}

}  // namespace terrabit::core::placement
