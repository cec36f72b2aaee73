// Fuzzes the join of shards' manifests (scale::mergeShards, as `terrabit-cli merge` and a streamed
// bake's join run it): one shard's manifest.json is the input, beside a fixed, valid one of the
// other shard. The join reads manifests with its own line scanner (keys, line arrays located by
// byte offsets, elements copied as they stand) to never hold a region's millions of instances,
// and that is what the bytes exercise. Contracts beyond "no crash, no UB": a refused merge says
// why and leaves the output folder as it was (no manifest in it).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include "fuzz_check.h"
#include "terrabit/core/scale/shard_merge.h"
#include "terrabit/core/scale/shard_record.h"

using namespace terrabit;
using fuzz::require;
namespace fs = std::filesystem;

namespace {

core::TileId tile(std::uint32_t x, std::uint32_t y) { return *core::TileId::fromZxy(4, x, y); }

/// Shard 0's manifest: rows 0 of a zoom-4 grid, an instance and a building a tile, as the
/// manifest writer lays them out (keys sorted, line arrays an element a line).
std::string fixedManifest() {
    std::string instances, buildings;
    for (std::uint32_t x = 3; x < 6; ++x) {
        const std::string q = tile(x, 0).quadkey();
        instances += std::string(instances.empty() ? "" : ",\n") + R"(    {"asset":"palm","index":)" +
                     std::to_string(x) + R"(,"tile":")" + q + R"(","transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]})";
        buildings += std::string(buildings.empty() ? "" : ",\n") +
                     R"(    {"asset":"villa","outcome":"placed","source":"w)" + std::to_string(x) + R"(","tile":")" +
                     q + "\"}";
    }
    return "{\n"
           "  \"assets\": [\"palm\",\"villa\"],\n"
           "  \"buildings\": [\n" +
           buildings +
           "\n  ],\n"
           "  \"format\": \"terrabit-manifest\",\n"
           "  \"frame\": {\"zoom\":4},\n"
           "  \"instanceCount\": 3,\n"
           "  \"instances\": [\n" +
           instances +
           "\n  ],\n"
           "  \"rulesSha256\": \"ab\",\n"
           "  \"seed\": 0,\n"
           "  \"statistics\": {\"buildingsBlocked\":0,\"buildingsPlaced\":3,\"buildingsUnmatched\":0,"
           "\"instancesPerAsset\":{\"palm\":3},\"vegetationCellsRequested\":0,\"vegetationInstances\":0},\n"
           "  \"tiles\": [],\n"
           "  \"version\": 1\n"
           "}\n";
}

void writeShard(const fs::path& folder, int index, std::uint32_t row, std::string_view manifest) {
    fs::create_directories(folder);
    std::ofstream(folder / "manifest.json", std::ios::binary)
        .write(manifest.data(), static_cast<std::streamsize>(manifest.size()));
    core::scale::ShardRecord record;
    record.shard = core::scale::ShardSpec{index, 2};
    for (std::uint32_t x = 3; x < 6; ++x) record.tiles.push_back(tile(x, row));
    record.files = {"manifest.json"};
    require(bool(core::scale::writeShardRecord(folder, record)), "the fixed shard record is written");
}

fs::path gRoot;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    gRoot = fuzz::scratchFolder("terrabit-manifest-fuzz");
    writeShard(gRoot / "s0", 0, 0, fixedManifest());
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 16)) return 0;
    writeShard(gRoot / "s1", 1, 1, std::string_view(reinterpret_cast<const char*>(data), size));
    core::scale::MergeJob job;
    job.shards = {gRoot / "s0", gRoot / "s1"};
    job.outDir = gRoot / "out";
    core::scale::MergeReport report;
    const core::Status merged = core::scale::mergeShards(job, report);
    if (!merged) {
        require(!merged.message().empty(), "a refused merge says why");
        require(!fs::exists(job.outDir / "manifest.json"), "a refused merge writes no manifest");
    } else {
        require(fs::exists(job.outDir / "manifest.json"), "a merge writes the manifest");
    }
    std::error_code ec;
    fs::remove_all(job.outDir, ec);
    return 0;
}
