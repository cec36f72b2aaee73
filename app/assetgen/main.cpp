// terrabit-assetgen: writes Terrabit's default model library (resources/assets) and renders
// previews of any catalogue. The models themselves are built in terrabit::core
// (default_asset_library.h) so tests can check them without running this program.
//
//   terrabit-assetgen --out resources/assets          regenerate the shipped library
//   terrabit-assetgen --stats --out DIR                also print a table of the models
//   xvfb-run -a terrabit-assetgen --catalogue resources/assets/catalogue.yaml --preview /tmp/asset-previews
//   terrabit-assetgen --textures /tmp/textures        the surface textures, as PNGs, to look at

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/assets/default_asset_library.h"
#include "terrabit/core/assets/ground_outline.h"
#include "terrabit/core/assets/surface_texture.h"

#ifdef TERRABIT_ASSETGEN_PREVIEW
#include "model_preview.h"
#endif

namespace {

void printStats() {
    const auto library = terrabit::core::buildDefaultAssetLibrary();
    std::printf("%-18s %-9s %9s %9s %8s %6s %6s %s\n", "id", "category", "width_m", "depth_m", "height_m", "tris",
                "verts", "outline");
    for (const auto& a : library) {
        std::printf("%-18s %-9s %9.2f %9.2f %8.2f %6zu %6zu", a.info.id.c_str(), a.info.category.c_str(),
                    a.info.footprint.width, a.info.footprint.depth, a.info.height, a.mesh.triangleCount(),
                    a.mesh.vertexCount());
        // The measured outline even where it is the box (boxShare 1), with its share of the box.
        terrabit::core::GroundOutlineOptions all;
        all.boxShare = 2.0;
        double area = 0.0;
        const auto outline = terrabit::core::groundOutline(a.mesh, all);
        for (const auto& r : outline) area += r.area();
        std::printf(" %zu rects, %.1f%% of the box%s\n", outline.size(),
                    100.0 * area / (a.info.footprint.width * a.info.footprint.depth),
                    a.info.outline.empty() ? "" : " (written)");
        for (const auto& r : a.info.outline) std::printf("    [%.3f, %.3f, %.3f, %.3f]\n", r.x0, r.z0, r.x1, r.z1);
    }
}

/// Writes <kind>.png for every surface texture, in the colours the default rules give its
/// surfaces (the exports make them in whatever colour a rule says).
terrabit::core::Status writeTextures(const std::filesystem::path& dir) {
    using terrabit::core::SurfaceTexture;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return terrabit::core::Error{"cannot create " + dir.string() + ": " + ec.message()};
    const std::pair<SurfaceTexture, std::array<std::uint8_t, 3>> kinds[] = {{SurfaceTexture::Asphalt, {95, 95, 95}},
                                                                            {SurfaceTexture::Paving, {176, 168, 156}},
                                                                            {SurfaceTexture::Gravel, {160, 148, 124}},
                                                                            {SurfaceTexture::Water, {59, 131, 189}}};
    for (const auto& [kind, colour] : kinds) {
        const auto png = terrabit::core::encodePng(terrabit::core::surfaceTexture(kind, colour));
        if (!png) return png.error();
        const auto file =
            dir / (std::string(terrabit::core::kSurfaceTextureWords[static_cast<std::size_t>(kind)]) + ".png");
        std::ofstream out(file, std::ios::binary);
        out.write(reinterpret_cast<const char*>(png->data()), static_cast<std::streamsize>(png->size()));
        if (!out) return terrabit::core::Error{"cannot write " + file.string()};
    }
    return terrabit::core::Status::success();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Writes Terrabit's default asset library and renders previews of asset catalogues."};
    std::string out;
    std::string catalogueFile;
    std::string previewDir;
    std::string texturesDir;
    bool stats = false;
    int cellSize = 320;
    app.add_option("--out", out, "Write the default library (models/*.glb and catalogue.yaml) into this folder");
    app.add_option("--catalogue", catalogueFile, "Catalogue to preview (default: the one --out writes)");
    app.add_option("--preview", previewDir, "Render <id>.png per model and contact-sheet.png into this folder");
    app.add_option("--cell", cellSize, "Preview picture size in pixels (default 320)")->check(CLI::Range(64, 2048));
    app.add_option("--textures", texturesDir,
                   "Write the surface textures (asphalt, paving, gravel, water) as PNGs here");
    app.add_flag("--stats", stats, "Print each default model's footprint, height and triangle count");
    CLI11_PARSE(app, argc, argv);
    if (out.empty() && previewDir.empty() && texturesDir.empty() && !stats) {
        std::cerr << app.help();
        return 2;
    }
    if (stats) printStats();
    if (!texturesDir.empty()) {
        if (terrabit::core::Status s = writeTextures(texturesDir); !s) {
            std::cerr << "terrabit-assetgen: " << s.message() << "\n";
            return 1;
        }
        std::cerr << "terrabit-assetgen: textures in " << texturesDir << "\n";
    }
    if (!out.empty()) {
        if (terrabit::core::Status s = terrabit::core::writeDefaultAssetLibrary(out); !s) {
            std::cerr << "terrabit-assetgen: " << s.message() << "\n";
            return 1;
        }
        std::cerr << "terrabit-assetgen: wrote the default library to " << out << "\n";
    }
    if (!previewDir.empty()) {
#ifdef TERRABIT_ASSETGEN_PREVIEW
        if (catalogueFile.empty() && !out.empty()) catalogueFile = out + "/catalogue.yaml";
        if (catalogueFile.empty()) {
            std::cerr << "terrabit-assetgen: --preview needs --catalogue FILE (or --out DIR)\n";
            return 2;
        }
        auto catalogue = terrabit::core::AssetCatalogue::load(catalogueFile);
        if (!catalogue) {
            std::cerr << "terrabit-assetgen: " << catalogue.message() << "\n";
            return 1;
        }
        if (terrabit::core::Status s = terrabit::assetgen::renderPreviews(*catalogue, previewDir, {cellSize, 6}); !s) {
            std::cerr << "terrabit-assetgen: " << s.message() << "\n";
            return 1;
        }
        std::cerr << "terrabit-assetgen: previews in " << previewDir << " (contact-sheet.png)\n";
#else
        std::cerr << "terrabit-assetgen: built without the render module; --preview is unavailable\n";
        return 2;
#endif
    }
    return 0;
}
