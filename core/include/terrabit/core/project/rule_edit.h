#pragma once
/// Rule edits: the placement parameters a designer changes in the app, applied to the
/// PlacementRules parsed from the rules document. A project keeps them as a list (Project::ruleEdits)
/// so the rules file stays untouched and undo is "drop the last edit".
///
/// Paths (values as the rules YAML writes them) name a parameter of the rules schema
/// (placement/rule_schema.h), whose declaration says what the value may be:
///   passes.<pass>.<key>                         a key of the pass (every editable one)
///   passes.<pass>.density | jitter | scale | avoid   a vegetation key every class takes at once
///   passes.<pass>.classes.<class>.<key>         a key of one vegetation class
///   passes.<pass>.filters.<i>.any_tags | all_tags | none_tags     "[a, b]" (buildings)
/// `scale` is "[min, max]"; `species` is "{asset: weight, …}"; `colour` is "#rrggbb".

#include <string>
#include <string_view>

#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/project/project.h"
#include "terrabit/core/result.h"

namespace terrabit::core::project {

/// Applies one edit to `rules`. The error names the path and says what is wrong ("passes.veg:
/// no pass named 'veg'", "passes.vegetation.density: expected a number in 0..1, got 'x'"); the
/// rules are unchanged then. Expressions are not compiled here (PlacementRules::check does it).
Status applyRuleEdit(placement::PlacementRules& rules, const RuleEdit& edit);

/// Applies edits in order; stops at the first failing one, whose message is prefixed with its
/// position ("rule edit 3: …").
Status applyRuleEdits(placement::PlacementRules& rules, const std::vector<RuleEdit>& edits);

/// The current value at a path in the form applyRuleEdit takes, or an error for a bad path. For
/// passes.<pass>.density|jitter|scale of a vegetation pass: the first class's value.
Result<std::string> ruleValue(const placement::PlacementRules& rules, std::string_view path);

}  // namespace terrabit::core::project
