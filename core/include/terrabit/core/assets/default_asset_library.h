#pragma once
/// The default model library Terrabit ships in resources/assets/: low-poly buildings (houses,
/// villas, apartment blocks including an L-shaped, a U-shaped and a courtyard block, an office tower, a
/// warehouse, a shop, a chapel, a round tower, a pagoda, a classical temple; and what towns are
/// made of besides: garages, a carport, sheds, a hut, a kiosk, a greenhouse, a substation, a
/// barn, factory, supermarket and sports halls, a slab block), dressed from the style kit
/// (style_kit.h), and vegetation
/// (conifers, broadleaf trees, a palm, bushes, grass, flowers), built procedurally with
/// MeshBuilder. terrabit-assetgen writes them; the build is deterministic, so running it again
/// reproduces the committed files byte for byte.

#include <filesystem>
#include <vector>

#include "terrabit/core/assets/asset_catalogue.h"
#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

/// One model of the library: its catalogue entry (file is "models/<id>.glb"; footprint, height
/// and ground outline (groundOutline, empty for the box-shaped) measured from the mesh and
/// rounded to millimetres) and its mesh.
struct DefaultAsset {
    AssetInfo info;
    AssetMesh mesh;
};

/// Builds every model of the default library, buildings first, in a fixed order.
std::vector<DefaultAsset> buildDefaultAssetLibrary();

/// The catalogue of the given library, as written to catalogue.yaml.
AssetCatalogue defaultAssetCatalogue(const std::vector<DefaultAsset>& library);

/// The header comment of the shipped catalogue.yaml.
std::string defaultCatalogueHeader();

/// Writes `dir`/models/<id>.glb for every model and `dir`/catalogue.yaml, creating folders as
/// needed. Errors name the file that could not be written.
Status writeDefaultAssetLibrary(const std::filesystem::path& dir);

}  // namespace terrabit::core
