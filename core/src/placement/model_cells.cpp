#include "model_cells_p.h"

#include <algorithm>
#include <array>

namespace terrabit::core::placement::detail {

void scaleOutline(std::span<const OutlineRect> outline, double widthScale, double depthScale,
                  std::vector<OutlineRect>& out) {
    out.clear();
    for (const OutlineRect& r : outline) {
        out.push_back({r.x0 * widthScale, r.z0 * depthScale, r.x1 * widthScale, r.z1 * depthScale});
    }
}

bool modelCells(std::span<const OutlineRect> outline, Vec2 mid, const ModelAxes& axes, const CellRegion& region,
                std::vector<CellSpan>& spans, std::vector<CellSpan>& scratch) {
    spans.clear();
    // footprintSpans walks the edges in the order given and interpolates from each edge's first
    // corner: corners listed in the turn of findPose's boxes (negative signed area in cells,
    // whose rows grow southwards) keep a one-rectangle outline's spans bit-identical to its box's.
    const bool along = cross(axes.x, axes.z) < 0.0;
    for (const OutlineRect& r : outline) {
        const Vec2 a = mid + (axes.x * r.x0 + axes.z * r.z0);
        const Vec2 b = mid + (axes.x * r.x1 + axes.z * r.z0);
        const Vec2 c = mid + (axes.x * r.x1 + axes.z * r.z1);
        const Vec2 d = mid + (axes.x * r.x0 + axes.z * r.z1);
        const std::array<Vec2, 4> corners = along ? std::array<Vec2, 4>{a, b, c, d} : std::array<Vec2, 4>{a, d, c, b};
        if (outline.size() == 1) return footprintSpans(corners, region, spans);
        if (!footprintSpans(corners, region, scratch)) return false;
        spans.insert(spans.end(), scratch.begin(), scratch.end());
    }
    // Each rectangle gave one span per row; rows shared by several are merged into runs.
    std::sort(spans.begin(), spans.end(),
              [](const CellSpan& p, const CellSpan& q) { return p.y != q.y ? p.y < q.y : p.x0 < q.x0; });
    std::size_t out = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (out > 0 && spans[out - 1].y == spans[i].y && spans[i].x0 <= spans[out - 1].x1) {
            spans[out - 1].x1 = std::max(spans[out - 1].x1, spans[i].x1);
        } else {
            spans[out++] = spans[i];
        }
    }
    spans.resize(out);
    return true;
}

}  // namespace terrabit::core::placement::detail
