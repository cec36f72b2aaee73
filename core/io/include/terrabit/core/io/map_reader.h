#pragma once
/// Reading any map file OGR can read into the plain feature model (EPSG:3857 metres, all tags
/// kept, stable ids). The only GDAL-backed reader; this header includes no GDAL.

#include <filesystem>
#include <string>
#include <vector>

#include "terrabit/core/map/map_data.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/result.h"

namespace terrabit::core::io {

struct ReadOptions {
    /// GDAL open options, "KEY=VALUE" (e.g. "ZOOM_LEVEL=13" for an MBTiles file).
    std::vector<std::string> openOptions;
    /// Called with stage "reading"; returning false cancels.
    ProgressCallback progress;
    /// Accept a map that could be read only in part (a truncated or corrupt PBF, GDAL stopping
    /// with an error): what was read is kept and the first warning says how much. Without it
    /// such a map is an error (the CLI's --allow-partial sets it).
    bool allowPartial = false;
};

/// Reads a map file (or a z/x/y folder of vector tiles) through GDAL/OGR.
///
/// - Formats: anything OGR reads; tested with OSM PBF and XML, GeoPackage, Shapefile, GeoJSON,
///   FlatGeobuf, Mapbox vector tiles (a z/x/y folder, its root, or a single tile) and MBTiles
///   (whose deepest zoom with tiles is used when the metadata claims a deeper one).
/// - Coordinates go to EPSG:3857 (traditional GIS axis order); a layer without a coordinate
///   system is taken as longitude/latitude when its extent fits, with a warning.
/// - OpenStreetMap: the points, lines, multilinestrings and multipolygons layers are read in one
///   interleaved pass (other_relations, which holds routes and such, is skipped). Every tag is
///   kept (the `other_tags` text is unpacked); ids are "n…", "w…" or "r…". Closed ways tagged
///   waterway=riverbank or area=yes, which GDAL leaves among the lines, become areas. PBF files
///   are checked for truncation first. Other sources: every field is a tag, ids "<layer>:<FID>".
/// - Geometry problems are repaired where possible (repairGeometry) and reported as warnings
///   naming the file and feature; GDAL's own warnings are kept the same way. Features without
///   geometry are skipped with a warning; features without tags are kept with one.
/// - Every GDAL or PROJ message raised while reading becomes a warning "<file>: feature <id>:
///   GDAL: …" for the feature being read or projected, "<file>: layer <name>: GDAL: …" while a
///   layer is prepared, or "<file>: no feature: GDAL: …" when it belongs to none.
///
/// Fails (kind BadInput unless said) when nothing usable could be read: a missing file, an empty
/// file ("…: the file is empty") or folder ("…: the folder is empty"), a format GDAL does not
/// know, no features at all (the message then says why); when the map could be read only in
/// part and `options.allowPartial` is not set; or on cancellation (kind Cancelled).
Result<MapData> readMap(const std::filesystem::path& path, const ReadOptions& options = {});

/// Registers GDAL's drivers once (thread-safe; readMap and the writers call it themselves).
void initGdal();

}  // namespace terrabit::core::io
