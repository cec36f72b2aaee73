#include <gdal_priv.h>
#include <gtest/gtest.h>
#include <ogr_spatialref.h>

#include <fstream>
#include <random>

#include "bit_geotiff_p.h"
#include "io_test_support.h"
#include "palette_png_p.h"
#include "terrabit/core/io/map_reader.h"
#include "terrabit/core/io/tile_writer.h"
#include "terrabit/core/raster/rasterizer.h"

using namespace terrabit::core;
namespace io = terrabit::core::io;

namespace {

using test::DatasetPtr;

DatasetPtr open(const std::filesystem::path& p) {
    return DatasetPtr(
        GDALDataset::Open(p.string().c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr));
}

}  // namespace

TEST(TileWriter, GeoTiffPerLayerIsGeoreferencedAndHoldsTheBits) {
    const TileId tile{17, 68893, 47863};
    BitTile triangle, ring;
    Rasterizer r;
    ASSERT_TRUE(r.triangle({10.3, 20.1}, {200.7, 40.2}, {90.5, 230.9}, Coverage::CellCentre, triangle));
    ASSERT_TRUE(r.disk({128, 128}, 60, Coverage::Conservative, ring));
    LayerStore store({"water", "building", "road"}, {tile});
    store.store(0, std::vector<BitTile>{triangle, ring, BitTile{}});
    std::vector<LayerInfo> layers(3);
    layers[0].name = "water";
    layers[0].colour = {10, 20, 200};
    layers[1].name = "building";
    layers[1].colour = {200, 50, 40};
    layers[2].name = "road";

    const auto dir = test::scratchDir("tile-writer");
    auto files = io::writeTile(store, 0, layers, dir);
    ASSERT_TRUE(files.ok()) << files.message();
    ASSERT_EQ(files->layers.size(), 3u);
    EXPECT_EQ(files->layers[1], tile.quadkey() + "/building.tif");

    const std::vector<const BitTile*> expected{&triangle, &ring, nullptr};
    for (std::size_t l = 0; l < 3; ++l) {
        DatasetPtr ds = open(dir / files->layers[l]);
        ASSERT_TRUE(ds) << files->layers[l];
        EXPECT_STREQ(ds->GetDriver()->GetDescription(), "GTiff");
        ASSERT_EQ(ds->GetRasterXSize(), 256);
        ASSERT_EQ(ds->GetRasterYSize(), 256);
        double gt[6];
        ASSERT_EQ(ds->GetGeoTransform(gt), CE_None);
        const Box2 b = tile.boundsMercator();
        EXPECT_NEAR(gt[0], b.min.x, 1e-6);
        EXPECT_NEAR(gt[3], b.max.y, 1e-6);
        EXPECT_NEAR(gt[1], tile.cellSizeMercator(), 1e-9);
        EXPECT_NEAR(gt[5], -tile.cellSizeMercator(), 1e-9);
        const OGRSpatialReference* srs = ds->GetSpatialRef();
        ASSERT_NE(srs, nullptr);
        EXPECT_STREQ(srs->GetAuthorityCode(nullptr), "3857");
        std::vector<std::uint8_t> image(256 * 256);
        ASSERT_EQ(
            ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0, nullptr),
            CE_None);
        const BitTile read = BitTile::fromImage(std::span<const std::uint8_t, 65536>(image.data(), image.size()));
        EXPECT_EQ(read, expected[l] ? *expected[l] : BitTile{}) << files->layers[l];
        EXPECT_EQ(*std::max_element(image.begin(), image.end()), expected[l] ? 1 : 0);
    }

    // The preview: building on top of water, background elsewhere.
    DatasetPtr png = open(dir / files->preview);
    ASSERT_TRUE(png);
    EXPECT_STREQ(png->GetDriver()->GetDescription(), "PNG");
    // Paletted: a byte a pixel, the colours in its table.
    ASSERT_EQ(png->GetRasterCount(), 1);
    const GDALColorTable* palette = png->GetRasterBand(1)->GetColorTable();
    ASSERT_NE(palette, nullptr);
    EXPECT_EQ(png->GetRasterBand(1)->GetColorInterpretation(), GCI_PaletteIndex);
    auto pixel = [&](int x, int y) {
        std::uint8_t index = 0;
        EXPECT_EQ(png->GetRasterBand(1)->RasterIO(GF_Read, x, y, 1, 1, &index, 1, 1, GDT_Byte, 0, 0, nullptr), CE_None);
        const GDALColorEntry* c = palette->GetColorEntry(index);
        EXPECT_NE(c, nullptr);
        if (!c) return std::array<std::uint8_t, 3>{};
        EXPECT_EQ(c->c4, 255);
        return std::array<std::uint8_t, 3>{static_cast<std::uint8_t>(c->c1), static_cast<std::uint8_t>(c->c2),
                                           static_cast<std::uint8_t>(c->c3)};
    };
    EXPECT_EQ(pixel(128, 128), (std::array<std::uint8_t, 3>{200, 50, 40}));  // in both: building wins
    int wx = -1, wy = -1;
    (triangle - ring).forEachSetCell([&](int x, int y) {
        if (wx < 0) wx = x, wy = y;
    });
    ASSERT_GE(wx, 0);
    EXPECT_EQ(pixel(wx, wy), (std::array<std::uint8_t, 3>{10, 20, 200}));
    EXPECT_EQ(pixel(0, 255), (std::array<std::uint8_t, 3>{0xf2, 0xf2, 0xf2}));

    // Nothing half-written is left behind.
    for (const auto& entry : std::filesystem::directory_iterator(dir / tile.quadkey())) {
        EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
    }
}

TEST(TileWriter, UnwritableFolderIsNamed) {
    const auto dir = test::scratchDir("unwritable");
    test::writeText(dir / "file", "x");
    LayerStore store({"water"}, {TileId{3, 1, 1}});
    std::vector<LayerInfo> layers(1);
    layers[0].name = "water";
    auto files = io::writeTile(store, 0, layers, dir / "file");  // a file where a folder should be
    ASSERT_FALSE(files.ok());
    EXPECT_NE(files.message().find((dir / "file").string()), std::string::npos) << files.message();
}

namespace {

/// The layer GeoTIFF as GDAL's GTiff driver writes it: the oracle of io::detail::encodeBitGeoTiff
/// (what the writer did itself before it encoded the file without GDAL).
std::vector<std::uint8_t> gdalBitGeoTiff(const BitTile& bits, const TileId& tile) {
    GDALAllRegister();  // run alone, no test before it has read a file through GDAL
    GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
    EXPECT_NE(gtiff, nullptr);
    if (!gtiff) return {};
    const std::string mem = "/vsimem/bit_geotiff_oracle.tif";
    CPLStringList options;
    options.AddString("NBITS=1");
    options.AddString("COMPRESS=DEFLATE");
    {
        DatasetPtr ds(gtiff->Create(mem.c_str(), 256, 256, 1, GDT_Byte, options.List()));
        EXPECT_TRUE(ds);
        if (!ds) return {};
        const Box2 b = tile.boundsMercator();
        const double cell = tile.cellSizeMercator();
        double gt[6] = {b.min.x, cell, 0.0, b.max.y, 0.0, -cell};
        ds->SetGeoTransform(gt);
        OGRSpatialReference srs;
        srs.importFromEPSG(3857);
        ds->SetSpatialRef(&srs);
        std::vector<std::uint8_t> image(256 * 256);
        bits.toImage(std::span<std::uint8_t, 65536>(image.data(), image.size()), 1, 0);
        EXPECT_EQ(
            ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 256, 256, image.data(), 256, 256, GDT_Byte, 0, 0, nullptr),
            CE_None);
    }
    vsi_l_offset length = 0;
    GByte* bytes = VSIGetMemFileBuffer(mem.c_str(), &length, TRUE);
    std::vector<std::uint8_t> out(bytes, bytes + length);
    VSIFree(bytes);
    return out;
}

}  // namespace

// The layers' GeoTIFFs are encoded without GDAL (a GDAL dataset per file cost most of a layers
// export): the bytes must be the ones GDAL writes, for bits from empty to full and random, and
// for tiles anywhere on Earth at any zoom (the corner's doubles in the tiepoint).
TEST(TileWriter, LayerGeoTiffIsTheFileGdalWrites) {
    std::mt19937_64 rng(20261205);
    const std::vector<TileId> tiles{{17, 68893, 47863}, {1, 0, 1}, {22, 4194303, 0}, {12, 2047, 2048}, {0, 0, 0}};
    std::vector<BitTile> patterns(2);
    patterns[1] = ~BitTile{};
    for (const double density : {0.001, 0.1, 0.5, 0.97}) {
        BitTile t;
        std::bernoulli_distribution on(density);
        for (int y = 0; y < 256; ++y) {
            for (int x = 0; x < 256; ++x) {
                if (on(rng)) t.set(x, y);
            }
        }
        patterns.push_back(t);
    }
    BitTile shapes;
    Rasterizer r;
    ASSERT_TRUE(r.triangle({10.3, 20.1}, {200.7, 40.2}, {90.5, 230.9}, Coverage::CellCentre, shapes));
    ASSERT_TRUE(r.disk({40, 200}, 30, Coverage::Conservative, shapes));
    patterns.push_back(shapes);

    std::vector<std::uint8_t> ours;
    for (const TileId& tile : tiles) {
        for (std::size_t p = 0; p < patterns.size(); ++p) {
            ASSERT_TRUE(io::detail::encodeBitGeoTiff(&patterns[p], tile, ours));
            EXPECT_EQ(ours, gdalBitGeoTiff(patterns[p], tile)) << tile.quadkey() << " pattern " << p;
        }
        ASSERT_TRUE(io::detail::encodeBitGeoTiff(nullptr, tile, ours));
        EXPECT_EQ(ours, gdalBitGeoTiff(BitTile{}, tile)) << tile.quadkey() << " without a layer";
    }
}

// The previews are encoded without GDAL too (palette_png_p.h): GDAL's PNG driver (libpng) must
// read back every index and colour, for palettes of one to 256 colours and images from uniform
// to noise; indices without a colour are refused.
TEST(TileWriter, PreviewPngReadsBackThroughGdal) {
    GDALAllRegister();
    std::mt19937_64 rng(5122026);
    std::vector<std::uint8_t> bytes;
    for (const std::size_t colours : {1u, 2u, 14u, 256u}) {
        std::vector<Rgb> palette(colours);
        for (Rgb& c : palette) {
            c = {static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng())};
        }
        for (const int runs : {1, 40, 65536}) {  // one colour, long runs, noise
            std::vector<std::uint8_t> image(65536);
            std::uniform_int_distribution<std::size_t> pick(0, colours - 1);
            for (std::size_t i = 0; i < image.size(); ++i) {
                image[i] = i % (65536 / static_cast<std::size_t>(runs)) == 0 || i == 0
                               ? static_cast<std::uint8_t>(pick(rng))
                               : image[i - 1];
            }
            ASSERT_TRUE(io::detail::encodePalettePng(image, 256, palette, bytes));
            const std::string mem = "/vsimem/preview_oracle.png";
            VSILFILE* f = VSIFileFromMemBuffer(mem.c_str(), bytes.data(), bytes.size(), FALSE);
            ASSERT_NE(f, nullptr);
            VSIFCloseL(f);
            {
                DatasetPtr png(
                    GDALDataset::Open(mem.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr));
                ASSERT_TRUE(png) << colours << " colours, " << runs << " runs";
                EXPECT_STREQ(png->GetDriver()->GetDescription(), "PNG");
                GDALRasterBand* band = png->GetRasterBand(1);
                const GDALColorTable* table = band->GetColorTable();
                ASSERT_NE(table, nullptr);
                ASSERT_EQ(static_cast<std::size_t>(table->GetColorEntryCount()), colours);
                for (std::size_t k = 0; k < colours; ++k) {
                    const GDALColorEntry* c = table->GetColorEntry(static_cast<int>(k));
                    EXPECT_EQ(c->c1, palette[k].r);
                    EXPECT_EQ(c->c2, palette[k].g);
                    EXPECT_EQ(c->c3, palette[k].b);
                    EXPECT_EQ(c->c4, 255);
                }
                std::vector<std::uint8_t> read(65536);
                ASSERT_EQ(band->RasterIO(GF_Read, 0, 0, 256, 256, read.data(), 256, 256, GDT_Byte, 0, 0, nullptr),
                          CE_None);
                EXPECT_EQ(read, image) << colours << " colours, " << runs << " runs";
            }
            VSIUnlink(mem.c_str());
        }
    }
    std::vector<std::uint8_t> image(65536, 3);
    const std::vector<Rgb> three(3);
    EXPECT_FALSE(io::detail::encodePalettePng(image, 256, three, bytes));  // index 3 of three colours
    EXPECT_FALSE(io::detail::encodePalettePng(image, 256, {}, bytes));
    EXPECT_FALSE(io::detail::encodePalettePng(image, 128, std::vector<Rgb>(4), bytes));  // the wrong size
}
