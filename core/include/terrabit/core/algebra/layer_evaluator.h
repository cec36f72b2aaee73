#pragma once
/// LayerEvaluator: runs a LayerProgram on tiles. It owns the scratch the program needs (sized
/// once, at construction) and reuses it for every tile, so evaluating allocates nothing. Not
/// thread-safe: keep one evaluator per thread; the program itself may be shared.

#include <cstdint>
#include <memory>
#include <vector>

#include "terrabit/core/algebra/layer_program.h"
#include "terrabit/core/raster/bit_tile.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::algebra {

class LayerEvaluator {
public:
    /// An evaluator for a program; allocates its scratch (LayerProgram::scratchWords words).
    explicit LayerEvaluator(LayerProgram program);
    ~LayerEvaluator();
    LayerEvaluator(LayerEvaluator&&) noexcept;
    LayerEvaluator& operator=(LayerEvaluator&&) noexcept;
    LayerEvaluator(const LayerEvaluator&) = delete;
    LayerEvaluator& operator=(const LayerEvaluator&) = delete;

    const LayerProgram& program() const { return mProgram; }

    /// Computes the program's mask for one tile into out, reading the tile's layers and, for
    /// morphology and shifts, the rows of its neighbours that the program's halo covers. Missing
    /// tiles and tiles beyond the world's north and south edges read as clear. Allocates nothing
    /// on success. Fails (out untouched) when the tile's zoom is not the program's or the source
    /// has fewer layers than the program was compiled against.
    Status evaluate(const LayerSource& source, const TileId& tile, BitTile& out);

private:
    LayerProgram mProgram;
    std::unique_ptr<std::uint64_t[], void (*)(std::uint64_t*)> mScratch;
    std::vector<const std::uint64_t*> mLayerRows;  // per layer id: the tile's words (direct reads)
};

}  // namespace terrabit::core::algebra
