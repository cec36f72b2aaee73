#pragma once
/// The manifest: a JSON record of a baked scene for pipelines and QA — every instance (asset
/// id, 4×4 transform, source feature id), every building's outcome, the statistics, the SHA-256
/// of the rules document and the seed. Object keys are sorted at every level and arrays keep the
/// Scene's (deterministic) order, so the same scene gives the same bytes.
///
/// Shape (a JSON object; one array element per line for "buildings" and "instances"):
///
///     assets        [catalogue id, …] as Scene::assets
///     buildings     [{asset (id or null), generated (when generated: {base (scene y, metres),
///                     outline [[east, north], …] (ground metres, counter-clockwise, not closed),
///                     courtyards [[[east, north], …], …] (only when it has any: its inner
///                     rings, clockwise, not closed), roofHeight, roofShape, wallHeight
///                     (metres)}), ground [min, max] (with
///                     terrain, when placed or generated on heights: metres above the DEM's datum
///                     under the footprint's cells), outcome ("placed", "generated", "no model
///                     fits", "blocked", "blocked: slope"), parts (when the footprint holds more
///                     than one prefab: [{asset, transform [16]}, …] after the first),
///                     source (feature id or null), target {angle (radians ccw from east),
///                     centre [east, north] (ground metres), halfExtents [width/2, depth/2]
///                     (metres)}, tile (quadkey), transform (16 numbers, column-major, of the
///                     first prefab, or null unless placed)}, …]
///     format        "terrabit-manifest"
///     frame         {axes, origin {lat, lon} (degrees), originHeight (with terrain only: metres
///                    above the DEM's datum that y = 0 stands for), zoom, metresPerCell}
///     instanceCount total instances
///     instances     [{asset, block [x, y], source (or null), tile, transform [16]}, …]
///     (with binary instances, instead of "instances": instanceBlocks, instanceFile and
///     instanceSources, the index of instances.bin — instance_file.h)
///     rulesSha256   64 hex digits of the rules document given
///     seed          the scene seed (an unsigned 64-bit integer)
///     statistics    {buildingsBlocked, buildingsGenerated, buildingsPlaced, buildingsUnmatched,
///                    footprintCells, footprintCellsCovered, footprintCoverage, placedCells,
///                    placedCellsOutside, placedOutsideShare, instancesPerAsset
///                    {id: count}, requestedDensity, achievedDensity, vegetationCellsRequested,
///                    vegetationInstances; with terrain also buildingsBlockedBySlope, minHeight and
///                    maxHeight (metres above the DEM's datum, null when no height)}
///
/// Without terrain (Scene::terrain false) none of the terrain keys is written: a flat bake's
/// manifest has the bytes it always had.
///     tiles         [quadkey, …] as Scene::tiles
///     version       1
///
/// Transforms are T · Ry(yaw) · S in the scene frame (metres; x east, y up, z south), written
/// as the shortest decimals that read back to the same 32-bit floats.

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "terrabit/core/export/instance_file.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// The manifest's format version.
inline constexpr int kManifestVersion = 1;

/// Takes the manifest's text a piece at a time; a failure stops the writing and is returned.
using ManifestSink = std::function<Status(std::string_view piece)>;

/// How a manifest holds its instances.
enum class InstanceEncoding : std::uint8_t {
    Auto,    ///< binary above a count of instances (ExportOptions::binaryInstancesAbove), else JSON
    Json,    ///< the "instances" array, a line per instance
    Binary,  ///< instances.bin beside the manifest, which holds its index (instance_file.h)
};

/// Instances above which InstanceEncoding::Auto writes them binary: a JSON line per instance
/// is ~200 bytes, so 200 MB of them; the Monaco sample (~15,500 at zoom 17) and every golden
/// bake (the largest, the Monaco region at zoom 16: 567,083) stay JSON, the Monaco region at
/// zoom 17 (2.2 million) is binary.
inline constexpr std::uint64_t kBinaryInstancesAbove = 1'000'000;

/// "auto", "json" or "binary". Errors: another name (the message lists the known ones).
Result<InstanceEncoding> parseInstanceEncoding(std::string_view name);

/// Whether `encoding` writes `instances` instances binary (Auto: more than `above`).
bool writesBinaryInstances(InstanceEncoding encoding, std::uint64_t instances, std::uint64_t above);

/// encodeManifest's bytes handed to `sink` in pieces of about a megabyte as they are made, so a
/// scene of millions of instances is written without holding its manifest (hundreds of MB).
/// With `instanceFile`, the instances go there as instances.bin (instance_file.h), written
/// first and a block at a time, and the manifest holds its index instead of "instances".
Status writeManifest(const Scene& scene, std::string_view rulesDocument, const ManifestSink& sink,
                     const ManifestSink* instanceFile = nullptr);

// The manifest's parts, for code that writes a manifest from something other than one Scene:
// `terrabit-cli merge` joins the manifests of a bake's shards through these, so the joined
// file has the bytes one bake of every tile would write.

/// The keys of the arrays written one element per line: "instances" and "buildings", or with
/// binary instances "buildings" and the index of instances.bin (instance_file.h).
inline constexpr std::string_view kManifestInstances = "instances";
inline constexpr std::string_view kManifestBuildings = "buildings";
inline constexpr std::array<std::string_view, 2> kJsonManifestLineArrays{kManifestInstances, kManifestBuildings};
inline constexpr std::array<std::string_view, 3> kBinaryManifestLineArrays{kManifestBuildings, kManifestInstanceBlocks,
                                                                           kManifestInstanceSources};

/// The numbers of a manifest's "statistics" (SceneStatistics, with instances per asset keyed by
/// asset id).
struct ManifestStatistics {
    std::uint64_t buildingsPlaced = 0;
    std::uint64_t buildingsBlocked = 0;
    std::uint64_t buildingsUnmatched = 0;
    std::uint64_t buildingsGenerated = 0;
    /// Footprint figures (SceneStatistics), written with their shares "footprintCoverage"
    /// (covered / footprint cells) and "placedOutsideShare" (outside / placed cells), null when
    /// the whole is 0.
    std::uint64_t footprintCells = 0;
    std::uint64_t footprintCellsCovered = 0;
    std::uint64_t placedCells = 0;
    std::uint64_t placedCellsOutside = 0;
    std::map<std::string, std::uint64_t> instancesPerAsset;  ///< by asset id
    std::uint64_t vegetationCellsRequested = 0;
    std::uint64_t vegetationInstances = 0;
    double requestedDensity = 0.0;  ///< instances per plantable cell asked for
    double achievedDensity = 0.0;   ///< instances per plantable cell placed
    /// True for a bake on terrain: the three below are written (and read back when present).
    bool terrain = false;
    std::uint64_t buildingsBlockedBySlope = 0;  ///< with terrain
    /// With terrain: the lowest and highest height of the scene tiles, metres above the DEM's
    /// datum; NaN (written null) where no sample had a height.
    double minHeight = std::numeric_limits<double>::quiet_NaN();
    double maxHeight = std::numeric_limits<double>::quiet_NaN();  ///< see minHeight
    /// With terrain: cells with a height and those steeper than SceneStatistics::kSteepDegrees;
    /// written with their share, "steepShare" (steep / with height, null when none has one).
    std::uint64_t cellsWithHeight = 0;
    std::uint64_t steepCells = 0;
    /// With terrain: the samples filled from a coarser DEM, inpainted, and with absurd values
    /// (SceneStatistics::heights…), written as "heightsFilledFromCoarser", "heightsInpainted",
    /// "heightsAbsurd" (read back as 0 from a manifest written before them).
    std::uint64_t heightsFilledFromCoarser = 0;
    std::uint64_t heightsInpainted = 0;
    std::uint64_t heightsAbsurd = 0;

    /// A scene's statistics.
    static ManifestStatistics of(const Scene& scene);
    /// The counts of a "statistics" value as the manifest holds it (the densities, which do not
    /// add up, are left 0). Errors: not JSON, a count missing or not an unsigned integer.
    static Result<ManifestStatistics> parse(std::string_view json);
    /// Adds another part's counts (not its densities); the height range is the union.
    void add(const ManifestStatistics& other);
    /// The "statistics" value: compact JSON, keys sorted.
    std::string encode() const;
};

/// A manifest's entries but its line arrays, by key, each value as the JSON text written.
using ManifestEntries = std::map<std::string, std::string>;

/// The values of the "assets" and "tiles" entries.
std::string manifestAssets(std::span<const std::string> assets);
std::string manifestTiles(std::span<const TileId> tiles);

/// Lays a manifest out: "{", then `  "key": value` for each entry and each of `lineArrays` in
/// key order, separated by ",\n", then "\n}\n", all through `write`. A line array's value is
/// written by `lineArray(key)`: "[]" when empty, else "[\n", its elements each on a line of their
/// own indented by four spaces and separated by ",\n", then "\n  ]".
Status writeManifestLayout(const ManifestEntries& entries, const std::function<Status(std::string_view)>& write,
                           const std::function<Status(std::string_view key)>& lineArray,
                           std::span<const std::string_view> lineArrays = kJsonManifestLineArrays);

/// The start of an "instances" line, the same for every instance of a block: `{"asset":` the
/// asset id's JSON, `,"block":[x,y],"source":`.
std::string instanceLineHead(std::string_view assetJson, int blockX, int blockY);
/// Appends the rest of the line after `head`: the source's JSON (or null), the tile's quadkey as
/// JSON, the transform (each float the shortest decimal that reads back as it), `}`.
void appendInstanceLineTail(std::string& line, std::string_view sourceJson, std::string_view quadkeyJson,
                            const std::array<float, 16>& transform);

/// Writes `elements` as a line array (see writeManifestLayout) through `write`.
Status writeLineArray(std::span<const std::string> elements, const std::function<Status(std::string_view)>& write);

}  // namespace terrabit::core
