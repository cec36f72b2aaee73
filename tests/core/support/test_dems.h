#pragma once
/// DEMs the tests make with GDAL (the Terrain issue: no real DEM ships with the project): a
/// one-band Float32 GeoTIFF of any function, in UTM 32N around Monaco or in any CRS. Shared by
/// the io, pipeline, placement, export and collision tests, so every suite makes DEMs one way.

#include <filesystem>
#include <functional>
#include <optional>

#include "terrabit/core/geometry.h"

namespace terrabit::core::test {

/// EPSG code of UTM zone 32N, Monaco's zone.
inline constexpr int kUtm32N = 32632;
/// The point the Monaco DEMs are centred on.
inline constexpr core::LonLat kMonacoCentre{7.42, 43.73};

/// A north-up raster grid: its origin (north-west corner) and pixel size in its CRS's units.
struct DemGrid {
    double west = 0.0, north = 0.0, pixel = 1.0;
    int width = 0, height = 0;
    /// The CRS position of the centre of pixel (col, row).
    double centreX(int col) const { return west + (col + 0.5) * pixel; }
    double centreY(int row) const { return north - (row + 0.5) * pixel; }
};

/// Writes a one-band Float32 GeoTIFF whose pixel (col, row) holds value(col, row); `epsg` 0
/// leaves it without a CRS, `georeferenced` false without a geotransform. Fails the running
/// test (ADD_FAILURE) when GDAL cannot write it.
void writeDem(const std::filesystem::path& path, int epsg, const DemGrid& grid,
              const std::function<double(int col, int row)>& value, std::optional<double> nodata = std::nullopt,
              bool georeferenced = true);

/// kMonacoCentre in UTM 32N metres.
core::Vec2 monacoUtm();
/// A square UTM 32N grid centred on Monaco: `pixel`-metre pixels, 2 × halfSizeMetres across.
DemGrid monacoGrid(double pixel, double halfSizeMetres = 1000.0);

/// Transforms between two EPSG CRSs in traditional GIS axis order (x east, y north), as the
/// tests' own reference.
class Projector {
public:
    Projector(int fromEpsg, int toEpsg);
    ~Projector();
    Projector(const Projector&) = delete;
    Projector& operator=(const Projector&) = delete;
    core::Vec2 operator()(core::Vec2 p) const;

private:
    void* mTransform = nullptr;  ///< an OGRCoordinateTransformation (no GDAL header here)
};

/// Writes a DEM in UTM 32N around Monaco whose height at each pixel centre is `height` of that
/// point's EPSG:3857 position (metres): a surface defined in map coordinates, so a test can
/// compare placed heights with the analytic value at any point. Returns the path.
std::filesystem::path writeMercatorDem(const std::filesystem::path& path,
                                       const std::function<double(core::Vec2)>& height, double pixel = 5.0,
                                       double halfSizeMetres = 1500.0);

}  // namespace terrabit::core::test
