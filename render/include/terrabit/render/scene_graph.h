#pragma once
/// SceneGraph: a baked Scene as an OpenSceneGraph graph, updated in place when the scene changes.
///
///   root ─┬─ sun (LightSource, light 0)
///         ├─ tiles ── one Group per tile (named by quadkey)
///         │             ├─ ground: a quad textured with the layers in their colours (or a mask)
///         │             ├─ surfaces: one mesh per road/water patch (water below the ground)
///         │             └─ instances: one instanced draw per asset per block
///         ├─ heat overlay, tile grid, building highlight
///         └─ probes
///
/// Draw calls are about assets × non-empty blocks + tiles + surface patches, whatever the number
/// of instances. setScene() diffs the new scene against the graph by tile, block and patch, and
/// replaces only the sub-graphs whose content changed: re-baking one pass or one tile swaps only
/// its own nodes, and every other node stays the same object (pointer-identical), so a viewer
/// keeps its compiled GL objects. Not thread-safe: change the graph between frames (in a
/// viewer's update phase), never while it is being drawn.

#include <osg/BoundingBox>
#include <osg/Group>
#include <osg/LightSource>
#include <osg/ref_ptr>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/raster/layer_source.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/render/asset_model.h"
#include "terrabit/render/building_highlight.h"
#include "terrabit/render/ground_style.h"
#include "terrabit/render/heat_overlay.h"
#include "terrabit/render/lighting.h"
#include "terrabit/render/mask_tiles.h"
#include "terrabit/render/probe_visual.h"
#include "terrabit/render/tile_grid.h"

namespace terrabit::render {

/// Distance levels of detail, the viewport's (a picture or an export draws everything): the
/// distances from the eye, metres, within which instances are drawn as their models. Each
/// instanced block is an osg::LOD measured to the centre of its bounds; beyond `buildings` a
/// tile's prefab buildings are drawn as their models' boxes in one mesh per tile; beyond
/// `instances` other instances (plants, props) are drawn as their impostor cards
/// (AssetModel::impostor), beyond twice `instances` only a quarter of them (those whose
/// core::plantRank is below 0.25, as the 3D Tiles levels keep), and beyond four times
/// `instances` not at all. Generated buildings are one mesh per tile already and stay. 0 turns a
/// level off (models at every distance).
struct DistanceLod {
    double buildings = 0.0;
    double instances = 0.0;
};

/// Where a viewer looks from, for what a tile needs to hold (SceneGraph::setDetailView): memory
/// follows what the eye can see, not the selection. Within it a tile holds its full detail; far
/// off, what its levels draw there and nothing more:
///  - its ground image as many texels a side as the tile covers pixels across at most, seen
///    face on from its nearest point (a power of two, 16 to 256; a texture's own mipmaps would
///    draw no finer there);
///  - with distance levels, no instanced blocks once the eye lies beyond the farthest range any
///    of them draws at (DistanceLod: `buildings` for prefab models, four times `instances` for
///    plants and props), measured as the levels measure, to the tile's centre. The prefab
///    buildings' boxes and surfaces stay;
///  - with distance levels, generated buildings as blocks (core::GeneratedDetail::Block: their
///    outline's prism, no roof shape, no façades) once the eye lies beyond `buildings`, where
///    the prefabs beside them are boxes, and roads without their markings there. The surfaces
///    stay: a road a pixel wide still draws as a line, where the ground image's few texels
///    would average it away.
/// A tile coming nearer gets its detail back from the scene (the same nodes' content: a bake is
/// deterministic and the graph only draws it).
struct DetailView {
    osg::Vec3d eye;                ///< scene metres
    double pixelsPerRadian = 0.0;  ///< the viewport's height in pixels over its vertical field of view
};

/// What the graph shows and how.
struct SceneGraphOptions {
    bool ground = true;     ///< the textured ground quads
    bool surfaces = true;   ///< road and water meshes
    bool instances = true;  ///< buildings and vegetation
    GroundStyle style;      ///< the ground's layer colours
    /// When not empty, the ground shows this layer expression's cells in groundExpressionColour
    /// over the bare colour instead of the layers ("building | water", "dilate(road, 2m)").
    std::string groundExpression;
    core::Rgb groundExpressionColour{235, 200, 40};
    Lighting lighting;
    DistanceLod lod;
};

/// How many sub-graphs the last setScene/updateTile kept, added, replaced and removed (ground
/// quads, surface meshes, a tile's plinths and instanced blocks each count as one).
struct UpdateReport {
    std::size_t kept = 0;
    std::size_t added = 0;
    std::size_t replaced = 0;
    std::size_t removed = 0;
};

/// What the graph holds.
struct GraphCounts {
    std::size_t tiles = 0;
    std::size_t groundDrawables = 0;     ///< one per tile with ground (a tile all under the sea has none)
    std::size_t surfaceDrawables = 0;    ///< one per surface patch, and one more for its markings
    std::size_t plinthDrawables = 0;     ///< on terrain: the draw calls of tiles' plinths and bridge decks
    std::size_t generatedDrawables = 0;  ///< the draw calls of tiles' generated buildings (one mesh per tile)
    /// With DistanceLod::buildings: one per tile with prefab buildings, their boxes (drawn far off
    /// instead of the models, so never in the same frame as that tile's building blocks).
    std::size_t buildingBoxDrawables = 0;
    std::size_t instancedDrawables = 0;  ///< one per asset per non-empty block
    std::size_t instances = 0;           ///< instances those draw
    std::size_t groundTexels = 0;        ///< the texels of every ground image held
    std::size_t tilesHoldingBlocks = 0;  ///< tiles holding their instanced blocks (DetailView)
    std::size_t generatedTriangles = 0;  ///< the triangles of every tile's generated buildings held
    std::size_t overlayTexels = 0;       ///< the texels of the heat overlay's pictures
    /// Every drawable of the scene part (not overlays or probes): one draw call each.
    std::size_t drawables() const {
        return groundDrawables + surfaceDrawables + plinthDrawables + generatedDrawables + buildingBoxDrawables +
               instancedDrawables;
    }
};

class SceneGraph {
public:
    /// An empty graph (root, sun, empty groups). The catalogue names the models of the scene's
    /// asset ids; models load once through `models`. Both must outlive the graph.
    SceneGraph(const core::AssetCatalogue& catalogue, AssetModelCache& models, SceneGraphOptions options = {});
    ~SceneGraph();
    SceneGraph(const SceneGraph&) = delete;
    SceneGraph& operator=(const SceneGraph&) = delete;

    /// Makes the graph show `scene`, with ground colours read from `layers` (nullptr: bare
    /// ground). Sub-graphs whose content is unchanged stay as they are. A scene with another frame
    /// (origin or zoom) rebuilds everything. Errors (the graph is then unchanged): an asset id
    /// missing from the catalogue, a model that does not load (the message names the file), a
    /// ground expression that does not compile.
    core::Status setScene(const core::Scene& scene, const core::LayerSource* layers);

    /// Re-reads one tile from `scene` (its ground, surfaces and blocks) and leaves every other
    /// tile alone, even where `scene` differs from the graph there. A tile `scene` no longer
    /// holds is removed. Errors as setScene, and a scene whose frame differs from the graph's.
    core::Status updateTile(const core::Scene& scene, const core::LayerSource* layers, const core::TileId& tile);
    /// updateTile for several tiles at once (one pass over the scene for all of them): how a
    /// viewer brings a large scene in a slice of tiles at a time between frames.
    core::Status updateTiles(const core::Scene& scene, const core::LayerSource* layers,
                             std::span<const core::TileId> tiles);
    /// updateTiles for the leading tiles of `tiles`, in their order, until `deadline` has passed:
    /// how many it brought in (at least one; all of them when none is late). A viewer's slice
    /// then ends on time whatever its tiles cost: one dense tile takes as long as a hundred far
    /// ones. Errors as updateTiles, before any tile is touched.
    core::Result<std::size_t> updateTilesUntil(const core::Scene& scene, const core::LayerSource* layers,
                                               std::span<const core::TileId> tiles,
                                               std::chrono::steady_clock::time_point deadline);

    /// Sets where the eye is (DetailView); nullopt (the default, as for a picture or an export):
    /// every tile holds its full detail. Changes nothing by itself: the tiles tilesOutOfDetail()
    /// names take the detail the view asks for when next updated (updateTiles), and tiles that
    /// come in take it at once.
    void setDetailView(const std::optional<DetailView>& view) { mView = view; }
    /// The tiles whose held detail differs from what the view asks for, nearest the eye first; a
    /// little hysteresis keeps a tile on the edge of a level from being rebuilt back and forth.
    std::vector<core::TileId> tilesOutOfDetail() const;

    /// What the last setScene or updateTile did.
    const UpdateReport& lastUpdate() const { return mReport; }
    /// What the graph holds now.
    GraphCounts counts() const;
    /// The frame of the scene shown (default when none was set).
    const core::GroundFrame& frame() const { return mFrame; }
    /// The tiles shown, sorted.
    std::vector<core::TileId> tiles() const;
    const SceneGraphOptions& options() const { return mOptions; }

    /// The whole graph, to hand to a viewer or to writeSceneFile.
    osg::Group* root() const { return mRoot.get(); }
    /// The group of tile sub-graphs.
    osg::Group* tilesGroup() const { return mTilesGroup.get(); }
    /// A tile's group; nullptr when the graph does not show the tile.
    osg::Group* tileNode(const core::TileId& tile) const;
    /// A tile's ground quad; nullptr when none.
    osg::Node* groundNode(const core::TileId& tile) const;
    /// The mesh of a tile's surface patch of a layer ("road", "water"…); nullptr when none.
    osg::Node* surfaceNode(const core::TileId& tile, std::string_view layer) const;
    /// The instanced draw of an asset (catalogue id) in a block of a tile; nullptr when none.
    osg::Node* blockNode(const core::TileId& tile, int blockX, int blockY, std::string_view asset) const;

    /// The box holding every tile's ground and every instance, metres, scene frame; invalid when
    /// the graph is empty. Frame it with frameBox() for a home position.
    osg::BoundingBox bounds() const;

    /// Shows a layer or expression of `layers` as a translucent heat map over every tile (the
    /// expression is compiled at the scene's zoom, latitude and seed). Replaces any earlier
    /// overlay. The overlay shows the layers as they are now; set it again after they change.
    /// A tile where it shows nothing gets no quad; with a DetailView each tile's picture is as
    /// fine as its ground image, and follows it as the tile is re-detailed.
    core::Status setHeatOverlay(const core::LayerSource& layers, std::string_view expression,
                                const HeatOverlayStyle& style = {});
    void clearHeatOverlay();
    /// Shows or hides the tile grid with quadkey labels over the current tiles.
    void setTileGridVisible(bool visible, const TileGridStyle& style = {});
    /// Highlights a building record (e.g. one of Scene::buildings); nullptr clears. The model's
    /// box comes from the catalogue entry of the record's asset in the current scene.
    void setHighlight(const core::BuildingRecord* record, const HighlightStyle& style = {});
    /// Replaces the probe visuals.
    void setProbes(std::span<const ProbeVisual> probes, const ProbeStyle& style = {});
    /// The group holding the overlays (heat map, grid, highlight) and the one holding probes.
    osg::Group* overlaysGroup() const { return mOverlays.get(); }
    osg::Group* probesGroup() const { return mProbes.get(); }

private:
    struct Entry {
        osg::ref_ptr<osg::Node> node;
        std::uint64_t key = 0;  ///< fingerprint of what the node shows
        osg::BoundingBox box;
        std::size_t instances = 0;
    };
    struct BlockKey {
        int blockY = 0;
        int blockX = 0;
        std::string asset;
        friend auto operator<=>(const BlockKey&, const BlockKey&) = default;
    };
    struct TileEntry {
        osg::ref_ptr<osg::Group> group;
        osg::ref_ptr<osg::Group> surfaces;
        osg::ref_ptr<osg::Group> instances;
        Entry ground;
        Entry plinths;        ///< on terrain: the tile's plinths and bridge decks, one node
        Entry generated;      ///< the tile's generated buildings, one mesh
        Entry buildingBoxes;  ///< with DistanceLod::buildings: its prefab buildings' boxes, one mesh
        std::map<std::string, Entry, std::less<>> surfaceEntries;
        std::map<BlockKey, Entry> blocks;
        int groundSide = 0;        ///< texels a side of the ground image held (0: none)
        bool holdsBlocks = false;  ///< whether its instanced blocks are held (DetailView)
        bool hasBlocks = false;    ///< whether the scene gives it any (held or not)
        /// How its generated buildings are held (DetailView).
        core::GeneratedDetail generatedDetail = core::GeneratedDetail::Dressed;
        bool holdsMarkings = true;  ///< whether its road markings are held (DetailView)
        bool hasMarkings = false;   ///< whether the scene gives it any (held or not)
    };
    static constexpr int kFullGroundSide = 256;
    /// What a tile should hold: its ground image's side, and whether its instanced blocks.
    struct Detail {
        int groundSide = kFullGroundSide;
        bool blocks = true;
        core::GeneratedDetail generated = core::GeneratedDetail::Dressed;  ///< its generated buildings
        bool markings = true;                                              ///< its roads' markings
        friend bool operator==(const Detail&, const Detail&) = default;
    };
    /// The detail the view asks of a tile; `held` (a tile already built) adds the hysteresis.
    Detail detailOf(const core::TileId& tile, const TileEntry* held) const;
    struct TileInput;

    core::Status checkAssets(const core::Scene& scene);
    /// Brings `only` (every scene tile when empty) in, in that order, until `deadline`: how
    /// many of them it took.
    core::Result<std::size_t> syncTiles(
        const core::Scene& scene, const core::LayerSource* layers, std::span<const core::TileId> only,
        std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());
    void syncTile(const core::TileId& tile, const TileInput& input, const core::LayerSource* layers);
    void removeTile(std::map<core::TileId, TileEntry>::iterator it);
    /// Keeps a tile's one-mesh entry (its plinths, its generated buildings) whose content hashes
    /// to `key` (0: nothing to draw), or builds it anew with `make` under `name` and swaps it in.
    void syncTileMesh(osg::Group& group, Entry& entry, std::uint64_t key,
                      const std::function<osg::ref_ptr<osg::Node>()>& make, const std::string& name);
    void rebuildGrid();

    const core::AssetCatalogue* mCatalogue;
    AssetModelCache* mModels;
    SceneGraphOptions mOptions;
    core::GroundFrame mFrame;
    bool mHaveFrame = false;
    std::uint64_t mSeed = 0;
    std::vector<std::string> mAssets;  ///< the current scene's asset ids
    std::map<core::TileId, TileEntry> mTiles;
    /// Which of the last scene's lists keep north-to-south tile order (core::Scene does), so
    /// that a call for a few tiles finds their items by binary search. Worked out once per
    /// scene, known by its lists' addresses, sizes and end tiles: checking a country's million
    /// blocks on each of the viewport's thousands of calls cost more than the tiles they brought in.
    struct SceneOrder {
        std::array<const void*, 6> data{};
        std::array<std::size_t, 6> sizes{};
        std::array<core::TileId, 12> ends{};  ///< each list's first and last item's tile
        bool tiles = false, blocks = false, surfaces = false, plinths = false, generated = false, bridges = false;
    };
    SceneOrder mOrder;
    const SceneOrder& orderOf(const core::Scene& scene);
    UpdateReport mReport;
    std::optional<DetailView> mView;

    osg::ref_ptr<osg::Group> mRoot;
    osg::ref_ptr<osg::LightSource> mSun;
    osg::ref_ptr<osg::Group> mTilesGroup;
    osg::ref_ptr<osg::Group> mOverlays;
    osg::ref_ptr<osg::Group> mProbes;
    osg::ref_ptr<osg::StateSet> mInstancingState;
    osg::ref_ptr<osg::Group> mHeat;
    /// The heat overlay's masks and style, to redraw a tile's picture when its detail changes.
    MaskTiles mHeatMask;
    HeatOverlayStyle mHeatStyle;
    struct HeatQuad {
        osg::ref_ptr<osg::Node> node;  ///< nullptr: nothing shows on the tile
        int side = 0;                  ///< its picture's texels a side
    };
    std::map<core::TileId, HeatQuad> mHeatQuads;
    /// The tile's heat quad at its ground image's detail (replaced in mHeat).
    void syncHeatQuad(const core::TileId& tile);
    osg::ref_ptr<osg::Node> mGrid;
    osg::ref_ptr<osg::Node> mHighlight;
    bool mGridVisible = false;
    TileGridStyle mGridStyle;
};

}  // namespace terrabit::render
