#pragma once
/// The manifest: a JSON record of a baked scene for pipelines and QA — every instance (asset
/// id, 4×4 transform, source feature id), every building's outcome, the statistics, the SHA-256
/// of the rules document and the seed. Object keys are sorted at every level and arrays keep the
/// Scene's (deterministic) order, so the same scene gives the same bytes.
///
/// Shape (a JSON object; one array element per line for "buildings" and "instances"):
///
///     assets        [catalogue id, …] as Scene::assets
///     buildings     [{asset (id or null), outcome ("placed", "no model fits", "blocked"),
///                     source (feature id or null), target {angle (radians ccw from east),
///                     centre [east, north] (ground metres), halfExtents [width/2, depth/2]
///                     (metres)}, tile (quadkey), transform (16 numbers, column-major, or
///                     null unless placed)}, …]
///     format        "terrabit-manifest"
///     frame         {axes, origin {lat, lon} (degrees), zoom, metresPerCell}
///     instanceCount total instances
///     instances     [{asset, block [x, y], source (or null), tile, transform [16]}, …]
///     rulesSha256   64 hex digits of the rules document given
///     seed          the scene seed (an unsigned 64-bit integer)
///     statistics    {buildingsBlocked, buildingsPlaced, buildingsUnmatched, instancesPerAsset
///                    {id: count}, requestedDensity, achievedDensity, vegetationCellsRequested,
///                    vegetationInstances}
///     tiles         [quadkey, …] as Scene::tiles
///     version       1
///
/// Transforms are T · Ry(yaw) · S in the scene frame (metres; x east, y up, z south), written
/// as the shortest decimals that read back to the same 32-bit floats.

#include <functional>
#include <string>
#include <string_view>

#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// The manifest's format version.
inline constexpr int kManifestVersion = 1;

/// Encodes the manifest. `rulesDocument` is the text of the rules the scene was baked with (its
/// SHA-256 is recorded, not the text). Errors: a scene whose indices or numbers are invalid
/// (see checkSceneForExport).
Result<std::string> encodeManifest(const Scene& scene, std::string_view rulesDocument);

/// Takes the manifest's text a piece at a time; a failure stops the writing and is returned.
using ManifestSink = std::function<Status(std::string_view piece)>;

/// encodeManifest's bytes handed to `sink` in pieces of about a megabyte as they are made, so a
/// scene of millions of instances is written without holding its manifest (hundreds of MB).
Status writeManifest(const Scene& scene, std::string_view rulesDocument, const ManifestSink& sink);

}  // namespace terrabit::core
