// Fuzzes the asset catalogue: AssetCatalogue::parse, then toYaml and a parse of that. Contracts
// beyond "no crash, no UB": errors name the document; a catalogue that parses writes YAML that
// parses again to the same entries, and writing is a fixed point (the second text equals the
// first). Model paths resolve against the shipped assets folder, so seeds that name the shipped
// models load them.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "terrabit/core/assets/asset_catalogue.h"

using namespace terrabit;
using fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 64 * 1024) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kName = "fuzz-catalogue.yaml";
    const std::filesystem::path base = TERRABIT_RESOURCES_DIR "/assets";

    auto catalogue = core::AssetCatalogue::parse(text, base, kName);
    if (!catalogue) {
        require(catalogue.message().starts_with(kName), "a catalogue error names the document");
        return 0;
    }
    const std::string written = catalogue->toYaml();
    auto again = core::AssetCatalogue::parse(written, base, "written.yaml");
    if (!again) std::fprintf(stderr, "%s\n--- written:\n%s\n", again.message().c_str(), written.c_str());
    require(again.ok(), "a catalogue's own YAML parses");
    require(again->size() == catalogue->size(), "the written catalogue has every entry");
    const std::string rewritten = again->toYaml();
    if (rewritten != written)
        std::fprintf(stderr, "--- first:\n%s\n--- second:\n%s\n", written.c_str(), rewritten.c_str());
    require(rewritten == written, "writing a catalogue is a fixed point");
    for (const core::AssetInfo& a : catalogue->assets()) require(catalogue->find(a.id) != nullptr, "every id is found");
    (void)catalogue->categories();
    return 0;
}
