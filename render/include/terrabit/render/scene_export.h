#pragma once
/// The osgb export format: the render module's scene graph of a baked scene, written through
/// osgDB. Plugged into core's exportScene as ExportOptions::sceneGraphWriter, since core knows no
/// OSG (`terrabit-cli bake --format osgb` and the desktop app's export use it).

#include "terrabit/core/export/scene_export.h"

namespace terrabit::render {

/// A writer that builds the scene's graph (ground in the options' layer colours, road and water
/// meshes, instanced blocks) and writes it with writeSceneFile (atomically; .osgb or .osgt by
/// the file's extension). Errors name the asset or the file.
core::SceneGraphWriter sceneGraphFileWriter();

}  // namespace terrabit::render
