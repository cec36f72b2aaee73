#pragma once
/// The benchmarks' maps: read, classified and rasterized with the shipped default rules, as every
/// front end loads them (io::buildMapLayers); a map that cannot be read ends the program, naming it.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "terrabit/core/io/map_layers.h"

namespace terrabit::bench {

/// resources/rules/default.yaml.
inline std::string defaultRulesFile() { return std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml"; }

/// The map at `path`, every tile with content at `zoom`, under the default rules.
inline std::unique_ptr<core::io::MapLayers> loadBenchMap(const std::string& path, int zoom = 17) {
    core::io::MapInput input;
    input.file = path;
    input.rules = defaultRulesFile();
    core::io::TileSelection selection;
    selection.zoom = zoom;
    auto layers = core::io::buildMapLayers(input, selection, 0, {});
    if (!layers) {
        std::fprintf(stderr, "%s: %s\n", path.c_str(), layers.message().c_str());
        std::exit(1);
    }
    return std::move(*layers);
}

}  // namespace terrabit::bench
