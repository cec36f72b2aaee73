#pragma once
/// MapData: everything read from one map file, in the plain feature model, with what went wrong
/// on the way. Produced by the readers in core/io (GDAL) or built by hand in tests.

#include <cstddef>
#include <string>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/map/feature.h"

namespace terrabit::core {

/// One layer of the source file and what was read from it.
struct SourceLayerInfo {
    std::string name;                 ///< the source's layer name ("multipolygons", "building"…)
    std::string geometryType;         ///< as the source declares it ("Multi Polygon", "Point"…)
    std::size_t featuresRead = 0;     ///< features kept from this layer
    std::size_t featuresSkipped = 0;  ///< features dropped (no usable geometry)
};

/// The contents of one map file.
struct MapData {
    std::string source;  ///< the file or folder as the user named it
    std::string format;  ///< the reader's format name (GDAL driver: "OSM", "GPKG", "MVT"…)
    /// Usable features in source order (layer by layer; OSM files in the file's order).
    std::vector<Feature> features;
    /// The data's extent in EPSG:3857 metres: the extent the file declares (an OSM extract's
    /// bounding box, a vector tile's square) when it declares one, else featureBounds. The sea
    /// is closed against it.
    Box2 extent;
    /// The bounds of every feature, EPSG:3857 metres. Larger than `extent` when ways or relations
    /// reach out of the extract (a maritime border, a railway line).
    Box2 featureBounds;
    std::vector<SourceLayerInfo> layers;
    /// Problems met while reading (bad geometries, reader errors). Each names the file and, where
    /// one is to blame, the feature id. Reading went on past every one of them.
    std::vector<std::string> warnings;
};

}  // namespace terrabit::core
