#pragma once
// Test support for the layer algebra: an in-memory LayerSource with random content over a block
// of tiles, and the naive reference evaluator (per cell, straight from the AST, over a whole
// region at once, reading layers cell by cell through the LayerSource).

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../support/memory_layer_source.h"
#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::test {

/// Named layers over any set of tiles, held in memory, and terrain heights for any of them.
/// Tiles never written read as absent; tiles without heights answer nullptr.
using MemoryLayers = MemoryLayerSource;

/// A rectangle of tiles at one zoom: columns x0 .. x0 + width - 1, rows y0 .. y0 + height - 1.
struct TileBlock {
    int zoom = 17;
    std::uint32_t x0 = 0;
    std::uint32_t y0 = 0;
    int width = 3;   // tiles
    int height = 3;  // tiles

    std::vector<core::TileId> tiles() const;
    std::int64_t cellX0() const { return std::int64_t{x0} * 256; }
    std::int64_t cellY0() const { return std::int64_t{y0} * 256; }
    int cellWidth() const { return width * 256; }
    int cellHeight() const { return height * 256; }
};

/// A mask over a rectangle of global cells, one byte per cell (0 or 1).
struct CellGrid {
    std::int64_t x0 = 0;  // global column of the first cell
    std::int64_t y0 = 0;  // global row of the first cell
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> cells;

    CellGrid() = default;
    CellGrid(std::int64_t gx0, std::int64_t gy0, int w, int h)
        : x0(gx0), y0(gy0), width(w), height(h), cells(static_cast<std::size_t>(w) * h, 0) {}
    std::uint8_t& at(std::int64_t gx, std::int64_t gy) {
        return cells[static_cast<std::size_t>(gy - y0) * width + static_cast<std::size_t>(gx - x0)];
    }
    std::uint8_t at(std::int64_t gx, std::int64_t gy) const {
        return cells[static_cast<std::size_t>(gy - y0) * width + static_cast<std::size_t>(gx - x0)];
    }
};

/// How a generated layer looks.
enum class LayerStyle { Empty, Full, Sparse, Dense, Blobs, Roads };

/// Fills a layer over the block (and, with `apron` tiles, around it) in a style. Shapes cross
/// tile borders; tiles left with no cell set are removed, so some reads find no tile at all.
void fillLayer(MemoryLayers& layers, const TileBlock& block, int layer, LayerStyle style, std::mt19937_64& rng);

/// Fills every layer of the source over the block with a random mix of styles.
void fillRandom(MemoryLayers& layers, const TileBlock& block, std::mt19937_64& rng);

/// A terrain surface: the height in metres at a global cell corner (gx, gy) of the block's zoom.
using Surface = std::function<double(std::int64_t gx, std::int64_t gy)>;

/// Gives every tile of the block and of one tile of apron around it (clipped to the world)
/// heights from `surface` at its corners, computed from the global corner so that shared edges
/// are identical. Corners where the surface is NaN have no height.
void fillHeights(MemoryLayers& layers, const TileBlock& block, const Surface& surface);

/// A random rolling surface (sums of waves and per-corner jitter, slopes of 0 to about 70
/// degrees, heights of a few hundred metres), holes without height, and some tiles of the
/// block and its apron with no heights at all: for comparing relief with the reference.
void fillRandomHeights(MemoryLayers& layers, const TileBlock& block, std::mt19937_64& rng);

/// The reference: evaluates a parsed expression over the block's cells, cell by cell, reading
/// every layer cell through the source (absent tiles and rows beyond the poles are clear,
/// columns wrap around the world). Relief from each cell's corners through the source's
/// heights, by the definitions (mean, atan of the gradient in degrees, atan2 bearing). Slow and
/// obviously correct.
CellGrid naiveEvaluate(const core::algebra::ExpressionAst& ast, const core::LayerSource& source, const TileBlock& block,
                       int node = -1);

/// Evaluates the program for every tile of the block with LayerEvaluator and assembles the
/// result (tiles in the order given by `order`, or row-major when empty).
CellGrid fastEvaluate(const core::algebra::ExpressionAst& ast, const core::LayerSource& source, const TileBlock& block,
                      const std::vector<int>& order = {});

/// "" when equal, else where the first difference is (for assertion messages).
std::string firstDifference(const CellGrid& expected, const CellGrid& actual);

/// Parses against the source's names at the block's zoom and latitude 43.73 (Monaco); fails the
/// calling test with the diagnostic when the text does not compile.
core::algebra::ExpressionAst parseOrDie(const std::string& text, const core::LayerSource& source, int zoom = 17,
                                        std::uint64_t seed = 7);

}  // namespace terrabit::test
