#include "terrabit/ui/layer_image.h"

namespace terrabit::ui {

QImage layerImage(const core::BitTile& tile, QColor on, QColor off) {
    constexpr int n = core::BitTile::kSize;
    QImage image(n, n, QImage::Format_ARGB32);
    const QRgb onRgb = on.rgba();
    const QRgb offRgb = off.rgba();
    for (int y = 0; y < n; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < n; ++x) line[x] = tile.test(x, y) ? onRgb : offRgb;
    }
    return image;
}

}  // namespace terrabit::ui
