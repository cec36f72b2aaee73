#pragma once
/// Road markings: the white lines painted on a tile's roads, the sidewalks along them and the
/// paving and gravel of paths and tracks, as triangles to lay on the road surface. Ways tagged
/// highway footway, path, steps, pedestrian or cycleway are paved over their width and tracks
/// gravelled, except where they cross a carriageway, and at each bend an octagon fills the
/// round join. Carriageways at least `minWidthMetres` wide get a
/// paving strip along each side their `sidewalk` tags name (within the way's width), dashed
/// lines between their lanes (the `lanes` tag, else two: a centre line; none for one lane) and a
/// solid edge line along each side of the carriageway, set in from its edge; narrower ways
/// (footways, lanes, tracks) get none. Markings stop short of junctions
/// (a vertex two ways share), by the widest way meeting there, so no line crosses another road's surface.
/// A path tagged as a marked crossing (`crossing` zebra, marked, uncontrolled, traffic_signals…:
/// anything but unmarked or no) paints zebra bars where it crosses a carriageway.
///
/// The lines follow the centrelines of the map's features, not the cells: the dashes are
/// measured along each way from its first vertex, so a way crossing several tiles keeps its
/// rhythm across their edges, and each tile clips its pieces exactly at its edges. A piece is
/// kept only where its middle lies on a cell of the surface (`surfaceCells`): none over water
/// cut out of the roads, or under a surface of an earlier part.

#include <span>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::placement {

struct RoadMarkingStyle {
    double minWidthMetres = 5.5;       ///< narrower ways get no markings
    double lineWidthMetres = 0.15;     ///< every painted line's width
    double edgeInsetMetres = 0.3;      ///< an edge line's outer side from the road's edge
    double dashMetres = 3.0;           ///< a centre dash's length
    double gapMetres = 6.0;            ///< between two centre dashes
    double junctionClearMetres = 1.0;  ///< beyond the widest way's half width at a junction
    double sidewalkMetres = 2.0;       ///< a sidewalk strip's width…
    double sidewalkShare = 0.2;        ///< …but at most this share of its way's width
    double zebraBarMetres = 0.5;       ///< a zebra crossing's bars, along the path…
    double zebraGapMetres = 0.5;       ///< …the gaps between them…
    double zebraLengthMetres = 3.0;    ///< …and their length, along the road
};

/// What is painted on a tile's roads: triangles in the tile's cells (three corners each,
/// counter-clockwise seen from above as SurfaceShape::triangles, within the tile).
struct RoadPaint {
    std::vector<Vec2> markings;  ///< white lines
    /// Paving: the whole width of footways, paths, steps, pedestrian streets and cycleways.
    std::vector<Vec2> paving;
    /// Sidewalks: strips along the sides of carriageways the `sidewalk` tags name.
    std::vector<Vec2> sidewalks;
    std::vector<Vec2> gravel;  ///< the whole width of tracks
};

/// The markings, paving and gravel of the line features (with `inLayer` set for their layer: a layer
/// and its classes) of `tile` in `index`, at `metresPerCell`, appended to `out`. Bridge ways are
/// skipped when `leaveOutBridges` (their deck stands for them on terrain).
void roadMarkings(const TileIndex& index, const TileId& tile, const std::vector<char>& inLayer, double metresPerCell,
                  const BitTile& surfaceCells, bool leaveOutBridges, const RoadMarkingStyle& style, RoadPaint& out);

}  // namespace terrabit::core::placement
