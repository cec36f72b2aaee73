// Fuzzes the PBF framing check (checkPbfFraming and looksLikePbf) on bytes in memory. Contracts
// beyond "no crash, no UB": an error names the source and hands back a complete prefix no
// longer than the input; a pass covers exactly the input's bytes.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_check.h"
#include "terrabit/core/io/pbf_check.h"

using namespace terrabit;
using fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    {
        std::istringstream in(bytes);
        (void)core::io::looksLikePbf(in);
    }
    std::istringstream in(bytes);
    core::io::PbfFraming complete{~std::uint64_t{0}, ~std::uint64_t{0}};
    auto framing = core::io::checkPbfFraming(in, size, "fuzz.pbf", &complete);
    if (!framing) {
        require(framing.message().starts_with("fuzz.pbf: "), "a PBF error names the file");
        require(complete.bytes <= size, "the readable prefix lies inside the file");
        require(complete.blocks <= size / 5, "every readable block takes bytes");
        return 0;
    }
    require(framing->bytes == size, "a passing walk covers the whole file");
    require(framing->blocks >= (size > 0 ? 1u : 0u), "a non-empty file that passes has a block");
    return 0;
}
