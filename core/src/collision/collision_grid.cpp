#include "terrabit/core/collision/collision_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace terrabit::core {

CollisionGrid& CollisionGrid::operator=(const CollisionGrid& other) {
    if (this == &other) return *this;
    mZoom = other.mZoom;
    mTileX0 = other.mTileX0;
    mTileY0 = other.mTileY0;
    mTilesWide = other.mTilesWide;
    mTilesHigh = other.mTilesHigh;
    mSlots = other.mSlots;
    mLayerNames = other.mLayerNames;
    mTiles = other.mTiles;
    mTileIndex = other.mTileIndex;
    mHeightSlot = other.mHeightSlot;
    mHeightData = other.mHeightData;
    rebuildTable();  // the pointers must point into our own copy of the tiles
    return *this;
}

Result<CollisionGrid> CollisionGrid::build(const LayerSource& source, std::span<const TileId> tiles,
                                           std::span<const std::string> layerNames, std::size_t maxTiles) {
    CollisionGrid grid;
    if (!tiles.empty()) {
        const int zoom = tiles.front().zoom;
        std::uint32_t x0 = std::numeric_limits<std::uint32_t>::max(), y0 = x0, x1 = 0, y1 = 0;
        for (const TileId& t : tiles) {
            if (t.zoom != zoom) {
                return Error{"collision grid: tile " + t.quadkey() + " is at zoom " + std::to_string(t.zoom) +
                             ", the others at zoom " + std::to_string(zoom)};
            }
            x0 = std::min(x0, t.x);
            y0 = std::min(y0, t.y);
            x1 = std::max(x1, t.x);
            y1 = std::max(y1, t.y);
        }
        const std::uint64_t slots = std::uint64_t(x1 - x0 + 1) * std::uint64_t(y1 - y0 + 1);
        if (slots > maxTiles) {
            return Error{"collision grid: the tiles span " + std::to_string(slots) + " tile slots, more than " +
                         std::to_string(maxTiles)};
        }
        grid.mZoom = zoom;
        grid.mTileX0 = x0;
        grid.mTileY0 = y0;
        grid.mTilesWide = static_cast<int>(x1 - x0 + 1);
        grid.mTilesHigh = static_cast<int>(y1 - y0 + 1);
        grid.mSlots = static_cast<std::size_t>(slots);
    }
    std::vector<TileId> wanted(tiles.begin(), tiles.end());
    std::sort(wanted.begin(), wanted.end());
    for (const std::string& name : layerNames) {
        const int id = source.layerId(name);
        if (id < 0) {
            std::string known;
            for (const std::string& n : source.layerNames()) known += (known.empty() ? "" : ", ") + n;
            return Error{"collision grid: no layer named '" + name + "' (layers: " + known + ")"};
        }
        Result<int> added = grid.addLayer(name, [&](const TileId& t) -> const BitTile* {
            return std::binary_search(wanted.begin(), wanted.end(), t) ? source.tile(t, id) : nullptr;
        });
        if (!added) return added.error();
    }
    for (const TileId& t : wanted) {
        const terrain::HeightTile* heights = source.heights(t);
        if (heights == nullptr || heights->heights.size() != terrain::kHeightSampleCount) continue;
        if (Status s = grid.setTileHeights(t, heights->heights); !s) return s.error();
    }
    return grid;
}

Result<int> CollisionGrid::addLayer(std::string name, const std::function<const BitTile*(const TileId&)>& bitsOf) {
    if (layerCount() >= kMaxCollisionLayers) {
        return Error{"collision grid: cannot add layer '" + name + "': at most " + std::to_string(kMaxCollisionLayers) +
                     " layers"};
    }
    if (layerId(name) >= 0) return Error{"collision grid: there is already a layer named '" + name + "'"};
    const std::size_t base = mTileIndex.size();
    mTileIndex.resize(base + mSlots, 0);
    // The layer's tiles found first, then copied into place in one go: pushed one by one, the
    // store's regrowth moved every tile copied before (most of the time on thousands of tiles).
    std::vector<std::pair<std::size_t, const BitTile*>> found;
    for (int ty = 0; ty < mTilesHigh; ++ty) {
        for (int tx = 0; tx < mTilesWide; ++tx) {
            const TileId t{mZoom, mTileX0 + static_cast<std::uint32_t>(tx), mTileY0 + static_cast<std::uint32_t>(ty)};
            const BitTile* bits = bitsOf(t);
            if (bits == nullptr || bits->none()) continue;  // shares the clear tile
            found.emplace_back(static_cast<std::size_t>(ty) * mTilesWide + tx, bits);
        }
    }
    const std::size_t needed = mTiles.size() + found.size();
    if (needed > mTiles.capacity()) mTiles.reserve(std::max(needed, 2 * mTiles.capacity()));
    for (const auto& [slot, bits] : found) {
        mTileIndex[base + slot] = static_cast<std::uint32_t>(mTiles.size());
        mTiles.push_back(*bits);
    }
    mLayerNames.push_back(std::move(name));
    rebuildTable();
    return layerCount() - 1;
}

void CollisionGrid::rebuildTable() {
    mTable.resize(mTileIndex.size());
    for (std::size_t i = 0; i < mTileIndex.size(); ++i) mTable[i] = mTiles[mTileIndex[i]].words().data();
}

int CollisionGrid::layerId(std::string_view name) const {
    for (std::size_t i = 0; i < mLayerNames.size(); ++i) {
        if (mLayerNames[i] == name) return static_cast<int>(i);
    }
    return -1;
}

Result<std::uint64_t> CollisionGrid::layerMask(std::span<const std::string> names) const {
    std::uint64_t mask = 0;
    for (const std::string& n : names) {
        const int id = layerId(n);
        if (id < 0) return Error{"no collision layer named '" + n + "'"};
        mask |= std::uint64_t{1} << id;
    }
    return mask;
}

std::uint64_t CollisionGrid::layersAt(std::int64_t gx, std::int64_t gy, std::uint64_t mask) const {
    const std::int64_t lx = gx - cellX0();
    const std::int64_t ly = gy - cellY0();
    if (!inside(lx, ly)) return 0;
    std::uint64_t result = 0;
    const int n = layerCount();
    for (int layer = 0; layer < n; ++layer) {
        if (((mask >> layer) & 1u) && ((word(layer, lx, ly) >> (lx & 63)) & 1u)) result |= std::uint64_t{1} << layer;
    }
    return result;
}

std::size_t CollisionGrid::slotOf(const TileId& t) const {
    if (t.zoom != mZoom || t.x < mTileX0 || t.y < mTileY0 || t.x - mTileX0 >= std::uint32_t(mTilesWide) ||
        t.y - mTileY0 >= std::uint32_t(mTilesHigh)) {
        return mSlots;
    }
    return static_cast<std::size_t>(t.y - mTileY0) * mTilesWide + (t.x - mTileX0);
}

BitTile CollisionGrid::walkable(const TileId& tile, std::uint64_t blockingMask) const {
    BitTile blocked;
    const std::size_t slot = slotOf(tile);
    if (slot < mSlots) {
        for (int layer = 0; layer < layerCount(); ++layer) {
            if ((blockingMask >> layer) & 1u) blocked |= mTiles[mTileIndex[layer * mSlots + slot]];
        }
    }
    return ~blocked;
}

BitTile CollisionGrid::tileBits(int layer, const TileId& tile) const {
    const std::size_t slot = slotOf(tile);
    if (slot >= mSlots || layer < 0 || layer >= layerCount()) return {};
    return mTiles[mTileIndex[layer * mSlots + slot]];
}

std::span<const float> CollisionGrid::tileHeights(const TileId& tile) const {
    const std::size_t slot = slotOf(tile);
    if (slot >= mSlots || mHeightSlot.empty() || mHeightSlot[slot] < 0) return {};
    return std::span(mHeightData)
        .subspan(static_cast<std::size_t>(mHeightSlot[slot]) * terrain::kHeightSampleCount,
                 terrain::kHeightSampleCount);
}

Status CollisionGrid::setTileHeights(const TileId& tile, std::span<const float> samples) {
    const std::size_t slot = slotOf(tile);
    if (slot >= mSlots) {
        return Error{"collision grid: tile " + tile.quadkey() + " (zoom " + std::to_string(tile.zoom) +
                     ") is outside the grid's region"};
    }
    if (samples.size() != terrain::kHeightSampleCount) {
        return Error{"collision grid: tile " + tile.quadkey() + " has " + std::to_string(samples.size()) +
                     " height samples, not " + std::to_string(terrain::kHeightSampleCount)};
    }
    bool any = false;
    for (float h : samples) {
        if (std::isinf(h)) return Error{"collision grid: tile " + tile.quadkey() + " has an infinite height"};
        any = any || !std::isnan(h);
    }
    if (!any) {
        if (mHeightSlot.empty()) return Status::success();
        mHeightSlot[slot] = -1;  // its block stays, unused
        if (std::all_of(mHeightSlot.begin(), mHeightSlot.end(), [](std::int32_t b) { return b < 0; })) {
            mHeightSlot.clear();  // no tile has heights: hasHeights() is false again
            mHeightData.clear();
        }
        return Status::success();
    }
    if (mHeightSlot.empty()) mHeightSlot.assign(mSlots, -1);
    if (mHeightSlot[slot] < 0) {
        mHeightSlot[slot] = static_cast<std::int32_t>(mHeightData.size() / terrain::kHeightSampleCount);
        mHeightData.resize(mHeightData.size() + terrain::kHeightSampleCount);
    }
    std::copy(samples.begin(), samples.end(),
              mHeightData.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(mHeightSlot[slot]) *
                                                                terrain::kHeightSampleCount));
    return Status::success();
}

std::array<float, 4> CollisionGrid::cellHeights(std::int64_t gx, std::int64_t gy) const {
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    const std::int64_t lx = gx - cellX0(), ly = gy - cellY0();
    if (mHeightSlot.empty() || !inside(lx, ly)) return {nan, nan, nan, nan};
    const float* s = heightSamples(lx, ly);
    if (s == nullptr) return {nan, nan, nan, nan};
    return {s[0], s[1], s[kTileCells + 1], s[kTileCells + 2]};
}

}  // namespace terrabit::core
