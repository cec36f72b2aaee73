#pragma once
// Builders and independent checks for the placement tests: synthetic maps given in ground
// metres, the Monaco sample through the real pipeline, a small catalogue made in code, and
// geometry references (separating-axis overlap of placed footprints) that do not use the code
// under test.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "terrabit/cli/map_commands.h"
#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/map/map_data.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/placement/scene_baker.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/scene/scene.h"
#include "terrabit/core/tiling/layer_store.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::test {

using namespace terrabit::core;

/// The tags of a plain house.
inline const std::vector<Tag> kHouse{{"building", "yes"}};

/// A map's layers ready to bake (map, rules, classified, index, store), as the CLI makes them.
using BakeInput = core::io::MapLayers;

/// Layers water, vegetation (forest, park, grass), road, building, and the given passes section.
std::string syntheticRules(const std::string& passes);
/// The default passes for synthetic maps: buildings (blocked by water), water, roads, vegetation.
std::string defaultSyntheticPasses();
/// `rules` with the road layer taking lines and areas tagged highway, at the widths (metres)
/// `values` gives by highway value (a YAML map, "{primary: 10, …}"), 3 m for any other.
std::string withRoadWidths(std::string rules, const std::string& values);

/// A synthetic map over tiles (zoom 17, x 68890 + 0..cols-1, y 47860 + 0..rows-1), with features
/// added in ground metres of the frame those tiles bake with.
class SyntheticMap {
public:
    SyntheticMap(int cols = 3, int rows = 3);

    const std::vector<TileId>& tiles() const { return mTiles; }
    const GroundFrame& frame() const { return mFrame; }

    /// An area from ground-metre rings (first ring outer).
    void area(const std::string& id, std::vector<Tag> tags, const std::vector<std::vector<Vec2>>& rings);
    /// A rectangle centred at c (ground metres), w × d metres, turned by angle radians.
    void rectangle(const std::string& id, std::vector<Tag> tags, Vec2 c, double w, double d, double angle = 0.0);
    /// A line of the given ground-metre points.
    void line(const std::string& id, std::vector<Tag> tags, const std::vector<Vec2>& points);
    /// A node with tags (an OSM point) at a ground-metre position.
    void point(const std::string& id, std::vector<Tag> tags, Vec2 at);

    /// Classifies, indexes and rasterizes the map with the rules document.
    std::unique_ptr<BakeInput> build(const std::string& rulesYaml) const;

private:
    std::vector<TileId> mTiles;
    GroundFrame mFrame;
    MapData mMap;
};

/// Building models (box_10x10, box_20x8, box_6x12, house_8x8, small_4x4, temple_8x8 tagged
/// ancient, tower_12x12 with weight 0) and vegetation (tree_a, tree_b, bush, grass).
AssetCatalogue testCatalogue();

/// The Monaco sample read with the default rules at zoom 17 (once per process).
const BakeInput& monaco();
/// The Monaco sample baked once per process with the default rules and default options (seed 0,
/// a thread per hardware thread), and the baker that holds its placed layers. The tests that read
/// it run in one process (placement.MonacoDefaultBake in CMakeLists.txt), so they share one bake.
struct MonacoDefaultBake {
    std::unique_ptr<placement::SceneBaker> baker;  ///< its layers() are the bake's
    Scene scene;
    bool ok = false;  ///< false when the rules or the bake failed (the first reader's test says why)
};
const MonacoDefaultBake& monacoDefaultBake();
/// The text of resources/rules/default.yaml.
const std::string& defaultRulesText();
/// The shipped catalogue (resources/assets/catalogue.yaml).
const AssetCatalogue& shippedCatalogue();

/// Parses the passes of a rules document against an input's layers; fails the test on error.
placement::PlacementRules parsePasses(const BakeInput& input, const std::string& rulesYaml);
/// Bakes with fresh state; fails the test on error.
Scene bakeOnce(const BakeInput& input, const AssetCatalogue& catalogue, const placement::PlacementRules& rules,
               const placement::BakeOptions& options = {});

/// The placed footprint of a building instance: the model's footprint rectangle turned by the
/// instance's yaw and scaled, corners in ground metres (east, north), counter-clockwise.
std::array<Vec2, 4> placedFootprint(const Instance& instance, const AssetInfo& asset);
/// The ground a building instance stands on: one quadrilateral per rectangle of the model's
/// ground outline (its footprint rectangle for a box model), turned, scaled and placed like
/// placedFootprint's.
std::vector<std::array<Vec2, 4>> placedOutline(const Instance& instance, const AssetInfo& asset);
/// Depth of overlap of two convex quadrilaterals by the separating-axis theorem: <= 0 when they
/// are disjoint or only touch, else the smallest penetration along their edge normals, metres.
double overlapDepth(const std::array<Vec2, 4>& a, const std::array<Vec2, 4>& b);
/// Pairs of placed buildings whose outlines (placedOutline) overlap by more than `tolerance`
/// metres, as text.
std::vector<std::string> overlappingBuildings(const Scene& scene, const AssetCatalogue& catalogue,
                                              double tolerance = 1e-6);

/// The global cell holding a scene position.
std::array<std::int64_t, 2> cellOf(const Scene& scene, Vec3f position);
/// Whether a global cell is set in a layer of a source.
bool layerAt(const LayerSource& source, int layer, int zoom, std::int64_t gx, std::int64_t gy);

}  // namespace terrabit::test
