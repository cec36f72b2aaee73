#include "algebra_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <numbers>

#include "terrabit/core/algebra/layer_evaluator.h"
#include "terrabit/core/algebra/layer_program.h"
#include "terrabit/core/algebra/noise_mask.h"
#include "terrabit/core/algebra/random_mask.h"

namespace terrabit::test {

using namespace core;
using namespace core::algebra;

std::vector<TileId> TileBlock::tiles() const {
    std::vector<TileId> out;
    for (int ty = 0; ty < height; ++ty) {
        for (int tx = 0; tx < width; ++tx) {
            out.push_back(TileId{zoom, x0 + static_cast<std::uint32_t>(tx), y0 + static_cast<std::uint32_t>(ty)});
        }
    }
    return out;
}

namespace {

std::int64_t worldCells(int zoom) { return std::int64_t{256} << zoom; }

/// Writes a region grid into the tiles it covers, dropping tiles left empty.
void storeGrid(MemoryLayers& layers, int zoom, int layer, const CellGrid& g) {
    const std::int64_t world = worldCells(zoom);
    for (std::int64_t ty = g.y0 / 256; ty * 256 < g.y0 + g.height; ++ty) {
        for (std::int64_t tx = g.x0 / 256; tx * 256 < g.x0 + g.width; ++tx) {
            if (ty < 0 || ty * 256 >= world || tx < 0 || tx * 256 >= world) continue;
            const TileId id{zoom, static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty)};
            BitTile t;
            for (int y = 0; y < 256; ++y) {
                for (int x = 0; x < 256; ++x) {
                    if (g.at(tx * 256 + x, ty * 256 + y)) t.set(x, y);
                }
            }
            if (t.any()) {
                layers.at(id, layer) = t;
            } else {
                layers.erase(id, layer);
            }
        }
    }
}

}  // namespace

void fillLayer(MemoryLayers& layers, const TileBlock& block, int layer, LayerStyle style, std::mt19937_64& rng) {
    // The block plus one tile of apron on each side (clipped to the world), so halos read real
    // content beyond the block's edge too.
    const std::int64_t world = worldCells(block.zoom);
    const std::int64_t gx0 = std::max<std::int64_t>(0, block.cellX0() - 256);
    const std::int64_t gy0 = std::max<std::int64_t>(0, block.cellY0() - 256);
    const std::int64_t gx1 = std::min<std::int64_t>(world, block.cellX0() + block.cellWidth() + 256);
    const std::int64_t gy1 = std::min<std::int64_t>(world, block.cellY0() + block.cellHeight() + 256);
    CellGrid g(gx0, gy0, static_cast<int>(gx1 - gx0), static_cast<int>(gy1 - gy0));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    auto coin = [&](double p) { return unit(rng) < p; };
    switch (style) {
        case LayerStyle::Empty:
            break;
        case LayerStyle::Full:
            std::fill(g.cells.begin(), g.cells.end(), 1);
            break;
        case LayerStyle::Sparse:
            for (auto& c : g.cells) c = coin(0.01);
            break;
        case LayerStyle::Dense:
            for (auto& c : g.cells) c = coin(0.6);
            break;
        case LayerStyle::Blobs: {
            const int count = static_cast<int>(g.cells.size() / 3000);
            for (int i = 0; i < count; ++i) {
                const std::int64_t cx = gx0 + static_cast<std::int64_t>(unit(rng) * g.width);
                const std::int64_t cy = gy0 + static_cast<std::int64_t>(unit(rng) * g.height);
                const int r = 1 + static_cast<int>(unit(rng) * 14);
                const bool disk = coin(0.5);
                for (std::int64_t y = cy - r; y <= cy + r; ++y) {
                    for (std::int64_t x = cx - r; x <= cx + r; ++x) {
                        if (x < gx0 || y < gy0 || x >= gx1 || y >= gy1) continue;
                        if (disk && (x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r) continue;
                        g.at(x, y) = 1;
                    }
                }
            }
            break;
        }
        case LayerStyle::Roads: {
            const int count = 4 + static_cast<int>(unit(rng) * 6);
            for (int i = 0; i < count; ++i) {
                const bool horizontal = coin(0.5);
                const int widthCells = 1 + static_cast<int>(unit(rng) * 5);
                const std::int64_t at = horizontal ? gy0 + static_cast<std::int64_t>(unit(rng) * g.height)
                                                   : gx0 + static_cast<std::int64_t>(unit(rng) * g.width);
                for (std::int64_t k = at; k < at + widthCells; ++k) {
                    for (std::int64_t t = horizontal ? gx0 : gy0; t < (horizontal ? gx1 : gy1); ++t) {
                        const std::int64_t x = horizontal ? t : k, y = horizontal ? k : t;
                        if (x < gx1 && y < gy1) g.at(x, y) = 1;
                    }
                }
            }
            break;
        }
    }
    storeGrid(layers, block.zoom, layer, g);
}

void fillRandom(MemoryLayers& layers, const TileBlock& block, std::mt19937_64& rng) {
    const LayerStyle styles[] = {LayerStyle::Blobs,  LayerStyle::Roads, LayerStyle::Dense,
                                 LayerStyle::Sparse, LayerStyle::Blobs, LayerStyle::Full};
    for (std::size_t layer = 0; layer < layers.layerNames().size(); ++layer) {
        const LayerStyle s = styles[(layer + rng() % 2) % std::size(styles)];
        fillLayer(layers, block, static_cast<int>(layer), s, rng);
    }
    // Holes: a few tiles of the block with no data at all for some layer.
    for (const TileId& t : block.tiles()) {
        if (rng() % 5 == 0) layers.erase(t, static_cast<int>(rng() % layers.layerNames().size()));
    }
}

void fillHeights(MemoryLayers& layers, const TileBlock& block, const Surface& surface) {
    const std::int64_t worldTiles = std::int64_t{1} << block.zoom;
    for (std::int64_t ty = std::int64_t{block.y0} - 1; ty <= std::int64_t{block.y0} + block.height; ++ty) {
        for (std::int64_t tx = std::int64_t{block.x0} - 1; tx <= std::int64_t{block.x0} + block.width; ++tx) {
            if (ty < 0 || ty >= worldTiles || tx < 0 || tx >= worldTiles) continue;
            const TileId id{block.zoom, static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty)};
            terrain::HeightTile& h = layers.heightsAt(id);
            for (int r = 0; r < terrain::kHeightSamples; ++r) {
                for (int c = 0; c < terrain::kHeightSamples; ++c) {
                    const double v = surface(tx * 256 + c, ty * 256 + r);
                    h.heights[terrain::HeightTile::index(r, c)] =
                        std::isnan(v) ? terrain::kNoHeight : static_cast<float>(v);
                }
            }
        }
    }
}

void fillRandomHeights(MemoryLayers& layers, const TileBlock& block, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double cell = metresPerCell(43.73, block.zoom);                             // metres per cell, about
    const double wave1 = 60.0 + 200.0 * unit(rng), wave2 = 30.0 + 100.0 * unit(rng);  // cells
    const double p1 = 6.0 * unit(rng), p2 = 6.0 * unit(rng), p3 = 6.0 * unit(rng);
    // Amplitudes for steepest slopes of about 40° and 30° per wave (gradient A·2π/wave/cell).
    const double a1 = 0.85 * cell * wave1 / (2 * std::numbers::pi), a2 = 0.6 * cell * wave2 / (2 * std::numbers::pi);
    const double jitter = 0.15 * cell;
    const std::uint64_t key = rng();
    struct Hole {
        std::int64_t x, y, r;
    };
    std::vector<Hole> holes;
    for (int i = 0; i < 4; ++i) {
        holes.push_back({block.cellX0() + static_cast<std::int64_t>(unit(rng) * block.cellWidth()),
                         block.cellY0() + static_cast<std::int64_t>(unit(rng) * block.cellHeight()),
                         2 + static_cast<std::int64_t>(unit(rng) * 20)});
    }
    fillHeights(layers, block, [&](std::int64_t gx, std::int64_t gy) {
        for (const Hole& h : holes) {
            if ((gx - h.x) * (gx - h.x) + (gy - h.y) * (gy - h.y) <= h.r * h.r) return std::nan("");
        }
        // Per-corner jitter from a hash of the global corner: the same on both sides of an edge.
        std::uint64_t z = key ^ (static_cast<std::uint64_t>(gx) * 0x9e3779b97f4a7c15ULL) ^
                          (static_cast<std::uint64_t>(gy) * 0xd6e8feb86659fd93ULL);
        z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
        z ^= z >> 29;
        const double noise = static_cast<double>(z >> 11) / 9007199254740992.0 - 0.5;
        const double x = static_cast<double>(gx), y = static_cast<double>(gy);
        return 300.0 +
               a1 * std::sin(2 * std::numbers::pi * x / wave1 + p1) * std::cos(2 * std::numbers::pi * y / wave1 + p2) +
               a2 * std::sin(2 * std::numbers::pi * (x + 0.7 * y) / wave2 + p3) + jitter * noise;
    });
    // Tiles with no heights at all, in the block and in its apron.
    const std::int64_t worldTiles = std::int64_t{1} << block.zoom;
    for (std::int64_t ty = std::int64_t{block.y0} - 1; ty <= std::int64_t{block.y0} + block.height; ++ty) {
        for (std::int64_t tx = std::int64_t{block.x0} - 1; tx <= std::int64_t{block.x0} + block.width; ++tx) {
            if (ty < 0 || ty >= worldTiles || tx < 0 || tx >= worldTiles) continue;
            if (rng() % 6 == 0) {
                layers.eraseHeights(TileId{block.zoom, static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty)});
            }
        }
    }
}

namespace {

class Naive {
public:
    Naive(const ExpressionAst& ast, const LayerSource& source, int zoom) : mAst(ast), mSource(source), mZoom(zoom) {}

    /// The value of node i over the cells [x0, x0 + w) × [y0, y0 + h).
    CellGrid eval(int i, std::int64_t x0, std::int64_t y0, int w, int h) {
        const ExprNode& n = mAst.nodes[static_cast<std::size_t>(i)];
        CellGrid out(x0, y0, w, h);
        auto each = [&](auto f) {
            for (std::int64_t y = y0; y < y0 + h; ++y)
                for (std::int64_t x = x0; x < x0 + w; ++x) out.at(x, y) = f(x, y) ? 1 : 0;
        };
        switch (n.op) {
            case ExprOp::Layer:
                each([&](auto x, auto y) { return layerCell(n.layer, x, y); });
                break;
            case ExprOp::All:
                each([](auto, auto) { return true; });
                break;
            case ExprOp::None:
                break;
            case ExprOp::Not: {
                const CellGrid a = eval(n.a, x0, y0, w, h);
                each([&](auto x, auto y) { return !a.at(x, y); });
                break;
            }
            case ExprOp::Or:
            case ExprOp::Xor:
            case ExprOp::And:
            case ExprOp::AndNot: {
                const CellGrid a = eval(n.a, x0, y0, w, h);
                const CellGrid b = eval(n.b, x0, y0, w, h);
                each([&](auto x, auto y) {
                    const bool p = a.at(x, y), q = b.at(x, y);
                    switch (n.op) {
                        case ExprOp::Or:
                            return p || q;
                        case ExprOp::Xor:
                            return p != q;
                        case ExprOp::And:
                            return p && q;
                        default:
                            return p && !q;
                    }
                });
                break;
            }
            case ExprOp::Dilate:
            case ExprOp::Erode: {
                const CellGrid a = eval(n.a, x0 - n.radius, y0 - n.radius, w + 2 * n.radius, h + 2 * n.radius);
                out = morph(a, n.op == ExprOp::Dilate, n.radius, n.element, x0, y0, w, h);
                break;
            }
            case ExprOp::Open:
            case ExprOp::Close: {
                const int r = n.radius;
                const CellGrid a = eval(n.a, x0 - 2 * r, y0 - 2 * r, w + 4 * r, h + 4 * r);
                const bool firstDilate = n.op == ExprOp::Close;
                const CellGrid m = morph(a, firstDilate, r, n.element, x0 - r, y0 - r, w + 2 * r, h + 2 * r);
                out = morph(m, !firstDilate, r, n.element, x0, y0, w, h);
                break;
            }
            case ExprOp::Edge: {
                const CellGrid a = eval(n.a, x0 - 1, y0 - 1, w + 2, h + 2);
                each([&](auto x, auto y) {
                    if (!a.at(x, y)) return false;
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx)
                            if (!a.at(x + dx, y + dy)) return true;
                    return false;
                });
                break;
            }
            case ExprOp::Shift: {
                const CellGrid a = eval(n.a, x0 - n.dx, y0 - n.dy, w, h);
                each([&](auto x, auto y) { return a.at(x - n.dx, y - n.dy) != 0; });
                break;
            }
            case ExprOp::Random: {
                const RandomMask m = RandomMask::make(mAst.options.seed, n.seed, mZoom, n.probability);
                each([&](auto x, auto y) { return m.cell(x, y); });
                break;
            }
            case ExprOp::Noise: {
                const NoiseMask m = NoiseMask::make(mAst.options.seed, n.seed, mZoom, n.scaleCells, n.threshold);
                each([&](auto x, auto y) { return m.cell(x, y); });
                break;
            }
            case ExprOp::Height:
            case ExprOp::Slope:
            case ExprOp::Aspect:
                each([&](auto x, auto y) { return reliefCell(n, x, y); });
                break;
        }
        return out;
    }

private:
    /// One cell of a relief function, by its definition in expression_ast.h.
    bool reliefCell(const ExprNode& n, std::int64_t gx, std::int64_t gy) const {
        const std::int64_t world = worldCells(mZoom);
        if (gy < 0 || gy >= world) return false;
        gx = ((gx % world) + world) % world;
        const terrain::HeightTile* h =
            mSource.heights(TileId{mZoom, static_cast<std::uint32_t>(gx >> 8), static_cast<std::uint32_t>(gy >> 8)});
        if (h == nullptr) return false;
        const int x = static_cast<int>(gx & 255), y = static_cast<int>(gy & 255);
        const double h00 = h->at(y, x), h10 = h->at(y, x + 1), h01 = h->at(y + 1, x), h11 = h->at(y + 1, x + 1);
        if (std::isnan(h00) || std::isnan(h10) || std::isnan(h01) || std::isnan(h11)) return false;
        if (n.op == ExprOp::Height) {
            const double mean = ((h00 + h10) + (h01 + h11)) / 4.0;
            return mean > n.above && mean < n.below;
        }
        // The ground size of the cell: Mercator cell size times cos(latitude of its centre).
        const double mercatorCell = 2.0 * kMercatorHalfWorld / static_cast<double>(world);
        const double centreY = kMercatorHalfWorld - (static_cast<double>(gy) + 0.5) * mercatorCell;
        const double latitude = mercatorToLonLat({0.0, centreY}).lat;
        const double ground = mercatorCell * std::cos(latitude * std::numbers::pi / 180.0);
        const double east = ((h10 - h00) + (h11 - h01)) / (2.0 * ground);
        const double south = ((h01 - h00) + (h11 - h10)) / (2.0 * ground);
        if (n.op == ExprOp::Slope) {
            const double degrees = std::atan(std::hypot(east, south)) * 180.0 / std::numbers::pi;
            return degrees > n.above && degrees < n.below;
        }
        // Downhill (minus the gradient) as (east, north), from the corner differences themselves:
        // exact, so directions along an axis or a diagonal, common with whole-metre heights, get
        // their exact bearing rather than atan2's rounding of it.
        const double e = -((h10 - h00) + (h11 - h01)), nn = (h01 - h00) + (h11 - h10);
        if (e == 0.0 && nn == 0.0) return false;  // flat: no aspect
        double bearing = 0.0;
        if (e == 0.0) {
            bearing = nn > 0.0 ? 0.0 : 180.0;
        } else if (nn == 0.0) {
            bearing = e > 0.0 ? 90.0 : 270.0;
        } else if (std::fabs(e) == std::fabs(nn)) {
            bearing = e > 0.0 ? (nn > 0.0 ? 45.0 : 135.0) : (nn > 0.0 ? 315.0 : 225.0);
        } else {
            bearing = std::atan2(e, nn) * 180.0 / std::numbers::pi;
            if (bearing < 0.0) bearing += 360.0;
        }
        double off = std::fabs(bearing - n.direction);
        off = std::min(off, 360.0 - off);
        return off <= n.within;
    }

    /// One cell of a layer through the source: the tile holding it, or clear beyond the poles.
    bool layerCell(int layer, std::int64_t gx, std::int64_t gy) {
        const std::int64_t world = worldCells(mZoom);
        if (gy < 0 || gy >= world) return false;
        if (gx < 0 || gx >= world) gx = ((gx % world) + world) % world;
        const std::int64_t tx = gx >> 8, ty = gy >> 8;
        if (tx != mCachedX || ty != mCachedY || layer != mCachedLayer) {
            mCachedX = tx;
            mCachedY = ty;
            mCachedLayer = layer;
            mCached =
                mSource.tile(TileId{mZoom, static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty)}, layer);
        }
        return mCached && mCached->test(static_cast<int>(gx & 255), static_cast<int>(gy & 255));
    }

    /// Dilation (some cell of the element around the cell is set) or erosion (every one is), by
    /// definition. When the cells that decide are rare (set cells for a dilation, clear ones for an
    /// erosion) each of them stamps the element onto the output instead: the same definition read
    /// from the other side, and far fewer steps for sparse masks with large radii.
    static CellGrid morph(const CellGrid& a, bool dilate, int r, StructuringElement e, std::int64_t x0, std::int64_t y0,
                          int w, int h) {
        auto inElement = [&](int dx, int dy) { return e == StructuringElement::Square || dx * dx + dy * dy <= r * r; };
        const std::uint8_t deciding = dilate ? 1 : 0;
        const auto rare = static_cast<std::size_t>(std::count(a.cells.begin(), a.cells.end(), deciding));
        CellGrid out(x0, y0, w, h);
        if (rare * 16 < a.cells.size()) {
            std::fill(out.cells.begin(), out.cells.end(), dilate ? 0 : 1);
            for (std::int64_t y = a.y0; y < a.y0 + a.height; ++y) {
                for (std::int64_t x = a.x0; x < a.x0 + a.width; ++x) {
                    if (a.at(x, y) != deciding) continue;
                    for (int dy = -r; dy <= r; ++dy) {
                        for (int dx = -r; dx <= r; ++dx) {
                            const std::int64_t ox = x + dx, oy = y + dy;
                            if (!inElement(dx, dy) || ox < x0 || oy < y0 || ox >= x0 + w || oy >= y0 + h) continue;
                            out.at(ox, oy) = deciding;
                        }
                    }
                }
            }
            return out;
        }
        for (std::int64_t y = y0; y < y0 + h; ++y) {
            for (std::int64_t x = x0; x < x0 + w; ++x) {
                bool found = false;  // a deciding cell in the element around (x, y)
                for (int dy = -r; dy <= r && !found; ++dy) {
                    for (int dx = -r; dx <= r; ++dx) {
                        if (inElement(dx, dy) && a.at(x + dx, y + dy) == deciding) {
                            found = true;
                            break;
                        }
                    }
                }
                out.at(x, y) = found ? deciding : 1 - deciding;
            }
        }
        return out;
    }

    const ExpressionAst& mAst;
    const LayerSource& mSource;
    int mZoom;
    std::int64_t mCachedX = -1;
    std::int64_t mCachedY = -1;
    int mCachedLayer = -1;
    const BitTile* mCached = nullptr;
};

}  // namespace

CellGrid naiveEvaluate(const ExpressionAst& ast, const LayerSource& source, const TileBlock& block, int node) {
    if (ast.root < 0) return {};
    return Naive(ast, source, block.zoom)
        .eval(node < 0 ? ast.root : node, block.cellX0(), block.cellY0(), block.cellWidth(), block.cellHeight());
}

CellGrid fastEvaluate(const ExpressionAst& ast, const LayerSource& source, const TileBlock& block,
                      const std::vector<int>& order) {
    if (ast.root < 0) return {};
    LayerEvaluator evaluator(LayerProgram::compile(ast));
    const std::vector<TileId> tiles = block.tiles();
    std::vector<int> sequence = order;
    if (sequence.empty()) {
        for (std::size_t i = 0; i < tiles.size(); ++i) sequence.push_back(static_cast<int>(i));
    }
    CellGrid out(block.cellX0(), block.cellY0(), block.cellWidth(), block.cellHeight());
    BitTile t;
    for (int i : sequence) {
        const TileId& id = tiles[static_cast<std::size_t>(i)];
        const Status s = evaluator.evaluate(source, id, t);
        EXPECT_TRUE(s.ok()) << s.message();
        for (int y = 0; y < 256; ++y)
            for (int x = 0; x < 256; ++x)
                out.at(std::int64_t{id.x} * 256 + x, std::int64_t{id.y} * 256 + y) = t.test(x, y);
    }
    return out;
}

std::string firstDifference(const CellGrid& expected, const CellGrid& actual) {
    if (expected.width != actual.width || expected.height != actual.height || expected.x0 != actual.x0 ||
        expected.y0 != actual.y0) {
        return "the grids cover different cells";
    }
    std::size_t differing = 0;
    std::string first;
    for (int y = 0; y < expected.height; ++y) {
        for (int x = 0; x < expected.width; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * expected.width + x;
            if (expected.cells[i] != actual.cells[i]) {
                if (differing++ == 0) {
                    first = "cell (" + std::to_string(x) + ", " + std::to_string(y) + ") of the block (tile " +
                            std::to_string(x / 256) + "," + std::to_string(y / 256) + " cell " +
                            std::to_string(x % 256) + "," + std::to_string(y % 256) + "): expected " +
                            std::to_string(expected.cells[i]) + ", got " + std::to_string(actual.cells[i]);
                }
            }
        }
    }
    return differing == 0 ? std::string() : first + " (" + std::to_string(differing) + " cells differ)";
}

ExpressionAst parseOrDie(const std::string& text, const LayerSource& source, int zoom, std::uint64_t seed) {
    ExpressionOptions options;
    options.zoom = zoom;
    options.latitude = 43.73;
    options.seed = seed;
    Result<ExpressionAst> ast = ExpressionAst::parse(text, source.layerNames(), options);
    if (!ast) {
        ADD_FAILURE() << "'" << text << "' does not compile:\n" << ast.message();
        return {};
    }
    return std::move(*ast);
}

}  // namespace terrabit::test
