#include "terrabit/ui/views/layer_image.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "terrabit/core/terrain/hillshade.h"
#include "terrabit/ui/document/map_document.h"

namespace terrabit::ui {

namespace {

/// How strongly the hillshade modulates the background: 0 none, 1 its full contrast.
constexpr double kReliefContrast = 0.8;

/// Shades the background of a tile by its terrain: flat ground keeps the background's colour,
/// slopes facing the light (north-west, 45° up) are lighter and slopes facing away darker.
/// Cells without a height keep the background.
void shadeBackground(QImage& image, const core::terrain::HeightTile& heights, QColor background) {
    constexpr int n = core::kTileCells;
    std::vector<float> shade(std::size_t(n) * n);
    core::terrain::hillshadeTile(heights, shade);
    const double flat = std::sin(std::numbers::pi / 4.0);  // the shade of flat ground at 45°
    const double r = background.red(), g = background.green(), b = background.blue();
    for (int y = 0; y < n; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < n; ++x) {
            const float s = shade[std::size_t(y) * n + x];
            if (std::isnan(s)) continue;
            const double f = 1.0 + kReliefContrast * (s / flat - 1.0);
            auto channel = [f](double c) { return std::clamp(static_cast<int>(std::lround(c * f)), 0, 255); };
            line[x] = qRgb(channel(r), channel(g), channel(b));
        }
    }
}

}  // namespace

QImage tileComposite(const MapDocument& document, const core::TileId& tile, QColor background) {
    constexpr int n = core::BitTile::kSize;
    QImage image(n, n, QImage::Format_ARGB32_Premultiplied);
    image.fill(background);
    const LayerStack& layers = document.layers();
    if (const core::terrain::HeightTile* heights = layers.heights(tile);
        heights && heights->heights.size() == core::terrain::kHeightSampleCount) {
        shadeBackground(image, *heights, background);
    }
    const auto& rows = document.layerRows();
    for (int l = 0; l < layers.baseCount() && l < static_cast<int>(rows.size()); ++l) {
        const LayerRow& row = rows[static_cast<std::size_t>(l)];
        if (!document.layerVisible(row.name)) continue;
        const core::BitTile* bits = layers.tile(tile, l);
        if (!bits) continue;
        const QRgb rgb = row.colour.rgba();
        bits->forEachSetCell([&](int x, int y) { reinterpret_cast<QRgb*>(image.scanLine(y))[x] = rgb; });
    }
    return image;
}

QImage tileOverlay(const MapDocument& document, const core::TileId& tile, int alpha) {
    const QString name = document.overlay();
    if (name.isEmpty()) return {};
    const auto& names = document.layers().layerNames();
    const auto found = std::find(names.begin(), names.end(), name.toStdString());
    if (found == names.end()) return {};
    const int layer = static_cast<int>(found - names.begin());
    const core::BitTile* bits = document.layers().tile(tile, layer);
    if (!bits) return {};
    QColor c = document.layerRows()[static_cast<std::size_t>(layer)].colour;
    c.setAlpha(alpha);
    constexpr int n = core::BitTile::kSize;
    QImage image(n, n, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    const QRgb rgb = qPremultiply(c.rgba());
    bits->forEachSetCell([&](int x, int y) { reinterpret_cast<QRgb*>(image.scanLine(y))[x] = rgb; });
    return image;
}

}  // namespace terrabit::ui
