#pragma once
// Preview pictures of catalogue models, for looking at the library: one PNG per model and a
// contact sheet of all of them. Renders offscreen with an OSG pbuffer, so it needs an X server
// (run under xvfb-run on a headless machine).

#include <filesystem>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/result.h"

namespace terrabit::assetgen {

/// How previews are drawn.
struct PreviewOptions {
    int cellSize = 320;  ///< width and height of one model's picture, pixels
    int columns = 6;     ///< models per row of the contact sheet
};

/// Renders every model of the catalogue from the front-right, above, lit by a sun, on a ground
/// square with a 1.8 m figure for scale and a label (id, footprint × height, triangles), into
/// `outDir`/<id>.png, and all of them into `outDir`/contact-sheet.png. Errors: no X server or no
/// pbuffer, a model that cannot be read, a file that cannot be written.
core::Status renderPreviews(const core::AssetCatalogue& catalogue, const std::filesystem::path& outDir,
                            const PreviewOptions& options = {});

}  // namespace terrabit::assetgen
