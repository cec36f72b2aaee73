#include "terrabit/core/assets/impostor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace terrabit::core {

namespace {

/// What a card sees on one level line: its extent along the card and the colour there.
struct LevelCut {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    std::array<double, 4> colour{};  ///< weighted sums, then means
    double weight = 0.0;
    bool seen() const { return lo <= hi; }
};

}  // namespace

AssetMesh crossCardImpostor(const AssetMesh& mesh, int levels) {
    AssetMesh out;
    const ModelBounds bounds = mesh.bounds();
    if (mesh.empty() || bounds.empty() || levels < 2) return out;
    const double bottom = bounds.min[1], top = bounds.max[1];
    const double height = top - bottom;
    if (!(height > 0.0)) return out;
    const bool haveColours = mesh.colours.size() == mesh.vertexCount() * 4;
    const bool haveNormals = mesh.normals.size() == mesh.vertexCount() * 3;
    // The level lines, a hair inside the bottom and the top (a cone's tip or a flat base cut
    // exactly at its height meets no triangle's inside); the cards reach the true bottom and top.
    std::vector<double> cutAt(static_cast<std::size_t>(levels)), drawAt(static_cast<std::size_t>(levels));
    for (int k = 0; k < levels; ++k) {
        const double t = double(k) / double(levels - 1);
        drawAt[std::size_t(k)] = bottom + height * t;
        cutAt[std::size_t(k)] = bottom + height * (1e-3 + (1.0 - 2e-3) * t);
    }
    const double centre[3] = {0.5 * (bounds.min[0] + bounds.max[0]), 0.0, 0.5 * (bounds.min[2] + bounds.max[2])};
    for (const int along : {0, 2}) {  // the X–Y card, then the Z–Y card
        std::vector<LevelCut> cuts(static_cast<std::size_t>(levels));
        for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
            const std::uint32_t v[3] = {mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]};
            const auto y = [&](int i) { return double(mesh.positions[std::size_t(v[i]) * 3 + 1]); };
            const auto a = [&](int i) { return double(mesh.positions[std::size_t(v[i]) * 3 + std::size_t(along)]); };
            const double lo = std::min({y(0), y(1), y(2)}), hi = std::max({y(0), y(1), y(2)});
            // The level lines within the triangle's heights (cutAt rises).
            auto k = std::lower_bound(cutAt.begin(), cutAt.end(), lo) - cutAt.begin();
            for (; k < levels && cutAt[std::size_t(k)] <= hi; ++k) {
                const double h = cutAt[std::size_t(k)];
                double from = std::numeric_limits<double>::infinity(), to = -from;
                std::array<double, 4> colour{};
                int crossed = 0;
                for (int e = 0; e < 3; ++e) {  // where each edge crosses the line
                    const int i = e, j = (e + 1) % 3;
                    const double yi = y(i), yj = y(j);
                    if ((yi < h && yj < h) || (yi > h && yj > h)) continue;
                    const double s = yj != yi ? (h - yi) / (yj - yi) : 0.0;
                    const double at = a(i) + (a(j) - a(i)) * s;
                    from = std::min(from, at), to = std::max(to, at);
                    // As a sky lights it: (1 + n_y) / 2 of the normal there.
                    double shade = 1.0;
                    if (haveNormals) {
                        const double ni = mesh.normals[std::size_t(v[i]) * 3 + 1];
                        const double nj = mesh.normals[std::size_t(v[j]) * 3 + 1];
                        shade = 0.5 * (1.0 + ni + (nj - ni) * s);
                    }
                    for (int c = 0; c < 4; ++c) {
                        const double ci = haveColours ? mesh.colours[std::size_t(v[i]) * 4 + std::size_t(c)] : 1.0;
                        const double cj = haveColours ? mesh.colours[std::size_t(v[j]) * 4 + std::size_t(c)] : 1.0;
                        colour[std::size_t(c)] += (ci + (cj - ci) * s) * (c < 3 ? shade : 1.0);
                    }
                    ++crossed;
                }
                if (crossed == 0) continue;
                LevelCut& cut = cuts[std::size_t(k)];
                cut.lo = std::min(cut.lo, from), cut.hi = std::max(cut.hi, to);
                const double weight = std::max(to - from, 1e-6);
                for (int c = 0; c < 4; ++c) cut.colour[std::size_t(c)] += colour[std::size_t(c)] / crossed * weight;
                cut.weight += weight;
            }
        }
        // The card: two corners per level it sees, a trapezoid between each two of them.
        const auto first = static_cast<std::uint32_t>(out.vertexCount());
        std::uint32_t corners = 0;
        for (std::size_t k = 0; k < cuts.size(); ++k) {
            const LevelCut& cut = cuts[k];
            if (!cut.seen()) continue;
            for (const double at : {cut.lo, cut.hi}) {
                double p[3] = {centre[0], drawAt[k], centre[2]};
                p[along] = at;
                out.positions.insert(out.positions.end(), {float(p[0]), float(p[1]), float(p[2])});
                out.normals.insert(out.normals.end(), {0.0f, 1.0f, 0.0f});
                for (int c = 0; c < 4; ++c) {
                    const double mean = cut.colour[std::size_t(c)] / cut.weight;
                    out.colours.push_back(float(std::clamp(mean, 0.0, 1.0)));
                }
            }
            if (corners >= 2) {
                // Lower left, lower right, upper right, upper left: counter-clockwise seen from
                // +Z for the X–Y card (x right, y up); the Z–Y card runs its z the other way.
                const std::uint32_t ll = first + corners - 2, lr = ll + 1, ul = ll + 2, ur = ll + 3;
                if (along == 0) {
                    out.indices.insert(out.indices.end(), {ll, lr, ur, ll, ur, ul});
                } else {
                    out.indices.insert(out.indices.end(), {ll, ur, lr, ll, ul, ur});
                }
            }
            corners += 2;
        }
    }
    return out;
}

}  // namespace terrabit::core
