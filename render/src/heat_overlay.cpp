#include "terrabit/render/heat_overlay.h"

#include <osg/Geometry>
#include <osg/Texture2D>

#include <algorithm>
#include <vector>

#include "overlay_state_p.h"

namespace terrabit::render {

namespace {

constexpr int kSide = core::BitTile::kSize;

unsigned char toByte(float v) { return static_cast<unsigned char>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); }

}  // namespace

osg::Vec4 heatColour(double fraction, float opacity) {
    if (fraction <= 0.0) return {0.0f, 0.0f, 0.0f, 0.0f};
    const auto f = static_cast<float>(std::min(fraction, 1.0));
    const osg::Vec4 blue(0.16f, 0.31f, 1.0f, 1.0f), yellow(1.0f, 0.9f, 0.16f, 1.0f), red(0.9f, 0.16f, 0.12f, 1.0f);
    osg::Vec4 c = f < 0.5f ? blue * (1.0f - 2.0f * f) + yellow * (2.0f * f)
                           : yellow * (2.0f - 2.0f * f) + red * (2.0f * f - 1.0f);
    // Sparse areas stay see-through, dense ones approach the full opacity.
    c.a() = opacity * (0.35f + 0.65f * f);
    return c;
}

osg::ref_ptr<osg::Image> makeHeatImage(const MaskLookup& mask, const core::TileId& tile,
                                       const HeatOverlayStyle& style) {
    osg::ref_ptr<osg::Image> image = new osg::Image;
    image->allocateImage(kSide, kSide, 1, GL_RGBA, GL_UNSIGNED_BYTE);
    std::fill_n(image->data(), kSide * kSide * 4, 0);
    const int r = std::clamp(style.radiusCells, 0, kSide);
    if (r == 0) {
        const core::BitTile* bits = mask(tile);
        if (!bits) return image;
        const unsigned char a = toByte(style.opacity);
        bits->forEachSetCell([&](int x, int y) {
            unsigned char* p = image->data(x, kSide - 1 - y);
            p[0] = style.colour.r;
            p[1] = style.colour.g;
            p[2] = style.colour.b;
            p[3] = a;
        });
        return image;
    }
    // A summed-area table over the tile plus r cells of its neighbours on every side: each
    // window sum is then four look-ups, whatever the radius.
    const int side = kSide + 2 * r;
    std::vector<std::int32_t> sum(static_cast<std::size_t>(side + 1) * (side + 1), 0);
    auto at = [&](int x, int y) -> std::int32_t& { return sum[static_cast<std::size_t>(y) * (side + 1) + x]; };
    const core::BitTile* bits[3][3] = {};
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const auto n = tile.neighbour(dx, dy);
            bits[dy + 1][dx + 1] = n ? mask(*n) : nullptr;
        }
    }
    for (int y = 0; y < side; ++y) {
        const int ty = y - r;  // tile row, may lie in a neighbour
        const int by = ty < 0 ? 0 : (ty >= kSide ? 2 : 1);
        const int cy = ty - (by - 1) * kSide;
        std::int32_t rowSum = 0;
        for (int x = 0; x < side; ++x) {
            const int tx = x - r;
            const int bx = tx < 0 ? 0 : (tx >= kSide ? 2 : 1);
            const core::BitTile* b = bits[by][bx];
            rowSum += (b && b->test(tx - (bx - 1) * kSide, cy)) ? 1 : 0;
            at(x + 1, y + 1) = at(x + 1, y) + rowSum;
        }
    }
    const double window = static_cast<double>(2 * r + 1) * (2 * r + 1);
    for (int y = 0; y < kSide; ++y) {
        unsigned char* out = image->data(0, kSide - 1 - y);
        for (int x = 0; x < kSide; ++x) {
            // Window [x, x + 2r] × [y, y + 2r] in table coordinates (the tile starts at r).
            const std::int32_t count =
                at(x + 2 * r + 1, y + 2 * r + 1) - at(x, y + 2 * r + 1) - at(x + 2 * r + 1, y) + at(x, y);
            const osg::Vec4 c = heatColour(count / window, style.opacity);
            out[4 * x + 0] = toByte(c.r());
            out[4 * x + 1] = toByte(c.g());
            out[4 * x + 2] = toByte(c.b());
            out[4 * x + 3] = toByte(c.a());
        }
    }
    return image;
}

osg::ref_ptr<osg::Geode> makeOverlayQuad(const TilePlacement& placement, osg::ref_ptr<osg::Image> image,
                                         float heightMetres) {
    constexpr double n = core::kTileCells;
    osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
    vertices->push_back(placement.at(0, n, heightMetres));
    vertices->push_back(placement.at(n, n, heightMetres));
    vertices->push_back(placement.at(n, 0, heightMetres));
    vertices->push_back(placement.at(0, 0, heightMetres));
    osg::ref_ptr<osg::Vec2Array> uv = new osg::Vec2Array;
    uv->push_back({0.0f, 0.0f});
    uv->push_back({1.0f, 0.0f});
    uv->push_back({1.0f, 1.0f});
    uv->push_back({0.0f, 1.0f});
    static const GLushort kIndices[] = {0, 1, 2, 0, 2, 3};
    osg::ref_ptr<osg::Geometry> quad = detail::colouredGeometry(vertices, osg::Vec4(1, 1, 1, 1),
                                                                new osg::DrawElementsUShort(GL_TRIANGLES, 6, kIndices));
    quad->setName("overlay");
    quad->setTexCoordArray(0, uv);
    osg::StateSet* state = quad->getOrCreateStateSet();
    osg::ref_ptr<osg::Texture2D> texture = new osg::Texture2D(image.get());
    texture->setFilter(osg::Texture::MIN_FILTER, osg::Texture::LINEAR_MIPMAP_LINEAR);
    texture->setFilter(osg::Texture::MAG_FILTER, osg::Texture::NEAREST);
    texture->setWrap(osg::Texture::WRAP_S, osg::Texture::CLAMP_TO_EDGE);
    texture->setWrap(osg::Texture::WRAP_T, osg::Texture::CLAMP_TO_EDGE);
    state->setTextureAttributeAndModes(0, texture, osg::StateAttribute::ON);
    detail::overlayState(*state, detail::kHeatBin, false);
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->addDrawable(quad);
    return geode;
}

}  // namespace terrabit::render
