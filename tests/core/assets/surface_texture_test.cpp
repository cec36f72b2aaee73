#include "terrabit/core/assets/surface_texture.h"

#include <gtest/gtest.h>
#include <stb_image.h>

#include <cmath>
#include <cstdlib>

using namespace terrabit::core;

namespace {

constexpr std::array<SurfaceTexture, 4> kTextured{SurfaceTexture::Asphalt, SurfaceTexture::Paving,
                                                  SurfaceTexture::Gravel, SurfaceTexture::Water};

int texel(const TextureImage& image, int i, int j, int c) {
    return image.rgb[(static_cast<std::size_t>(j) * image.size + i) * 3 + c];
}

/// The mean difference between column i and column i + 1 (wrapping), over rows and channels.
double columnStep(const TextureImage& image, int i) {
    double sum = 0.0;
    for (int j = 0; j < image.size; ++j) {
        for (int c = 0; c < 3; ++c) sum += std::abs(texel(image, i, j, c) - texel(image, (i + 1) % image.size, j, c));
    }
    return sum / (image.size * 3.0);
}
double rowStep(const TextureImage& image, int j) {
    double sum = 0.0;
    for (int i = 0; i < image.size; ++i) {
        for (int c = 0; c < 3; ++c) sum += std::abs(texel(image, i, j, c) - texel(image, i, (j + 1) % image.size, c));
    }
    return sum / (image.size * 3.0);
}

}  // namespace

TEST(SurfaceTexture, EveryKindIsTheSameBytesEachTimeAndHasDetail) {
    for (const SurfaceTexture kind : kTextured) {
        const TextureImage a = surfaceTexture(kind, {95, 95, 95});
        const TextureImage b = surfaceTexture(kind, {95, 95, 95});
        ASSERT_EQ(a.size, 256);
        ASSERT_EQ(a.rgb.size(), 256u * 256u * 3u);
        EXPECT_EQ(a.rgb, b.rgb);
        EXPECT_GT(a.repeatMetres, 0.0);
        EXPECT_EQ(a.repeatMetres, surfaceTextureRepeatMetres(kind));
        // Not flat: some texels differ from the colour by more than a few levels.
        int off = 0;
        for (std::size_t k = 0; k < a.rgb.size(); ++k) off += std::abs(a.rgb[k] - 95) > 6;
        EXPECT_GT(off, 1000) << kSurfaceTextureWords[static_cast<std::size_t>(kind)];
        // Another colour gives other texels.
        EXPECT_NE(surfaceTexture(kind, {59, 131, 189}).rgb, a.rgb);
    }
}

TEST(SurfaceTexture, ItsMeanIsTheColour) {
    for (const SurfaceTexture kind : kTextured) {
        for (const std::array<std::uint8_t, 3> colour :
             {std::array<std::uint8_t, 3>{95, 95, 95}, std::array<std::uint8_t, 3>{59, 131, 189}}) {
            const TextureImage image = surfaceTexture(kind, colour);
            for (int c = 0; c < 3; ++c) {
                double sum = 0.0;
                for (std::size_t k = static_cast<std::size_t>(c); k < image.rgb.size(); k += 3) sum += image.rgb[k];
                EXPECT_NEAR(sum / (image.rgb.size() / 3), colour[static_cast<std::size_t>(c)], 3.0)
                    << kSurfaceTextureWords[static_cast<std::size_t>(kind)] << " channel " << c;
            }
        }
    }
}

TEST(SurfaceTexture, TilesWithoutASeam) {
    // Across the wrap (last column to first, last row to first) the picture changes no more
    // than between some neighbours inside it (a paving joint is an edge, inside as at the wrap);
    // noise that did not tile would jump there far more than anywhere inside.
    for (const SurfaceTexture kind : kTextured) {
        const TextureImage image = surfaceTexture(kind, {120, 120, 120});
        double columns = 0.0, rows = 0.0;
        for (int k = 0; k < image.size - 1; ++k) {
            columns = std::max(columns, columnStep(image, k));
            rows = std::max(rows, rowStep(image, k));
        }
        const char* name = kSurfaceTextureWords[static_cast<std::size_t>(kind)].data();
        EXPECT_LE(columnStep(image, image.size - 1), 1.1 * columns + 1.0) << name;
        EXPECT_LE(rowStep(image, image.size - 1), 1.1 * rows + 1.0) << name;
    }
    // The measure sees a seam: the same noise cut off short of its period jumps at the wrap.
    const TextureImage image = surfaceTexture(SurfaceTexture::Water, {120, 120, 120});
    TextureImage cut;
    cut.size = 200;
    for (int j = 0; j < cut.size; ++j) {
        for (int i = 0; i < cut.size; ++i) {
            for (int c = 0; c < 3; ++c) cut.rgb.push_back(static_cast<std::uint8_t>(texel(image, i, j, c)));
        }
    }
    double columns = 0.0;
    for (int k = 0; k < cut.size - 1; ++k) columns = std::max(columns, columnStep(cut, k));
    EXPECT_GT(columnStep(cut, cut.size - 1), 1.1 * columns + 1.0);
}

TEST(SurfaceTexture, NoneIsOneTexelOfTheColour) {
    const TextureImage image = surfaceTexture(SurfaceTexture::None, {1, 2, 3});
    EXPECT_EQ(image.size, 1);
    EXPECT_EQ(image.rgb, (std::vector<std::uint8_t>{1, 2, 3}));
}

TEST(SurfaceTexture, TheEncodedPicturesDecodeToIt) {
    const TextureImage image = surfaceTexture(SurfaceTexture::Asphalt, {95, 95, 95});
    for (const bool png : {true, false}) {
        const auto bytes = png ? encodePng(image) : encodeJpeg(image);
        ASSERT_TRUE(bytes.ok()) << bytes.message();
        int w = 0, h = 0, channels = 0;
        stbi_uc* decoded = stbi_load_from_memory(bytes->data(), static_cast<int>(bytes->size()), &w, &h, &channels, 3);
        ASSERT_NE(decoded, nullptr);
        EXPECT_EQ(w, 256);
        EXPECT_EQ(h, 256);
        double error = 0.0;
        for (std::size_t k = 0; k < image.rgb.size(); ++k) error += std::abs(int(decoded[k]) - int(image.rgb[k]));
        stbi_image_free(decoded);
        error /= static_cast<double>(image.rgb.size());
        if (png) {
            EXPECT_EQ(error, 0.0);
        } else {
            EXPECT_LT(error, 4.0) << "JPEG at quality 90";
        }
    }
    // The shared JPEG is the same bytes, made once.
    const auto shared = surfaceTextureJpeg(SurfaceTexture::Asphalt, {95, 95, 95});
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(**shared, encodeJpeg(image).value());
    EXPECT_EQ(shared->get(), surfaceTextureJpeg(SurfaceTexture::Asphalt, {95, 95, 95}).value().get());
}

TEST(SurfaceTexture, APictureOfTheWrongSizeIsRefused) {
    TextureImage bad;
    bad.size = 4;
    bad.rgb.assign(5, 0);
    const auto jpeg = encodeJpeg(bad);
    ASSERT_FALSE(jpeg.ok());
    EXPECT_NE(jpeg.message().find("4 × 4"), std::string::npos) << jpeg.message();
    EXPECT_FALSE(encodePng(bad).ok());
}
