// Fuzzes the runtime collision grid reader (parseCollisionFile), then probes what it read.
// The input's last four bytes are replaced by the CRC-32 of the rest, as a writer would leave
// them, so mutations get past the checksum to the header, names, index and bits; one input in
// sixteen keeps its own trailer so the checksum path is fuzzed too. Contracts beyond "no
// crash, no UB": errors name the source; a grid that parses has 1..64 layers and answers
// probes: clear outside its region, and a tile's walkable cells are exactly those where no
// layer is set.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/collision/collision_query.h"

using namespace terrabit;
using fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 20)) return 0;
    std::vector<std::uint8_t> bytes(data, data + size);
    if (bytes.size() >= 8 && bytes[0] % 16 != 15) {
        const std::size_t body = bytes.size() - 4;
        const std::uint32_t crc = core::collisionFileChecksum(std::span(bytes).first(body));
        for (int i = 0; i < 4; ++i) bytes[body + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    }
    auto grid = core::parseCollisionFile(bytes, "fuzz.tbcol");
    if (!grid) {
        require(grid.message().find("'fuzz.tbcol'") != std::string::npos, "a collision file error names the source");
        return 0;
    }
    require(grid->layerCount() >= 1 && grid->layerCount() <= 64, "a grid has 1..64 layers");
    const std::int64_t x0 = grid->cellX0(), y0 = grid->cellY0();
    const std::int64_t x1 = x0 + grid->cellWidth(), y1 = y0 + grid->cellHeight();
    require(grid->layersAt(x0 - 1, y0) == 0 && grid->layersAt(x1, y1 - 1) == 0, "outside the region is clear");

    const core::TileId origin = grid->origin();
    const core::BitTile walkable = grid->walkable(origin, core::kAllLayers);
    core::BitTile blocked;
    for (int layer = 0; layer < grid->layerCount(); ++layer) blocked |= grid->tileBits(layer, origin);
    for (int y = 0; y < core::BitTile::kSize; ++y)
        for (int x = 0; x < core::BitTile::kSize; ++x)
            require(walkable.test(x, y) != blocked.test(x, y), "walkable is where no layer is set");

    core::CollisionQuery query(*grid);
    const core::Vec2 centre{double(x0 + x1) / 2.0, double(y0 + y1) / 2.0};
    (void)query.point(centre);
    (void)query.disk(centre, 40.0);
    // A probe over the region's north-west corner; not the whole region, which a tiny file can
    // declare as 65,536 tiles.
    (void)query.rectangle(core::Box2{{double(x0) - 3.5, double(y0) - 3.5}, {double(x0) + 300.25, double(y0) + 300.25}});
    (void)query.orientedRectangle(centre, {30.0, 5.0}, 0.7);
    return 0;
}
