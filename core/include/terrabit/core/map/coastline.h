#pragma once
/// The sea from OpenStreetMap coastlines. OSM has no sea polygons: the sea is what lies to the
/// right of the `natural=coastline` ways (land on the left, in the way's direction). buildSea
/// joins the ways into chains and closes the open ones against the data's extent.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/map/feature.h"

namespace terrabit::core {

/// The derived sea and what was odd about the coastline it came from.
struct SeaArea {
    /// An Area feature with id "sea" and the tag natural=sea, in EPSG:3857 metres; its rings are
    /// meant for the even-odd rule (islands are holes). No points when there is no coastline.
    Feature sea;
    int coastlineWays = 0;  ///< coastline features used
    int closedRings = 0;    ///< coastline rings closed in the data (islands, or sea enclosed by land)
    int openChains = 0;     ///< chains of ways ending inside the extent, closed along its border
    /// Problems, each naming the source and the way ids ("… coastline w123 ends 850 m inside the
    /// extent; closed with a straight line to the border").
    std::vector<std::string> warnings;
};

/// Builds the sea for a data extent (EPSG:3857 metres) from the features tagged
/// natural=coastline: lines, and areas (GDAL files closed coastline ways as areas).
///
/// Ways meeting end to start are joined into chains. A closed chain is a ring as it is. An open
/// chain is extended from each end straight to the nearest point of the extent's border, and the
/// ring continues clockwise along the border (keeping the sea on its right) to the start of the
/// next chain, until it returns to the first. With no open chain but closed land rings, the sea
/// is the whole extent minus the land (an island extract). `source` names the file in warnings.
/// Deterministic: the same features in the same order give the same rings.
SeaArea buildSea(std::span<const Feature> features, const Box2& extent, std::string_view source);

}  // namespace terrabit::core
