#include "terrabit/core/assets/default_asset_library.h"

#include <cmath>
#include <fstream>
#include <system_error>

#include "default_models_p.h"
#include "terrabit/core/assets/glb_writer.h"
#include "terrabit/core/assets/ground_outline.h"

namespace terrabit::core {

namespace {

double roundMm(double v) { return std::round(v * 1000.0) / 1000.0; }

// Enforces the model conventions on a built mesh: footprint centred on the origin, standing on
// y = 0. Builders model in convenient coordinates; this makes the files exact.
void conform(AssetMesh& mesh) {
    // Offsets on MeshBuilder's grid keep every coordinate on it: recentring adds no
    // platform-dependent rounding.
    const ModelBounds b = mesh.bounds();
    const double dx = -snapToMeshGrid((b.min[0] + b.max[0]) * 0.5);
    const double dy = -snapToMeshGrid(b.min[1]);
    const double dz = -snapToMeshGrid((b.min[2] + b.max[2]) * 0.5);
    for (std::size_t i = 0; i < mesh.positions.size(); i += 3) {
        mesh.positions[i] = static_cast<float>(mesh.positions[i] + dx);
        mesh.positions[i + 1] = static_cast<float>(mesh.positions[i + 1] + dy);
        mesh.positions[i + 2] = static_cast<float>(mesh.positions[i + 2] + dz);
    }
}

}  // namespace

std::vector<DefaultAsset> buildDefaultAssetLibrary() {
    std::vector<detail::ModelRecipe> recipes = detail::buildDefaultBuildings();
    for (detail::ModelRecipe& r : detail::buildDefaultTownBuildings()) recipes.push_back(std::move(r));
    for (detail::ModelRecipe& r : detail::buildDefaultVegetation()) recipes.push_back(std::move(r));
    std::vector<DefaultAsset> out;
    out.reserve(recipes.size());
    for (detail::ModelRecipe& r : recipes) {
        DefaultAsset asset;
        conform(r.mesh);
        asset.info.id = r.id;
        asset.info.file = "models/" + r.id + ".glb";
        asset.info.path = asset.info.file;
        asset.info.category = r.category;
        asset.info.tags = std::move(r.tags);
        asset.info.weight = r.weight;
        const ModelBounds b = r.mesh.bounds();
        asset.info.footprint = {roundMm(b.size(0)), roundMm(b.size(2))};
        asset.info.height = roundMm(b.size(1));
        // Empty (not written) for the models that stand on their whole box; the L, U and
        // courtyard blocks and the roundest crowns (palm, oak, round bush) have one: the same
        // outline a catalogue measures when it reads the mesh.
        asset.info.outline = groundOutline(r.mesh);
        for (OutlineRect& o : asset.info.outline) o = {roundMm(o.x0), roundMm(o.z0), roundMm(o.x1), roundMm(o.z1)};
        asset.info.bounds = b;
        asset.mesh = std::move(r.mesh);
        out.push_back(std::move(asset));
    }
    return out;
}

AssetCatalogue defaultAssetCatalogue(const std::vector<DefaultAsset>& library) {
    AssetCatalogue catalogue;
    for (const DefaultAsset& a : library) {
        // The library's entries are valid by construction (positive measured sizes, unique
        // ids); a failure here is a programming error caught by the tests.
        [[maybe_unused]] const Status s = catalogue.add(a.info);
    }
    return catalogue;
}

std::string defaultCatalogueHeader() {
    return "Terrabit asset catalogue: the models placement chooses from.\n"
           "Written by terrabit-assetgen (app/assetgen) for the default library; edit freely or\n"
           "add your own glTF/GLB/OBJ models (see README.md in this folder for the conventions).\n"
           "Per asset: id, file (relative to this file), category, footprint {width (+X), depth (+Z)}\n"
           "in metres, outline (where the model stands when not its whole footprint box: rectangles\n"
           "[x0, z0, x1, z1] in metres about the footprint's centre), height in metres, style tags,\n"
           "weight. Leave out footprint or height to have them measured from the mesh.";
}

Status writeDefaultAssetLibrary(const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir / "models", ec);
    if (ec) return Error{"cannot create '" + (dir / "models").string() + "': " + ec.message()};
    const std::vector<DefaultAsset> library = buildDefaultAssetLibrary();
    for (const DefaultAsset& a : library) {
        GlbWriteOptions options;
        options.name = a.info.id;
        options.generator = "terrabit-assetgen";
        if (Status s = writeGlb(a.mesh, dir / a.info.file, options); !s) return s;
    }
    const std::filesystem::path catalogueFile = dir / "catalogue.yaml";
    std::ofstream out(catalogueFile, std::ios::binary | std::ios::trunc);
    if (!out) return Error{"cannot open '" + catalogueFile.string() + "' for writing"};
    out << defaultAssetCatalogue(library).toYaml(defaultCatalogueHeader());
    out.close();
    if (!out) return Error{"cannot write '" + catalogueFile.string() + "'"};
    return Status::success();
}

}  // namespace terrabit::core
