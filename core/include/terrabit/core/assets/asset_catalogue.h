#pragma once
/// AssetCatalogue: the list of models placement can choose from, read from a hand-editable
/// YAML file (resources/assets/catalogue.yaml ships the default library). The format:
///
///     version: 1
///     assets:
///       - id: house_gabled            # unique name
///         file: models/house_gabled.glb   # .glb, .gltf or .obj, relative to this file
///         category: building          # building, tree, bush, grass, flower, or your own
///         footprint: {width: 8, depth: 10}  # metres along +X and +Z; optional
///         outline: [[-4, -5, 4, 1], [-4, 1, 0, 5]]  # [x0, z0, x1, z1] metres; optional
///         height: 8.6                 # metres; optional
///         tags: [residential, house]  # optional
///         weight: 1                   # optional, default 1, >= 0
///
/// A missing footprint or height is measured from the mesh (the X, Z and Y extents of the
/// bounding box over every node's transformed vertices). The outline (AssetInfo::outline: where
/// the model stands, as rectangles about the footprint's centre, each within the footprint box)
/// is optional: `[]` or no key means the whole box; without the key it is measured
/// (groundOutline, stretched to the footprint) whenever the mesh is read anyway — a size is
/// missing, or AssetCatalogueOptions::verifyModels. Errors name the file, the line and column,
/// the asset and the key.

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/assets/asset_info.h"
#include "terrabit/core/result.h"

namespace terrabit::core {

/// Which assets a query wants. An empty field does not filter.
struct AssetFilter {
    std::string category;               ///< exact category, or empty for any
    std::vector<std::string> allTags;   ///< the asset must carry every one of these
    std::vector<std::string> anyTags;   ///< the asset must carry at least one of these (if any given)
    std::vector<std::string> noneTags;  ///< the asset must carry none of these
};

/// How a catalogue is loaded.
struct AssetCatalogueOptions {
    /// Read every model file, not only those whose footprint or height is missing, so a corrupt
    /// file is reported at load time (and AssetInfo::bounds is filled for every entry).
    /// Costs one parse per model; the shipped library takes a few milliseconds.
    bool verifyModels = false;
};

class AssetCatalogue {
public:
    /// The current version of the file format (the `version:` key; absent means 1).
    static constexpr int kFormatVersion = 1;

    /// An empty catalogue.
    AssetCatalogue() = default;

    /// Reads a catalogue file. Model paths are resolved against the file's folder; every model
    /// file must exist. Errors: unreadable file, YAML syntax, unknown or duplicate keys, wrong
    /// value types, non-positive sizes, negative weight, duplicate ids, a missing model file, a
    /// model that cannot be measured — each with "file:line:column".
    static Result<AssetCatalogue> load(const std::filesystem::path& file, const AssetCatalogueOptions& options = {});

    /// Parses catalogue text. `sourceName` is the name errors give (usually the file path);
    /// relative model paths are resolved against `baseDir`.
    static Result<AssetCatalogue> parse(std::string_view yaml, const std::filesystem::path& baseDir,
                                        std::string_view sourceName, const AssetCatalogueOptions& options = {});

    /// Adds an entry built in code. Its footprint and height must already be positive, its
    /// outline's rectangles non-empty and within the footprint box; its id must be new. The
    /// error names the id and the bad field.
    Status add(AssetInfo info);

    /// Adds every entry of `other`. An entry whose id already exists replaces it in place (so a
    /// user catalogue can re-weight or re-tag a shipped model); new ids are appended in order.
    void merge(const AssetCatalogue& other);

    /// Every entry, in file order.
    std::span<const AssetInfo> assets() const { return mAssets; }
    /// Number of entries.
    std::size_t size() const { return mAssets.size(); }
    /// True when the catalogue has no entry.
    bool empty() const { return mAssets.empty(); }

    /// The entry with this id, or nullptr.
    const AssetInfo* find(std::string_view id) const;
    /// The entries of one category, in catalogue order; empty when there are none.
    std::vector<const AssetInfo*> ofCategory(std::string_view category) const;
    /// The entries matching a filter, in catalogue order.
    std::vector<const AssetInfo*> select(const AssetFilter& filter) const;
    /// The distinct categories, sorted.
    std::vector<std::string> categories() const;

    /// The catalogue as YAML in the format above, deterministic (same entries → same bytes),
    /// writing each entry's `file` as given. Measured values are written out too.
    std::string toYaml(std::string_view headerComment = {}) const;

private:
    std::vector<AssetInfo> mAssets;
};

}  // namespace terrabit::core
