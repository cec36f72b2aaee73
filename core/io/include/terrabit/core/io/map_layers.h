#pragma once
/// A map read into layers: read (GDAL), classified by its rules, indexed per tile and
/// rasterized. The map loading of every front end (the CLI's commands, the desktop document,
/// the tests); errors carry their kind: rules and tile selection are bad arguments, an
/// unreadable map bad input, a stop asked for through the progress callback cancelled.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "terrabit/core/map/map_data.h"
#include "terrabit/core/progress.h"
#include "terrabit/core/result.h"
#include "terrabit/core/rules/classifier.h"
#include "terrabit/core/rules/rule_set.h"
#include "terrabit/core/tiling/layer_store.h"
#include "terrabit/core/tiling/tile_index.h"

namespace terrabit::core::io {

/// What every map command reads.
struct MapInput {
    std::filesystem::path file;            ///< map file or vector-tile folder
    std::filesystem::path rules;           ///< rules document (main fills in the default)
    std::vector<std::string> openOptions;  ///< GDAL open options, "KEY=VALUE"
    /// Keep what a truncated or partly unreadable map yields instead of failing
    /// (ReadOptions::allowPartial).
    bool allowPartial = false;
    /// The rules document itself, read by the caller (a project may carry its rules as text);
    /// wins over `rules` when not empty. `rulesName` names it in errors.
    std::string rulesText{};
    std::string rulesName{};
};

/// Which tiles to work on at a zoom.
struct TileSelection {
    int zoom = 17;
    /// Quadkeys; one shorter than `zoom` stands for all its descendants at `zoom`.
    std::vector<std::string> quadkeys;
    /// Longitude/latitude box (x = lon, y = lat): every tile it touches. Unset while it is
    /// Box2{}; any other value must be a box (finite, west ≤ east, south ≤ north, in range).
    Box2 bboxLonLat;
    bool hasBbox() const {
        const Box2 unset;
        return !(bboxLonLat.min == unset.min && bboxLonLat.max == unset.max);
    }
    /// More tiles than this is an error (protects against a typo in the zoom).
    std::size_t maxTiles = 65536;
};

/// Everything the pipeline made from one map: read, classified, indexed, rasterized.
/// Not movable: the later stages point into the earlier ones.
struct MapLayers {
    MapData map;
    RuleSet rules;
    ClassifiedMap classified;
    TileIndex index;
    LayerStore store;
    /// Milliseconds spent per stage.
    double readMs = 0, classifyMs = 0, indexMs = 0, rasterizeMs = 0;

    MapLayers() = default;
    MapLayers(const MapLayers&) = delete;
    MapLayers& operator=(const MapLayers&) = delete;
};

/// Reads `input`, classifies it by its rules and rasterizes the selected tiles (with no
/// quadkeys and no box: every tile some layer reaches, keeping only tiles with a set cell).
/// `threads` 0 means one per hardware thread. Progress stages: "reading", "rasterizing".
/// Fails when the rules are invalid, nothing usable was read, the selection is bad, or the job
/// was cancelled; warnings about the data are in map.warnings and classified.warnings.
Result<std::unique_ptr<MapLayers>> buildMapLayers(const MapInput& input, const TileSelection& selection, int threads,
                                                  const ProgressCallback& progress);

/// buildMapLayers without the rasterized tiles: the map read, classified and indexed over the
/// same tiles (with no quadkeys and no box, those with content, found by rasterizing a chunk of
/// tiles at a time and dropping it), `store` left empty. For a bake that rasterizes its tiles a
/// batch at a time, so a whole country's layers are never held at once.
Result<std::unique_ptr<MapLayers>> readMapIndex(const MapInput& input, const TileSelection& selection, int threads,
                                                const ProgressCallback& progress);

/// buildMapLayers and readMapIndex with the rules' layers already parsed from input's document
/// (the pipeline's Session parses them to check them before the map is read).
Result<std::unique_ptr<MapLayers>> buildMapLayers(const MapInput& input, RuleSet rules, const TileSelection& selection,
                                                  int threads, const ProgressCallback& progress);
Result<std::unique_ptr<MapLayers>> readMapIndex(const MapInput& input, RuleSet rules, const TileSelection& selection,
                                                int threads, const ProgressCallback& progress);

/// The first two stages alone: `input` read and classified by `rules` (loadRules), `index`
/// and `store` left empty. For what describes a whole map without choosing tiles (terrabit-cli
/// info): nothing is indexed or rasterized, so a country-sized file costs its read and no more,
/// and no zoom's tile limit applies. Progress stage: "reading".
Result<std::unique_ptr<MapLayers>> readClassifiedMap(const MapInput& input, RuleSet rules,
                                                     const ProgressCallback& progress);

/// A rules document's text and the name its messages use (its file, or MapInput::rulesName).
struct RulesDocument {
    std::string text;
    std::string name;
};

/// The rules document of `input`: its text, else its file's. A missing or unreadable one is a
/// bad argument (the rules are the user's choice, like an option).
Result<RulesDocument> readRulesDocument(const MapInput& input);

/// The rules document of `input` parsed; a broken one is a bad argument with the loader's
/// file:line:column message.
Result<RuleSet> loadRules(const MapInput& input);

/// The tiles a selection names (quadkeys expanded, box covered), sorted north to south; empty
/// when it names none. Errors name the bad quadkey or box.
Result<std::vector<TileId>> selectedTiles(const TileSelection& selection);

/// The zoom to suggest for data with this extent (EPSG:3857 metres): the one whose cells are
/// nearest 1 m on the ground at the extent's centre latitude, lowered until the extent needs at
/// most 4096 tiles; within 0..20.
int suggestedZoom(const Box2& extentMercator);

}  // namespace terrabit::core::io
