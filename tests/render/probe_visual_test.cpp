// Probe visuals: the shapes probe exactly as core's text probes do, the visual is green when
// clear and red when hit, every hit cell gets a quad, and outlines match the probed shape.

#include "terrabit/render/probe_visual.h"

#include <gtest/gtest.h>
#include <osg/Geode>
#include <osg/Geometry>

#include <random>
#include <set>

#include "probe_visual_p.h"
#include "render_test_support.h"

namespace terrabit::render {
namespace {

core::CollisionGrid syntheticGrid(const std::vector<core::TileId>& tiles, const core::LayerStore& layers) {
    auto grid = core::CollisionGrid::build(layers, tiles, layers.layerNames());
    EXPECT_TRUE(grid) << grid.message();
    return grid ? std::move(*grid) : core::CollisionGrid();
}

TEST(ProbeVisual, ShapesFromProbeLinesProbeAsCoreDoes) {
    const auto tiles = test::syntheticTiles(2, 2);
    const core::LayerStore layers = test::syntheticLayers(tiles, 21);
    core::CollisionGrid grid = syntheticGrid(tiles, layers);
    core::CollisionQuery query(grid);
    const core::LonLat nw = core::mercatorToLonLat(tiles[0].cellToMercator({20, 20}));
    const core::LonLat se = core::mercatorToLonLat(tiles[3].cellToMercator({236, 236}));
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> lon(nw.lon, se.lon), lat(se.lat, nw.lat), size(0.5, 30.0), angle(0, 180);
    int hits = 0;
    for (int i = 0; i < 300; ++i) {
        core::ProbeSpec spec;
        spec.shape = static_cast<core::ProbeSpec::Shape>(i % 6);
        for (auto& p : spec.at) p = {lon(rng), lat(rng)};
        spec.width = size(rng);
        spec.height = size(rng);
        spec.radius = size(rng) / 2;
        spec.angleDeg = angle(rng);
        const core::ProbeResult expected = core::runProbe(query, spec);
        std::vector<core::CellHit> cells;
        const core::ProbeResult got = runProbe(query, probeShapeFromSpec(spec, 17), core::kAllLayers, &cells);
        ASSERT_EQ(got.layers, expected.layers) << "probe " << i << " shape " << int(spec.shape);
        EXPECT_EQ(cells.empty(), !got.hit()) << "probe " << i;
        hits += got.hit();
    }
    EXPECT_GT(hits, 50);
    EXPECT_LT(hits, 290) << "some probes are clear";
}

TEST(ProbeVisual, GreenWhenClearRedWhenHitWithOneQuadPerHitCell) {
    const core::GroundFrame frame{{7.42, 43.73}, 17};
    ProbeVisual probe;
    probe.shape = ProbeShape::rectangle({{100, 100}, {104, 103}});
    ProbeStyle style;
    for (bool hit : {false, true}) {
        probe.hit = hit;
        probe.cells.clear();
        if (hit) probe.cells = {{100, 100, 1}, {101, 100, 1}, {103, 102, 2}};
        osg::ref_ptr<osg::Group> visual = makeProbeVisual(probe, frame, style);
        ASSERT_EQ(visual->getNumChildren(), hit ? 2u : 1u);
        const osg::Geode* shape = visual->getChild(visual->getNumChildren() - 1)->asGeode();
        const auto* fill = dynamic_cast<const osg::Vec4Array*>(shape->getDrawable(0)->asGeometry()->getColorArray());
        ASSERT_NE(fill, nullptr);
        EXPECT_EQ((*fill)[0], hit ? style.hitColour : style.clearColour);
        if (hit) {
            const osg::Geometry* cells = visual->getChild(0)->asGeode()->getDrawable(0)->asGeometry();
            EXPECT_EQ(cells->getVertexArray()->getNumElements(), probe.cells.size() * 6);
        }
    }
}

TEST(ProbeVisual, OutlineCornersLieInTheCellsTheProbeHits) {
    // A full layer: every cell the shape covers is hit, so each outline corner's neighbourhood
    // must be among the hits, and nothing far outside the outline's box may be.
    const auto tiles = test::syntheticTiles(1, 1);
    core::LayerStore layers({"solid"}, tiles);
    layers.store(0, std::vector<core::BitTile>{core::BitTile::full()});
    core::CollisionGrid grid = syntheticGrid(tiles, layers);
    core::CollisionQuery query(grid);
    const double x0 = 68890.0 * 256, y0 = 47860.0 * 256;
    const std::vector<ProbeShape> shapes = {
        ProbeShape::orientedRectangle({x0 + 100.3, y0 + 80.6}, {20.0, 6.0}, 0.6),
        ProbeShape::triangle({x0 + 10.5, y0 + 10.5}, {x0 + 60.2, y0 + 20.1}, {x0 + 30.7, y0 + 70.4}),
        ProbeShape::disk({x0 + 150.5, y0 + 150.5}, 12.3),
        ProbeShape::character({x0 + 200.2, y0 + 40.9}, core::Footprint::box({1.5, 2.5})),
    };
    for (const ProbeShape& shape : shapes) {
        std::vector<core::CellHit> hits;
        ASSERT_TRUE(runProbe(query, shape, core::kAllLayers, &hits).hit());
        std::set<std::pair<std::int64_t, std::int64_t>> hit;
        for (const auto& h : hits) hit.insert({h.x, h.y});
        core::Box2 box;
        for (const core::Vec2& p : shape.outline()) {
            box.extend(p);
            // A corner sits on a cell border at most: one of the (up to four) cells around it is hit.
            bool near = false;
            for (double dx : {-1e-6, 1e-6}) {
                for (double dy : {-1e-6, 1e-6}) {
                    near |= hit.count({static_cast<std::int64_t>(std::floor(p.x + dx)),
                                       static_cast<std::int64_t>(std::floor(p.y + dy))}) > 0;
                }
            }
            EXPECT_TRUE(near) << "outline corner " << p.x - x0 << "," << p.y - y0 << " of kind " << int(shape.kind);
        }
        for (const auto& [x, y] : hit) {
            EXPECT_TRUE(x + 1 > box.min.x && x < box.max.x && y + 1 > box.min.y && y < box.max.y)
                << "hit cell " << x - x0 << "," << y - y0 << " outside the outline of kind " << int(shape.kind);
        }
    }
}

}  // namespace
}  // namespace terrabit::render
