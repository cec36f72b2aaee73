#pragma once
/// Project: what a designer saves as a `.terrabit` file — the map, the zoom, the selected tiles,
/// the rules (a file or the rules text itself), the rule edits made in the app, the derived
/// layers, the scene seed and the views. Plain data; the desktop app and `terrabit-cli render`
/// read it.
///
/// The file is JSON (UTF-8), for example:
///
///   {
///     "format": "terrabit-project",
///     "version": 1,
///     "map": "../maps/monaco-2022-07-19.osm.pbf",      // relative to the project file
///     "open_options": [],                              // GDAL open options, "KEY=VALUE"
///     "dem": ["../dem/srtm_38_04.tif"],                // elevation (raster DEMs), relative like "map"
///     "zoom": 17,
///     "tiles": ["1202230303022112", "1202230303022113"],  // selected quadkeys (the bake)
///     "rules_file": "../rules/default.yaml",            // or "rules_text": "<the YAML document>"
///     "rule_edits": [{"path": "passes.vegetation.density", "value": "0.08"}],
///     "expressions": [{"name": "green", "text": "vegetation - road", "colour": "#66bb6a"}],
///     "seed": 7,
///     "camera": {"target": [7.42, 43.73], "distance": 400, "heading": 30, "pitch": 45},
///     "map_view": {"centre": [7.42, 43.73], "metres_per_pixel": 2.5},
///     "overlay": "green",
///     "hidden_layers": ["road"],
///     "export": {"folder": "out", "formats": ["glb"], "plain_nodes": false}
///   }
///
/// Every key but "format" and "version" is optional (defaults below). Unknown keys are errors,
/// so a typo is reported rather than silently dropped. Errors read "<file>:<line>:<column>:
/// <what>" and point at the offending value. Paths are stored relative to the project file's
/// folder when they share a root, and loaded as absolute paths.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/geometry.h"
#include "terrabit/core/result.h"

namespace terrabit::core::project {

/// The `format` value every project file carries.
inline constexpr std::string_view kProjectFormat = "terrabit-project";
/// The file format version this code writes and reads.
inline constexpr int kProjectVersion = 1;
/// The file name extension of projects, with the dot.
inline constexpr std::string_view kProjectExtension = ".terrabit";

/// One edit of a placement rule made in the app, applied on top of the rules document in order.
/// `path` names the parameter ("passes.<pass>.<key>" or "passes.<pass>.classes.<class>.<key>";
/// see rule_edit.h), `value` is its new value as the rules YAML would write it ("0.08",
/// "[0.8, 1.3]", "vegetation - road", "{palm: 2, broadleaf_oak: 1}").
struct RuleEdit {
    std::string path;
    std::string value;
    friend bool operator==(const RuleEdit&, const RuleEdit&) = default;
};

/// A named derived layer made with the layer-expression editor.
struct DerivedLayer {
    std::string name;                ///< a layer name (rules/layer_name.h), unique among all layers
    std::string text;                ///< the layer expression (the algebra's language)
    std::string colour = "#ff9800";  ///< preview colour, "#rrggbb"
    friend bool operator==(const DerivedLayer&, const DerivedLayer&) = default;
};

/// The 3-D viewport's orbit camera.
struct Camera {
    LonLat target;          ///< the point orbited, degrees; (0, 0) with distance 0 means "fit the scene"
    double distance = 0.0;  ///< metres from the target; 0: fit the scene
    double heading = 0.0;   ///< degrees clockwise from north the camera looks towards
    double pitch = 45.0;    ///< degrees below the horizon the camera looks down, 5..89
    friend bool operator==(const Camera&, const Camera&) = default;
};

/// The 2-D map browser's view.
struct MapView {
    LonLat centre;                ///< the point in the middle of the view, degrees
    double metresPerPixel = 0.0;  ///< Web Mercator metres per screen pixel; 0: fit the map
    friend bool operator==(const MapView&, const MapView&) = default;
};

/// What the export dialog last used.
struct ExportSettings {
    std::filesystem::path folder;      ///< output folder (absolute once loaded); empty: ask
    std::vector<std::string> formats;  ///< format names ("glb", "3dtiles", …); empty: glb
    bool plainNodes = false;           ///< glb with one node per instance
    friend bool operator==(const ExportSettings&, const ExportSettings&) = default;
};

/// A project. A default-constructed one is valid: no map, zoom 17, nothing selected, default
/// rules, seed 0.
struct Project {
    std::filesystem::path map;             ///< the map file or vector-tile folder; empty: none yet
    std::vector<std::string> openOptions;  ///< GDAL open options, "KEY=VALUE"
    /// DEMs the map stands on (pipeline::SessionInput::dems); empty: the flat world. A raster
    /// file, or a tile set named with its encoding, `terrarium:PATH` / `terrain-rgb:PATH`
    /// (io::DemReader); the file says where PATH is relative to the project, the prefix kept.
    std::vector<std::filesystem::path> dems;
    int zoom = 17;                          ///< tile zoom, 0..30
    std::vector<std::string> tiles;         ///< selected tiles (quadkeys at `zoom`), in selection order
    std::filesystem::path rulesFile;        ///< rules document; empty with empty rulesText: the default rules
    std::string rulesText;                  ///< the rules document itself; wins over rulesFile when not empty
    std::vector<RuleEdit> ruleEdits;        ///< edits on top of the rules, in the order made
    std::vector<DerivedLayer> expressions;  ///< derived layers, in creation order
    std::uint64_t seed = 0;                 ///< scene seed
    Camera camera;
    MapView mapView;
    std::string overlay;                    ///< the layer shown as an overlay; empty: none
    std::vector<std::string> hiddenLayers;  ///< layers unticked in the layers panel
    ExportSettings exportSettings;

    friend bool operator==(const Project&, const Project&) = default;
};

/// A DEM entry split into its tile-set encoding prefix ("terrarium:" or "terrain-rgb:", with its
/// colon; "" for a raster file) and the path after it.
struct DemEntry {
    std::string encoding;
    std::filesystem::path path;
};
DemEntry splitDemEntry(const std::filesystem::path& dem);

/// Parses a project document. `sourceName` names it in errors; relative paths are resolved
/// against `baseDir` (the project file's folder). Errors: "<source>:<line>:<column>: <what>" for
/// bad JSON, a wrong type, an unknown key, a value out of range, a bad quadkey, a newer version.
Result<Project> parseProject(std::string_view json, std::string_view sourceName, const std::filesystem::path& baseDir);

/// Reads and parses a project file; the error names the file when it cannot be read.
Result<Project> loadProject(const std::filesystem::path& file);

/// The project as JSON text (2-space indented, keys in the order documented above, a final
/// newline). Paths are written relative to `baseDir` when possible. Deterministic.
std::string serializeProject(const Project& project, const std::filesystem::path& baseDir);

/// Writes the project atomically: a temporary file beside `file`, flushed to disk, then renamed
/// over it, so a crash leaves the old file or the new one, never a mix. The error names the file
/// and the OS reason.
Status saveProject(const Project& project, const std::filesystem::path& file);

}  // namespace terrabit::core::project
