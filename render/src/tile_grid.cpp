#include "terrabit/render/tile_grid.h"

#include <osg/Geode>
#include <osg/LineWidth>
#include <osgText/Font>
#include <osgText/Text>

#include <set>
#include <system_error>
#include <utility>

#include "overlay_state_p.h"
#include "terrabit/render/tile_geometry.h"

namespace terrabit::render {

std::optional<std::filesystem::path> labelFontFile() {
    static const char* const kCandidates[] = {
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    };
    for (const char* c : kCandidates) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(c, ec)) return std::filesystem::path(c);
    }
    return std::nullopt;
}

namespace {

osg::ref_ptr<osgText::Font> labelFont() {
    // Loaded once: every label of every grid shares the glyph textures.
    static const osg::ref_ptr<osgText::Font> font = [] {
        osg::ref_ptr<osgText::Font> f;
        if (const auto file = labelFontFile()) f = osgText::readRefFontFile(file->string());
        return f.valid() ? f : osgText::Font::getDefaultFont();
    }();
    return font;
}

}  // namespace

osg::ref_ptr<osg::Group> makeTileGrid(const core::GroundFrame& frame, std::span<const core::TileId> tiles,
                                      const TileGridStyle& style) {
    osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
    // Shared borders are drawn once: each tile adds its north and west edge, and its south or
    // east edge only when no selected tile lies there.
    std::set<core::TileId> selected(tiles.begin(), tiles.end());
    osg::ref_ptr<osg::Geode> labels = new osg::Geode;
    constexpr double n = core::kTileCells;
    for (const core::TileId& t : tiles) {
        const TilePlacement p = tilePlacement(frame, t);
        const double h = style.heightMetres;
        auto edge = [&](double x0, double y0, double x1, double y1) {
            vertices->push_back(p.at(x0, y0, h));
            vertices->push_back(p.at(x1, y1, h));
        };
        edge(0, 0, n, 0);
        edge(0, 0, 0, n);
        const auto south = t.neighbour(0, 1);
        if (!south || !selected.count(*south)) edge(0, n, n, n);
        const auto east = t.neighbour(1, 0);
        if (!east || !selected.count(*east)) edge(n, 0, n, n);

        osg::ref_ptr<osgText::Text> text = new osgText::Text;
        text->setFont(labelFont());
        text->setText(t.quadkey());
        text->setColor(style.textColour);
        text->setCharacterSize(static_cast<float>(style.textSize * n * p.metresPerCell));
        text->setCharacterSizeMode(osgText::Text::OBJECT_COORDS);
        text->setAxisAlignment(osgText::Text::SCREEN);
        text->setAlignment(osgText::Text::CENTER_CENTER);
        text->setPosition(p.at(n / 2, n / 2, h));
        text->setBackdropType(osgText::Text::OUTLINE);
        text->setBackdropColor(osg::Vec4(0.0f, 0.0f, 0.0f, 0.8f));
        labels->addDrawable(text);
    }
    osg::ref_ptr<osg::Geometry> lines =
        detail::colouredGeometry(vertices, style.lineColour, new osg::DrawArrays(GL_LINES, 0, vertices->size()));
    lines->setName("tile grid");
    osg::ref_ptr<osg::Geode> lineGeode = new osg::Geode;
    lineGeode->addDrawable(lines);
    detail::overlayState(*lineGeode->getOrCreateStateSet(), detail::kGridBin, true);
    lineGeode->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(1.5f), osg::StateAttribute::ON);
    detail::overlayState(*labels->getOrCreateStateSet(), detail::kGridBin + 1, true);

    osg::ref_ptr<osg::Group> grid = new osg::Group;
    grid->setName("tile grid");
    grid->addChild(lineGeode);
    grid->addChild(labels);
    return grid;
}

}  // namespace terrabit::render
