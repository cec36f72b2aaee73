// .osgb and .osgt export: the file reads back with the same drawables and instance counts, the
// instance transforms survive, the live graph is not touched, and a failed write leaves nothing
// behind and an earlier file as it was.

#include "terrabit/render/scene_file.h"

#include <gtest/gtest.h>
#include <osg/Geode>

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "instanced_block_p.h"
#include "render_test_support.h"
#include "scene_file_p.h"
#include "terrabit/render/instanced_block.h"
#include "terrabit/render/instanced_elements.h"
#include "terrabit/render/scene_export.h"
#include "terrabit/render/scene_graph.h"

namespace terrabit::render {
namespace {

std::filesystem::path scratchDir() {
    // One folder per process: CTest runs the tests of this file side by side, and one test's
    // temporary file must not show up in another's check for leftovers. Removed when the
    // process ends.
    struct Folder {
        std::filesystem::path path =
            std::filesystem::temp_directory_path() / ("terrabit-render-scene-file-tests-" + std::to_string(::getpid()));
        Folder() { std::filesystem::create_directories(path); }
        ~Folder() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
    };
    static const Folder folder;
    std::filesystem::create_directories(folder.path);  // as before: every call finds it there
    return folder.path;
}

/// Every float of every instance transform reached, in traversal order (from the texture buffer
/// of a live graph, from the float texture of a graph read from a file).
std::vector<float> allTransforms(osg::Node& graph) {
    struct Collect : osg::NodeVisitor {
        std::vector<float> floats;
        Collect() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
        void apply(osg::Geometry& geometry) override {
            const std::span<const float> t = instanceTransforms(geometry);
            floats.insert(floats.end(), t.begin(), t.end());
        }
    } collect;
    graph.accept(collect);
    return collect.floats;
}

/// Every corner of every primitive drawn, in traversal order: its position, the bytes of its
/// normal and colour (when bound per vertex), and how many instances draw it. The same for a live
/// instanced block (shared indices) and a block read from a file (its arrays unrolled, a
/// DrawArrays).
struct Corners {
    std::vector<float> positions;
    std::vector<std::uint8_t> rest;
};
Corners allCorners(osg::Node& graph) {
    struct Collect : osg::NodeVisitor {
        Corners corners;
        Collect() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
        void add(const osg::Array* a, unsigned index) {
            if (!a || a->getBinding() != osg::Array::BIND_PER_VERTEX) return;
            const auto* p =
                static_cast<const std::uint8_t*>(a->getDataPointer()) + std::size_t{index} * a->getElementSize();
            corners.rest.insert(corners.rest.end(), p, p + a->getElementSize());
        }
        void apply(osg::Geometry& geometry) override {
            const auto* vertices = dynamic_cast<const osg::Vec3Array*>(geometry.getVertexArray());
            for (unsigned i = 0; i < geometry.getNumPrimitiveSets(); ++i) {
                const osg::PrimitiveSet* set = geometry.getPrimitiveSet(i);
                corners.rest.push_back(static_cast<std::uint8_t>(set->getMode()));
                corners.rest.push_back(static_cast<std::uint8_t>(set->getNumInstances()));
                for (unsigned k = 0; k < set->getNumIndices(); ++k) {
                    const unsigned index = set->index(k);
                    if (vertices) {
                        const osg::Vec3& v = (*vertices)[index];
                        corners.positions.insert(corners.positions.end(), {v.x(), v.y(), v.z()});
                    }
                    add(geometry.getNormalArray(), index);
                    add(geometry.getColorArray(), index);
                }
            }
        }
    } collect;
    graph.accept(collect);
    return collect.corners;
}

class SceneFileTest : public testing::TestWithParam<std::string> {};

TEST_P(SceneFileTest, ReadsBackWithTheSameDrawablesInstancesAndTransforms) {
    AssetModelCache models;
    SceneGraphOptions options;
    options.style.layers = test::syntheticLayerInfos();
    SceneGraph graph(test::shippedCatalogue(), models, options);
    const core::Scene scene = test::syntheticScene();
    const core::LayerStore layers = test::syntheticLayers(scene.tiles, 8);
    ASSERT_TRUE(graph.setScene(scene, &layers).ok());
    graph.setTileGridVisible(true);
    ASSERT_TRUE(graph.setHeatOverlay(layers, "vegetation", {}).ok());

    const auto file = scratchDir() / ("scene" + GetParam());
    std::filesystem::remove(file);
    const core::Status s = writeSceneFile(*graph.root(), file);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(std::filesystem::exists(file));

    core::Result<osg::ref_ptr<osg::Node>> read = readSceneFile(file);
    ASSERT_TRUE(read) << read.message();
    EXPECT_EQ(countDrawables(**read), countDrawables(*graph.root()));
    EXPECT_EQ(countInstances(**read), countInstances(*graph.root()));
    const std::vector<float> transforms = allTransforms(*graph.root());
    EXPECT_EQ(transforms.size(), scene.instanceCount() * detail::kFloatsPerInstance);
    EXPECT_EQ(allTransforms(**read), transforms);
    // Every block draws the same corners (the file's unrolled by the model's indices), each
    // instanced as often.
    const Corners live = allCorners(*graph.root());
    const Corners written = allCorners(**read);
    EXPECT_GT(live.positions.size(), 1000u);
    EXPECT_TRUE(written.rest == live.rest);
    ASSERT_EQ(written.positions.size(), live.positions.size());
    if (GetParam() == ".osgb") {
        EXPECT_TRUE(written.positions == live.positions);
    } else {  // text: six significant digits
        for (std::size_t k = 0; k < live.positions.size(); ++k) {
            ASSERT_NEAR(written.positions[k], live.positions[k], 1e-5 * (1.0 + std::abs(live.positions[k]))) << k;
        }
    }

    // The live graph still draws through the shared indices.
    osg::Node* block = graph.blockNode(scene.tiles[0], 0, 0, "house_gabled");
    ASSERT_NE(block, nullptr);
    EXPECT_NE(
        dynamic_cast<const InstancedElements*>(block->asGeode()->getDrawable(0)->asGeometry()->getPrimitiveSet(0)),
        nullptr);
    // No temporary left beside the file.
    for (const auto& entry : std::filesystem::directory_iterator(scratchDir())) {
        EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, SceneFileTest, testing::Values(".osgb", ".osgt"));

TEST(SceneFile, FailedWritesLeaveEarlierFilesAndNoTemporaries) {
    AssetModelCache models;
    SceneGraph graph(test::shippedCatalogue(), models);
    ASSERT_TRUE(graph.setScene(test::syntheticScene(), nullptr).ok());

    const auto earlier = scratchDir() / "earlier.obj";
    std::ofstream(earlier) << "keep me";
    const core::Status wrongType = writeSceneFile(*graph.root(), earlier);
    ASSERT_FALSE(wrongType.ok());
    EXPECT_NE(wrongType.message().find("earlier.obj"), std::string::npos) << wrongType.message();
    std::ifstream in(earlier);
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "keep me");

    const auto nowhere = scratchDir() / "no" / "such" / "folder" / "scene.osgb";
    const core::Status missingDir = writeSceneFile(*graph.root(), nowhere);
    ASSERT_FALSE(missingDir.ok());
    EXPECT_NE(missingDir.message().find("scene.osgb"), std::string::npos) << missingDir.message();
    EXPECT_FALSE(std::filesystem::exists(nowhere));

    const core::Result<osg::ref_ptr<osg::Node>> absent = readSceneFile(scratchDir() / "absent.osgb");
    ASSERT_FALSE(absent);
    EXPECT_NE(absent.message().find("absent.osgb"), std::string::npos);
}

}  // namespace
}  // namespace terrabit::render

namespace terrabit::render {
namespace {

/// The bytes of every file under `dir`, by path relative to it.
std::map<std::string, std::string> filesUnder(const std::filesystem::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::ifstream in(e.path(), std::ios::binary);
        files[std::filesystem::relative(e.path(), dir).generic_string()] =
            std::string(std::istreambuf_iterator<char>(in), {});
    }
    return files;
}

struct OsgbExport {
    core::Scene scene;
    core::LayerStore layers;
    core::ExportOptions options;

    explicit OsgbExport(const test::SyntheticSceneSpec& spec)
        : scene(test::syntheticScene(spec)), layers(test::syntheticLayers(scene.tiles, 8)) {
        options.formats = {core::ExportFormat::Osgb};
        options.layerStyles = test::syntheticLayerInfos();
        options.sceneGraphWriter = sceneGraphFileWriter();
    }
    core::Result<core::ExportReport> run(const std::filesystem::path& out, int threads,
                                         const core::ProgressCallback& progress = {}) {
        options.outDir = out;
        options.threads = threads;
        return core::exportScene(scene, options, test::shippedCatalogue(), &layers, progress);
    }
};

TEST(SceneFile, ExportFormatOsgbWritesTheScenesGraphAFileAGroupOfTiles) {
    // The osgb format of core's exportScene, as terrabit-cli bake --format osgb writes it: 7 × 5
    // tiles straddle two ancestors three levels up each way, so four group files.
    OsgbExport fx({.cols = 7, .rows = 5});
    const auto out = scratchDir() / "export";
    std::filesystem::remove_all(out);
    const auto report = fx.run(out, 3);
    ASSERT_TRUE(report.ok()) << report.message();
    const std::vector<TileGroup> groups = groupTiles(fx.scene.tiles);
    ASSERT_EQ(groups.size(), 4u);
    ASSERT_EQ(report->files.size(), 1 + groups.size());
    EXPECT_EQ(report->files[0].path, std::filesystem::path("scene.osgb"));
    std::size_t grouped = 0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        EXPECT_EQ(report->files[i + 1].path, std::filesystem::path("scene") / (groups[i].quadkey + ".osgb"));
        EXPECT_EQ(groups[i].quadkey.size(), 17u - kGroupLevels);
        for (const core::TileId& t : groups[i].tiles) EXPECT_EQ(t.quadkey().rfind(groups[i].quadkey, 0), 0u);
        grouped += groups[i].tiles.size();
    }
    EXPECT_EQ(grouped, fx.scene.tiles.size());
    for (const core::ExportedFile& f : report->files) EXPECT_EQ(f.bytes, std::filesystem::file_size(out / f.path));
    // Only the export's files: no folder left from the writing.
    EXPECT_EQ(filesUnder(out).size(), report->files.size());

    // Read back from the root (its groups load with it), it is the graph the viewport draws.
    core::Result<osg::ref_ptr<osg::Node>> read = readSceneFile(out / "scene.osgb");
    ASSERT_TRUE(read) << read.message();
    EXPECT_EQ(allTransforms(**read).size(), fx.scene.instanceCount() * detail::kFloatsPerInstance);
    AssetModelCache models;
    SceneGraphOptions whole;
    whole.style.layers = fx.options.layerStyles;
    SceneGraph graph(test::shippedCatalogue(), models, whole);
    ASSERT_TRUE(graph.setScene(fx.scene, &fx.layers));
    EXPECT_EQ(countDrawables(**read), countDrawables(*graph.root()));
    EXPECT_EQ(countInstances(**read), countInstances(*graph.root()));

    // Any thread count writes the same bytes.
    const auto one = scratchDir() / "export-one-thread";
    std::filesystem::remove_all(one);
    ASSERT_TRUE(fx.run(one, 1).ok());
    EXPECT_EQ(filesUnder(one), filesUnder(out));
}

TEST(SceneFile, ExportFormatOsgbReplacesAnEarlierExportWholeOrNotAtAll) {
    const auto out = scratchDir() / "export-again";
    std::filesystem::remove_all(out);
    OsgbExport big({.cols = 7, .rows = 5});
    ASSERT_TRUE(big.run(out, 2).ok());
    const auto before = filesUnder(out);

    // A scene it cannot draw (an asset the catalogue lacks) fails, naming it, and leaves the
    // earlier export's files as they were.
    OsgbExport broken({.cols = 2, .rows = 2});
    broken.scene.assets[0] = "no_such_model";
    const auto failed = broken.run(out, 2);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.message().find("no_such_model"), std::string::npos) << failed.message();
    EXPECT_EQ(filesUnder(out), before);

    // Cancelled after its first group (progress goes up group by group, and the app's Cancel
    // stops it there): the same.
    OsgbExport other({.cols = 7, .rows = 5, .treeSeed = 2});
    std::vector<double> steps;
    const auto cancelled = other.run(out, 2, [&](double fraction, std::string_view stage) {
        if (stage != "writing osgb") return true;
        steps.push_back(fraction);
        return false;
    });
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().kind, core::ErrorKind::Cancelled) << cancelled.message();
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_GT(steps[0], 0.0);
    EXPECT_LE(steps[0], 1.0);
    EXPECT_EQ(filesUnder(out), before);
    // Uncancelled, it reports every group, up to the whole.
    steps.clear();
    ASSERT_TRUE(other
                    .run(out, 2,
                         [&](double fraction, std::string_view stage) {
                             if (stage == "writing osgb") steps.push_back(fraction);
                             return true;
                         })
                    .ok());
    EXPECT_FALSE(steps.empty());
    EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end()));
    EXPECT_NE(filesUnder(out), before);

    // A smaller scene replaces it: its one group, and none of the earlier groups.
    OsgbExport small({.cols = 2, .rows = 2});
    const auto report = small.run(out, 2);
    ASSERT_TRUE(report.ok()) << report.message();
    ASSERT_EQ(report->files.size(), 2u);
    const auto after = filesUnder(out);
    EXPECT_EQ(after.size(), 2u);
    EXPECT_TRUE(after.count("scene.osgb"));
    EXPECT_TRUE(after.count(report->files[1].path.generic_string()));
}

/// The part of a scene on `tiles`, as a streamed bake's batch has it: only those tiles' content.
core::Scene osgbPartOf(const core::Scene& whole, const std::vector<core::TileId>& tiles) {
    const auto mine = [&](const core::TileId& t) { return std::find(tiles.begin(), tiles.end(), t) != tiles.end(); };
    core::Scene part = whole;
    std::erase_if(part.tiles, [&](const core::TileId& t) { return !mine(t); });
    const auto keep = [&](auto& items) { std::erase_if(items, [&](const auto& i) { return !mine(i.tile); }); };
    keep(part.blocks), keep(part.surfaces), keep(part.plinths), keep(part.bridges), keep(part.generated);
    std::erase_if(part.ground, [&](const core::GroundTile& g) { return !mine(g.mesh.tile); });
    return part;
}

TEST(SceneFile, ExportFormatOsgbStreamedAGroupAtATimeWritesTheWholeExport) {
    OsgbExport fx({.cols = 7, .rows = 5});
    const auto whole = scratchDir() / "streamed-whole";
    std::filesystem::remove_all(whole);
    ASSERT_TRUE(fx.run(whole, 2).ok());

    // The groups' tiles a part at a time, in quadkey order, as a streamed bake's batches.
    const auto out = scratchDir() / "streamed";
    std::filesystem::remove_all(out);
    std::filesystem::create_directories(out);
    fx.options.outDir = out;
    const std::vector<TileGroup> groups = groupTiles(fx.scene.tiles);
    ASSERT_EQ(groups.size(), 4u);
    {
        auto stream = sceneGraphFileStream()(fx.options, test::shippedCatalogue(), out / "scene.osgb");
        ASSERT_TRUE(stream.ok()) << stream.message();
        std::vector<core::TileId> firstTwo = groups[0].tiles;
        firstTwo.insert(firstTwo.end(), groups[1].tiles.begin(), groups[1].tiles.end());
        ASSERT_TRUE((*stream)->add(osgbPartOf(fx.scene, firstTwo), &fx.layers).ok());
        ASSERT_TRUE((*stream)->add(osgbPartOf(fx.scene, groups[2].tiles), &fx.layers).ok());
        ASSERT_TRUE((*stream)->add(osgbPartOf(fx.scene, groups[3].tiles), &fx.layers).ok());
        auto files = (*stream)->finish();
        ASSERT_TRUE(files.ok()) << files.message();
        EXPECT_EQ(files->size(), 1 + groups.size());
    }
    EXPECT_EQ(filesUnder(out), filesUnder(whole));

    // A group whose tiles come in two parts is refused, naming it; the stream dropped unfinished
    // leaves the earlier export as it was, and no folder of its own.
    {
        auto stream = sceneGraphFileStream()(fx.options, test::shippedCatalogue(), out / "scene.osgb");
        ASSERT_TRUE(stream.ok()) << stream.message();
        const std::vector<core::TileId>& split = groups[1].tiles;
        ASSERT_GT(split.size(), 1u);
        const std::vector<core::TileId> head(split.begin(), split.begin() + 1), rest(split.begin() + 1, split.end());
        ASSERT_TRUE((*stream)->add(osgbPartOf(fx.scene, head), &fx.layers).ok());
        const core::Status again = (*stream)->add(osgbPartOf(fx.scene, rest), &fx.layers);
        ASSERT_FALSE(again.ok());
        EXPECT_NE(again.message().find("group " + groups[1].quadkey), std::string::npos) << again.message();
    }
    EXPECT_EQ(filesUnder(out), filesUnder(whole));
    for (const auto& e : std::filesystem::directory_iterator(out)) {
        EXPECT_EQ(e.path().filename().string().find(".scene.partial"), std::string::npos) << e.path();
    }
}

}  // namespace
}  // namespace terrabit::render
