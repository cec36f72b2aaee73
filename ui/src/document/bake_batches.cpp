#include "terrabit/ui/document/bake_batches.h"

#include <algorithm>
#include <tuple>

namespace terrabit::ui {

std::vector<core::TileId> nearestFirst(std::vector<core::TileId> tiles, core::Vec2 focus) {
    const auto distance = [&](const core::TileId& t) {
        const double dx = (t.x + 0.5) * core::kTileCells - focus.x, dy = (t.y + 0.5) * core::kTileCells - focus.y;
        return dx * dx + dy * dy;
    };
    std::vector<std::pair<double, core::TileId>> keyed;
    keyed.reserve(tiles.size());
    for (const core::TileId& t : tiles) keyed.emplace_back(distance(t), t);
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
        return std::tie(a.first, a.second.y, a.second.x) < std::tie(b.first, b.second.y, b.second.x);
    });
    for (std::size_t i = 0; i < keyed.size(); ++i) tiles[i] = keyed[i].second;
    return tiles;
}

std::vector<std::size_t> batchEnds(std::size_t tiles, std::size_t first) {
    std::vector<std::size_t> ends;
    // Doubling: each bake re-plans and re-assembles the tiles before it, so the whole costs at
    // most about twice the plan and assembly of one bake of everything.
    for (std::size_t end = std::max<std::size_t>(first, 1); end < tiles; end *= 2) ends.push_back(end);
    // The last batch grows the one before by at least kLastGrowth: a last batch of a few more
    // tiles (8,192 then 8,541) re-baked and re-assembled nearly everything again, while two
    // nearly whole scenes were held (the one shown and the one being assembled). The first
    // batch stays whatever its size: it is what shows first (after a rule edit, the tiles
    // already shown).
    while (ends.size() > 1 && static_cast<double>(tiles) < kLastGrowth * static_cast<double>(ends.back())) {
        ends.pop_back();
    }
    if (tiles > 0) ends.push_back(tiles);
    return ends;
}

}  // namespace terrabit::ui
