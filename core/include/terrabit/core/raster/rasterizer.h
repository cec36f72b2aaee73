#pragma once
/// The CPU scan converter: polygons (with holes), polylines with a width, disks, triangles and
/// rectangles into bit grids, given in cell coordinates of the target grid ((0,0) is the
/// north-west corner, y grows south, the centre of cell (i, j) is (i + 0.5, j + 0.5)).
///
/// Shape: polygons under the even-odd rule (every map area) are filled by parity: each crossing
/// of a row's centre line toggles one bit of a scratch row, the first cell whose centre lies
/// right of it, and the row's fill is the prefix XOR of its toggles, written a word at a time;
/// edges step from row to row in fixed point. Non-zero fills and the generic span sink (after
/// Skia's and Blend2D's scan converters) bucket the crossings by row with their windings and
/// hand spans to a sink. Thick lines are spanned row by row in closed form, a band per segment
/// and a disk per vertex. Shapes are clipped to the grid; vertices far outside it (a million
/// cells) are fine. After the first calls have grown the scratch buffers, rasterizing allocates
/// nothing.
///
/// Limits (Rasterizer::kReachCells, kMaxRadiusCells): every finite input gives a defined result
/// and no span outside the grid. Polygons and polylines with a point more than kReachCells
/// beyond the grid are first clipped to the grid grown by kReachCells (a slow path no real shape
/// takes), which changes nothing inside the grid; a disk centre that far away draws nothing.
/// Radii and half widths above kMaxRadiusCells are rejected with an error, as are NaN and
/// infinite values (points, offsets, radii, widths, angles).
///
/// Coverage rules (docs/ARCHITECTURE.md):
///  - CellCentre (GDAL's default burn rule): a cell is covered when its centre is inside. Tie
///    rule: along a row, a centre exactly on a crossing counts as inside the span to the
///    crossing's left, so a span between crossings xa < xb covers centres in (xa, xb]; an edge
///    counts for rows whose centre line y satisfies ymin <= y < ymax (horizontal edges never
///    cross). Both directions are half-open, so polygons sharing an edge never both cover a cell
///    and leave no gap between them.
///  - Conservative (GDAL's ALL_TOUCHED, for collision): a cell is covered when the closed shape
///    meets the cell's open interior. A boundary lying exactly on a cell border therefore
///    touches neither neighbour through that border alone, nor does a boundary that meets a cell
///    at one corner only; zero-area shapes (a 2-point ring, a zero-width line) touch the cells
///    they pass through.
///  - Disks (and so round joins, caps and points with a radius) are closed: a centre at exactly
///    the radius is covered; in conservative mode a cell exactly the radius away is not touched.
///
/// Where GDAL 3.6's GDALRasterizeGeometries differs (measured; pinned by gdal_oracle_test.cpp):
///  - Centre rule: GDAL also covers the centres lying exactly on a horizontal edge that bounds
///    the shape from the south (it fills "bottom horizontal segments" separately): a square from
///    y = 10.5 to 20.5 covers rows 10..19 here and rows 10..20 in GDAL, so two such squares
///    stacked share row 20 in GDAL. Centres on sloped or vertical edges, on vertices, and on a
///    hole's north edge are decided the same way by both.
///  - ALL_TOUCHED: GDAL walks every edge with a line stepper. The stepper also takes cells that an
///    edge meets at one corner only when the edge runs south-west to north-east on the map (the
///    edge x + y = 10 takes cells (i, 10 - i)); and an edge whose two ends both lie within 0.01
///    cell of cell borders parallel to it is skipped as if it lay on the border, so the cells it
///    crosses between those borders are missed.
/// On the bundled Monaco sample's buildings (81 zoom-17 tiles) the centre rule gives images
/// identical to GDAL's; ALL_TOUCHED differs in 4 cells of one tile, all of them the skipped-edge
/// case (GDAL misses them, Terrabit touches them).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/raster/bit_grid.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

enum class FillRule : std::uint8_t {
    EvenOdd,  ///< inside where a ray crosses the boundary an odd number of times (GDAL's rule)
    NonZero,  ///< inside where the winding number is not zero
};

enum class Coverage : std::uint8_t {
    CellCentre,    ///< cells whose centre is inside
    Conservative,  ///< every cell the shape touches
};

struct RasterOptions {
    FillRule fillRule = FillRule::EvenOdd;
    Coverage coverage = Coverage::CellCentre;
};

/// A polygon with holes, or several polygons, as flat arrays in cell coordinates: ring i is
/// points[ringEnds[i-1] .. ringEnds[i]) (ringEnds[-1] = 0). Rings close implicitly: the last
/// point need not repeat the first (a repeated one is harmless). Holes are rings like any other;
/// the fill rule decides what is inside, so ring orientation matters only for NonZero.
struct PolygonView {
    std::span<const Vec2> points;
    std::span<const std::uint32_t> ringEnds;
    /// Subtracted from every point: a shape stored in another frame (a map's global cells) is
    /// drawn where point - offset falls, without a moved copy of it. Must be finite.
    Vec2 offset{};
};

/// Scan-converts shapes. Holds scratch buffers, so keep one per thread and reuse it.
class Rasterizer {
public:
    /// How far beyond the grid (cells, on every side) points are used as they are. Polygons and
    /// polylines reaching further are clipped to the grid grown by this much first, so that the
    /// scan arithmetic never sees a coordinate it cannot hold: products of two coordinates stay
    /// far inside a double's range and every row or cell number inside an int's. It is 16 times
    /// the million cells real shapes were tested with, and a quarter of the world at zoom 18 in
    /// 256-cell tiles, so no real shape is clipped. Clipping moves an edge inside the grid by
    /// about an ulp of kReachCells (4e-9 cells), no more than rounding already moves an edge with
    /// a vertex that far away, and far below the 2^-20 cells the fixed-point steps resolve.
    static constexpr double kReachCells = 0x1p24;
    /// The largest radius or half width (cells) a disk, point or polyline may have: half of
    /// kReachCells, so a piece of a line beyond kReachCells cannot reach the grid, and a disk's
    /// squared radius and distances stay exact enough to decide its cells.
    static constexpr double kMaxRadiusCells = 0x1p23;

    /// Polygon / multipolygon. An error (nothing drawn) for NaN or infinite coordinates or
    /// offset, a point whose distance to the offset overflows a double, or ring ends that do not
    /// fit the point array. Points beyond kReachCells of the grid are clipped (see there).
    Status polygon(const PolygonView& shape, RasterOptions options, BitGridView target);
    Status polygon(const PolygonView& shape, RasterOptions options, BitTile& target) {
        return polygon(shape, options, BitGridView::of(target));
    }

    /// A polyline of total width widthCells: the points within widthCells/2 of it (each
    /// segment's quad plus round joins and caps), OR-ed into the target. Under the cell-centre
    /// rule each segment's capsule is spanned row by row in closed form; the conservative rule
    /// scan-converts the quads and disks. An error (nothing drawn) for NaN or infinite points or
    /// width, or a width above 2 kMaxRadiusCells; segments are clipped to kReachCells of the grid.
    Status polyline(std::span<const Vec2> points, double widthCells, Coverage coverage, BitGridView target);
    Status polyline(std::span<const Vec2> points, double widthCells, Coverage coverage, BitTile& target) {
        return polyline(points, widthCells, coverage, BitGridView::of(target));
    }

    /// A disk of radius radiusCells around centre. An error (nothing drawn) for a NaN or
    /// infinite value or a radius above kMaxRadiusCells; a centre beyond kReachCells of the grid
    /// draws nothing (the disk cannot reach the grid).
    Status disk(Vec2 centre, double radiusCells, Coverage coverage, BitGridView target);
    Status disk(Vec2 centre, double radiusCells, Coverage coverage, BitTile& target) {
        return disk(centre, radiusCells, coverage, BitGridView::of(target));
    }

    /// A point with a radius: the disk, plus the cell the point lies in (so a point always marks
    /// its own cell, whatever its radius). Errors as for disk().
    Status point(Vec2 p, double radiusCells, Coverage coverage, BitGridView target);
    Status point(Vec2 p, double radiusCells, Coverage coverage, BitTile& target) {
        return point(p, radiusCells, coverage, BitGridView::of(target));
    }

    /// A triangle (any orientation).
    Status triangle(Vec2 a, Vec2 b, Vec2 c, Coverage coverage, BitGridView target);
    Status triangle(Vec2 a, Vec2 b, Vec2 c, Coverage coverage, BitTile& target) {
        return triangle(a, b, c, coverage, BitGridView::of(target));
    }

    /// An axis-aligned rectangle given by its corners in cells.
    Status rectangle(const Box2& box, Coverage coverage, BitGridView target);
    Status rectangle(const Box2& box, Coverage coverage, BitTile& target) {
        return rectangle(box, coverage, BitGridView::of(target));
    }

    /// A rectangle of halfExtents (cells) around centre, turned by angleRadians (counter-clockwise
    /// in a y-up frame, i.e. clockwise on the y-down grid). An error for NaN or infinite values or
    /// corners that overflow a double.
    Status orientedRectangle(Vec2 centre, Vec2 halfExtents, double angleRadians, Coverage coverage, BitGridView target);
    Status orientedRectangle(Vec2 centre, Vec2 halfExtents, double angleRadians, Coverage coverage, BitTile& target) {
        return orientedRectangle(centre, halfExtents, angleRadians, coverage, BitGridView::of(target));
    }

    /// The generic entry point: emits every covered span as sink(y, x0, x1) for cells [x0, x1)
    /// of row y, already clipped to a width × height grid (0 <= y < height, 0 <= x0 < x1 <=
    /// width, for any input). Spans may overlap (the sink ORs). Errors as for polygon().
    template <class Sink>
    Status polygonSpans(const PolygonView& shape, RasterOptions options, int width, int height, Sink&& sink);

    /// A thick line's piece set up for spanning under the centre rule: a segment's band, the
    /// rows of a vertex's disk. Scratch of the scan converter, public only so that the helpers in
    /// rasterizer.cpp can name them.
    struct Band {
        Vec2 a, d;  ///< the segment's start and direction (b - a), cells
        double sideSlope, sideHalf, endSlope, endLength, len2, rLen;
        int first, last;  ///< rows, inclusive
    };
    struct DiskRows {
        Vec2 centre;
        int first, last;  ///< rows, inclusive
    };

private:
    /// Checks a polygon and gives the view to scan: the shape itself, or, when a moved point lies
    /// beyond kReachCells of the width × height grid, its rings moved and clipped to that reach
    /// (Sutherland–Hodgman, into mClipPoints and mClipEnds).
    Status preparePolygon(const PolygonView& shape, int width, int height, PolygonView& scan);
    /// A checked polyline (every point within kReachCells of the grid) of half width r >= 0.
    void polylineWithinReach(std::span<const Vec2> points, double r, Coverage coverage, BitGridView target);
    void thickLineCentreSpans(std::span<const Vec2> points, double r, BitGridView grid);

    /// An edge prepared for the centre rule: oriented so that y0 < y1, with the rows whose
    /// centre line it crosses (y0 <= row + 0.5 < y1), clipped to the grid.
    struct Edge {
        double x0, y0, x1, y1;  ///< cells
        int firstRow, lastRow;  ///< inclusive
        int winding;            ///< +1 when the ring runs south (y increasing), -1 north
    };
    /// A crossing of a row's centre line, already turned into the first cell whose centre lies
    /// right of it (clamped to 0..width), with the winding of its edge (+1 running south).
    struct Crossing {
        int cell;
        int winding;
    };
    /// A run of cells an edge touches in conservative mode: cells [x0, x1) of row y.
    struct Span {
        int y, x0, x1;
    };

    // The arithmetic lives in rasterizer.cpp; only the loops that hand spans to the sink are
    // templates.
    /// Finds every crossing of an edge with a row's centre line inside the grid, bucketed by row:
    /// row mRowMin + r has mCrossings[mRowStart[r] .. mRowStart[r + 1]) and starts inside the
    /// shape when mRowEntry[r] (crossings west of the grid: a count for even-odd, a winding for
    /// non-zero) says so. Crossings east of the grid are dropped: they only close spans at the
    /// grid's east border.
    void buildCrossings(const PolygonView& shape, FillRule rule, int width, int height);
    /// The even-odd centre fill straight into a grid, by parity: each crossing toggles one bit
    /// (the first cell whose centre lies right of it) in a scratch row, and a row's fill is the
    /// prefix XOR of its toggles. Same cells as buildCrossings + emitCentreSpans, without
    /// bucketing or sorting crossings.
    void parityFill(const PolygonView& shape, BitGridView target);
    /// Fills mSpans[0 .. mSpanCount) with the cells whose open square an edge passes through.
    void buildTouchSpans(const PolygonView& shape, int width, int height);
    template <class Sink>
    void emitCentreSpans(FillRule rule, int width, Sink& sink);

    std::vector<Edge> mEdges;
    std::vector<int> mRowStart;
    std::vector<int> mRowEntry;
    std::vector<Crossing> mCrossings;
    std::vector<Span> mSpans;
    /// An edge of parityFill's second pass: its crossing + 0.5 at its first row and its slope,
    /// in 32.32 fixed point, and its ends for the exact formula.
    struct FixedEdge {
        std::int64_t t, slope;
        int first, last;  ///< rows, inclusive
        Vec2 lo, hi;
    };
    std::vector<FixedEdge> mFixedEdges;
    std::vector<Band> mBands;  ///< thickLineCentreSpans' pieces
    std::vector<DiskRows> mDisks;
    /// A thick line's spans before they are written: [mSpanX0[k], mSpanX1[k]) on row
    /// mSpanRow[k] (empty when x0 >= x1).
    std::vector<int> mSpanRow, mSpanX0, mSpanX1;
    std::vector<std::uint64_t> mParity;  ///< parityFill's toggles: wordsPerRow + 1 words a row, kept zero
    /// A far-reaching polygon clipped to kReachCells (preparePolygon): points in cells, ring
    /// ends, and the clipping passes' scratch.
    std::vector<Vec2> mClipPoints, mClipPass, mClipSwap;
    std::vector<std::uint32_t> mClipEnds;
    /// A far-reaching polyline's runs clipped to kReachCells (polyline), apart from the above:
    /// a run's quads may be clipped as polygons while it is drawn.
    std::vector<Vec2> mRunPoints;
    std::vector<std::uint32_t> mRunEnds;
    std::size_t mSpanCount = 0;
    int mRowMin = 0;
    int mRowMax = -1;
    bool mHasEntry = false;
};

// ---------------------------------------------------------------------------------------------
// Implementation of the templates.

template <class Sink>
Status Rasterizer::polygonSpans(const PolygonView& input, RasterOptions options, int width, int height, Sink&& sink) {
    PolygonView shape;
    if (Status s = preparePolygon(input, width, height, shape); !s) return s;
    if (width <= 0 || height <= 0) return {};
    buildCrossings(shape, options.fillRule, width, height);
    emitCentreSpans(options.fillRule, width, sink);
    if (options.coverage == Coverage::Conservative) {
        // Every cell whose open interior an edge passes through. Together with the centre fill
        // this is exactly the set of cells the closed shape touches: a cell that no edge enters is
        // either wholly inside (its centre is inside) or wholly outside.
        buildTouchSpans(shape, width, height);
        for (std::size_t i = 0; i < mSpanCount; ++i) sink(mSpans[i].y, mSpans[i].x0, mSpans[i].x1);
    }
    return {};
}

template <class Sink>
void Rasterizer::emitCentreSpans(FillRule rule, int width, Sink& sink) {
    // This code is hot: one pass per covered row of every shape.
    for (int row = mRowMin; row <= mRowMax; ++row) {
        const std::size_t r = static_cast<std::size_t>(row - mRowMin);
        const int entry = mHasEntry ? mRowEntry[r] : 0;
        Crossing* c = mCrossings.data() + mRowStart[r];
        const int n = mRowStart[r + 1] - mRowStart[r];
        if (n == 2 && entry == 0 && (rule == FillRule::EvenOdd || c[0].winding + c[1].winding == 0)) {
            // The common row: one span between two crossings.
            const int lo = std::min(c[0].cell, c[1].cell);
            const int hi = std::max(c[0].cell, c[1].cell);
            if (lo < hi) sink(row, lo, hi);
            continue;
        }
        // Insertion sort by cell: rows hold few crossings. Sorting the rounded cells gives the
        // same spans as sorting the exact crossings, since rounding is monotonic.
        for (int i = 1; i < n; ++i) {
            const Crossing x = c[i];
            int j = i;
            for (; j > 0 && c[j - 1].cell > x.cell; --j) c[j] = c[j - 1];
            c[j] = x;
        }
        int start = 0;
        if (rule == FillRule::EvenOdd) {
            bool inside = (entry & 1) != 0;
            for (int i = 0; i < n; ++i) {
                if (inside && start < c[i].cell) sink(row, start, c[i].cell);
                start = c[i].cell;
                inside = !inside;
            }
            if (inside && start < width) sink(row, start, width);
        } else {
            int winding = entry;
            for (int i = 0; i < n; ++i) {
                const int before = winding;
                winding += c[i].winding;
                if (before == 0 && winding != 0) {
                    start = c[i].cell;
                } else if (before != 0 && winding == 0 && start < c[i].cell) {
                    sink(row, start, c[i].cell);
                }
            }
            if (winding != 0 && start < width) sink(row, start, width);
        }
    }
}

}  // namespace terrabit::core
