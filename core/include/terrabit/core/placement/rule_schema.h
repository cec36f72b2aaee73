#pragma once
/// The rules schema: every parameter of every pass type, declared once — its key, type, valid
/// range, unit, default, documentation, how the Rules panel shows it, and where its value lives
/// in a PassRule. Everything that reads or writes a parameter goes through it:
///   - PlacementRules::parse reads each key of a pass with readParam's rules and applies the
///     declared defaults first; PlacementRules::check checks values made in code the same way;
///   - rule edits (project/rule_edit.h) find a path's parameter here, parse the new value with
///     parseParam and read values back with formatParam;
///   - the Rules panel builds its form from the declarations (label, unit, step, slider);
///   - rulesKeyReference() writes the key reference in README.md (a test keeps them equal);
///   - PlacementRules::describe, the text every pass's cache key hashes, lists every declared
///     parameter, so none can be left out of a key.
/// Adding a parameter is one entry in rule_schema.cpp (with its field in the pass's rule struct)
/// plus its use in the pass.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/result.h"

namespace terrabit::core::placement {

enum class ParamType : std::uint8_t {
    Number,      ///< a real number in [min, max], in `unit`
    ScaleRange,  ///< a uniform scale range, "[min, max]" or one number: 0 < min <= max
    Expression,  ///< a layer expression (see algebra/expression_ast.h)
    Choice,      ///< one word of `choices`
    Text,        ///< a single value taken as written (a catalogue category)
    Distance,    ///< cells or metres as the expression language writes them ("12", "10m")
    Colour,      ///< "#rrggbb"; empty: not set
    Seed,        ///< a whole number 0..18446744073709551615
    Species,     ///< {asset id: weight > 0, …}, at least one
    Layer,       ///< the name of a layer of the map
};

enum class ParamScope : std::uint8_t {
    Pass,          ///< a key of the pass: passes.<pass>.<key>
    ClassDefault,  ///< a key of the pass that each vegetation class may override: every class
                   ///< takes the pass's value unless it sets its own (an edit of the pass's key
                   ///< sets it on every class)
    Class,         ///< a key of a vegetation class only: passes.<pass>.classes.<class>.<key>
};

/// A uniform scale range.
struct ScaleRange {
    double min = 1.0;
    double max = 1.0;
    friend bool operator==(const ScaleRange&, const ScaleRange&) = default;
};

/// A parameter's value: double (Number), ScaleRange, std::uint64_t (Seed), the species list, or
/// the text of every other type (Choice words, expressions, colours as "#rrggbb" or "").
using ParamValue = std::variant<double, ScaleRange, std::uint64_t, std::vector<SpeciesWeight>, std::string>;

/// How the Rules panel shows a parameter.
struct ParamUi {
    bool shown = true;  ///< false: not in the form (structural keys such as `layer`)
    double min = 0.0;   ///< spin box range, when narrower than the valid range (min < max)
    double max = 0.0;
    double step = 0.1;    ///< spin box step
    int decimals = 2;     ///< spin box decimals
    bool slider = false;  ///< a slider beside the spin box
};

struct ParamSpec {
    std::string_view key{};  ///< as the YAML writes it: "density"
    ParamType type = ParamType::Number;
    ParamScope scope = ParamScope::Pass;
    /// The pass types that have the key; empty: every type (the pass seed).
    std::span<const PassKind> kinds{};
    double min = 0.0;  ///< Number: the valid range, inclusive
    double max = 0.0;
    std::string_view unit{};                      ///< "m", or "" for a plain number
    std::span<const std::string_view> choices{};  ///< Choice: the words, the first is the default
    /// The default as the YAML would write it; empty for none. A required key has no default.
    std::string_view defaultValue{};
    bool required = false;     ///< the pass must set it
    bool editable = true;      ///< rule edits may change it (false: structural, such as `layer`)
    std::string_view label{};  ///< the Rules panel's label: "Density"
    std::string_view doc{};    ///< one sentence for the key reference and the panel's tooltip
    ParamUi ui{};
    /// Where the value lives. `cls` is the class for Class and ClassDefault keys (the pass's
    /// fallback values when reading a pass's own key, see PlacementRules), nullptr otherwise.
    ParamValue (*get)(const PassRule& pass, const VegetationClassRule* cls) = nullptr;
    void (*set)(PassRule& pass, VegetationClassRule* cls, const ParamValue& value) = nullptr;

    bool appliesTo(PassKind kind) const;
    /// True when the key belongs to a vegetation class (Class or ClassDefault).
    bool perClass() const { return scope != ParamScope::Pass; }
};

/// Every parameter, in the order the key reference and the Rules panel list them.
std::span<const ParamSpec> passParams();

/// The parameter `key` of a pass of this type at pass level (Pass or ClassDefault scope), or of
/// one of its classes (`inClass`: Class or ClassDefault scope); nullptr when there is none.
const ParamSpec* findParam(PassKind kind, std::string_view key, bool inClass = false);

/// The keys a pass of this type may have at pass level, for "unknown key" messages: name, type,
/// then each parameter's, then the structural lists (filters, classes) in the file's order.
std::vector<std::string_view> passKeys(PassKind kind);
/// The keys a vegetation class may have.
std::vector<std::string_view> classKeys();

/// Parses a value as a rule edit gives it (text as the rules YAML would write it: "0.08",
/// "[0.8, 1.3]", "{palm: 2}", "vegetation - road"). The error is the problem alone, e.g.
/// "expected a number in 0..1, got '2'"; the caller adds the path.
Result<ParamValue> parseParam(const ParamSpec& spec, std::string_view text);

/// The declared default, parsed once (an error only if a declaration is wrong, which
/// rule_schema_test rules out). `spec` is one of passParams().
const Result<ParamValue>& defaultOf(const ParamSpec& spec);

/// The value as parseParam reads it back: shortest round-tripping numbers, "[a, b]",
/// "{asset: weight, …}", words and expressions as they are.
std::string formatParam(const ParamSpec& spec, const ParamValue& value);

/// What is wrong with a value of a parameter.
struct ParamProblem {
    std::string subPath;  ///< the element at fault (".palm" for a species weight), empty for the whole value
    std::string problem;  ///< the problem alone: "the weight must be a positive number"
    /// "<subPath>: <problem>", or the problem alone when the whole value is at fault.
    std::string message() const { return subPath.empty() ? problem : subPath + ": " + problem; }
};

/// Checks a value made in code against the declaration (ranges, scale order, species weights,
/// choices); expressions and layers are checked by PlacementRules::check, which knows the
/// layers. Nothing when the value is fine.
std::optional<ParamProblem> paramProblem(const ParamSpec& spec, const ParamValue& value);

/// paramProblem as a Status whose message is ParamProblem::message().
Status checkParam(const ParamSpec& spec, const ParamValue& value);

/// "a number in 0..1" and the like: what a value of this parameter must be.
std::string expectedValue(const ParamSpec& spec);

/// The key reference as Markdown: per pass type a table of key, value, default and meaning.
std::string rulesKeyReference();

}  // namespace terrabit::core::placement
