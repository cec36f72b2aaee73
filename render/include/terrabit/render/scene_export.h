#pragma once
/// The osgb export format: the render module's scene graph of a baked scene, written through
/// osgDB. Plugged into core's exportScene as ExportOptions::sceneGraphWriter, since core knows no
/// OSG (`terrabit-cli bake --format osgb` and the desktop app's export use it).
///
/// A whole region's graph does not fit in memory at once, nor in one zlib stream written in
/// reasonable time, so the scene is written as a small root and a file per group of tiles:
///
///   scene.osgb                the root: the lighting, the sun, and a ProxyNode per group (loaded
///                             with the root: osgviewer, osgconv and readSceneFile show it whole)
///   scene/<quadkey>.osgb      the tiles under one ancestor kGroupLevels above the scene's zoom
///                             (at most 64 tiles), as the viewport draws them, with the models
///                             they use
///
/// A streamed bake writes the groups of each batch as it comes (sceneGraphFileStream).
/// The groups are built and written on every thread (ExportOptions::threads), each from its own
/// graph, which is dropped once written: memory holds the groups in hand, not the scene's graph.
/// Any thread count writes the same bytes.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "terrabit/core/export/scene_export.h"

namespace terrabit::render {

/// Tiles share a file with the tiles under the same ancestor this many levels up: at most 8 × 8
/// of them, about 2.4 km square at zoom 17. Larger groups repeat the models less (each file
/// holds the models its tiles use: +4 % bytes on monaco-region against one file, +17 % with
/// groups of 16) but hold more in memory while written.
inline constexpr int kGroupLevels = core::kSceneGraphGroupLevels;

/// One file's tiles: those under the ancestor named by `quadkey`.
struct TileGroup {
    std::string quadkey;
    std::vector<core::TileId> tiles;  ///< in the scene's order
};

/// The scene's tiles grouped under their ancestors kGroupLevels up (the zoom-0 tile at most),
/// by quadkey.
std::vector<TileGroup> groupTiles(std::span<const core::TileId> tiles);

/// A writer that builds the scene's graph (ground in the options' layer colours, road and water
/// meshes, instanced blocks) group by group and writes the files above with writeSceneFile
/// (.osgb or .osgt by the file's extension; each file atomically). The groups go to a new folder
/// that replaces the old one only once every group is written, so a failure leaves an earlier
/// export as it was. Errors name the asset or the file.
core::SceneGraphWriter sceneGraphFileWriter();

/// The same files written a part of the scene at a time (a streamed bake's batches, cut between
/// groups): each part's groups are written as it comes, the root and the folder's move into
/// place at finish. The same bytes as sceneGraphFileWriter for the whole scene.
core::SceneGraphStreamOpener sceneGraphFileStream();

/// The root file alone, referring to group files already in place (shards' groups joined by
/// terrabit-cli merge): the same bytes sceneGraphFileStream's finish writes for those groups.
core::SceneGraphRootWriter sceneGraphRootWriter();

}  // namespace terrabit::render
