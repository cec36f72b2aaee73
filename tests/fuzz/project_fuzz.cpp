// Fuzzes the project file: parseProject, then serializeProject and a parse of that, then the
// project's rule edits on the default rules. Contracts beyond "no crash, no UB": errors name
// the document; a project that parses round-trips to an equal Project; after an edit applies,
// its parameter reads back (ruleValue), and writing back what was read changes nothing (get
// and set agree). check() runs on the edited rules (edits do not compile expressions; check
// may refuse them, but must not crash).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/project/project.h"
#include "terrabit/core/project/rule_edit.h"
#include "terrabit/core/rules/rule_set.h"

namespace {

using namespace terrabit;
using fuzz::require;

struct DefaultRules {
    std::vector<core::LayerInfo> layers;
    core::placement::PlacementRules rules;
};

const DefaultRules& defaultRules() {
    static const DefaultRules d = [] {
        const std::filesystem::path file = TERRABIT_RESOURCES_DIR "/rules/default.yaml";
        auto set = core::RuleSet::load(file);
        require(set.ok(), "the default rules load");
        DefaultRules out;
        out.layers = set->layerInfos();
        auto rules = core::placement::PlacementRules::load(file, out.layers);
        require(rules.ok(), "the default passes load");
        out.rules = std::move(*rules);
        return out;
    }();
    return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 64 * 1024) return 0;
    const std::string_view json(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kName = "fuzz.terrabit";
    const std::filesystem::path base = "/fuzz/projects";

    auto project = core::project::parseProject(json, kName, base);
    if (!project) {
        require(project.message().starts_with(kName), "a project error names the document");
        return 0;
    }
    const std::string written = core::project::serializeProject(*project, base);
    auto reread = core::project::parseProject(written, "written.terrabit", base);
    if (!reread) std::fprintf(stderr, "%s\n--- written:\n%s\n", reread.message().c_str(), written.c_str());
    require(reread.ok(), "a project's own JSON parses");
    if (!(*reread == *project)) std::fprintf(stderr, "--- written:\n%s\n", written.c_str());
    require(*reread == *project, "a project round-trips to an equal project");

    core::placement::PlacementRules rules = defaultRules().rules;
    for (const core::project::RuleEdit& edit : project->ruleEdits) {
        if (!core::project::applyRuleEdit(rules, edit).ok()) continue;
        auto value = core::project::ruleValue(rules, edit.path);
        require(value.ok(), "an edited parameter reads back");
        require(core::project::applyRuleEdit(rules, {edit.path, *value}).ok(), "what ruleValue reads, an edit takes");
        auto again = core::project::ruleValue(rules, edit.path);
        require(again.ok() && *again == *value, "writing back what was read changes nothing");
        (void)rules.check(defaultRules().layers);
    }
    return 0;
}
