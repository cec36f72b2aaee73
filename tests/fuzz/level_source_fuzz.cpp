// Fuzzes a level source (3dtiles/levels/QUADKEY.json), which `terrabit-cli merge` reads from
// every shard to rebuild the 3D Tiles' coarse levels: decodeLevelSource, then what merge does with
// a source read, encodeLevelContent. Contracts beyond "no crash, no UB": a refused source says
// why; a source read is a fixed point of encoding (written and read again, the same source, the
// same text); its coarse content either encodes, with a finite error, or is refused with a
// message.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "terrabit/core/export/tileset_levels.h"

using namespace terrabit;
using fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 16)) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const core::Result<core::LevelSource> source = core::decodeLevelSource(text);
    if (!source) {
        require(source.message().starts_with("level source"), "a refused source says it is one");
        return 0;
    }
    const std::string written = core::encodeLevelSource(*source);
    const core::Result<core::LevelSource> again = core::decodeLevelSource(written);
    require(again.ok(), "a source written reads back");
    require(*again == *source, "a source written reads back the same");
    require(core::encodeLevelSource(*again) == written, "a source read back writes the same text");
    const core::LevelSource* below[] = {&*source};
    for (const int depth : {1, 3}) {
        const core::Result<core::LevelContent> content = core::encodeLevelContent(below, depth);
        if (!content) {
            require(!content.message().empty(), "a refused content says why");
            continue;
        }
        require(!content->glb.empty(), "a content has bytes");
        require(std::isfinite(content->geometricError) && content->geometricError >= 0.0,
                "a content's error is finite and not negative");
    }
    return 0;
}
