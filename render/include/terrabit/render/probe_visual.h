#pragma once
/// Probe visuals: a collision probe's shape drawn green when clear and red when it hits, with
/// the cells it hit highlighted, so QA sees what a probe touched.

#include <osg/Group>
#include <osg/Vec4>
#include <osg/ref_ptr>

#include <array>
#include <cstdint>
#include <vector>

#include "terrabit/core/collision/character_mover.h"
#include "terrabit/core/collision/collision_query.h"
#include "terrabit/core/collision/probe_spec.h"
#include "terrabit/core/tile/ground_frame.h"

namespace terrabit::render {

/// A probe's shape in global cell coordinates of the collision grid's zoom (x east, y south), as
/// CollisionQuery takes them.
struct ProbeShape {
    enum class Kind : std::uint8_t { Point, Segment, Triangle, Rectangle, OrientedRectangle, Disk, Character };
    Kind kind = Kind::Point;
    /// Point, Disk, OrientedRectangle, Character: points[0] is the position or centre. Segment:
    /// points[0..1]. Triangle: points[0..2]. Rectangle: points[0] min and points[1] max corner.
    std::array<core::Vec2, 3> points{};
    core::Vec2 halfExtents{0.5, 0.5};  ///< OrientedRectangle: half width (east) and depth, cells
    double angle = 0.0;                ///< OrientedRectangle: radians counter-clockwise, north up
    double radius = 0.5;               ///< Disk: cells
    core::Footprint footprint;         ///< Character: its box or disk, cells
    double heightMetres = 1.8;         ///< Character: drawn as a translucent prism this tall

    static ProbeShape point(core::Vec2 p) { return make(Kind::Point, {p, {}, {}}); }
    static ProbeShape segment(core::Vec2 a, core::Vec2 b) { return make(Kind::Segment, {a, b, {}}); }
    static ProbeShape triangle(core::Vec2 a, core::Vec2 b, core::Vec2 c) { return make(Kind::Triangle, {a, b, c}); }
    static ProbeShape rectangle(const core::Box2& box) { return make(Kind::Rectangle, {box.min, box.max, {}}); }
    static ProbeShape orientedRectangle(core::Vec2 centre, core::Vec2 halfExtents, double angle) {
        ProbeShape s = make(Kind::OrientedRectangle, {centre, {}, {}});
        s.halfExtents = halfExtents;
        s.angle = angle;
        return s;
    }
    static ProbeShape disk(core::Vec2 centre, double radius) {
        ProbeShape s = make(Kind::Disk, {centre, {}, {}});
        s.radius = radius;
        return s;
    }
    static ProbeShape character(core::Vec2 position, const core::Footprint& footprint, double heightMetres = 1.8) {
        ProbeShape s = make(Kind::Character, {position, {}, {}});
        s.footprint = footprint;
        s.heightMetres = heightMetres;
        return s;
    }

    /// The shape's outline in global cells, counter-clockwise seen with north up (disks as a
    /// 48-gon); a point gives its cell's square, a segment its two ends.
    std::vector<core::Vec2> outline() const;

private:
    static ProbeShape make(Kind kind, std::array<core::Vec2, 3> points) {
        ProbeShape s;
        s.kind = kind;
        s.points = points;
        return s;
    }
};

/// Runs the shape's probe (conservative coverage) and fills `hits` with the cells it hit. A
/// point probe reports its own cell when it hits.
core::ProbeResult runProbe(core::CollisionQuery& query, const ProbeShape& shape, std::uint64_t mask,
                           std::vector<core::CellHit>* hits);

/// What to draw: a shape, whether it hit, and the cells it hit.
struct ProbeVisual {
    ProbeShape shape;
    bool hit = false;
    std::vector<core::CellHit> cells;
};

struct ProbeStyle {
    osg::Vec4 clearColour{0.15f, 0.85f, 0.25f, 0.6f};  ///< the shape when nothing was hit
    osg::Vec4 hitColour{0.95f, 0.1f, 0.1f, 0.6f};      ///< the shape when something was hit
    osg::Vec4 cellColour{1.0f, 0.3f, 0.05f, 0.55f};    ///< each hit cell
    float heightMetres = 0.5f;                         ///< of the shape above the ground
};

/// The probe's shape (filled translucent, with an opaque outline; a character also as a prism of
/// its height) and one quad per hit cell, drawn over the scene so buildings never hide them.
/// Children: a Geode of hit cells (absent when none), then a Geode of the shape.
osg::ref_ptr<osg::Group> makeProbeVisual(const ProbeVisual& probe, const core::GroundFrame& frame,
                                         const ProbeStyle& style = {});

}  // namespace terrabit::render
