#pragma once
/// Scene graphs to and from OpenSceneGraph's own files: .osgb (binary) and .osgt (text), through
/// osgDB's serializer plugins (Debian's openscenegraph package ships them).

#include <osg/Node>
#include <osg/ref_ptr>

#include <cstddef>
#include <filesystem>

#include "terrabit/core/result.h"

namespace terrabit::render {

/// Writes a graph to `file` (.osgb or .osgt, by its extension) atomically: to a temporary name
/// in the same folder first, flushed to disk and renamed into place once complete, so a reader
/// never sees half a file and a failed write leaves any earlier file as it was. Images are embedded. Instanced
/// blocks are written as plain OSG: a DrawElements with the instance count, the transforms in a
/// float 2-D texture (osgDB drops a texture buffer's data) and the matching shader, so osgviewer
/// shows the file as Terrabit draws it, one draw per block. The live graph is not modified. Errors name the file: an
/// unknown extension, a missing plugin, an unwritable folder.
core::Status writeSceneFile(const osg::Node& graph, const std::filesystem::path& file);

}  // namespace terrabit::render
