#include "placement_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "terrabit/cli/map_commands.h"
#include "terrabit/core/tiling/rasterize_tiles.h"

namespace terrabit::test {

std::string syntheticRules(const std::string& passes) {
    return R"yaml(
version: 1
layers:
  - name: water
    colour: "#3b83bd"
    match: [{kind: area, tags: {natural: water}}]
  - name: vegetation
    colour: "#5a9e4b"
    classes:
      - name: forest
        colour: "#1f5f2a"
        match: [{kind: area, tags: {landuse: forest}}]
      - name: park
        colour: "#7cb342"
        match: [{kind: area, tags: {leisure: park}}]
      - name: grass
        colour: "#9ccc65"
        match: [{kind: area, tags: {landuse: grass}}]
  - name: road
    colour: "#5f5f5f"
    match: [{kind: line, tags: {highway: "*"}}]
    width: {default: 6}
  - name: building
    colour: "#c8553d"
    match: [{kind: area, tags: {building: "*"}}]
)yaml" + passes;
}

std::string withRoadWidths(std::string rules, const std::string& values) {
    const std::string from = R"(    match: [{kind: line, tags: {highway: "*"}}]
    width: {default: 6})";
    const std::string to = R"(    match: [{kind: [line, area], tags: {highway: "*"}}]
    width:
      by: [highway]
      values: )" + values + R"(
      default: 3)";
    rules.replace(rules.find(from), from.size(), to);
    return rules;
}

std::string defaultSyntheticPasses() {
    return R"yaml(
expressions:
  non_plantable: "building | ((~vegetation) & road) | ((~vegetation) & water)"
passes:
  - name: buildings
    type: buildings
    layer: building
    blocked_by: water
    margin: 0.4
    scale: [1, 1.5]
    variety: 0
    filters:
      - when: {historic: "*"}
        any_tags: [ancient]
      - none_tags: [ancient]
  - name: water
    type: surface
    layer: water
    elevation: -0.3
  - name: roads
    type: surface
    layer: road
    mask: road - water
    elevation: 0.05
    texture: gravel
  - name: vegetation
    type: vegetation
    layer: vegetation
    zone: vegetation - non_plantable - placed_buildings
    avoid: road | water
    density: 0.1
    jitter: 0.8
    scale: [0.8, 1.2]
    classes:
      forest: {species: {tree_a: 3, tree_b: 1}}
      park: {density: 0.05, avoid: water, species: {tree_a: 1, bush: 1}}
      grass: {density: 0.2, jitter: 1, scale: [0.5, 2], species: {grass: 1}}
)yaml";
}

SyntheticMap::SyntheticMap(int cols, int rows) {
    for (int y = 0; y < rows; ++y) {
        for (int x = 0; x < cols; ++x) mTiles.push_back(TileId{17, 68890u + x, 47860u + y});
    }
    mFrame.zoom = 17;
    mFrame.origin = placement::sceneOrigin(mTiles);
    mMap.source = "synthetic";
    mMap.format = "test";
}

void SyntheticMap::area(const std::string& id, std::vector<Tag> tags, const std::vector<std::vector<Vec2>>& rings) {
    Feature f;
    f.id = id;
    f.kind = FeatureKind::Area;
    f.tags = std::move(tags);
    for (const auto& ring : rings) {
        for (const Vec2 p : ring) f.points.push_back(mFrame.groundToMercator(p));
        f.partEnds.push_back(static_cast<std::uint32_t>(f.points.size()));
    }
    f.updateBounds();
    mMap.features.push_back(std::move(f));
}

void SyntheticMap::rectangle(const std::string& id, std::vector<Tag> tags, Vec2 c, double w, double d, double angle) {
    const Vec2 u{std::cos(angle), std::sin(angle)};
    const Vec2 v{-u.y, u.x};
    const Vec2 a = u * (w / 2), b = v * (d / 2);
    area(id, std::move(tags), {{c - a - b, c + a - b, c + a + b, c - a + b}});
}

void SyntheticMap::line(const std::string& id, std::vector<Tag> tags, const std::vector<Vec2>& points) {
    Feature f;
    f.id = id;
    f.kind = FeatureKind::Line;
    f.tags = std::move(tags);
    for (const Vec2 p : points) f.points.push_back(mFrame.groundToMercator(p));
    f.partEnds.push_back(static_cast<std::uint32_t>(f.points.size()));
    f.updateBounds();
    mMap.features.push_back(std::move(f));
}

void SyntheticMap::point(const std::string& id, std::vector<Tag> tags, Vec2 at) {
    Feature f;
    f.id = id;
    f.kind = FeatureKind::Point;
    f.tags = std::move(tags);
    f.points.push_back(mFrame.groundToMercator(at));
    f.partEnds.push_back(1);
    f.updateBounds();
    mMap.features.push_back(std::move(f));
}

std::unique_ptr<BakeInput> SyntheticMap::build(const std::string& rulesYaml) const {
    auto in = std::make_unique<BakeInput>();
    auto rules = RuleSet::parse(rulesYaml, "synthetic.yaml");
    EXPECT_TRUE(rules.ok()) << rules.message();
    if (!rules) return in;
    in->rules = std::move(*rules);
    in->map = mMap;
    for (const Feature& f : in->map.features) in->map.extent.extend(f.bounds.min), in->map.extent.extend(f.bounds.max);
    in->classified = classify(in->map, in->rules);
    auto index = TileIndex::build(in->classified, 17, mTiles);
    EXPECT_TRUE(index.ok()) << index.message();
    if (!index) return in;
    in->index = std::move(*index);
    RasterizeTilesOptions options;
    options.threads = 2;
    auto store = rasterizeTiles(in->index, options);
    EXPECT_TRUE(store.ok()) << store.message();
    if (store) in->store = std::move(*store);
    return in;
}

AssetCatalogue testCatalogue() {
    AssetCatalogue c;
    const auto add = [&](std::string id, std::string category, double w, double d, double h,
                         std::vector<std::string> tags, double weight = 1.0) {
        AssetInfo a;
        a.id = std::move(id);
        a.category = std::move(category);
        a.footprint = {w, d};
        a.height = h;
        a.tags = std::move(tags);
        a.weight = weight;
        const Status s = c.add(std::move(a));
        EXPECT_TRUE(s.ok()) << s.message();
    };
    add("box_10x10", "building", 10, 10, 9, {"residential"});
    add("box_20x8", "building", 20, 8, 12, {"residential", "terrace"});
    add("box_6x12", "building", 6, 12, 7, {"residential"});
    add("house_8x8", "building", 8, 8, 6, {"residential", "house"});
    add("small_4x4", "building", 4, 4, 3, {"shed"});
    add("temple_8x8", "building", 8, 8, 14, {"ancient", "temple"});
    add("tower_12x12", "building", 12, 12, 40, {"tower"}, 0.0);
    add("tree_a", "tree", 4, 4, 9, {"broadleaf"});
    add("tree_b", "tree", 3, 3, 12, {"conifer"});
    add("bush", "bush", 2, 2, 1.5, {"bush"});
    add("grass", "grass", 1, 1, 0.6, {"grass"});
    return c;
}

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

const std::string& defaultRulesText() {
    static const std::string text = readText(std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml");
    return text;
}

const BakeInput& monaco() {
    static const std::unique_ptr<core::io::MapLayers> layers = [] {
        core::io::MapInput input;
        input.file = std::string(TERRABIT_RESOURCES_DIR) + "/maps/monaco-2022-07-19.osm.pbf";
        input.rules = std::string(TERRABIT_RESOURCES_DIR) + "/rules/default.yaml";
        core::io::TileSelection selection;
        selection.zoom = 17;
        auto built = core::io::buildMapLayers(input, selection, 2, {});
        EXPECT_TRUE(built.ok()) << built.message();
        return built.ok() ? std::move(*built) : std::make_unique<core::io::MapLayers>();
    }();
    return *layers;
}

const MonacoDefaultBake& monacoDefaultBake() {
    static const MonacoDefaultBake bake = [] {
        MonacoDefaultBake b;
        b.baker = std::make_unique<placement::SceneBaker>(monaco().index, monaco().store, shippedCatalogue());
        auto rules = placement::PlacementRules::parse(defaultRulesText(), "default.yaml", monaco().classified.layers);
        EXPECT_TRUE(rules.ok()) << rules.message();
        if (!rules.ok()) return b;
        const Status s = b.baker->setRules(std::move(*rules));
        EXPECT_TRUE(s.ok()) << s.message();
        if (!s.ok()) return b;
        auto scene = b.baker->bake();
        EXPECT_TRUE(scene.ok()) << scene.message();
        if (!scene.ok()) return b;
        b.scene = std::move(*scene);
        b.ok = true;
        return b;
    }();
    return bake;
}

const AssetCatalogue& shippedCatalogue() {
    static const AssetCatalogue catalogue = [] {
        auto c = AssetCatalogue::load(std::string(TERRABIT_RESOURCES_DIR) + "/assets/catalogue.yaml");
        EXPECT_TRUE(c.ok()) << c.message();
        return c.ok() ? std::move(*c) : AssetCatalogue();
    }();
    return catalogue;
}

placement::PlacementRules parsePasses(const BakeInput& input, const std::string& rulesYaml) {
    auto rules = placement::PlacementRules::parse(rulesYaml, "rules.yaml", input.classified.layers);
    EXPECT_TRUE(rules.ok()) << rules.message();
    return rules.ok() ? std::move(*rules) : placement::PlacementRules();
}

Scene bakeOnce(const BakeInput& input, const AssetCatalogue& catalogue, const placement::PlacementRules& rules,
               const placement::BakeOptions& options) {
    placement::SceneBaker baker(input.index, input.store, catalogue);
    const Status s = baker.setRules(rules);
    EXPECT_TRUE(s.ok()) << s.message();
    auto scene = baker.bake(options);
    EXPECT_TRUE(scene.ok()) << scene.message();
    return scene.ok() ? std::move(*scene) : Scene();
}

std::array<Vec2, 4> placedFootprint(const Instance& in, const AssetInfo& asset) {
    // The model's +X axis after Ry(yaw) points (cos yaw, sin yaw) in (east, north); its +Z axis
    // (south in model space) points (sin yaw, -cos yaw).
    const double c = std::cos(in.yaw), s = std::sin(in.yaw);
    const Vec2 x{c, s}, z{s, -c};
    const Vec2 centre{in.position.x, -in.position.z};
    const Vec2 hx = x * (0.5 * asset.footprint.width * in.scale.x);
    const Vec2 hz = z * (0.5 * asset.footprint.depth * in.scale.z);
    return {centre - hx - hz, centre + hx - hz, centre + hx + hz, centre - hx + hz};
}

std::vector<std::array<Vec2, 4>> placedOutline(const Instance& in, const AssetInfo& asset) {
    if (asset.outline.empty()) return {placedFootprint(in, asset)};
    const double c = std::cos(in.yaw), s = std::sin(in.yaw);
    const Vec2 x{c, s}, z{s, -c};
    const Vec2 centre{in.position.x, -in.position.z};
    const auto at = [&](double mx, double mz) { return centre + x * (mx * in.scale.x) + z * (mz * in.scale.z); };
    std::vector<std::array<Vec2, 4>> out;
    for (const OutlineRect& r : asset.outline)
        out.push_back({at(r.x0, r.z0), at(r.x1, r.z0), at(r.x1, r.z1), at(r.x0, r.z1)});
    return out;
}

double overlapDepth(const std::array<Vec2, 4>& a, const std::array<Vec2, 4>& b) {
    double depth = std::numeric_limits<double>::infinity();
    for (const auto* poly : {&a, &b}) {
        for (std::size_t i = 0; i < 4; ++i) {
            const Vec2 e = (*poly)[(i + 1) % 4] - (*poly)[i];
            const double len = length(e);
            if (len == 0.0) continue;
            const Vec2 n{-e.y / len, e.x / len};
            double amin = 1e300, amax = -1e300, bmin = 1e300, bmax = -1e300;
            for (const Vec2 p : a) amin = std::min(amin, dot(p, n)), amax = std::max(amax, dot(p, n));
            for (const Vec2 p : b) bmin = std::min(bmin, dot(p, n)), bmax = std::max(bmax, dot(p, n));
            depth = std::min(depth, std::min(amax, bmax) - std::max(amin, bmin));
        }
    }
    return depth;
}

std::vector<std::string> overlappingBuildings(const Scene& scene, const AssetCatalogue& catalogue, double tolerance) {
    struct Placed {
        std::array<Vec2, 4> corners;
        Box2 bounds;
        std::string name;
        std::size_t model = 0;  ///< the model it is a rectangle of
    };
    std::vector<Placed> placed;
    std::size_t modelCount = 0;
    for (const BuildingRecord& b : scene.buildings) {
        if (b.outcome != BuildingOutcome::Placed) continue;
        // The first model and the footprint's further ones alike.
        std::vector<BuildingPart> models{{b.asset, b.placement}};
        models.insert(models.end(), b.parts.begin(), b.parts.end());
        for (const BuildingPart& m : models) {
            const AssetInfo* a = catalogue.find(scene.assets.at(static_cast<std::size_t>(m.asset)));
            EXPECT_NE(a, nullptr);
            if (!a) continue;
            for (const auto& quad : placedOutline(m.placement, *a)) {
                Placed p;
                p.corners = quad;
                for (const Vec2 c : p.corners) p.bounds.extend(c);
                p.name = scene.sources.at(b.source) + " (" + a->id + ")";
                p.model = modelCount;
                placed.push_back(std::move(p));
            }
            ++modelCount;
        }
    }
    // Sweep along x so the check stays fast on thousands of buildings.
    std::sort(placed.begin(), placed.end(),
              [](const Placed& a, const Placed& b) { return a.bounds.min.x < b.bounds.min.x; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < placed.size(); ++i) {
        for (std::size_t j = i + 1; j < placed.size() && placed[j].bounds.min.x <= placed[i].bounds.max.x; ++j) {
            if (placed[i].model == placed[j].model || !placed[i].bounds.intersects(placed[j].bounds)) continue;
            const double d = overlapDepth(placed[i].corners, placed[j].corners);
            if (d > tolerance)
                out.push_back(placed[i].name + " and " + placed[j].name + " overlap by " + std::to_string(d) + " m");
        }
    }
    return out;
}

std::array<std::int64_t, 2> cellOf(const Scene& scene, Vec3f position) {
    const Vec2 cell = scene.frame.groundToCell({position.x, -static_cast<double>(position.z)});
    return {static_cast<std::int64_t>(std::floor(cell.x)), static_cast<std::int64_t>(std::floor(cell.y))};
}

bool layerAt(const LayerSource& source, int layer, int zoom, std::int64_t gx, std::int64_t gy) {
    const TileId t{zoom, static_cast<std::uint32_t>(gx / kTileCells), static_cast<std::uint32_t>(gy / kTileCells)};
    const BitTile* bits = source.tile(t, layer);
    return bits && bits->test(static_cast<int>(gx % kTileCells), static_cast<int>(gy % kTileCells));
}

}  // namespace terrabit::test
