// Buildings that fill their footprints (#19): synthetic footprints (an L, a U, a courtyard ring, a
// 3 × 5 m garage, a 120 × 60 m hall, a sliver) each get what the rules say; on the bundled Monaco
// every placed model lies within its footprint up to the tolerance and off every road and water
// polygon the footprint does not cover (exact outlines through GEOS, up to one cell of
// rasterization); and the coverage and spill figures, counted from the layers, meet the goals.

#include <geos_c.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "placement_test_support.h"

namespace terrabit::test {
namespace {

using namespace core;
using namespace core::placement;

// -- GEOS in global cells ---------------------------------------------------------------------------

GEOSContextHandle_t geos() {
    static GEOSContextHandle_t ctx = GEOS_init_r();
    return ctx;
}

struct GeomDeleter {
    void operator()(GEOSGeometry* g) const {
        if (g) GEOSGeom_destroy_r(geos(), g);
    }
};
using Geom = std::unique_ptr<GEOSGeometry, GeomDeleter>;

GEOSGeometry* ringOf(std::span<const Vec2> points) {
    GEOSCoordSequence* seq = GEOSCoordSeq_create_r(geos(), static_cast<unsigned>(points.size() + 1), 2);
    for (std::size_t i = 0; i <= points.size(); ++i) {
        const Vec2 p = points[i % points.size()];
        GEOSCoordSeq_setXY_r(geos(), seq, static_cast<unsigned>(i), p.x, p.y);
    }
    return GEOSGeom_createLinearRing_r(geos(), seq);
}

/// A polygon from rings (the first outer), made valid.
Geom polygonOf(const std::vector<std::vector<Vec2>>& rings) {
    GEOSGeometry* shell = ringOf(rings[0]);
    std::vector<GEOSGeometry*> holes;
    for (std::size_t r = 1; r < rings.size(); ++r) holes.push_back(ringOf(rings[r]));
    Geom raw(GEOSGeom_createPolygon_r(geos(), shell, holes.data(), static_cast<unsigned>(holes.size())));
    return Geom(GEOSMakeValid_r(geos(), raw.get()));
}

double areaOf(const GEOSGeometry* g) {
    double a = 0.0;
    GEOSArea_r(geos(), g, &a);
    return a;
}

/// An index entry's shape in global cells: an area's rings as a polygon (even-odd rings are
/// holes), a line buffered by its half width.
Geom entryShape(const TileIndex& index, std::uint32_t e) {
    const std::span<const Vec2> cells = index.cells(e);
    const std::span<const std::uint32_t> ends = index.partEnds(e);
    if (index.kind(e) == FeatureKind::Area) {
        Geom all;
        std::uint32_t begin = 0;
        for (const std::uint32_t end : ends) {
            if (end - begin >= 3) {
                Geom ring = polygonOf({std::vector<Vec2>(cells.begin() + begin, cells.begin() + end)});
                // Even-odd: a ring inside another is a hole, so XOR the rings.
                all = all ? Geom(GEOSSymDifference_r(geos(), all.get(), ring.get())) : std::move(ring);
            }
            begin = end;
        }
        return all;
    }
    if (index.kind(e) == FeatureKind::Line) {
        Geom all;
        std::uint32_t begin = 0;
        for (const std::uint32_t end : ends) {
            GEOSCoordSequence* seq = GEOSCoordSeq_create_r(geos(), end - begin, 2);
            for (std::uint32_t i = begin; i < end; ++i)
                GEOSCoordSeq_setXY_r(geos(), seq, i - begin, cells[i].x, cells[i].y);
            Geom line(GEOSGeom_createLineString_r(geos(), seq));
            Geom buffered(GEOSBuffer_r(geos(), line.get(), index.sizeCells(e), 8));
            all = all ? Geom(GEOSUnion_r(geos(), all.get(), buffered.get())) : std::move(buffered);
            begin = end;
        }
        return all;
    }
    return {};
}

/// A placed model's outline in global cells.
Geom modelOutline(const Scene& scene, const Instance& in, const AssetInfo& a) {
    Geom all;
    for (const auto& quad : placedOutline(in, a)) {
        std::vector<Vec2> corners;
        for (const Vec2 c : quad) corners.push_back(scene.frame.groundToCell(c));
        Geom q = polygonOf({corners});
        all = all ? Geom(GEOSUnion_r(geos(), all.get(), q.get())) : std::move(q);
    }
    return all;
}

/// Every model (first and parts) of every placed footprint, with the footprint's feature id.
struct PlacedModel {
    std::string source;
    Instance instance;
    const AssetInfo* asset = nullptr;
};
std::vector<PlacedModel> placedModels(const Scene& scene, const AssetCatalogue& catalogue) {
    std::vector<PlacedModel> out;
    for (const BuildingRecord& b : scene.buildings) {
        if (b.outcome != BuildingOutcome::Placed) continue;
        out.push_back({scene.sources.at(b.source), b.placement,
                       catalogue.find(scene.assets.at(static_cast<std::size_t>(b.asset)))});
        for (const BuildingPart& p : b.parts) {
            out.push_back({scene.sources.at(b.source), p.placement,
                           catalogue.find(scene.assets.at(static_cast<std::size_t>(p.asset)))});
        }
    }
    return out;
}

/// The outline checks of the issue, in cells: (1) a model lies within its footprint up to the
/// tolerance (the share of its area) plus the boundary cells its conservative cells may cut
/// (at most a cell's diagonal along its outline); (2) shrunk by a cell, it meets no road or water
/// shape beyond a cell of its own footprint. Returns the failures.
std::vector<std::string> outlineFailures(const Scene& scene, const AssetCatalogue& catalogue, const TileIndex& index,
                                         double tolerance) {
    std::unordered_map<std::string, std::uint32_t> footprintOf;
    std::vector<std::uint32_t> streets;  // road and water entries
    const ClassifiedMap& map = index.map();
    const auto layerIs = [&](std::uint16_t l, std::string_view name) {
        return map.layers[l].name == name ||
               (map.layers[l].parent >= 0 && map.layers[static_cast<std::size_t>(map.layers[l].parent)].name == name);
    };
    for (std::uint32_t e = 0; e < map.entries.size(); ++e) {
        const std::uint16_t l = map.entries[e].layer;
        if (layerIs(l, "building")) footprintOf.emplace(map.entries[e].feature->id, e);
        if ((layerIs(l, "road") || layerIs(l, "water")) && map.entries[e].feature->kind != FeatureKind::Point) {
            streets.push_back(e);
        }
    }
    std::vector<Geom> streetShapes;
    std::vector<Box2> streetBounds;
    for (const std::uint32_t e : streets) {
        streetShapes.push_back(entryShape(index, e));
        streetBounds.push_back(index.reach(e));
    }
    std::vector<std::string> out;
    for (const PlacedModel& m : placedModels(scene, catalogue)) {
        const Geom outline = modelOutline(scene, m.instance, *m.asset);
        const auto it = footprintOf.find(m.source);
        if (it == footprintOf.end()) {
            out.push_back(m.source + ": no footprint");
            continue;
        }
        const Geom footprint = entryShape(index, it->second);
        const Geom spill(GEOSDifference_r(geos(), outline.get(), footprint.get()));
        double perimeter = 0.0;
        GEOSLength_r(geos(), outline.get(), &perimeter);
        const double allowed = tolerance * areaOf(outline.get()) + std::sqrt(2.0) * perimeter;
        if (areaOf(spill.get()) > allowed) {
            out.push_back(m.source + " (" + m.asset->id + "): " + std::to_string(areaOf(spill.get())) +
                          " cells outside its footprint, allowed " + std::to_string(allowed));
        }
        const Geom core(GEOSBuffer_r(geos(), outline.get(), -1.0, 8));
        const Geom near(GEOSBuffer_r(geos(), footprint.get(), 1.0, 8));
        Box2 bounds;
        for (const auto& quad : placedOutline(m.instance, *m.asset)) {
            for (const Vec2 c : quad) bounds.extend(scene.frame.groundToCell(c));
        }
        for (std::size_t k = 0; k < streetShapes.size(); ++k) {
            if (!streetShapes[k] || !streetBounds[k].intersects(bounds)) continue;
            const Geom beyond(GEOSDifference_r(geos(), streetShapes[k].get(), near.get()));
            if (GEOSIntersects_r(geos(), core.get(), beyond.get()) == 1) {
                out.push_back(m.source + " (" + m.asset->id + ") stands on " + map.entries[streets[k]].feature->id);
            }
        }
    }
    return out;
}

// -- synthetic footprints -----------------------------------------------------------------------------

std::string fillPasses(const std::string& extra) {
    return R"yaml(
passes:
  - name: buildings
    type: buildings
    layer: building
    blocked_by: water
    keep_off: road | water | building
    tolerance: 0.03
    margin: 0.2
    scale: [0.8, 1.5]
    stretch: 0.15
    variety: 0
    max_models: 4
)yaml" + extra;
}

/// L, U, courtyard ring, garage, hall and sliver, far enough apart, with a street along the L.
SyntheticMap fillShapes() {
    SyntheticMap m;
    const auto at = [](Vec2 o, std::vector<Vec2> ring) {
        for (Vec2& p : ring) p = p + o;
        return ring;
    };
    m.area("ell", kHouse, {at({-150, 20}, {{0, 0}, {30, 0}, {30, 12}, {12, 12}, {12, 30}, {0, 30}})});
    m.line("street", {{"highway", "residential"}}, {{-160, 16}, {-100, 16}});
    m.area("you", kHouse,
           {at({-80, 20}, {{0, 0}, {36, 0}, {36, 30}, {26, 30}, {26, 10}, {10, 10}, {10, 30}, {0, 30}})});
    m.area("ring", kHouse,
           {at({0, 20}, {{0, 0}, {40, 0}, {40, 40}, {0, 40}}), at({0, 20}, {{10, 10}, {10, 30}, {30, 30}, {30, 10}})});
    m.rectangle("garage", {{"building", "garage"}, {"roof:shape", "gabled"}, {"building:levels", "1"}}, {80, 40}, 3, 5);
    m.rectangle("hall", {{"building", "industrial"}}, {-60, -80}, 120, 60);
    // Its height tag is beyond any building's: a mapping mistake, read as no tag.
    m.rectangle("sliver", {{"building", "yes"}, {"height", "9000"}}, {90, -20}, 1.2, 25);
    m.rectangle("wide", kHouse, {40, -20}, 11, 9.4);
    return m;
}

const BuildingRecord& expectRecord(const Scene& scene, std::string_view id) {
    for (const BuildingRecord& b : scene.buildings) {
        if (scene.sources.at(b.source) == id) return b;
    }
    ADD_FAILURE() << "no record of " << id;
    static const BuildingRecord none;
    return none;
}

const GeneratedBuilding* generatedOf(const Scene& scene, const BuildingRecord& b) {
    for (const GeneratedBuilding& g : scene.generated) {
        if (g.source == b.source) return &g;
    }
    return nullptr;
}

struct FillBake {
    std::unique_ptr<BakeInput> input;
    Scene scene;
};

FillBake bakeShapes(const std::string& extra) {
    FillBake out;
    const std::string rules = syntheticRules(fillPasses(extra));
    out.input = fillShapes().build(rules);
    out.scene = bakeOnce(*out.input, testCatalogue(), parsePasses(*out.input, rules));
    return out;
}

TEST(BuildingFill, EveryShapeGetsAPrefabOrAGeneratedBuildingAndPrefabsStayInside) {
    const FillBake b = bakeShapes("    min_fill: 0\n");
    const AssetCatalogue catalogue = testCatalogue();
    for (const char* id : {"ell", "you", "ring", "hall", "wide"}) {
        EXPECT_EQ(expectRecord(b.scene, id).outcome, BuildingOutcome::Placed) << id;
    }
    // The smallest model, 4 × 4 m at 0.8, is wider than the garage less its margins; the sliver
    // takes nothing either.
    EXPECT_EQ(expectRecord(b.scene, "garage").outcome, BuildingOutcome::Generated);
    EXPECT_EQ(expectRecord(b.scene, "sliver").outcome, BuildingOutcome::Generated);
    // The hall holds several prefabs: the first, then more in its free cells up to max_models.
    EXPECT_EQ(expectRecord(b.scene, "hall").parts.size(), 3u);
    EXPECT_EQ(overlappingBuildings(b.scene, catalogue), std::vector<std::string>{});
    EXPECT_EQ(outlineFailures(b.scene, catalogue, b.input->index, 0.03), std::vector<std::string>{});
}

/// An L, a U and a courtyard block the size of the synthetic footprints: with their ground
/// outlines, or (`boxes`) as plain boxes of the same size.
AssetCatalogue shapedCatalogue(bool boxes) {
    AssetCatalogue c;
    const auto add = [&](std::string id, double w, double d, std::vector<OutlineRect> outline) {
        AssetInfo a;
        a.id = std::move(id);
        a.category = "building";
        a.footprint = {w, d};
        a.height = 12;
        if (!boxes) a.outline = std::move(outline);
        const Status s = c.add(std::move(a));
        EXPECT_TRUE(s.ok()) << s.message();
    };
    add("ell_model", 30, 30, {{-15, -15, 15, -3}, {-15, -3, -3, 15}});
    // Wings two metres narrower than the footprint's: a cell a model touches is its cell, and a
    // U's or a ring's inner edges run along its yard, more boundary than the tolerance's 3 % of
    // its cells would allow on a tight fit.
    add("you_model", 36, 30, {{-18, -15, 18, -7}, {-18, -7, -10, 15}, {10, -7, 18, 15}});
    add("ring_model", 40, 40, {{-20, -20, 20, -12}, {-20, -12, -12, 12}, {12, -12, 20, 12}, {-20, 12, 20, 20}});
    return c;
}

// Courtyard, L and U footprints take courtyard, L and U models: a model stands on its ground
// outline's cells (in any of its four turns), so it fits a footprint of its shape, where the
// same model as a box (its notch or courtyard over the street or the yard) fits nowhere.
TEST(BuildingFill, LUAndCourtyardFootprintsTakeModelsOfTheirShape) {
    const std::string rules = syntheticRules(fillPasses("    min_fill: 0\n    fallback: none\n"));
    const auto input = fillShapes().build(rules);
    const AssetCatalogue shaped = shapedCatalogue(false);
    const Scene scene = bakeOnce(*input, shaped, parsePasses(*input, rules));
    for (const auto& [id, model] : {std::pair{"ell", "ell_model"}, {"you", "you_model"}, {"ring", "ring_model"}}) {
        const BuildingRecord& b = expectRecord(scene, id);
        ASSERT_EQ(b.outcome, BuildingOutcome::Placed) << id;
        EXPECT_EQ(scene.assets.at(static_cast<std::size_t>(b.asset)), model) << id;
    }
    EXPECT_EQ(overlappingBuildings(scene, shaped), std::vector<std::string>{});
    EXPECT_EQ(outlineFailures(scene, shaped, input->index, 0.03), std::vector<std::string>{});
    const Scene boxed = bakeOnce(*input, shapedCatalogue(true), parsePasses(*input, rules));
    for (const char* id : {"ell", "you", "ring"})
        EXPECT_NE(expectRecord(boxed, id).outcome, BuildingOutcome::Placed) << id;
}

TEST(BuildingFill, ThinlyFilledFootprintsAreGeneratedWhenTheRuleAsksForMore) {
    const FillBake loose = bakeShapes("    min_fill: 0\n");
    const FillBake strict = bakeShapes("    min_fill: 0.9\n");
    // The hall's four prefabs cover far less than 90 % of it: generated instead.
    EXPECT_EQ(loose.scene.statistics.buildingsGenerated, 2u);
    EXPECT_EQ(expectRecord(strict.scene, "hall").outcome, BuildingOutcome::Generated);
    EXPECT_TRUE(expectRecord(strict.scene, "hall").parts.empty());
    EXPECT_GT(strict.scene.statistics.footprintCellsCovered, loose.scene.statistics.footprintCellsCovered);
    EXPECT_GE(static_cast<double>(strict.scene.statistics.footprintCellsCovered),
              0.97 * static_cast<double>(strict.scene.statistics.footprintCells));
}

TEST(BuildingFill, AGeneratedBuildingFollowsItsOutlineAndTags) {
    const FillBake b = bakeShapes("    min_fill: 0\n    wall_height: 7\n");
    const BuildingRecord& garage = expectRecord(b.scene, "garage");
    const GeneratedBuilding* g = generatedOf(b.scene, garage);
    ASSERT_NE(g, nullptr);
    ASSERT_EQ(g->outline.size(), 4u);
    double area2 = 0.0;
    for (std::size_t i = 0; i < 4; ++i) area2 += cross(g->outline[i], g->outline[(i + 1) % 4]);
    EXPECT_NEAR(area2 / 2, 15.0, 0.01) << "3 × 5 m, counter-clockwise";
    EXPECT_NEAR(g->wallHeight, 3.0, 1e-6) << "building:levels 1 × storey_height 3";
    EXPECT_EQ(g->roofShape, "gabled");
    EXPECT_GT(g->roofHeight, 0.0f);
    EXPECT_EQ(g->base, 0.0f);
    const GeneratedBuilding* sliver = generatedOf(b.scene, expectRecord(b.scene, "sliver"));
    ASSERT_NE(sliver, nullptr);
    EXPECT_NEAR(sliver->wallHeight, 7.0, 1e-6) << "height=9000 is no height: the rule's wall_height";
    EXPECT_EQ(sliver->roofShape, "flat");
    EXPECT_EQ(sliver->roofHeight, 0.0f);
}

TEST(BuildingFill, TheFallbackRuleDecidesWhatAnUnfitFootprintGets) {
    const FillBake none = bakeShapes("    fallback: none\n");
    EXPECT_EQ(expectRecord(none.scene, "garage").outcome, BuildingOutcome::NoModelFits);
    EXPECT_EQ(expectRecord(none.scene, "sliver").outcome, BuildingOutcome::NoModelFits);
    EXPECT_TRUE(none.scene.generated.empty());
    const FillBake shrink = bakeShapes("    fallback: shrink\n");
    const BuildingRecord& garage = expectRecord(shrink.scene, "garage");
    ASSERT_EQ(garage.outcome, BuildingOutcome::Placed) << "the best prefab below its minimum scale";
    EXPECT_LT(garage.placement.scale.x, 0.8f);
    EXPECT_TRUE(shrink.scene.generated.empty());
}

// A footprint the blocked_by mask holds says which of the mask's layers stands there; one the
// mask holds by none of its layers (a negation) says the mask.
TEST(BuildingFill, ABlockedFootprintNamesTheBlockedByLayerStandingThere) {
    SyntheticMap m;
    m.rectangle("pond", {{"natural", "water"}}, {0, 0}, 40, 40);
    m.rectangle("green", {{"leisure", "park"}}, {100, 0}, 40, 40);
    m.rectangle("boathouse", kHouse, {5, 5}, 12, 10);
    m.rectangle("pavilion", kHouse, {95, -5}, 12, 10);
    m.rectangle("shed", kHouse, {-100, 0}, 8, 6);  // on open ground
    const auto bake = [&](const std::string& blockedBy) {
        std::string rules = syntheticRules(fillPasses(""));
        const std::string from = "blocked_by: water";
        rules.replace(rules.find(from), from.size(), "blocked_by: " + blockedBy);
        FillBake out;
        out.input = m.build(rules);
        out.scene = bakeOnce(*out.input, testCatalogue(), parsePasses(*out.input, rules));
        return out;
    };
    const FillBake both = bake("\"park | water\"");
    const Scene& s = both.scene;
    for (const char* id : {"boathouse", "pavilion"}) {
        ASSERT_EQ(expectRecord(s, id).outcome, BuildingOutcome::Blocked) << id;
        EXPECT_EQ(expectRecord(s, id).blocker, Blocker::Layers) << id;
    }
    EXPECT_EQ(outcomeText(expectRecord(s, "boathouse"), s.sources, s.layerNames), "blocked: water");
    EXPECT_EQ(outcomeText(expectRecord(s, "pavilion"), s.sources, s.layerNames), "blocked: park");
    EXPECT_NE(expectRecord(s, "shed").outcome, BuildingOutcome::Blocked);
    // Without the layer names, the mask.
    EXPECT_EQ(outcomeText(expectRecord(s, "boathouse"), s.sources), "blocked: blocked_by layers");
    // Everything but the roads: the shed is held by the mask, and by no layer it reads.
    const FillBake negated = bake("\"~road\"");
    const BuildingRecord& shed = expectRecord(negated.scene, "shed");
    ASSERT_EQ(shed.outcome, BuildingOutcome::Blocked);
    EXPECT_EQ(shed.blockerLayer, BuildingRecord::kNoLayer);
    EXPECT_EQ(outcomeText(shed, negated.scene.sources, negated.scene.layerNames), "blocked: blocked_by layers");
}

TEST(BuildingFill, StretchScalesWidthAndDepthApartWithinTheRule) {
    const FillBake b = bakeShapes("    min_fill: 0\n");
    for (const PlacedModel& m : placedModels(b.scene, testCatalogue())) {
        const double ratio = m.instance.scale.x / m.instance.scale.z;
        EXPECT_LE(ratio, 1.15 + 1e-6) << m.source;
        EXPECT_GE(ratio, 1.0 / 1.15 - 1e-6) << m.source;
    }
    // The 11 × 9.4 m footprint: a square model fills it tighter stretched 15 % along its width.
    const BuildingRecord& wide = expectRecord(b.scene, "wide");
    ASSERT_EQ(wide.outcome, BuildingOutcome::Placed);
    const double ratio = wide.placement.scale.x / wide.placement.scale.z;
    EXPECT_NEAR(std::max(ratio, 1.0 / ratio), 1.15, 1e-4);
}

// -- the bundled map ----------------------------------------------------------------------------------

// Every test here reads the one default bake of Monaco (monacoDefaultBake()), each as if it had
// baked it itself: the same rules, options and catalogue.

TEST(BuildingFillMonaco, CoverageAndSpillMeetTheGoalsCountedFromTheLayers) {
    const MonacoDefaultBake& bake = monacoDefaultBake();
    ASSERT_TRUE(bake.ok);
    const Scene& scene = bake.scene;
    const LayerSource& layers = bake.baker->layers();
    const int building = layers.layerId("building"), placed = layers.layerId(kPlacedBuildingsLayer);
    const int road = layers.layerId("road"), water = layers.layerId("water");
    std::uint64_t footprint = 0, covered = 0, placedCells = 0, outside = 0, onStreets = 0;
    const auto word = [&](const TileId& t, int layer, int row, int w) -> std::uint64_t {
        const BitTile* b = layers.tile(t, layer);
        return b ? b->row(row)[w] : 0;
    };
    for (const TileId& t : scene.tiles) {
        for (int row = 0; row < kTileCells; ++row) {
            for (int w = 0; w < BitTile::kWordsPerRow; ++w) {
                const std::uint64_t f = word(t, building, row, w), p = word(t, placed, row, w);
                const std::uint64_t streets = word(t, road, row, w) | word(t, water, row, w);
                footprint += std::popcount(f);
                covered += std::popcount(f & p);
                placedCells += std::popcount(p);
                outside += std::popcount(p & ~f);
                onStreets += std::popcount(p & streets & ~f);
            }
        }
    }
    const SceneStatistics& s = scene.statistics;
    EXPECT_EQ(s.footprintCells, footprint);
    EXPECT_EQ(s.footprintCellsCovered, covered);
    EXPECT_EQ(s.placedCells, placedCells);
    EXPECT_EQ(s.placedCellsOutside, outside);
    // The issue's goals: ≥ 90 % of footprint cells covered, ≤ 3 % of placed cells outside
    // footprints, none on a road or water cell the footprint does not cover.
    EXPECT_GE(static_cast<double>(covered), 0.90 * static_cast<double>(footprint));
    EXPECT_LE(static_cast<double>(outside), 0.03 * static_cast<double>(placedCells));
    EXPECT_EQ(onStreets, 0u);
    // The issue's goal: ≥ 99.5 % of buildings get a prefab or a generated building (blocked:
    // water, or a building mapped within a placed prefab).
    EXPECT_GE(static_cast<double>(s.buildingsPlaced + s.buildingsGenerated),
              0.995 * static_cast<double>(scene.buildings.size()));
}

TEST(BuildingFillMonaco, PlacedOutlinesStayInTheirFootprintsAndOffStreetsAndWater) {
    const AssetCatalogue& catalogue = shippedCatalogue();
    ASSERT_TRUE(monacoDefaultBake().ok);
    const Scene& scene = monacoDefaultBake().scene;
    EXPECT_EQ(overlappingBuildings(scene, catalogue), std::vector<std::string>{});
    EXPECT_EQ(outlineFailures(scene, catalogue, monaco().index, 0.03), std::vector<std::string>{});
}

/// Monaco's building footprints: each feature id's entry in the TileIndex.
std::unordered_map<std::string, std::uint32_t> monacoFootprints() {
    const ClassifiedMap& map = monaco().index.map();
    std::unordered_map<std::string, std::uint32_t> out;
    for (std::uint32_t e = 0; e < map.entries.size(); ++e) {
        if (map.layers[map.entries[e].layer].name == "building") out.emplace(map.entries[e].feature->id, e);
    }
    return out;
}

// Blocked only where something stands there, and said with what: every blocked footprint names
// a building whose mapped footprint (GEOS, exact) covers most of it, or the blocked_by layer.
TEST(BuildingFillMonaco, EveryBlockedBuildingNamesWhatStandsThere) {
    ASSERT_TRUE(monacoDefaultBake().ok);
    const Scene& scene = monacoDefaultBake().scene;
    const std::unordered_map<std::string, std::uint32_t> footprintOf = monacoFootprints();
    int blocked = 0, byBuilding = 0;
    for (const BuildingRecord& b : scene.buildings) {
        if (b.outcome != BuildingOutcome::Blocked) continue;
        ++blocked;
        const std::string& id = scene.sources.at(b.source);
        const std::string text = outcomeText(b, scene.sources, scene.layerNames);
        ASSERT_NE(b.blocker, Blocker::None) << id;
        if (b.blocker != Blocker::Building) {
            EXPECT_EQ(text, "blocked: water") << id << ": the default rules' blocked_by";
            continue;
        }
        ++byBuilding;
        ASSERT_LT(b.blockerSource, scene.sources.size()) << id;
        const std::string& blocker = scene.sources[b.blockerSource];
        EXPECT_EQ(text, "blocked: building " + blocker);
        EXPECT_NE(blocker, id);
        const Geom mine = entryShape(monaco().index, footprintOf.at(id));
        const Geom theirs = entryShape(monaco().index, footprintOf.at(blocker));
        const Geom shared(GEOSIntersection_r(geos(), mine.get(), theirs.get()));
        EXPECT_GT(areaOf(shared.get()), 0.5 * areaOf(mine.get())) << id << " under " << blocker;
        // The blocker stands: it was placed or generated.
        const auto standing = std::find_if(scene.buildings.begin(), scene.buildings.end(),
                                           [&](const BuildingRecord& r) { return r.source == b.blockerSource; });
        ASSERT_NE(standing, scene.buildings.end());
        EXPECT_TRUE(standing->outcome == BuildingOutcome::Placed || standing->outcome == BuildingOutcome::Generated)
            << blocker;
    }
    EXPECT_EQ(blocked, static_cast<int>(scene.statistics.buildingsBlocked));
    EXPECT_GT(byBuilding, 0) << "Monaco maps buildings inside buildings";
}

// A building mapped within a generated one (Monaco maps towers over podiums, roofs over
// platforms, a building twice) becomes a part of it: most of its footprint (GEOS, exact) lies in
// that building's, and it either rises above it from its eaves or, not taller, draws nothing.
TEST(BuildingFillMonaco, BuildingsMappedWithinGeneratedOnesBecomeTheirParts) {
    ASSERT_TRUE(monacoDefaultBake().ok);
    const Scene& scene = monacoDefaultBake().scene;
    const std::unordered_map<std::string, std::uint32_t> footprintOf = monacoFootprints();
    int parts = 0, rising = 0;
    for (const BuildingRecord& b : scene.buildings) {
        if (b.partOfSource == Instance::kNoSource) continue;
        ++parts;
        const std::string& id = scene.sources.at(b.source);
        ASSERT_EQ(b.outcome, BuildingOutcome::Generated) << id;
        ASSERT_LT(b.partOfSource, scene.sources.size()) << id;
        const std::string& whole = scene.sources[b.partOfSource];
        EXPECT_EQ(outcomeText(b, scene.sources), "generated: part of building " + whole);
        const Geom mine = entryShape(monaco().index, footprintOf.at(id));
        const Geom theirs = entryShape(monaco().index, footprintOf.at(whole));
        const Geom shared(GEOSIntersection_r(geos(), mine.get(), theirs.get()));
        EXPECT_GT(areaOf(shared.get()), 0.5 * areaOf(mine.get())) << id << " within " << whole;
        const auto wholeRecord = std::find_if(scene.buildings.begin(), scene.buildings.end(),
                                              [&](const BuildingRecord& r) { return r.source == b.partOfSource; });
        ASSERT_NE(wholeRecord, scene.buildings.end());
        ASSERT_EQ(wholeRecord->outcome, BuildingOutcome::Generated) << whole;
        const GeneratedBuilding* container = generatedOf(scene, *wholeRecord);
        ASSERT_NE(container, nullptr) << whole;
        if (const GeneratedBuilding* g = generatedOf(scene, b)) {
            ++rising;
            EXPECT_GT(g->base + g->wallHeight, container->base + container->wallHeight + container->roofHeight) << id;
            EXPECT_GE(g->base, container->base) << id;
        }
    }
    // Monaco: nine such buildings, one of them (Santa Monica, 16 m over a 6 m podium) rising.
    EXPECT_GE(parts, 5);
    EXPECT_GE(rising, 1);
    EXPECT_EQ(static_cast<std::size_t>(parts - rising) + scene.generated.size(), scene.statistics.buildingsGenerated)
        << "a part that does not rise draws nothing of its own";
}

// A generated building keeps its footprint's courtyards open: its outline with its courtyards
// as holes covers the mapped footprint (GEOS, even-odd rings, global cells) and, but for yards
// it cannot draw (two yards that touch stay roofed over), no more. Monaco maps 22 buildings with
// inner rings (OGR), the Hôtel de Paris with four; one (r11384697) has two yards that touch.
TEST(BuildingFillMonaco, GeneratedBuildingsKeepTheirCourtyards) {
    ASSERT_TRUE(monacoDefaultBake().ok);
    const Scene& scene = monacoDefaultBake().scene;
    const std::unordered_map<std::string, std::uint32_t> footprintOf = monacoFootprints();
    int buildings = 0, yards = 0;
    std::vector<std::string> roofed;
    for (const BuildingRecord& b : scene.buildings) {
        const GeneratedBuilding* g = b.outcome == BuildingOutcome::Generated ? generatedOf(scene, b) : nullptr;
        if (!g || g->courtyards.empty()) continue;
        ++buildings;
        yards += static_cast<int>(g->courtyards.size());
        const std::string& id = scene.sources.at(b.source);
        std::vector<std::vector<Vec2>> rings{{}};
        for (const Vec2 p : g->outline) rings[0].push_back(scene.frame.groundToCell(p));
        for (const std::vector<Vec2>& yard : g->courtyards) {
            rings.emplace_back();
            for (const Vec2 p : yard) rings.back().push_back(scene.frame.groundToCell(p));
        }
        const Geom drawn = polygonOf(rings);
        const Geom mapped = entryShape(monaco().index, footprintOf.at(id));
        const Geom missing(GEOSDifference_r(geos(), mapped.get(), drawn.get()));
        EXPECT_LT(areaOf(missing.get()), 0.01 * areaOf(mapped.get())) << id << ": part of it is drawn open";
        const Geom extra(GEOSDifference_r(geos(), drawn.get(), mapped.get()));
        if (areaOf(extra.get()) >= 0.01 * areaOf(mapped.get())) roofed.push_back(id);
        EXPECT_LT(areaOf(drawn.get()), 0.99 * areaOf(polygonOf({rings[0]}).get())) << id << ": its yards are open";
    }
    EXPECT_GE(buildings, 15);
    EXPECT_GE(yards, 20);
    EXPECT_LE(roofed.size(), 1u) << "buildings with a yard roofed over: " << ::testing::PrintToString(roofed);
}

}  // namespace
}  // namespace terrabit::test
