#pragma once
/// ExpressionAst: a layer expression document parsed, checked and resolved — the language
/// designers type to make new bit layers from old ones (issue 4).
///
/// The language
/// ------------
/// A document is a sequence of statements separated by line breaks or ';'. A statement is a
/// named definition `name = expr` or a bare expression; only the last statement may be bare, and
/// the last statement is the result (a document ending in a definition yields that definition).
/// Definitions may use each other in any order; a cycle is an error. `#` starts a comment that
/// runs to the end of the line. Line breaks inside parentheses and after an operator continue
/// the expression.
///
/// Operators, lowest to highest precedence, all binary ones left-associative:
///     a | b    or
///     a ^ b    exclusive or
///     a & b    and
///     a - b    and-not (a & ~b)
///     ~a       not (prefix)
/// Operands: layer names (letters, digits and '_', starting with a letter or '_'; any other
/// name in double quotes: "building:part"), definition names, `all` (every cell), `none` (no
/// cell), parenthesised expressions and function calls:
///     dilate(x, r[, square|disk])   cells within r of x (square: Chebyshev distance, the
///                                   default; disk: Euclidean, dx² + dy² <= r²)
///     erode(x, r[, square|disk])    cells whose whole neighbourhood of radius r is in x
///     open(x, r[, e])               dilate(erode(x, r, e), r, e): removes specks thinner than 2r+1
///     close(x, r[, e])              erode(dilate(x, r, e), r, e): fills gaps narrower than 2r+1
///     edge(x)                       cells of x with one of their 8 neighbours outside x
///     shift(x, dx, dy)              x moved dx cells east and dy cells south (negative: west, north)
///     random(p[, seed])             each cell set with probability p (0..1), independently
///     noise(scale, threshold[, seed])  clumps about `scale` across covering about a `threshold`
///                                   fraction (0..1) of the ground
///     height(>480m[, <1800m])       cells whose height is above / below a height in metres
///     slope(>25deg[, <40deg])       cells steeper / less steep than an angle in degrees
///     aspect(dir[, within])         cells whose downhill direction is within `within` of `dir`
/// Distances (r, dx, dy, scale) are whole cells (`3`) or metres (`2m`, `2.5m`). Metres are
/// converted at ExpressionOptions::latitude and ::zoom and rounded to the nearest cell (scale
/// keeps its fraction). Radii are 0..kMaxRadius cells, shifts at most kMaxShift cells per axis.
/// Seeds are whole numbers 0..2^53; the same seed gives the same mask, another seed an
/// independent one, and random(p, s) for a smaller p is a subset of random(p', s) for a larger.
///
/// Cells outside the world's north and south edges read as clear; columns wrap around the
/// antimeridian, as TileId::neighbour does.
///
/// Relief: height, slope and aspect read the terrain heights of the source
/// (LayerSource::heights, a tile's 257 × 257 cell corners, terrain/height_tile.h).
///  - A cell's corners are its four samples h00 (north-west), h10 (north-east), h01 (south-west)
///    and h11 (south-east). A cell with a corner without height (kNoHeight) is in no relief
///    layer; a tile without heights (nullptr: no DEM, the flat world) has no cell in any.
///  - Its height is the mean of its corners, ((h00 + h10) + (h01 + h11)) / 4, in metres above the
///    DEM's datum.
///  - Its gradient is the bilinear surface's at the cell's centre: east (h10 - h00 + h11 - h01)
///    and south (h01 - h00 + h11 - h10), each over 2 × the cell's ground size, which is the
///    Mercator cell size times cos(latitude of the centres of the cell's row) (metresPerCell).
///    Its slope is atan(|gradient|), 0..90 degrees; its aspect the compass bearing of its downhill
///    direction (minus the gradient), clockwise from north. A cell with no gradient (flat) has no
///    aspect.
/// Arguments: a comparison is '>' or '<' and a number with its unit: heights in metres (`1800m`,
/// -11000..9000), angles in degrees (`25deg` or `25°`, slopes 0..90). height and slope take one
/// comparison, or one of each kind for a band (`slope(>10deg, <25deg)`); both are strict.
/// aspect's direction is N, NE, E, SE, S, SW, W or NW (or lower case), or a bearing (`135deg`,
/// 0..360); `within` is a half-width in degrees, above 0 and up to 180 (inclusive: a cell exactly
/// at the edge is in), 22.5deg by default (one point of the eight-point compass). Relief reads
/// each cell's own corners only, so it adds no reach; inside dilate or shift the cells of
/// neighbouring tiles read their own tile's heights.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/algebra/expression_diagnostic.h"
#include "terrabit/core/result.h"

namespace terrabit::core::algebra {

/// The largest dilate/erode/open/close radius, in cells.
inline constexpr int kMaxRadius = 64;
/// The largest shift along one axis, in cells (one tile).
inline constexpr int kMaxShift = 256;
/// The farthest a whole expression may read beyond its tile along one axis, in cells: the sum of
/// the radii and shifts along the deepest chain (open and close count their radius twice).
inline constexpr int kMaxReach = 256;
/// The deepest nesting of operations an expression may have (after substituting definitions).
inline constexpr int kMaxDepth = 256;

/// What a node computes.
enum class ExprOp : std::uint8_t {
    Layer,   ///< a layer of the source (ExprNode::layer)
    All,     ///< every cell
    None,    ///< no cell
    Not,     ///< ~a
    Or,      ///< a | b
    Xor,     ///< a ^ b
    And,     ///< a & b
    AndNot,  ///< a - b, that is a & ~b
    Dilate,  ///< dilate(a, radius, element)
    Erode,   ///< erode(a, radius, element)
    Open,    ///< open(a, radius, element)
    Close,   ///< close(a, radius, element)
    Edge,    ///< edge(a)
    Shift,   ///< shift(a, dx, dy)
    Random,  ///< random(probability, seed)
    Noise,   ///< noise(scaleCells, threshold, seed)
    Height,  ///< height(>above, <below): ExprNode::above and ::below in metres
    Slope,   ///< slope(>above, <below): ExprNode::above and ::below in degrees
    Aspect,  ///< aspect(direction, within): ExprNode::direction and ::within in degrees
};

/// The neighbourhood of a morphology operation.
enum class StructuringElement : std::uint8_t {
    Square,  ///< every cell with |dx| <= r and |dy| <= r
    Disk,    ///< every cell with dx² + dy² <= r²
};

/// One node of a resolved expression. Operands are indices of earlier nodes.
struct ExprNode {
    ExprOp op = ExprOp::None;
    int a = -1;      ///< first operand (node index), -1 when the op has none
    int b = -1;      ///< second operand of a binary op, -1 otherwise
    int layer = -1;  ///< Layer: the layer id (index into the source's layerNames())
    int radius = 0;  ///< Dilate/Erode/Open/Close: radius in cells, 0..kMaxRadius
    StructuringElement element = StructuringElement::Square;  ///< Dilate/Erode/Open/Close
    int dx = 0;                                               ///< Shift: cells east (negative: west), |dx| <= kMaxShift
    int dy = 0;                ///< Shift: cells south (negative: north), |dy| <= kMaxShift
    double probability = 0.0;  ///< Random: chance of each cell, 0..1
    double scaleCells = 0.0;   ///< Noise: feature size in cells, >= 1
    double threshold = 0.0;    ///< Noise: fraction of cells covered, 0..1
    std::uint64_t seed = 0;    ///< Random/Noise: the expression's seed argument (0 when omitted)
    /// Height (metres), Slope (degrees): a cell is in when its value is > above and < below; the
    /// bound not written is -infinity or +infinity.
    double above = -std::numeric_limits<double>::infinity();
    double below = std::numeric_limits<double>::infinity();
    double direction = 0.0;  ///< Aspect: bearing of the downhill direction, degrees 0..360 clockwise from north
    double within = 22.5;    ///< Aspect: half-width of the sector, degrees (0, 180]
    int offset = 0;          ///< where the node was written: byte offset into the text
    int length = 0;          ///< and its length in bytes
};

/// Conversions and seeds a document is compiled with.
struct ExpressionOptions {
    int zoom = 17;  ///< zoom of the tiles the expression runs on; metres are converted at it
    /// Latitude in degrees where metres become cells (the scene's centre). NaN (the default) makes
    /// any distance written in metres an error, since it would have no meaning.
    double latitude = std::numeric_limits<double>::quiet_NaN();
    std::uint64_t seed = 0;  ///< the scene seed: random() and noise() depend on it
};

/// A parsed, checked document: a DAG of nodes (definitions used twice are one subtree), children
/// stored before their parents.
struct ExpressionAst {
    /// A named definition and the node holding its value.
    struct Definition {
        std::string name;
        int node = -1;
    };

    std::vector<ExprNode> nodes;          ///< children before parents
    int root = -1;                        ///< the node of the result
    std::vector<Definition> definitions;  ///< in the order written
    ExpressionOptions options;            ///< what the document was compiled with
    int layerCount = 0;                   ///< size of the layer-name list it was resolved against

    /// Parses and checks a document against the source's layer names. Never throws; on failure
    /// returns an Error whose message is diagnostic->text(), and fills *diagnostic if given.
    /// Errors: bad syntax, unknown layer or function (with the closest known name), wrong argument
    /// count or type, a number out of range, a cycle of definitions (naming the chain), a
    /// definition that reuses a layer or keyword name or is defined twice, a bare expression that
    /// is not the last statement, an empty document, nesting deeper than kMaxDepth, reach beyond
    /// kMaxReach.
    static Result<ExpressionAst> parse(std::string_view text, const std::vector<std::string>& layerNames,
                                       const ExpressionOptions& options = {},
                                       ExpressionDiagnostic* diagnostic = nullptr);
};

}  // namespace terrabit::core::algebra
