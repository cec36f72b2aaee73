// Impostor cards (assets/impostor.h): on a trunk-and-crown model the cards take the model's
// extent and colour at each level; on every plant of the shipped library they cover the model's
// side silhouette (measured by point sampling) closely, with a small share of its triangles.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "terrabit/core/assets/default_asset_library.h"
#include "terrabit/core/assets/impostor.h"
#include "terrabit/core/assets/mesh_builder.h"

using namespace terrabit::core;

namespace {

/// An axis-aligned box's twelve triangles, counter-clockwise from outside, in one colour.
void addBox(AssetMesh& m, const float lo[3], const float hi[3], const float rgb[3]) {
    const auto base = static_cast<std::uint32_t>(m.vertexCount());
    for (int k = 0; k < 8; ++k) {
        m.positions.insert(m.positions.end(),
                           {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]});
        m.normals.insert(m.normals.end(), {0.0f, 1.0f, 0.0f});
        m.colours.insert(m.colours.end(), {rgb[0], rgb[1], rgb[2], 1.0f});
    }
    const std::uint32_t faces[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                        {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    for (const auto& f : faces) m.indices.insert(m.indices.end(), {base + f[0], base + f[1], base + f[2]});
}

/// The area of a card's trapezoids (each card in its own plane: along = 0 for X–Y, 2 for Z–Y).
double cardArea(const AssetMesh& cards, int along) {
    double area = 0.0;
    for (std::size_t t = 0; t + 2 < cards.indices.size(); t += 3) {
        double p[3][2];
        bool inPlane = true;
        for (int i = 0; i < 3; ++i) {
            const std::size_t v = cards.indices[t + std::size_t(i)];
            p[i][0] = cards.positions[v * 3 + std::size_t(along)];
            p[i][1] = cards.positions[v * 3 + 1];
            // The other card's corners all share one coordinate along this card.
            inPlane = inPlane && cards.positions[v * 3 + std::size_t(2 - along)] ==
                                     cards.positions[std::size_t(cards.indices[t]) * 3 + std::size_t(2 - along)];
        }
        const double twice = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
        // A card's triangles vary along it; the other card's are a line in this plane (zero area).
        if (inPlane) area += std::abs(twice) / 2.0;
    }
    return area;
}

/// The model's side silhouette along X (along = 0) or Z (2), by sampling points on a fine grid:
/// covered when some triangle's projection holds it.
double silhouetteArea(const AssetMesh& m, int along, double step) {
    const ModelBounds b = m.bounds();
    double covered = 0.0;
    for (double y = b.min[1] + step / 2; y < b.max[1]; y += step) {
        for (double a = b.min[std::size_t(along)] + step / 2; a < b.max[std::size_t(along)]; a += step) {
            for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
                double px[3], py[3];
                for (int i = 0; i < 3; ++i) {
                    const std::size_t v = m.indices[t + std::size_t(i)];
                    px[i] = m.positions[v * 3 + std::size_t(along)];
                    py[i] = m.positions[v * 3 + 1];
                }
                const auto side = [&](int i, int j) {
                    return (px[j] - px[i]) * (y - py[i]) - (py[j] - py[i]) * (a - px[i]);
                };
                const double s0 = side(0, 1), s1 = side(1, 2), s2 = side(2, 0);
                if ((s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0)) {
                    covered += step * step;
                    break;
                }
            }
        }
    }
    return covered;
}

}  // namespace

TEST(Impostor, CardsTakeTheModelsExtentAndColourAtEachLevel) {
    AssetMesh tree;
    const float trunkLo[3] = {-0.2f, 0.0f, -0.3f}, trunkHi[3] = {0.2f, 3.0f, 0.3f}, brown[3] = {0.3f, 0.2f, 0.1f};
    const float crownLo[3] = {-2.0f, 3.0f, -1.5f}, crownHi[3] = {2.0f, 7.0f, 1.5f}, green[3] = {0.1f, 0.6f, 0.1f};
    addBox(tree, trunkLo, trunkHi, brown);
    addBox(tree, crownLo, crownHi, green);
    const int levels = 8;  // one every metre
    const AssetMesh cards = crossCardImpostor(tree, levels);
    ASSERT_TRUE(cards.validate().ok());
    EXPECT_EQ(cards.triangleCount(), std::size_t(4 * (levels - 1)));
    EXPECT_EQ(cards.bounds().min[1], 0.0);
    EXPECT_EQ(cards.bounds().max[1], 7.0);
    for (std::size_t v = 0; v < cards.vertexCount(); ++v) {
        const double x = cards.positions[v * 3], y = cards.positions[v * 3 + 1], z = cards.positions[v * 3 + 2];
        const bool xCard = z == 0.0;  // the X–Y card lies at the model's centre z
        const double extent = std::abs(xCard ? x : z);
        const bool crown = y >= 3.0;  // levels at 0..7 m: the 3 m level cuts the crown just above
        EXPECT_NEAR(extent, crown ? (xCard ? 2.0 : 1.5) : (xCard ? 0.2 : 0.3), 1e-6) << "y " << y;
        const float* want = crown ? green : brown;
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(cards.colours[v * 4 + std::size_t(c)], want[c], 1e-5) << "y " << y;
        EXPECT_EQ(cards.normals[v * 3 + 1], 1.0f);
    }
    // The X–Y card turns counter-clockwise seen from +Z: its twice-area sum is positive.
    double twice = 0.0;
    for (std::size_t t = 0; t + 2 < cards.indices.size(); t += 3) {
        const auto p = [&](int i, int k) {
            return double(cards.positions[std::size_t(cards.indices[t + std::size_t(i)]) * 3 + std::size_t(k)]);
        };
        if (p(0, 2) != 0.0 || p(1, 2) != 0.0 || p(2, 2) != 0.0) continue;
        twice += (p(1, 0) - p(0, 0)) * (p(2, 1) - p(0, 1)) - (p(2, 0) - p(0, 0)) * (p(1, 1) - p(0, 1));
    }
    // The trunk to 2 m, a trapezoid from it to the crown's width at 3 m, the crown to 7 m.
    EXPECT_NEAR(twice / 2.0, 0.4 * 2.0 + (0.4 + 4.0) / 2.0 + 4.0 * 4.0, 1e-6);
    // Lit as a sky lights the model: sideways normals give half the colour, downward none.
    AssetMesh side = tree;
    for (std::size_t v = 0; v < side.vertexCount(); ++v) {
        side.normals[v * 3] = 1.0f;
        side.normals[v * 3 + 1] = 0.0f;
    }
    const AssetMesh shaded = crossCardImpostor(side, levels);
    ASSERT_EQ(shaded.colours.size(), cards.colours.size());
    for (std::size_t k = 0; k < shaded.colours.size(); ++k) {
        EXPECT_NEAR(shaded.colours[k], k % 4 == 3 ? 1.0f : 0.5f * cards.colours[k], 1e-6);
    }
    EXPECT_TRUE(crossCardImpostor(AssetMesh{}).empty());
    EXPECT_TRUE(crossCardImpostor(tree, 1).empty());
}

TEST(Impostor, EveryShippedPlantsCardsCoverItsSilhouetteWithATenthOfItsTriangles) {
    int plants = 0;
    for (const DefaultAsset& a : buildDefaultAssetLibrary()) {
        if (a.info.category == "building") continue;
        ++plants;
        const AssetMesh cards = crossCardImpostor(a.mesh);
        ASSERT_FALSE(cards.empty()) << a.info.id;
        EXPECT_LE(cards.triangleCount(), 36u) << a.info.id;
        EXPECT_LE(cards.triangleCount() * 5, a.mesh.triangleCount()) << a.info.id;
        const double step = std::max(a.mesh.height(), 0.2) / 80.0;
        for (const int along : {0, 2}) {
            const double silhouette = silhouetteArea(a.mesh, along, step), card = cardArea(cards, along);
            // Gaps between a level's parts are filled and a round crown's widest point may fall
            // between two levels: close, not equal. Grass and flowers are blades with gaps
            // between them, which a card fills: a denser tuft far off.
            const bool blades = a.info.category == "grass" || a.info.category == "flower";
            EXPECT_GT(card, 0.75 * silhouette) << a.info.id << " along " << along;
            EXPECT_LT(card, (blades ? 2.5 : 1.4) * silhouette) << a.info.id << " along " << along;
        }
    }
    EXPECT_GE(plants, 11);
}
