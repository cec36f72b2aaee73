#include "test_dems.h"

#include <gdal_priv.h>
#include <gtest/gtest.h>
#include <ogr_spatialref.h>

#include <cmath>
#include <memory>
#include <vector>

#include "terrabit/core/io/map_reader.h"

namespace terrabit::core::test {

namespace {

struct DatasetCloser {
    void operator()(GDALDataset* d) const { GDALClose(GDALDataset::ToHandle(d)); }
};
using DatasetPtr = std::unique_ptr<GDALDataset, DatasetCloser>;

}  // namespace

void writeDem(const std::filesystem::path& path, int epsg, const DemGrid& g,
              const std::function<double(int, int)>& value, std::optional<double> nodata, bool georeferenced) {
    core::io::initGdal();
    GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
    DatasetPtr ds(gtiff->Create(path.string().c_str(), g.width, g.height, 1, GDT_Float32, nullptr));
    if (!ds) {
        ADD_FAILURE() << "GDAL could not create " << path;
        return;
    }
    if (georeferenced) {
        double gt[6] = {g.west, g.pixel, 0.0, g.north, 0.0, -g.pixel};
        ds->SetGeoTransform(gt);
    }
    if (epsg != 0) {
        OGRSpatialReference srs;
        srs.importFromEPSG(epsg);
        ds->SetSpatialRef(&srs);
    }
    GDALRasterBand* band = ds->GetRasterBand(1);
    if (nodata) band->SetNoDataValue(*nodata);
    std::vector<float> pixels(static_cast<std::size_t>(g.width) * g.height);
    for (int row = 0; row < g.height; ++row) {
        for (int col = 0; col < g.width; ++col) pixels[std::size_t(row) * g.width + col] = float(value(col, row));
    }
    if (band->RasterIO(GF_Write, 0, 0, g.width, g.height, pixels.data(), g.width, g.height, GDT_Float32, 0, 0,
                       nullptr) != CE_None) {
        ADD_FAILURE() << "GDAL could not write the pixels of " << path;
    }
}

Projector::Projector(int fromEpsg, int toEpsg) {
    core::io::initGdal();
    OGRSpatialReference from, to;
    from.importFromEPSG(fromEpsg);
    to.importFromEPSG(toEpsg);
    from.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    to.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    mTransform = OGRCreateCoordinateTransformation(&from, &to);
}

Projector::~Projector() {
    OGRCoordinateTransformation::DestroyCT(static_cast<OGRCoordinateTransformation*>(mTransform));
}

core::Vec2 Projector::operator()(core::Vec2 p) const {
    EXPECT_TRUE(static_cast<OGRCoordinateTransformation*>(mTransform)->Transform(1, &p.x, &p.y));
    return p;
}

core::Vec2 monacoUtm() {
    // Once: tests ask for it at every pixel and corner, and a transformation costs a millisecond.
    static const core::Vec2 utm = Projector(4326, kUtm32N)({kMonacoCentre.lon, kMonacoCentre.lat});
    return utm;
}

DemGrid monacoGrid(double pixel, double halfSizeMetres) {
    const core::Vec2 o = monacoUtm();
    const int n = int(std::lround(2.0 * halfSizeMetres / pixel));
    return DemGrid{std::round(o.x - halfSizeMetres), std::round(o.y + halfSizeMetres), pixel, n, n};
}

std::filesystem::path writeMercatorDem(const std::filesystem::path& path,
                                       const std::function<double(core::Vec2)>& height, double pixel,
                                       double halfSizeMetres) {
    const DemGrid g = monacoGrid(pixel, halfSizeMetres);
    const Projector toMercator(kUtm32N, 3857);
    writeDem(path, kUtm32N, g, [&](int col, int row) { return height(toMercator({g.centreX(col), g.centreY(row)})); });
    return path;
}

}  // namespace terrabit::core::test
