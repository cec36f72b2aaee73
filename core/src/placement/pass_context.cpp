#include "terrabit/core/placement/pass_context.h"

#include <cstring>
#include <mutex>

#include "pass_frame_p.h"
#include "terrabit/core/placement/placement_hash.h"
#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::core::placement {

void LayerHashes::compute(const LayerSource& source, std::span<const TileId> tiles, std::span<const int> layers,
                          int threads) {
    const std::size_t layerCount = source.layerNames().size();
    // Make every slot first (single-threaded), then fill them in parallel without touching the map.
    std::vector<std::vector<std::uint64_t>*> slots(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        auto& v = mHashes[tiles[i]];
        if (v.size() < layerCount) v.resize(layerCount, 0);
        slots[i] = &v;
    }
    detail::parallelFor(tiles.size(), threads, [&](std::size_t i, int) {
        for (const int l : layers) {
            const BitTile* t = source.tile(tiles[i], l);
            (*slots[i])[static_cast<std::size_t>(l)] = t && t->any() ? t->hash() : 0;
        }
    });
}

std::uint64_t LayerHashes::at(const TileId& tile, int layer) const {
    const auto it = mHashes.find(tile);
    if (it == mHashes.end() || layer < 0 || static_cast<std::size_t>(layer) >= it->second.size()) return 0;
    return it->second[static_cast<std::size_t>(layer)];
}

std::uint64_t LayerHashes::neighbourhood(const TileId& tile, std::span<const int> layers) const {
    std::uint64_t h = 0x6e65696768626f72ULL;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const auto n = tile.neighbour(dx, dy);
            for (const int l : layers) h = hashCombine(h, n ? at(*n, l) : 0);
        }
    }
    return h;
}

namespace {

/// A hash of a tile's heights, bit for bit (NaN samples included); 0 without heights.
std::uint64_t heightsHash(const terrain::HeightTile* h) {
    if (!h || h->heights.empty()) return 0;
    std::uint64_t a = 0x6865696768747321ULL, b = 0x9e3779b97f4a7c15ULL;
    const std::size_t n = h->heights.size();
    std::size_t i = 0;
    // Two independent lanes keep the multiplies in flight: a 257 × 257 grid hashes in tens of µs.
    for (; i + 4 <= n; i += 4) {
        std::uint64_t w0 = 0, w1 = 0;
        std::memcpy(&w0, &h->heights[i], 8);
        std::memcpy(&w1, &h->heights[i + 2], 8);
        a = (a ^ w0) * 0x100000001b3ULL + (a >> 29);
        b = (b ^ w1) * 0xff51afd7ed558ccdULL + (b >> 31);
    }
    for (; i < n; ++i) {
        std::uint32_t w = 0;
        std::memcpy(&w, &h->heights[i], 4);
        a = (a ^ w) * 0x100000001b3ULL + (a >> 29);
    }
    const std::uint64_t tile = (std::uint64_t{h->tile.x} << 32) | h->tile.y;
    return hashCombine(hashCombine(hashCombine(a, b), tile), static_cast<std::uint64_t>(h->tile.zoom)) | 1;
}

}  // namespace

void LayerHashes::computeHeights(const LayerSource& source, std::span<const TileId> tiles, int threads) {
    std::vector<std::uint64_t*> slots(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) slots[i] = &mHeightHashes[tiles[i]];
    detail::parallelFor(tiles.size(), threads,
                        [&](std::size_t i, int) { *slots[i] = heightsHash(source.heights(tiles[i])); });
}

std::uint64_t LayerHashes::heightNeighbourhood(const TileId& tile) const {
    std::uint64_t h = 0x67726f756e64ULL;
    if (mHeightHashes.empty()) return h;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const auto n = tile.neighbour(dx, dy);
            const auto it = n ? mHeightHashes.find(*n) : mHeightHashes.end();
            h = hashCombine(h, it == mHeightHashes.end() ? 0 : it->second);
        }
    }
    return h;
}

std::uint64_t PassContext::passKey(const PassRule& pass) const {
    return placement::passKey(sceneSeed, pass.seed, hashText(pass.name));
}

Result<algebra::ExpressionAst> PassContext::parse(const PassRule& pass, std::string_view key,
                                                  std::string_view expression) const {
    algebra::ExpressionOptions options;
    options.zoom = frame.zoom;
    options.latitude = frame.origin.lat;
    // random() and noise() take a seed up to 2^53; the pass key is folded into the scene seed.
    options.seed = passKey(pass);
    algebra::ExpressionDiagnostic diagnostic;
    auto ast = algebra::ExpressionAst::parse(rules->expressionDocument(expression), layers->layerNames(), options,
                                             &diagnostic);
    if (!ast) {
        return Error{rules->source() + ":" + std::to_string(pass.line) + ": pass '" + pass.name + "' " +
                     std::string(key) + ": expression '" + std::string(expression) + "': " + diagnostic.what};
    }
    return ast;
}

Result<algebra::LayerProgram> PassContext::compile(const PassRule& pass, std::string_view key,
                                                   std::string_view expression) const {
    auto ast = parse(pass, key, expression);
    if (!ast) return ast.error();
    return algebra::LayerProgram::compile(*ast);
}

std::vector<TileId> neighbourhoodOf(const TileId& tile) {
    std::vector<TileId> out{tile};
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            if (dx == 0 && dy == 0) continue;
            if (const auto n = tile.neighbour(dx, dy)) out.push_back(*n);
        }
    }
    return out;
}

std::vector<TileId> detail::tilesAround(std::span<const TileId> tiles) {
    std::vector<TileId> out;
    for (const TileId& t : tiles) {
        for (const TileId& n : neighbourhoodOf(t)) out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace terrabit::core::placement
