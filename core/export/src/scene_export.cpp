#include "terrabit/core/export/scene_export.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include "ordered_runs_p.h"
#include "terrabit/core/collision/collision_grid.h"
#include "terrabit/core/export/collision_file_writer.h"
#include "terrabit/core/export/glb_scene_writer.h"
#include "terrabit/core/export/layer_files.h"
#include "terrabit/core/export/manifest_writer.h"
#include "terrabit/core/export/scene_assets.h"
#include "terrabit/core/export/scene_tile_items.h"
#include "terrabit/core/export/tileset_writer.h"

namespace terrabit::core {

namespace {

constexpr ExportFormat kAllFormats[] = {ExportFormat::Glb,    ExportFormat::Tiles3d,   ExportFormat::Manifest,
                                        ExportFormat::Layers, ExportFormat::Collision, ExportFormat::Osgb};

std::uint64_t sizeOnDisk(const std::filesystem::path& file) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(file, ec);
    return ec ? 0 : static_cast<std::uint64_t>(n);
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

GlbSceneOptions sceneGlbOptions(const ExportOptions& options, bool plain) {
    GlbSceneOptions o;
    o.plainNodes = plain;
    o.groundColour = options.groundColour;
    return o;
}

/// An error of encoding scene.glb: one writing its data to the spill files (a full disk) names
/// the file it was for.
Error glbError(const Status& s, const std::filesystem::path& outDir) {
    if (s.error().kind == ErrorKind::Io) {
        return Error{"export: cannot write '" + (outDir / "scene.glb").string() + "': " + s.message(), ErrorKind::Io};
    }
    return Error{"export: " + s.message(), s.error().kind};
}

/// Writes `relative` in `outDir` from what `encode` hands its sink. `writing` is called before
/// the first bytes; a false return cancels.
template <class Encode, class Writing>
Result<ExportedFile> writeEncoded(ExportFormat format, const std::filesystem::path& outDir,
                                  const std::filesystem::path& relative, WriteFaults* faults, Encode&& encode,
                                  Writing&& writing) {
    Result<OutputFile> file = OutputFile::create(outDir / relative, faults);
    if (!file) return file.error();
    bool started = false;
    Status encoded = encode([&](std::span<const std::uint8_t> bytes) -> Status {
        if (!started && !writing()) return cancelled("export cancelled");
        started = true;
        return file->write(bytes);
    });
    if (!encoded) {
        // The file's errors name it and a cancel is a cancel; the encoder's get the prefix.
        const bool passOn = started || encoded.error().kind == ErrorKind::Cancelled;
        return passOn ? encoded.error() : Error{"export: " + encoded.message(), encoded.error().kind};
    }
    if (Status s = file->commit(); !s) return s.error();
    return ExportedFile{format, relative, file->size()};
}

/// Runs the formats and keeps the report. Two formats run at once when there are several and the
/// export may use more than one thread: a GLB or a manifest is encoded on one thread, and the
/// formats that spread their work over every thread leave cores idle between their runs, so
/// overlapping them keeps the cores busy. The files are the same either way, and the report
/// lists them in format order; progress is split evenly between formats. The first format that
/// fails stops the others (they are cancelled, each removing what it was writing) and its error
/// is the export's.
class Exporter {
public:
    Exporter(const Scene& scene, const ExportOptions& options, const AssetCatalogue& catalogue,
             const LayerSource* layers, const ProgressCallback& progress)
        : mScene(scene), mOptions(options), mCatalogue(catalogue), mLayers(layers), mProgress(progress) {}

    Result<ExportReport> run(const std::vector<ExportFormat>& formats) {
        mRuns.clear();
        for (ExportFormat f : formats) {
            Run& r = mRuns.emplace_back();
            r.format = f;
        }
        const bool modelled = std::any_of(formats.begin(), formats.end(), [](ExportFormat f) {
            return f == ExportFormat::Glb || f == ExportFormat::Tiles3d;
        });
        if (modelled) {
            // Loaded once, before the formats that read them may run at once.
            if (!step(mRuns.front(), 0.0, exportFormatName(mRuns.front().format))) return cancelled().error();
            if (Status s = meshes(); !s) return s.error();
        }
        // Faults injected for tests count bytes in the order files are written: one at a time.
        const bool together = mRuns.size() > 1 && mOptions.threads != 1 && mOptions.faults == nullptr &&
                              std::thread::hardware_concurrency() > 1;
        std::atomic<std::size_t> next{0};
        const auto lane = [&] {
            for (std::size_t k; (k = next.fetch_add(1)) < mRuns.size();) {
                Run& r = mRuns[k];
                try {
                    r.status = mStop ? cancelled() : runOne(r);
                } catch (const std::exception& e) {
                    // Thrown on the helper thread it would end the program: it fails its format.
                    r.status = Error{"export: " + std::string(exportFormatName(r.format)) + ": " + e.what()};
                }
                if (!r.status) mStop = true;
            }
        };
        {
            std::vector<std::jthread> helpers;
            if (together) helpers.emplace_back(lane);
            lane();
        }
        // The failing format's error, not the cancels it caused in the others.
        for (const Run& r : mRuns) {
            if (!r.status && r.status.error().kind != ErrorKind::Cancelled) return r.status.error();
        }
        for (const Run& r : mRuns) {
            if (!r.status) return r.status.error();
        }
        ExportReport report;
        for (Run& r : mRuns) std::move(r.files.begin(), r.files.end(), std::back_inserter(report.files));
        reportProgress(mProgress, 1.0, "export done");
        return report;
    }

private:
    /// One format's run: what it wrote and how far it got.
    struct Run {
        ExportFormat format = ExportFormat::Manifest;
        std::vector<ExportedFile> files;
        double done = 0.0;  ///< its share of the progress, 0..1
        Status status;
    };

    /// Progress within `r`'s format, 0..1; false when the user cancelled or another format
    /// failed. Calls the callback one at a time, with the formats' shares summed.
    bool step(Run& r, double within, std::string_view stage) {
        const std::lock_guard lock(mProgressMutex);
        if (mStop) return false;
        r.done = std::max(r.done, std::clamp(within, 0.0, 1.0));
        double sum = 0.0;
        for (const Run& each : mRuns) sum += each.done;
        if (reportProgress(mProgress, sum / double(mRuns.size()), stage)) return true;
        mStop = true;
        return false;
    }

    Status cancelled() const { return ::terrabit::core::cancelled("export cancelled"); }

    Status write(Run& r, ExportFormat format, const std::filesystem::path& relative,
                 std::span<const std::uint8_t> bytes) {
        if (Status s = writeFileAtomically(mOptions.outDir / relative, bytes, mOptions.faults); !s) return s;
        r.files.push_back({format, relative, bytes.size()});
        return Status::success();
    }
    Status write(Run& r, ExportFormat format, const std::filesystem::path& relative, std::string_view text) {
        return write(r, format, relative,
                     std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
    }

    Status meshes() {
        if (mMeshesLoaded) return Status::success();
        Result<std::vector<AssetMesh>> m = loadSceneAssets(mScene, mCatalogue);
        if (!m) return Error{"export: " + m.message()};
        mMeshes = std::move(m).value();
        mMeshesLoaded = true;
        return Status::success();
    }

    GlbSceneOptions glbOptions(bool plain) const { return sceneGlbOptions(mOptions, plain); }

    Status runOne(Run& r) {
        if (!step(r, 0.0, exportFormatName(r.format))) return cancelled();
        Status s = [&]() -> Status {
            switch (r.format) {
                case ExportFormat::Glb:
                    return glb(r);
                case ExportFormat::Tiles3d:
                    return tiles3d(r);
                case ExportFormat::Manifest:
                    return manifest(r);
                case ExportFormat::Layers:
                    return layerFiles(r);
                case ExportFormat::Collision:
                    return collision(r);
                case ExportFormat::Osgb:
                    return sceneGraph(r);
            }
            return Error{"export: unknown format"};
        }();
        if (s) step(r, 1.0, exportFormatName(r.format));
        return s;
    }

    Status glb(Run& r) {
        if (mOptions.scenePart) return scenePart(r);
        if (!step(r, 0.3, "encoding scene.glb")) return cancelled();
        // What is encoded waits in unnamed files beside the output (GlbSceneStream), not in
        // memory: a country's file is gigabytes.
        // exportScene made the folder and checked the scene.
        GlbSceneOptions options = glbOptions(mOptions.plainNodes);
        options.sceneChecked = true;
        Result<GlbSceneStream> stream = GlbSceneStream::open(options, mOptions.outDir);
        if (!stream) return Error{"export: " + stream.message(), stream.error().kind};
        if (Status s = stream->add(mScene, mMeshes); !s) return glbError(s, mOptions.outDir);
        Result<ExportedFile> file = writeEncoded(
            ExportFormat::Glb, mOptions.outDir, "scene.glb", mOptions.faults,
            [&](const GlbSink& sink) { return stream->finish(sink); },
            [&] { return step(r, 0.7, "writing scene.glb"); });
        if (!file) return file.error();
        r.files.push_back(*file);
        return Status::success();
    }

    /// A shard's share of scene.glb, for the merge to encode the whole file from.
    Status scenePart(Run& r) {
        if (!step(r, 0.3, "writing scene.part")) return cancelled();
        Result<ScenePartWriter> part =
            ScenePartWriter::open(mOptions.outDir / kScenePartFile, glbOptions(mOptions.plainNodes), mOptions.faults);
        if (!part) return part.error();
        if (Status s = part->add(mScene, mMeshes); !s) return s;
        Result<std::uint64_t> bytes = part->finish();
        if (!bytes) return bytes.error();
        r.files.push_back({ExportFormat::Glb, kScenePartFile, *bytes});
        return Status::success();
    }

    Status tiles3d(Run& r) {
        const std::filesystem::path folder = mOptions.outDir / "3dtiles";
        std::error_code ec;
        const bool hadFolder = std::filesystem::exists(folder, ec);
        const bool hadTiles = std::filesystem::exists(folder / "tiles", ec);
        if (Status s = createFolder(folder / "tiles"); !s) return Error{"export: " + s.message()};
        Result<std::vector<TilesetLeaf>> leaves =
            tilesetLeaves(mScene, mMeshes, mOptions.groundColour, mOptions.threads);
        if (!leaves) return Error{"export: " + leaves.message()};
        // A tileset is only usable whole: on failure, remove the contents this run wrote, and the
        // folders it made (when they are empty: remove() leaves a folder with anything else in it).
        std::vector<std::filesystem::path> written;
        const auto undo = [&](Status failure) {
            for (const auto& f : written) std::filesystem::remove(mOptions.outDir / f, ec);
            if (!hadTiles) std::filesystem::remove(folder / "tiles", ec);
            if (!hadFolder) std::filesystem::remove(folder, ec);
            const auto keep = std::remove_if(r.files.begin(), r.files.end(), [&](const ExportedFile& f) {
                return std::find(written.begin(), written.end(), f.path) != written.end();
            });
            r.files.erase(keep, r.files.end());
            return failure;
        };
        // The contents a run of tiles at a time: encoded on every thread, then written in tile
        // order (so errors, progress and the report are the same for any thread count).
        const SceneTileItems items(mScene);
        GlbSceneOptions tileOptions = glbOptions(false);
        tileOptions.sceneChecked = true;  // exportScene checked it once, up front
        const Status contents = detail::inOrderedRuns(
            mScene.tiles.size(), mOptions.threads,
            [&](std::size_t k) { return encodeTileGlb(mScene, mScene.tiles[k], mMeshes, tileOptions, &items); },
            [&](std::size_t k, const Result<std::vector<std::uint8_t>>& glb) -> Status {
                const TileId& t = mScene.tiles[k];
                if (!step(r, double(k) / double(mScene.tiles.size() + 1), "writing 3D Tiles content"))
                    return cancelled();
                if (!glb) return Error{"export: 3D Tiles content of tile " + t.quadkey() + ": " + glb.message()};
                const std::filesystem::path relative =
                    std::filesystem::path("3dtiles") / "tiles" / (t.quadkey() + ".glb");
                if (Status s = write(r, ExportFormat::Tiles3d, relative, *glb); !s) return s;
                written.push_back(relative);
                return Status::success();
            });
        if (!contents) return undo(contents);
        if (mOptions.levelSources) {
            if (Status s = createFolder(folder / "levels"); !s) return undo(Error{"export: " + s.message()});
            for (const TilesetLeaf& leaf : *leaves) {
                const std::filesystem::path relative = levelSourcePath(leaf.quadkey);
                if (Status s = write(r, ExportFormat::Tiles3d, relative, encodeLevelSource(leaf.level)); !s) {
                    return undo(s);
                }
                written.push_back(relative);
            }
        }
        if (!step(r, double(mScene.tiles.size()) / double(mScene.tiles.size() + 1), "writing 3D Tiles levels")) {
            return undo(cancelled());
        }
        const LevelContentSink levels = [&](const std::string& uri, std::span<const std::uint8_t> glb) {
            const std::filesystem::path relative = std::filesystem::path("3dtiles") / uri;
            if (Status s = write(r, ExportFormat::Tiles3d, relative, glb); !s) return s;
            written.push_back(relative);
            return Status::success();
        };
        Result<std::string> tileset =
            encodeTilesetLeaves(mScene.frame, mScene.seed, mScene.tiles, std::move(leaves).value(), "tiles",
                                mScene.terrain ? std::optional<double>(mScene.originHeight) : std::nullopt, levels);
        if (!tileset) {
            return undo(tileset.error().kind == ErrorKind::Io ? Status(tileset.error())
                                                              : Status(Error{"export: " + tileset.message()}));
        }
        if (Status s = write(r, ExportFormat::Tiles3d, std::filesystem::path("3dtiles") / "tileset.json", *tileset);
            !s) {
            return undo(s);
        }
        return Status::success();
    }

    Status manifest(Run& r) {
        // Streamed into the file: a region's manifest is hundreds of megabytes.
        if (!step(r, 0.0, "writing manifest.json")) return cancelled();
        const bool binary =
            writesBinaryInstances(mOptions.instances, mScene.instanceCount(), mOptions.binaryInstancesAbove);
        auto file = OutputFile::create(mOptions.outDir / "manifest.json", mOptions.faults);
        if (!file) return file.error();
        std::optional<OutputFile> instanceFile;
        if (binary) {
            auto created = OutputFile::create(mOptions.outDir / kInstanceFileName, mOptions.faults);
            if (!created) return created.error();
            instanceFile.emplace(std::move(created).value());
        }
        std::uint64_t bytes = 0, instanceBytes = 0;
        bool writeFailed = false;  // the files' own errors pass as they are; the manifest's gets "export: "
        const ManifestSink toInstances = [&](std::string_view piece) {
            instanceBytes += piece.size();
            Status written = instanceFile->write(piece);
            writeFailed = !written;
            return written;
        };
        Status s = writeManifest(
            mScene, mOptions.rulesDocument,
            [&](std::string_view piece) {
                bytes += piece.size();
                Status written = file->write(piece);
                writeFailed = !written;
                return written;
            },
            binary ? &toInstances : nullptr);
        if (!s) return writeFailed ? s : Status(Error{"export: " + s.message(), s.error().kind});
        if (instanceFile) {
            if (Status c = instanceFile->commit(); !c) return c;
        }
        if (Status c = file->commit(); !c) {
            // instances.bin is only read through its manifest: without one it goes too.
            std::error_code ec;
            if (binary) std::filesystem::remove(mOptions.outDir / kInstanceFileName, ec);
            return c;
        }
        r.files.push_back({ExportFormat::Manifest, "manifest.json", bytes});
        if (binary) {
            r.files.push_back({ExportFormat::Manifest, std::filesystem::path(kInstanceFileName), instanceBytes});
        } else {
            // An instances.bin of an earlier bake into this folder is not this manifest's.
            std::error_code ec;
            std::filesystem::remove(mOptions.outDir / kInstanceFileName, ec);
        }
        return Status::success();
    }

    Status layerFiles(Run& r) {
        if (mLayers == nullptr) return Error{"export: the layers format needs a layer source, and none was given"};
        Result<std::vector<LayerInfo>> styles = layerStylesFor(*mLayers, mOptions.layerStyles);
        if (!styles) return Error{"export: " + styles.message()};
        const ProgressCallback inner = [&](double f, std::string_view stage) { return step(r, f, stage); };
        Result<std::vector<std::string>> files =
            writeLayerFiles(*mLayers, mScene.tiles, *styles, mOptions.outDir / "layers", inner, mOptions.threads);
        if (!files) return Error{"export: " + files.message(), files.error().kind};
        for (const std::string& f : *files) {
            const std::filesystem::path relative = std::filesystem::path("layers") / f;
            r.files.push_back({ExportFormat::Layers, relative, sizeOnDisk(mOptions.outDir / relative)});
        }
        return Status::success();
    }

    Status collision(Run& r) {
        if (mLayers == nullptr) return Error{"export: the collision format needs a layer source, and none was given"};
        const std::vector<std::string> names =
            mOptions.collisionLayers.empty() ? mLayers->layerNames() : mOptions.collisionLayers;
        if (names.empty()) return Error{"export: collision: the layer source has no layers"};
        Result<CollisionGrid> grid = CollisionGrid::build(*mLayers, mScene.tiles, names);
        if (!grid) return Error{"export: " + grid.message()};
        Result<std::vector<std::uint8_t>> bytes = encodeCollisionFile(*grid, mScene.tiles);
        if (!bytes) return Error{"export: " + bytes.message()};
        if (!step(r, 0.5, "writing collision.tbcg")) return cancelled();
        return write(r, ExportFormat::Collision, "collision.tbcg", *bytes);
    }

    Status sceneGraph(Run& r) {
        if (!mOptions.sceneGraphWriter) {
            return Error{"export: osgb: this program was built without the render module (OpenSceneGraph)"};
        }
        if (Status s = createFolder(mOptions.outDir); !s) return Error{"export: " + s.message()};
        const ProgressCallback within = [&](double fraction, std::string_view stage) {
            return step(r, fraction, stage);
        };
        Result<std::vector<std::filesystem::path>> files =
            mOptions.sceneGraphWriter(mScene, mOptions, mCatalogue, mLayers, mOptions.outDir / "scene.osgb", within);
        if (!files)
            return files.error().kind == ErrorKind::Cancelled ? cancelled() : Error{"export: " + files.message()};
        for (const std::filesystem::path& relative : *files) {
            r.files.push_back({ExportFormat::Osgb, relative, sizeOnDisk(mOptions.outDir / relative)});
        }
        return Status::success();
    }

    const Scene& mScene;
    const ExportOptions& mOptions;
    const AssetCatalogue& mCatalogue;
    const LayerSource* mLayers;
    const ProgressCallback& mProgress;
    std::vector<AssetMesh> mMeshes;
    bool mMeshesLoaded = false;
    std::vector<Run> mRuns;
    std::mutex mProgressMutex;       ///< one progress call at a time, and the runs' shares
    std::atomic<bool> mStop{false};  ///< cancelled, or a format failed: the others stop
};

}  // namespace

std::string_view exportFormatName(ExportFormat format) {
    switch (format) {
        case ExportFormat::Glb:
            return "glb";
        case ExportFormat::Tiles3d:
            return "3dtiles";
        case ExportFormat::Manifest:
            return "manifest";
        case ExportFormat::Layers:
            return "layers";
        case ExportFormat::Collision:
            return "collision";
        case ExportFormat::Osgb:
            return "osgb";
    }
    return "unknown";
}

Result<std::vector<ExportFormat>> parseExportFormats(std::string_view list, bool withSceneGraph) {
    std::vector<bool> wanted(std::size(kAllFormats), false);
    bool any = false;
    while (true) {
        const std::size_t comma = list.find(',');
        const std::string_view name = trim(list.substr(0, comma));
        if (name == "all") {
            for (std::size_t i = 0; i < std::size(kAllFormats); ++i) {
                if (kAllFormats[i] != ExportFormat::Osgb || withSceneGraph) wanted[i] = true;
            }
            any = true;
        } else if (!name.empty()) {
            bool found = false;
            for (std::size_t i = 0; i < std::size(kAllFormats); ++i) {
                if (exportFormatName(kAllFormats[i]) == name) {
                    wanted[i] = true;
                    found = any = true;
                }
            }
            if (!found) {
                return Error{"unknown export format '" + std::string(name) +
                             "' (known: glb, 3dtiles, manifest, layers, collision, osgb, all)"};
            }
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    if (!any) return Error{"no export format given (known: glb, 3dtiles, manifest, layers, collision, osgb, all)"};
    std::vector<ExportFormat> out;
    for (std::size_t i = 0; i < std::size(kAllFormats); ++i) {
        if (wanted[i]) out.push_back(kAllFormats[i]);
    }
    return out;
}

std::uint64_t ExportReport::bytesOf(ExportFormat format) const {
    std::uint64_t n = 0;
    for (const ExportedFile& f : files) {
        if (f.format == format) n += f.bytes;
    }
    return n;
}

Result<ExportReport> exportScene(const Scene& scene, const ExportOptions& options, const AssetCatalogue& catalogue,
                                 const LayerSource* layers, const ProgressCallback& progress) {
    if (options.formats.empty()) return Error{"export: no format requested"};
    if (options.outDir.empty()) return Error{"export: no output folder given"};
    if (Status s = checkSceneForExport(scene); !s) return Error{"export: " + s.message()};
    // Each format once, in a fixed order, so the same request always writes the same way.
    std::vector<ExportFormat> formats;
    for (ExportFormat f : kAllFormats) {
        if (std::find(options.formats.begin(), options.formats.end(), f) != options.formats.end()) {
            formats.push_back(f);
        }
    }
    if (Status s = createFolder(options.outDir); !s) return Error{"export: " + s.message()};
    Exporter exporter(scene, options, catalogue, layers, progress);
    return exporter.run(formats);
}

Result<GlbExportStream> GlbExportStream::open(const ExportOptions& options, const std::filesystem::path& spillFolder) {
    const GlbSceneOptions glbOptions = sceneGlbOptions(options, options.plainNodes);
    if (options.scenePart) {
        if (Status s = createFolder(options.outDir); !s) return Error{"export: " + s.message()};
        Result<ScenePartWriter> part =
            ScenePartWriter::open(options.outDir / kScenePartFile, glbOptions, options.faults);
        if (!part) return part.error();
        return GlbExportStream(std::nullopt, std::move(*part), options.outDir, options.faults);
    }
    Result<GlbSceneStream> stream = GlbSceneStream::open(glbOptions, spillFolder);
    if (!stream) return Error{"export: " + stream.message(), stream.error().kind};
    return GlbExportStream(std::move(*stream), std::nullopt, options.outDir, options.faults);
}

Status GlbExportStream::add(const Scene& part, const AssetCatalogue& catalogue) {
    std::vector<AssetMesh> meshes;
    meshes.reserve(part.assets.size());
    for (const std::string& id : part.assets) {
        auto it = mMeshes.find(id);
        if (it == mMeshes.end()) {
            Result<AssetMesh> mesh = loadAssetMesh(id, catalogue);
            if (!mesh) return Error{"export: " + mesh.message()};
            it = mMeshes.emplace(id, std::move(mesh).value()).first;
        }
        meshes.push_back(it->second);
    }
    if (mPart) return mPart->add(part, meshes);
    if (Status s = mStream->add(part, meshes); !s) return glbError(s, mOutDir);
    return Status::success();
}

Result<ExportedFile> GlbExportStream::finish(const ProgressCallback& progress) {
    if (mPart) {
        if (!reportProgress(progress, 0.0, "writing scene.part")) return cancelled("export cancelled");
        Result<std::uint64_t> bytes = mPart->finish();
        if (!bytes) return bytes.error();
        return ExportedFile{ExportFormat::Glb, kScenePartFile, *bytes};
    }
    // A country's file is gigabytes: its share written, every 64 MiB.
    constexpr std::uint64_t kEvery = std::uint64_t{64} << 20;
    const double total = static_cast<double>(std::max<std::uint64_t>(1, mStream->encodedBytes()));
    std::uint64_t written = 0, reported = 0;
    return writeEncoded(
        ExportFormat::Glb, mOutDir, "scene.glb", mFaults,
        [&](const GlbSink& sink) {
            return mStream->finish([&](std::span<const std::uint8_t> bytes) -> Status {
                if (Status s = sink(bytes); !s) return s;
                written += bytes.size();
                if (written - reported < kEvery) return Status::success();
                reported = written;
                if (!reportProgress(progress, std::min(1.0, double(written) / total), "writing scene.glb")) {
                    return cancelled("export cancelled");
                }
                return Status::success();
            });
        },
        [&] { return reportProgress(progress, 0.0, "writing scene.glb"); });
}

}  // namespace terrabit::core
