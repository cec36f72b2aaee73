#pragma once
// Private to placement: one building footprint's neighbourhood as small bit grids, where the
// building pass's AND scan runs.
//
// The window is a rectangle of global cells around the footprint whose west edge is a multiple
// of 64, so each of its words is exactly one word of a BitTile (tiles are 256 = 4 × 64 cells
// wide): loading the occupancy into it is a word copy, and testing a model's row spans is a few
// word ANDs. It holds three layers:
//   inside    the footprint's own cells (centre rule, as the building layer draws them);
//   taken     cells no model may touch: placed buildings (the occupancy) and the blocked_by mask,
//             plus what this footprint has taken so far (cells outside the occupancy's tiles too);
//   keepOff   cells outside the footprint a model may not spill onto (the keep_off mask).
// A model's pose is accepted when its conservative cells touch nothing taken, at most a given
// number of them lie outside `inside`, and none of those is kept off.

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "quad_rows_p.h"
#include "terrabit/core/placement/occupancy_map.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/raster/rasterizer.h"

namespace terrabit::core::placement::detail {

class FootprintWindow {
public:
    /// Sets the window up around a polygon given in global cells (rings as the TileIndex keeps
    /// them), grown by `padCells` on every side and clipped to `region`; rasterizes its inside
    /// (centre rule) and loads what is taken and kept off from the maps (`blocking` and `keepOff`
    /// may be null; cells of tiles the occupancy does not hold count as taken). Returns false,
    /// the window empty, when the polygon is not finite or has no cell. Allocates only while its
    /// buffers grow.
    bool load(std::span<const Vec2> cells, std::span<const std::uint32_t> ringEnds, int padCells,
              const CellRegion& region, const OccupancyMap& occupancy, const OccupancyMap* blocking,
              const OccupancyMap* keepOff, Rasterizer& rasterizer);

    /// Why a pose was refused.
    enum class Refusal : std::uint8_t {
        None,     ///< it was not
        Window,   ///< a cell outside the window (beyond the footprint's pad or out of reach)
        Taken,    ///< a cell taken, or outside the footprint and kept off: something stands there
        Outside,  ///< more cells outside the footprint than allowed: the model does not fit its shape
    };
    /// How a pose's cells lie in the window.
    struct Verdict {
        bool clear = false;  ///< every condition holds (see the top of this file)
        Refusal refusal = Refusal::None;
        std::int64_t cells = 0;    ///< cells of the pose
        std::int64_t outside = 0;  ///< of them outside the footprint (counted up to the first failure)
    };
    /// Tests a pose's row spans (global cells, as footprintSpans gives them): clear when they lie
    /// in the window, touch nothing taken, and at most `maxOutside` cells lie outside the
    /// footprint, none of them kept off. Reads only. The building pass tests its outline models'
    /// poses (an L, a U) with this, and its box models' with testRows.
    Verdict test(std::span<const CellSpan> spans, std::int64_t maxOutside) const;

    /// test() of a rectangle's pose, with at most `tolerance` of its cells allowed outside the
    /// footprint: the same verdict (clear, and the refusal test() would give), its rows made and
    /// tested one at a time, so a refused pose is mostly rasterized only up to the row that
    /// refuses it. `spans` gets the rows made (all of them, as footprintSpans gives them, when
    /// clear), and the verdict's `cells` counts their cells.
    Verdict testRows(const QuadRows& rows, double tolerance, std::vector<CellSpan>& spans) const;

    /// A quick look before test(): the refusal the cell holding a point (global cells) would give
    /// a pose covering it — Taken when taken, Outside when outside the footprint, Window beyond
    /// the window, None when it is a free cell of the footprint.
    Refusal look(Vec2 cell) const {
        std::size_t k = 0;
        std::uint64_t bit = 0;
        if (!locate(cell, k, bit)) return Refusal::Window;
        if (mTaken[k] & bit) return Refusal::Taken;
        return (mInside[k] & bit) ? Refusal::None : Refusal::Outside;
    }
    /// Marks the spans taken (they must lie in the window, as test() checked).
    void take(std::span<const CellSpan> spans);
    /// Restores `taken` to what load() read (forgets every take()).
    void untake() {
        mTaken = mLoaded;
        mInsideTakenSinceLoad = 0;
    }

    /// The footprint's cells.
    std::int64_t insideCells() const { return mInsideCount; }
    /// The footprint's cells not taken now.
    std::int64_t freeInsideCells() const { return mInsideCount - mInsideTakenAtLoad - mInsideTakenSinceLoad; }
    /// The footprint's cells taken since load() (by take()).
    std::int64_t insideTakenSinceLoad() const { return mInsideTakenSinceLoad; }
    /// The footprint's cells that load() found taken (placed buildings, blocked_by).
    std::int64_t insideTakenAtLoad() const { return mInsideTakenAtLoad; }
    /// Of those, the ones the occupancy held (placed buildings) and the ones only the blocked_by
    /// mask held; the rest lay in tiles the occupancy does not hold.
    std::int64_t insideBuiltAtLoad() const { return mInsideBuiltAtLoad; }
    std::int64_t insideMaskedAtLoad() const { return mInsideMaskedAtLoad; }
    /// How many cells of the spans (global cells) load() found taken in the window (only those
    /// inside the footprint when `insideOnly`).
    std::int64_t loadedCellsOf(std::span<const CellSpan> spans, bool insideOnly) const;
    /// How many of the footprint's cells that load() found taken a layer of `layers` holds (tiles
    /// at `zoom`): which of a mask's layers stands on the footprint. Reads only.
    std::int64_t takenInsideCellsIn(const LayerSource& layers, int layer, int zoom) const;
    /// The footprint's cells that were not taken at load(), as row spans of global cells.
    void freeInsideSpans(std::vector<CellSpan>& out) const;

    std::int64_t x0() const { return mX0; }
    std::int64_t y0() const { return mY0; }

private:
    /// The word and bit of the window's grids holding a point (global cells); false beyond the
    /// window (NaN too).
    bool locate(Vec2 cell, std::size_t& k, std::uint64_t& bit) const {
        // The window's origin is an integer, so the subtractions are exact and truncating the
        // non-negative differences is their floor (std::floor is a libm call here).
        const double fx = cell.x - mOrigin.x, fy = cell.y - mOrigin.y;
        if (!(fx >= 0.0 && fy >= 0.0 && fx < mSize.x && fy < mSize.y)) return false;
        const auto x = static_cast<std::int64_t>(fx);
        const auto r = static_cast<std::int64_t>(fy);
        k = static_cast<std::size_t>(r * mWords + (x >> 6));
        bit = std::uint64_t{1} << (x & 63);
        return true;
    }
    /// test() for one span: Window or Taken, or Outside once `outside` (counted on) passes
    /// `maxOutside`.
    Refusal checkSpan(const CellSpan& s, std::int64_t& outside, std::int64_t maxOutside) const;

    std::uint64_t* row(std::vector<std::uint64_t>& v, std::int64_t r) { return v.data() + r * mWords; }
    const std::uint64_t* row(const std::vector<std::uint64_t>& v, std::int64_t r) const {
        return v.data() + r * mWords;
    }

    std::int64_t mX0 = 0, mY0 = 0;  ///< global cell of the window's north-west corner (mX0 % 64 == 0)
    Vec2 mOrigin, mSize;            ///< (mX0, mY0) and (64 mWords, mRows) as doubles, for locate()
    std::int64_t mWords = 0;        ///< words per row
    std::int64_t mRows = 0;
    std::int64_t mInsideCount = 0;
    std::int64_t mInsideTakenAtLoad = 0;  ///< inside cells taken when load() read the maps
    std::int64_t mInsideTakenSinceLoad = 0;
    std::int64_t mInsideBuiltAtLoad = 0,
                 mInsideMaskedAtLoad =
                     0;  ///< see insideBuiltAtLoad  ///< inside cells take() has taken since, kept as it goes
    std::vector<std::uint64_t> mInside, mTaken, mLoaded, mKeepOff;
};

}  // namespace terrabit::core::placement::detail
