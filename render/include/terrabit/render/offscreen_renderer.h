#pragma once
/// OffscreenRenderer: draws a scene graph into an image without a window, through an OSG pbuffer
/// context (needs an X server: run under Xvfb, e.g. `xvfb-run -a -s "-screen 0 1280x800x24"`),
/// and reports what the frame drew from OSG's own statistics.

#include <osg/Image>
#include <osg/Node>
#include <osg/ref_ptr>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "terrabit/core/result.h"
#include "terrabit/render/camera_pose.h"
#include "terrabit/render/lighting.h"

namespace osgViewer {
class Viewer;
}

namespace terrabit::render {

/// What one frame drew.
struct FrameStatistics {
    /// Draw calls: the drawables the cull traversal handed to the draw traversal, as OSG's scene
    /// statistics count them (osgUtil::Statistics::numDrawables, the "Visible number of
    /// drawables" of osgViewer's statistics page). Every Terrabit drawable holds one primitive set,
    /// so each is one glDraw* call; an instanced block is one glDrawElementsInstanced.
    std::size_t drawCalls = 0;
    /// glDrawElementsInstanced calls issued by instanced blocks in this frame, counted by the
    /// primitive set itself (InstancedElements::drawCount): a check on the figure above.
    std::size_t instancedDrawCalls = 0;
    /// Triangles OSG counted (an instanced draw counts one instance's triangles).
    std::size_t triangles = 0;
    /// Vertices OSG counted (as for triangles).
    std::size_t vertices = 0;
    double frameMs = 0.0;  ///< wall time of the frame, update to the image read back included
    /// Every attribute OSG recorded for the frame (camera and viewer statistics), by name.
    std::map<std::string, double> osgAttributes;
};

class OffscreenRenderer {
public:
    /// A renderer drawing width × height RGBA images (1..8192 each). Fails with a message that
    /// says so when no pbuffer context can be made (no X server: run under xvfb-run).
    static core::Result<std::unique_ptr<OffscreenRenderer>> create(int width, int height);
    ~OffscreenRenderer();
    OffscreenRenderer(const OffscreenRenderer&) = delete;
    OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

    int width() const { return mWidth; }
    int height() const { return mHeight; }

    /// Draws `scene` seen through `pose` over the sky colour (lighting.sky), with small-feature
    /// culling off (instanced blocks must not vanish when the model is small on screen), and
    /// reads the frame back into image(). Errors: a null scene.
    core::Result<FrameStatistics> render(osg::Node* scene, const CameraPose& pose, const osg::Vec4& sky);

    /// Fixes the near and far clip distances (metres) of later frames instead of fitting them to
    /// the scene's bounds each frame; (0, 0) goes back to fitting. Two graphs of one scene with
    /// different bounds (a live graph and the same graph read from a file) then resolve depth
    /// alike and give comparable pictures.
    void setClipDistances(double nearM, double farM) {
        mNear = nearM;
        mFar = farM;
    }

    /// The last frame: RGBA, 8 bits per channel, row 0 at the bottom (OpenGL's order); use
    /// pixel() for top-down coordinates.
    const osg::Image& image() const { return *mImage; }
    /// The colour of the last frame's pixel at column x, row y counted from the top.
    osg::Vec4ub pixel(int x, int y) const;

private:
    OffscreenRenderer() = default;
    int mWidth = 0;
    int mHeight = 0;
    double mNear = 0.0;  ///< metres; 0: fitted to the scene
    double mFar = 0.0;
    std::unique_ptr<osgViewer::Viewer> mViewer;
    osg::ref_ptr<osg::Image> mImage;
};

/// Writes an image as PNG through osgDB's png plugin (top row first, as image viewers expect),
/// atomically: a temporary name in the same folder, then renamed. Errors name the file.
core::Status writePng(const osg::Image& image, const std::filesystem::path& file);

}  // namespace terrabit::render
