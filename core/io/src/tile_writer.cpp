#include "terrabit/core/io/tile_writer.h"

#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <array>
#include <atomic>
#include <fstream>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>

#include "bit_geotiff_p.h"
#include "gdal_dataset_p.h"
#include "palette_png_p.h"
#include "terrabit/core/io/map_reader.h"

namespace terrabit::core::io {

namespace {

constexpr std::uint8_t kBackground = 0xf2;

/// A name in the same folder that no other writer (thread or process) uses at the same time.
std::filesystem::path temporaryName(const std::filesystem::path& file) {
    static std::atomic<unsigned> counter{0};
    const auto tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
    return file.parent_path() / (file.filename().string() + ".tmp-" + std::to_string(tid % 1000000) + "-" +
                                 std::to_string(counter.fetch_add(1)));
}

Status renameInto(const std::filesystem::path& from, const std::filesystem::path& to) {
    std::error_code ec;
    std::filesystem::rename(from, to, ec);
    if (ec) {
        std::filesystem::remove(from, ec);
        return ioError(to.string() + ": cannot move the finished file into place (" + ec.message() + ")");
    }
    return {};
}

std::string lastGdalError() {
    const char* m = CPLGetLastErrorMsg();
    return m && *m ? std::string(" (GDAL: ") + m + ")" : std::string();
}

/// The EPSG:3857 reference every file is in, made once per thread: importing it looks it up in
/// PROJ's database, which took longer than encoding a layer's GeoTIFF.
const OGRSpatialReference& webMercator() {
    thread_local const OGRSpatialReference srs = [] {
        OGRSpatialReference s;
        s.importFromEPSG(3857);
        return s;
    }();
    return srs;
}

/// A /vsimem/ name no other encoder (thread) uses at the same time. GDAL encodes a file there,
/// in memory, and it reaches the disk in one write: encoding a small file on disk made GDAL probe
/// the name with every driver first and write it in many small pieces.
std::string memoryName(const std::filesystem::path& file) {
    static std::atomic<unsigned> counter{0};
    return "/vsimem/terrabit-tile-writer-" + std::to_string(counter.fetch_add(1)) + "-" + file.filename().string();
}

/// Skips GDAL's check of creation options against each driver's XML list while alive (this
/// thread only): the options here are fixed and valid, and parsing that list cost a sixth of a
/// layer file's time.
class UncheckedCreationOptions {
public:
    UncheckedCreationOptions() {
        if (const char* v = CPLGetThreadLocalConfigOption(kKey, nullptr)) mPrevious = v;
        CPLSetThreadLocalConfigOption(kKey, "NO");
    }
    ~UncheckedCreationOptions() { CPLSetThreadLocalConfigOption(kKey, mPrevious ? mPrevious->c_str() : nullptr); }
    UncheckedCreationOptions(const UncheckedCreationOptions&) = delete;
    UncheckedCreationOptions& operator=(const UncheckedCreationOptions&) = delete;

private:
    static constexpr const char* kKey = "GDAL_VALIDATE_CREATION_OPTIONS";
    std::optional<std::string> mPrevious;
};

/// Writes `length` bytes to `file`: under a temporary name in its folder, then renamed into place.
Status storeBytes(const void* bytes, std::size_t length, const std::filesystem::path& file) {
    const std::filesystem::path tmp = temporaryName(file);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(length));
        out.close();
        if (!out) {
            const std::error_code reason(errno, std::generic_category());
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            return ioError(file.string() + ": cannot write the file (" + reason.message() + ")");
        }
    }
    return renameInto(tmp, file);
}

/// Moves the file GDAL encoded at `memName` (closed) to `file` (storeBytes). The memory file is
/// gone afterwards.
Status storeEncoded(const std::string& memName, const std::filesystem::path& file) {
    vsi_l_offset length = 0;
    std::unique_ptr<GByte, decltype(&VSIFree)> bytes(VSIGetMemFileBuffer(memName.c_str(), &length, TRUE), VSIFree);
    VSIUnlink((memName + ".aux.xml").c_str());  // a side-car the previews need not
    if (!bytes) return ioError(file.string() + ": GDAL wrote nothing" + lastGdalError());
    return storeBytes(bytes.get(), static_cast<std::size_t>(length), file);
}

/// Flushes a dataset GDAL encodes into the memory file `mem`: that writes the compressed
/// strips, so an error there is a failed write too (the memory file is then removed).
Status flushed(GDALDataset& ds, const std::string& mem, const std::filesystem::path& file, const char* what) {
    CPLErrorReset();
    ds.FlushCache(true);
    if (CPLGetLastErrorType() < CE_Failure) return Status::success();
    const std::string why = lastGdalError();
    VSIUnlink(mem.c_str());
    return ioError(file.string() + ": cannot finish the " + what + why);
}

/// Writes one band of `size` × `size` pixels (GDT_Byte or GDT_Float32 `data`, row-major, north
/// first) as an EPSG:3857 GeoTIFF with the geotransform `transform` (encoded in memory, then
/// stored: storeEncoded). `nodata`, when set, is declared for the band. Created, not copied from
/// a MEM dataset as the previews are: GTiff's copy opens the file it wrote again to read its
/// reference back (PROJ database lookups), which doubled a layer export's time.
Status writeGeoTiffBand(const std::filesystem::path& file, int size, GDALDataType type, const void* data,
                        const std::array<double, 6>& transform, const CPLStringList& options,
                        std::optional<double> nodata = std::nullopt) {
    GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
    if (!gtiff) return ioError(file.string() + ": GDAL has no GTiff driver");
    const std::string mem = memoryName(file);
    {
        const UncheckedCreationOptions unchecked;
        DatasetPtr ds(gtiff->Create(mem.c_str(), size, size, 1, type, options.List()));
        if (!ds) return ioError(file.string() + ": cannot create the GeoTIFF" + lastGdalError());
        std::array<double, 6> gt = transform;
        ds->SetGeoTransform(gt.data());
        ds->SetSpatialRef(&webMercator());
        GDALRasterBand* band = ds->GetRasterBand(1);
        if (nodata) band->SetNoDataValue(*nodata);
        if (band->RasterIO(GF_Write, 0, 0, size, size, const_cast<void*>(data), size, size, type, 0, 0, nullptr) !=
            CE_None) {
            ds.reset();
            VSIUnlink(mem.c_str());
            return ioError(file.string() + ": cannot write the GeoTIFF" + lastGdalError());
        }
        if (Status s = flushed(*ds, mem, file, "GeoTIFF"); !s) return s;
    }
    return storeEncoded(mem, file);
}

/// A layer's GeoTIFF, encoded as GDAL's GTiff driver would (bit_geotiff_p.h) without a dataset.
Status writeGeoTiff(const BitTile* bits, const TileId& tile, const std::filesystem::path& file) {
    thread_local std::vector<std::uint8_t> bytes;
    if (!detail::encodeBitGeoTiff(bits, tile, bytes)) return ioError(file.string() + ": cannot compress the GeoTIFF");
    return storeBytes(bytes.data(), bytes.size(), file);
}

/// The preview as a paletted PNG: entry 0 the background, entry l + 1 layer l's colour. A byte
/// a pixel to filter and compress instead of three, for the same colours. Encoded without GDAL
/// (palette_png_p.h), as GDAL's PNG driver wrote it but for the compressor.
Status writePreviewPng(const LayerStore& store, std::size_t slot, const std::vector<LayerInfo>& layers,
                       const std::filesystem::path& file) {
    if (layers.size() > 255) return ioError(file.string() + ": a preview shows at most 255 layers");
    thread_local std::vector<std::uint8_t> image, bytes;
    image.assign(BitTile::kSize * BitTile::kSize, 0);
    std::vector<Rgb> palette{{kBackground, kBackground, kBackground}};
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const auto index = static_cast<std::uint8_t>(l + 1);
        palette.push_back(layers[l].colour);
        if (const BitTile* bits = store.at(slot, static_cast<int>(l))) {
            bits->forEachSetCell([&](int x, int y) {
                image[static_cast<std::size_t>(y) * BitTile::kSize + static_cast<std::size_t>(x)] = index;
            });
        }
    }
    if (!detail::encodePalettePng(image, BitTile::kSize, palette, bytes)) {
        return ioError(file.string() + ": cannot compress the preview");
    }
    return storeBytes(bytes.data(), bytes.size(), file);
}

}  // namespace

Result<TileFiles> writeTile(const LayerStore& store, std::size_t slot, const std::vector<LayerInfo>& layers,
                            const std::filesystem::path& outDir) {
    initGdal();
    const TileId tile = store.tiles()[slot];
    const std::string key = tile.quadkey();
    const std::filesystem::path dir = outDir / key;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return ioError(dir.string() + ": cannot create the folder (" + ec.message() + ")");

    TileFiles files;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const std::string name = layers[l].name + ".tif";
        if (Status s = writeGeoTiff(store.at(slot, static_cast<int>(l)), tile, dir / name); !s) return s.error();
        files.layers.push_back(key + "/" + name);
    }
    if (Status s = writePreviewPng(store, slot, layers, dir / "preview.png"); !s) return s.error();
    files.preview = key + "/preview.png";
    return files;
}

Status writeHeightTiff(const terrain::HeightTile& heights, const std::filesystem::path& file) {
    if (heights.heights.size() != terrain::kHeightSampleCount) {
        return Error{file.string() + ": no heights to write", ErrorKind::Internal};
    }
    CPLStringList options;
    options.AddString("COMPRESS=DEFLATE");
    options.AddString("PREDICTOR=3");  // floating-point prediction: smooth terrain compresses well
    // Pixel centres on the cell corners: the raster starts half a cell north-west of the tile.
    const Box2 b = heights.tile.boundsMercator();
    const double cell = heights.tile.cellSizeMercator();
    return writeGeoTiffBand(file, terrain::kHeightSamples, GDT_Float32, heights.heights.data(),
                            {b.min.x - cell / 2, cell, 0.0, b.max.y + cell / 2, 0.0, -cell}, options,
                            static_cast<double>(terrain::kNoHeight));
}

}  // namespace terrabit::core::io
