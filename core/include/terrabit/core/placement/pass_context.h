#pragma once
/// What the placement passes of one bake share: the map, its layers, the catalogue, the rules,
/// the scene frame and seed, the tiles in processing order — and the small pieces every pass
/// needs: per-tile layer hashes for its cache keys, its expressions compiled, its report.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "terrabit/core/algebra/layer_program.h"
#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/placement/placement_layers.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/result.h"
#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::placement {

/// Hashes of layer tiles (BitTile::hash), computed once per bake in parallel and read by every
/// pass's cache keys. Safe to read from several threads once computed.
class LayerHashes {
public:
    /// (Re)computes the listed layers of the listed tiles from `source`. An absent or empty
    /// layer tile hashes to 0.
    void compute(const LayerSource& source, std::span<const TileId> tiles, std::span<const int> layers, int threads);
    /// The hash of a layer tile; 0 when it is empty or was never computed.
    std::uint64_t at(const TileId& tile, int layer) const;
    /// The listed layers over the tile and its 8 neighbours, folded into one hash.
    std::uint64_t neighbourhood(const TileId& tile, std::span<const int> layers) const;
    /// (Re)computes the hashes of the listed tiles' heights (LayerSource::heights): a tile
    /// without heights hashes to 0. Only bakes on terrain call it.
    void computeHeights(const LayerSource& source, std::span<const TileId> tiles, int threads);
    /// The height hashes of the tile and its 8 neighbours folded into one; the same constant for
    /// every tile when computeHeights was not called.
    std::uint64_t heightNeighbourhood(const TileId& tile) const;
    void clear() {
        mHashes.clear();
        mHeightHashes.clear();
    }

private:
    std::unordered_map<TileId, std::vector<std::uint64_t>> mHashes;  ///< per tile, per layer id
    std::unordered_map<TileId, std::uint64_t> mHeightHashes;         ///< per tile: its heights' hash
};

/// What a pass did in one bake.
struct PassReport {
    std::string name;
    PassKind kind = PassKind::Vegetation;
    std::size_t tilesRun = 0;     ///< tiles whose result was computed
    std::size_t tilesReused = 0;  ///< tiles whose cached result still held
    double milliseconds = 0.0;    ///< wall time of the pass
};

/// What every pass of one bake reads. Plain pointers: the baker owns everything.
struct PassContext {
    const TileIndex* index = nullptr;           ///< features and the baked tiles
    PlacementLayers* layers = nullptr;          ///< map layers + placed layers (passes write the latter)
    const AssetCatalogue* catalogue = nullptr;  ///< the models
    const PlacementRules* rules = nullptr;      ///< the passes and named expressions
    GroundFrame frame;                          ///< scene origin and zoom
    /// True when the bake stands on terrain: passes read LayerSource::heights through `layers`
    /// and place things at those heights less originHeight.
    bool terrain = false;
    double originHeight = 0.0;    ///< with terrain: the height above the DEM's datum of y = 0, metres
    std::uint64_t sceneSeed = 0;  ///< the bake's seed
    /// Hash of what every pass's result depends on besides its own rule and the layers it reads:
    /// the seed, the frame, the catalogue and the named expressions.
    std::uint64_t commonKey = 0;
    std::vector<TileId> order;  ///< the baked tiles in the order they are handed out (any order gives the same scene)
    /// True: the passes forget the cached results of tiles not baked this time (BakeOptions).
    bool forgetUnbaked = true;
    int threads = 1;  ///< worker threads, >= 1
    LayerHashes* hashes = nullptr;
    ProgressCallback progress;                     ///< called from the calling thread only
    std::vector<std::string>* warnings = nullptr;  ///< problems worth telling the user (they do not stop the bake)

    /// The key of one pass's random choices: scene seed, the pass's seed and its name.
    std::uint64_t passKey(const PassRule& pass) const;
    /// Compiles a pass expression (after the named expressions) at the frame's zoom and latitude,
    /// with random() and noise() keyed by passKey(pass). The error names the rules file, the
    /// pass and `key`.
    Result<algebra::LayerProgram> compile(const PassRule& pass, std::string_view key,
                                          std::string_view expression) const;
    /// The same expression parsed but not compiled (for what reads its shape, not its cells).
    Result<algebra::ExpressionAst> parse(const PassRule& pass, std::string_view key, std::string_view expression) const;
};

/// The 3 × 3 tiles around a tile (itself first, then row by row from the north-west); tiles
/// beyond the world's north or south edge are left out.
std::vector<TileId> neighbourhoodOf(const TileId& tile);

}  // namespace terrabit::core::placement
