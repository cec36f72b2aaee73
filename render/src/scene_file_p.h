#pragma once
/// Internal to render: what only the tests ask of scene_file.h (not API; the tests include it
/// from the source folder).

#include <osg/Node>
#include <osg/ref_ptr>

#include <cstddef>
#include <filesystem>

#include "terrabit/core/result.h"

namespace terrabit::render {

/// Reads a graph written by writeSceneFile (or any file osgDB reads). Errors name the file.
core::Result<osg::ref_ptr<osg::Node>> readSceneFile(const std::filesystem::path& file);

/// Drawables reached by a traversal of the graph (each visit counts: a drawable shared by two
/// parents counts twice), every child of every switch and LOD included.
std::size_t countDrawables(const osg::Node& graph);

/// Sum over all primitive sets reached of their instance counts (1 for a non-instanced set).
std::size_t countInstances(const osg::Node& graph);

}  // namespace terrabit::render
