#include "terrabit/core/io/dem_reader.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <string_view>
#include <tuple>

#include "crs_check_p.h"
#include "gdal_dataset_p.h"
#include "terrabit/core/io/map_reader.h"

namespace terrabit::core::io {

namespace {

using terrain::HeightTile;
using terrain::kHeightSampleCount;
using terrain::kHeightSamples;

/// The largest pixel window one tile reads from a DEM at once (doubles; 32 MiB of scratch). A
/// tile far coarser than the DEM would need more; it then reads 2×2 pixels per sample instead,
/// slower but bounded in memory.
constexpr std::size_t kMaxWindowPixels = std::size_t{2048} * 2048;
/// Pixels the usable-value scan at open() reads per request.
constexpr std::size_t kScanChunkPixels = std::size_t{1} << 20;

// -- what a DEM argument names ---------------------------------------------------------------

/// How a tile set stores heights in its red, green and blue bytes.
enum class TileEncoding {
    None,        ///< not a tile set: a raster file GDAL reads
    Terrarium,   ///< Mapzen/AWS Terrarium: h = 256 R + G + B / 256 - 32768 m
    TerrainRgb,  ///< Mapbox Terrain-RGB: h = -10000 + 0.1 (65536 R + 256 G + B) m
};

struct DemName {
    TileEncoding encoding = TileEncoding::None;
    std::filesystem::path path;  ///< without the encoding prefix
};

/// "terrarium:PATH" and "terrain-rgb:PATH" name a tile set; anything else is a raster file.
DemName parseDemName(const std::filesystem::path& given) {
    const std::string text = given.string();
    for (const auto& [prefix, encoding] : {std::pair{std::string_view("terrarium:"), TileEncoding::Terrarium},
                                           std::pair{std::string_view("terrain-rgb:"), TileEncoding::TerrainRgb}}) {
        if (text.starts_with(prefix)) return {encoding, text.substr(prefix.size())};
    }
    return {TileEncoding::None, given};
}

float decodeHeight(TileEncoding e, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    if (e == TileEncoding::Terrarium) return static_cast<float>(r * 256.0 + g + b / 256.0 - 32768.0);
    return static_cast<float>(-10000.0 + 0.1 * (r * 65536.0 + g * 256.0 + b));
}

// -- GDAL plumbing ---------------------------------------------------------------------------

/// Silences GDAL's messages on this thread (the handler stack and the last error are per
/// thread) and keeps the last one, so an error can say what GDAL said instead of GDAL printing it.
class QuietGdal {
public:
    QuietGdal() {
        CPLPushErrorHandler(CPLQuietErrorHandler);
        CPLErrorReset();
    }
    ~QuietGdal() { CPLPopErrorHandler(); }
    QuietGdal(const QuietGdal&) = delete;
    QuietGdal& operator=(const QuietGdal&) = delete;

    /// " (GDAL: <last message>)", or nothing when GDAL said nothing.
    static std::string says() {
        const char* message = CPLGetLastErrorMsg();
        return message && *message ? std::string(" (GDAL: ") + message + ")" : std::string();
    }
};

/// One DEM as one thread reads it: GDAL datasets and coordinate transformations are not safe to
/// share between threads, so every cursor owns its own.
struct DemHandle {
    DatasetPtr dataset;
    GDALRasterBand* band = nullptr;                      ///< band 1, owned by the dataset
    std::unique_ptr<OGRCoordinateTransformation> toDem;  ///< EPSG:3857 → the DEM's CRS
};

/// What open() learnt of one DEM; shared read-only by every cursor.
struct DemSource {
    DemInfo info;
    std::array<double, 6> pixelFromGeo{};  ///< inverse geotransform: DEM CRS → pixel/line
    bool hasNodata = false;
    double nodata = 0.0;
    float nodataFloat = 0.0f;  ///< nodata as float32 (NaN where it has no float value)
    /// The raster with its holes inpainted (row-major float32, unfilled pixels keep their
    /// nodata or absurd value); null when the DEM has no hole or is too large to fill.
    std::shared_ptr<const std::vector<float>> filled;
    /// The latitude of the raster's centre (degrees): where its ground pixel size was measured.
    double centreLatitude = 0.0;
    /// The raster held in memory (row-major float32): a terrain-RGB tile set decoded into
    /// heights (NaN where no tile was, in EPSG:3857 at its finest zoom), or a raster file of at
    /// most kMaxInpaintPixels pixels, read once at open() (GDAL's block cache serializes
    /// concurrent reads, and every tile re-read its window). Null for a larger raster file, which
    /// is read through GDAL tile by tile.
    std::shared_ptr<const std::vector<float>> decoded;
    /// How a decoded tile set was encoded; None for a raster file.
    TileEncoding encoding = TileEncoding::None;
};

/// The pixels and weights of one sample: columns col0..col1 and rows row0..row1 (equal where
/// clamped at the raster's edge), fx and fy the weights of col1 and row1. A cubic sample also
/// reads one pixel beyond on each side: the window it needs is lo..hi (clamped to the raster).
struct Taps {
    int col0 = 0, col1 = 0, row0 = 0, row1 = 0;
    double fx = 0.0, fy = 0.0;
    bool cubic = false;
    int colLo = 0, colHi = 0, rowLo = 0, rowHi = 0;
};

/// Samples are taken to a DEM's CRS exactly at every kLatticeStep-th corner and bilinearly in
/// between: PROJ's transformation of all 66,049 corners was nine tenths of sampling a tile
/// (24 ms), while the mapping from EPSG:3857 to any CRS a DEM uses is smooth enough that over a
/// 16-cell span its curvature moves a point by less than a micrometre at zoom 17 (less at
/// finer zooms; checked against gdalwarp with exact transformation in the tests). A corner whose
/// lattice cell has a point that failed to transform is transformed alone. The lattice is of
/// global corners and the interpolation weights are exact fractions, so a shared tile edge
/// gets the same bits from both tiles.
constexpr int kLatticeStep = 16;
constexpr int kLatticeSide = kTileCells / kLatticeStep + 1;  // 17
constexpr std::size_t kLatticeCount = std::size_t{kLatticeSide} * kLatticeSide;

/// Per-thread state of sample(): a handle per DEM (finest first) and the scratch of one tile, so
/// a warm cursor allocates nothing.
struct Cursor {
    std::vector<DemHandle> dems;
    std::vector<double> mercatorX, mercatorY;  ///< the tile's sample positions, EPSG:3857 metres
    std::vector<double> x, y;                  ///< the same in a DEM's CRS, then its pixel/line
    std::vector<int> inside;                   ///< 1: transformed, inside the DEM, still wanted
    std::vector<std::uint8_t> absurd;          ///< 1: some DEM held an absurd value here
    std::vector<double> window;                ///< pixels read for one DEM
    std::vector<Taps> taps;                    ///< each wanted sample's taps into the current DEM
    /// The lattice of every kLatticeStep-th corner, transformed exactly (x, y, success).
    std::vector<double> latticeX, latticeY;
    std::vector<int> latticeOk;

    Cursor()
        : mercatorX(kHeightSampleCount),
          mercatorY(kHeightSampleCount),
          x(kHeightSampleCount),
          y(kHeightSampleCount),
          inside(kHeightSampleCount),
          absurd(kHeightSampleCount),
          taps(kHeightSampleCount),
          latticeX(kLatticeCount),
          latticeY(kLatticeCount),
          latticeOk(kLatticeCount) {}
};

OGRSpatialReference traditionalOrder(const OGRSpatialReference& srs) {
    OGRSpatialReference copy(srs);
    copy.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    return copy;
}

/// Opens `path` as a raster with a CRS and a transformation from EPSG:3857 into that CRS.
Result<DemHandle> openHandle(const std::filesystem::path& path) {
    const std::string name = path.string();
    QuietGdal quiet;
    // VSIStatL, not std::filesystem: it also sees /vsimem/ and other GDAL virtual files.
    VSIStatBufL stat;
    if (VSIStatL(name.c_str(), &stat) != 0) return Error{name + ": no such file"};
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec) || path.extension() == ".mbtiles") {
        return Error{name + ": a tile set's heights are encoded in its colours: name the encoding, terrarium:" + name +
                     " or terrain-rgb:" + name};
    }
    DemHandle h;
    h.dataset.reset(GDALDataset::Open(name.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY));
    if (!h.dataset) return Error{name + ": not a raster GDAL can read" + QuietGdal::says()};
    if (h.dataset->GetRasterCount() < 1) return Error{name + ": the raster has no band"};
    h.band = h.dataset->GetRasterBand(1);
    const OGRSpatialReference* srs = h.dataset->GetSpatialRef();
    if (!srs || srs->IsEmpty()) {
        return Error{name + ": the raster has no coordinate system (CRS), so where its heights lie is unknown"};
    }
    if (const auto why = detail::inconsistentAuthority(*srs)) {
        return Error{name + ": its coordinate system contradicts itself: " + *why +
                     "; give the file its real CRS (gdal_edit.py -a_srs EPSG:<code> " + name + ")"};
    }
    OGRSpatialReference mercator;
    mercator.importFromEPSG(3857);
    mercator.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    const OGRSpatialReference dem = traditionalOrder(*srs);
    h.toDem.reset(OGRCreateCoordinateTransformation(&mercator, &dem));
    if (!h.toDem) {
        return Error{name + ": EPSG:3857 cannot be transformed into its coordinate system" + QuietGdal::says()};
    }
    return h;
}

enum class PixelKind { Height, Nodata, Absurd };

PixelKind classify(double v, const DemSource& s) {
    // Hot (16 times per sample of a cubic tile): the common case first, an ordinary height that
    // is not the nodata value. NaN and infinities fail the range test.
    if (std::abs(v) <= kMaxAbsHeightMetres &&
        (!s.hasNodata || (v != s.nodata && static_cast<float>(v) != s.nodataFloat))) {
        return PixelKind::Height;
    }
    // A Float32 band's nodata is stored as a double; compare in float too so a value read back
    // from float storage still matches it.
    if (s.hasNodata && (v == s.nodata || (std::isnan(v) && std::isnan(s.nodata)) ||
                        (std::abs(s.nodata) < 3.4e38 && static_cast<float>(v) == static_cast<float>(s.nodata)))) {
        return PixelKind::Nodata;
    }
    if (!std::isfinite(v) || std::abs(v) > kMaxAbsHeightMetres) return PixelKind::Absurd;
    return PixelKind::Height;
}

/// True when the raster holds at least one usable height; reads until it finds one, so a good
/// DEM costs one chunk and only a useless one is read whole.
Result<bool> hasUsableHeight(DemHandle& h, const DemSource& s) {
    if (s.decoded) {
        return std::any_of(s.decoded->begin(), s.decoded->end(),
                           [&](float v) { return classify(v, s) == PixelKind::Height; });
    }
    const int width = s.info.widthPixels;
    const int rowsPerChunk =
        static_cast<int>(std::max<std::size_t>(1, kScanChunkPixels / static_cast<std::size_t>(width)));
    std::vector<double> chunk;
    for (int row = 0; row < s.info.heightPixels; row += rowsPerChunk) {
        const int rows = std::min(rowsPerChunk, s.info.heightPixels - row);
        chunk.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(rows));
        QuietGdal quiet;
        if (h.band->RasterIO(GF_Read, 0, row, width, rows, chunk.data(), width, rows, GDT_Float64, 0, 0, nullptr) !=
            CE_None) {
            return Error{s.info.path.string() + ": GDAL could not read its pixels" + QuietGdal::says()};
        }
        if (std::any_of(chunk.begin(), chunk.end(), [&](double v) { return classify(v, s) == PixelKind::Height; })) {
            return true;
        }
    }
    return false;
}

/// Pixels smaller than this on the ground (metres) are not a DEM's: a lidar DEM's are 0.25 m.
constexpr double kMinPixelMetres = 0.001;

/// The ground size (metres) of the pixel at the raster's centre, the larger of its sides: the
/// pixel's corners taken to EPSG:3857 and scaled by cos(latitude), so DEMs in any CRS compare.
Result<double> groundPixelSize(DemHandle& h, const std::array<double, 6>& gt, DemSource& s) {
    const double col = s.info.widthPixels / 2.0, row = s.info.heightPixels / 2.0;
    std::array<double, 3> x{}, y{};
    const std::array<std::array<double, 2>, 3> pixel{{{col, row}, {col + 1, row}, {col, row + 1}}};
    for (std::size_t i = 0; i < 3; ++i) {
        x[i] = gt[0] + gt[1] * pixel[i][0] + gt[2] * pixel[i][1];
        y[i] = gt[3] + gt[4] * pixel[i][0] + gt[5] * pixel[i][1];
    }
    std::unique_ptr<OGRCoordinateTransformation> toMercator(h.toDem->GetInverse());
    std::array<int, 3> ok{};
    QuietGdal quiet;
    if (!toMercator || !toMercator->Transform(3, x.data(), y.data(), nullptr, ok.data()) || !ok[0] || !ok[1] ||
        !ok[2]) {
        return Error{s.info.path.string() + ": its centre cannot be transformed to EPSG:3857" + QuietGdal::says()};
    }
    s.centreLatitude = mercatorToLonLat({x[0], y[0]}).lat;
    const double scale = std::cos(s.centreLatitude * std::acos(-1.0) / 180.0);
    const double across = std::hypot(x[1] - x[0], y[1] - y[0]) * scale;
    const double down = std::hypot(x[2] - x[0], y[2] - y[0]) * scale;
    const double size = std::max(across, down);
    // A geotransform may invert yet describe pixels too small to tell apart on the ground (found
    // by the DEM fuzzer: 1e-300 m pixels at a UTM origin, whose corners round to one point).
    if (!(size >= kMinPixelMetres) || !std::isfinite(size)) {
        return Error{s.info.path.string() + ": the raster has no usable extent (its pixels are " +
                     std::to_string(size) + " m on the ground, less than " + std::to_string(kMinPixelMetres) + " m)"};
    }
    return size;
}

/// A transformation from EPSG:3857 to itself: what a tile set's cursor uses.
Result<DemHandle> mercatorHandle(const std::string& name) {
    OGRSpatialReference mercator;
    mercator.importFromEPSG(3857);
    mercator.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    DemHandle h;
    QuietGdal quiet;
    h.toDem.reset(OGRCreateCoordinateTransformation(&mercator, &mercator));
    if (!h.toDem) return Error{name + ": no EPSG:3857 transformation" + QuietGdal::says()};
    return h;
}

/// Decodes the RGB of `rgb` (3 bands of bytes, width × height, row-major per band) into
/// `heights` at (col0, row0) of a mosaic `mosaicWidth` wide; where `alpha` is 0 no height.
void decodeInto(TileEncoding e, const std::vector<std::uint8_t>& rgb, const std::uint8_t* alpha, int width, int height,
                std::vector<float>& heights, std::size_t mosaicWidth, std::size_t col0, std::size_t row0) {
    const std::size_t plane = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    for (int r = 0; r < height; ++r) {
        for (int c = 0; c < width; ++c) {
            const std::size_t i =
                static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c);
            const std::size_t at =
                (row0 + static_cast<std::size_t>(r)) * mosaicWidth + col0 + static_cast<std::size_t>(c);
            heights[at] = alpha && alpha[i] == 0 ? std::numeric_limits<float>::quiet_NaN()
                                                 : decodeHeight(e, rgb[i], rgb[plane + i], rgb[2 * plane + i]);
        }
    }
}

/// Reads bands 1–3 (and 4 as alpha when there is one) of a whole raster as bytes.
Status readRgb(GDALDataset& d, const std::string& name, std::vector<std::uint8_t>& rgb,
               std::vector<std::uint8_t>& alpha) {
    const int w = d.GetRasterXSize(), hgt = d.GetRasterYSize();
    if (d.GetRasterCount() < 3) {
        return Error{name + ": a terrain-RGB tile needs red, green and blue bands, it has " +
                     std::to_string(d.GetRasterCount())};
    }
    const std::size_t plane = static_cast<std::size_t>(w) * static_cast<std::size_t>(hgt);
    rgb.resize(3 * plane);
    int bands[3] = {1, 2, 3};
    if (d.RasterIO(GF_Read, 0, 0, w, hgt, rgb.data(), w, hgt, GDT_Byte, 3, bands, 0, 0, 0, nullptr) != CE_None) {
        return Error{name + ": GDAL could not read its pixels" + QuietGdal::says()};
    }
    alpha.clear();
    if (d.GetRasterCount() >= 4) {
        alpha.resize(plane);
        if (d.GetRasterBand(4)->RasterIO(GF_Read, 0, 0, w, hgt, alpha.data(), w, hgt, GDT_Byte, 0, 0, nullptr) !=
            CE_None) {
            return Error{name + ": GDAL could not read its pixels" + QuietGdal::says()};
        }
    }
    return {};
}

/// One tile file of a z/x/y folder.
struct TileFile {
    std::uint32_t x = 0, y = 0;
    std::filesystem::path path;
};

/// A z/x/y folder of terrain-RGB tiles at its finest zoom, decoded into one EPSG:3857 mosaic.
Status decodeTileFolder(const DemName& dem, const std::string& name, DemSource& s, std::array<double, 6>& gt) {
    std::error_code ec;
    int zoom = -1;
    for (const auto& entry : std::filesystem::directory_iterator(dem.path, ec)) {
        const std::string z = entry.path().filename().string();
        if (entry.is_directory() && !z.empty() && z.size() <= 2 &&
            std::all_of(z.begin(), z.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
            zoom = std::max(zoom, std::stoi(z));
        }
    }
    if (zoom < 0 || zoom > kMaxZoom) return Error{name + ": no zoom folder (0..30) of z/x/y tiles in it"};
    std::vector<TileFile> files;
    const std::filesystem::path level = dem.path / std::to_string(zoom);
    const auto number = [](const std::string& t, std::uint32_t& out) {
        if (t.empty() || t.size() > 10 ||
            !std::all_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
            return false;
        out = static_cast<std::uint32_t>(std::stoull(t));
        return true;
    };
    for (const auto& column : std::filesystem::directory_iterator(level, ec)) {
        TileFile f;
        if (!column.is_directory() || !number(column.path().filename().string(), f.x)) continue;
        for (const auto& tile : std::filesystem::directory_iterator(column.path(), ec)) {
            const std::string ext = tile.path().extension().string();
            if (ext != ".png" && ext != ".webp") continue;
            if (!number(tile.path().stem().string(), f.y)) continue;
            f.path = tile.path();
            files.push_back(f);
        }
    }
    if (files.empty()) return Error{name + ": no .png or .webp tile in " + level.string()};
    std::sort(files.begin(), files.end(),
              [](const TileFile& a, const TileFile& b) { return std::tie(a.y, a.x) < std::tie(b.y, b.x); });
    const std::uint32_t limit = 1u << zoom;
    std::uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
    for (const TileFile& f : files) {
        if (f.x >= limit || f.y >= limit) {
            return Error{name + ": tile " + f.path.string() + " lies outside zoom " + std::to_string(zoom)};
        }
        x0 = std::min(x0, f.x), y0 = std::min(y0, f.y), x1 = std::max(x1, f.x), y1 = std::max(y1, f.y);
    }
    std::vector<std::uint8_t> rgb, alpha;
    int size = 0;
    std::vector<float> heights;
    std::size_t mosaicWidth = 0;
    for (const TileFile& f : files) {
        QuietGdal quiet;
        DatasetPtr d(GDALDataset::Open(f.path.string().c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY));
        if (!d) return Error{name + ": tile " + f.path.string() + " is not an image GDAL can read" + QuietGdal::says()};
        if (size == 0) {
            size = d->GetRasterXSize();
            const std::size_t pixels = static_cast<std::size_t>(x1 - x0 + 1) * static_cast<std::size_t>(y1 - y0 + 1) *
                                       static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
            if (size < 1 || pixels > kMaxInpaintPixels) {
                return Error{name + ": its tiles at zoom " + std::to_string(zoom) + " span " + std::to_string(pixels) +
                             " pixels, more than the " + std::to_string(kMaxInpaintPixels) +
                             " a tile set may hold; keep only the area's tiles or a coarser zoom"};
            }
            mosaicWidth = static_cast<std::size_t>(x1 - x0 + 1) * static_cast<std::size_t>(size);
            heights.assign(pixels, std::numeric_limits<float>::quiet_NaN());
        }
        if (d->GetRasterXSize() != size || d->GetRasterYSize() != size) {
            return Error{name + ": tile " + f.path.string() + " is " + std::to_string(d->GetRasterXSize()) + " × " +
                         std::to_string(d->GetRasterYSize()) + " pixels, the others " + std::to_string(size) + " × " +
                         std::to_string(size)};
        }
        if (Status read = readRgb(*d, name + ": tile " + f.path.string(), rgb, alpha); !read) return read;
        decodeInto(dem.encoding, rgb, alpha.empty() ? nullptr : alpha.data(), size, size, heights, mosaicWidth,
                   static_cast<std::size_t>(f.x - x0) * static_cast<std::size_t>(size),
                   static_cast<std::size_t>(f.y - y0) * static_cast<std::size_t>(size));
    }
    const Box2 nw = TileId{zoom, x0, y0}.boundsMercator();
    const double pixel = TileId{zoom, x0, y0}.sizeMercator() / size;
    gt = {nw.min.x, pixel, 0.0, nw.max.y, 0.0, -pixel};
    s.info.widthPixels = static_cast<int>(mosaicWidth);
    s.info.heightPixels = static_cast<int>((y1 - y0 + 1) * static_cast<std::uint32_t>(size));
    s.decoded = std::make_shared<const std::vector<float>>(std::move(heights));
    return {};
}

/// An MBTiles of terrain-RGB tiles: GDAL's MBTiles driver mosaics its finest zoom in EPSG:3857.
Status decodeMbtiles(const DemName& dem, const std::string& name, DemSource& s, std::array<double, 6>& gt) {
    QuietGdal quiet;
    const char* drivers[] = {"MBTiles", nullptr};
    DatasetPtr d(GDALDataset::Open(dem.path.string().c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, drivers));
    if (!d) return Error{name + ": not an MBTiles raster GDAL can read" + QuietGdal::says()};
    const std::size_t pixels =
        static_cast<std::size_t>(d->GetRasterXSize()) * static_cast<std::size_t>(d->GetRasterYSize());
    if (pixels > kMaxInpaintPixels) {
        return Error{name + ": its finest zoom spans " + std::to_string(pixels) + " pixels, more than the " +
                     std::to_string(kMaxInpaintPixels) + " a tile set may hold; extract the area's tiles"};
    }
    if (d->GetGeoTransform(gt.data()) != CE_None) return Error{name + ": the MBTiles has no extent"};
    std::vector<std::uint8_t> rgb, alpha;
    if (Status read = readRgb(*d, name, rgb, alpha); !read) return read;
    std::vector<float> heights(pixels);
    decodeInto(dem.encoding, rgb, alpha.empty() ? nullptr : alpha.data(), d->GetRasterXSize(), d->GetRasterYSize(),
               heights, static_cast<std::size_t>(d->GetRasterXSize()), 0, 0);
    s.info.widthPixels = d->GetRasterXSize();
    s.info.heightPixels = d->GetRasterYSize();
    s.decoded = std::make_shared<const std::vector<float>>(std::move(heights));
    return {};
}

Status inpaint(DemHandle& h, DemSource& s);

/// Opens a terrain-RGB tile set (a z/x/y folder or an MBTiles) as a DEM in EPSG:3857 held in
/// memory, with the checks a raster file gets.
Result<DemSource> describeTileSet(const std::filesystem::path& given, const DemName& dem, DemHandle& h) {
    const std::string name = given.string();
    DemSource s;
    s.info.path = given;
    s.encoding = dem.encoding;
    s.info.crsName = "WGS 84 / Pseudo-Mercator";
    s.hasNodata = true;  // NaN: where no tile was, or a tile's alpha is 0
    s.nodata = std::numeric_limits<double>::quiet_NaN();
    s.nodataFloat = std::numeric_limits<float>::quiet_NaN();
    std::error_code ec;
    if (!std::filesystem::exists(dem.path, ec)) return Error{name + ": no such file or folder"};
    std::array<double, 6> gt{};
    Status decoded = std::filesystem::is_directory(dem.path, ec) ? decodeTileFolder(dem, name, s, gt)
                                                                 : decodeMbtiles(dem, name, s, gt);
    if (!decoded) return decoded.error();
    if (!GDALInvGeoTransform(gt.data(), s.pixelFromGeo.data()))
        return Error{name + ": the tiles have no usable extent"};
    Result<double> size = groundPixelSize(h, gt, s);
    if (!size) return size.error();
    s.info.pixelSizeGroundMetres = *size;
    Result<bool> usable = hasUsableHeight(h, s);
    if (!usable) return usable.error();
    if (!*usable) return Error{name + ": every decoded height is missing or absurd, so it holds no height"};
    if (Status filled = inpaint(h, s); !filled) return filled.error();
    return s;
}

/// Counts the DEM's holes and, when it has some and is small enough, makes its inpainted copy:
/// the raster in a GDAL MEM band, a mask of its usable pixels, GDALFillNodata.
Status inpaint(DemHandle& h, DemSource& s) {
    const std::size_t pixels =
        static_cast<std::size_t>(s.info.widthPixels) * static_cast<std::size_t>(s.info.heightPixels);
    if (pixels > kMaxInpaintPixels) return {};
    const std::string name = s.info.path.string();
    QuietGdal quiet;
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    DatasetPtr copy(mem ? mem->Create("", s.info.widthPixels, s.info.heightPixels, 2, GDT_Float32, nullptr) : nullptr);
    if (!copy) return Error{name + ": no memory for its inpainting copy" + QuietGdal::says()};
    auto values = std::make_shared<std::vector<float>>(pixels);
    if (s.decoded) {
        *values = *s.decoded;
    } else if (h.band->RasterIO(GF_Read, 0, 0, s.info.widthPixels, s.info.heightPixels, values->data(),
                                s.info.widthPixels, s.info.heightPixels, GDT_Float32, 0, 0, nullptr) != CE_None) {
        return Error{name + ": GDAL could not read its pixels" + QuietGdal::says()};
    }
    // Band 2 is the mask GDALFillNodata reads: non-zero where the pixel is a height.
    std::vector<float> mask(pixels);
    std::uint64_t holes = 0;
    for (std::size_t i = 0; i < pixels; ++i) {
        const bool usable = classify((*values)[i], s) == PixelKind::Height;
        mask[i] = usable ? 1.0f : 0.0f;
        holes += usable ? 0 : 1;
    }
    s.info.holePixels = holes;
    if (!s.decoded) s.decoded = std::make_shared<const std::vector<float>>(holes == 0 ? std::move(*values) : *values);
    if (holes == 0) return {};
    GDALRasterBand* target = copy->GetRasterBand(1);
    GDALRasterBand* valid = copy->GetRasterBand(2);
    if (target->RasterIO(GF_Write, 0, 0, s.info.widthPixels, s.info.heightPixels, values->data(), s.info.widthPixels,
                         s.info.heightPixels, GDT_Float32, 0, 0, nullptr) != CE_None ||
        valid->RasterIO(GF_Write, 0, 0, s.info.widthPixels, s.info.heightPixels, mask.data(), s.info.widthPixels,
                        s.info.heightPixels, GDT_Float32, 0, 0, nullptr) != CE_None ||
        GDALFillNodata(GDALRasterBand::ToHandle(target), GDALRasterBand::ToHandle(valid), kInpaintSearchPixels, 0, 0,
                       nullptr, nullptr, nullptr) != CE_None ||
        target->RasterIO(GF_Read, 0, 0, s.info.widthPixels, s.info.heightPixels, values->data(), s.info.widthPixels,
                         s.info.heightPixels, GDT_Float32, 0, 0, nullptr) != CE_None) {
        return Error{name + ": inpainting its holes failed" + QuietGdal::says()};
    }
    s.filled = std::move(values);
    s.info.inpainted = true;
    return {};
}

/// Opens one DEM and checks everything open() promises to check.
Result<DemSource> describeDem(const std::filesystem::path& path, DemHandle& h) {
    const std::string name = path.string();
    DemSource s;
    s.info.path = path;
    s.info.widthPixels = h.dataset->GetRasterXSize();
    s.info.heightPixels = h.dataset->GetRasterYSize();
    const char* crsName = h.dataset->GetSpatialRef()->GetName();
    s.info.crsName = crsName ? crsName : "";
    std::array<double, 6> gt{};
    const bool georeferenced = h.dataset->GetGeoTransform(gt.data()) == CE_None;
    const bool finite = std::all_of(gt.begin(), gt.end(), [](double v) { return std::isfinite(v); });
    if (!georeferenced || !finite || s.info.widthPixels < 1 || s.info.heightPixels < 1 ||
        !GDALInvGeoTransform(gt.data(), s.pixelFromGeo.data())) {
        return Error{name +
                     ": the raster has no usable extent (no geotransform, a zero pixel size or "
                     "non-finite coordinates)"};
    }
    int hasNodata = FALSE;
    s.nodata = h.band->GetNoDataValue(&hasNodata);
    s.hasNodata = hasNodata != FALSE;
    s.nodataFloat =
        std::abs(s.nodata) < 3.4e38 ? static_cast<float>(s.nodata) : std::numeric_limits<float>::quiet_NaN();
    if (s.hasNodata) s.info.nodata = s.nodata;
    Result<double> size = groundPixelSize(h, gt, s);
    if (!size) return size.error();
    s.info.pixelSizeGroundMetres = *size;
    Result<bool> usable = hasUsableHeight(h, s);
    if (!usable) return usable.error();
    if (!*usable) {
        return Error{name + ": every value is nodata or absurd (non-finite or beyond ±" +
                     std::to_string(static_cast<int>(kMaxAbsHeightMetres)) + " m), so it holds no height"};
    }
    if (Status filled = inpaint(h, s); !filled) return filled.error();
    return s;
}

// -- bilinear sampling -------------------------------------------------------------------------

/// Keys' cubic convolution weights (a = -0.5, GDAL's "cubic") for the pixels at offsets -1, 0,
/// 1, 2 from the one left of the sample, `f` (0..1) past it.
std::array<double, 4> cubicWeights(double f) {
    constexpr double a = -0.5;
    const auto near = [](double t) { return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0; };       // |t| <= 1
    const auto far = [](double t) { return ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a; };  // 1 < |t| < 2
    return {far(1.0 + f), near(f), near(1.0 - f), far(2.0 - f)};
}

/// One axis of the taps: pixel centres sit at i + 0.5; beyond the outermost centres (but inside
/// the raster) the edge pixel is used alone.
void axisTaps(double p, int n, int& i0, int& i1, double& f) {
    const double u = p - 0.5;
    if (u <= 0.0) {
        i0 = i1 = 0;
        f = 0.0;
    } else if (u >= n - 1) {
        i0 = i1 = n - 1;
        f = 0.0;
    } else {
        i0 = static_cast<int>(std::floor(u));
        i1 = i0 + 1;
        f = u - i0;
    }
}

/// The taps at pixel position (px, py), or false when it lies outside the raster (NaN too).
bool tapsAt(double px, double py, const DemInfo& info, bool cubic, Taps& t) {
    if (!(px >= 0.0 && px <= info.widthPixels && py >= 0.0 && py <= info.heightPixels)) return false;
    axisTaps(px, info.widthPixels, t.col0, t.col1, t.fx);
    axisTaps(py, info.heightPixels, t.row0, t.row1, t.fy);
    t.cubic = cubic;
    const int reach = cubic ? 1 : 0;
    t.colLo = std::max(0, t.col0 - reach);
    t.colHi = std::min(info.widthPixels - 1, t.col1 + reach);
    t.rowLo = std::max(0, t.row0 - reach);
    t.rowHi = std::min(info.heightPixels - 1, t.row1 + reach);
    return true;
}

/// The pixels one DEM read for a tile: `values` row-major from (col0, row0), `width` wide.
struct Window {
    const double* values = nullptr;
    int col0 = 0, row0 = 0, width = 0;
    double at(int col, int row) const {
        return values[static_cast<std::size_t>(row - row0) * static_cast<std::size_t>(width) +
                      static_cast<std::size_t>(col - col0)];
    }
};

/// The bilinear height at `t`, or NaN when a pixel with a non-zero weight is nodata or absurd
/// (`absurd` then says whether one was absurd). Pixels with zero weight are not read, so a
/// corner exactly on a pixel centre never depends on its neighbours. The sum runs in one fixed
/// order, so the same taps always give the same bits.
double bilinear(const Taps& t, const Window& w, const DemSource& s, bool& absurd);

/// The cubic height at `t` (Keys, a = -0.5, over the 4 × 4 pixels around it, indices clamped at
/// the raster's edges as GDAL's warper does), or NaN when a pixel it weighs is not a height.
double bicubic(const Taps& t, const Window& w, const DemSource& s, bool& absurd) {
    const std::array<double, 4> wx = cubicWeights(t.fx), wy = cubicWeights(t.fy);
    double h = 0.0;
    for (int j = 0; j < 4; ++j) {
        const int row = std::clamp(t.row0 - 1 + j, t.rowLo, t.rowHi);
        double across = 0.0;
        for (int i = 0; i < 4; ++i) {
            if (wx[static_cast<std::size_t>(i)] == 0.0) continue;
            const double v = w.at(std::clamp(t.col0 - 1 + i, t.colLo, t.colHi), row);
            const PixelKind kind = classify(v, s);
            if (kind != PixelKind::Height) {
                absurd = absurd || kind == PixelKind::Absurd;
                return std::nan("");
            }
            across += wx[static_cast<std::size_t>(i)] * v;
        }
        h += wy[static_cast<std::size_t>(j)] * across;
    }
    return h;
}

/// The height at `t`: cubic when the taps ask for it and every pixel it weighs is a height,
/// else bilinear (so a hole's shore keeps the heights it has), else NaN. Cubic overshoots at a
/// cliff (its negative lobes); where that would carry a height beyond ±kMaxAbsHeightMetres (a
/// −9,999 m pixel among 100 m ones did, found by fuzz_dem), bilinear, which cannot leave
/// its pixels' range, is used instead.
double interpolate(const Taps& t, const Window& w, const DemSource& s, bool& absurd) {
    if (t.cubic) {
        bool cubicAbsurd = false;
        const double h = bicubic(t, w, s, cubicAbsurd);
        if (!std::isnan(h) && std::abs(h) <= kMaxAbsHeightMetres) return h;
    }
    return bilinear(t, w, s, absurd);
}

double bilinear(const Taps& t, const Window& w, const DemSource& s, bool& absurd) {
    const std::array<double, 4> weight{(1.0 - t.fx) * (1.0 - t.fy), t.fx * (1.0 - t.fy), (1.0 - t.fx) * t.fy,
                                       t.fx * t.fy};
    const std::array<int, 4> col{t.col0, t.col1, t.col0, t.col1};
    const std::array<int, 4> row{t.row0, t.row0, t.row1, t.row1};
    double h = 0.0;
    for (std::size_t k = 0; k < 4; ++k) {
        if (weight[k] == 0.0) continue;
        const double v = w.at(col[k], row[k]);
        const PixelKind kind = classify(v, s);
        if (kind != PixelKind::Height) {
            absurd = kind == PixelKind::Absurd;
            return std::nan("");
        }
        h += weight[k] * v;
    }
    return h;
}

/// The pixel rectangle the wanted samples reach.
struct PixelBox {
    int col0 = INT_MAX, row0 = INT_MAX, col1 = -1, row1 = -1;
    bool empty() const { return col1 < 0; }
    std::size_t pixels() const {
        return static_cast<std::size_t>(col1 - col0 + 1) * static_cast<std::size_t>(row1 - row0 + 1);
    }
    void add(const Taps& t) {
        col0 = std::min(col0, t.colLo);
        row0 = std::min(row0, t.rowLo);
        col1 = std::max(col1, t.colHi);
        row1 = std::max(row1, t.rowHi);
    }
};

Status readPixels(DemHandle& h, const DemSource& s, int col0, int row0, int width, int height, double* out,
                  bool fromFilled) {
    if (fromFilled || s.decoded) {
        const std::vector<float>& f = fromFilled ? *s.filled : *s.decoded;
        for (int r = 0; r < height; ++r) {
            const std::size_t from = static_cast<std::size_t>(row0 + r) * static_cast<std::size_t>(s.info.widthPixels) +
                                     static_cast<std::size_t>(col0);
            std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(from), width,
                        out + static_cast<std::size_t>(r) * static_cast<std::size_t>(width));
        }
        return {};
    }
    QuietGdal quiet;
    if (h.band->RasterIO(GF_Read, col0, row0, width, height, out, width, height, GDT_Float64, 0, 0, nullptr) !=
        CE_None) {
        return Error{s.info.path.string() + ": GDAL could not read its pixels" + QuietGdal::says()};
    }
    return {};
}

/// c.x/c.y := the samples' positions in the DEM's CRS, c.inside := 1 where that worked: the
/// lattice exactly, the rest bilinearly between it (kLatticeStep).
void transformSamples(DemHandle& h, Cursor& c) {
    QuietGdal quiet;  // a failed point keeps its flag at 0 (PROJ also sets it to infinity)
    for (int lr = 0; lr < kLatticeSide; ++lr) {
        for (int lc = 0; lc < kLatticeSide; ++lc) {
            const std::size_t from = HeightTile::index(lr * kLatticeStep, lc * kLatticeStep);
            const std::size_t at = static_cast<std::size_t>(lr) * kLatticeSide + static_cast<std::size_t>(lc);
            c.latticeX[at] = c.mercatorX[from];
            c.latticeY[at] = c.mercatorY[from];
        }
    }
    h.toDem->Transform(kLatticeCount, c.latticeX.data(), c.latticeY.data(), nullptr, c.latticeOk.data());
    for (int row = 0; row < kHeightSamples; ++row) {
        const int lr = std::min(row / kLatticeStep, kLatticeSide - 2);
        const double fy = static_cast<double>(row - lr * kLatticeStep) / kLatticeStep;
        for (int col = 0; col < kHeightSamples; ++col) {
            const int lc = std::min(col / kLatticeStep, kLatticeSide - 2);
            const double fx = static_cast<double>(col - lc * kLatticeStep) / kLatticeStep;
            const std::size_t a = static_cast<std::size_t>(lr) * kLatticeSide + static_cast<std::size_t>(lc);
            const std::size_t b = a + kLatticeSide;
            const std::size_t i = HeightTile::index(row, col);
            if (c.latticeOk[a] && c.latticeOk[a + 1] && c.latticeOk[b] && c.latticeOk[b + 1]) {
                // The same expression in every tile: on a shared edge one term is times exactly 0.
                c.x[i] = (c.latticeX[a] * (1.0 - fx) + c.latticeX[a + 1] * fx) * (1.0 - fy) +
                         (c.latticeX[b] * (1.0 - fx) + c.latticeX[b + 1] * fx) * fy;
                c.y[i] = (c.latticeY[a] * (1.0 - fx) + c.latticeY[a + 1] * fx) * (1.0 - fy) +
                         (c.latticeY[b] * (1.0 - fx) + c.latticeY[b + 1] * fx) * fy;
                c.inside[i] = 1;
            } else {
                c.x[i] = c.mercatorX[i];
                c.y[i] = c.mercatorY[i];
                c.inside[i] = 0;
                h.toDem->Transform(1, &c.x[i], &c.y[i], nullptr, &c.inside[i]);
            }
        }
    }
}

/// Takes the samples of `out` that still have no height to DEM pixel coordinates: c.x/c.y hold
/// them and c.inside marks those inside the raster. Returns the pixels they reach.
PixelBox locateWanted(DemHandle& h, const DemSource& s, bool cubic, Cursor& c, const HeightTile& out,
                      std::uint32_t& covered) {
    transformSamples(h, c);
    const std::array<double, 6>& g = s.pixelFromGeo;
    PixelBox box;
    covered = 0;
    for (std::size_t i = 0; i < kHeightSampleCount; ++i) {
        if (!c.inside[i]) continue;
        const double px = g[0] + g[1] * c.x[i] + g[2] * c.y[i];
        const double py = g[3] + g[4] * c.x[i] + g[5] * c.y[i];
        Taps t;
        if (!tapsAt(px, py, s.info, cubic, t)) {
            c.inside[i] = 0;
            continue;
        }
        ++covered;
        if (!std::isnan(out.heights[i])) {
            c.inside[i] = 0;
            continue;
        }
        c.x[i] = px;
        c.y[i] = py;
        c.taps[i] = t;
        box.add(t);
    }
    return box;
}

/// True when a DEM's pixels are much coarser than the cells of a zoom (kCubicRatio), so tiles
/// at that zoom sample it with cubic convolution. Decided per DEM and zoom, never per tile,
/// so neighbouring tiles always sample a DEM the same way and their shared edges agree.
bool usesCubic(const DemSource& s, int zoom) {
    const double cellGround =
        TileId{zoom, 0, 0}.cellSizeMercator() * std::cos(s.centreLatitude * std::acos(-1.0) / 180.0);
    return s.info.pixelSizeGroundMetres > kCubicRatio * cellGround;
}

/// Which values of a DEM a pass reads: its own (the finest that has data wins), or its filled
/// copy (for the samples no DEM had data for).
enum class DemPass { Data, Inpaint };

/// Fills the samples of `out` that still have no height from one DEM; `coarser` says it is not
/// the finest, so what it fills counts as filled from a coarser DEM.
Status sampleDem(DemHandle& h, const DemSource& s, bool coarser, DemPass pass, Cursor& c, HeightTile& out,
                 DemSampleReport& report, DemSampleReport::PerDem& mine) {
    const bool fromFilled = pass == DemPass::Inpaint;
    const bool cubic = usesCubic(s, out.tile.zoom);
    std::uint32_t covered = 0;
    const PixelBox box = locateWanted(h, s, cubic, c, out, covered);
    if (!fromFilled) mine.covered = covered;
    if (box.empty()) return {};
    const bool whole = box.pixels() <= kMaxWindowPixels;
    std::array<double, 16> taps{};
    Window w{taps.data(), 0, 0, 4};
    if (whole) {
        c.window.resize(box.pixels());
        w = Window{c.window.data(), box.col0, box.row0, box.col1 - box.col0 + 1};
        Status read =
            readPixels(h, s, box.col0, box.row0, w.width, box.row1 - box.row0 + 1, c.window.data(), fromFilled);
        if (!read) return read;
    }
    for (std::size_t i = 0; i < kHeightSampleCount; ++i) {
        if (!c.inside[i]) continue;
        const Taps& t = c.taps[i];
        if (!whole) {
            w = Window{taps.data(), t.colLo, t.rowLo, t.colHi - t.colLo + 1};
            Status read = readPixels(h, s, t.colLo, t.rowLo, w.width, t.rowHi - t.rowLo + 1, taps.data(), fromFilled);
            if (!read) return read;
        }
        bool absurd = false;
        const double height = interpolate(t, w, s, absurd);
        if (absurd && !fromFilled) {
            c.absurd[i] = 1;
            ++mine.absurd;
        }
        if (std::isnan(height)) continue;
        out.heights[i] = static_cast<float>(height);
        ++mine.supplied;
        if (fromFilled) {
            ++report.inpainted;
            ++mine.inpainted;
        } else if (coarser) {
            ++report.filledFromCoarser;
            ++mine.filledFromCoarser;
        }
    }
    return {};
}

void placeSamples(TileId tile, Cursor& c) {
    for (int row = 0; row < kHeightSamples; ++row) {
        for (int col = 0; col < kHeightSamples; ++col) {
            const Vec2 m = terrain::sampleMercator(tile, row, col);
            c.mercatorX[HeightTile::index(row, col)] = m.x;
            c.mercatorY[HeightTile::index(row, col)] = m.y;
        }
    }
}

}  // namespace

struct DemReader::Impl {
    std::vector<DemSource> sources;  ///< finest first
    std::vector<DemInfo> infos;      ///< sources' infos, for dems()
    std::mutex poolMutex;
    std::vector<std::unique_ptr<Cursor>> idle;  ///< cursors no call is using, guarded by poolMutex

    /// A cursor for one call: an idle one, or a new one with its own handles.
    Result<std::unique_ptr<Cursor>> borrow() {
        {
            std::lock_guard lock(poolMutex);
            if (!idle.empty()) {
                std::unique_ptr<Cursor> c = std::move(idle.back());
                idle.pop_back();
                return c;
            }
        }
        auto c = std::make_unique<Cursor>();
        for (const DemSource& s : sources) {
            Result<DemHandle> h =
                s.encoding != TileEncoding::None ? mercatorHandle(s.info.path.string()) : openHandle(s.info.path);
            if (!h) return h.error();
            c->dems.push_back(std::move(*h));
        }
        return c;
    }
    void giveBack(std::unique_ptr<Cursor> c) {
        std::lock_guard lock(poolMutex);
        idle.push_back(std::move(c));
    }
};

Result<DemReader> DemReader::open(const std::vector<std::filesystem::path>& paths, std::vector<Error>* dropped) {
    if (paths.empty()) return badArguments("no DEM given");
    initGdal();
    std::vector<DemSource> sources;
    std::vector<DemHandle> handles;
    for (const std::filesystem::path& path : paths) {
        const DemName name = parseDemName(path);
        const bool tiles = name.encoding != TileEncoding::None;
        Result<DemHandle> h = tiles ? mercatorHandle(path.string()) : openHandle(path);
        Result<DemSource> s =
            h ? (tiles ? describeTileSet(path, name, *h) : describeDem(path, *h)) : Result<DemSource>(h.error());
        if (!s) {
            if (!dropped) return s.error();
            dropped->push_back(s.error());
            continue;
        }
        sources.push_back(std::move(*s));
        handles.push_back(std::move(*h));
    }
    if (sources.empty()) return Error{"no usable DEM: every DEM given was left out", ErrorKind::BadInput};
    std::vector<std::size_t> order(sources.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return sources[a].info.pixelSizeGroundMetres < sources[b].info.pixelSizeGroundMetres;
    });
    auto impl = std::make_unique<Impl>();
    // The handles opened for the checks become the first cursor.
    auto first = std::make_unique<Cursor>();
    for (std::size_t i : order) {
        impl->infos.push_back(sources[i].info);
        impl->sources.push_back(std::move(sources[i]));
        first->dems.push_back(std::move(handles[i]));
    }
    impl->idle.push_back(std::move(first));
    return DemReader(std::move(impl));
}

DemReader::DemReader(std::unique_ptr<Impl> impl) : mImpl(std::move(impl)) {}
DemReader::DemReader(DemReader&&) noexcept = default;
DemReader& DemReader::operator=(DemReader&&) noexcept = default;
DemReader::~DemReader() = default;

const std::vector<DemInfo>& DemReader::dems() const { return mImpl->infos; }

Result<DemSampleReport> DemReader::sample(TileId tile, HeightTile& out) const {
    out.reset(tile);
    Result<std::unique_ptr<Cursor>> borrowed = mImpl->borrow();
    if (!borrowed) return borrowed.error();
    std::unique_ptr<Cursor> c = std::move(*borrowed);
    placeSamples(tile, *c);
    std::fill(c->absurd.begin(), c->absurd.end(), std::uint8_t{0});
    DemSampleReport report;
    report.perDem.resize(mImpl->sources.size());
    Status status;
    for (std::size_t d = 0; d < mImpl->sources.size() && status; ++d) {
        status = sampleDem(c->dems[d], mImpl->sources[d], d > 0, DemPass::Data, *c, out, report, report.perDem[d]);
    }
    // What no DEM had data for, from the filled copies, finest first.
    for (std::size_t d = 0; d < mImpl->sources.size() && status; ++d) {
        if (!mImpl->sources[d].filled) continue;
        status = sampleDem(c->dems[d], mImpl->sources[d], d > 0, DemPass::Inpaint, *c, out, report, report.perDem[d]);
    }
    report.absurd = static_cast<std::uint32_t>(std::count(c->absurd.begin(), c->absurd.end(), std::uint8_t{1}));
    mImpl->giveBack(std::move(c));
    if (!status) {
        out.reset(tile);
        return status.error();
    }
    report.noHeight = static_cast<std::uint32_t>(out.noHeightCount());
    return report;
}

}  // namespace terrabit::core::io
