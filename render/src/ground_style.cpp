#include "terrabit/render/ground_style.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace terrabit::render {

namespace {

constexpr int kN = core::BitTile::kSize;

osg::ref_ptr<osg::Image> bareImage(core::Rgb bare) {
    osg::ref_ptr<osg::Image> image = new osg::Image;
    image->allocateImage(kN, kN, 1, GL_RGBA, GL_UNSIGNED_BYTE);
    unsigned char* p = image->data();
    for (int i = 0; i < kN * kN; ++i, p += 4) {
        p[0] = bare.r;
        p[1] = bare.g;
        p[2] = bare.b;
        p[3] = 255;
    }
    return image;
}

/// Writes `colour` into every set cell of `bits`, word by word: a clear word costs one test,
/// so painting a sparse layer costs little more than reading it.
void paint(osg::Image& image, const core::BitTile& bits, core::Rgb colour) {
    for (int y = 0; y < kN; ++y) {
        const std::uint64_t* row = bits.row(y);
        unsigned char* out = image.data(0, kN - 1 - y);  // texture row 0 is the south edge
        for (int w = 0; w < core::BitTile::kWordsPerRow; ++w) {
            for (std::uint64_t word = row[w]; word != 0; word &= word - 1) {
                unsigned char* p = out + 4 * (w * 64 + std::countr_zero(word));
                p[0] = colour.r;
                p[1] = colour.g;
                p[2] = colour.b;
            }
        }
    }
}

}  // namespace

osg::ref_ptr<osg::Image> makeGroundImage(const core::LayerSource& source, const core::TileId& tile,
                                         const GroundStyle& style) {
    osg::ref_ptr<osg::Image> image = bareImage(style.bare);
    for (const core::LayerInfo& layer : style.layers) {
        const int id = source.layerId(layer.name);
        if (id < 0) continue;
        if (const core::BitTile* bits = source.tile(tile, id)) paint(*image, *bits, layer.colour);
    }
    return image;
}

osg::ref_ptr<osg::Image> makeMaskGroundImage(const core::BitTile& mask, core::Rgb on, const GroundStyle& style) {
    osg::ref_ptr<osg::Image> image = bareImage(style.bare);
    paint(*image, mask, on);
    return image;
}

void cutGroundHoles(osg::Image& image, std::span<const core::CellRect> rects) {
    for (const core::CellRect& r : rects) {
        for (int y = r.y0; y < r.y1 && y < kN; ++y) {
            unsigned char* out = image.data(0, kN - 1 - y);
            for (int x = r.x0; x < r.x1 && x < kN; ++x) out[4 * x + 3] = 0;
        }
    }
}

osg::ref_ptr<osg::Image> shrinkGroundImage(const osg::Image& image, int side) {
    const int f = kN / side;
    osg::ref_ptr<osg::Image> small = new osg::Image;
    small->allocateImage(side, side, 1, GL_RGBA, GL_UNSIGNED_BYTE);
    // Row by row through the big image, summing each output texel's f × f block (osg::Image's
    // data(x, y) works the row width out anew on every call: a viewport shrinks thousands).
    const unsigned char* base = image.data();
    const std::size_t inRow = image.getRowStepInBytes();
    const auto n = static_cast<unsigned>(f * f);
    std::vector<unsigned> sums(static_cast<std::size_t>(side) * 4);
    for (int y = 0; y < side; ++y) {
        std::fill(sums.begin(), sums.end(), 0u);
        for (int dy = 0; dy < f; ++dy) {
            const unsigned char* in = base + static_cast<std::size_t>(y * f + dy) * inRow;
            for (int x = 0; x < side; ++x) {
                unsigned* sum = sums.data() + 4 * x;
                for (int dx = 0; dx < f; ++dx, in += 4) {
                    for (int c = 0; c < 4; ++c) sum[c] += in[c];
                }
            }
        }
        // Rounded to nearest, as a box-filtered mipmap level.
        unsigned char* out = small->data(0, y);
        for (int i = 0; i < side * 4; ++i) out[i] = static_cast<unsigned char>((sums[i] + n / 2) / n);
    }
    return small;
}

}  // namespace terrabit::render
