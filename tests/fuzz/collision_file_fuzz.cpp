// Fuzzes the runtime collision grid reader (parseCollisionFile), then probes what it read.
// The input's last four bytes are replaced by the CRC-32 of the rest, as a writer would leave
// them, so mutations get past the checksum to the header, names, index and bits; one input in
// sixteen keeps its own trailer so the checksum path is fuzzed too. Contracts beyond "no
// crash, no UB": errors name the source; a grid that parses has 1..64 layers and answers
// probes: clear outside its region, and a tile's walkable cells are exactly those where no
// layer is set. Version 2 (heights): a version 1 file has no heights; every tile's heights are
// 66049 samples, none infinite, and at least one of them a height; groundHeight is NaN or finite
// (never infinite) anywhere, NaN outside the region and for a NaN point, equal to the stored
// sample at a corner, and lies between the lowest and highest of the cell's corners; the mover
// with terrain limits ends where it started or somewhere finite.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "terrabit/core/collision/character_mover.h"
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

    // Heights.
    const std::uint32_t version = std::uint32_t{bytes[8]} | std::uint32_t{bytes[9]} << 8;
    require(version == 2 || !grid->hasHeights(), "a version 1 file has no heights");
    int withHeights = 0;
    for (int ty = 0; ty < grid->tilesHigh() && ty < 4; ++ty) {
        for (int tx = 0; tx < grid->tilesWide() && tx < 4; ++tx) {
            const core::TileId t{grid->zoom(), origin.x + static_cast<std::uint32_t>(tx),
                                 origin.y + static_cast<std::uint32_t>(ty)};
            const std::span<const float> h = grid->tileHeights(t);
            if (h.empty()) continue;
            ++withHeights;
            require(h.size() == core::terrain::kHeightSampleCount, "a tile's heights are 257 x 257 samples");
            require(std::none_of(h.begin(), h.end(), [](float v) { return std::isinf(v); }), "no height is infinite");
            require(std::any_of(h.begin(), h.end(), [](float v) { return !std::isnan(v); }),
                    "a tile with heights has a height");
            // A corner answers its sample; a cell's inside lies between its corners.
            const std::size_t i = (bytes.size() * 7919u) % core::terrain::kHeightSampleCount;
            const int row = static_cast<int>(i / core::terrain::kHeightSamples) % core::kTileCells;
            const int col = static_cast<int>(i % core::terrain::kHeightSamples) % core::kTileCells;
            const std::int64_t gx = std::int64_t{t.x} * core::kTileCells + col;
            const std::int64_t gy = std::int64_t{t.y} * core::kTileCells + row;
            const std::array<float, 4> c = grid->cellHeights(gx, gy);
            const bool cornersKnown = std::none_of(c.begin(), c.end(), [](float v) { return std::isnan(v); });
            const float corner = grid->groundHeight({double(gx), double(gy)});
            const float inside = grid->groundHeight({double(gx) + 0.375, double(gy) + 0.625});
            require(cornersKnown != std::isnan(inside), "a height exactly where all four corners have one");
            if (cornersKnown) {
                require(corner == c[0], "a corner answers its sample");
                const float lo = std::min({c[0], c[1], c[2], c[3]}), hi = std::max({c[0], c[1], c[2], c[3]});
                require(!std::isinf(inside), "a ground height is finite");
                require(double(inside) >= double(lo) - 1e-3 * (1.0 + std::fabs(lo)) &&
                            double(inside) <= double(hi) + 1e-3 * (1.0 + std::fabs(hi)),
                        "bilinear lies between the corners");
            }
        }
    }
    require(withHeights == 0 || grid->hasHeights(), "tiles with heights make a grid with heights");
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    require(std::isnan(grid->groundHeight({nan, centre.y})), "a NaN point has no height");
    require(std::isnan(grid->groundHeight({double(x0) - 0.5, double(y0)})), "outside the region has no height");
    require(std::isnan(grid->groundHeight({double(x1), double(y1) - 0.5})), "outside the region has no height");
    if (grid->hasHeights()) {
        const float h = grid->groundHeight(centre);
        require(!std::isinf(h), "a ground height is finite or NaN");
        core::CharacterMover mover(*grid, core::GroundLimits{0.3, 30.0});
        const core::MoveResult moved =
            mover.move({double(x0) + 10.5, double(y0) + 10.5}, {37.0, -5.0}, core::Footprint::disk(0.4), 0);
        require(std::isfinite(moved.position.x) && std::isfinite(moved.position.y), "the mover ends somewhere");
    }
    return 0;
}
