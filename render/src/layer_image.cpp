#include "terrabit/render/layer_image.h"

namespace terrabit::render {

osg::ref_ptr<osg::Image> makeLayerImage(const core::BitTile& tile, Rgba on, Rgba off) {
    constexpr int n = core::BitTile::kSize;
    osg::ref_ptr<osg::Image> image = new osg::Image;
    image->allocateImage(n, n, 1, GL_RGBA, GL_UNSIGNED_BYTE);
    for (int y = 0; y < n; ++y) {
        // Flip: texture row 0 is the bottom (south) edge.
        unsigned char* out = image->data(0, n - 1 - y);
        for (int x = 0; x < n; ++x) {
            const Rgba c = tile.test(x, y) ? on : off;
            out[4 * x + 0] = c.r;
            out[4 * x + 1] = c.g;
            out[4 * x + 2] = c.b;
            out[4 * x + 3] = c.a;
        }
    }
    return image;
}

}  // namespace terrabit::render
