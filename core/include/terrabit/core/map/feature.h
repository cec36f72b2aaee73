#pragma once
/// The plain feature model every map source is read into: a stable id, the geometry in EPSG:3857
/// metres as flat arrays (like the Rasterizer's PolygonView), a kind and all tags as text.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrabit/core/geometry.h"

namespace terrabit::core {

/// What a feature's geometry is, and so how it is drawn.
enum class FeatureKind : std::uint8_t {
    Point,  ///< one or more points (a tree, a well); drawn as disks
    Line,   ///< one or more polylines (a road, a stream); drawn with a width
    Area,   ///< one or more polygons with holes (a building, a park); filled
};

/// One tag (OSM) or attribute (any other format), as text. Numbers keep their text form.
struct Tag {
    std::string key;
    std::string value;
    friend bool operator==(const Tag&, const Tag&) = default;
};

/// A map feature. A default-constructed Feature is an empty point feature with no tags.
struct Feature {
    /// Stable id: for OpenStreetMap the element type and id ("n7", "w123456", "r42"); for any
    /// other source "<source layer>:<FID>" ("building:17").
    std::string id;
    /// The layer of the source file it came from ("multipolygons", "lines", "building"…).
    std::string sourceLayer;
    FeatureKind kind = FeatureKind::Point;
    /// Vertices in EPSG:3857 metres (x east, y north), all parts one after another.
    std::vector<Vec2> points;
    /// Where each part ends in `points` (exclusive): for an Area the ring ends (outer rings and
    /// holes alike; rings close implicitly, the first point is not repeated), for a Line the end
    /// of each polyline, for a Point one entry per point.
    std::vector<std::uint32_t> partEnds;
    /// Every tag or attribute the source gave, in source order; keys are unique.
    std::vector<Tag> tags;
    /// Bounds of `points` in EPSG:3857 metres; empty when there are no points.
    Box2 bounds;

    /// The value of a tag, or nothing when the feature does not have it.
    std::optional<std::string_view> tag(std::string_view key) const;
    /// A tag read as a number of metres: "12", "12.5", "12 m", "12m", "40 ft" / "40'" (converted);
    /// nothing when absent or not a number.
    std::optional<double> metresTag(std::string_view key) const;

    /// Number of parts (rings, polylines or points).
    std::size_t partCount() const { return partEnds.size(); }
    /// The vertices of part i (0 <= i < partCount()).
    std::span<const Vec2> part(std::size_t i) const {
        const std::uint32_t begin = i == 0 ? 0 : partEnds[i - 1];
        return std::span<const Vec2>(points).subspan(begin, partEnds[i] - begin);
    }
    /// Recomputes `bounds` from `points`.
    void updateBounds();
};

}  // namespace terrabit::core
