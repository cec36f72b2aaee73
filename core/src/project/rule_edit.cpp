#include "terrabit/core/project/rule_edit.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <optional>
#include <vector>

#include "terrabit/core/placement/rule_schema.h"

namespace terrabit::core::project {

namespace {

using placement::ParamScope;
using placement::PassKind;
using placement::PassRule;
using placement::PlacementRules;
using placement::VegetationClassRule;

std::vector<std::string> split(std::string_view path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = path.find('.', start);
        const std::size_t end = dot == std::string_view::npos ? path.size() : dot;
        parts.emplace_back(path.substr(start, end - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts;
}

std::string listText(const std::vector<std::string>& words) {
    std::string s = "[";
    for (std::size_t i = 0; i < words.size(); ++i) s += (i ? ", " : "") + words[i];
    return s + "]";
}

/// A list of words as an edit gives it ("[a, b]", "a", or nothing); nothing when it is not one.
std::optional<std::vector<std::string>> wordsOf(const std::string& text) {
    try {
        const YAML::Node node = YAML::Load(text);
        std::vector<std::string> list;
        if (node.IsSequence()) {
            for (const auto& w : node) list.push_back(w.as<std::string>());
        } else if (node.IsScalar() && !node.Scalar().empty()) {
            list.push_back(node.Scalar());
        } else if (!node.IsNull()) {
            return std::nullopt;
        }
        return list;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// What a path names: a declared parameter of a pass (and, for a class key, the class), or a
/// tag list of a building filter.
struct Target {
    const PassRule* pass = nullptr;
    std::size_t passIndex = 0;
    const placement::ParamSpec* spec = nullptr;
    int classIndex = -1;   ///< the class of passes.<p>.classes.<class>.<key>; -1: the pass's key
    int filterIndex = -1;  ///< the filter of passes.<p>.filters.<i>.<key>
    std::string filterKey;
};

/// Resolves a path against the rules; the error says what is wrong with it.
Result<Target> resolve(const PlacementRules& rules, std::string_view path, bool forEdit) {
    const std::string where(path);
    const std::vector<std::string> parts = split(path);
    const auto notAPath = [&] {
        return Error{where + (forEdit ? ": expected passes.<pass>.<key> or passes.<pass>.classes.<class>.<key>"
                                      : ": not a rule parameter path")};
    };
    if (parts.size() < 3 || parts[0] != "passes") return notAPath();
    Target t;
    for (std::size_t i = 0; i < rules.passes().size(); ++i) {
        if (rules.passes()[i].name != parts[1]) continue;
        t.pass = &rules.passes()[i];
        t.passIndex = i;
    }
    if (!t.pass) return Error{where + ": no pass named '" + parts[1] + "'"};
    const PassKind kind = t.pass->kind;
    const std::string kindName = placement::passKindName(kind);
    if (parts.size() == 3) {
        t.spec = placement::findParam(kind, parts[2]);
        if (!t.spec || (forEdit && !t.spec->editable)) {
            return Error{where + ": a " + kindName + " pass has no " + (forEdit ? "editable " : "") + "key '" +
                         parts[2] + "'"};
        }
        return t;
    }
    if (parts.size() == 5 && parts[2] == "classes" && kind == PassKind::Vegetation) {
        const auto& classes = t.pass->vegetation.classes;
        for (std::size_t i = 0; i < classes.size(); ++i) {
            if (classes[i].layer == parts[3]) t.classIndex = static_cast<int>(i);
        }
        if (t.classIndex < 0) return Error{where + ": pass '" + t.pass->name + "' has no class '" + parts[3] + "'"};
        t.spec = placement::findParam(kind, parts[4], true);
        if (!t.spec) {
            return Error{where + ": a vegetation class has no " + (forEdit ? "editable " : "") + "key '" + parts[4] +
                         "'"};
        }
        return t;
    }
    if (parts.size() == 5 && parts[2] == "filters" && kind == PassKind::Buildings) {
        std::size_t i = 0;
        const auto r = std::from_chars(parts[3].data(), parts[3].data() + parts[3].size(), i);
        if (r.ec != std::errc() || r.ptr != parts[3].data() + parts[3].size() ||
            i >= t.pass->buildings.filters.size()) {
            return Error{where + ": pass '" + t.pass->name + "' has no filter " + parts[3]};
        }
        if (parts[4] != "any_tags" && parts[4] != "all_tags" && parts[4] != "none_tags") {
            return Error{where + ": a filter has no " + (forEdit ? "editable " : "") + "key '" + parts[4] + "'"};
        }
        t.filterIndex = static_cast<int>(i);
        t.filterKey = parts[4];
        return t;
    }
    return notAPath();
}

/// The filter's tag list a target names, of `pass` (const or not).
template <class Pass>
auto& filterTags(Pass& pass, const Target& t) {
    auto& models = pass.buildings.filters[static_cast<std::size_t>(t.filterIndex)].models;
    if (t.filterKey == "any_tags") return models.anyTags;
    if (t.filterKey == "all_tags") return models.allTags;
    return models.noneTags;
}

}  // namespace

Status applyRuleEdit(placement::PlacementRules& rules, const RuleEdit& edit) {
    auto target = resolve(rules, edit.path, true);
    if (!target) return target.error();
    // Work on a copy: a failed edit leaves the rules as they were.
    PassRule copy = rules.passes()[target->passIndex];
    if (target->filterIndex >= 0) {
        auto words = wordsOf(edit.value);
        if (!words) return Error{edit.path + ": expected a list of tags like [a, b], got '" + edit.value + "'"};
        filterTags(copy, *target) = std::move(*words);
    } else {
        const placement::ParamSpec& spec = *target->spec;
        auto value = placement::parseParam(spec, edit.value);
        if (!value) return Error{edit.path + ": " + value.message()};
        auto& classes = copy.vegetation.classes;
        if (target->classIndex >= 0) {
            spec.set(copy, &classes[static_cast<std::size_t>(target->classIndex)], *value);
        } else if (spec.scope == ParamScope::ClassDefault) {
            // The pass's value of a key its classes may override: every class takes it.
            if (classes.empty()) return Error{edit.path + ": the pass has no classes"};
            for (VegetationClassRule& c : classes) spec.set(copy, &c, *value);
        } else {
            spec.set(copy, nullptr, *value);
        }
    }
    rules.passes()[target->passIndex] = std::move(copy);
    return Status::success();
}

Status applyRuleEdits(placement::PlacementRules& rules, const std::vector<RuleEdit>& edits) {
    for (std::size_t i = 0; i < edits.size(); ++i) {
        if (Status s = applyRuleEdit(rules, edits[i]); !s) {
            return Error{"rule edit " + std::to_string(i + 1) + ": " + s.message()};
        }
    }
    return Status::success();
}

Result<std::string> ruleValue(const placement::PlacementRules& rules, std::string_view path) {
    auto target = resolve(rules, path, false);
    if (!target) return target.error();
    if (target->filterIndex >= 0) return listText(filterTags(*target->pass, *target));
    const placement::ParamSpec& spec = *target->spec;
    const auto& classes = target->pass->vegetation.classes;
    const VegetationClassRule* cls = nullptr;
    if (target->classIndex >= 0) {
        cls = &classes[static_cast<std::size_t>(target->classIndex)];
    } else if (spec.scope == ParamScope::ClassDefault) {
        // The pass's value of a per-class key: its first class's.
        if (classes.empty()) return Error{std::string(path) + ": the pass has no classes"};
        cls = &classes.front();
    }
    return placement::formatParam(spec, spec.get(*target->pass, cls));
}

}  // namespace terrabit::core::project
