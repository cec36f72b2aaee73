#pragma once
/// Test-local loading of the bundled Monaco sample's buildings with OGR, for the GDAL oracle test
/// and the rasterizer benchmark (the real map reader lives in core/io and is tested on its own).
/// Buildings are the `multipolygons` features with a non-null `building` field, transformed to
/// EPSG:3857 with traditional GIS axis order, grouped by the zoom-17 tiles their bounding boxes
/// touch.

#include <gdal.h>
#include <gdal_alg.h>
#include <ogr_api.h>
#include <ogr_geometry.h>
#include <ogr_spatialref.h>
#include <ogrsf_frmts.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::test {

/// One building footprint in EPSG:3857 metres: the OGR geometry (for GDAL) and the same rings
/// as flat arrays (for Terrabit). Rings are as OGR gives them (closed: last point = first).
struct MercatorBuilding {
    std::int64_t fid = 0;                   ///< OGR feature id
    std::unique_ptr<OGRGeometry> geometry;  ///< the multipolygon, EPSG:3857 metres
    std::vector<core::Vec2> points;         ///< every ring's points, EPSG:3857 metres
    std::vector<std::uint32_t> ringEnds;    ///< one past each ring's last point
    core::Box2 bounds;                      ///< EPSG:3857 metres
};

/// The buildings and, for every zoom-17 tile that holds some, the indices of its buildings.
struct BuildingSet {
    std::vector<MercatorBuilding> buildings;
    std::map<core::TileId, std::vector<int>> tiles;  ///< row-major order of TileId
};

inline std::string monacoSamplePath() {
    return std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf";
}

/// Reads the buildings of an OSM file and groups them by the tiles at `zoom` their bounding boxes
/// touch.
inline core::Result<BuildingSet> loadBuildings(const std::string& path, int zoom) {
    GDALAllRegister();
    std::unique_ptr<GDALDataset> ds(
        GDALDataset::Open(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr));
    if (!ds) return core::Error{path + ": GDAL cannot open it: " + CPLGetLastErrorMsg()};
    OGRLayer* layer = ds->GetLayerByName("multipolygons");
    if (!layer) return core::Error{path + ": no multipolygons layer"};
    const int buildingField = layer->GetLayerDefn()->GetFieldIndex("building");
    if (buildingField < 0) return core::Error{path + ": the multipolygons layer has no building field"};

    OGRSpatialReference wgs84, mercator;
    wgs84.importFromEPSG(4326);
    mercator.importFromEPSG(3857);
    wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    mercator.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    std::unique_ptr<OGRCoordinateTransformation> toMercator(OGRCreateCoordinateTransformation(&wgs84, &mercator));
    if (!toMercator) return core::Error{"cannot make the EPSG:4326 -> EPSG:3857 transformation"};

    BuildingSet set;
    layer->ResetReading();
    for (auto& feature : *layer) {
        if (!feature->IsFieldSetAndNotNull(buildingField)) continue;
        const OGRGeometry* g = feature->GetGeometryRef();
        if (!g) continue;
        MercatorBuilding b;
        b.fid = feature->GetFID();
        b.geometry.reset(g->clone());
        if (b.geometry->transform(toMercator.get()) != OGRERR_NONE) {
            return core::Error{path + ": feature " + std::to_string(b.fid) + " cannot be transformed to EPSG:3857"};
        }
        const OGRwkbGeometryType type = wkbFlatten(b.geometry->getGeometryType());
        auto addPolygon = [&](const OGRPolygon* poly) {
            for (const OGRLinearRing* ring : *poly) {
                for (const OGRPoint& p : *ring) {
                    b.points.push_back({p.getX(), p.getY()});
                    b.bounds.extend(b.points.back());
                }
                b.ringEnds.push_back(static_cast<std::uint32_t>(b.points.size()));
            }
        };
        if (type == wkbMultiPolygon) {
            for (const OGRPolygon* poly : *b.geometry->toMultiPolygon()) addPolygon(poly);
        } else if (type == wkbPolygon) {
            addPolygon(b.geometry->toPolygon());
        } else {
            continue;
        }
        if (b.points.empty()) continue;
        auto covering = core::tilesCovering(b.bounds, zoom);
        if (!covering) return covering.error();
        const int index = static_cast<int>(set.buildings.size());
        for (const core::TileId& t : *covering) set.tiles[t].push_back(index);
        set.buildings.push_back(std::move(b));
    }
    return set;
}

/// GDAL's side of the comparison: a 256x256 Byte MEM raster with the tile's geotransform, every
/// geometry burnt with 255 by GDALRasterizeGeometries (optionally with ALL_TOUCHED=TRUE), read
/// back into a BitTile when `out` is given. Everything a user pays per tile is inside: dataset
/// creation and GDAL's default transformer (made inside GDALRasterizeGeometries).
class GdalTileRasterizer {
public:
    GdalTileRasterizer() {
        GDALAllRegister();
        mMem = GDALGetDriverByName("MEM");
        mBuffer.resize(core::BitTile::kSize * core::BitTile::kSize);
    }

    /// Returns false (with GDAL's message in error()) when GDAL fails.
    bool rasterize(const core::TileId& tile, const std::vector<OGRGeometryH>& geometries, bool allTouched,
                   core::BitTile* out) {
        const core::Box2 b = tile.boundsMercator();
        const std::array<double, 6> geoTransform{b.min.x, tile.cellSizeMercator(), 0.0, b.max.y,
                                                 0.0,     -tile.cellSizeMercator()};
        return rasterize(geoTransform, geometries, allTouched, out);
    }

    /// The same on a raster with any geotransform (GDAL's six coefficients).
    bool rasterize(std::array<double, 6> geoTransform, const std::vector<OGRGeometryH>& geometries, bool allTouched,
                   core::BitTile* out) {
        const int n = core::BitTile::kSize;
        GDALDatasetH ds = GDALCreate(mMem, "", n, n, 1, GDT_Byte, nullptr);
        if (!ds) return fail("GDALCreate");
        GDALSetGeoTransform(ds, geoTransform.data());
        mBurn.assign(geometries.size(), 255.0);
        int band = 1;
        char** options = allTouched ? mAllTouched : nullptr;
        const CPLErr err = GDALRasterizeGeometries(ds, 1, &band, static_cast<int>(geometries.size()),
                                                   const_cast<OGRGeometryH*>(geometries.data()), nullptr, nullptr,
                                                   mBurn.data(), options, nullptr, nullptr);
        bool ok = err == CE_None;
        if (ok && out) {
            ok = GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 0, 0, n, n, mBuffer.data(), n, n, GDT_Byte, 0, 0) ==
                 CE_None;
        }
        GDALClose(ds);
        if (!ok) return fail("GDALRasterizeGeometries");
        if (out)
            *out = core::BitTile::fromImage(std::span<const std::uint8_t, 256 * 256>(mBuffer.data(), mBuffer.size()));
        return true;
    }
    const std::string& error() const { return mError; }

    ~GdalTileRasterizer() { CSLDestroy(mAllTouched); }
    GdalTileRasterizer(const GdalTileRasterizer&) = delete;
    GdalTileRasterizer& operator=(const GdalTileRasterizer&) = delete;

private:
    bool fail(const char* what) {
        mError = std::string(what) + " failed: " + CPLGetLastErrorMsg();
        return false;
    }

    GDALDriverH mMem = nullptr;
    std::vector<double> mBurn;
    std::vector<std::uint8_t> mBuffer;
    char** mAllTouched = CSLSetNameValue(nullptr, "ALL_TOUCHED", "TRUE");
    std::string mError;
};

}  // namespace terrabit::test
