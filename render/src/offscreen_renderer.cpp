#include "terrabit/render/offscreen_renderer.h"

#include <osg/GraphicsContext>
#include <osgDB/Registry>
#include <osgViewer/Viewer>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>

#include "terrabit/core/export/output_file.h"
#include "terrabit/render/instanced_elements.h"

namespace terrabit::render {

core::Result<std::unique_ptr<OffscreenRenderer>> OffscreenRenderer::create(int width, int height) {
    if (width < 1 || height < 1 || width > 8192 || height > 8192) {
        return core::Error{"offscreen image size " + std::to_string(width) + "x" + std::to_string(height) +
                           " is outside 1..8192"};
    }
    // Debian's OSG is GLX-only: without an X server there is no context of any kind, and OSG
    // would only print a warning and hand back nothing.
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display) {
        return core::Error{
            "offscreen rendering needs an X server and DISPLAY is not set: run under "
            "xvfb-run -a -s \"-screen 0 1280x800x24\""};
    }
    osg::ref_ptr<osg::GraphicsContext::Traits> traits = new osg::GraphicsContext::Traits;
    traits->readDISPLAY();
    traits->setUndefinedScreenDetailsToDefaultScreen();
    traits->x = 0;
    traits->y = 0;
    traits->width = width;
    traits->height = height;
    traits->red = traits->green = traits->blue = 8;
    // alpha = 8 gives an X11 BadMatch every frame under Xvfb; the image gets alpha from glReadPixels anyway.
    traits->alpha = 0;
    traits->depth = 24;
    traits->doubleBuffer = false;
    traits->pbuffer = true;
    traits->windowDecoration = false;
    traits->sharedContext = nullptr;
    osg::ref_ptr<osg::GraphicsContext> context = osg::GraphicsContext::createGraphicsContext(traits.get());
    if (!context || !context->valid()) {
        return core::Error{std::string("cannot create an OpenGL pbuffer context on display '") + display +
                           "' (is the X server running? is Mesa's GLX installed?)"};
    }

    std::unique_ptr<OffscreenRenderer> r(new OffscreenRenderer);
    r->mWidth = width;
    r->mHeight = height;
    r->mViewer = std::make_unique<osgViewer::Viewer>();
    osgViewer::Viewer& viewer = *r->mViewer;
    viewer.setThreadingModel(osgViewer::Viewer::SingleThreaded);
    viewer.setLightingMode(osg::View::NO_LIGHT);  // the scene brings its own sun
    viewer.setKeyEventSetsDone(0);
    osg::Camera* camera = viewer.getCamera();
    camera->setGraphicsContext(context.get());
    camera->setViewport(0, 0, width, height);
    camera->setDrawBuffer(GL_FRONT);
    camera->setReadBuffer(GL_FRONT);
    camera->setCullingMode(camera->getCullingMode() & ~osg::CullSettings::SMALL_FEATURE_CULLING);
    camera->setComputeNearFarMode(osg::CullSettings::COMPUTE_NEAR_FAR_USING_BOUNDING_VOLUMES);
    r->mImage = new osg::Image;
    r->mImage->allocateImage(width, height, 1, GL_RGBA, GL_UNSIGNED_BYTE);
    camera->attach(osg::Camera::COLOR_BUFFER, r->mImage.get());
    // Scene statistics (drawables, primitives) are collected per camera; the viewer's own
    // statistics hold the frame timings.
    camera->getStats()->collectStats("scene", true);
    viewer.getViewerStats()->collectStats("frame_rate", true);
    viewer.realize();
    if (!viewer.isRealized()) return core::Error{"the offscreen viewer could not be realized"};
    return r;
}

OffscreenRenderer::~OffscreenRenderer() = default;

core::Result<FrameStatistics> OffscreenRenderer::render(osg::Node* scene, const CameraPose& pose,
                                                        const osg::Vec4& sky) {
    if (!scene) return core::Error{"offscreen render: no scene"};
    osgViewer::Viewer& viewer = *mViewer;
    viewer.setSceneData(scene);
    osg::Camera* camera = viewer.getCamera();
    camera->setClearColor(sky);
    camera->setViewMatrix(pose.viewMatrix());
    const double aspect = static_cast<double>(mWidth) / mHeight;
    if (mNear > 0.0 && mFar > mNear) {
        camera->setComputeNearFarMode(osg::CullSettings::DO_NOT_COMPUTE_NEAR_FAR);
        camera->setProjectionMatrix(pose.projectionMatrix(aspect, mNear, mFar));
    } else {
        camera->setComputeNearFarMode(osg::CullSettings::COMPUTE_NEAR_FAR_USING_BOUNDING_VOLUMES);
        camera->setProjectionMatrix(pose.projectionMatrix(aspect));
    }

    const std::uint64_t instancedBefore = InstancedElements::drawCount();
    const auto t0 = std::chrono::steady_clock::now();
    viewer.frame();
    const auto t1 = std::chrono::steady_clock::now();

    FrameStatistics s;
    s.frameMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
    s.instancedDrawCalls = static_cast<std::size_t>(InstancedElements::drawCount() - instancedBefore);
    const unsigned frame = viewer.getFrameStamp()->getFrameNumber();
    for (osg::Stats* stats : {camera->getStats(), viewer.getViewerStats()}) {
        if (!stats) continue;
        for (const auto& [name, value] : stats->getAttributeMap(frame)) s.osgAttributes[name] = value;
    }
    auto attribute = [&](const char* name) {
        const auto it = s.osgAttributes.find(name);
        return it == s.osgAttributes.end() ? std::size_t{0} : static_cast<std::size_t>(it->second);
    };
    s.drawCalls = attribute("Visible number of drawables");
    s.triangles = attribute("Visible number of GL_TRIANGLES");
    s.vertices = attribute("Visible vertex count");
    return s;
}

osg::Vec4ub OffscreenRenderer::pixel(int x, int y) const {
    const unsigned char* p = mImage->data(x, mHeight - 1 - y);
    return {p[0], p[1], p[2], p[3]};
}

core::Status writePng(const osg::Image& image, const std::filesystem::path& file) {
    // Encoded in memory, then written through an OutputFile: osgDB's PNG writer does not check
    // its writes, so on a full disk it reported success for a cut-off file.
    osgDB::ReaderWriter* png = osgDB::Registry::instance()->getReaderWriterForExtension("png");
    if (!png) return core::Error{file.string() + ": cannot write PNG (is osgDB's png plugin installed?)"};
    std::ostringstream encoded(std::ios::binary);
    const osgDB::ReaderWriter::WriteResult result = png->writeImage(image, encoded, nullptr);
    if (!result.success()) {
        return core::Error{file.string() + ": cannot encode the PNG" +
                           (result.message().empty() ? std::string() : ": " + result.message())};
    }
    auto out = core::OutputFile::create(file);
    if (!out) return out.error();
    if (core::Status s = out->write(std::string_view(encoded.view())); !s) return s;
    return out->commit();
}

}  // namespace terrabit::render
