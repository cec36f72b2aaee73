#include "terrabit/core/project/rule_edit.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

namespace terrabit::core::project {

namespace {

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

/// Shortest text that reads back as the same double.
std::string numberText(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string listText(const std::vector<std::string>& words) {
    std::string s = "[";
    for (std::size_t i = 0; i < words.size(); ++i) s += (i ? ", " : "") + words[i];
    return s + "]";
}

/// Parses a value with YAML's rules (so "[0.8, 1.2]" and "{palm: 2}" read as the rules file
/// reads them); nothing when it is not YAML.
std::optional<YAML::Node> yamlValue(const std::string& text) {
    try {
        return YAML::Load(text);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

class EditApplier {
public:
    EditApplier(PlacementRules& rules, const RuleEdit& edit) : mRules(rules), mEdit(edit) {}

    Status apply() {
        const std::vector<std::string> parts = split(mEdit.path);
        if (parts.size() < 3 || parts[0] != "passes") {
            return bad("expected passes.<pass>.<key> or passes.<pass>.classes.<class>.<key>");
        }
        PassRule* pass = nullptr;
        for (PassRule& p : mRules.passes()) {
            if (p.name == parts[1]) pass = &p;
        }
        if (!pass) return bad("no pass named '" + parts[1] + "'");
        // Work on a copy: a failed edit leaves the rules as they were.
        PassRule copy = *pass;
        Status s = parts.size() == 3 ? passKey(copy, parts[2]) : nestedKey(copy, parts);
        if (!s) return s;
        *pass = std::move(copy);
        return Status::success();
    }

private:
    Error bad(const std::string& what) const { return Error{mEdit.path + ": " + what}; }
    Error badValue(const std::string& expected) const {
        return Error{mEdit.path + ": expected " + expected + ", got '" + mEdit.value + "'"};
    }

    Status number(double& out, double lo, double hi) {
        const auto node = yamlValue(mEdit.value);
        double v = std::numeric_limits<double>::quiet_NaN();
        if (node && node->IsScalar()) {
            try {
                v = node->as<double>();
            } catch (const std::exception&) {
            }
        }
        if (!(v >= lo && v <= hi)) return badValue("a number in " + numberText(lo) + ".." + numberText(hi));
        out = v;
        return Status::success();
    }
    Status scaleRange(double& lo, double& hi) {
        const auto node = yamlValue(mEdit.value);
        if (node && node->IsSequence() && node->size() == 2) {
            try {
                const double a = (*node)[0].as<double>(), b = (*node)[1].as<double>();
                if (a > 0.0 && a <= b && std::isfinite(b)) {
                    lo = a;
                    hi = b;
                    return Status::success();
                }
            } catch (const std::exception&) {
            }
        }
        return badValue("[min, max] with 0 < min <= max");
    }
    Status text(std::string& out) {
        out = mEdit.value;
        return Status::success();
    }
    Status words(std::vector<std::string>& out) {
        const auto node = yamlValue(mEdit.value);
        std::vector<std::string> list;
        try {
            if (node && node->IsSequence()) {
                for (const auto& w : *node) list.push_back(w.as<std::string>());
            } else if (node && node->IsScalar() && !node->Scalar().empty()) {
                list.push_back(node->Scalar());
            } else if (!(node && (node->IsNull() || (node->IsSequence() && node->size() == 0)))) {
                return badValue("a list of tags like [a, b]");
            }
        } catch (const std::exception&) {
            return badValue("a list of tags like [a, b]");
        }
        out = std::move(list);
        return Status::success();
    }
    Status species(std::vector<placement::SpeciesWeight>& out) {
        const auto node = yamlValue(mEdit.value);
        if (!node || !node->IsMap() || node->size() == 0) return badValue("{asset: weight, …} with at least one asset");
        std::vector<placement::SpeciesWeight> list;
        try {
            for (auto it = node->begin(); it != node->end(); ++it) {
                placement::SpeciesWeight w;
                w.asset = it->first.as<std::string>();
                w.weight = it->second.as<double>();
                if (!(w.weight > 0.0) || !std::isfinite(w.weight)) return badValue("positive weights");
                list.push_back(std::move(w));
            }
        } catch (const std::exception&) {
            return badValue("{asset: weight, …}");
        }
        out = std::move(list);
        return Status::success();
    }
    Status seed(std::uint64_t& out) {
        std::uint64_t v = 0;
        const std::string& s = mEdit.value;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return badValue("a whole number >= 0");
        out = v;
        return Status::success();
    }

    Status passKey(PassRule& p, const std::string& key) {
        if (key == "seed") return seed(p.seed);
        switch (p.kind) {
            case PassKind::Buildings: {
                auto& b = p.buildings;
                if (key == "blocked_by") return text(b.blockedBy);
                if (key == "margin") return number(b.fit.marginMetres, 0.0, 50.0);
                if (key == "variety") return number(b.fit.variety, 0.0, 1.0);
                if (key == "storey_height") return number(b.storeyHeightMetres, 0.5, 20.0);
                if (key == "scale") return scaleRange(b.fit.minScale, b.fit.maxScale);
                if (key == "box") {
                    if (mEdit.value == "oriented")
                        b.box = placement::TargetBoxKind::Oriented;
                    else if (mEdit.value == "axis_aligned")
                        b.box = placement::TargetBoxKind::AxisAligned;
                    else
                        return badValue("oriented or axis_aligned");
                    return Status::success();
                }
                if (key == "height") {
                    if (mEdit.value == "tags")
                        b.height = placement::HeightSource::Tags;
                    else if (mEdit.value == "model")
                        b.height = placement::HeightSource::Model;
                    else
                        return badValue("tags or model");
                    return Status::success();
                }
                break;
            }
            case PassKind::Surface: {
                auto& s = p.surface;
                if (key == "mask") return text(s.mask);
                if (key == "elevation") return number(s.elevationMetres, -100.0, 100.0);
                if (key == "colour") {
                    if (mEdit.value.empty()) {
                        s.colour.reset();
                        return Status::success();
                    }
                    const auto c = parseRgb(mEdit.value);
                    if (!c) return badValue("a colour \"#rrggbb\"");
                    s.colour = *c;
                    return Status::success();
                }
                break;
            }
            case PassKind::Vegetation: {
                auto& v = p.vegetation;
                if (key == "zone") return text(v.zone);
                if (key == "plant") return text(v.plant);
                if (key == "noise_scale") return text(v.noiseScale);
                if (key == "spacing") return number(v.spacingMetres, 0.0, 100.0);
                if (key == "scatter") {
                    if (mEdit.value == "random")
                        v.scatter = placement::ScatterKind::Random;
                    else if (mEdit.value == "noise")
                        v.scatter = placement::ScatterKind::Noise;
                    else
                        return badValue("random or noise");
                    return Status::success();
                }
                if (key == "avoid") {
                    for (VegetationClassRule& c : v.classes) c.avoid = mEdit.value;
                    return Status::success();
                }
                if (key == "density" || key == "jitter" || key == "scale") {
                    if (v.classes.empty()) return bad("the pass has no classes");
                    for (VegetationClassRule& c : v.classes) {
                        if (Status s = classKey(c, key); !s) return s;
                    }
                    return Status::success();
                }
                break;
            }
        }
        return bad(std::string("a ") + placement::passKindName(p.kind) + " pass has no editable key '" + key + "'");
    }

    Status classKey(VegetationClassRule& c, const std::string& key) {
        if (key == "density") return number(c.density, 0.0, 1.0);
        if (key == "jitter") return number(c.jitter, 0.0, 1.0);
        if (key == "scale") return scaleRange(c.minScale, c.maxScale);
        if (key == "avoid") return text(c.avoid);
        if (key == "species") return species(c.species);
        return bad("a vegetation class has no editable key '" + key + "'");
    }

    Status nestedKey(PassRule& p, const std::vector<std::string>& parts) {
        if (parts.size() == 5 && parts[2] == "classes" && p.kind == PassKind::Vegetation) {
            for (VegetationClassRule& c : p.vegetation.classes) {
                if (c.layer == parts[3]) return classKey(c, parts[4]);
            }
            return bad("pass '" + p.name + "' has no class '" + parts[3] + "'");
        }
        if (parts.size() == 5 && parts[2] == "filters" && p.kind == PassKind::Buildings) {
            std::size_t i = 0;
            const auto r = std::from_chars(parts[3].data(), parts[3].data() + parts[3].size(), i);
            if (r.ec != std::errc() || i >= p.buildings.filters.size()) {
                return bad("pass '" + p.name + "' has no filter " + parts[3]);
            }
            auto& models = p.buildings.filters[i].models;
            if (parts[4] == "any_tags") return words(models.anyTags);
            if (parts[4] == "all_tags") return words(models.allTags);
            if (parts[4] == "none_tags") return words(models.noneTags);
            return bad("a filter has no editable key '" + parts[4] + "'");
        }
        return bad("expected passes.<pass>.<key> or passes.<pass>.classes.<class>.<key>");
    }

    PlacementRules& mRules;
    const RuleEdit& mEdit;
};

std::string speciesText(const std::vector<placement::SpeciesWeight>& species) {
    std::string s = "{";
    for (std::size_t i = 0; i < species.size(); ++i) {
        s += (i ? ", " : "") + species[i].asset + ": " + numberText(species[i].weight);
    }
    return s + "}";
}

std::string scaleText(double lo, double hi) { return "[" + numberText(lo) + ", " + numberText(hi) + "]"; }

}  // namespace

Status applyRuleEdit(placement::PlacementRules& rules, const RuleEdit& edit) {
    EditApplier applier(rules, edit);
    return applier.apply();
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
    const std::vector<std::string> parts = split(path);
    const std::string where(path);
    if (parts.size() < 3 || parts[0] != "passes") return Error{where + ": not a rule parameter path"};
    const PassRule* pass = nullptr;
    for (const PassRule& p : rules.passes()) {
        if (p.name == parts[1]) pass = &p;
    }
    if (!pass) return Error{where + ": no pass named '" + parts[1] + "'"};
    const std::string& key = parts.back();
    auto classValue = [&](const VegetationClassRule& c) -> Result<std::string> {
        if (key == "density") return numberText(c.density);
        if (key == "jitter") return numberText(c.jitter);
        if (key == "scale") return scaleText(c.minScale, c.maxScale);
        if (key == "avoid") return c.avoid;
        if (key == "species") return speciesText(c.species);
        return Error{where + ": a vegetation class has no key '" + key + "'"};
    };
    if (parts.size() == 5 && parts[2] == "classes") {
        for (const VegetationClassRule& c : pass->vegetation.classes) {
            if (c.layer == parts[3]) return classValue(c);
        }
        return Error{where + ": no class '" + parts[3] + "'"};
    }
    if (parts.size() == 5 && parts[2] == "filters") {
        std::size_t i = 0;
        const auto r = std::from_chars(parts[3].data(), parts[3].data() + parts[3].size(), i);
        if (r.ec != std::errc() || i >= pass->buildings.filters.size()) return Error{where + ": no such filter"};
        const AssetFilter& m = pass->buildings.filters[i].models;
        if (key == "any_tags") return listText(m.anyTags);
        if (key == "all_tags") return listText(m.allTags);
        if (key == "none_tags") return listText(m.noneTags);
        return Error{where + ": a filter has no key '" + key + "'"};
    }
    if (parts.size() != 3) return Error{where + ": not a rule parameter path"};
    if (key == "seed") return std::to_string(pass->seed);
    const auto& b = pass->buildings;
    const auto& s = pass->surface;
    const auto& v = pass->vegetation;
    switch (pass->kind) {
        case PassKind::Buildings:
            if (key == "blocked_by") return b.blockedBy;
            if (key == "margin") return numberText(b.fit.marginMetres);
            if (key == "variety") return numberText(b.fit.variety);
            if (key == "storey_height") return numberText(b.storeyHeightMetres);
            if (key == "scale") return scaleText(b.fit.minScale, b.fit.maxScale);
            if (key == "box")
                return std::string(b.box == placement::TargetBoxKind::Oriented ? "oriented" : "axis_aligned");
            if (key == "height") return std::string(b.height == placement::HeightSource::Tags ? "tags" : "model");
            break;
        case PassKind::Surface:
            if (key == "mask") return s.mask;
            if (key == "elevation") return numberText(s.elevationMetres);
            if (key == "colour") {
                if (!s.colour) return std::string();
                char buf[8];
                std::snprintf(buf, sizeof buf, "#%02x%02x%02x", s.colour->r, s.colour->g, s.colour->b);
                return std::string(buf);
            }
            break;
        case PassKind::Vegetation:
            if (key == "zone") return v.zone;
            if (key == "plant") return v.plant;
            if (key == "noise_scale") return v.noiseScale;
            if (key == "spacing") return numberText(v.spacingMetres);
            if (key == "scatter") return std::string(v.scatter == placement::ScatterKind::Random ? "random" : "noise");
            if ((key == "density" || key == "jitter" || key == "scale" || key == "avoid") && !v.classes.empty()) {
                return classValue(v.classes.front());
            }
            break;
    }
    return Error{where + ": a " + std::string(placement::passKindName(pass->kind)) + " pass has no key '" + key + "'"};
}

}  // namespace terrabit::core::project
