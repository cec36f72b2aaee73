// What towns are made of besides houses and blocks: garages, carports, sheds (from a 1.2 × 1.5 m
// tool shed, which with the building pass's margins still fits a 2 × 2.5 m footprint), huts, kiosks,
// greenhouses, substations, barns, large halls (a factory, a supermarket, a sports hall) and a
// slab block. Sizes are the real ones (a single garage is 3 × 5.5 m, a kiosk 3 × 2.5 m, a
// factory hall 80 × 40 m), so footprints of every size find a model of their kind; each is
// dressed with the style kit like the rest of the library.

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "default_models_p.h"
#include "terrabit/core/assets/style_kit.h"

namespace terrabit::core::detail {

namespace {

using namespace style;

// A sectional garage door: a light panel with dark horizontal joints.
void garageDoor(MeshBuilder& b, const Facade& f, double u0, double u1, double h) {
    panel(b, f, u0, 0, u1, h, kFrameWhite, 2 * MeshBuilder::kPanelOffset);
    for (int k = 1; k < 4; ++k) {
        const double v = h * k / 4.0;
        panel(b, f, u0 + 0.05, v - 0.025, u1 - 0.05, v + 0.025, kConcreteDark, 3 * MeshBuilder::kPanelOffset);
    }
}

// Walls `h` high in one colour around the rectangle [-hx, hx] × [-hz, hz], and their façades.
std::array<Facade, 4> walledBox(MeshBuilder& b, double hx, double hz, double h, Rgb wall) {
    b.setColour(wall);
    b.addWalls(rectangle(-hx, hx, -hz, hz), 0, h);
    return boxFacades(-hx, hx, -hz, hz, 0, h);
}

// A flat-roofed box with a thin fascia: the shape of garages, kiosks and substations.
void flatBox(MeshBuilder& b, double halfX, double halfZ, double h, Rgb wall) {
    const Outline outline = rectangle(-halfX, halfX, -halfZ, halfZ);
    b.setColour(wall);
    b.addWalls(outline, 0, h);
    parapetRoof(b, outline, h, 0.2, 0.15, wall, kRoofFlat);
}

ModelRecipe garage(const char* id, double width, int doors) {
    MeshBuilder b;
    const double h = 2.5;
    flatBox(b, width / 2, 2.75, h, kPlasterWhite);
    const auto f = boxFacades(-width / 2, width / 2, -2.75, 2.75, 0, h);
    for (const Facade& face : f) panel(b, face, 0, 0, face.width, 0.3, kConcreteDark, kBand);
    const double step = width / doors;
    for (int d = 0; d < doors; ++d) garageDoor(b, f[0], step * d + 0.3, step * (d + 1) - 0.3, 2.1);
    window(b, f[1], 2.75, 1.2, 0.8, 0.6, kFrameDark, kGlass);
    return {id, "building", {"garage", "outbuilding", "residential", "small"}, 1.0, b.take()};
}

ModelRecipe carport() {
    MeshBuilder b;
    const double h = 2.3;
    b.setColour(kTimber);
    for (double x : {-1.4, 1.25})
        for (double z : {-2.6, 2.45}) b.addBox({x, 0, z}, {x + 0.15, h, z + 0.15});
    // The roof slab, visible from below: the car stands under it.
    b.setColour(kRoofMetal);
    b.addBox({-1.5, h, -2.75}, {1.5, h + 0.15, 2.75}, true);
    b.setColour(kTimberDark);
    b.addBox({-1.5, h - 0.2, 2.6}, {1.5, h, 2.75}, true);  // front beam
    b.addBox({-1.5, h - 0.2, -2.75}, {1.5, h, -2.6}, true);
    return {"carport", "building", {"carport", "outbuilding", "residential", "small"}, 1.0, b.take()};
}

// A timber shed or hut: plank walls, a door, a gabled roof with a little overhang.
MeshBuilder timberHouse(double halfX, double halfZ, double h, double rise, double overhang, Rgb roof) {
    MeshBuilder b;
    b.setColour(kTimber);
    b.addWalls(rectangle(-halfX, halfX, -halfZ, halfZ), 0, h);
    const auto f = boxFacades(-halfX, halfX, -halfZ, halfZ, 0, h);
    for (const Facade& face : f) {
        // Vertical battens read as planks: at least four a wall, however small the shed.
        const double pitch = std::min(0.5, face.width / 5.0);
        for (double u = pitch; u < face.width - pitch / 2; u += pitch)
            panel(b, face, u - 0.03, 0, u + 0.03, h, kTimberDark, kBand);
    }
    const double doorTop = std::min(1.95, h - 0.1);
    panel(b, f[0], halfX - 0.5, 0, halfX + 0.5, doorTop + 0.05, kTimberDark, 2 * MeshBuilder::kPanelOffset);  // frame
    panel(b, f[0], halfX - 0.45, 0, halfX + 0.45, doorTop, kDoorWood, 3 * MeshBuilder::kPanelOffset);
    b.setColour(roof);
    b.addGableRoof(-halfX, halfX, -halfZ, halfZ, h, rise, false, overhang, kTimber);
    return b;
}

ModelRecipe shed(const char* id, double width, double depth) {
    MeshBuilder b = timberHouse(width / 2, depth / 2, 2.1, 0.5 + 0.15 * width, 0.15, kRoofSlate);
    const double pane = std::min(0.7, 0.4 * depth);
    window(b, edgeFacade({width / 2, 0, depth / 2}, {width / 2, 0, -depth / 2}, 0, 2.1), depth / 2, 1.0, pane, 0.6,
           kFrameWhite, kGlass);
    return {id, "building", {"shed", "outbuilding", "rural", "small"}, 1.0, b.take()};
}

ModelRecipe hut() {
    MeshBuilder b = timberHouse(1.6, 1.9, 2.2, 1.9, 0.3, kRoofSlate);
    const Facade side = edgeFacade({1.6, 0, 1.9}, {1.6, 0, -1.9}, 0, 2.2);
    panel(b, side, 1.9 - 0.55, 0.95, 1.9 - 0.35, 1.65, kShutterGreen);
    panel(b, side, 1.9 + 0.35, 0.95, 1.9 + 0.55, 1.65, kShutterGreen);
    window(b, side, 1.9, 1.0, 0.6, 0.6, kFrameWhite, kGlass);
    b.setColour(kStoneDark);
    b.addBox({-1.75, 0, -2.05}, {1.75, 0.35, 2.05});  // dry-stone base
    return {"hut", "building", {"hut", "outbuilding", "rural", "small"}, 1.0, b.take()};
}

ModelRecipe kiosk() {
    MeshBuilder b;
    const double h = 2.6;
    flatBox(b, 1.5, 1.2, h, kPlasterSage);
    const auto f = boxFacades(-1.5, 1.5, -1.2, 1.2, 0, h);
    panel(b, f[0], 0.2, 0.9, 2.8, 2.0, kFrameDark, kBand);  // the serving hatch
    panel(b, f[0], 0.3, 1.0, 2.7, 1.9, kGlass);
    panel(b, f[0], 0.1, 2.15, 2.9, 2.5, Rgb{30, 70, 120});  // sign band
    panel(b, f[1], 0.8, 0, 1.6, 2.0, kDoorWood, 2 * MeshBuilder::kPanelOffset);
    // A striped awning over the hatch.
    for (int i = 0; i < 6; ++i) {
        const double x0 = -1.45 + 2.9 * i / 6.0;
        const double x1 = -1.45 + 2.9 * (i + 1) / 6.0;
        b.setColour(i % 2 == 0 ? kAwningRed : kFrameWhite);
        b.addDoubleSidedQuad({x0, 1.95, 1.2 + 0.5}, {x1, 1.95, 1.2 + 0.5}, {x1, 2.1, 1.2 + 0.05},
                             {x0, 2.1, 1.2 + 0.05});
    }
    return {"kiosk", "building", {"kiosk", "commercial", "retail", "urban", "small"}, 1.0, b.take()};
}

ModelRecipe greenhouse() {
    MeshBuilder b;
    const double hx = 1.5, hz = 2.25, h = 2.0;
    b.setColour(kBrick);
    b.addBox({-hx, 0, -hz}, {hx, 0.4, hz});
    b.setColour(kGreenhouseGlass);
    b.addWalls(rectangle(-hx + 0.05, hx - 0.05, -hz + 0.05, hz - 0.05), 0.4, h);
    const auto f = boxFacades(-hx + 0.05, hx - 0.05, -hz + 0.05, hz - 0.05, 0.4, h - 0.4);
    for (const Facade& face : f) {
        // Glazing bars every 0.75 m.
        for (double u = 0.0; u <= face.width + 1e-9; u += face.width / std::round(face.width / 0.75))
            panel(b, face, std::max(0.0, u - 0.03), 0, std::min(face.width, u + 0.03), h - 0.4, kFrameWhite);
    }
    panel(b, f[0], hx - 0.45, 0, hx + 0.45 - 0.1, 1.5, Rgb{150, 180, 175}, 2 * MeshBuilder::kPanelOffset);
    b.setColour(kGreenhouseGlass);
    b.addGableRoof(-hx + 0.05, hx - 0.05, -hz + 0.05, hz - 0.05, h, 1.0, false, 0.0, kGreenhouseGlass);
    b.setColour(kFrameWhite);
    b.addBox({-0.06, h + 0.95, -hz}, {0.06, h + 1.05, hz});  // ridge bar
    return {"greenhouse", "building", {"greenhouse", "agricultural", "small"}, 1.0, b.take()};
}

ModelRecipe substation() {
    MeshBuilder b;
    const double h = 2.6;
    flatBox(b, 1.5, 1.25, h, kConcrete);
    const auto f = boxFacades(-1.5, 1.5, -1.25, 1.25, 0, h);
    for (const Facade& face : f) panel(b, face, 0, 0, face.width, 0.4, kConcreteDark, kBand);
    panel(b, f[0], 0.3, 0, 1.35, 2.1, kSteelBlue, 2 * MeshBuilder::kPanelOffset);
    panel(b, f[0], 1.65, 0, 2.7, 2.1, kSteelBlue, 2 * MeshBuilder::kPanelOffset);
    // The yellow warning sign on each door, and louvres on the sides.
    for (double uc : {0.825, 2.175}) {
        b.setColour(Rgb{240, 200, 40});
        b.addTriangle(f[0].at(uc - 0.15, 1.45, 3 * MeshBuilder::kPanelOffset),
                      f[0].at(uc + 0.15, 1.45, 3 * MeshBuilder::kPanelOffset),
                      f[0].at(uc, 1.72, 3 * MeshBuilder::kPanelOffset));
    }
    for (int side : {1, 3}) {
        for (int k = 0; k < 4; ++k) {
            panel(b, f[static_cast<std::size_t>(side)], 0.7, 1.5 + 0.15 * k, 1.8, 1.57 + 0.15 * k, kConcreteDark);
        }
    }
    return {"substation", "building", {"substation", "utility", "small"}, 1.0, b.take()};
}

ModelRecipe barn() {
    MeshBuilder b;
    const double hx = 5.0, hz = 8.0, h = 4.5;
    const auto f = walledBox(b, hx, hz, h, kBarnRed);
    for (const Facade& face : f) panel(b, face, 0, 0, face.width, 0.5, kStoneDark, kBand);
    // The big double door on the gable end, white trim and a cross brace.
    panel(b, f[0], 2.6, 0, 7.4, 3.8, kFrameWhite, 2 * MeshBuilder::kPanelOffset);
    panel(b, f[0], 2.75, 0, 4.95, 3.65, kBarnRed, 3 * MeshBuilder::kPanelOffset);
    panel(b, f[0], 5.05, 0, 7.25, 3.65, kBarnRed, 3 * MeshBuilder::kPanelOffset);
    for (int side : {1, 3}) {
        for (double u : {3.0, 8.0, 13.0})
            window(b, f[static_cast<std::size_t>(side)], u, 2.4, 1.0, 0.8, kFrameWhite, kGlass);
    }
    b.setColour(kRoofSlate);
    b.addGableRoof(-hx, hx, -hz, hz, h, 4.2, false, 0.4, kBarnRed);
    // The hay loft door in the front gable.
    const Facade gable = f[0];
    panel(b, gable, 4.3, h + 0.6, 5.7, h + 2.0, kFrameWhite, 2 * MeshBuilder::kPanelOffset);
    return {"barn", "building", {"barn", "agricultural", "rural", "farm", "large"}, 1.0, b.take()};
}

// Corrugated cladding: alternating vertical strips `pitch` metres wide, from v0 up to v1.
void cladding(MeshBuilder& b, const Facade& face, double v0, double v1, double pitch, Rgb strip) {
    const int strips = std::max(2, static_cast<int>(face.width / pitch));
    for (int i = 0; i < strips; i += 2) {
        panel(b, face, face.width * i / strips, v0, face.width * (i + 1) / strips, v1, strip, kBand);
    }
}

ModelRecipe factoryHall() {
    MeshBuilder b;
    const double hx = 40.0, hz = 20.0, h = 10.0;
    const auto f = walledBox(b, hx, hz, h, kSteelBlue);
    for (const Facade& face : f) {
        panel(b, face, 0, 0, face.width, 1.5, kConcrete, kBand);
        cladding(b, face, 1.5, h, 4.0, Rgb{108, 130, 152});
        panel(b, face, 0, 6.0, face.width, 7.4, kGlass);  // ribbon window
    }
    for (double u : {12.0, 28.0, 52.0, 68.0}) {
        panel(b, f[0], u - 2.5, 0, u + 2.5, 5.5, kConcreteDark, 2 * MeshBuilder::kPanelOffset);
        panel(b, f[0], u - 2.3, 0, u + 2.3, 5.3, Rgb{200, 160, 40}, 3 * MeshBuilder::kPanelOffset);
    }
    panel(b, f[0], 39.4, 0, 40.6, 2.2, kFrameDark, 4 * MeshBuilder::kPanelOffset);
    // A sawtooth roof: eight teeth along X, each a sloped sheet rising east and a glazed face
    // looking east; the end triangles close them at the front and back.
    const int teeth = 8;
    const double rise = 3.0;
    for (int t = 0; t < teeth; ++t) {
        const double x0 = -hx + 2 * hx * t / teeth;
        const double x1 = -hx + 2 * hx * (t + 1) / teeth;
        b.setColour(kRoofMetal);
        b.addQuad({x0, h, hz}, {x1, h + rise, hz}, {x1, h + rise, -hz}, {x0, h, -hz});
        b.setColour(Rgb{170, 200, 215});
        b.addQuad({x1, h, -hz}, {x1, h + rise, -hz}, {x1, h + rise, hz}, {x1, h, hz});
        b.setColour(kSteelBlue);
        b.addTriangle({x0, h, hz}, {x1, h, hz}, {x1, h + rise, hz});
        b.addTriangle({x1, h, -hz}, {x0, h, -hz}, {x1, h + rise, -hz});
    }
    // Chimney stack at the back.
    b.setColour(kBrick);
    b.addFrustum(30.0, -14.0, h, h + 14.0, 1.2, 0.9, 10, false, true);
    return {"factory_hall", "building", {"industrial", "factory", "hall", "large"}, 1.0, b.take()};
}

ModelRecipe supermarket() {
    MeshBuilder b;
    const double hx = 30.0, hz = 20.0, h = 6.5;
    const Outline outline = rectangle(-hx, hx, -hz, hz);
    const auto f = walledBox(b, hx, hz, h, kConcrete);
    for (const Facade& face : f) {
        panel(b, face, 0, 0, face.width, 0.6, kConcreteDark, kBand);
        cladding(b, face, 0.6, h, 3.0, kPlasterWhite);
    }
    // The glazed front with the entrance, a canopy and the sign band.
    panel(b, f[0], 24.0, 0, 58.0, 4.2, kFrameDark, 2 * MeshBuilder::kPanelOffset);
    for (double u = 24.2; u + 2.0 < 58.0; u += 2.3)
        panel(b, f[0], u, 0.4, u + 2.0, 4.0, kGlass, 3 * MeshBuilder::kPanelOffset);
    panel(b, f[0], 26.0, 0, 30.0, 3.0, Rgb{150, 180, 200}, 4 * MeshBuilder::kPanelOffset);  // sliding doors
    panel(b, f[0], 4.0, 4.6, 22.0, 6.1, Rgb{200, 40, 40});
    b.setColour(kConcreteDark);
    b.addBox({-6.0, 4.3, hz}, {28.5, 4.6, hz + 3.0}, true);
    for (double x : {-5.5, 4.0, 14.0, 27.8}) {
        b.setColour(kFrameDark);
        b.addBox({x, 0, hz + 2.6}, {x + 0.2, 4.3, hz + 2.8});
    }
    // Loading docks at the back.
    for (double u : {8.0, 13.0, 18.0})
        panel(b, f[2], u - 1.5, 0.9, u + 1.5, 4.0, kConcreteDark, 2 * MeshBuilder::kPanelOffset);
    parapetRoof(b, outline, h, 0.8, 0.3, kConcrete, kRoofFlat);
    b.setColour(kRoofMetal);
    for (double x : {-18.0, -6.0, 6.0, 18.0}) b.addBox({x - 1.5, h, -8.0}, {x + 1.5, h + 1.4, -5.0});  // plant
    return {"supermarket", "building", {"commercial", "retail", "supermarket", "large"}, 1.0, b.take()};
}

ModelRecipe sportsHall() {
    MeshBuilder b;
    const double hx = 22.5, hz = 14.0, h = 8.0;
    const auto f = walledBox(b, hx, hz, h, kPlasterWhite);
    for (const Facade& face : f) {
        panel(b, face, 0, 0, face.width, 2.8, Rgb{40, 110, 160}, kBand);  // the coloured base
        panel(b, face, 0.5, 5.2, face.width - 0.5, 7.2, kGlass);          // clerestory band
    }
    panel(b, f[0], 18.5, 0, 26.5, 2.6, kFrameDark, 2 * MeshBuilder::kPanelOffset);
    panel(b, f[0], 19.0, 0, 26.0, 2.4, kGlass, 3 * MeshBuilder::kPanelOffset);
    // A shallow barrel roof spanning the depth, in eight facets, with closed ends.
    const int facets = 8;
    const double rise = 3.0;
    std::vector<Vec3> arch;
    for (int i = 0; i <= facets; ++i) {
        const double t = -1.0 + 2.0 * i / facets;
        arch.push_back({0, h + rise * (1.0 - t * t), hz * t});
    }
    for (int i = 0; i < facets; ++i) {
        const Vec3& p = arch[static_cast<std::size_t>(i)];
        const Vec3& q = arch[static_cast<std::size_t>(i + 1)];
        b.setColour(kRoofMetal);
        b.addQuad({-hx - 0.3, q.y, q.z}, {hx + 0.3, q.y, q.z}, {hx + 0.3, p.y, p.z}, {-hx - 0.3, p.y, p.z});
        b.setColour(kPlasterWhite);
        b.addTriangle({hx, h, 0}, {hx, p.y, p.z}, {hx, q.y, q.z});
        b.addTriangle({-hx, h, 0}, {-hx, q.y, q.z}, {-hx, p.y, p.z});
    }
    return {"sports_hall", "building", {"sports", "hall", "large"}, 1.0, b.take()};
}

ModelRecipe slabBlock() {
    MeshBuilder b;
    const int floors = 8;
    const double fh = 2.8;
    const double h = floors * fh;
    const double hx = 30.0, hz = 6.0;
    const Outline outline = rectangle(-hx, hx, -hz, hz);
    const auto f = walledBox(b, hx, hz, h, kConcrete);
    for (const Facade& face : f) {
        panel(b, face, 0, 0, face.width, 1.0, kConcreteDark, kBand);
        // The joints of the precast panels, one per floor.
        for (int floor = 1; floor < floors; ++floor) {
            panel(b, face, 0, floor * fh - 0.04, face.width, floor * fh + 0.04, Rgb{170, 168, 160}, kBand);
        }
    }
    // Three stairwells on the front, each with its door and a glazed strip up the floors.
    const double entrances[] = {10.0, 30.0, 50.0};
    for (double u : entrances) {
        panel(b, f[0], u - 0.9, 0, u + 0.9, 2.4, kFrameDark, 2 * MeshBuilder::kPanelOffset);
        for (int floor = 1; floor < floors; ++floor)
            window(b, f[0], u, floor * fh - 1.1, 1.0, 1.0, kFrameWhite, kGlass);
    }
    for (int floor = 0; floor < floors; ++floor) {
        for (int i = 0; i < 20; ++i) {
            const double u = 1.5 + 3.0 * i;
            if (std::any_of(std::begin(entrances), std::end(entrances),
                            [&](double e) { return std::abs(u - e) < 1.6; }))
                continue;
            window(b, f[0], u, 0.9 + floor * fh, 1.4, 1.4, kFrameWhite, kGlass);
        }
    }
    windowGrid(b, f[2], floors, 0.9, fh, 1.4, 1.4, 3.0, kFrameWhite, kGlass);
    windowGrid(b, f[1], floors, 0.9, fh, 1.0, 1.3, 4.0, kFrameWhite, kGlass);
    windowGrid(b, f[3], floors, 0.9, fh, 1.0, 1.3, 4.0, kFrameWhite, kGlass);
    parapetRoof(b, outline, h, 0.8, 0.3, kConcrete, kRoofFlat);
    b.setColour(kConcreteDark);
    for (double x : {-20.0, 0.0, 20.0}) b.addBox({x - 1.5, h, -2.0}, {x + 1.5, h + 2.2, 1.0});  // lift housings
    return {"slab_block", "building", {"residential", "apartment", "urban", "modern", "slab", "large"}, 1.0, b.take()};
}

}  // namespace

std::vector<ModelRecipe> buildDefaultTownBuildings() {
    std::vector<ModelRecipe> out;
    out.push_back(garage("garage_single", 3.0, 1));
    out.push_back(garage("garage_double", 6.0, 2));
    out.push_back(carport());
    out.push_back(shed("shed_tool", 1.2, 1.5));
    out.push_back(shed("shed_small", 2.0, 2.5));
    out.push_back(shed("shed_large", 4.0, 4.0));
    out.push_back(hut());
    out.push_back(kiosk());
    out.push_back(greenhouse());
    out.push_back(substation());
    out.push_back(barn());
    out.push_back(factoryHall());
    out.push_back(supermarket());
    out.push_back(sportsHall());
    out.push_back(slabBlock());
    return out;
}

}  // namespace terrabit::core::detail
