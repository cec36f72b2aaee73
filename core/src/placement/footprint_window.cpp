#include "footprint_window_p.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

// The window's bit work counts cells (std::popcount), which the x86-64 baseline has no
// instruction for (a libgcc call per word). Each function is compiled twice, for x86-64-v3
// (POPCNT, BMI) and the baseline, and the loader picks one for the running CPU, as the bit
// tiles do. Their floating-point steps (floors, minima) are exact, so both give the same bits.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define TERRABIT_COUNT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TERRABIT_COUNT_CLONES
#endif

namespace terrabit::core::placement::detail {

namespace {

/// Bits [a, b) of a word (0 <= a < b <= 64).
std::uint64_t bitRange(std::int64_t a, std::int64_t b) {
    const std::uint64_t hi = b >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b) - 1;
    return hi & (~std::uint64_t{0} << a);
}

std::int64_t floorDiv(std::int64_t v, std::int64_t d) { return v >= 0 ? v / d : -((-v + d - 1) / d); }

}  // namespace

TERRABIT_COUNT_CLONES bool FootprintWindow::load(std::span<const Vec2> cells, std::span<const std::uint32_t> ringEnds,
                                                 int padCells, const CellRegion& region, const OccupancyMap& occupancy,
                                                 const OccupancyMap* blocking, const OccupancyMap* keepOff,
                                                 Rasterizer& rasterizer) {
    mWords = mRows = mInsideCount = mInsideTakenAtLoad = mInsideTakenSinceLoad = 0;
    mSize = {};  // an empty window until it is set up: every look lies beyond it
    mInsideBuiltAtLoad = mInsideMaskedAtLoad = 0;
    Box2 bounds;
    for (const Vec2 c : cells) {
        if (!isFinite(c)) return false;
        bounds.extend(c);
    }
    if (bounds.empty()) return false;
    const std::int64_t pad = padCells;
    const std::int64_t gx0 = std::max(region.x0, static_cast<std::int64_t>(std::floor(bounds.min.x)) - pad);
    const std::int64_t gx1 = std::min(region.x1, static_cast<std::int64_t>(std::ceil(bounds.max.x)) + pad);
    const std::int64_t gy0 = std::max(region.y0, static_cast<std::int64_t>(std::floor(bounds.min.y)) - pad);
    const std::int64_t gy1 = std::min(region.y1, static_cast<std::int64_t>(std::ceil(bounds.max.y)) + pad);
    if (gx0 >= gx1 || gy0 >= gy1) return false;
    mX0 = floorDiv(gx0, 64) * 64;
    mY0 = gy0;
    mWords = floorDiv(gx1 - 1, 64) + 1 - mX0 / 64;
    mRows = gy1 - gy0;
    mOrigin = {static_cast<double>(mX0), static_cast<double>(mY0)};
    mSize = {static_cast<double>(mWords * 64), static_cast<double>(mRows)};
    const auto size = static_cast<std::size_t>(mWords * mRows);
    mInside.assign(size, 0);
    mTaken.assign(size, 0);
    mKeepOff.assign(size, 0);

    BitGridView view{mInside.data(), static_cast<int>(mWords), static_cast<int>(mRows)};
    const PolygonView shape{cells, ringEnds, Vec2{static_cast<double>(mX0), static_cast<double>(mY0)}};
    if (!rasterizer.polygon(shape, RasterOptions{}, view)) return false;

    // Word copies: window word w of row r is word (mX0/64 + w) % 4 of its tile's row. The tiles
    // are looked up once per tile the window meets (at most 3 × 3 of them), not once per word.
    const int zoom = occupancy.tiles().empty() ? 0 : occupancy.tiles().front().zoom;
    struct Tiles {
        const BitTile* own = nullptr;
        const BitTile* block = nullptr;
        const BitTile* off = nullptr;
    };
    std::int64_t cachedTy = -1;
    std::array<Tiles, 4> columns{};  // the window's tile columns (it spans at most 4 with its pad)
    const std::int64_t firstTx = (mX0 / 64) / BitTile::kWordsPerRow;
    for (std::int64_t r = 0; r < mRows; ++r) {
        const std::int64_t gy = mY0 + r;
        const auto ty = static_cast<std::uint32_t>(gy / kTileCells);
        const int tileRow = static_cast<int>(gy % kTileCells);
        if (static_cast<std::int64_t>(ty) != cachedTy) {
            cachedTy = ty;
            for (std::size_t c = 0; c < columns.size(); ++c) {
                const TileId id{zoom, static_cast<std::uint32_t>(firstTx + static_cast<std::int64_t>(c)), ty};
                columns[c] = {occupancy.tile(id), blocking ? blocking->tile(id) : nullptr,
                              keepOff ? keepOff->tile(id) : nullptr};
            }
        }
        for (std::int64_t w = 0; w < mWords; ++w) {
            const std::int64_t gw = mX0 / 64 + w;
            const auto column = static_cast<std::size_t>(gw / BitTile::kWordsPerRow - firstTx);
            const Tiles none{};
            const Tiles& tiles = column < columns.size() ? columns[column] : none;
            const int word = static_cast<int>(gw % BitTile::kWordsPerRow);
            const std::size_t k = static_cast<std::size_t>(r * mWords + w);
            const std::uint64_t built = tiles.own ? tiles.own->row(tileRow)[word] : 0;
            const std::uint64_t masked = tiles.own && tiles.block ? tiles.block->row(tileRow)[word] & ~built : 0;
            std::uint64_t t = tiles.own ? built | masked : ~std::uint64_t{0};
            // Cells beyond the region are out of reach: taken.
            const std::int64_t cx = mX0 + w * 64;
            if (cx < gx0) t |= bitRange(0, gx0 - cx);
            if (cx + 64 > gx1) t |= bitRange(std::max<std::int64_t>(0, gx1 - cx), 64) & ~std::uint64_t{0};
            mTaken[k] = t;
            if (tiles.off) mKeepOff[k] = tiles.off->row(tileRow)[word];
            // Most words of a window lie outside the footprint (std::popcount is a libgcc call
            // for the baseline target).
            if (mInside[k] == 0) continue;
            mInsideCount += std::popcount(mInside[k]);
            if (const std::uint64_t b = mInside[k] & built) mInsideBuiltAtLoad += std::popcount(b);
            if (const std::uint64_t m = mInside[k] & masked) mInsideMaskedAtLoad += std::popcount(m);
        }
    }
    mLoaded = mTaken;
    mInsideTakenAtLoad = 0;
    for (std::size_t k = 0; k < mInside.size(); ++k) {
        if (const std::uint64_t m = mInside[k] & mLoaded[k]) mInsideTakenAtLoad += std::popcount(m);
    }
    mInsideTakenSinceLoad = 0;
    return mInsideCount > 0;
}

[[gnu::always_inline]] inline FootprintWindow::Refusal FootprintWindow::checkSpan(const CellSpan& s,
                                                                                  std::int64_t& outside,
                                                                                  std::int64_t maxOutside) const {
    const std::int64_t r = s.y - mY0;
    const std::int64_t a = s.x0 - mX0, b = s.x1 - mX0;
    if (r < 0 || r >= mRows || a < 0 || b > mWords * 64) return Refusal::Window;
    if (a >= b) return Refusal::None;
    const std::uint64_t* in = row(mInside, r);
    const std::uint64_t* taken = row(mTaken, r);
    const std::uint64_t* off = row(mKeepOff, r);
    for (std::int64_t w = a >> 6; w <= (b - 1) >> 6; ++w) {
        const std::uint64_t m = bitRange(std::max<std::int64_t>(a - w * 64, 0), std::min<std::int64_t>(b - w * 64, 64));
        const std::uint64_t out = m & ~in[w];
        if ((m & taken[w]) || (out & off[w])) return Refusal::Taken;
        if (out != 0) {  // seldom
            outside += std::popcount(out);
            if (outside > maxOutside) return Refusal::Outside;
        }
    }
    return Refusal::None;
}

TERRABIT_COUNT_CLONES FootprintWindow::Verdict FootprintWindow::test(std::span<const CellSpan> spans,
                                                                     std::int64_t maxOutside) const {
    Verdict v;
    // This code is extremely hot: every pose of every candidate model of every footprint.
    for (const CellSpan& s : spans) {
        v.refusal = checkSpan(s, v.outside, maxOutside);
        if (v.refusal != Refusal::None) return v;
        if (s.x1 > s.x0) v.cells += s.x1 - s.x0;
    }
    v.clear = true;
    return v;
}

TERRABIT_COUNT_CLONES FootprintWindow::Verdict FootprintWindow::testRows(const QuadRows& rows, double tolerance,
                                                                         std::vector<CellSpan>& spans) const {
    Verdict v;
    spans.clear();
    const auto allowed = [&](std::int64_t cells) {
        return static_cast<std::int64_t>(std::floor(tolerance * static_cast<double>(cells)));
    };
    // The cells allowed outside depend on the pose's count, known at its last row: until then
    // the scan goes on to the most that its most cells would allow. Passing that is an Outside
    // at or before this word, and test() would have found nothing taken before it either.
    const std::int64_t most = allowed(rows.mostCells());
    CellSpan s;
    for (std::int64_t j = rows.firstRow(); j < rows.endRow(); ++j) {
        if (!rows.row(j, s)) continue;
        v.refusal = checkSpan(s, v.outside, most);
        v.cells += s.x1 - s.x0;  // footprintSpans' spans are never empty
        spans.push_back(s);
        if (v.refusal == Refusal::Outside) return v;
        if (v.refusal != Refusal::None) {
            // Window or Taken here, unless test() had already counted too many cells outside
            // before it: certainly not when the cells so far allow them, else count the rest.
            if (v.outside > allowed(v.cells)) {
                for (std::int64_t k = j + 1; k < rows.endRow(); ++k) {
                    if (rows.row(k, s)) v.cells += s.x1 - s.x0;
                }
                if (v.outside > allowed(v.cells)) v.refusal = Refusal::Outside;
            }
            return v;
        }
    }
    v.clear = v.outside <= allowed(v.cells);
    if (!v.clear) v.refusal = Refusal::Outside;
    return v;
}

TERRABIT_COUNT_CLONES std::int64_t FootprintWindow::loadedCellsOf(std::span<const CellSpan> spans,
                                                                  bool insideOnly) const {
    std::int64_t n = 0;
    for (const CellSpan& s : spans) {
        const std::int64_t r = s.y - mY0;
        const std::int64_t a = std::max<std::int64_t>(s.x0 - mX0, 0), b = std::min(s.x1 - mX0, mWords * 64);
        if (r < 0 || r >= mRows || a >= b) continue;
        const std::uint64_t* loaded = row(mLoaded, r);
        const std::uint64_t* in = row(mInside, r);
        for (std::int64_t w = a >> 6; w <= (b - 1) >> 6; ++w) {
            const std::uint64_t m = loaded[w] & (insideOnly ? in[w] : ~std::uint64_t{0});
            n += std::popcount(m &
                               bitRange(std::max<std::int64_t>(a - w * 64, 0), std::min<std::int64_t>(b - w * 64, 64)));
        }
    }
    return n;
}

TERRABIT_COUNT_CLONES void FootprintWindow::take(std::span<const CellSpan> spans) {
    for (const CellSpan& s : spans) {
        const std::int64_t r = s.y - mY0;
        const std::int64_t a = s.x0 - mX0, b = s.x1 - mX0;
        if (r < 0 || r >= mRows || a < 0 || b > mWords * 64 || a >= b) continue;
        std::uint64_t* taken = row(mTaken, r);
        const std::uint64_t* in = row(mInside, r);
        for (std::int64_t w = a >> 6; w <= (b - 1) >> 6; ++w) {
            const std::uint64_t m =
                bitRange(std::max<std::int64_t>(a - w * 64, 0), std::min<std::int64_t>(b - w * 64, 64));
            mInsideTakenSinceLoad += std::popcount(m & ~taken[w] & in[w]);
            taken[w] |= m;
        }
    }
}

TERRABIT_COUNT_CLONES std::int64_t FootprintWindow::takenInsideCellsIn(const LayerSource& layers, int layer,
                                                                       int zoom) const {
    std::int64_t n = 0;
    for (std::int64_t r = 0; r < mRows; ++r) {
        const std::int64_t gy = mY0 + r;
        const int tileRow = static_cast<int>(gy % kTileCells);
        for (std::int64_t w = 0; w < mWords; ++w) {
            const std::size_t k = static_cast<std::size_t>(r * mWords + w);
            const std::uint64_t mine = mInside[k] & mLoaded[k];
            if (mine == 0) continue;  // most words: a blocked footprint is rare, and this runs once
            const std::int64_t gw = mX0 / 64 + w;
            const TileId id{zoom, static_cast<std::uint32_t>(gw / BitTile::kWordsPerRow),
                            static_cast<std::uint32_t>(gy / kTileCells)};
            if (const BitTile* t = layers.tile(id, layer)) {
                n += std::popcount(mine & t->row(tileRow)[gw % BitTile::kWordsPerRow]);
            }
        }
    }
    return n;
}

void FootprintWindow::freeInsideSpans(std::vector<CellSpan>& out) const {
    out.clear();
    const auto from = [](int k) { return k >= 64 ? std::uint64_t{0} : ~std::uint64_t{0} << k; };
    for (std::int64_t r = 0; r < mRows; ++r) {
        const std::uint64_t* in = row(mInside, r);
        const std::uint64_t* loaded = row(mLoaded, r);
        // Runs of free inside cells a word at a time; a run open at a word's end goes on in the next.
        std::int64_t start = -1;
        for (std::int64_t w = 0; w < mWords; ++w) {
            const std::uint64_t word = in[w] & ~loaded[w];
            int x = 0;
            while (x < 64) {
                if (start < 0) {
                    const std::uint64_t set = word & from(x);
                    if (set == 0) break;
                    x = std::countr_zero(set);
                    start = w * 64 + x;
                }
                const std::uint64_t clear = ~word & from(x);
                if (clear == 0) break;
                x = std::countr_zero(clear);
                out.push_back({mY0 + r, mX0 + start, mX0 + w * 64 + x});
                start = -1;
            }
        }
        if (start >= 0) out.push_back({mY0 + r, mX0 + start, mX0 + mWords * 64});
    }
}

}  // namespace terrabit::core::placement::detail
