// What the pipeline tests share: the Monaco sample's files, a Session over them, and bake options.
// One definition here rather than one per test file, so that the files also build as one unity
// translation unit.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "manifest_writer_p.h"
#include "support/output_files.h"
#include "support/test_dems.h"
#include "terrabit/core/pipeline/session.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::test {

inline const std::filesystem::path kResources = TERRABIT_RESOURCES_DIR;
inline const std::filesystem::path kMonaco = kResources / "maps" / "monaco-2022-07-19.osm.pbf";
inline const std::filesystem::path kRules = kResources / "rules" / "default.yaml";
inline const std::filesystem::path kCatalogue = kResources / "assets" / "catalogue.yaml";
/// The sample's centre, Mercator metres.
inline const Vec2 kCentre = lonLatToMercator(kMonacoCentre);

/// The Monaco sample at zoom 17 with the default rules and catalogue, on two threads; with `dem`
/// when one is given.
inline pipeline::SessionInput monacoInput(const std::filesystem::path& dem = {}) {
    pipeline::SessionInput input;
    input.map.file = kMonaco;
    input.map.rules = kRules;
    input.tiles.zoom = 17;
    input.catalogueFile = kCatalogue;
    input.threads = 2;
    if (!dem.empty()) input.dems = {dem};
    return input;
}

/// The session `input` opens, or null after a failed expectation that says why.
inline std::unique_ptr<pipeline::Session> openOrFail(pipeline::SessionInput input) {
    auto session = pipeline::Session::open(std::move(input));
    EXPECT_TRUE(session.ok()) << session.message();
    return session.ok() ? std::move(*session) : nullptr;
}

inline placement::BakeOptions seeded(std::uint64_t seed, int threads = 2) {
    placement::BakeOptions options;
    options.seed = seed;
    options.threads = threads;
    return options;
}

/// The manifest of a scene baked with the default rules.
inline std::string manifestOf(const Scene& scene) {
    auto m = encodeManifest(scene, terrabit::test::readFile(kRules));
    EXPECT_TRUE(m.ok()) << m.message();
    return m.ok() ? *m : std::string();
}

}  // namespace terrabit::core::test
