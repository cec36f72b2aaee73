#pragma once
/// GroundGrading: the ground shaped by what lies on it (issue #18 Terrain). Roads follow the
/// terrain smoothed along their course with a bounded grade, a bridge keeps its deck between its
/// ends, lakes and reservoirs lie flat at the lowest height of their shore, rivers never climb
/// along their flow. The grading is made once for a whole map from the raw DEM heights and then
/// applied to any tile's heights, so the ground mesh, the draped road and water surfaces, the
/// plinths, the plants and the collision heights all follow one graded ground.
///
/// Profiles are global. Every road and bridge of the map is one graph whose nodes are the ways'
/// vertices (ways sharing a vertex share the node, so junctions agree) and points between them at
/// most one cell apart. A node's terrain height is the raw height at it, smoothed by a short
/// diffusion along the graph; the graded height is the midpoint of the largest and the smallest
/// functions that rise at most `maxRoadGrade` per metre along the graph and stay below / above
/// the smoothed heights (the McShane–Whitney envelopes: the grade-bounded profile nearest the
/// terrain in the largest deviation), kept within kMaxCutMetres of the terrain. So every step
/// along a road rises at most the grade bound times its length wherever a cut or fill of at
/// most kMaxCutMetres allows it; where the terrain stays steeper for longer, the road follows it
/// at that distance (a mapped road is rarely steeper than its DEM says for long). A bridge's interior nodes have no
/// terrain height (the valley under it is not its ground): its ends are graded with the network and its deck runs
/// linearly between them. Rivers are a directed graph along their ways' drawing order (OSM draws waterways downstream):
/// a node's height is the lowest terrain height of every node upstream of it, the height inside a lake being the lake's
/// level. A lake's level is the lowest raw height on its rings (vertices and points at most one cell apart).
///
/// Ways for feet (highway steps, footway, path, pedestrian, cycleway, bridleway…) follow the
/// ground as it is, but a footbridge keeps its deck like any bridge.
///
/// Applying it to a tile: a sample within a road's or river's half width of its centreline
/// takes the profile's height at the nearest point; beyond that an embankment blends it into
/// the raw terrain at kEmbankmentRun metres across per metre of height difference (at most
/// kMaxShoulderMetres); the nearest corridor wins where several reach. Samples inside a lake
/// take its level. Bridges change no sample: the ground under a bridge is the natural terrain.
/// Everything is computed from global cell coordinates, so two tiles give a shared edge sample
/// the same bits whatever the order or thread count.
///
/// What is left as it is: river areas (riverbanks, water=river) follow the raw terrain; the sea
/// is not graded; a sample with no raw height stays without one.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/result.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/terrain/height_tile.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::terrain {

/// The horizontal run of an embankment or cut per metre of height, metres (1.5: about 34°, under
/// the default walkability limit slope(>35deg), so a road's sides never count as steep).
inline constexpr double kEmbankmentRun = 1.5;
/// The widest embankment beside a road or river, metres; beyond a larger height difference the
/// side is steeper.
inline constexpr double kMaxShoulderMetres = 12.0;
/// The deepest cut or highest fill under a road, metres: how far its profile may leave the
/// (smoothed) terrain to keep its grade.
inline constexpr double kMaxCutMetres = 10.0;

/// What a graded feature is.
enum class GradedKind : std::uint8_t {
    Road,    ///< a highway line: graded along its course
    Bridge,  ///< a highway line tagged bridge: a deck between its graded ends
    River,   ///< a waterway line: downhill along its drawing order
    Lake,    ///< a lake or reservoir area: flat at its shore's lowest height
};

/// One feature that shapes the ground.
struct GradedFeature {
    GradedKind kind = GradedKind::Road;
    std::string id;                       ///< the source feature's id
    std::vector<Vec2> points;             ///< EPSG:3857 metres, parts one after another (as Feature)
    std::vector<std::uint32_t> partEnds;  ///< where each part ends in points (lines; lake rings)
    double widthMetres = 0.0;             ///< lines: the full width on the ground, metres; lakes: unused
    std::vector<std::string> layers;      ///< the layers (or classes) the map drew it in, in entry order
};

/// The features of a classified map that shape the ground, each once, in entry order: lines
/// tagged highway (not tunnels, nor ways for feet; bridge=* other than "no" makes a Bridge,
/// footbridges too), lines tagged waterway
/// river, canal, stream, brook, ditch or drain (not in a tunnel or culvert), and areas that are
/// lakes or reservoirs (natural=water unless water=river/stream/canal/riverbank/…,
/// landuse=reservoir/basin, water=lake/reservoir/pond). A line's width is its entry's.
std::vector<GradedFeature> gradedFeatures(const ClassifiedMap& map);

/// True for a way a bridge deck carries on terrain (a `highway` line tagged `bridge` other than
/// "no", not a tunnel): grading gives it a deck, and the real-shape road surface leaves it out
/// (the deck stands for it; draped, it would run down into the valley).
bool isBridgeWay(const Feature& feature);

/// The steepest road grade when nothing else is asked for (rise over run: 0.12 = 12 %): the
/// default of GradingOptions, of the surface passes' max_road_grade (PlacementRules'
/// SurfacePassRule and the rules schema's declaration, which rule_schema_test holds equal to it)
/// and the Session's grade without passes.
inline constexpr double kDefaultMaxRoadGrade = 0.12;

/// The grading's one rule.
struct GradingOptions {
    /// Rise over run along roads and bridges, ≥ 0 (the rules' surface passes' max_road_grade,
    /// core/placement/rule_schema.h).
    double maxRoadGrade = kDefaultMaxRoadGrade;
};

/// A bridge's deck: its centreline and the deck's height along it.
struct BridgeProfile {
    std::string id;                   ///< the source feature's id
    std::vector<std::string> layers;  ///< its feature's layers (GradedFeature::layers)
    std::vector<Vec2> cells;          ///< the centreline, global cells at the grading's zoom (x east, y south)
    std::vector<float> heights;       ///< the deck's top at each point, metres above the DEM's datum
    double widthMetres = 0.0;         ///< the deck's width, metres
    double metresPerCell = 1.0;       ///< ground metres per cell at the bridge
};

/// The raw ground height at a point in global cells at the grading's zoom, metres; NaN where
/// there is none. Errors (a DEM that can no longer be read) stop the build.
using HeightSampler = std::function<Result<float>(Vec2 globalCell)>;

/// What GroundGrading::apply needs between calls; one per thread, reused: no allocation after
/// the first tile.
struct GradingScratch {
    std::vector<float> key;         ///< per sample, the distance beyond the nearest corridor, metres
    std::vector<float> target;      ///< per sample, the profile height there, metres
    std::vector<double> crossings;  ///< a lake row's edge crossings, global cells
};

/// Figures of a grading.
struct GradingStats {
    std::size_t roadNodes = 0;   ///< nodes of the road graph
    std::size_t riverNodes = 0;  ///< nodes of the river graph
    std::size_t segments = 0;    ///< corridor segments (roads and rivers)
    std::size_t lakes = 0;
    std::size_t bridges = 0;
};

class GroundGrading {
public:
    /// No grading: apply() changes nothing.
    GroundGrading() = default;

    /// Grades `features` at `zoom` on the raw heights `raw`. Errors: the sampler's; a grade that
    /// is not a finite number ≥ 0 (BadArguments).
    static Result<GroundGrading> build(std::span<const GradedFeature> features, int zoom, GradingOptions options,
                                       const HeightSampler& raw);

    /// Grades one tile's heights in place: `heights` holds the raw samples of heights.tile on
    /// entry and the graded ones on return. Thread-safe (const) with one scratch per thread.
    void apply(HeightTile& heights, GradingScratch& scratch) const;

    /// The bridges' decks, in feature order (a way of several parts gives one per part).
    const std::vector<BridgeProfile>& bridges() const { return mBridges; }
    /// What stands on a bridge: a copy of the ground (apply's) with the bridges' decks stamped
    /// in. A sample within half a deck's width of its centreline takes the deck's height at the
    /// nearest centreline point (the nearest deck where several reach). The collision grid
    /// stands on this; the ground mesh keeps the valley under the deck. From global cell
    /// coordinates, so shared edges agree. Returns true when a sample changed.
    bool applyDecks(HeightTile& heights) const;
    /// True when nothing is graded (no feature, or none with a height).
    bool empty() const { return mSegments.empty() && mLakes.empty() && mBridges.empty(); }
    const GradingStats& stats() const { return mStats; }
    int zoom() const { return mZoom; }

    /// A corridor piece: the centreline from a to b (global cells), its profile heights at both
    /// ends, its half width. Public for the tests that check profiles.
    struct Segment {
        Vec2 a, b;
        float ha = 0.0F, hb = 0.0F;  ///< metres above the datum
        float halfWidthMetres = 0.0F;
        float metresPerCell = 1.0F;  ///< ground metres per cell at the feature
        bool road = true;            ///< false: a river
    };
    /// Every corridor segment, roads first then rivers, in feature order.
    const std::vector<Segment>& segments() const { return mSegments; }
    /// A lake: its rings in global cells and its level.
    struct Lake {
        std::vector<Vec2> cells;
        std::vector<std::uint32_t> ringEnds;
        float level = 0.0F;  ///< metres above the datum
        Box2 bounds;         ///< of cells
    };
    const std::vector<Lake>& lakes() const { return mLakes; }

private:
    struct Builder;  ///< build()'s phases (ground_grading.cpp)
    int mZoom = 0;
    std::vector<Segment> mSegments;
    std::vector<Lake> mLakes;
    std::vector<BridgeProfile> mBridges;
    /// Per tile the segments and lakes that may reach its samples, in index order.
    std::unordered_map<TileId, std::vector<std::uint32_t>> mSegmentsOf;
    std::unordered_map<TileId, std::vector<std::uint32_t>> mLakesOf;
    GradingStats mStats;
};

}  // namespace terrabit::core::terrain
