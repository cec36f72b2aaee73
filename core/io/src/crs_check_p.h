#pragma once
// Private to terrabit::io: a file's coordinate system checked before PROJ is asked to transform
// from or to it.
//
// A CRS read from a file may name an authority code that is another kind of CRS than the one
// it spells out: a GeoTIFF or a .prj describing longitude/latitude on a datum but naming
// EPSG:4342, a geocentric CRS (the DEM fuzzer made one). PROJ 9.1 dereferences a null pointer
// building the transformation of such a CRS, which ended the process: the CLI's bake and the
// app with every unsaved edit. Such a file is refused, saying what it claims.

#include <optional>
#include <string>

#include <ogr_spatialref.h>

namespace terrabit::core::io::detail {

/// Why `srs` cannot be trusted, when the authority code it names (EPSG:4342) is a different kind
/// of CRS (geographic, projected, geocentric, ...) than the one it defines: "a geographic
/// coordinate system that names EPSG:4342, a geocentric one". Nothing when it names none, names
/// one PROJ does not know (its own definition then stands), or names one of its kind.
std::optional<std::string> inconsistentAuthority(const OGRSpatialReference& srs);

}  // namespace terrabit::core::io::detail
