#pragma once
// Private to core: the union of round-capped line buffers of a tile (SurfaceShaper's roads and
// rivers), evaluated on its boundary. GEOS buffers lines by noding every offset curve and
// walking its graph, then unites the buffers of each width again: most of a surface build.
//
// Here a polyline's buffer is its outline (the right side forward, the end cap, the left side
// back, the start cap; outer joins round, inner joins the offset lines' crossing) when that is
// a simple ring, and otherwise convex pieces: a rectangle per segment, a half disc per end and
// a fan on the outer side of each turn. The pieces (of every polyline) also answer whether a
// point lies inside. Every boundary edge is split where another crosses it (found through a
// uniform grid), a piece of edge is kept when its middle lies inside no other polyline's
// buffer (coincident edges: the lower owner keeps its own), and the kept pieces are linked into
// rings by their end points (where rings touch, each keeps its sharpest left turn; ends a hair
// apart are joined). Each line's arcs have their corners on its own angular grid (add's
// `phase`): caps of two ways ending at one node then cross cleanly, where on one shared grid
// they shared stretches of edge whose ends the linking could not follow.
//
// Areas (a road's squares, a river's banks) join the union as owners of their own: their rings
// are boundary candidates like an outline, and their triangles answer the inside tests.
//
// When anything does not add up (a piece without a successor, an outline that still crosses
// itself after its retries) unite() says so, and the caller unites pieces() with GEOS.

#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/geometry.h"

namespace terrabit::core::placement::detail {

class BufferUnion {
public:
    /// Forgets every line added.
    void clear();
    /// Adds a polyline (tile cells; repeated consecutive points are dropped; one point is a
    /// disc) buffered by `radius` with round caps and joins, arcs cut in `quadrantSegments`
    /// chords per quarter circle starting at angle `phase` (radians; the same for a feature in
    /// every tile, so two tiles put the same corners on their common edge).
    void add(std::span<const Vec2> points, double radius, int quadrantSegments, double phase);
    /// Adds an area (tile cells): its rings (each open, turning with the area on its left:
    /// shells counter-clockwise in x right, y up terms, holes clockwise; `ringEnds` their end
    /// indices in `corners`) and triangles that cover it exactly (corner triples, any turn).
    void addArea(std::span<const Vec2> corners, std::span<const std::uint32_t> ringEnds,
                 std::span<const Vec2> triangles);
    /// Forgets every area added (the lines stay).
    void clearAreas();
    bool empty() const { return mLines.empty() && mAreas.empty(); }

    /// The union's rings into `outline` / `ringEnds` (as SurfaceShape's: each ring open, its end
    /// index in ringEnds; shells counter-clockwise in x right, y up terms, holes clockwise).
    /// False when it could not be evaluated exactly (see the top of this file).
    bool unite(std::vector<Vec2>& outline, std::vector<std::uint32_t>& ringEnds);

    /// Polygons whose union the lines' buffers are (after unite, whatever it returned), each
    /// counter-clockwise, its end index in `ends`: the outlines, and the convex pieces of the
    /// lines without one. Not the areas: the caller has them. For a union by other means where unite could not tell,
    /// with the same corners (so two tiles' shapes still meet on their common edge).
    void pieces(std::vector<Vec2>& corners, std::vector<std::uint32_t>& ends) const;

private:
    struct Line {
        std::uint32_t begin, end;  ///< in mPoints
        double radius;
        int segments;  ///< per full circle
        double phase;
    };
    struct Area {
        std::uint32_t ringsBegin, ringsEnd;          ///< in mAreaRingEnds
        std::uint32_t trianglesBegin, trianglesEnd;  ///< in mAreaTriangles
    };
    struct Edge {
        Vec2 a, b;
        int piece;  ///< the convex piece it bounds, -1 for an outline's edge
        int owner;
    };
    struct Piece {
        std::uint32_t first, count;  ///< corners in mCorners, counter-clockwise
        Box2 box;
        int owner;
        bool edges;  ///< its edges are boundary candidates (no outline stands for its line)
    };
    struct Split {
        double t;
        Vec2 at;
    };

    bool evaluate(std::vector<Vec2>& outline, std::vector<std::uint32_t>& ringEnds);
    void build(const Line& line);
    void build(const Area& area);
    bool lineOutline(std::span<const Vec2> pts, const std::vector<Vec2>& off, const Line& line, int owner);
    void arc(Vec2 centre, double radius, int segments, double phase, double from, double sweep,
             std::vector<Vec2>& out) const;
    void openPiece();
    void closePiece(int owner, bool edges);
    bool keeps(const Edge& e, Vec2 a, Vec2 b) const;

    std::vector<Vec2> mPoints;
    std::vector<Line> mLines;
    std::vector<Vec2> mAreaCorners;
    std::vector<std::uint32_t> mAreaRingEnds;  ///< in mAreaCorners
    std::vector<Vec2> mAreaTriangles;
    std::vector<Area> mAreas;
    std::vector<char> mPiecesOnly;  ///< per line: its outline crossed itself, use its pieces
    std::vector<int> mOwnerLine;    ///< per owner: its line, -1 for a piece's own owner, kAreaOwner
    int mOwners = 0;
    static constexpr int kAreaOwner = -2;

    // Per evaluation.
    std::vector<Vec2> mCorners;
    std::vector<Piece> mPieces;
    std::vector<Edge> mEdges;
    std::vector<Edge> mOutlineEdges;
    std::vector<Vec2> mScratch;
    std::vector<double> mParamsFrom, mParamsTo;
    std::vector<Vec2> mJoins;
    std::uint32_t mPieceStart = 0;
    struct Halfplane {
        double nx, ny, c;  ///< inside: nx x + ny y - c > 0, (nx, ny) a unit vector
    };
    std::vector<Halfplane> mHalfplanes;  ///< per corner of a piece: its edge from that corner
    Box2 mBounds;
    double mCell = 6.0;
    int mCellsWide = 0, mCellsHigh = 0;
    std::vector<std::uint32_t> mEdgeCellStart, mEdgeCellItems, mPieceCellStart, mPieceCellItems;
    std::vector<std::vector<Split>> mSplits;
    std::vector<int> mSelfCrossed;  ///< owners whose outline crossed itself
};

}  // namespace terrabit::core::placement::detail
