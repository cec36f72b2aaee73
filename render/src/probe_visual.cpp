#include "terrabit/render/probe_visual.h"
#include "probe_visual_p.h"

#include <osg/Geode>
#include <osg/LineWidth>

#include <cmath>
#include <numbers>

#include "overlay_state_p.h"
#include "terrabit/render/tile_geometry.h"

namespace terrabit::render {

namespace {

std::vector<core::Vec2> circle(core::Vec2 c, double r) {
    constexpr int kSegments = 48;
    std::vector<core::Vec2> points;
    points.reserve(kSegments);
    // Counter-clockwise seen with north up is clockwise in cells, whose y points south.
    for (int i = 0; i < kSegments; ++i) {
        const double a = -2.0 * std::numbers::pi * i / kSegments;
        points.push_back({c.x + r * std::cos(a), c.y + r * std::sin(a)});
    }
    return points;
}

std::vector<core::Vec2> box(core::Vec2 min, core::Vec2 max) {
    // South-west, south-east, north-east, north-west (y grows south).
    return {{min.x, max.y}, {max.x, max.y}, {max.x, min.y}, {min.x, min.y}};
}

}  // namespace

std::vector<core::Vec2> ProbeShape::outline() const {
    const core::Vec2 c = points[0];
    switch (kind) {
        case Kind::Point: {
            const core::Vec2 cell{std::floor(c.x), std::floor(c.y)};
            return box(cell, cell + core::Vec2{1.0, 1.0});
        }
        case Kind::Segment:
            return {points[0], points[1]};
        case Kind::Triangle:
            // Counter-clockwise seen with north up: negative signed area in cells (y south).
            if (core::cross(points[1] - points[0], points[2] - points[0]) > 0.0)
                return {points[0], points[2], points[1]};
            return {points[0], points[1], points[2]};
        case Kind::Rectangle:
            return box(points[0], points[1]);
        case Kind::OrientedRectangle: {
            // Axes in cells: "east turned counter-clockwise by angle", with y pointing south.
            const core::Vec2 u{std::cos(angle) * halfExtents.x, -std::sin(angle) * halfExtents.x};
            const core::Vec2 v{-std::sin(angle) * halfExtents.y, -std::cos(angle) * halfExtents.y};
            return {c - u - v, c + u - v, c + u + v, c - u + v};
        }
        case Kind::Disk:
            return circle(c, radius);
        case Kind::Character:
            if (footprint.shape == core::Footprint::Shape::Disk) return circle(c, footprint.radius);
            return box(c - footprint.halfExtents, c + footprint.halfExtents);
    }
    return {};
}

ProbeShape probeShapeFromSpec(const core::ProbeSpec& spec, int zoom) {
    const core::GroundFrame frame{spec.at[0], zoom};
    const double cellsPerMetre = 1.0 / core::metresPerCell(spec.at[0].lat, zoom);
    const core::Vec2 p0 = frame.lonLatToCell(spec.at[0]);
    using Shape = core::ProbeSpec::Shape;
    switch (spec.shape) {
        case Shape::Point:
            return ProbeShape::point(p0);
        case Shape::Rect: {
            const core::Vec2 half{0.5 * spec.width * cellsPerMetre, 0.5 * spec.height * cellsPerMetre};
            return ProbeShape::rectangle({p0 - half, p0 + half});
        }
        case Shape::OrientedRect:
            return ProbeShape::orientedRectangle(p0,
                                                 {0.5 * spec.width * cellsPerMetre, 0.5 * spec.height * cellsPerMetre},
                                                 spec.angleDeg * std::numbers::pi / 180.0);
        case Shape::Disk:
            return ProbeShape::disk(p0, spec.radius * cellsPerMetre);
        case Shape::Segment:
            return ProbeShape::segment(p0, frame.lonLatToCell(spec.at[1]));
        case Shape::Triangle:
            return ProbeShape::triangle(p0, frame.lonLatToCell(spec.at[1]), frame.lonLatToCell(spec.at[2]));
    }
    return ProbeShape::point(p0);
}

core::ProbeResult runProbe(core::CollisionQuery& query, const ProbeShape& s, std::uint64_t mask,
                           std::vector<core::CellHit>* hits) {
    using Kind = ProbeShape::Kind;
    const core::Vec2 c = s.points[0];
    switch (s.kind) {
        case Kind::Point: {
            const core::ProbeResult r = query.point(c, mask);
            if (r.hit() && hits) {
                hits->push_back(
                    {static_cast<std::int64_t>(std::floor(c.x)), static_cast<std::int64_t>(std::floor(c.y)), r.layers});
            }
            return r;
        }
        case Kind::Segment:
            return query.segment(s.points[0], s.points[1], mask, hits);
        case Kind::Triangle:
            return query.triangle(s.points[0], s.points[1], s.points[2], mask, hits);
        case Kind::Rectangle:
            return query.rectangle({s.points[0], s.points[1]}, mask, hits);
        case Kind::OrientedRectangle:
            return query.orientedRectangle(c, s.halfExtents, s.angle, mask, hits);
        case Kind::Disk:
            return query.disk(c, s.radius, mask, hits);
        case Kind::Character:
            if (s.footprint.shape == core::Footprint::Shape::Disk) return query.disk(c, s.footprint.radius, mask, hits);
            return query.rectangle({c - s.footprint.halfExtents, c + s.footprint.halfExtents}, mask, hits);
    }
    return {};
}

osg::ref_ptr<osg::Group> makeProbeVisual(const ProbeVisual& probe, const core::GroundFrame& frame,
                                         const ProbeStyle& style) {
    osg::ref_ptr<osg::Group> group = new osg::Group;
    group->setName("probe");
    const double h = style.heightMetres;

    if (!probe.cells.empty()) {
        osg::ref_ptr<osg::Vec3Array> quads = new osg::Vec3Array;
        quads->reserve(probe.cells.size() * 6);
        for (const core::CellHit& cell : probe.cells) {
            const auto x = static_cast<double>(cell.x), y = static_cast<double>(cell.y);
            const osg::Vec3d sw = cellToScene(frame, {x, y + 1}, h * 0.8),
                             se = cellToScene(frame, {x + 1, y + 1}, h * 0.8);
            const osg::Vec3d ne = cellToScene(frame, {x + 1, y}, h * 0.8), nw = cellToScene(frame, {x, y}, h * 0.8);
            for (const osg::Vec3d& v : {sw, se, ne, sw, ne, nw}) quads->push_back(v);
        }
        osg::ref_ptr<osg::Geode> cells = new osg::Geode;
        cells->setName("hit cells");
        cells->addDrawable(
            detail::colouredGeometry(quads, style.cellColour, new osg::DrawArrays(GL_TRIANGLES, 0, quads->size())));
        detail::overlayState(*cells->getOrCreateStateSet(), detail::kProbeBin, true);
        group->addChild(cells);
    }

    const osg::Vec4 fill = probe.hit ? style.hitColour : style.clearColour;
    osg::Vec4 line = fill;
    line.a() = 1.0f;
    const std::vector<core::Vec2> outline = probe.shape.outline();
    osg::ref_ptr<osg::Geode> shape = new osg::Geode;
    shape->setName("probe shape");
    osg::ref_ptr<osg::Vec3Array> ring = new osg::Vec3Array;
    for (const core::Vec2& p : outline) ring->push_back(cellToScene(frame, p, h));
    const bool isLine = probe.shape.kind == ProbeShape::Kind::Segment;
    if (!isLine) {
        osg::ref_ptr<osg::Vec3Array> area = new osg::Vec3Array(*ring);
        shape->addDrawable(detail::colouredGeometry(area, fill, new osg::DrawArrays(GL_POLYGON, 0, area->size())));
    }
    shape->addDrawable(
        detail::colouredGeometry(ring, line, new osg::DrawArrays(isLine ? GL_LINES : GL_LINE_LOOP, 0, ring->size())));
    if (probe.shape.kind == ProbeShape::Kind::Character && probe.shape.heightMetres > 0.0) {
        // The body as a prism: its side walls as a quad strip around the footprint.
        osg::ref_ptr<osg::Vec3Array> walls = new osg::Vec3Array;
        for (std::size_t i = 0; i <= outline.size(); ++i) {
            const core::Vec2 p = outline[i % outline.size()];
            walls->push_back(cellToScene(frame, p, h));
            walls->push_back(cellToScene(frame, p, h + probe.shape.heightMetres));
        }
        osg::Vec4 body = fill;
        body.a() *= 0.6f;
        shape->addDrawable(detail::colouredGeometry(walls, body, new osg::DrawArrays(GL_QUAD_STRIP, 0, walls->size())));
    }
    shape->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2.5f), osg::StateAttribute::ON);
    detail::overlayState(*shape->getOrCreateStateSet(), detail::kProbeBin + 1, true);
    group->addChild(shape);
    return group;
}

}  // namespace terrabit::render
