// The buildings of the default library. Each builder models one recognisable type with a few
// hundred flat-shaded faces: walls, a real roof, windows and doors as coloured panels. Sizes are
// typical of the real thing so that placement's footprint matching finds sensible fits.

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "default_models_p.h"
#include "terrabit/core/assets/style_kit.h"

namespace terrabit::core::detail {

namespace {

using namespace style;

using Polygon = style::Outline;  // (x, z) used; counter-clockwise seen from above

// A chimney: a small box with a darker cap.
void chimney(MeshBuilder& b, double x, double z, double y0, double y1, Rgb colour) {
    b.setColour(colour);
    b.addBox({x - 0.35, y0, z - 0.35}, {x + 0.35, y1, z + 0.35});
    b.setColour(kConcreteDark);
    b.addBox({x - 0.42, y1, z - 0.42}, {x + 0.42, y1 + 0.12, z + 0.42});
}

ModelRecipe cottage() {
    MeshBuilder b;
    const double h = 2.8;
    b.setColour(kPlasterCream);
    b.addBox({-3, 0, -3}, {3, h, 3});
    const auto f = boxFacades(-3, 3, -3, 3, 0, h);
    for (const Facade& face : f) panel(b, face, 0, 0, face.width, 0.4, kStoneDark, kBand);  // plinth band
    panel(b, f[0], 2.2, 0, 3.2, 2.1, kDoorWood, 2 * MeshBuilder::kPanelOffset);
    window(b, f[0], 1.0, 0.9, 1.0, 1.2, kFrameWhite, kGlass);
    window(b, f[0], 4.6, 0.9, 1.1, 1.2, kFrameWhite, kGlass);
    window(b, f[1], 3.0, 0.9, 1.0, 1.2, kFrameWhite, kGlass);
    window(b, f[3], 3.0, 0.9, 1.0, 1.2, kFrameWhite, kGlass);
    window(b, f[2], 1.8, 0.9, 0.9, 1.1, kFrameWhite, kGlass);
    window(b, f[2], 4.2, 0.9, 0.9, 1.1, kFrameWhite, kGlass);
    b.setColour(kRoofTerracotta);
    b.addGableRoof(-3, 3, -3, 3, h, 2.4, true, 0.35, kPlasterCream);
    chimney(b, 1.8, -1.0, 3.6, 5.9, kBrick);
    return {"cottage_gabled", "building", {"residential", "house", "rural", "small"}, 1.0, b.take()};
}

ModelRecipe houseGabled() {
    MeshBuilder b;
    const double h = 5.8;
    b.setColour(kPlasterWhite);
    b.addBox({-4, 0, -5}, {4, h, 5});
    const auto f = boxFacades(-4, 4, -5, 5, 0, h);
    for (const Facade& face : f) panel(b, face, 0, 0, face.width, 0.5, kStoneDark, kBand);
    for (const Facade& face : f) panel(b, face, 0, 2.85, face.width, 3.0, kPlasterCream, kBand);  // floor band
    panel(b, f[0], 3.4, 0, 4.6, 2.2, kDoorWood, 2 * MeshBuilder::kPanelOffset);
    window(b, f[0], 1.6, 1.0, 1.1, 1.3, kFrameDark, kGlass);
    window(b, f[0], 6.4, 1.0, 1.1, 1.3, kFrameDark, kGlass);
    for (double u : {1.6, 4.0, 6.4}) window(b, f[0], u, 3.8, 1.0, 1.3, kFrameDark, kGlass);
    window(b, f[0], 4.0, 6.7, 0.8, 1.0, kFrameDark, kGlass);  // attic window in the gable
    for (int side : {1, 3})
        windowGrid(b, f[static_cast<std::size_t>(side)], 2, 1.0, 2.9, 1.0, 1.3, 3.0, kFrameDark, kGlass);
    windowGrid(b, f[2], 2, 1.0, 2.9, 1.0, 1.3, 2.6, kFrameDark, kGlass);
    b.setColour(kRoofSlate);
    b.addGableRoof(-4, 4, -5, 5, h, 3.4, false, 0.4, kPlasterWhite);
    chimney(b, -1.6, -2.5, 7.0, 9.8, kBrick);
    return {"house_gabled", "building", {"residential", "house", "suburban"}, 1.0, b.take()};
}

ModelRecipe villaHipped() {
    MeshBuilder b;
    const double h = 6.4;
    b.setColour(kPlasterOchre);
    b.addBox({-7, 0, -5.5}, {7, h, 5.5});
    const auto f = boxFacades(-7, 7, -5.5, 5.5, 0, h);
    for (const Facade& face : f) {
        panel(b, face, 0, 0, face.width, 0.5, kStone, kBand);
        panel(b, face, 0, h - 0.35, face.width, h, kPlasterCream, kBand);  // cornice band
        const int count = std::max(2, static_cast<int>(face.width / 3.2));
        const double step = face.width / count;
        for (int floor = 0; floor < 2; ++floor) {
            for (int i = 0; i < count; ++i) {
                const double uc = step * (i + 0.5);
                if (&face == &f[0] && floor == 0 && std::abs(uc - 7.0) < 1.6) continue;  // the door
                const double v = 0.9 + floor * 3.2;
                panel(b, face, uc - 1.05, v - 0.1, uc - 0.55, v + 1.6, kShutterGreen);
                panel(b, face, uc + 0.55, v - 0.1, uc + 1.05, v + 1.6, kShutterGreen);
                window(b, face, uc, v, 1.1, 1.5, kFrameWhite, kGlass);
            }
        }
    }
    // Portico: two columns carrying a small flat roof over the door.
    panel(b, f[0], 6.3, 0, 7.7, 2.6, kDoorWood, 2 * MeshBuilder::kPanelOffset);
    b.setColour(kPlasterCream);
    b.addBox({-1.7, 0, 5.5}, {1.7, 0.25, 7.3});
    b.setColour(kMarble);
    b.addBox({-1.6, 0.25, 6.8}, {-1.2, 3.2, 7.2});
    b.addBox({1.2, 0.25, 6.8}, {1.6, 3.2, 7.2});
    b.setColour(kPlasterCream);
    b.addBox({-1.9, 3.2, 5.5}, {1.9, 3.6, 7.5}, true);
    b.setColour(kRoofTerracotta);
    b.addHipRoof(-7, 7, -5.5, 5.5, h, 3.2, 0.6);
    chimney(b, 3.5, -1.5, 7.5, 10.2, kPlasterOchre);
    return {"villa_hipped", "building", {"residential", "villa", "suburban", "mediterranean"}, 1.0, b.take()};
}

ModelRecipe townhouseRow() {
    MeshBuilder b;
    const double h = 9.0;
    const Rgb colours[3] = {kPlasterPink, kPlasterCream, kPlasterSage};
    for (int unit = 0; unit < 3; ++unit) {
        const double x0 = -9.0 + unit * 6.0;
        b.setColour(colours[unit]);
        // Each unit's own walls: front and back façades, the outer units also a side wall.
        Facade front = edgeFacade({x0, 0, 4.5}, {x0 + 6, 0, 4.5}, 0, h);
        Facade back = edgeFacade({x0 + 6, 0, -4.5}, {x0, 0, -4.5}, 0, h);
        b.addQuad(front.at(0, 0), front.at(6, 0), front.at(6, h), front.at(0, h));
        b.addQuad(back.at(0, 0), back.at(6, 0), back.at(6, h), back.at(0, h));
        panel(b, front, 0, 0, 6, 0.45, kStoneDark, kBand);
        panel(b, back, 0, 0, 6, 0.45, kStoneDark, kBand);
        panel(b, front, 1.0, 0, 2.1, 2.3, kDoorWood, 2 * MeshBuilder::kPanelOffset);
        window(b, front, 4.1, 1.0, 1.4, 1.5, kFrameWhite, kGlass);
        for (int floor = 1; floor < 3; ++floor) {
            for (double u : {1.2, 3.0, 4.8}) window(b, front, u, 0.9 + floor * 3.0, 1.0, 1.5, kFrameWhite, kGlass);
        }
        for (int floor = 0; floor < 3; ++floor) {
            for (double u : {1.6, 4.4}) window(b, back, u, 0.9 + floor * 3.0, 1.0, 1.4, kFrameWhite, kGlass);
        }
        // Pilaster between units.
        if (unit > 0) {
            b.setColour(kStone);
            b.addBox({x0 - 0.15, 0, 4.5}, {x0 + 0.15, h, 4.65});
        }
        chimney(b, x0 + 6.0 * (unit == 2 ? 0.7 : 0.3), -0.8, h + 2.0, h + 3.9, kBrick);
    }
    const auto f = boxFacades(-9, 9, -4.5, 4.5, 0, h);
    b.setColour(kPlasterPink);
    b.addQuad(f[3].at(0, 0), f[3].at(9, 0), f[3].at(9, h), f[3].at(0, h));
    b.setColour(kPlasterSage);
    b.addQuad(f[1].at(0, 0), f[1].at(9, 0), f[1].at(9, h), f[1].at(0, h));
    for (int side : {1, 3}) {
        window(b, f[static_cast<std::size_t>(side)], 4.5, 3.9, 0.9, 1.3, kFrameWhite, kGlass);
        window(b, f[static_cast<std::size_t>(side)], 4.5, 6.9, 0.9, 1.3, kFrameWhite, kGlass);
    }
    b.setColour(kRoofSlate);
    b.addGableRoof(-9, 9, -4.5, 4.5, h, 3.0, true, 0.3, kPlasterPink);
    // The +X gable took the first unit's colour from addGableRoof; repaint it in the last one's.
    b.setColour(kPlasterSage);
    b.addTriangle({9 + MeshBuilder::kPanelOffset, h, 4.5}, {9 + MeshBuilder::kPanelOffset, h, -4.5},
                  {9 + MeshBuilder::kPanelOffset, h + 3.0, 0});
    return {"townhouse_row", "building", {"residential", "terrace", "urban", "house"}, 1.0, b.take()};
}

ModelRecipe shopCorner() {
    MeshBuilder b;
    const double h = 7.2;
    b.setColour(kPlasterCream);
    b.addWalls(rectangle(-5, 5, -4.5, 4.5), 0, h);
    const auto f = boxFacades(-5, 5, -4.5, 4.5, 0, h);
    // Shopfront on the front and the right side: big glazing, a sign band, a door.
    for (int side : {0, 1}) {
        const Facade& face = f[static_cast<std::size_t>(side)];
        panel(b, face, 0, 0, face.width, 3.8, kFrameDark, kBand);
        b.setColour(kGlass);
        const double o = 2 * MeshBuilder::kPanelOffset;
        const int panes = static_cast<int>(face.width / 2.2);
        const double step = face.width / panes;
        for (int i = 0; i < panes; ++i) {
            const double u0 = step * i + 0.15;
            const double u1 = step * (i + 1) - 0.15;
            b.addQuad(face.at(u0, 0.5, o), face.at(u1, 0.5, o), face.at(u1, 3.0, o), face.at(u0, 3.0, o));
        }
        panel(b, face, 0.3, 3.95, face.width - 0.3, 4.55, Rgb{30, 70, 120});
        windowGrid(b, face, 1, 4.8, 3.0, 1.1, 1.5, 2.5, kFrameWhite, kGlass);
    }
    panel(b, f[0], 4.3, 0, 5.7, 2.8, Rgb{90, 60, 40}, 3 * MeshBuilder::kPanelOffset);
    windowGrid(b, f[2], 2, 1.0, 3.6, 1.0, 1.4, 3.0, kFrameWhite, kGlass);
    windowGrid(b, f[3], 2, 1.0, 3.6, 1.0, 1.4, 3.0, kFrameWhite, kGlass);
    // Striped awning over the front windows, sloping out and down, visible from below too.
    const double stripes = 10;
    for (int i = 0; i < stripes; ++i) {
        const double x0 = -4.8 + 9.6 * i / stripes;
        const double x1 = -4.8 + 9.6 * (i + 1) / stripes;
        b.setColour(i % 2 == 0 ? kAwningRed : kFrameWhite);
        b.addDoubleSidedQuad({x0, 3.05, 4.5 + 1.4}, {x1, 3.05, 4.5 + 1.4}, {x1, 3.75, 4.5 + 0.05},
                             {x0, 3.75, 4.5 + 0.05});
    }
    parapetRoof(b, rectangle(-5, 5, -4.5, 4.5), h, 0.7, 0.25, kPlasterCream, kRoofFlat);
    b.setColour(kConcrete);
    b.addBox({-3.5, h, -3.0}, {-1.9, h + 1.1, -1.8});  // air conditioning unit
    return {"shop_corner", "building", {"commercial", "retail", "urban", "small"}, 1.0, b.take()};
}

ModelRecipe apartmentBlock() {
    MeshBuilder b;
    const int floors = 6;
    const double fh = 3.0;
    const double h = floors * fh;
    b.setColour(kConcrete);
    b.addWalls(rectangle(-9, 9, -6, 6), 0, h);
    const auto f = boxFacades(-9, 9, -6, 6, 0, h);
    for (const Facade& face : f) panel(b, face, 0, 0, face.width, fh, kConcreteDark, kBand);
    windowGrid(b, f[0], 1, 0.9, fh, 1.4, 1.5, 3.0, kFrameWhite, kGlass, 9.0, 1.5);
    for (int floor = 1; floor < floors; ++floor) {
        for (int i = 0; i < 6; ++i) window(b, f[0], 1.5 + 3.0 * i, 0.9 + floor * fh, 1.4, 1.6, kFrameWhite, kGlass);
    }
    for (int side : {1, 2, 3}) {
        windowGrid(b, f[static_cast<std::size_t>(side)], floors, 0.9, fh, 1.2, 1.5, 3.0, kFrameWhite, kGlass);
    }
    // Entrance with a canopy.
    panel(b, f[0], 8.0, 0, 10.0, 2.5, kFrameDark, 2 * MeshBuilder::kPanelOffset);
    b.setColour(kConcreteDark);
    b.addBox({-1.6, 2.7, 6.0}, {1.6, 2.95, 7.4}, true);
    // Balconies on the upper floors of the front: a slab and a solid parapet.
    for (int floor = 1; floor < floors; ++floor) {
        const double y = floor * fh;
        for (double x : {-5.25, 5.25}) {
            b.setColour(kConcreteDark);
            b.addBox({x - 1.8, y - 0.2, 6.0}, {x + 1.8, y, 7.3}, true);
            b.setColour(kPlasterWhite);
            b.addBox({x - 1.8, y, 7.15}, {x + 1.8, y + 1.0, 7.3});
            b.addBox({x - 1.8, y, 6.0}, {x - 1.65, y + 1.0, 7.15});
            b.addBox({x + 1.65, y, 6.0}, {x + 1.8, y + 1.0, 7.15});
        }
    }
    parapetRoof(b, rectangle(-9, 9, -6, 6), h, 0.9, 0.3, kConcrete, kRoofFlat);
    b.setColour(kConcreteDark);
    b.addBox({2.0, h, -3.5}, {5.0, h + 2.6, 0.5});  // stair and lift housing
    return {"apartment_block", "building", {"residential", "apartment", "urban", "modern"}, 1.0, b.take()};
}

ModelRecipe apartmentL() {
    MeshBuilder b;
    const int floors = 4;
    const double fh = 3.2;
    const double h = floors * fh;
    // L: a wing along the back and a wing down the left side to the front.
    const Polygon outline{{-12, 0, -10}, {-12, 0, 10}, {-3, 0, 10}, {-3, 0, -1}, {12, 0, -1}, {12, 0, -10}};
    b.setColour(kBrick);
    b.addWalls(outline, 0, h);
    for (std::size_t i = 0; i < outline.size(); ++i) {
        const Facade face = edgeFacade(outline[i], outline[(i + 1) % outline.size()], 0, h);
        panel(b, face, 0, 0, face.width, 0.6, kStoneDark, kBand);
        panel(b, face, 0, fh - 0.2, face.width, fh, kStone, kBand);  // band over the ground floor
        const bool entrance = i == 1;                                // the front of the left wing
        windowGrid(b, face, floors, 0.9, fh, 1.2, 1.6, 3.0, kFrameWhite, kGlass, entrance ? face.width / 2 : -1.0, 1.2);
        if (entrance)
            panel(b, face, face.width / 2 - 1.0, 0, face.width / 2 + 1.0, 2.6, kDoorWood,
                  2 * MeshBuilder::kPanelOffset);
    }
    // A second entrance in the inner corner, on the back wing's front.
    const Facade inner = edgeFacade(outline[3], outline[4], 0, h);
    panel(b, inner, 2.0, 0, 4.0, 2.6, kDoorWood, 3 * MeshBuilder::kPanelOffset);
    parapetRoof(b, outline, h, 0.9, 0.3, kBrick, kRoofFlat);
    b.setColour(kConcreteDark);
    b.addBox({-10.5, h, -8.5}, {-7.5, h + 2.4, -5.5});
    return {"apartment_l", "building", {"residential", "apartment", "urban", "irregular", "l_shape"}, 1.0, b.take()};
}

ModelRecipe apartmentU() {
    MeshBuilder b;
    const int floors = 4;
    const double fh = 3.2;
    const double h = floors * fh;
    // U: a wing along the back and two wings down the sides to the front, round a yard open to
    // the street; the L's brick estate block with a second side wing.
    const Polygon outline{{-13, 0, -10}, {-13, 0, 10}, {-5, 0, 10}, {-5, 0, -2},
                          {5, 0, -2},    {5, 0, 10},   {13, 0, 10}, {13, 0, -10}};
    b.setColour(kBrick);
    b.addWalls(outline, 0, h);
    for (std::size_t i = 0; i < outline.size(); ++i) {
        const Facade face = edgeFacade(outline[i], outline[(i + 1) % outline.size()], 0, h);
        panel(b, face, 0, 0, face.width, 0.6, kStoneDark, kBand);
        panel(b, face, 0, fh - 0.2, face.width, fh, kStone, kBand);  // band over the ground floor
        // The fronts of both side wings and the yard's back (the main entrance) have doors.
        const bool entrance = i == 1 || i == 3 || i == 5;
        windowGrid(b, face, floors, 0.9, fh, 1.2, 1.6, 3.0, kFrameWhite, kGlass, entrance ? face.width / 2 : -1.0, 1.2);
        if (entrance)
            panel(b, face, face.width / 2 - 1.0, 0, face.width / 2 + 1.0, 2.6, kDoorWood,
                  2 * MeshBuilder::kPanelOffset);
    }
    parapetRoof(b, outline, h, 0.9, 0.3, kBrick, kRoofFlat);
    b.setColour(kConcreteDark);
    b.addBox({-1.5, h, -8.5}, {1.5, h + 2.4, -5.5});  // stair and lift housing over the back wing
    return {"apartment_u", "building", {"residential", "apartment", "urban", "irregular", "u_shape"}, 1.0, b.take()};
}

ModelRecipe courtyardBlock() {
    MeshBuilder b;
    const int floors = 5;
    const double fh = 3.1;
    const double h = floors * fh;
    const Polygon outer = rectangle(-16, 16, -14, 14);
    const Polygon hole = rectangle(-8, 8, -6, 6);  // counter-clockwise; walled as reversed()
    b.setColour(kPlasterOchre);
    b.addWalls(outer, 0, h);
    b.addWalls(reversed(hole), 0, h);
    auto dress = [&](const Facade& face, bool gate) {
        panel(b, face, 0, 0, face.width, fh, kStone, kBand);  // rusticated ground floor
        panel(b, face, 0, h - 0.4, face.width, h, kPlasterCream, kBand);
        windowGrid(b, face, floors, 0.9, fh, 1.1, 1.6, 3.2, kFrameWhite, kGlass, gate ? face.width / 2 : -1.0, 2.2);
        if (gate)
            panel(b, face, face.width / 2 - 2.0, 0, face.width / 2 + 2.0, 4.2, Rgb{50, 44, 40},
                  2 * MeshBuilder::kPanelOffset);
    };
    for (std::size_t i = 0; i < 4; ++i) dress(edgeFacade(outer[i], outer[(i + 1) % 4], 0, h), i == 1);
    const Polygon holeWalls = reversed(hole);
    for (std::size_t i = 0; i < 4; ++i) dress(edgeFacade(holeWalls[i], holeWalls[(i + 1) % 4], 0, h), i == 3);
    // Roof: the band between the outer parapet and the courtyard's parapet.
    const double t = 0.3;
    const double ph = 0.8;
    const Polygon outerIn = inset(outer, t);
    const Polygon holeOut = inset(hole, -t);
    b.setColour(kPlasterOchre);
    b.addWalls(outer, h, h + ph);
    b.addWalls(reversed(outerIn), h, h + ph);
    ringCap(b, outer, outerIn, h + ph);
    b.addWalls(reversed(hole), h, h + ph);
    b.addWalls(holeOut, h, h + ph);
    ringCap(b, holeOut, hole, h + ph);
    b.setColour(kRoofFlat);
    ringCap(b, outerIn, holeOut, h);
    // Courtyard floor, so the block does not look hollow from above.
    b.setColour(Rgb{150, 160, 120});
    b.addFlatCap(hole, 0.02);
    return {
        "courtyard_block", "building", {"residential", "apartment", "urban", "irregular", "courtyard"}, 1.0, b.take()};
}

ModelRecipe officeTower() {
    MeshBuilder b;
    const double podium = 8.0;
    b.setColour(kConcrete);
    b.addWalls(rectangle(-12, 12, -12, 12), 0, podium);
    const auto pf = boxFacades(-12, 12, -12, 12, 0, podium);
    for (const Facade& face : pf) {
        panel(b, face, 0.8, 0.4, face.width - 0.8, 3.6, kGlass);
        panel(b, face, 0.8, 4.4, face.width - 0.8, 7.4, kGlass);
    }
    panel(b, pf[0], 9.5, 0, 14.5, 3.8, kFrameDark, 2 * MeshBuilder::kPanelOffset);
    b.setColour(kConcreteDark);
    b.addBox({-3.5, 3.9, 12}, {3.5, 4.2, 14}, true);  // entrance canopy
    b.setColour(kRoofFlat);
    b.addFlatCap(rectangle(-12, 12, -12, 12), podium);
    // The shaft: glass walls with a spandrel band per floor and vertical mullions.
    const double top = 62.0;
    const double fh = 3.6;
    b.setColour(kGlassTower);
    b.addBox({-9, podium, -9}, {9, top, 9});
    const auto tf = boxFacades(-9, 9, -9, 9, podium, top - podium);
    for (const Facade& face : tf) {
        for (double v = fh - 0.9; v < top - podium; v += fh) panel(b, face, 0, v, face.width, v + 0.9, kConcrete);
        for (int i = 0; i <= 6; ++i) {
            const double u = face.width * i / 6.0;
            panel(b, face, std::max(0.0, u - 0.15), 0, std::min(face.width, u + 0.15), top - podium, kFrameDark,
                  2 * MeshBuilder::kPanelOffset);
        }
    }
    // Crown: a set-back plant floor and a mast.
    b.setColour(kConcrete);
    b.addBox({-9.2, top, -9.2}, {9.2, top + 0.6, 9.2});
    b.setColour(kConcreteDark);
    b.addBox({-6, top + 0.6, -6}, {6, top + 4.6, 6});
    b.setColour(kFrameDark);
    b.addFrustum(0, 0, top + 4.6, top + 14.0, 0.25, 0.08, 6, false, true);
    return {
        "office_tower", "building", {"commercial", "office", "tower", "urban", "modern", "highrise"}, 1.0, b.take()};
}

ModelRecipe warehouse() {
    MeshBuilder b;
    const double h = 7.0;
    b.setColour(kSteelBlue);
    b.addBox({-20, 0, -12.5}, {20, h, 12.5});
    const auto f = boxFacades(-20, 20, -12.5, 12.5, 0, h);
    for (const Facade& face : f) {
        panel(b, face, 0, 0, face.width, 1.2, kConcrete, kBand);
        // Corrugation read as alternating vertical strips.
        const int strips = static_cast<int>(face.width / 2.0);
        for (int i = 0; i < strips; i += 2) {
            panel(b, face, face.width * i / strips, 1.2, face.width * (i + 1) / strips, h, Rgb{108, 130, 152}, kBand);
        }
    }
    for (double u : {6.0, 14.0, 22.0}) {
        panel(b, f[0], u - 2.2, 0, u + 2.2, 5.2, kConcreteDark, 2 * MeshBuilder::kPanelOffset);
        panel(b, f[0], u - 2.0, 0, u + 2.0, 5.0, Rgb{190, 190, 180}, 3 * MeshBuilder::kPanelOffset);
    }
    panel(b, f[0], 28.0, 0, 29.1, 2.2, kFrameDark, 2 * MeshBuilder::kPanelOffset);
    for (double u : {31.0, 33.5, 36.0}) window(b, f[0], u, 1.4, 1.8, 1.2, kFrameWhite, kGlass);
    b.setColour(kRoofMetal);
    b.addGableRoof(-20, 20, -12.5, 12.5, h, 2.0, true, 0.3, kSteelBlue);
    // Skylights along both slopes.
    for (int i = 0; i < 6; ++i) {
        const double x = -16.0 + i * 6.4;
        for (double side : {-1.0, 1.0}) {
            const double z0 = side * 3.0;
            const double z1 = side * 7.0;
            const double y0 = h + 2.0 * (1 - 3.0 / 12.5) + 0.04;
            const double y1 = h + 2.0 * (1 - 7.0 / 12.5) + 0.04;
            b.setColour(Rgb{170, 200, 215});
            addQuadFacing(b, {x - 1.0, y0, z0}, {x + 1.0, y0, z0}, {x + 1.0, y1, z1}, {x - 1.0, y1, z1}, {0, 1, 0});
        }
    }
    return {"warehouse", "building", {"industrial", "warehouse", "large"}, 1.0, b.take()};
}

// A tall pointed (lancet) window: a rectangle with a triangle on top.
void lancet(MeshBuilder& b, const Facade& f, double uc, double v0, double w, double h, Rgb colour) {
    const double o = MeshBuilder::kPanelOffset;
    b.setColour(colour);
    b.addQuad(f.at(uc - w / 2, v0, o), f.at(uc + w / 2, v0, o), f.at(uc + w / 2, v0 + h, o),
              f.at(uc - w / 2, v0 + h, o));
    b.addTriangle(f.at(uc - w / 2, v0 + h, o), f.at(uc + w / 2, v0 + h, o), f.at(uc, v0 + h + w * 0.8, o));
}

ModelRecipe chapel() {
    MeshBuilder b;
    const Rgb glass{70, 80, 120};
    // Nave.
    const double nh = 7.0;
    b.setColour(kStone);
    b.addBox({-4.5, 0, -10}, {4.5, nh, 5});
    const auto nf = boxFacades(-4.5, 4.5, -10, 5, 0, nh);
    for (int side : {1, 3}) {
        const Facade& face = nf[static_cast<std::size_t>(side)];
        panel(b, face, 0, 0, face.width, 0.6, kStoneDark, kBand);
        for (int i = 0; i < 4; ++i) lancet(b, face, 2.2 + i * 3.5, 2.0, 1.0, 3.0, glass);
    }
    b.setColour(kRoofSlate);
    b.addGableRoof(-4.5, 4.5, -10, 5, nh, 4.5, false, 0.4, kStone);
    // Chancel at the back, lower and narrower.
    b.setColour(kStone);
    b.addBox({-3, 0, -14}, {3, 5.5, -10});
    const auto cf = boxFacades(-3, 3, -14, -10, 0, 5.5);
    lancet(b, cf[2], 3.0, 1.8, 1.0, 2.2, glass);
    b.setColour(kRoofSlate);
    b.addGableRoof(-3, 3, -14, -10, 5.5, 3.0, false, 0.3, kStone);
    // Tower at the front with belfry openings and an octagonal spire.
    const double th = 16.0;
    b.setColour(kStone);
    b.addBox({-2.5, 0, 5}, {2.5, th, 10});
    const auto tf = boxFacades(-2.5, 2.5, 5, 10, 0, th);
    for (const Facade& face : tf) {
        panel(b, face, 0, 0, face.width, 0.6, kStoneDark, kBand);
        panel(b, face, 0, th - 0.5, face.width, th, kStoneDark, kBand);
        lancet(b, face, 2.5, 12.0, 1.4, 2.2, Rgb{40, 36, 34});
    }
    lancet(b, tf[0], 2.5, 0, 1.8, 2.6, kDoorWood);
    lancet(b, tf[0], 2.5, 6.0, 0.9, 2.0, glass);
    b.setColour(kRoofCopper);
    b.addFrustum(0, 7.5, th, th + 10.0, 3.1, 0.0, 8, true, false, std::numbers::pi / 8);
    // Cross on the spire.
    b.setColour(kGold);
    b.addBox({-0.07, th + 9.8, 7.43}, {0.07, th + 11.4, 7.57});
    b.addBox({-0.45, th + 10.7, 7.43}, {0.45, th + 10.85, 7.57}, true);
    return {"chapel", "building", {"religious", "church", "historic", "landmark"}, 1.0, b.take()};
}

ModelRecipe roundTower() {
    MeshBuilder b;
    const int n = 16;
    const double r = 4.0;
    const double h = 15.0;
    // A battered plinth, the drum, a corbelled parapet ring with merlons and a conical roof.
    b.setColour(kStoneDark);
    b.addFrustum(0, 0, 0, 1.6, r + 0.35, r, n, false, false, std::numbers::pi / n);
    b.setColour(kStone);
    b.addFrustum(0, 0, 1.6, h, r, r, n, false, false, std::numbers::pi / n);
    std::vector<Vec3> ring(n);
    for (int i = 0; i < n; ++i) {
        const double a = std::numbers::pi / n + 2.0 * std::numbers::pi * i / n;
        ring[static_cast<std::size_t>(i)] = {r * std::cos(a), 0, -r * std::sin(a)};
    }
    // Slit windows on alternating facets, spiralling up with the stair inside.
    for (int k = 0; k < 6; ++k) {
        const int i = (k * 3) % n;
        const Facade face =
            edgeFacade(ring[static_cast<std::size_t>(i)], ring[static_cast<std::size_t>((i + 1) % n)], 0, h);
        panel(b, face, face.width / 2 - 0.18, 3.0 + k * 1.8, face.width / 2 + 0.18, 4.4 + k * 1.8, Rgb{36, 32, 30});
    }
    const std::size_t frontFacet = 11;  // centred on angle 3π/2: faces +Z
    const Facade door = edgeFacade(ring[frontFacet], ring[(frontFacet + 1) % n], 0, h);
    panel(b, door, door.width / 2 - 0.6, 1.6, door.width / 2 + 0.6, 3.8, kDoorWood);
    b.setColour(kStoneDark);
    b.addFrustum(0, 0, h, h + 0.6, r, r + 0.4, n, false, false, std::numbers::pi / n);
    b.setColour(kStone);
    b.addFrustum(0, 0, h + 0.6, h + 1.4, r + 0.4, r + 0.4, n, false, false, std::numbers::pi / n);
    // The parapet's inner face and its top, between radius r and r + 0.4.
    for (int i = 0; i < n; ++i) {
        const double a0 = std::numbers::pi / n + 2.0 * std::numbers::pi * i / n;
        const double a1 = std::numbers::pi / n + 2.0 * std::numbers::pi * (i + 1) / n;
        const Vec3 in0{r * std::cos(a0), 0, -r * std::sin(a0)};
        const Vec3 in1{r * std::cos(a1), 0, -r * std::sin(a1)};
        const double ro = r + 0.4;
        const Vec3 out0{ro * std::cos(a0), 0, -ro * std::sin(a0)};
        const Vec3 out1{ro * std::cos(a1), 0, -ro * std::sin(a1)};
        const double y0 = h + 0.6;
        const double y1 = h + 1.4;
        addQuadFacing(b, {in0.x, y0, in0.z}, {in1.x, y0, in1.z}, {in1.x, y1, in1.z}, {in0.x, y1, in0.z},
                      Vec3{0, 0, 0} - (in0 + in1));
        addQuadFacing(b, {out0.x, y1, out0.z}, {out1.x, y1, out1.z}, {in1.x, y1, in1.z}, {in0.x, y1, in0.z}, {0, 1, 0});
    }
    for (int i = 0; i < n; i += 2) {
        const double a = std::numbers::pi / n + 2.0 * std::numbers::pi * (i + 0.5) / n;
        b.setTransform(Affine::rotationY(a));
        b.addBox({r + 0.02, h + 1.4, -0.6}, {r + 0.4, h + 2.3, 0.6});
    }
    b.setTransform(Affine{});
    // The conical roof rises from inside the parapet.
    b.setColour(kRoofSlate);
    b.addFrustum(0, 0, h + 0.6, h + 7.5, r - 0.02, 0.0, n, false, false, std::numbers::pi / n);
    return {"round_tower", "building", {"ancient", "historic", "tower", "defensive", "landmark"}, 1.0, b.take()};
}

// One roof tier of the pagoda: a concave, hipped roof from eaves of half-width `eave` at
// height `eaveY` (corners turned up by `lift`) to a square of half-width `top` at `topY`,
// with a coloured underside back to the wall of half-width `wall` at `wallY`.
void pagodaRoof(MeshBuilder& b, double wall, double wallY, double eave, double eaveY, double top, double topY,
                double lift) {
    // Eight points per ring: corners and edge midpoints, counter-clockwise seen from above.
    auto ring = [](double half, double y, double cornerLift) {
        std::array<Vec3, 8> p;
        const double xs[8] = {1, 0, -1, -1, -1, 0, 1, 1};
        const double zs[8] = {-1, -1, -1, 0, 1, 1, 1, 0};
        for (int i = 0; i < 8; ++i) {
            const bool corner = xs[i] != 0 && zs[i] != 0;
            p[static_cast<std::size_t>(i)] = {xs[i] * half, y + (corner ? cornerLift : 0.0), zs[i] * half};
        }
        return p;
    };
    const auto outer = ring(eave, eaveY, lift);
    // The middle ring sits below the straight line between eave and top: a concave sweep.
    const double midHalf = eave * 0.45 + top * 0.55;
    const double midY = eaveY + (topY - eaveY) * 0.38;
    const auto mid = ring(midHalf, midY, lift * 0.3);
    const auto inner = ring(top, topY, 0.0);
    const auto wallRing = ring(wall, wallY, 0.0);
    b.setColour(kRoofTemple);
    for (std::size_t i = 0; i < 8; ++i) {
        const std::size_t j = (i + 1) % 8;
        addQuadFacing(b, outer[i], outer[j], mid[j], mid[i], {outer[i].x, 3.0 * eave, outer[i].z});
        addQuadFacing(b, mid[i], mid[j], inner[j], inner[i], {mid[i].x, 3.0 * eave, mid[i].z});
    }
    b.setColour(kSoffitRed);
    for (std::size_t i = 0; i < 8; ++i) {
        const std::size_t j = (i + 1) % 8;
        addQuadFacing(b, outer[i], outer[j], wallRing[j], wallRing[i], {0, -1, 0});
    }
}

ModelRecipe pagoda() {
    MeshBuilder b;
    // Stone platform with steps at the front.
    b.setColour(kStone);
    b.addBox({-7, 0, -7}, {7, 1.0, 7});
    b.setColour(kStoneDark);
    for (int s = 0; s < 3; ++s) {
        b.addBox({-1.8, 0, 7.0 + 0.45 * (2 - s)}, {1.8, 0.33 * (s + 1), 7.0 + 0.45 * (3 - s)});
    }
    const int tiers = 5;
    const double halves[tiers] = {4.4, 3.8, 3.2, 2.6, 2.0};
    double y = 1.0;
    for (int t = 0; t < tiers; ++t) {
        const double w = halves[t];
        const double bodyH = t == 0 ? 3.4 : 2.2;
        const double bodyTop = y + bodyH;
        b.setColour(kVermilion);
        b.addBox({-w, y, -w}, {w, bodyTop, w});
        const auto faces = boxFacades(-w, w, -w, w, y, bodyH);
        for (const Facade& face : faces) {
            // Corner posts, a lattice panel (or the door) in the middle of each side.
            panel(b, face, 0, 0, 0.3, bodyH, Rgb{120, 30, 24});
            panel(b, face, face.width - 0.3, 0, face.width, bodyH, Rgb{120, 30, 24});
            const double pw = std::min(1.6, face.width * 0.35);
            if (t == 0 && &face == &faces[0]) {
                panel(b, face, face.width / 2 - 0.9, 0, face.width / 2 + 0.9, 2.6, Rgb{70, 30, 20});
            } else {
                panel(b, face, face.width / 2 - pw / 2, bodyH * 0.25, face.width / 2 + pw / 2, bodyH * 0.8, kGold);
            }
        }
        const bool last = t == tiers - 1;
        const double eave = w + 1.9 - 0.1 * t;
        const double eaveY = bodyTop - 0.25;
        const double topHalf = last ? 0.35 : halves[t + 1];
        const double topY = last ? bodyTop + 2.4 : bodyTop + 1.0;
        pagodaRoof(b, w, bodyTop, eave, eaveY, topHalf, topY, 0.6);
        if (last) {
            b.setColour(kRoofTemple);
            b.addFlatCap(rectangle(-topHalf, topHalf, -topHalf, topHalf), topY);
        }
        y = topY;
    }
    // Finial: a mast with stacked rings.
    b.setColour(kGold);
    b.addFrustum(0, 0, y, y + 4.6, 0.18, 0.06, 6, false, true);
    for (int k = 0; k < 5; ++k)
        b.addFrustum(0, 0, y + 0.8 + k * 0.6, y + 0.95 + k * 0.6, 0.55 - k * 0.07, 0.55 - k * 0.07, 8, true, true);
    SeededRandom random(7);
    b.addBlob({0, y + 4.7, 0}, {0.28, 0.36, 0.28}, 0, 0.0, 0.0, random);
    return {"pagoda",
            "building",
            {"ancient", "religious", "temple", "asian", "tower", "landmark", "irregular"},
            1.0,
            b.take()};
}

ModelRecipe classicalTemple() {
    MeshBuilder b;
    // Three-step stylobate; the front (+Z) is the short side.
    b.setColour(kMarbleShade);
    b.addBox({-6.5, 0, -11}, {6.5, 0.4, 11});
    b.setColour(kMarble);
    b.addBox({-6.1, 0.4, -10.6}, {6.1, 0.8, 10.6});
    b.setColour(kMarbleShade);
    b.addBox({-5.7, 0.8, -10.2}, {5.7, 1.2, 10.2});
    const double base = 1.2;
    const double colTop = base + 6.0;
    // Cella: the closed inner hall with its door behind the front colonnade.
    b.setColour(Rgb{214, 200, 170});
    b.addWalls(rectangle(-3.6, 3.6, -7.5, 6.5), base, colTop);
    const auto cf = boxFacades(-3.6, 3.6, -7.5, 6.5, base, 6.0);
    panel(b, cf[0], 2.6, 0, 4.6, 4.2, Rgb{80, 60, 40});
    // Peristyle: 6 columns across the front and back, 11 down each side (corners shared).
    const int across = 6;
    const int along = 11;
    const double x0 = -5.0, x1 = 5.0, z0 = -9.5, z1 = 9.5;
    auto column = [&](double x, double z) {
        b.setColour(kMarble);
        b.addFrustum(x, z, base, colTop - 0.3, 0.48, 0.4, 8, false, false, std::numbers::pi / 8);
        b.setColour(kMarbleShade);
        b.addBox({x - 0.58, colTop - 0.3, z - 0.58}, {x + 0.58, colTop, z + 0.58}, true);
    };
    for (int i = 0; i < across; ++i) {
        const double x = x0 + (x1 - x0) * i / (across - 1);
        column(x, z0);
        column(x, z1);
    }
    for (int i = 1; i < along - 1; ++i) {
        const double z = z0 + (z1 - z0) * i / (along - 1);
        column(x0, z);
        column(x1, z);
    }
    // Entablature and the pedimented roof.
    b.setColour(kMarble);
    b.addBox({-5.7, colTop, -10.2}, {5.7, colTop + 1.3, 10.2}, true);
    const auto ef = boxFacades(-5.7, 5.7, -10.2, 10.2, colTop, 1.3);
    for (const Facade& face : ef) panel(b, face, 0, 0.55, face.width, 0.75, kMarbleShade, kBand);
    b.setColour(Rgb{190, 110, 80});
    b.addGableRoof(-5.7, 5.7, -10.2, 10.2, colTop + 1.3, 2.3, false, 0.25, kMarble);
    // A darker tympanum inside each pediment reads as sculpture from a distance.
    for (double side : {1.0, -1.0}) {
        const double z = side * (10.2 + MeshBuilder::kPanelOffset);
        b.setColour(Rgb{196, 186, 164});
        const Vec3 l{-4.2, colTop + 1.55, z}, r{4.2, colTop + 1.55, z}, t{0, colTop + 1.3 + 2.3 * 0.8, z};
        if (side > 0) {
            b.addTriangle(l, r, t);
        } else {
            b.addTriangle(r, l, t);
        }
    }
    return {"temple_classical", "building", {"ancient", "religious", "temple", "historic", "landmark"}, 1.0, b.take()};
}

}  // namespace

std::vector<ModelRecipe> buildDefaultBuildings() {
    std::vector<ModelRecipe> out;
    out.push_back(cottage());
    out.push_back(houseGabled());
    out.push_back(villaHipped());
    out.push_back(townhouseRow());
    out.push_back(shopCorner());
    out.push_back(apartmentBlock());
    out.push_back(apartmentL());
    out.push_back(courtyardBlock());
    out.push_back(apartmentU());
    out.push_back(officeTower());
    out.push_back(warehouse());
    out.push_back(chapel());
    out.push_back(roundTower());
    out.push_back(pagoda());
    out.push_back(classicalTemple());
    return out;
}

}  // namespace terrabit::core::detail
