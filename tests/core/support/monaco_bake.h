#pragma once
/// Bakes of the bundled Monaco sample through the bake command, for tests that compare whole
/// outputs: a block of it at zoom 17 with the shipped rules and catalogue, on two threads. Tests
/// set the formats and what they vary.

#include <cstdint>
#include <filesystem>
#include <string>

#include "terrabit/cli/bake_command.h"
#include "terrabit/core/export/scene_export.h"

namespace terrabit::test {

/// The tiles of `bboxLonLat` at zoom 17 into `out`.
inline terrabit::cli::BakeCommand monacoBake(const std::filesystem::path& out, const core::Box2& bboxLonLat,
                                             std::uint64_t seed) {
    const std::string resources = TERRABIT_RESOURCES_DIR;
    terrabit::cli::BakeCommand c;
    c.input.file = resources + "/maps/monaco-2022-07-19.osm.pbf";
    c.input.rules = resources + "/rules/default.yaml";
    c.catalogue = resources + "/assets/catalogue.yaml";
    c.selection.zoom = 17;
    c.selection.bboxLonLat = bboxLonLat;
    c.outDir = out;
    c.seed = seed;
    c.threads = 2;
    return c;
}

/// The bake the scale tests compare against: a 5 × 4-tile block (the harbour, the Rock and the
/// casino), seed 11.
inline terrabit::cli::BakeCommand harbourBake(const std::filesystem::path& out) {
    return monacoBake(out, core::Box2{{7.412, 43.728}, {7.432, 43.741}}, 11);
}

}  // namespace terrabit::test
