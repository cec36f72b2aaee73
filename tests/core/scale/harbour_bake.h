#pragma once
/// The bake the scale tests compare against: a 5 × 4-tile block of the bundled Monaco sample at
/// zoom 17 (the harbour, the Rock and the casino), seed 11, on two threads. Tests set the formats
/// and what they vary.

#include <filesystem>
#include <string>

#include "terrabit/cli/bake_command.h"
#include "terrabit/core/export/scene_export.h"

namespace terrabit::test {

inline terrabit::cli::BakeCommand harbourBake(const std::filesystem::path& out) {
    const std::string resources = TERRABIT_RESOURCES_DIR;
    terrabit::cli::BakeCommand c;
    c.input.file = resources + "/maps/monaco-2022-07-19.osm.pbf";
    c.input.rules = resources + "/rules/default.yaml";
    c.catalogue = resources + "/assets/catalogue.yaml";
    c.selection.zoom = 17;
    c.selection.bboxLonLat = core::Box2{{7.412, 43.728}, {7.432, 43.741}};
    c.outDir = out;
    c.seed = 11;
    c.threads = 2;
    return c;
}

}  // namespace terrabit::test
