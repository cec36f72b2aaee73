#pragma once
/// Internal to core/export: what only the tests ask of manifest_writer.h (not API; the tests include it
/// from the source folder).

#include <string>
#include <string_view>

#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// Encodes the manifest. `rulesDocument` is the text of the rules the scene was baked with (its
/// SHA-256 is recorded, not the text). Errors: a scene whose indices or numbers are invalid
/// (see checkSceneForExport).
Result<std::string> encodeManifest(const Scene& scene, std::string_view rulesDocument);

}  // namespace terrabit::core
