// Fuzzes the DEM reader (DemReader::open and sample) on bytes written to a GDAL /vsimem/ file, so
// every raster driver GDAL has parses them. Contracts beyond "no crash, no UB": an error names
// the file and is BadInput; an opened DEM samples without error (its pixels read once already),
// every height it gives is finite and within ±kMaxAbsHeightMetres, and the report's counts agree
// with the grid.

#include <cpl_vsi.h>
#include <gdal_priv.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "terrabit/core/io/dem_reader.h"
#include "terrabit/core/io/map_reader.h"

using namespace terrabit;
using fuzz::require;

namespace {

/// The fuzzer's own bound, not the reader's: a 30-byte header may claim a raster of 10^10
/// pixels, which open() would scan in full (correctly, but slower than a fuzz iteration may be).
constexpr double kMaxFuzzPixels = 1 << 22;

bool smallEnough(const std::string& path) {
    CPLPushErrorHandler(CPLQuietErrorHandler);
    GDALDataset* ds = GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY);
    CPLPopErrorHandler();
    if (!ds) return true;  // open() reports it
    const double pixels = double(ds->GetRasterXSize()) * ds->GetRasterYSize();
    GDALClose(GDALDataset::ToHandle(ds));
    return pixels <= kMaxFuzzPixels;
}

void checkTile(const core::io::DemReader& reader, core::TileId tile, const std::string& path) {
    core::terrain::HeightTile h;
    auto report = reader.sample(tile, h);
    if (!report) {
        require(report.message().starts_with(path + ": "), "a sampling error names the file");
        return;
    }
    require(h.heights.size() == core::terrain::kHeightSampleCount, "a sampled tile holds every corner");
    require(report->noHeight == h.noHeightCount(), "noHeight counts the empty samples");
    require(report->filledFromCoarser == 0, "one DEM fills nothing from a coarser one");
    require(report->absurd <= report->noHeight + report->inpainted,
            "with one DEM an absurd sample has no height or an inpainted one");
    for (float v : h.heights) {
        require(std::isnan(v) || std::abs(v) <= core::io::kMaxAbsHeightMetres, "heights are plausible");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    core::io::initGdal();
    const std::string path = "/vsimem/dem_fuzz.bin";
    VSILFILE* f = VSIFileFromMemBuffer(path.c_str(), const_cast<GByte*>(data), size, FALSE);
    if (!f) return 0;
    VSIFCloseL(f);
    if (smallEnough(path)) {
        auto reader = core::io::DemReader::open({path});
        if (!reader) {
            require(reader.message().starts_with(path + ": "), "an open error names the file");
            require(reader.error().kind == core::ErrorKind::BadInput, "bad DEM bytes are BadInput");
        } else {
            require(reader->dems().size() == 1, "one path, one DEM");
            require(reader->dems()[0].pixelSizeGroundMetres > 0.0, "a DEM's pixels have a size");
            // The world, and the z12 tiles the seeds lie in (0°,0° and Monaco).
            checkTile(*reader, core::TileId{}, path);
            checkTile(*reader, core::TileId{12, 2048, 2047}, path);
            checkTile(*reader, core::TileId{12, 2132, 1493}, path);
        }
    }
    VSIUnlink(path.c_str());
    return 0;
}
