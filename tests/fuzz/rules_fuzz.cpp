// Fuzzes the rules document: the layers section (RuleSet::parse) and the expressions and passes
// sections (PlacementRules::parse, check, describe). Contracts beyond "no crash, no UB":
//  - every error names the document ("fuzz.yaml: ..." or "fuzz.yaml:line:column: ...");
//  - rules that parse also pass check() against the same layers, every pass and class
//    describes itself, and every named expression's document compiles.
// The passes section is parsed against the document's own layers when they parse, and against
// the default rules' layers otherwise, so a broken layers section does not hide the passes
// parser from the fuzzer.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "terrabit/core/algebra/layer_program.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/rules/rule_set.h"

namespace {

using namespace terrabit;
using fuzz::require;

constexpr std::string_view kName = "fuzz.yaml";

const std::vector<core::LayerInfo>& defaultLayers() {
    static const std::vector<core::LayerInfo> layers = [] {
        auto rules = core::RuleSet::load(TERRABIT_RESOURCES_DIR "/rules/default.yaml");
        require(rules.ok(), "the default rules load");
        return rules->layerInfos();
    }();
    return layers;
}

bool namesDocument(const std::string& message) { return message.starts_with(kName); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 64 * 1024) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    auto ruleSet = core::RuleSet::parse(text, kName);
    if (!ruleSet) require(namesDocument(ruleSet.message()), "a rules error names the document");
    const std::vector<core::LayerInfo> layers = ruleSet ? ruleSet->layerInfos() : defaultLayers();
    if (ruleSet) {
        require(ruleSet->layerNames().size() == layers.size(), "one name per layer");
        for (std::size_t i = 0; i < layers.size(); ++i)
            require(ruleSet->layerId(layers[i].name) == static_cast<int>(i), "layer ids follow the layer order");
    }

    (void)core::placement::PlacementRules::declaresPasses(text);
    auto rules = core::placement::PlacementRules::parse(text, kName, layers);
    if (!rules) {
        require(namesDocument(rules.message()), "a passes error names the document");
        return 0;
    }
    const core::Status checked = rules->check(layers);
    require(checked.ok(), "rules that parse pass check()");
    for (const auto& pass : rules->passes()) (void)core::placement::PlacementRules::describe(pass);
    const std::vector<std::string> names = core::placement::PlacementRules::expressionLayerNames(layers);
    core::algebra::ExpressionOptions options;
    options.latitude = 45.0;  // as the rules check compiles them: metres need some latitude
    for (const auto& expression : rules->expressions()) {
        auto program = core::algebra::LayerProgram::compile(rules->expressionDocument(expression.name), names, options);
        require(program.ok(), "every named expression of parsed rules compiles");
    }
    return 0;
}
