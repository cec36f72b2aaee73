#pragma once
/// Reading raster DEMs through GDAL and resampling them onto tiles' HeightTiles (the input half
/// of the Terrain issue). This header includes no GDAL.
///
/// What a sample is: the height at a cell corner's EPSG:3857 position (terrain::sampleMercator),
/// transformed into the DEM's CRS with OGR (traditional GIS axis order) and interpolated
/// between the centres of the DEM's pixels (bilinearly, or cubic for a much coarser DEM:
/// kCubicRatio), in the DEM's units above its vertical
/// datum (metres for every DEM this has been tested with; nothing is converted).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "terrabit/core/result.h"
#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::io {

/// Heights beyond this magnitude (metres) are not terrain: fill values such as 1e30, or SRTM's
/// -32768 in a file that does not declare it as nodata. They count as no data. The Dead Sea
/// shore (-430 m) and Everest (8849 m) stay well inside.
inline constexpr double kMaxAbsHeightMetres = 10000.0;
/// A DEM whose pixels are more than this many times a zoom's cells (on the ground, at the DEM's
/// centre) is sampled at that zoom with cubic convolution (Keys, a = -0.5, as gdalwarp -r
/// cubic), so SRTM's 30 m pixels under 0.9 m cells make a smooth surface rather than facets;
/// finer DEMs are sampled bilinearly. Where a cubic sample would weigh a hole, it is bilinear.
inline constexpr double kCubicRatio = 8.0;
/// How far (DEM pixels) inpainting looks for data around a hole: 256 pixels, 7.7 km of SRTM.
inline constexpr double kInpaintSearchPixels = 256.0;
/// The largest DEM (pixels) that is inpainted: its filled copy is held in memory as float32
/// (64 Mi pixels, 256 MiB: four SRTM 1" or Copernicus GLO-30 tiles). A larger DEM's holes stay
/// holes, and DemInfo::inpainted says so.
inline constexpr std::size_t kMaxInpaintPixels = std::size_t{64} << 20;

/// What one opened DEM is, as read when it was opened.
struct DemInfo {
    std::filesystem::path path;  ///< as given to DemReader::open
    std::string crsName;         ///< the CRS's name as GDAL reports it (e.g. "WGS 84 / UTM zone 32N")
    int widthPixels = 0;         ///< raster size
    int heightPixels = 0;
    double pixelSizeGroundMetres = 0.0;  ///< the pixel's ground size at the raster's centre (the
                                         ///< larger of its two sides), which orders the DEMs
    std::optional<double> nodata;        ///< band 1's nodata value, if the file declares one
    /// Pixels that are nodata or absurd (counted at open() for DEMs up to kMaxInpaintPixels).
    std::uint64_t holePixels = 0;
    /// True when the DEM has holes and a filled copy was made for inpainting; false when it has
    /// none or is too large to fill.
    bool inpainted = false;
};

/// What sampling one tile found. Counts are samples (cell corners), at most kHeightSampleCount.
struct DemSampleReport {
    /// Samples whose height came from a DEM other than the finest one, because every finer DEM
    /// had no height there (outside it, nodata or an absurd value).
    std::uint32_t filledFromCoarser = 0;
    /// Samples whose height was inpainted: no DEM had a usable value there, but the finest DEM
    /// whose filled raster reaches the sample had data within kInpaintSearchPixels (GDAL's
    /// GDALFillNodata, inverse-distance weighting, run once over the whole raster at open()).
    std::uint32_t inpainted = 0;
    /// Samples left without a height (kNoHeight): no DEM has a usable value there, filled or not.
    std::uint32_t noHeight = 0;
    /// Samples at which some DEM held an absurd value (non-finite or |h| > kMaxAbsHeightMetres,
    /// not its nodata) among the pixels it would have interpolated; that DEM counted as having no
    /// data there. A sample is counted once however many DEMs were absurd at it.
    std::uint32_t absurd = 0;
    /// Per DEM, in dems() order (finest first): what it gave this tile.
    struct PerDem {
        std::uint32_t covered = 0;            ///< samples inside its raster, whether it gave them a height or not
        std::uint32_t supplied = 0;           ///< samples whose height it gave (its data or its filled copy)
        std::uint32_t filledFromCoarser = 0;  ///< of supplied: data given where every finer DEM had none
        std::uint32_t inpainted = 0;          ///< of supplied: from its filled copy
        std::uint32_t absurd = 0;             ///< samples at which it held an absurd value
    };
    std::vector<PerDem> perDem;
};

/// One or more raster DEMs, finest first, sampled tile by tile.
///
/// What a DEM path may name: any raster GDAL reads (GeoTIFF/COG, SRTM .hgt, a VRT mosaic…), in
/// any CRS; or a terrain-RGB tile set, named with its encoding as a prefix — `terrarium:PATH`
/// (Mapzen/AWS Terrarium, h = 256 R + G + B/256 − 32768 m) or `terrain-rgb:PATH` (Mapbox
/// Terrain-RGB, h = −10000 + 0.1 (65536 R + 256 G + B) m), where PATH is a z/x/y folder of PNG or
/// WebP tiles or an .mbtiles file. A tile set is read at its finest zoom, decoded once at open()
/// into one EPSG:3857 mosaic held in memory (at most kMaxInpaintPixels pixels); missing tiles and
/// transparent pixels are holes. A folder or .mbtiles named without an encoding is refused with
/// a message that says how to name it.
///
/// Holes: where no DEM has a usable height, the sample is inpainted from the finest DEM whose
/// filled copy (GDALFillNodata over the whole raster, made once at open()) has a value there.
/// Each filled raster depends on its DEM alone, so inpainted samples are, like all others, a
/// function of their global corner: shared edges stay identical. Real data always wins over a
/// fill, a coarser DEM's real data too.
///
/// Several DEMs: at each sample the finest DEM (smallest DemInfo::pixelSizeGroundMetres; equal
/// sizes keep the order given) that has a usable height there wins; a DEM has none where the
/// corner lies outside its raster, where any of the (up to four) pixels the bilinear weights
/// reach is its nodata, or where one is absurd. Nodata is never read as a height. A corner
/// within half a pixel of the raster's edge (beyond the outermost pixel centres) takes the
/// edge pixels' values (the interpolation is clamped), so a raster covers its whole extent.
///
/// Threads: sample() may be called concurrently from any number of threads. Each concurrent
/// caller borrows its own cursor (its own GDALDataset handles, coordinate transformations and
/// scratch; GDAL datasets are not safe to share) from a pool guarded by a mutex that is held only
/// to borrow and return; a cursor is made on first need and kept. Results do not depend on
/// which cursor served a call, on the thread count or on the tile order.
///
/// Shared edges: every sample is a function of its global corner alone (its position comes from
/// terrain::cornerMercator, the pixels it reads and the arithmetic do not depend on the tile), so
/// neighbouring tiles hold bit-identical values on their common row or column.
///
/// Not handled yet: the antimeridian (a tile's east edge at +180° is not its neighbour's west edge
/// at -180° in EPSG:3857, so a DEM crossing it is read as two halves), DEMs without a CRS given
/// one by the user, rasters georeferenced by GCPs only, overviews (a tile far
/// coarser than the DEM reads every DEM pixel under it).
class DemReader {
public:
    /// Opens the DEMs. Fails (kind BadInput, the message starting with the file's path) for: a
    /// missing file; a file GDAL cannot open as a raster ("not a raster GDAL can read"); a raster
    /// without bands; no coordinate system ("has no coordinate system (CRS)"); no geotransform or
    /// one whose extent is empty or not finite ("has no usable extent"); a CRS that EPSG:3857
    /// cannot be transformed into; a raster with no usable height at all ("every value is nodata
    /// or absurd"). A tile set fails likewise: no zoom folder or tiles, a tile that is not an
    /// image or has fewer than three bands, tiles of different sizes, more pixels than
    /// kMaxInpaintPixels. An empty list fails with kind BadArguments.
    ///
    /// With `dropped`, each DEM is opened on its own: one that fails is appended to `dropped`
    /// (its error, naming the file) and left out, and the rest open; only when none is left does
    /// open fail (kind BadInput, "no usable DEM", the dropped DEMs' problems in `dropped`).
    static Result<DemReader> open(const std::vector<std::filesystem::path>& paths,
                                  std::vector<Error>* dropped = nullptr);

    DemReader(DemReader&&) noexcept;
    DemReader& operator=(DemReader&&) noexcept;
    ~DemReader();

    /// The DEMs, finest first (the order sample() prefers them in).
    const std::vector<DemInfo>& dems() const;

    /// Fills `out` with the heights of `tile` (out.reset(tile) first; its storage is reused) and
    /// reports what was filled and what is missing. A tile no DEM overlaps is no error: every
    /// sample is kNoHeight and report.noHeight is kHeightSampleCount. Fails (kind BadInput, naming
    /// the file) only when GDAL cannot read pixels of a DEM that opened (a truncated or changed
    /// file); `out` then holds no heights.
    Result<DemSampleReport> sample(TileId tile, terrain::HeightTile& out) const;

private:
    struct Impl;
    explicit DemReader(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> mImpl;
};

}  // namespace terrabit::core::io
