#pragma once
/// LayerProgram: a layer expression compiled once into a flat list of steps that a
/// LayerEvaluator runs tile after tile.
///
/// What the compiler does: shares repeated subexpressions, folds constants (`x & all` is x,
/// `~~x` is x, `dilate(x, 0)` is x…), turns `~a & b` into one and-not, expands open, close and
/// edge into erosions and dilations, and cuts the expression at every morphology or shift:
/// the pure boolean parts between cuts stream over the tile in strips of rows (256-bit rows,
/// a few KiB of registers that stay in L1), and only the inputs of a morphology or shift are
/// materialised, over the tile plus the halo that the radii after them need. Layers read inside
/// a halo are gathered from the neighbouring tiles, so results across tile borders equal
/// evaluating the whole region at once.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/result.h"

namespace terrabit::core::algebra {

struct ProgramData;

class LayerProgram {
public:
    /// An empty program: every tile of any zoom evaluates to no cell. Allocates nothing.
    LayerProgram();
    ~LayerProgram();
    LayerProgram(const LayerProgram&);
    LayerProgram& operator=(const LayerProgram&);
    LayerProgram(LayerProgram&&) noexcept;
    LayerProgram& operator=(LayerProgram&&) noexcept;

    /// Parses, checks and compiles a document (see expression_ast.h for the language). On
    /// failure the Error's message is the diagnostic's text (message, line, caret) and
    /// *diagnostic, if given, holds it field by field. Never throws.
    static Result<LayerProgram> compile(std::string_view text, const std::vector<std::string>& layerNames,
                                        const ExpressionOptions& options = {},
                                        ExpressionDiagnostic* diagnostic = nullptr);
    /// Compiles an already parsed document; node is the node to compute (the document's root
    /// by default, or one of its definitions). Cannot fail.
    static LayerProgram compile(const ExpressionAst& ast, int node = -1);

    /// The zoom the program runs at (tiles of another zoom are refused); -1 for the empty program.
    int zoom() const;
    /// Size of the layer-name list the program was compiled against.
    int layerCount() const;
    /// Ids of the source layers the program reads, ascending.
    std::span<const int> layersRead() const;
    /// How far the program reads beyond its tile: rows north and south, cells east and west.
    int haloRows() const;
    int haloCells() const;
    /// Words of scratch an evaluator of this program holds (8 bytes each), fixed at compile time.
    std::size_t scratchWords() const;
    /// The compiled steps, one per line, for debugging and for the expression editor's
    /// "explain" view (e.g. "gather road halo 3x64", "dilate square r=3", "bool 4 ops 256x4").
    std::string listing() const;

    /// The compiled form, shared between copies (it is immutable once built).
    const ProgramData& data() const { return *mData; }

private:
    explicit LayerProgram(std::shared_ptr<const ProgramData> data);
    std::shared_ptr<const ProgramData> mData;
};

}  // namespace terrabit::core::algebra
