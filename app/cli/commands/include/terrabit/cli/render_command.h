#pragma once
/// `terrabit-cli render`: read a map, bake its scene, build the scene graph and draw it into a
/// PNG offscreen. main.cpp only parses arguments into a RenderCommand; tests call runRender.

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "terrabit/cli/exit_codes.h"
#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/progress.h"

namespace terrabit::cli {

struct RenderCommand {
    core::io::MapInput input;           ///< map file, rules (with their passes), GDAL options
    core::io::TileSelection selection;  ///< zoom and tiles (none named: every tile with content)
    int threads = 0;                    ///< read and bake threads; 0: one per core
    std::filesystem::path catalogue;    ///< asset catalogue (main fills in the shipped one)
    std::uint64_t seed = 0;             ///< the scene seed
    std::string camera = "top";         ///< "top", "oblique" or "AZIMUTH,ELEVATION" degrees
    std::string overlay;                ///< a layer or expression drawn as a heat map; empty: none
    int overlayRadius = 0;              ///< cells; 0 shows the overlay's cells, > 0 their density
    std::string ground;                 ///< an expression the ground shows instead of the layers
    bool grid = false;                  ///< draw the tile grid with quadkey labels
    int width = 1280;                   ///< image size, pixels
    int height = 800;
    std::filesystem::path out;        ///< the PNG to write
    std::filesystem::path sceneFile;  ///< also write the graph here (.osgb/.osgt) when set
    /// Elevation (core/io/dem_reader.h): the scene is baked and drawn on this ground.
    std::vector<std::filesystem::path> dems;
};

/// Opens the map in a pipeline::Session (PassNeed::Optional), bakes it with the rules' passes (a
/// rules document without passes renders ground and surfaces only, with a warning), builds the
/// SceneGraph, frames it from the chosen direction and renders it offscreen (needs an X server:
/// xvfb-run), then writes the PNG. Prints what was drawn on `out` (tiles, blocks, instances,
/// draw calls, timings); warnings and errors on `err`. Exit codes as the map commands: 0 done,
/// 1 nothing usable read, no GL context or an output not written, 2 bad arguments, rules,
/// catalogue or expression.
int runRender(const RenderCommand& command, std::ostream& out, std::ostream& err,
              const core::ProgressCallback& progress = {});

}  // namespace terrabit::cli
