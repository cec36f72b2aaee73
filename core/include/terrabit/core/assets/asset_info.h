#pragma once
/// AssetInfo: one model of the asset catalogue, as plain data. Placement reads it to match
/// models to footprints (footprint, height), to pick among them (category, tags, weight) and to
/// load the mesh (path).
///
/// Model conventions (every shipped model follows them; user models should):
/// - glTF 2.0 (binary .glb or .gltf) or Wavefront OBJ; Y up; one unit is one metre.
/// - The origin is the centre of the footprint on the ground: y = 0 is the ground, the model
///   stands on it (no part below), and its XZ bounding box is centred on (0, 0).
/// - The footprint's width runs along +X and its depth along +Z; the front (main door, façade)
///   faces +Z.
/// - Colours come from per-vertex colours (glTF COLOR_0, OBJ "v x y z r g b") multiplied by the
///   material's base colour (glTF baseColorFactor, OBJ Kd); textures are not read.

#include <array>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace terrabit::core {

/// The ground rectangle a model occupies, in metres, in the model's own axes.
struct AssetFootprint {
    double width = 0.0;  ///< extent along the model's +X axis, metres (> 0 when valid)
    double depth = 0.0;  ///< extent along the model's +Z axis, metres (> 0 when valid)
    friend bool operator==(const AssetFootprint&, const AssetFootprint&) = default;
};

/// One rectangle of a model's ground outline, in metres, in the model's own axes: x along the
/// footprint's width (+X), z along its depth (+Z), relative to the footprint's centre (the origin
/// of a model that follows the conventions above), like the footprint box itself. Valid when
/// x0 < x1 and z0 < z1.
struct OutlineRect {
    double x0 = 0.0;  ///< least x, metres
    double z0 = 0.0;  ///< least z, metres
    double x1 = 0.0;  ///< greatest x, metres
    double z1 = 0.0;  ///< greatest z, metres

    /// Ground area, square metres (0 when empty or inverted).
    double area() const { return x1 > x0 && z1 > z0 ? (x1 - x0) * (z1 - z0) : 0.0; }
    friend bool operator==(const OutlineRect&, const OutlineRect&) = default;
};

/// An axis-aligned 3-D box in model space (metres, Y up). Default-constructed it is empty.
struct ModelBounds {
    std::array<double, 3> min{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::infinity()};  ///< x, y, z minimum, metres
    std::array<double, 3> max{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity()};  ///< x, y, z maximum, metres

    /// True when no point was added.
    bool empty() const { return min[0] > max[0]; }
    /// Grows the box to hold the point (x, y, z), metres.
    void extend(double x, double y, double z) {
        const double p[3] = {x, y, z};
        for (int i = 0; i < 3; ++i) {
            if (p[i] < min[i]) min[i] = p[i];
            if (p[i] > max[i]) max[i] = p[i];
        }
    }
    /// Extent along axis 0 (X), 1 (Y) or 2 (Z), metres; 0 when empty.
    double size(int axis) const { return empty() ? 0.0 : max[axis] - min[axis]; }
};

/// One catalogue entry. A default-constructed value is valid (an empty, unnamed entry).
struct AssetInfo {
    std::string id;                 ///< unique name within the catalogue, e.g. "house_gabled"
    std::string file;               ///< model file as written in the catalogue (relative to it, or absolute)
    std::filesystem::path path;     ///< the model file resolved against the catalogue's folder
    std::string category;           ///< "building", "tree", "bush", "grass", "flower", or a user's own
    AssetFootprint footprint;       ///< ground rectangle, metres (from the catalogue or measured)
    double height = 0.0;            ///< top of the model above its base (Y extent), metres
    std::vector<std::string> tags;  ///< style tags in catalogue order: "residential", "ancient"…
    double weight = 1.0;            ///< relative chance among equally good choices, >= 0
    /// Where the model stands on the ground: the union of these rectangles (metres, model axes,
    /// each inside the footprint box). Empty means the whole footprint box, which is what a
    /// rectangular model occupies. Courtyard, L and U models list their wings here so placement
    /// can fit them into footprints that do not cover their whole box.
    std::vector<OutlineRect> outline;

    bool footprintMeasured = false;  ///< true when the footprint was computed from the mesh
    bool heightMeasured = false;     ///< true when the height was computed from the mesh
    bool outlineMeasured = false;    ///< true when the outline was computed from the mesh (empty: it is the box)
    /// The mesh's bounds (metres, model space) when the mesh was read while loading the
    /// catalogue (a measured value, or AssetCatalogueOptions::verifyModels); empty otherwise.
    ModelBounds bounds;
    int line = 0;  ///< 1-based line of the entry in its catalogue file; 0 when not from a file

    /// True when the entry carries the tag (exact, case-sensitive match).
    bool hasTag(std::string_view tag) const {
        for (const std::string& t : tags) {
            if (t == tag) return true;
        }
        return false;
    }
};

}  // namespace terrabit::core
