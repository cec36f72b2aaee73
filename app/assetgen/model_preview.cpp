#include "model_preview.h"

#include <osg/Camera>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/Image>
#include <osg/LightModel>
#include <osg/LightSource>
#include <osg/Material>
#include <osg/MatrixTransform>
#include <osg/ShapeDrawable>
#include <osgDB/WriteFile>
#include <osgText/Text>
#include <osgViewer/Viewer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <string>
#include <system_error>

#include "terrabit/render/asset_model.h"

namespace terrabit::assetgen {

namespace {

// Rendered at twice the size and box-filtered down: smooth edges without relying on the
// driver offering multisampled pbuffers.
constexpr int kSupersample = 2;

osg::ref_ptr<osg::Node> groundAndFigure(double halfSize, double figureX, bool withFigure) {
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    osg::ref_ptr<osg::Geometry> ground = new osg::Geometry;
    osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
    const auto h = static_cast<float>(halfSize);
    v->push_back({-h, -0.01f, -h});
    v->push_back({-h, -0.01f, h});
    v->push_back({h, -0.01f, h});
    v->push_back({h, -0.01f, -h});
    ground->setVertexArray(v);
    osg::ref_ptr<osg::Vec3Array> n = new osg::Vec3Array;
    n->push_back({0, 1, 0});
    ground->setNormalArray(n, osg::Array::BIND_OVERALL);
    osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
    c->push_back({0.62f, 0.66f, 0.56f, 1.0f});
    ground->setColorArray(c, osg::Array::BIND_OVERALL);
    ground->addPrimitiveSet(new osg::DrawArrays(GL_QUADS, 0, 4));
    geode->addDrawable(ground);
    // A 1.8 m person-sized post for scale, beside models big enough for it to read as small.
    if (withFigure) {
        osg::ref_ptr<osg::ShapeDrawable> figure =
            new osg::ShapeDrawable(new osg::Box(osg::Vec3(static_cast<float>(figureX), 0.9f, 0.0f), 0.45f, 1.8f, 0.3f));
        figure->setColor({0.85f, 0.2f, 0.15f, 1.0f});
        geode->addDrawable(figure);
    }
    osg::ref_ptr<osg::Material> m = new osg::Material;
    m->setColorMode(osg::Material::AMBIENT_AND_DIFFUSE);
    geode->getOrCreateStateSet()->setAttributeAndModes(m, osg::StateAttribute::ON);
    return geode;
}

osg::ref_ptr<osg::Camera> labelCamera(int size, const std::string& title, const std::string& detail) {
    osg::ref_ptr<osg::Camera> hud = new osg::Camera;
    hud->setReferenceFrame(osg::Transform::ABSOLUTE_RF);
    hud->setProjectionMatrixAsOrtho2D(0, size, 0, size);
    hud->setViewMatrix(osg::Matrix::identity());
    // Nested in the main camera's pass (a post-render pass would draw after the picture has
    // been read back into the image) and drawn last, over everything, without depth test.
    hud->setClearMask(0);
    hud->setRenderOrder(osg::Camera::NESTED_RENDER);
    osg::StateSet* state = hud->getOrCreateStateSet();
    state->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
    state->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
    state->setRenderBinDetails(1000, "RenderBin");
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    const float margin = static_cast<float>(size) * 0.03f;
    auto line = [&](const std::string& text, float y, float height) {
        osg::ref_ptr<osgText::Text> t = new osgText::Text;
        const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
        std::error_code ec;
        if (std::filesystem::exists(font, ec)) t->setFont(font);
        t->setCharacterSize(height);
        t->setColor({0.08f, 0.08f, 0.1f, 1.0f});
        t->setPosition({margin, y, 0.0f});
        t->setText(text, osgText::String::ENCODING_UTF8);
        geode->addDrawable(t);
    };
    const float s = static_cast<float>(size);
    line(title, s - margin - s * 0.06f, s * 0.06f);
    line(detail, s - 2.0f * margin - s * 0.1f, s * 0.036f);
    hud->addChild(geode);
    return hud;
}

void downsampleInto(const osg::Image& big, osg::Image& sheet, int x0, int y0, int size) {
    // Both images are RGB, bottom row first (OpenGL order).
    for (int y = 0; y < size; ++y) {
        unsigned char* out = sheet.data(x0, y0 + y);
        for (int x = 0; x < size; ++x) {
            for (int ch = 0; ch < 3; ++ch) {
                int sum = 0;
                for (int dy = 0; dy < kSupersample; ++dy) {
                    const unsigned char* in = big.data(x * kSupersample, y * kSupersample + dy);
                    for (int dx = 0; dx < kSupersample; ++dx) sum += in[dx * 3 + ch];
                }
                out[x * 3 + ch] = static_cast<unsigned char>(sum / (kSupersample * kSupersample));
            }
        }
    }
}

std::string formatSize(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

}  // namespace

core::Status renderPreviews(const core::AssetCatalogue& catalogue, const std::filesystem::path& outDir,
                            const PreviewOptions& options) {
    std::error_code ec;
    std::filesystem::create_directories(outDir, ec);
    if (ec) return core::Error{"cannot create '" + outDir.string() + "': " + ec.message()};
    const int cell = options.cellSize;
    const int big = cell * kSupersample;

    osg::ref_ptr<osg::GraphicsContext::Traits> traits = new osg::GraphicsContext::Traits;
    traits->readDISPLAY();  // the X display from $DISPLAY (xvfb-run picks a free one)
    traits->setUndefinedScreenDetailsToDefaultScreen();
    traits->x = 0;
    traits->y = 0;
    traits->width = big;
    traits->height = big;
    traits->red = traits->green = traits->blue = 8;
    traits->alpha = 0;  // 8 bits of alpha gives X11 BadMatch on Xvfb
    traits->depth = 24;
    traits->pbuffer = true;
    traits->doubleBuffer = false;
    traits->windowDecoration = false;
    osg::ref_ptr<osg::GraphicsContext> gc = osg::GraphicsContext::createGraphicsContext(traits.get());
    if (!gc || !gc->valid()) {
        return core::Error{"cannot create an OpenGL pbuffer: is there an X server? (try xvfb-run -a)"};
    }

    osgViewer::Viewer viewer;
    viewer.setThreadingModel(osgViewer::Viewer::SingleThreaded);
    viewer.setLightingMode(osg::View::NO_LIGHT);
    osg::Camera* camera = viewer.getCamera();
    camera->setGraphicsContext(gc.get());
    camera->setViewport(0, 0, big, big);
    camera->setDrawBuffer(GL_FRONT);
    camera->setReadBuffer(GL_FRONT);
    camera->setClearColor({0.86f, 0.9f, 0.95f, 1.0f});
    camera->setComputeNearFarMode(osg::CullSettings::DO_NOT_COMPUTE_NEAR_FAR);
    osg::ref_ptr<osg::Image> image = new osg::Image;
    image->allocateImage(big, big, 1, GL_RGB, GL_UNSIGNED_BYTE);
    camera->attach(osg::Camera::COLOR_BUFFER, image.get());
    viewer.realize();

    const auto assets = catalogue.assets();
    const int columns = std::max(1, options.columns);
    const int rows =
        static_cast<int>((assets.size() + static_cast<std::size_t>(columns) - 1) / static_cast<std::size_t>(columns));
    osg::ref_ptr<osg::Image> sheet = new osg::Image;
    sheet->allocateImage(columns * cell, std::max(1, rows) * cell, 1, GL_RGB, GL_UNSIGNED_BYTE);
    std::memset(sheet->data(), 255, sheet->getTotalSizeInBytes());

    render::AssetModelCache cache;
    for (std::size_t i = 0; i < assets.size(); ++i) {
        const core::AssetInfo& info = assets[i];
        core::Result<render::AssetModel> model = cache.model(info);
        if (!model) return core::Error{"asset '" + info.id + "': " + model.message()};
        const core::ModelBounds& b = model->bounds();
        const double sx = b.size(0), sy = b.size(1), sz = b.size(2);
        const osg::Vec3d centre((b.min[0] + b.max[0]) * 0.5, sy * 0.5, (b.min[2] + b.max[2]) * 0.5);
        const double radius = 0.5 * std::sqrt(sx * sx + sy * sy + sz * sz) + 0.3;

        osg::ref_ptr<osg::Group> root = new osg::Group;
        osg::ref_ptr<osg::LightSource> sun = new osg::LightSource;
        sun->getLight()->setLightNum(0);
        sun->getLight()->setPosition({-0.45f, 0.8f, 0.55f, 0.0f});
        sun->getLight()->setAmbient({0.42f, 0.42f, 0.45f, 1.0f});
        sun->getLight()->setDiffuse({0.75f, 0.74f, 0.7f, 1.0f});
        sun->getLight()->setSpecular({0, 0, 0, 1});
        root->addChild(sun);
        osg::ref_ptr<osg::LightModel> lightModel = new osg::LightModel;
        lightModel->setAmbientIntensity({0.15f, 0.15f, 0.15f, 1.0f});
        root->getOrCreateStateSet()->setAttributeAndModes(lightModel, osg::StateAttribute::ON);
        root->getOrCreateStateSet()->setMode(GL_LIGHTING, osg::StateAttribute::ON);
        root->getOrCreateStateSet()->setMode(GL_LIGHT0, osg::StateAttribute::ON);
        root->getOrCreateStateSet()->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
        const double half = 0.5 * std::max(sx, sz);
        root->addChild(groundAndFigure(half * 1.35 + std::min(1.5, half), b.max[0] + 1.0, sy >= 3.0));
        root->addChild(model->node());

        char detail[160];
        std::snprintf(detail, sizeof detail, "%s · %s × %s m, %s m high · %zu tris", info.category.c_str(),
                      formatSize(info.footprint.width).c_str(), formatSize(info.footprint.depth).c_str(),
                      formatSize(info.height).c_str(), model->triangleCount());
        root->addChild(labelCamera(big, info.id, detail));

        // Front-right, from above: the front (+Z) and the right side (+X) both show.
        const double azimuth = 35.0 * std::numbers::pi / 180.0;
        const double elevation = 24.0 * std::numbers::pi / 180.0;
        const osg::Vec3d dir(std::sin(azimuth) * std::cos(elevation), std::sin(elevation),
                             std::cos(azimuth) * std::cos(elevation));
        const double fov = 30.0;
        const double distance = radius / std::sin(fov * 0.5 * std::numbers::pi / 180.0) * 1.08;
        // The label takes the top of the picture: aim a little above the middle.
        const osg::Vec3d target = centre + osg::Vec3d(0, radius * 0.12, 0);
        camera->setViewMatrixAsLookAt(target + dir * distance, target, {0, 1, 0});
        camera->setProjectionMatrixAsPerspective(fov, 1.0, std::max(0.1, distance - 4 * radius), distance + 4 * radius);
        viewer.setSceneData(root);
        viewer.frame();

        osg::ref_ptr<osg::Image> small = new osg::Image;
        small->allocateImage(cell, cell, 1, GL_RGB, GL_UNSIGNED_BYTE);
        downsampleInto(*image, *small, 0, 0, cell);
        const std::filesystem::path file = outDir / (info.id + ".png");
        if (!osgDB::writeImageFile(*small, file.string())) return core::Error{"cannot write '" + file.string() + "'"};
        const int col = static_cast<int>(i) % columns;
        const int row = static_cast<int>(i) / columns;
        downsampleInto(*image, *sheet, col * cell, (rows - 1 - row) * cell, cell);
    }
    const std::filesystem::path sheetFile = outDir / "contact-sheet.png";
    if (!osgDB::writeImageFile(*sheet, sheetFile.string()))
        return core::Error{"cannot write '" + sheetFile.string() + "'"};
    return core::Status::success();
}

}  // namespace terrabit::assetgen
