#pragma once
/// Collision probes: a shape is scan-converted and ANDed with the grid's layers; the answer says
/// which layers were hit and, on request, where. Shapes are in global cell coordinates of the
/// grid's zoom (see GroundFrame for metres and lon/lat); they cross tile borders transparently.
///
/// Coverage: by default a probe covers every cell it touches (Coverage::Conservative: the closed
/// shape meets the cell's open interior), so nothing solid is missed, yet a shape that only
/// touches a solid cell's border — a character standing flush against a wall — is clear.

#include <cstdint>
#include <vector>

#include "terrabit/core/collision/collision_grid.h"
#include "terrabit/core/raster/rasterizer.h"

namespace terrabit::core {

/// One cell a probe hit: global cell coordinates and the masked layers set there.
struct CellHit {
    std::int64_t x = 0;        ///< global cell column
    std::int64_t y = 0;        ///< global cell row
    std::uint64_t layers = 0;  ///< bit i: layer i is set in this cell
    friend bool operator==(const CellHit&, const CellHit&) = default;
};

/// What a probe found.
struct ProbeResult {
    std::uint64_t layers = 0;  ///< bit i set when layer i of the grid was hit
    bool hit() const { return layers != 0; }
};

/// Runs probes against one grid. Holds scan-conversion scratch: keep one per thread.
class CollisionQuery {
public:
    explicit CollisionQuery(const CollisionGrid& grid) : mGrid(&grid) {}

    const CollisionGrid& grid() const { return *mGrid; }

    /// The layers set in the cell holding p (cells). Extremely hot: a few nanoseconds.
    ProbeResult point(Vec2 p, std::uint64_t mask = kAllLayers) const {
        const double fx = std::floor(p.x);
        const double fy = std::floor(p.y);
        if (!(fx >= -9e15 && fx <= 9e15 && fy >= -9e15 && fy <= 9e15)) return {};  // NaN, far away
        return {mGrid->layersAt(static_cast<std::int64_t>(fx), static_cast<std::int64_t>(fy), mask)};
    }
    /// True when the cell holding p has `layer` set: the fastest probe there is.
    bool pointHits(Vec2 p, int layer) const {
        const std::int64_t lx = static_cast<std::int64_t>(std::floor(p.x)) - mGrid->cellX0();
        const std::int64_t ly = static_cast<std::int64_t>(std::floor(p.y)) - mGrid->cellY0();
        return mGrid->inside(lx, ly) && ((mGrid->word(layer, lx, ly) >> (lx & 63)) & 1u);
    }

    /// A segment from a to b (zero width): the cells it passes through.
    ProbeResult segment(Vec2 a, Vec2 b, std::uint64_t mask = kAllLayers, std::vector<CellHit>* hits = nullptr);
    /// A triangle.
    ProbeResult triangle(Vec2 a, Vec2 b, Vec2 c, std::uint64_t mask = kAllLayers, std::vector<CellHit>* hits = nullptr,
                         Coverage coverage = Coverage::Conservative);
    /// An axis-aligned rectangle (cells).
    ProbeResult rectangle(const Box2& box, std::uint64_t mask = kAllLayers, std::vector<CellHit>* hits = nullptr,
                          Coverage coverage = Coverage::Conservative);
    /// A rectangle of halfExtents (cells) around centre turned by angleRadians (counter-clockwise
    /// seen with north up).
    ProbeResult orientedRectangle(Vec2 centre, Vec2 halfExtents, double angleRadians, std::uint64_t mask = kAllLayers,
                                  std::vector<CellHit>* hits = nullptr, Coverage coverage = Coverage::Conservative);
    /// A disk.
    ProbeResult disk(Vec2 centre, double radius, std::uint64_t mask = kAllLayers, std::vector<CellHit>* hits = nullptr,
                     Coverage coverage = Coverage::Conservative);

private:
    /// Scan-converts a polygon in region-local cells and tests its spans.
    ProbeResult polygonProbe(std::span<const Vec2> localPoints, Coverage coverage, std::uint64_t mask,
                             std::vector<CellHit>* hits);
    /// Tests the span [x0, x1) of region-local row y against the masked layers.
    std::uint64_t spanLayers(int y, std::int64_t x0, std::int64_t x1, std::uint64_t mask,
                             std::vector<CellHit>* hits) const;
    Vec2 toLocal(Vec2 p) const {
        return {p.x - static_cast<double>(mGrid->cellX0()), p.y - static_cast<double>(mGrid->cellY0())};
    }

    const CollisionGrid* mGrid;
    Rasterizer mRaster;
};

}  // namespace terrabit::core
