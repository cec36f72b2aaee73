#include <gdal_priv.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "export_test_support.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/export/scene_export.h"
#include "terrabit/core/export/sha256.h"

using namespace terrabit::core;
using terrabit::test::FileSizeLimit;
using terrabit::test::filesUnder;
using terrabit::test::hiddenEntriesUnder;
using terrabit::test::makeLayers;
using terrabit::test::makeScene;
using terrabit::test::readBytes;
using terrabit::test::shippedCatalogue;
using terrabit::test::TempDir;

namespace {

const std::vector<ExportFormat> kAll = parseExportFormats("all").value();

/// A scene, its layers and the catalogue, exported with `options` into `dir`.
struct Fixture {
    AssetCatalogue catalogue = shippedCatalogue();
    terrabit::test::TestScene test = makeScene(catalogue);
    terrabit::test::MemoryLayerSource layers = makeLayers(test.scene);

    Result<ExportReport> run(const std::filesystem::path& dir, ExportOptions options = {},
                             const ProgressCallback& progress = {}) const {
        if (options.formats.empty()) options.formats = kAll;
        options.outDir = dir;
        options.rulesDocument = "version: 1\n";
        return exportScene(test.scene, options, catalogue, &layers, progress);
    }
};

/// SHA-256 of every file under a folder, by relative path.
std::map<std::string, std::string> digests(const std::filesystem::path& dir) {
    std::map<std::string, std::string> out;
    for (const std::string& f : filesUnder(dir)) {
        const auto bytes = readBytes(dir / f);
        out[f] = sha256Hex({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
    }
    return out;
}

}  // namespace

TEST(ExportFormats, ParsesTheCommandLineList) {
    EXPECT_EQ(parseExportFormats("glb").value(), std::vector<ExportFormat>{ExportFormat::Glb});
    EXPECT_EQ(parseExportFormats(" collision , glb,glb ").value(),
              (std::vector<ExportFormat>{ExportFormat::Glb, ExportFormat::Collision}));
    EXPECT_EQ(parseExportFormats("glb,3dtiles,manifest,layers,collision").value(), kAll);
    EXPECT_EQ(kAll.size(), 5u);
    const auto bad = parseExportFormats("glb,fbx");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("'fbx'"), std::string::npos) << bad.message();
    EXPECT_NE(bad.message().find("3dtiles"), std::string::npos) << bad.message();
    EXPECT_FALSE(parseExportFormats(" , ").ok());
    for (ExportFormat f : kAll) EXPECT_EQ(parseExportFormats(exportFormatName(f)).value(), std::vector{f});
}

TEST(SceneExport, WritesEveryFormatWhereTheDocumentationSays) {
    const Fixture fx;
    TempDir dir;
    const Result<ExportReport> report = fx.run(dir.path());
    ASSERT_TRUE(report.ok()) << report.message();
    std::vector<std::string> expected{"collision.tbcg", "manifest.json", "scene.glb", "3dtiles/tileset.json"};
    for (const TileId& t : fx.test.scene.tiles) {
        expected.push_back("3dtiles/tiles/" + t.quadkey() + ".glb");
        for (const std::string& l : fx.layers.layerNames())
            expected.push_back("layers/" + t.quadkey() + "/" + l + ".tif");
        expected.push_back("layers/" + t.quadkey() + "/preview.png");
    }
    // The inner tiles' coarse contents: every quadkey between the baked tiles' deepest common
    // ancestor and them.
    std::string common = fx.test.scene.tiles.front().quadkey();
    for (const TileId& t : fx.test.scene.tiles) {
        const std::string qk = t.quadkey();
        std::size_t k = 0;
        while (k < common.size() && common[k] == qk[k]) ++k;
        common.resize(k);
    }
    std::set<std::string> inner;
    for (const TileId& t : fx.test.scene.tiles) {
        for (std::size_t n = common.size(); n < t.quadkey().size(); ++n) inner.insert(t.quadkey().substr(0, n));
    }
    for (const std::string& qk : inner) expected.push_back("3dtiles/tiles/" + qk + ".glb");
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(filesUnder(dir.path()), expected);
    EXPECT_EQ(report->files.size(), expected.size());
    // The parts of a bake also write each baked tile's level source, for the merge.
    TempDir part;
    ExportOptions partOptions;
    partOptions.formats = {ExportFormat::Tiles3d};
    partOptions.levelSources = true;
    ASSERT_TRUE(fx.run(part.path(), partOptions).ok());
    for (const TileId& t : fx.test.scene.tiles) {
        EXPECT_TRUE(std::filesystem::is_regular_file(part.path() / "3dtiles" / "levels" / (t.quadkey() + ".json")))
            << t.quadkey();
    }
    for (const ExportedFile& f : report->files) {
        EXPECT_EQ(f.bytes, std::filesystem::file_size(dir.path() / f.path)) << f.path;
        EXPECT_GT(f.bytes, 0u) << f.path;
    }
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
}

TEST(SceneExport, TheSameInputsGiveByteIdenticalFiles) {
    const Fixture fx;
    TempDir a, b;
    ASSERT_TRUE(fx.run(a.path()).ok());
    const Fixture again;  // rebuilt from the same seed
    ASSERT_TRUE(again.run(b.path()).ok());
    const auto da = digests(a.path());
    EXPECT_EQ(da.size(), filesUnder(a.path()).size());
    EXPECT_EQ(da, digests(b.path()));
    // Exporting again into the same folder replaces every file with the same bytes.
    ASSERT_TRUE(fx.run(a.path()).ok());
    EXPECT_EQ(digests(a.path()), da);
}

TEST(SceneExport, CollisionFileAnswersLikeTheGridOfTheLayers) {
    const Fixture fx;
    TempDir dir;
    ExportOptions options;
    options.formats = {ExportFormat::Collision};
    options.collisionLayers = {"building", "water"};
    ASSERT_TRUE(fx.run(dir.path(), options).ok());
    const Result<CollisionGrid> back = readCollisionFile(dir / "collision.tbcg");
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->layerNames(), options.collisionLayers);
    for (const TileId& t : fx.test.scene.tiles) {
        for (int l = 0; l < 2; ++l) {
            const BitTile* bits =
                fx.layers.tile(t, fx.layers.layerId(options.collisionLayers[static_cast<std::size_t>(l)]));
            EXPECT_EQ(back->tileBits(l, t), bits ? *bits : BitTile{}) << t.quadkey();
        }
    }
}

TEST(SceneExport, LayerGeoTiffsHoldTheBitsAtTheTilesPlace) {
    const Fixture fx;
    TempDir dir;
    ExportOptions options;
    options.formats = {ExportFormat::Layers};
    ASSERT_TRUE(fx.run(dir.path(), options).ok());
    GDALAllRegister();
    for (const TileId& t : fx.test.scene.tiles) {
        for (int l = 0; l < 4; ++l) {
            const auto file =
                dir / ("layers/" + t.quadkey() + "/" + fx.layers.layerNames()[static_cast<std::size_t>(l)] + ".tif");
            std::unique_ptr<GDALDataset> ds(GDALDataset::Open(file.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY));
            ASSERT_TRUE(ds) << file;
            double gt[6];
            ASSERT_EQ(ds->GetGeoTransform(gt), CE_None);
            EXPECT_NEAR(gt[0], t.boundsMercator().min.x, 1e-6);
            EXPECT_NEAR(gt[3], t.boundsMercator().max.y, 1e-6);
            std::vector<std::uint8_t> pixels(256 * 256);
            ASSERT_EQ(ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, 256, 256, pixels.data(), 256, 256, GDT_Byte, 0, 0,
                                                     nullptr),
                      CE_None);
            const BitTile* bits = fx.layers.tile(t, l);
            EXPECT_EQ(BitTile::fromImage(std::span<const std::uint8_t, 65536>(pixels.data(), 65536)),
                      bits ? *bits : BitTile{})
                << file;
        }
    }
}

TEST(SceneExport, LayerFilesAndTheirListAreTheSameOnOneThreadAndOnMany) {
    // The tiles' files are encoded a run at a time on every thread, and taken in tile order.
    const Fixture fx;
    TempDir one, many;
    ExportOptions options;
    options.formats = {ExportFormat::Layers};
    options.threads = 1;
    const Result<ExportReport> a = fx.run(one.path(), options);
    ASSERT_TRUE(a.ok()) << a.message();
    options.threads = 5;
    const Result<ExportReport> b = fx.run(many.path(), options);
    ASSERT_TRUE(b.ok()) << b.message();
    ASSERT_FALSE(a->files.empty());
    ASSERT_EQ(a->files.size(), b->files.size());
    for (std::size_t i = 0; i < a->files.size(); ++i) EXPECT_EQ(a->files[i].path, b->files[i].path) << i;
    EXPECT_EQ(digests(one.path()), digests(many.path()));
    EXPECT_TRUE(hiddenEntriesUnder(many.path()).empty());
}

TEST(SceneExport, ProgressRisesFromZeroToOne) {
    const Fixture fx;
    TempDir dir;
    std::vector<double> seen;
    ASSERT_TRUE(fx.run(dir.path(), {}, [&](double f, std::string_view) {
                      seen.push_back(f);
                      return true;
                  }).ok());
    ASSERT_GE(seen.size(), 5u);
    EXPECT_EQ(seen.front(), 0.0);
    EXPECT_EQ(seen.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
}

TEST(SceneExport, FormatsWrittenTwoAtATimeGiveTheFilesAndReportOfOneAtATime) {
    const Fixture fx;
    // A stand-in for the render module's osgb writer, so that every format runs.
    ExportOptions options;
    options.formats = kAll;
    options.formats.push_back(ExportFormat::Osgb);
    options.sceneGraphWriter = [](const Scene&, const ExportOptions&, const AssetCatalogue&, const LayerSource*,
                                  const std::filesystem::path& file,
                                  const ProgressCallback& progress) -> Result<std::vector<std::filesystem::path>> {
        if (!progress(0.5, "writing osgb")) return cancelled("cancelled");
        std::ofstream(file, std::ios::binary) << "osgb!";
        return std::vector<std::filesystem::path>{"scene.osgb"};
    };
    std::map<std::size_t, Result<ExportReport>> reports;
    std::map<std::size_t, std::map<std::string, std::string>> files;
    for (const int threads : {1, 2}) {
        TempDir dir;
        options.threads = threads;
        std::vector<double> seen;
        std::mutex seenMutex;
        reports.emplace(threads, fx.run(dir.path(), options, [&](double f, std::string_view) {
            const std::lock_guard lock(seenMutex);
            seen.push_back(f);
            return true;
        }));
        ASSERT_TRUE(reports.at(threads).ok()) << reports.at(threads).message();
        files[threads] = digests(dir.path());
        EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
        EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << threads << " threads";
        EXPECT_EQ(seen.back(), 1.0);
    }
    EXPECT_EQ(files.at(1), files.at(2));
    const std::vector<ExportedFile>& one = reports.at(1)->files;
    const std::vector<ExportedFile>& two = reports.at(2)->files;
    ASSERT_EQ(one.size(), two.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
        EXPECT_EQ(one[i].format, two[i].format) << i;
        EXPECT_EQ(one[i].path, two[i].path) << i;
        EXPECT_EQ(one[i].bytes, two[i].bytes) << i;
    }
    // In format order: the report of a run one at a time.
    EXPECT_EQ(one.front().path, std::filesystem::path("scene.glb"));
    EXPECT_EQ(one.back().path, std::filesystem::path("scene.osgb"));
}

TEST(SceneExport, AFormatFailingBesideAnotherGivesItsOwnErrorAndNoPartialFiles) {
    const Fixture fx;
    ExportOptions options;
    options.formats = {ExportFormat::Layers, ExportFormat::Osgb};
    options.threads = 2;
    // The osgb writer fails once the layer files are on their way (written at the same time),
    // or at once when they are not (one core).
    std::atomic<bool> layersStarted{false};
    options.sceneGraphWriter = [&](const Scene&, const ExportOptions&, const AssetCatalogue&, const LayerSource*,
                                   const std::filesystem::path& file,
                                   const ProgressCallback&) -> Result<std::vector<std::filesystem::path>> {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!layersStarted && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        return Error{"cannot write " + file.string()};
    };
    TempDir dir;
    const Result<ExportReport> r = fx.run(dir.path(), options, [&](double, std::string_view stage) {
        if (stage.find("layer") != std::string_view::npos) layersStarted = true;
        return true;
    });
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().kind, ErrorKind::Cancelled) << r.message();
    EXPECT_NE(r.message().find("scene.osgb"), std::string::npos) << r.message();
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
    // The layer files, stopped or finished, are whole: each tile's folder holds all of them.
    if (std::filesystem::exists(dir / "layers")) {
        for (const TileId& t : fx.test.scene.tiles) {
            if (!std::filesystem::exists(dir / "layers" / t.quadkey())) continue;
            EXPECT_TRUE(std::filesystem::exists(dir / "layers" / t.quadkey() / "preview.png")) << t.quadkey();
        }
    }
}

TEST(SceneExport, CancellingStopsAndLeavesNoPartialFile) {
    const Fixture fx;
    TempDir dir;
    int calls = 0;
    const Result<ExportReport> r = fx.run(dir.path(), {}, [&](double, std::string_view) { return ++calls < 4; });
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("cancelled"), std::string::npos) << r.message();
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
    // Cancelled inside the 3D Tiles contents: none of them stays without its tileset.json, nor
    // the folders the export made for them.
    EXPECT_FALSE(std::filesystem::exists(dir / "3dtiles/tileset.json"));
    EXPECT_TRUE(filesUnder(dir / "3dtiles").empty());
    EXPECT_FALSE(std::filesystem::exists(dir / "3dtiles"));
}

TEST(SceneExport, AnOutputFolderUnderARegularFileIsAClearError) {
    const Fixture fx;
    TempDir dir;
    { std::ofstream(dir / "file") << "x"; }
    const Result<ExportReport> r = fx.run(dir / "file" / "out");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find((dir / "file" / "out").string()), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("Not a directory"), std::string::npos) << r.message();
}

TEST(SceneExport, AFullDiskFailsNamingTheFileAndLeavesNoPartialFile) {
    const Fixture fx;
    TempDir reference;
    ASSERT_TRUE(fx.run(reference.path()).ok());
    const auto complete = digests(reference.path());
    const auto glbSize = std::filesystem::file_size(reference / "scene.glb");
    // Budgets that run out inside scene.glb, inside the 3D Tiles contents and inside the manifest.
    for (std::uint64_t budget : {std::uint64_t{100}, glbSize + 5000, glbSize * 2}) {
        TempDir dir;
        WriteFaults faults;
        faults.failAfterBytes = budget;
        ExportOptions options;
        options.faults = &faults;
        const Result<ExportReport> r = fx.run(dir.path(), options);
        ASSERT_FALSE(r.ok()) << budget;
        EXPECT_NE(r.message().find("No space left on device"), std::string::npos) << r.message();
        EXPECT_NE(r.message().find(dir.path().string()), std::string::npos) << r.message();
        EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty()) << budget;
        // Whatever is there is complete: byte-identical to the reference export.
        for (const auto& [file, digest] : digests(dir.path())) EXPECT_EQ(digest, complete.at(file)) << file;
        // A tileset is whole or absent: no contents without their tileset.json, and no folder
        // the failed export made.
        if (!std::filesystem::exists(dir / "3dtiles/tileset.json")) {
            EXPECT_TRUE(filesUnder(dir / "3dtiles").empty());
            EXPECT_FALSE(std::filesystem::exists(dir / "3dtiles")) << budget;
        }
    }
}

TEST(SceneExport, TheKernelsFileSizeLimitHitsEveryFormatCleanlyIncludingGdalsFiles) {
    const Fixture fx;
    TempDir reference;
    ASSERT_TRUE(fx.run(reference.path()).ok());
    const auto complete = digests(reference.path());
    for (ExportFormat f : kAll) {
        TempDir dir;
        ExportOptions options;
        options.formats = {f};
        Result<ExportReport> r = Error{""};
        {
            FileSizeLimit limit(2000);  // every format writes at least one file larger than this
            r = fx.run(dir.path(), options);
        }
        ASSERT_FALSE(r.ok()) << exportFormatName(f);
        EXPECT_NE(r.message().find(dir.path().string()), std::string::npos) << r.message();
        EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty()) << exportFormatName(f);
        for (const auto& [file, digest] : digests(dir.path())) EXPECT_EQ(digest, complete.at(file)) << file;
    }
}

TEST(SceneExport, AMissingOrCorruptAssetFileIsAClearErrorAndWritesNoModel) {
    Fixture fx;
    TempDir dir;
    const std::string id = fx.test.scene.assets[0];
    AssetInfo info = *fx.catalogue.find(id);
    // Missing.
    AssetCatalogue missing;
    for (const AssetInfo& a : fx.catalogue.assets()) {
        AssetInfo copy = a;
        if (a.id == id) copy.path = dir / "gone.glb";
        ASSERT_TRUE(missing.add(copy).ok());
    }
    ExportOptions options;
    options.formats = {ExportFormat::Glb, ExportFormat::Tiles3d};
    options.outDir = dir / "out";
    Result<ExportReport> r = exportScene(fx.test.scene, options, missing, nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("'" + id + "'"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("gone.glb"), std::string::npos) << r.message();
    // Corrupt: a GLB header followed by garbage.
    {
        std::ofstream out(dir / "bad.glb", std::ios::binary);
        out << "glTF" << std::string(200, '\x07');
    }
    AssetCatalogue corrupt;
    for (const AssetInfo& a : fx.catalogue.assets()) {
        AssetInfo copy = a;
        if (a.id == id) copy.path = dir / "bad.glb";
        ASSERT_TRUE(corrupt.add(copy).ok());
    }
    r = exportScene(fx.test.scene, options, corrupt, nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("'" + id + "'"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("bad.glb"), std::string::npos) << r.message();
    // Unknown to the catalogue.
    r = exportScene(fx.test.scene, options, AssetCatalogue{}, nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("not in the asset catalogue"), std::string::npos) << r.message();
    EXPECT_TRUE(filesUnder(dir / "out").empty());
    EXPECT_TRUE(hiddenEntriesUnder(dir / "out").empty());
}

TEST(SceneExport, FormatsThatNeedLayersSayWhenThereAreNone) {
    const Fixture fx;
    TempDir dir;
    ExportOptions options;
    options.formats = {ExportFormat::Collision};
    options.outDir = dir.path();
    const auto r = exportScene(fx.test.scene, options, fx.catalogue, nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("layer source"), std::string::npos) << r.message();
    options.collisionLayers = {"lava"};
    const auto unknown = exportScene(fx.test.scene, options, fx.catalogue, &fx.layers);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.message().find("'lava'"), std::string::npos) << unknown.message();
}

TEST(SceneExport, OsgbGoesThroughTheSceneGraphWriterOrSaysItIsMissing) {
    EXPECT_EQ(parseExportFormats("osgb").value(), std::vector<ExportFormat>{ExportFormat::Osgb});
    const auto all = parseExportFormats("all", true).value();
    EXPECT_EQ(all.size(), kAll.size() + 1);
    EXPECT_EQ(all.back(), ExportFormat::Osgb);
    EXPECT_EQ(std::count(kAll.begin(), kAll.end(), ExportFormat::Osgb), 0);

    const Fixture fx;
    TempDir dir;
    ExportOptions options;
    options.formats = {ExportFormat::Osgb};
    auto missing = fx.run(dir.path() / "none", options);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find("render module"), std::string::npos) << missing.message();

    // The writer sees the scene, catalogue and layers it was given, and the files it reports
    // written are the export's, each with its size.
    int calls = 0;
    options.sceneGraphWriter = [&](const Scene& scene, const ExportOptions&, const AssetCatalogue& catalogue,
                                   const LayerSource* layers, const std::filesystem::path& file,
                                   const ProgressCallback&) -> Result<std::vector<std::filesystem::path>> {
        ++calls;
        EXPECT_EQ(&scene, &fx.test.scene);
        EXPECT_EQ(&catalogue, &fx.catalogue);
        EXPECT_EQ(layers, &fx.layers);
        std::ofstream(file, std::ios::binary) << "osgb!";
        std::filesystem::create_directories(file.parent_path() / "scene");
        std::ofstream(file.parent_path() / "scene" / "0.osgb", std::ios::binary) << "group";
        return std::vector<std::filesystem::path>{"scene.osgb", std::filesystem::path("scene") / "0.osgb"};
    };
    auto written = fx.run(dir.path() / "out", options);
    ASSERT_TRUE(written.ok()) << written.message();
    EXPECT_EQ(calls, 1);
    ASSERT_EQ(written->files.size(), 2u);
    EXPECT_EQ(written->files[0].path, std::filesystem::path("scene.osgb"));
    EXPECT_EQ(written->files[0].bytes, 5u);
    EXPECT_EQ(written->files[1].path, std::filesystem::path("scene") / "0.osgb");
    EXPECT_EQ(written->bytesOf(ExportFormat::Osgb), 10u);

    // A failing writer fails the export with its message.
    options.sceneGraphWriter = [](const Scene&, const ExportOptions&, const AssetCatalogue&, const LayerSource*,
                                  const std::filesystem::path& file,
                                  const ProgressCallback&) -> Result<std::vector<std::filesystem::path>> {
        return Error{"cannot write " + file.string()};
    };
    auto failed = fx.run(dir.path() / "failed", options);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.message().find("scene.osgb"), std::string::npos) << failed.message();
}

TEST(SceneExport, TheStreamedGlbIsTheExportsAndItsWritingCanBeCancelled) {
    const AssetCatalogue catalogue = shippedCatalogue();
    const auto test = makeScene(catalogue);
    TempDir whole, streamed, spill;
    ExportOptions options;
    options.formats = {ExportFormat::Glb};
    options.outDir = whole.path();
    ASSERT_TRUE(exportScene(test.scene, options, catalogue, nullptr).ok());

    options.outDir = streamed.path();
    Result<GlbExportStream> stream = GlbExportStream::open(options, spill.path());
    ASSERT_TRUE(stream.ok()) << stream.message();
    ASSERT_TRUE(stream->add(test.scene, catalogue).ok());
    std::vector<std::string> stages;
    const Result<ExportedFile> file = stream->finish([&](double, std::string_view stage) {
        stages.emplace_back(stage);
        return true;
    });
    ASSERT_TRUE(file.ok()) << file.message();
    EXPECT_EQ(file->path, std::filesystem::path("scene.glb"));
    EXPECT_EQ(file->bytes, std::filesystem::file_size(streamed / "scene.glb"));
    EXPECT_EQ(readBytes(streamed / "scene.glb"), readBytes(whole / "scene.glb"));
    ASSERT_FALSE(stages.empty());
    EXPECT_EQ(stages.front(), "writing scene.glb");

    // Cancelled as it starts writing: no file, no temporary, a Cancelled error.
    TempDir cancelled;
    options.outDir = cancelled.path();
    Result<GlbExportStream> again = GlbExportStream::open(options, spill.path());
    ASSERT_TRUE(again.ok());
    ASSERT_TRUE(again->add(test.scene, catalogue).ok());
    const Result<ExportedFile> stopped = again->finish([](double, std::string_view) { return false; });
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error().kind, ErrorKind::Cancelled) << stopped.message();
    EXPECT_TRUE(std::filesystem::is_empty(cancelled.path()));
    // An asset the catalogue does not know is named.
    auto unknown = test;
    unknown.scene.assets[0] = "no_such_model";
    Result<GlbExportStream> third = GlbExportStream::open(options, spill.path());
    ASSERT_TRUE(third.ok());
    const Status refused = third->add(unknown.scene, catalogue);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("no_such_model"), std::string::npos) << refused.message();
}
