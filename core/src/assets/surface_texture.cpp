#include "terrabit/core/assets/surface_texture.h"

#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

namespace terrabit::core {

namespace {

constexpr int kSize = 256;  ///< texels each way: 4 m of asphalt at 1.6 cm a texel

/// A well-mixed 32-bit hash of a lattice point (Chris Wellons' lowbias32 on a combined key).
std::uint32_t mix(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

double unit(std::uint32_t x, std::uint32_t y, std::uint32_t seed) {
    return mix(x * 0x9e3779b9U ^ mix(y + 0x632be5abU * seed)) / 4294967296.0;
}

/// Value noise in [0, 1) with `period` lattice cells across the picture (so it tiles), at
/// (u, v) in repeats, smoothly interpolated between lattice values.
double valueNoise(double u, double v, int period, std::uint32_t seed) {
    const double x = u * period, y = v * period;
    const int ix = static_cast<int>(std::floor(x)), iy = static_cast<int>(std::floor(y));
    const double fx = x - ix, fy = y - iy;
    const double sx = fx * fx * (3.0 - 2.0 * fx), sy = fy * fy * (3.0 - 2.0 * fy);
    const auto at = [&](int gx, int gy) {
        const auto wrap = [&](int g) { return static_cast<std::uint32_t>(((g % period) + period) % period); };
        return unit(wrap(gx), wrap(gy), seed);
    };
    const double top = at(ix, iy) + (at(ix + 1, iy) - at(ix, iy)) * sx;
    const double bottom = at(ix, iy + 1) + (at(ix + 1, iy + 1) - at(ix, iy + 1)) * sx;
    return top + (bottom - top) * sy;
}

/// Octaves of value noise from `period` up, each twice as fine and half as strong; about [0, 1).
double fractalNoise(double u, double v, int period, int octaves, std::uint32_t seed) {
    double sum = 0.0, weight = 0.0, amplitude = 1.0;
    for (int o = 0; o < octaves; ++o) {
        sum += amplitude * valueNoise(u, v, period << o, seed + static_cast<std::uint32_t>(o));
        weight += amplitude;
        amplitude *= 0.5;
    }
    return sum / weight;
}

/// The brightness of the kind's texel (i, j), about 1 on average.
double detail(SurfaceTexture kind, int i, int j) {
    const double u = (i + 0.5) / kSize, v = (j + 0.5) / kSize;
    const double speck = unit(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), 7);
    switch (kind) {
        case SurfaceTexture::Asphalt: {
            double d = 1.0 + 0.16 * (fractalNoise(u, v, 8, 5, 1) - 0.5);
            if (speck < 0.05) d += 0.14;  // light aggregate
            if (speck > 0.95) d -= 0.14;  // dark binder
            return d;
        }
        case SurfaceTexture::Paving: {
            // 4 × 4 slabs a repeat, joints 3 texels wide, each slab a shade of its own.
            constexpr int kSlab = kSize / 4;
            const int x = i % kSlab, y = j % kSlab;
            if (x < 3 || y < 3) return 0.72;
            const double shade = unit(static_cast<std::uint32_t>(i / kSlab), static_cast<std::uint32_t>(j / kSlab), 3);
            return 1.0 + 0.08 * (shade - 0.5) + 0.08 * (fractalNoise(u, v, 16, 3, 4) - 0.5);
        }
        case SurfaceTexture::Gravel: {
            const double pebbles = fractalNoise(u, v, 32, 3, 5);
            return 1.0 + 0.5 * (pebbles - 0.5) + (speck < 0.1 ? 0.12 : 0.0) - (speck > 0.9 ? 0.12 : 0.0);
        }
        case SurfaceTexture::Water: {
            // Broad swell, and brighter crests where a finer, smooth noise peaks.
            const double swell = fractalNoise(u, v, 4, 5, 6);
            const double crests = std::max(0.0, fractalNoise(u, v, 8, 4, 8) - 0.56);
            return 1.0 + 0.2 * (swell - 0.5) + 1.1 * crests;
        }
        case SurfaceTexture::None:
            break;
    }
    return 1.0;
}

}  // namespace

double surfaceTextureRepeatMetres(SurfaceTexture kind) {
    switch (kind) {
        case SurfaceTexture::Asphalt:
            return 4.0;
        case SurfaceTexture::Paving:
            return 2.0;
        case SurfaceTexture::Gravel:
            return 2.0;
        case SurfaceTexture::Water:
            return 12.0;
        case SurfaceTexture::None:
            break;
    }
    return 1.0;
}

TextureImage surfaceTexture(SurfaceTexture kind, std::array<std::uint8_t, 3> colour) {
    TextureImage image;
    image.repeatMetres = surfaceTextureRepeatMetres(kind);
    if (kind == SurfaceTexture::None) {
        image.size = 1;
        image.rgb.assign(colour.begin(), colour.end());
        return image;
    }
    image.size = kSize;
    std::vector<double> d(static_cast<std::size_t>(kSize) * kSize);
    double sum = 0.0;
    for (int j = 0; j < kSize; ++j) {
        for (int i = 0; i < kSize; ++i) sum += d[static_cast<std::size_t>(j) * kSize + i] = detail(kind, i, j);
    }
    // The mean brightness is the colour's.
    const double scale = static_cast<double>(d.size()) / sum;
    image.rgb.resize(d.size() * 3);
    for (std::size_t k = 0; k < d.size(); ++k) {
        for (std::size_t c = 0; c < 3; ++c) {
            const double v = std::round(colour[c] * d[k] * scale);
            image.rgb[k * 3 + c] = static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
        }
    }
    return image;
}

namespace {

void append(void* context, void* data, int size) {
    auto* out = static_cast<std::vector<std::uint8_t>*>(context);
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    out->insert(out->end(), bytes, bytes + size);
}

Status checkImage(const TextureImage& image) {
    if (image.size <= 0 || image.rgb.size() != static_cast<std::size_t>(image.size) * image.size * 3) {
        return Error{"texture: " + std::to_string(image.rgb.size()) + " bytes are no " + std::to_string(image.size) +
                     " × " + std::to_string(image.size) + " RGB picture"};
    }
    return Status::success();
}

}  // namespace

Result<std::vector<std::uint8_t>> encodeJpeg(const TextureImage& image) {
    if (Status s = checkImage(image); !s) return s.error();
    std::vector<std::uint8_t> out;
    if (stbi_write_jpg_to_func(append, &out, image.size, image.size, 3, image.rgb.data(), 90) == 0) {
        return Error{"texture: the JPEG encoder failed"};
    }
    return out;
}

Result<std::shared_ptr<const std::vector<std::uint8_t>>> surfaceTextureJpeg(SurfaceTexture kind,
                                                                            std::array<std::uint8_t, 3> colour) {
    using Key = std::tuple<SurfaceTexture, std::array<std::uint8_t, 3>>;
    static std::mutex mutex;
    static std::map<Key, std::shared_ptr<const std::vector<std::uint8_t>>> made;
    const Key key{kind, colour};
    {
        const std::lock_guard lock(mutex);
        if (const auto it = made.find(key); it != made.end()) return it->second;
    }
    // Made outside the lock (a few milliseconds); two threads making the same one keep the first.
    auto bytes = encodeJpeg(surfaceTexture(kind, colour));
    if (!bytes) return bytes.error();
    auto shared = std::make_shared<const std::vector<std::uint8_t>>(std::move(*bytes));
    const std::lock_guard lock(mutex);
    return made.emplace(key, std::move(shared)).first->second;
}

Result<std::vector<std::uint8_t>> encodePng(const TextureImage& image) {
    if (Status s = checkImage(image); !s) return s.error();
    std::vector<std::uint8_t> out;
    if (stbi_write_png_to_func(append, &out, image.size, image.size, 3, image.rgb.data(), image.size * 3) == 0) {
        return Error{"texture: the PNG encoder failed"};
    }
    return out;
}

}  // namespace terrabit::core
