#include "terrabit/render/scene_export.h"

#include <osg/ProxyNode>
#include <osgDB/Registry>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <system_error>
#include <thread>

#include "terrabit/render/asset_model.h"
#include "terrabit/render/scene_file.h"
#include "terrabit/render/scene_graph.h"

namespace terrabit::render {

namespace {

namespace fs = std::filesystem;

/// The group files' names as the root refers to them: relative to the root's folder, with '/'
/// on every platform (osgDB resolves them against the root's own folder).
std::string groupReference(const fs::path& folderName, const std::string& quadkey, const std::string& ext) {
    return folderName.string() + "/" + quadkey + ext;
}

/// Builds and writes every group into `folder`, on `threads` threads (each with its own graph and
/// model cache; a group's graph is dropped once written). The first error in group order, so
/// the message is the same for any thread count. Progress is reported from the calling thread
/// only, as it finishes a group; once the callback says stop, no thread takes another group.
core::Status writeGroups(std::span<const TileGroup> groups, const fs::path& folder, const std::string& ext,
                         const core::Scene& scene, const SceneGraphOptions& graphOptions,
                         const core::AssetCatalogue& catalogue, const core::LayerSource* layers, int threads,
                         const core::ProgressCallback& progress) {
    std::vector<std::optional<core::Error>> errors(groups.size());
    std::atomic<std::size_t> next{0}, done{0};
    std::atomic<bool> stop{false};
    const auto work = [&](bool reports) {
        AssetModelCache models;
        for (std::size_t i = next++; i < groups.size() && !stop; i = next++) {
            SceneGraph graph(catalogue, models, graphOptions);
            core::Status s = graph.updateTiles(scene, layers, groups[i].tiles);
            if (!s) {
                errors[i] = core::Error{"osgb: " + s.message()};
                continue;
            }
            graph.tilesGroup()->setName(groups[i].quadkey);
            if (s = writeSceneFile(*graph.tilesGroup(), folder / (groups[i].quadkey + ext)); !s) errors[i] = s.error();
            ++done;
            if (reports && !core::reportProgress(progress, double(done) / double(groups.size()), "writing osgb")) {
                stop = true;
            }
        }
    };
    const std::size_t count = std::min<std::size_t>(
        groups.size(), threads > 0 ? static_cast<std::size_t>(threads)
                                   : std::max<std::size_t>(1, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (std::size_t w = 1; w < count; ++w) pool.emplace_back(work, false);
    work(true);
    for (std::thread& t : pool) t.join();
    if (stop) return core::cancelled("export cancelled");
    for (const auto& e : errors) {
        if (e) return *e;
    }
    return core::Status::success();
}

}  // namespace

std::vector<TileGroup> groupTiles(std::span<const core::TileId> tiles) {
    std::map<std::string, std::vector<core::TileId>> byAncestor;
    for (const core::TileId& t : tiles) {
        const std::string key = t.quadkey();
        byAncestor[key.substr(0, key.size() - std::min<std::size_t>(key.size(), kGroupLevels))].push_back(t);
    }
    std::vector<TileGroup> groups;
    for (auto& [quadkey, members] : byAncestor) groups.push_back({quadkey, std::move(members)});
    return groups;
}

namespace {

/// The root file: the lighting and the sun (SceneGraph's, which no tile, catalogue or layer
/// style changes) and a ProxyNode per group file, in the order given.
core::Status writeRoot(std::span<const std::string> groups, const fs::path& file) {
    const core::AssetCatalogue none;
    AssetModelCache models;
    SceneGraph root(none, models, SceneGraphOptions{});
    const fs::path folderName = file.stem();
    const std::string ext = file.extension().string();
    for (const std::string& quadkey : groups) {
        osg::ref_ptr<osg::ProxyNode> proxy = new osg::ProxyNode;
        proxy->setName(quadkey);
        proxy->setFileName(0, groupReference(folderName, quadkey, ext));
        root.tilesGroup()->addChild(proxy);
    }
    return writeSceneFile(*root.root(), file);
}

/// The osgb files written a part at a time: the group files into a fresh folder beside the
/// root, which takes the old folder's place once every part is in (finish), before the root is
/// written.
class FileSceneGraphStream final : public core::SceneGraphStream {
public:
    FileSceneGraphStream(const core::ExportOptions& options, const core::AssetCatalogue& catalogue,
                         const fs::path& file)
        : mCatalogue(catalogue), mFile(file), mThreads(options.threads) {
        mGraphOptions.style.layers = options.layerStyles;
        mDir = file.has_parent_path() ? file.parent_path() : fs::path(".");
        mFolderName = file.stem();
        mExt = file.extension().string();
        const std::string pid = std::to_string(::getpid());
        mFresh = mDir / ("." + mFolderName.string() + ".partial-" + pid);
        mOld = mDir / ("." + mFolderName.string() + ".old-" + pid);
    }
    ~FileSceneGraphStream() override {
        std::error_code ec;
        if (!mFinished) fs::remove_all(mFresh, ec);
    }

    core::Status open() {
        std::error_code ec;
        fs::remove_all(mFresh, ec);
        if (fs::create_directories(mFresh, ec); ec) {
            return core::Error{mFresh.string() + ": cannot make the folder: " + ec.message()};
        }
        // The plugin once, before the threads ask for it.
        osgDB::Registry::instance()->getReaderWriterForExtension(mExt.empty() ? mExt : mExt.substr(1));
        return core::Status::success();
    }

    core::Status add(const core::Scene& part, const core::LayerSource* layers) override {
        return add(part, layers, {});
    }
    core::Status add(const core::Scene& part, const core::LayerSource* layers, const core::ProgressCallback& progress) {
        const std::vector<TileGroup> groups = groupTiles(part.tiles);
        for (const TileGroup& g : groups) {
            if (!mGroups.empty() && g.quadkey <= mGroups.back()) {
                return core::Error{"osgb: the tiles of group " + g.quadkey +
                                   " came in more than one part, or out of quadkey order"};
            }
        }
        if (core::Status s =
                writeGroups(groups, mFresh, mExt, part, mGraphOptions, mCatalogue, layers, mThreads, progress);
            !s) {
            // Named where it was going: the hidden folder the groups are written in first means
            // nothing to the user.
            core::Error e = s.error();
            const std::string hidden = mFresh.string(), shown = (mDir / mFolderName).string();
            for (std::size_t at = 0; (at = e.message.find(hidden, at)) != std::string::npos; at += shown.size()) {
                e.message.replace(at, hidden.size(), shown);
            }
            return e;
        }
        for (const TileGroup& g : groups) mGroups.push_back(g.quadkey);
        return core::Status::success();
    }

    core::Result<std::vector<fs::path>> finish() override {
        // Every group is written: the new folder takes the old one's place, then the root refers
        // to it. Should the root fail, the old folder comes back.
        std::error_code ec;
        const fs::path folder = mDir / mFolderName;
        const bool hadFolder = fs::exists(folder, ec);
        if (hadFolder) fs::rename(folder, mOld, ec);
        if (!ec) fs::rename(mFresh, folder, ec);
        if (ec) {
            const std::string why = ec.message();
            fs::remove_all(mFresh, ec);
            if (hadFolder) fs::rename(mOld, folder, ec);
            return core::Error{folder.string() + ": cannot move the written files into place: " + why};
        }
        mFinished = true;
        if (core::Status s = writeRoot(mGroups, mFile); !s) {
            fs::remove_all(folder, ec);
            if (hadFolder) fs::rename(mOld, folder, ec);
            return s.error();
        }
        fs::remove_all(mOld, ec);

        std::vector<fs::path> written{mFile.filename()};
        for (const std::string& quadkey : mGroups) written.push_back(mFolderName / (quadkey + mExt));
        return written;
    }

private:
    const core::AssetCatalogue& mCatalogue;
    fs::path mFile, mDir, mFolderName, mFresh, mOld;
    std::string mExt;
    int mThreads = 0;
    SceneGraphOptions mGraphOptions;
    std::vector<std::string> mGroups;  ///< the groups written so far (their quadkeys), in order
    bool mFinished = false;
};

core::Result<std::unique_ptr<FileSceneGraphStream>> openStream(const core::ExportOptions& options,
                                                               const core::AssetCatalogue& catalogue,
                                                               const fs::path& file) {
    auto stream = std::make_unique<FileSceneGraphStream>(options, catalogue, file);
    if (core::Status s = stream->open(); !s) return s.error();
    return stream;
}

}  // namespace

core::SceneGraphWriter sceneGraphFileWriter() {
    return [](const core::Scene& scene, const core::ExportOptions& options, const core::AssetCatalogue& catalogue,
              const core::LayerSource* layers, const fs::path& file,
              const core::ProgressCallback& progress) -> core::Result<std::vector<fs::path>> {
        auto stream = openStream(options, catalogue, file);
        if (!stream) return stream.error();
        if (core::Status s = (*stream)->add(scene, layers, progress); !s) return s.error();
        return (*stream)->finish();
    };
}

core::SceneGraphRootWriter sceneGraphRootWriter() {
    return [](std::span<const std::string> groups, const fs::path& file) { return writeRoot(groups, file); };
}

core::SceneGraphStreamOpener sceneGraphFileStream() {
    return [](const core::ExportOptions& options, const core::AssetCatalogue& catalogue,
              const fs::path& file) -> core::Result<std::unique_ptr<core::SceneGraphStream>> {
        auto stream = openStream(options, catalogue, file);
        if (!stream) return stream.error();
        return std::unique_ptr<core::SceneGraphStream>(std::move(*stream));
    };
}

}  // namespace terrabit::render
